"""Only moves (issue 36): a puzzle's line gives the attacker one winning move at every turn
but the last, where every capturing move counts (Lichess's rule).

The fast check of a recorded line (:func:`puzzles.verdict.check_line`, over the capture
search) is compared with its slow twin on the networkx rules
(:func:`puzzles.reference.reference_line`) on committed 4/5 puzzles and on puzzles of the
first sets that had duals; the audit refuses a dual, naming the turn and the second move,
and wrong last moves; the generator keeps only dual-free puzzles.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from puzzles import generate as G
from puzzles.record import find_puzzle, load_jsonl, write_jsonl
from puzzles.reference import reference_line
from puzzles.verdict import check_line, verify

ROOT = Path(__file__).resolve().parent.parent
OLD = ROOT / "tests" / "data" / "old-puzzles.jsonl"
SETS = ROOT / "results" / "puzzles"


def _empty(p) -> int:
    pos = p.to_position()
    return pos.board.size - len(pos.stones("L")) - len(pos.stones("D"))


def _committed_sample() -> list:
    """The committed 4/5 c1 and c2 puzzles with the fewest empty points (two each) and
    the c3 one: the twin needs seconds on them."""
    out = []
    for n, k in ((1, 2), (2, 2), (3, 1)):
        ps = load_jsonl(SETS / f"4-5-c{n}.jsonl")
        out += sorted(ps, key=lambda p: (_empty(p), p.id))[:k]
    return out


#: of the first sets: a c2 whose last turn has 22 capturing moves (it had "duals" before
#: the last turn was free) and one with a single one
OLD_IDS = ["m45-c2-0005", "m45-c2-0067"]
#: two records of the 4/5 c3 set before it was rewritten to its dual-free puzzles (at
#: 0d5af42), with a dual at the middle turn (13 working moves in m45-c3-0142)
DUALS = ROOT / "tests" / "data" / "dual-puzzles.jsonl"


@pytest.mark.parametrize("p", _committed_sample() + [find_puzzle(i, [OLD]) for i in OLD_IDS] + load_jsonl(DUALS),
                         ids=lambda p: p.id)
def test_the_line_check_agrees_with_the_reference_twin(p):
    pos = p.to_position()
    c = check_line(pos, p.target, p.n, p.line)
    ref = dict(reference_line(pos, p.target, p.n, p.line))
    assert c.complete and not c.problems
    assert sorted(ref) == list(range(0, 2 * p.n - 1, 2))  # every attacker turn of the line
    duals = dict(c.duals)
    for ply, working in ref.items():
        assert p.line[ply] in working, (ply, working)
        if ply == 2 * p.n - 2:  # the last turn: every move that captures is listed
            assert set(c.last_moves) == set(working)
        elif len(working) > 1:  # a dual: the line's move and another that works
            assert duals[ply][0] == p.line[ply] and set(duals[ply]) <= set(working)
        else:
            assert ply not in duals
    # verify's own line is the record's, with the same verdict on it
    v = verify(pos, p.target, p.n)
    assert list(v.line)[: len(p.line) - 1] == list(p.line)[:-1] or list(v.line) == list(p.line)
    assert v.dual_free == (not c.duals) and v.last_moves == c.last_moves
    if p.last_moves is not None:
        assert p.last_moves == c.last_moves and p.dual_free


def test_a_dual_only_at_the_last_turn_is_no_dual():
    p = find_puzzle("m45-c2-0067", [OLD])
    assert not p.dual_free  # so it was recorded before issue 36
    v = verify(p.to_position(), p.target, p.n)
    assert v.sound and v.dual_free and not v.duals and len(v.last_moves) == 22


def _audit(run_cli, tmp_path, puzzles) -> tuple[int, dict]:
    f = tmp_path / "a.jsonl"
    write_jsonl(f, puzzles)
    r = run_cli("puzzles", "audit", "--json", f)
    assert r.exception is None, r.exception
    return r.code, {d["id"]: d for d in map(json.loads, r.stdout.splitlines())}


def test_the_audit_refuses_a_dual_and_wrong_last_moves(tmp_path, run_cli):
    dual = find_puzzle("m45-c3-0001", [OLD])  # b1 a2 a3 ...: a4 and c3 work at move 3 too
    free = find_puzzle("m45-c2-0005", [OLD])
    free = dataclasses.replace(free, last_moves=("b4",))
    code, rows = _audit(run_cli, tmp_path, [dual, free])
    assert code == 1
    assert rows[free.id]["problems"] == [] and rows[free.id]["dual_free"] and rows[free.id]["last_moves"] == ["b4"]
    d = rows[dual.id]
    assert not d["dual_free"] and d["duals"] == [[2, ["a3", "a4"]]]
    assert any(p.startswith("a dual at move 3, ") and "a4 also captures within 2 (the line plays a3)" in p
               for p in d["problems"]), d["problems"]
    # last moves that are not every capturing move of the last turn
    wrong = dataclasses.replace(find_puzzle("m45-c2-0067", [OLD]), last_moves=("b3", "b5"))
    code, rows = _audit(run_cli, tmp_path, [wrong])
    assert code == 1 and any("last_moves recorded b3 b5" in p for p in rows[wrong.id]["problems"])
    # a defender reply that is not a longest defence: after e2 d3, Dark captures in 1
    p = find_puzzle("m45-c3-0013", [OLD])
    lc = check_line(p.to_position(), p.target, 3, ["e2", "d3"])
    assert lc.problems == ["move 2, Light's 1st, d3, is not a longest defence: the capture then takes fewer "
                           "than the 2 moves left"]


def test_the_driver_keeps_only_dual_free_puzzles_and_numbers_after_the_highest(tmp_path, monkeypatch):
    pool = [dataclasses.replace(p, id="", dual_free=i % 2 == 0)
            for i, p in enumerate(q for q in load_jsonl(OLD) if q.id.startswith("m45-c2"))]
    it = iter(pool)

    def unit(method, board, n, seed, version, where):
        p = next(it)
        return G.Found(puzzles=[p], regions=[p.target], candidates=1, seconds=0.01)

    monkeypatch.setattr(G, "run_unit", unit)
    out = str(tmp_path / "s.jsonl")
    st = G.generate("4/5", 2, 3, out, seed=1, batch=1)
    kept = load_jsonl(out)
    assert [p.position for p in kept] == [p.position for p in pool[0:6:2]]
    assert [p.id for p in kept] == ["m45-c2-0001", "m45-c2-0002", "m45-c2-0003"]
    assert st["found"] == 5 and st["found_dual_free"] == 3  # the fourth had "duals": not kept
    # a set rewritten to fewer puzzles: new ones are numbered after the highest id
    write_jsonl(out, [kept[0], kept[2]])
    G.generate("4/5", 2, 3, out, seed=1, batch=1)
    assert [p.id for p in load_jsonl(out)] == ["m45-c2-0001", "m45-c2-0003", "m45-c2-0004"]
