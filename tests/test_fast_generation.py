"""The fast generator (issue 36 item 4) against its slow twin.

- :func:`puzzles.verdict.screen` gives :func:`puzzles.generate.proven`'s verdict (the
  slow, full verification from scratch) on every candidate of a few SAT units, a sound
  puzzle with a dual reading ``'duals'``;
- it passes committed puzzles (with their key) and refuses the recorded puzzles with a
  dual, and the fast :func:`puzzles.generate.check` keeps a committed puzzle with the
  same key, line and last moves;
- a fast unit keeps every dual-free puzzle of the slow unit, record for record, and
  only puzzles whose line is dual-free by :func:`puzzles.verdict.check_line`;
- the fast path's tighter first-search budget (:data:`puzzles.generate.FAST_SAT_QUICK`)
  drops a committed puzzle that needs more nodes and keeps one that needs fewer;
- the extend generator's (n-1)-movers on the fast path are dual-free by the slow path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from puzzles import generate as G
from puzzles import sat
from puzzles.record import load_jsonl
from puzzles.verdict import check_line, screen
from solver import Board
from solver.search import capture

ROOT = Path(__file__).resolve().parent.parent
SETS = ROOT / "results" / "puzzles"
DUALS = ROOT / "tests" / "data" / "dual-puzzles.jsonl"


def _candidates(board: str, n: int, seed: int, per_group: int = 3) -> list:
    """The SAT candidates of a unit's random seed position, (position, target) each."""
    pos = G.seed_position(Board.parse(board), seed)
    out = []
    for target in G._defender_targets(pos) if pos is not None else ():
        with sat.Reshaper(pos, target, n) as shaper:
            for _ in range(per_group):
                cand = shaper.next()
                if cand is None:
                    break
                out.append((cand, target))
                shaper.learn("escapes")
    return out


def _slow(pos, target, n) -> str:
    """The slow path's verdict: :func:`proven`'s, a sound puzzle with a dual read 'duals'."""
    if n > 1 and capture.capture_within(pos, target, n - 1):
        return "shorter"
    p, why = G.proven(pos, target, n, "test", "test")
    return "duals" if p is not None and not p.dual_free else "pass" if p is not None else why


@pytest.mark.parametrize("n,seeds,kinds", [(2, range(1, 4), {"escapes", "pass"}),
                                           (3, range(1, 6), {"escapes", "cooked", "duals", "pass"})])
def test_the_screen_gives_the_full_verifications_verdict(n, seeds, kinds):
    seen = {}
    for seed in seeds:
        for pos, target in _candidates("4/5", n, seed):
            if n > 1 and capture.capture_within(pos, target, n - 1):
                continue  # the screen is asked after this search only
            capture.forget()
            capture.capture_within(pos, target, n)  # the candidate's first search, as check() runs it
            why, key = screen(pos, target, n)
            slow = _slow(pos, target, n)
            assert why == slow, (str(pos), target)
            if why == "pass":
                assert key == G.proven(pos, target, n, "test", "test")[0].key
            seen[why] = seen.get(why, 0) + 1
    # the sample holds these verdicts (n = 2: 11 escapes, 4 passes; n = 3: 15 escapes,
    # 2 duals, 1 cooked, 1 pass)
    assert kinds <= set(seen), seen


def test_the_screen_passes_committed_puzzles_and_refuses_recorded_duals():
    sample = [load_jsonl(SETS / f"4-5-c{n}.jsonl")[0] for n in (1, 2, 3, 4)]
    for p in sample:
        assert screen(p.to_position(), p.target, p.n) == ("pass", p.key), p.id
    duals = load_jsonl(DUALS)
    assert duals
    for p in duals:
        assert screen(p.to_position(), p.target, p.n) == ("duals", p.key), p.id


@pytest.mark.parametrize("name", ["4-5-c3", "4-5-c4", "6-7-c4"])
def test_the_fast_check_keeps_committed_puzzles_as_recorded(name):
    p = load_jsonl(SETS / f"{name}.jsonl")[1]
    quick = G.SAT_QUICK[p.n] if p.generator == "sat" else None
    q, why = G.check(p.to_position(), p.target, p.n, p.generator, p.version, quick=quick, fast=True)
    assert why == "sound" and q.dual_free
    assert (q.key, q.line, q.last_moves) == (p.key, p.line, p.last_moves)


@pytest.mark.parametrize("n,seed", [(3, 1), (3, 2), (3, 4), (4, 2)])
def test_a_fast_unit_keeps_the_slow_units_dual_free_puzzles(n, seed):
    slow = G.run_unit("sat", "4/5", n, seed, "test", fast=False)
    fast = G.run_unit("sat", "4/5", n, seed, "test", fast=True)
    # the slow unit's records, dual-free ones; the fast unit's, every one
    kept = [p.to_dict() for p in slow.puzzles if p.dual_free]
    got = [p.to_dict() for p in fast.puzzles]
    assert all(d in got for d in kept)
    for p in fast.puzzles:
        c = check_line(p.to_position(), p.target, p.n, p.line)
        assert p.dual_free and c.complete and not c.duals and not c.problems
        assert c.last_moves == p.last_moves
    # a sound puzzle with a dual is counted by either path, refused only by the fast one
    assert fast.verdicts.get("duals", 0) + len(fast.puzzles) >= len(slow.puzzles)


def test_the_fast_first_search_budget_only_drops_what_it_cannot_reach():
    """FAST_SAT_QUICK decides only which candidates are dropped unproven: a committed
    4-mover whose first search needs more is dropped ('escapes'), the slow path's budget
    keeps it as recorded, and one that needs less is kept by both."""
    from solver.search.limit import Limit

    fast, slow = G.FAST_SAT_QUICK[4], G.SAT_QUICK[4]
    assert fast < slow
    need = {}
    for p in load_jsonl(SETS / "6-7-c4.jsonl")[:40]:
        capture.forget()
        s = capture.CaptureSearch(p.to_position(), p.target, limit=Limit(nodes=slow))
        if s.captures(p.n):
            need[p.id] = (s.nodes, p)
    over = next(p for x, p in need.values() if fast < x)
    under = next(p for x, p in need.values() if x <= fast // 4)
    assert G.check(over.to_position(), over.target, 4, "sat", "test", quick=fast, fast=True) == (None, "escapes")
    for p in (over, under):
        q, why = G.check(p.to_position(), p.target, 4, "sat", "test", quick=slow if p is over else fast, fast=True)
        assert why == "sound" and (q.key, q.line, q.last_moves) == (p.key, p.line, p.last_moves)


def test_the_extend_generators_parents_are_dual_free_on_the_fast_path():
    # sat_unit as the extend generator calls it: with free_parents, each (n-1)-mover is
    # sound and dual-free by the slow path's full verification; without it, the same units
    # give some with a dual (else the option would change nothing)
    free, any_ = [], []
    for seed in range(1, 41):
        free += G.sat_unit(Board.parse("4/5"), 3, seed, "test", fast=True, parent=True, free_parents=True).puzzles
        any_ += G.sat_unit(Board.parse("4/5"), 3, seed, "test", fast=True, parent=True).puzzles
    assert len(free) >= 10
    for p in free:
        assert _slow(p.to_position(), p.target, 3) == "pass", p.position
    assert any(_slow(p.to_position(), p.target, 3) == "duals" for p in any_)
