"""Puzzle themes (:mod:`puzzles.themes`): against a slow twin on the reference rules
(``tests/refthemes.py``), on a position read by hand, and in the record, the generator
and the audit."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from puzzles import generate as G
from puzzles.record import THEMES, Puzzle, PuzzleFormatError, load_jsonl, write_jsonl
from puzzles.themes import ThemeError, pass_position, themes
from refthemes import ref_themes

COMMITTED = Path(__file__).resolve().parent.parent / "results" / "puzzles"
#: records of the first committed sets (random seed games, no themes recorded), kept
#: as fixtures: a record without themes
OLD = Path(__file__).resolve().parent / "data" / "old-puzzles.jsonl"

#: committed 4/5 puzzles that together show every theme, each quick for the twin (found
#: by the twin, not by the code under test: any disagreement fails)
SHOWCASE = ["m45-c2-0010", "m45-c2-0200", "m45-c3-0138", "m45-c2-0180"]

#: a 3/4 capture in 2 from the baseline generator (seed 3/4 units): Dark's d5-e5 group
#: lives by one path, d5-c4-b3 (c4 empty)
HAND = Puzzle.from_epd('3/4/3LD/LLLLDL/LLL1L/LLDD/DD1 L cm 2; tg d5; bm f4; pv f4 a3 e1 c4; id "hand";')


def _sets() -> dict[str, Puzzle]:
    out = {}
    for n in (1, 2, 3, 4):
        for p in load_jsonl(COMMITTED / f"4-5-c{n}.jsonl"):
            out[p.id] = p
    return out


@pytest.fixture(scope="module")
def sets() -> dict[str, Puzzle]:
    return _sets()


@pytest.fixture(scope="module")
def old() -> dict[str, Puzzle]:
    return {p.id: p for p in load_jsonl(OLD)}


def test_every_theme_agrees_with_the_slow_twin(sets):
    seen = set()
    for i in SHOWCASE:
        got = themes(sets[i])
        assert got == ref_themes(sets[i]), i
        seen.update(got)
    assert seen == set(THEMES), "the showcase shows every theme"


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_a_sample_of_each_set_agrees_with_the_slow_twin(sets, n):
    # every 8th puzzle of the set, in file order: no choice by outcome
    ps = [p for i, p in sorted(sets.items()) if i.startswith(f"m45-c{n}-")][::8]
    assert len(ps) >= 17
    for p in ps:
        assert themes(p) == ref_themes(p), p.id


@pytest.mark.parametrize("board", ["5-6", "6-7"])
def test_a_sample_of_the_larger_boards_agrees_with_the_slow_twin(board):
    # every 40th puzzle of the board's sets, in file order
    ps = [p for f in sorted(COMMITTED.glob(f"{board}-c*.jsonl")) for p in load_jsonl(f)][::40]
    assert len(ps) >= 16
    for p in ps:
        assert themes(p) == ref_themes(p), p.id


def test_a_position_read_by_hand():
    pos = HAND.to_position()
    # the key f4 is off the target's one path (d5-c4-b3): not several-paths, and (n = 2)
    # quiet or tempo; it kills nothing and threatens no capture in 1: quiet
    assert "c4" not in pos.stones("L") | pos.stones("D") and HAND.key != "c4"
    after = pos.play("f4")
    assert not after.dead_groups("D")
    got = themes(HAND)
    assert "several-paths" not in got and "quiet-key" in got and "tempo" not in got
    # Dark has two moves after it: a3 keeps d5, c4 fills the one path of d5-e5 itself
    # (the group is gone after it): one rescue, a3, away from the group: forced-reply
    assert sorted(after.legal_moves()) == ["a3", "c4"]
    assert "d5" in after.play("a3").stones("D") and "d5" not in after.play("c4").stones("D")
    assert "forced-reply" in got and "chase" not in got
    # f4 is the last point of its row: edge-key; d5-e5 has two stones and no corner
    assert "edge-key" in got and "big-group" not in got and "corner" not in got
    assert got == ("quiet-key", "forced-reply", "edge-key") == ref_themes(HAND)


def test_a_ladder_read_by_hand(sets):
    # 4/5 m45-c3-0001: Light takes the Dark corner stone a1 in 3 with b2, b3, b4, all
    # on row b, Dark's replies a2 and a3 each joining the target group
    p = sets["m45-c3-0001"]
    assert (p.target, p.line) == ("a1", ("b2", "a2", "b3", "a3", "b4", "any"))
    got = themes(p)
    assert {"ladder", "chase", "corner"} <= set(got) and got == ref_themes(p)
    # the same moves with the last one off the row are no ladder
    other = dataclasses.replace(p, line=("b2", "a2", "b3", "a3", "c6", "any"))
    assert "ladder" not in themes(other) and "ladder" not in ref_themes(other)


def test_fork_and_big_group_are_measured_against_the_puzzles_length(sets):
    # 4/5 m45-c2-0002: the key g1 leaves Light's stone f1 dead besides the target group,
    # but Light's reply e1 gives f1 a path again: Light saves both, so no fork
    p = sets["m45-c2-0002"]
    after = p.to_position().play("g1")
    assert p.line[:2] == ("g1", "e1") and frozenset({"f1"}) in after.dead_groups(p.defender)
    assert "f1" in after.play("e1").stones(p.defender)
    assert "fork" not in themes(p) and "fork" not in ref_themes(p)
    # a 4-stone target group is big in a capture in 1 (n + 3 = 4), not in one in 2
    one, two = sets["m45-c1-0057"], sets["m45-c2-0004"]
    assert len(one.target_group()) == len(two.target_group()) == 4
    assert "big-group" in themes(one) and "big-group" in ref_themes(one)
    assert "big-group" not in themes(two) and "big-group" not in ref_themes(two)


def test_passing_removes_the_defenders_dead_groups_and_hands_over_the_move(sets):
    pos = HAND.to_position().play("f4")  # Dark to move, nothing dead
    passed = pass_position(pos)
    assert passed.to_move == "L" and passed.stones("D") == pos.stones("D")
    assert passed.stones("L") == pos.stones("L")
    # the key of a capture in 1 that leaves the target group without a path
    p = next(q for q in sets.values() if q.n == 1 and any(q.target in g for g in
             q.to_position().play(q.key).dead_groups(q.defender)))
    cut = p.to_position().play(p.key)
    dead = set().union(*cut.dead_groups(p.defender))
    passed = pass_position(cut)
    assert passed.to_move == p.attacker and passed.stones(p.defender) == cut.stones(p.defender) - dead
    assert p.target not in passed.stones(p.defender)


def test_a_puzzle_without_a_key_or_with_an_illegal_line_is_a_theme_error():
    bare = dataclasses.replace(HAND, key=None, line=())
    with pytest.raises(ThemeError, match="no key"):
        themes(bare)
    bad = dataclasses.replace(HAND, line=("f4", "f4"))
    with pytest.raises(ThemeError, match="illegal") as e:
        themes(bad)
    assert isinstance(e.value, ValueError)


def test_the_record_reads_writes_and_checks_themes(tmp_path):
    p = dataclasses.replace(HAND, themes=("quiet-key", "fork"))
    assert Puzzle.from_dict(json.loads(p.to_json())) == p
    assert json.loads(p.to_json())["themes"] == ["quiet-key", "fork"]
    assert "themes" not in json.loads(HAND.to_json())  # not computed: not written
    assert Puzzle.from_dict(json.loads(HAND.to_json())).themes is None
    assert Puzzle.from_dict(dict(json.loads(HAND.to_json()), themes=[])).themes == ()
    for bad in (["pin"], ["fork", "quiet-key"], ["chase", "chase"], "chase", [1], ["block", "pin"]):
        with pytest.raises(PuzzleFormatError, match="themes must be"):
            Puzzle.from_dict(dict(json.loads(HAND.to_json()), themes=bad))
    # "block" and "zugzwang": names of the first theme list, whose records read as not computed
    for old in (["block"], ["zugzwang"], ["block", "fork"]):
        assert Puzzle.from_dict(dict(json.loads(HAND.to_json()), themes=old)).themes is None
    # a record without themes and a committed one with themes are written back byte for byte
    for line in (OLD.read_text().splitlines()[0], (COMMITTED / "4-5-c1.jsonl").read_text().splitlines()[0]):
        path = tmp_path / "one.jsonl"
        path.write_text(line + "\n")
        write_jsonl(path, load_jsonl(path))
        assert path.read_text() == line + "\n"


def test_the_generator_records_the_themes_it_computes():
    r = G.run_unit("baseline", "4/5", 2, 777, "test")
    assert r.puzzles
    for p in r.puzzles:
        assert p.themes is not None and p.themes == themes(p) == ref_themes(p)


def test_the_audit_recomputes_recorded_themes(tmp_path, run_cli, old):
    good = dataclasses.replace(old["m45-c2-0068"], themes=themes(old["m45-c2-0068"]))
    assert "ladder" not in themes(old["m45-c2-0046"])  # a capture in 2: never a ladder
    wrong = dataclasses.replace(old["m45-c2-0046"], themes=("ladder",))
    plain = old["m45-c2-0067"]  # no themes recorded: none checked
    f = tmp_path / "t.jsonl"
    write_jsonl(f, [good, plain])
    r = run_cli("puzzles", "audit", str(f), code=0)
    assert "2 of 2 puzzles sound" in r.stdout
    write_jsonl(f, [good, wrong, plain])
    r = run_cli("puzzles", "audit", str(f), code=1)
    assert f"{wrong.id}: themes recorded ladder, computed {', '.join(themes(wrong))}" in r.stdout
    r = run_cli("puzzles", "audit", "--json", str(f), code=1)
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert rows[0]["themes"] == list(good.themes) and rows[2]["themes"] is None
    r = run_cli("puzzles", "show", good.to_json(), "--solution", code=0)
    assert f"themes: {', '.join(good.themes)}" in r.stdout
    assert "themes:" not in run_cli("puzzles", "show", good.to_json(), code=0).stdout
    assert "themes:" not in run_cli("puzzles", "show", plain.to_json(), "--solution", code=0).stdout


def test_a_double_threat_read_by_hand():
    # 3/4, Light to move, capture the Dark stone g3 in 2.  Dark: g1 and g3 (two lone
    # stones on the top row, one path between them through g2) and b1-c2.  g3 is a
    # corner point: its neighbours are g2, f3 and f4.  After the key f3 (with f4 Light
    # already), g3 still has its path to g1, so were Dark to pass (b1-c2, left without
    # a path by the key, is removed) Dark would hold g1 and g3 alone, and Light would
    # capture g3 at once in two ways:
    # - g2: g3's three neighbours are Light, so no Dark stone can ever see it again;
    #   it is dead and goes after Dark's next placement, whatever it is;
    # - f1: g1's neighbours g2, f1, f2 and g3's are all taken but g2, so Dark's only
    #   placement is g2, which joins every Dark stone into one group: dead, removed.
    p = Puzzle.from_epd('D1D/1L1L/4L/6/1D3/D3/L2 L cm 2; tg g3; bm f3; pv f3 a2 g2 a3; id "dt";')
    after = p.to_position().play("f3")
    assert not any("g3" in g for g in after.dead_groups("D"))
    passed = pass_position(after)
    assert passed.stones("D") == {"g1", "g3"}
    assert passed.play("f1").legal_moves() == ["g2"]
    assert not passed.play("f1").play("g2").stones("D")
    assert all("g3" not in passed.play("g2").play(m).stones("D") for m in passed.play("g2").legal_moves())
    got = themes(p)
    assert "double-threat" in got and "ladder" not in got and got == ref_themes(p)
    # b1-c2 is left without a path by the key, but Dark's reply a2 gives it one again:
    # Dark saves both groups, so no fork; g3 is a corner point
    assert any("b1" in g for g in after.dead_groups("D")) and {"b1", "c2"} <= after.play("a2").stones("D")
    assert "fork" not in got and "corner" in got


def test_the_script_recomputes_every_theme_and_keeps_the_rest(tmp_path, monkeypatch, capsys):
    src = COMMITTED / "4-5-c2.jsonl"
    lines = src.read_text().splitlines()[:12]
    rows = [json.loads(x) for x in lines]
    rows[0]["themes"] = ["block"]  # a name of the first theme list: read without it
    rows[1]["themes"] = ["ladder"]  # wrong for a capture in 2
    del rows[2]["themes"]  # none recorded
    f = tmp_path / "4-5-c2.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "4-5-c2.jsonl.state.json").write_text((COMMITTED / "4-5-c2.jsonl.state.json").read_text())
    mod = _themes_script(tmp_path, monkeypatch)
    assert mod.main() == 0
    out = [json.loads(x) for x in f.read_text().splitlines()]
    assert len(out) == 12
    for before, after in zip(rows, out):
        p = Puzzle.from_dict({k: v for k, v in after.items() if k != "themes"})
        assert after["themes"] == list(themes(p)) == list(ref_themes(p))
        assert {k: v for k, v in after.items() if k != "themes"} == {k: v for k, v in before.items() if k != "themes"}
    table = json.loads((tmp_path / "themes.json").read_text())
    assert table["command"] == "python scripts/make_puzzles.py --themes" and table["revision"]
    row = table["sets"]["4-5-c2.jsonl"]
    assert row["count"] == 12 and row["themes"] == {t: sum(t in r["themes"] for r in out) for t in THEMES}
    assert table["largest_share"] == max(row["shares"].values())
    assert sorted(table["examples"]) == sorted({t for r in out for t in r["themes"]})
    assert sorted(x.stem for x in (tmp_path / "pictures").glob("*.svg")) == sorted(table["examples"])
    state = json.loads((tmp_path / "4-5-c2.jsonl.state.json").read_text())
    assert state["rewrites"][-1]["what"] == "themes" and state["rewrites"][-1]["puzzles"] == 12
    assert "| 4-5-c2 | 12 |" in capsys.readouterr().out
    # again: no theme changes, so the set and its state (no new rewrite entry) stay as they are
    before = {x: (tmp_path / x).read_bytes() for x in ("4-5-c2.jsonl", "4-5-c2.jsonl.state.json")}
    assert mod.main() == 0
    assert {x: (tmp_path / x).read_bytes() for x in before} == before
    assert "none changed: the set is as it was" in capsys.readouterr().err


def test_the_script_refuses_a_record_that_is_not_an_object_or_a_set_it_cannot_read(tmp_path, monkeypatch, capsys):
    f = tmp_path / "4-5-c2.jsonl"
    (tmp_path / "4-5-c2.jsonl.state.json").write_text((COMMITTED / "4-5-c2.jsonl.state.json").read_text())
    mod = _themes_script(tmp_path, monkeypatch)
    first = (COMMITTED / "4-5-c2.jsonl").read_text().splitlines()[0]
    # JSON that is not an object was a TypeError or AttributeError traceback; bytes that are
    # not UTF-8 an UnboundLocalError (the line number of the message was never set)
    for text, where in ((first + "\n[1, 2]\n", "line 2"), (first + '\n"x"\n', "line 2"),
                        (b"\xff\xfe\n", "4-5-c2.jsonl")):
        if isinstance(text, bytes):
            f.write_bytes(text)
        else:
            f.write_text(text)
        before = f.read_bytes()
        assert mod.main() == 1
        err = capsys.readouterr().err.strip()
        assert where in err and len(err.splitlines()) == 1 and "Traceback" not in err
        assert f.read_bytes() == before and not (tmp_path / "themes.json").exists()


def _themes_script(tmp_path, monkeypatch):
    """scripts/make_puzzles.py loaded to run ``--themes`` on the one set 4/5 c2 in ``tmp_path``."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("make_puzzles", COMMITTED.parent.parent / "scripts" / "make_puzzles.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "SETS", [("4/5", 2, 200, "selfplay")])
    monkeypatch.setattr(mod, "SETS_DIR", tmp_path)
    monkeypatch.setattr(mod, "THEMES_TABLE", tmp_path / "themes.json")
    monkeypatch.setattr(mod, "PICTURES", tmp_path / "pictures")
    monkeypatch.setattr(sys, "argv", ["make_puzzles.py", "--themes"])
    return mod
