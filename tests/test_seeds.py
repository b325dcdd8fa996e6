"""Seed sources of the puzzle generator (issue 21 item 1) and the line's "any" (item 6).

- each source (random games, engine self-play, a folder of game records) gives sound
  puzzles whose ``source`` names the game and ply; the position is re-derived here from
  that alone (the random game's seed, the record's file and ply); the same seed gives
  the same file; a run resumes and refuses another source;
- the ``parents`` source (extend) changes each puzzle of a file in one point: every
  child sound, one point from its parent, with the parent's source; it resumes, refuses
  a changed file and stops when the parents are used up;
- ``--grow`` grows a set another run made (another source and method): its puzzles
  kept, new ids after them, that run an earlier one in the state, the totals summed; it
  resumes as its own run, and refuses another board or n, ``--force`` and a bad earlier run;
- a bad records folder or record, or a bad parents file, is one line and exit 2;
- ``source`` round-trips through a record, and a bad one is refused;
- ``any`` is accepted only as the line's last move, a defender's; the audit refuses a
  record whose ``any`` lets a reply escape; show and the book print it.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from puzzles import generate as G
from puzzles.book import _line_text, _moves, book_html
from puzzles.record import ANY, Puzzle, PuzzleFormatError, load_jsonl, write_jsonl
from puzzles.themes import themes
from puzzles.verdict import any_escapes, verify
from solver import Board, Position
from solver.rules.record import parse_record

# m45-c1-0059 of the committed set: the key f5 leaves the group at f4 dead, every reply
# removes it; a1 leaves it alive
ANY_POS = "1D1L/3L1/2DDL1/1D1L1LL/2DDDL2/5L1/2D3/D4/4 D"


def _sound(p: Puzzle) -> None:
    v = verify(p.to_position(), p.target, p.n)
    assert v.sound and v.keys == [p.key]
    if p.line[-1] == ANY:
        assert any_escapes(p.to_position(), p.target, p.line) == []


@pytest.fixture(scope="module")
def records_dir(tmp_path_factory):
    """Three 4/5 games between random players, as ``meridians match --records`` writes them."""
    from solver.app.match import parse_player, run_match

    d = tmp_path_factory.mktemp("games")
    run_match(parse_player("random"), parse_player("random"), "4/5", 3, seed=2, records=d,
              state=d.parent / "state.json")
    return d


def test_random_source_names_its_game(tmp_path):
    out = tmp_path / "r.jsonl"
    G.generate("4/5", 1, 2, str(out), method="baseline", seed=9)
    ps = load_jsonl(out)
    assert len(ps) == 2
    for p in ps:
        s = p.source
        assert s["kind"] == "random" and set(s) == {"kind", "game", "ply"}
        # the game's seed alone gives the position back
        assert str(G.seed_position(Board.parse("4/5"), s["game"])) == p.position
        rows = p.position.split()[0]
        assert 15 <= s["ply"] <= 44 and rows.count("L") + rows.count("D") <= s["ply"]
        _sound(p)


def test_selfplay_source_is_reproducible_and_resumes(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    G.generate("4/5", 1, 2, str(a), method="baseline", seed=3, source="selfplay", playouts=20)
    G.generate("4/5", 1, 2, str(b), method="baseline", seed=3, source="selfplay", playouts=20)
    assert a.read_text() == b.read_text()
    ps = load_jsonl(a)
    for p in ps:
        assert p.source["kind"] == "selfplay" and p.source["playouts"] == 20
        # the game replayed from its seed reaches the position at the recorded ply
        moves = G.selfplay_game(Board.parse("4/5"), p.source["game"], 20, plies=p.source["ply"])
        pos = Position.start("4/5")
        for m in moves:
            pos = pos.play(m)
        assert str(pos) == p.position
        _sound(p)
    G.generate("4/5", 1, 3, str(a), method="baseline", seed=3, source="selfplay", playouts=20)
    more = load_jsonl(a)
    assert len(more) == 3 and [q.to_dict() for q in more[:2]] == [q.to_dict() for q in ps]
    # another source or budget on the same file: refused
    with pytest.raises(ValueError, match="records another run"):
        G.generate("4/5", 1, 4, str(a), method="baseline", seed=3, source="selfplay", playouts=21)
    with pytest.raises(ValueError, match="records another run"):
        G.generate("4/5", 1, 4, str(a), method="baseline", seed=3)


def test_records_source_reads_the_folder(tmp_path, records_dir, run_cli):
    out = tmp_path / "g.jsonl"
    code, text, err, _ = run_cli("puzzles", "generate", "--board", "4/5", "--n", "1", "--count", "2",
                                 "--method", "baseline", "--source", "records", records_dir, "--out", out)
    assert code in (0, 3), err  # 3: the three games gave fewer than two puzzles
    ps = load_jsonl(out)
    assert ps, "three random 4/5 games give a capture in 1"
    for p in ps:
        s = p.source
        assert s["kind"] == "records" and set(s) == {"kind", "file", "ply"}
        record = parse_record((records_dir / s["file"]).read_text(), default_board="4/5")
        assert str(record.position(s["ply"])) == p.position
        _sound(p)
    again = tmp_path / "h.jsonl"
    run_cli("puzzles", "generate", "--board", "4/5", "--n", "1", "--count", "2", "--method", "baseline",
            "--source", "records", records_dir, "--out", again)
    assert again.read_text() == out.read_text()


def test_records_used_up_stop_with_exit_3(tmp_path, records_dir, run_cli):
    code, text, err, _ = run_cli("puzzles", "generate", "--board", "4/5", "--n", "1", "--count", "500",
                                 "--method", "baseline", "--source", "records", records_dir,
                                 "--out", tmp_path / "u.jsonl")
    assert code == 3 and "game records" in err and "used up" in err and "Traceback" not in err


@pytest.mark.parametrize("make", ["missing", "file", "empty", "bad", "illegal", "board", "no-dir"])
def test_a_bad_records_folder_is_one_line(tmp_path, make, run_cli):
    d = tmp_path / "recs"
    if make != "missing" and make != "file" and make != "no-dir":
        d.mkdir()
    if make == "file":
        d.write_text("x")
    elif make == "bad":
        (d / "game-0001.txt").write_bytes(b"\x00\xff\xfe not a record [")
    elif make == "illegal":
        (d / "game-0001.txt").write_text('[Board "4/5"]\n\n1. c2 c2\n')
    elif make == "board":
        (d / "game-0001.txt").write_text('[Board "2/3"]\n\n1. c2 c3\n')
    args = ["puzzles", "generate", "--board", "4/5", "--n", "1", "--count", "1", "--source", "records"]
    args += [] if make == "no-dir" else [d]
    code, out, err, exc = run_cli(*args, "--out", tmp_path / "x.jsonl")
    said = [line for line in err.splitlines() if not line.startswith("compiling")]  # a first run's note
    assert exc is None and code == 2 and out == "" and len(said) == 1, err
    assert said[0].startswith("meridians: error:")
    assert not (tmp_path / "x.jsonl").exists()


@pytest.fixture(scope="module")
def committed_1_movers(tmp_path_factory):
    """The first eight puzzles of the committed 4/5 capture-in-1 set."""
    from pathlib import Path

    path = tmp_path_factory.mktemp("parents") / "p.jsonl"
    src = Path(__file__).resolve().parent.parent / "results" / "puzzles" / "4-5-c1.jsonl"
    path.write_text("".join(src.read_text().splitlines(keepends=True)[:8]))
    return path


def test_parents_source_changes_each_puzzle_of_the_file_in_one_point(tmp_path, committed_1_movers, run_cli):
    parents = {(p.target, p.position): p for p in load_jsonl(committed_1_movers)}
    out = tmp_path / "c2.jsonl"
    code, text, err, _ = run_cli("puzzles", "generate", "--board", "4/5", "--n", "2", "--count", "3",
                                 "--method", "extend", "--source", "parents", committed_1_movers, "--out", out)
    assert code == 0, err
    assert " candidates in 4 parents (" in err  # one batch of units, each a parent
    ps = load_jsonl(out)
    assert len(ps) == 3
    for p in ps:
        mine = Position.parse(p.position)
        near = [q for (t, _), q in parents.items() if t == p.target
                and sum((a in mine.stones("L")) != (a in q.to_position().stones("L"))
                        or (a in mine.stones("D")) != (a in q.to_position().stones("D"))
                        for a in mine.board.names) == 1]
        assert len(near) == 1, p.id  # one parent, one point away
        assert p.source == near[0].source and p.generator == "extend" and p.dual_free
        _sound(p)
    state = json.loads((tmp_path / "c2.jsonl.state.json").read_text())
    assert state["source"] == "parents" and state["units"] == 4 and len(state["parents_used"]) == 16
    lines = committed_1_movers.read_text().splitlines(keepends=True)
    # another parents file is another run: its first four puzzles are not those used
    other = tmp_path / "other.jsonl"
    other.write_text("".join(lines[1:]))
    code, text, err, _ = run_cli("puzzles", "generate", "--board", "4/5", "--n", "2", "--count", "100",
                                 "--method", "extend", "--source", "parents", other, "--out", out)
    assert code == 2 and "is not the parents file this run used" in err and len(err.splitlines()) == 1, err
    # the same file grown at its end (a committed set grown) resumes: the first three as
    # they were, then the file used up (exit 3)
    grown = tmp_path / "grown.jsonl"
    grown.write_text("".join(lines[:4]))
    code, text, err, _ = run_cli("puzzles", "generate", "--board", "4/5", "--n", "2", "--count", "100",
                                 "--method", "extend", "--source", "parents", grown, "--out", out)
    assert code == 3 and "the 4 puzzles in" in err and "used up" in err, err
    code, text, err, _ = run_cli("puzzles", "generate", "--board", "4/5", "--n", "2", "--count", "100",
                                 "--method", "extend", "--source", "parents", committed_1_movers, "--out", out)
    assert code == 3 and "the 8 puzzles in" in err and "used up" in err, err
    assert [p.to_dict() for p in load_jsonl(out)[:3]] == [p.to_dict() for p in ps]
    assert json.loads((tmp_path / "c2.jsonl.state.json").read_text())["units"] == 8


def test_order_nodes_takes_the_parents_with_the_fewest_nodes_first(tmp_path, committed_1_movers, run_cli):
    parents = load_jsonl(committed_1_movers)
    ordered = G.order_parents(parents, "nodes")
    assert sorted(p.id for p in ordered) == sorted(p.id for p in parents)
    assert [p.nodes for p in ordered] == sorted(p.nodes for p in parents)
    assert [p.id for p in ordered] != [p.id for p in parents]  # the test means something: another order
    out = tmp_path / "c2.jsonl"
    args = ["puzzles", "generate", "--board", "4/5", "--n", "2", "--count", "1", "--method", "extend",
            "--source", "parents", committed_1_movers, "--out", out]
    code, _, err, _ = run_cli(*args, "--order", "nodes")
    assert code == 0, err
    state = json.loads((tmp_path / "c2.jsonl.state.json").read_text())
    assert state["order"] == "nodes" and state["units"] == 4
    # the units were the four parents with the fewest nodes: each child is one point from one of them
    first = {(q.target, q.source["game"], q.source["ply"]) for q in ordered[:4]}
    assert all((p.target, p.source["game"], p.source["ply"]) in first for p in load_jsonl(out))
    before = out.read_bytes()
    code, _, err, _ = run_cli(*args, "--count", "2")  # the same run resumed in file order: refused
    assert code == 2 and "in --order nodes, not file" in err and len(err.splitlines()) == 1, err
    assert out.read_bytes() == before
    code, _, err, _ = run_cli("puzzles", "generate", "--board", "4/5", "--n", "2", "--order", "nodes",
                              "--out", tmp_path / "x.jsonl")
    assert code == 2 and "--order nodes orders the parents of --source parents" in err, err
    with pytest.raises(ValueError, match="--order must be one of file, nodes"):
        G.order_parents(parents, "size")


def test_order_nodes_resumes_on_a_parents_file_grown_anywhere(tmp_path, committed_1_movers, run_cli):
    lines = committed_1_movers.read_text().splitlines(keepends=True)
    first, grown = tmp_path / "first.jsonl", tmp_path / "grown.jsonl"
    first.write_text("".join(lines[2:]))
    grown.write_text("".join(lines))  # two parents more, at the head, one with the fewest nodes
    out = tmp_path / "c2.jsonl"
    args = ["puzzles", "generate", "--board", "4/5", "--n", "2", "--method", "extend", "--order", "nodes",
            "--out", out, "--source", "parents"]
    code, _, err, _ = run_cli(*args, first, "--count", "1")
    assert code == 0, err
    taken = json.loads((tmp_path / "c2.jsonl.state.json").read_text())["parents_taken"]
    key = {G._parent_key(p): p for p in load_jsonl(grown)}
    assert [key[k].id for k in taken] == [p.id for p in G.order_parents(load_jsonl(first), "nodes")[:4]]
    kept = load_jsonl(out)
    code, _, err, _ = run_cli(*args, grown, "--count", "100")
    assert code == 3 and "the 8 puzzles in" in err and "used up" in err, err
    state = json.loads((tmp_path / "c2.jsonl.state.json").read_text())
    # the four it took first, as it took them; then the other four, the new ones among them, by nodes
    rest = G.order_parents([p for p in load_jsonl(grown) if G._parent_key(p) not in taken], "nodes")
    assert state["parents_taken"] == taken + [G._parent_key(p) for p in rest] and state["units"] == 8
    assert [p.to_dict() for p in load_jsonl(out)[:len(kept)]] == [p.to_dict() for p in kept]
    # a file without a parent the run took is another file
    short = tmp_path / "short.jsonl"
    short.write_text("".join(lines[:2]))
    before = out.read_bytes()
    code, _, err, _ = run_cli(*args, short, "--count", "100")
    assert code == 2 and "6 of the 8 parents it took are not in it" in err and len(err.splitlines()) == 1, err
    assert out.read_bytes() == before


def test_a_run_in_file_order_goes_on_by_nodes(tmp_path, committed_1_movers, run_cli):
    lines = committed_1_movers.read_text().splitlines(keepends=True)
    first, grown = tmp_path / "first.jsonl", tmp_path / "grown.jsonl"
    first.write_text("".join(lines[:6]))
    grown.write_text("".join(lines))  # a parents set grown at its end
    out = tmp_path / "c2.jsonl"
    args = ["puzzles", "generate", "--board", "4/5", "--n", "2", "--method", "extend", "--out", out,
            "--source", "parents"]
    code, _, err, _ = run_cli(*args, first, "--count", "1")  # file order, as a committed set was made
    assert code == 0, err
    state = json.loads((tmp_path / "c2.jsonl.state.json").read_text())
    assert state["order"] == "file" and state["units"] == 4 and "parents_taken" not in state
    kept = load_jsonl(out)
    code, _, err, _ = run_cli(*args, grown, "--count", "100", "--order", "nodes")
    assert code == 3 and "the 8 puzzles in" in err and "used up" in err, err
    state = json.loads((tmp_path / "c2.jsonl.state.json").read_text())
    # the four it took in file order, then the rest of the grown file by nodes
    parents = load_jsonl(grown)
    rest = G.order_parents(parents[4:], "nodes")
    assert [p.id for p in rest] != [p.id for p in parents[4:]]  # the test means something: another order
    assert state["order"] == "nodes" and state["units"] == 8
    assert state["parents_taken"] == [G._parent_key(p) for p in parents[:4] + rest]
    assert [p.to_dict() for p in load_jsonl(out)[:len(kept)]] == [p.to_dict() for p in kept]
    # and back to file order: refused, the file untouched
    before = out.read_bytes()
    code, _, err, _ = run_cli(*args, grown, "--count", "100")
    assert code == 2 and "in --order nodes, not file" in err and len(err.splitlines()) == 1, err
    assert out.read_bytes() == before
    # a file whose first four are not those it took is another file
    other = tmp_path / "other.jsonl"
    other.write_text("".join(lines[1:]))
    out2 = tmp_path / "d2.jsonl"
    args2 = [a if a != out else out2 for a in args]
    assert run_cli(*args2, first, "--count", "1")[0] == 0
    code, _, err, _ = run_cli(*args2, other, "--count", "100", "--order", "nodes")
    assert code == 2 and "its first 4 puzzles are not the same" in err and len(err.splitlines()) == 1, err


def test_grow_keeps_a_set_another_run_made(tmp_path, run_cli):
    from pathlib import Path

    committed = Path(__file__).resolve().parent.parent / "results" / "puzzles"
    out, state_file = tmp_path / "c2.jsonl", tmp_path / "c2.jsonl.state.json"
    out.write_text("".join((committed / "4-5-c2.jsonl").read_text().splitlines(keepends=True)[:10]))
    state_file.write_text((committed / "4-5-c2.jsonl.state.json").read_text())
    old_state = json.loads(state_file.read_text())
    before = {f: f.read_bytes() for f in (out, state_file)}
    args = ["puzzles", "generate", "--board", "4/5", "--n", "2", "--method", "extend", "--source", "parents",
            committed / "4-5-c1.jsonl", "--out", out]
    code, _, err, _ = run_cli(*args, "--count", "12")
    assert code == 2 and "records another run (method 'sat', seed 1, source 'selfplay')" in err, err
    assert "--grow to keep a set another run made" in err
    code, _, err, _ = run_cli(*args, "--count", "12", "--grow", "--force")
    assert code == 2 and "give one of them" in err and len(err.splitlines()) == 1, err
    assert {f: f.read_bytes() for f in before} == before  # refused: nothing written
    code, _, err, _ = run_cli(*args, "--count", "12", "--grow")
    assert code == 0, err
    ps = load_jsonl(out)
    assert out.read_text().splitlines(keepends=True)[:10] == before[out].decode().splitlines(keepends=True)
    last = max(int(p.id.rsplit("-", 1)[1]) for p in ps[:10])
    assert [p.id for p in ps[10:]] == [f"m45-c2-{last + 1:04d}", f"m45-c2-{last + 2:04d}"]
    assert all(p.generator == "extend" for p in ps[10:])
    st = G.read_state(str(out))
    assert st["source"] == "parents" and st["kept"] == 12 and st["rewrites"] == old_state["rewrites"]
    (earlier,) = st["earlier"]
    assert earlier == {k: old_state[k] for k in (*G._RUN_FIELDS, *G._COUNTS) if k in old_state}
    assert G.run_totals(st) == {k: earlier[k] + st[k] for k in G._COUNTS}
    # the same command again is this run's own: it resumes, with the one earlier run
    units = st["units"]
    code, _, err, _ = run_cli(*args, "--count", "13", "--grow")
    assert code == 0, err
    st = G.read_state(str(out))
    assert len(load_jsonl(out)) == 13 and st["units"] > units and st["earlier"] == [earlier]
    # a set of another n is not grown
    code, _, err, _ = run_cli("puzzles", "generate", "--board", "4/5", "--n", "3", "--out", out, "--grow")
    assert code == 2 and "a set of n 2, not 3" in err and len(err.splitlines()) == 1, err
    # a bad earlier run is named
    state_file.write_text(json.dumps(dict(st, earlier=[dict(earlier, found=-1)])))
    code, _, err, _ = run_cli(*args, "--count", "14", "--grow")
    assert code == 2 and "earlier run 1's found must be a number" in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize("make", ["missing", "empty", "bad", "n", "board", "method", "no-file"])
def test_a_bad_parents_file_is_one_line(tmp_path, committed_1_movers, make, run_cli):
    f = tmp_path / "p.jsonl"
    board, n, method = "4/5", "2", "extend"
    if make == "empty":
        f.write_text("")
    elif make == "bad":
        f.write_text('{"id": 1}\n')
    else:
        f.write_text(committed_1_movers.read_text())
    if make == "n":
        n = "3"
    elif make == "board":
        board = "5/6"
    elif make == "method":
        method = "sat"
    elif make == "missing":
        f = tmp_path / "none.jsonl"
    args = ["puzzles", "generate", "--board", board, "--n", n, "--count", "1", "--method", method,
            "--source", "parents"] + ([] if make == "no-file" else [f])
    code, out, err, exc = run_cli(*args, "--out", tmp_path / "x.jsonl")
    said = [line for line in err.splitlines() if not line.startswith("compiling")]
    assert exc is None and code == 2 and out == "" and len(said) == 1, err
    assert said[0].startswith("meridians: error:")
    assert not (tmp_path / "x.jsonl").exists()


def test_bad_source_options_are_one_line(tmp_path, run_cli):
    for extra in (["--source", "games"], ["--source", "selfplay", "--playouts", "0"], ["--source", "random", "dir"]):
        code, out, err, exc = run_cli("puzzles", "generate", "--board", "4/5", "--n", "1", *extra,
                                      "--out", tmp_path / "x.jsonl")
        assert exc is None and code == 2 and len(err.splitlines()) == 1, (extra, err)


# -- the record's source field ----------------------------------------------------------------
BASE = {"id": "x", "position": "2/1D1/4/L2/2 L", "target": "d2", "n": 1}


@pytest.mark.parametrize("source", [
    {"kind": "selfplay", "game": 12, "ply": 57, "playouts": 300},
    {"kind": "records", "file": "game-0003.txt", "ply": 40},
    {"kind": "random", "game": 2**62, "ply": 0},
])
def test_source_round_trips(source, tmp_path):
    p = Puzzle.from_dict({**BASE, "source": source})
    assert p.source == source and json.loads(p.to_json())["source"] == source
    f = tmp_path / "s.jsonl"
    write_jsonl(f, [p])
    assert load_jsonl(f)[0] == p and json.loads(f.read_text())["source"] == source
    assert "source" not in Puzzle.from_dict(BASE).to_dict()  # unknown: not written


@pytest.mark.parametrize("source", [
    "random", [], {"kind": "human", "ply": 1}, {"kind": "random", "game": 1},
    {"kind": "random", "game": 1, "ply": 2, "extra": 3}, {"kind": "random", "game": -1, "ply": 2},
    {"kind": "random", "game": True, "ply": 2}, {"kind": "records", "file": "", "ply": 2},
    {"kind": "records", "file": 7, "ply": 2}, {"kind": "selfplay", "game": 1, "ply": 2, "playouts": 1.5},
])
def test_a_bad_source_is_refused(source):
    with pytest.raises(PuzzleFormatError, match="source must be"):
        Puzzle.from_dict({**BASE, "source": source})


# -- "any" ------------------------------------------------------------------------------------
def _any_puzzle(**kw) -> Puzzle:
    return Puzzle(id="m45-c1-0059", position=ANY_POS, target="f4", n=1, key="f5", line=("f5", ANY), **kw)


def test_any_is_accepted_only_as_the_last_defender_move():
    assert _any_puzzle().validate().line == ("f5", ANY)
    for line in [("f5", ANY, "a1"), (ANY,), ("f5", "a2", ANY)]:
        with pytest.raises(PuzzleFormatError, match="any"):
            dataclasses.replace(_any_puzzle(), line=line, n=2).validate()


def test_the_audit_refuses_an_any_that_lets_a_reply_escape(tmp_path, run_cli):
    from pathlib import Path

    committed = Path(__file__).resolve().parent.parent / "results" / "puzzles" / "4-5-c2.jsonl"
    p = load_jsonl(committed)[0]  # a sound capture in 2 with its line
    good = dataclasses.replace(p, line=p.line[:-1] + (ANY,))
    assert any_escapes(good.to_position(), good.target, good.line) == []
    # the same key and first reply, then an X move that kills nothing: a reply escapes
    pos = p.to_position().play(p.line[0]).play(p.line[1])
    wrong = next(m for m in pos.legal_moves() if any_escapes(p.to_position(), p.target, p.line[:2] + (m, ANY)))
    bad = dataclasses.replace(p, id="bad", line=p.line[:2] + (wrong, ANY), last_moves=None)
    f = tmp_path / "a.jsonl"
    write_jsonl(f, [good])
    r = run_cli("puzzles", "audit", f)
    assert r.code == 0, r.stdout
    write_jsonl(f, [good, bad])
    r = run_cli("puzzles", "audit", f)
    assert r.code == 1
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"{p.id}: ok") and lines[1].startswith("bad: "), r.stdout
    # the line's own check says the X move does not capture; the "any" check, that a reply escapes
    who = {"L": "Light", "D": "Dark"}[p.attacker]
    assert f"move 3, {who}'s 2nd, {wrong}, does not capture" in lines[1]
    assert "the last reply is written any" in lines[1], r.stdout


def test_any_is_shown_and_keeps_the_themes(tmp_path, run_cli):
    p = _any_puzzle()
    concrete = dataclasses.replace(p, line=("f5", "a2"))
    assert themes(p) == themes(concrete)
    assert p.solution_text() == "1. f5 any"
    f = tmp_path / "s.jsonl"
    write_jsonl(f, [p])
    r = run_cli("puzzles", "show", "m45-c1-0059", "-f", f, "--solution")
    assert r.code == 0 and "line: 1. f5 any" in r.stdout
    assert _line_text(p, _moves(p)) == "1. f5 any"
    html = book_html([dataclasses.replace(p, difficulty=1)])
    assert "1. f5 any" in html


def test_the_generator_writes_any_for_the_last_reply():
    found = G.run_unit("sat", "4/5", 2, 12345, "test")
    assert found.puzzles
    for p in found.puzzles:
        assert p.line[-1] == ANY and len(p.line) == 2 * p.n
        _sound(p)


# -- scripts/compare_seeds.py ------------------------------------------------------------------
def test_compare_seeds_counts_what_the_games_show(tmp_path):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "scripts" / "compare_seeds.py"
    spec = importlib.util.spec_from_file_location("compare_seeds", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    board = Board.parse("3/4")
    moves = mod.random_moves(board, 5)
    positions, captures = mod.game_figures(board, moves)
    # captures re-derived from the stone counts: a placement adds one stone, so any
    # fewer after it is a removal
    pos, expected = Position.start(board), []
    for m in moves:
        before = len(pos.stones("L")) + len(pos.stones("D"))
        pos = pos.play(m)
        gone = before + 1 - len(pos.stones("L")) - len(pos.stones("D"))
        if gone:
            expected.append((board.size - before, gone))
    assert captures == expected and len(positions) == len(moves) - 4
    out = tmp_path / "s.json"
    mod.main(["--boards", "3/4", "--random-games", "3", "--selfplay-games", "1", "--playouts", "10",
              "--versus-random", "0", "--out", str(out)])
    d = json.loads(out.read_text())
    assert d["command"].startswith("python scripts/compare_seeds.py --boards 3/4") and d["rules"]
    e = d["boards"]["3/4"]
    assert e["random"]["games"] == 3 and e["selfplay"]["games"] == 1 and e["selfplay"]["playouts"] == 10
    assert sum(b["positions"] for b in e["random"]["bands"].values()) == sum(
        max(0, len(mod.random_moves(board, 1_000_003 + i)) - 4) for i in range(3))
