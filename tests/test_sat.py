"""The counterexample-guided loop of :mod:`puzzles.sat` (issue 21 item 5).

- a candidate the loop has learned from never comes back, and no later candidate
  breaks a hard clause learned before it (over several seeds, targets and n, with the
  verifier's verdicts and with made-up ones);
- slow twin: on small 4/5 cases, every subset of the window (at most MAX_ADDED
  stones) is built and judged by the exact verifier with no budget; every sound one
  that the encoding admits is proposed by the loop run to exhaustion, so no learned
  clause (hard, soft or symmetric) ever blocked a sound puzzle;
- the symmetric forms: a position mapped onto itself by a board symmetry gets the
  image of each learned clause, and the image of a candidate is the same puzzle.
"""

from __future__ import annotations

import itertools

import pytest

from puzzles import generate as G
from puzzles import sat
from puzzles.verdict import verify
from test_generate import _items, _position  # the seed positions and target items of the generator tests
from solver import Board, Position
from solver.search import capture




def _exact(cand: Position, target: str, n: int) -> str:
    """The exact verdict, no budget: 'sound', 'escapes', 'shorter' or 'cooked'."""
    v = verify(cand, target, n, line=False)
    assert v.complete
    if not v.keys:
        return "escapes"
    if v.shorter:
        return "shorter"
    return "sound" if v.sound else "cooked"


def _with(pos: Position, points) -> Position | None:
    """``pos`` with attacker stones added on ``points`` (indices); None if invalid or over."""
    b = pos.board
    light, dark = set(pos.stones("L")), set(pos.stones("D"))
    (light if pos.to_move == "L" else dark).update(b.name_of(p) for p in points)
    try:
        cand = Position(b, light, dark, pos.to_move)
    except ValueError:
        return None
    return None if cand.outcome is not None else cand


def _loop(shaper: sat.Reshaper, judge, limit: int = 400) -> list[frozenset]:
    """Run the loop to exhaustion (a sound candidate is learned from too, to go on),
    checking at each candidate that it is new and keeps every hard clause so far."""
    seen: list[frozenset] = []
    while len(seen) < limit:
        clauses = list(shaper.learned)
        cand = shaper.next()
        if cand is None:
            return seen
        added = frozenset(shaper.added)
        assert added not in seen, "a blocked candidate came back"
        for cl in clauses:
            assert sat.Reshaper.allows(cl, added), "a candidate breaks a learned clause"
        seen.append(added)
        shaper.learn(judge(cand, len(seen)))
    pytest.fail("the loop did not end")


@pytest.mark.parametrize("board,n,seed", [("4/5", 1, 4), ("4/5", 2, 9), ("4/5", 3, 1), ("6/7", 3, 7)])
def test_a_learned_candidate_never_comes_back(board, n, seed):
    pos = _position(board, seed)
    proposed = 0
    for target in G._defender_targets(pos)[:6]:
        with sat.Reshaper(pos, target, n) as shaper:
            if board == "4/5":
                seen = _loop(shaper, lambda c, i: G.check(c, target, n, "sat", "test", quick=20_000)[1])
            else:  # the verifier is slower there: made-up verdicts, every kind
                seen = _loop(shaper, lambda c, i: ("escapes", "shorter", "cooked", "budget")[i % 4], limit=60)
            proposed += len(seen)
    assert proposed >= 5


# (seed, n): 4/5 cases where the old hard generalisations blocked sound candidates
@pytest.mark.parametrize("seed,n", [(1, 1), (1, 2), (4, 2), (6, 2), (9, 2), (11, 1)])
def test_no_learned_clause_blocks_a_sound_candidate(seed, n):
    pos = _position("4/5", seed)
    sound_total = 0
    for target in G._defender_targets(pos):
        with sat.Reshaper(pos, target, n) as shaper:
            if shaper.solver is None:
                continue
            window = list(shaper.window)
            proposed = set(_loop(shaper, lambda c, i: _exact(c, target, n)))
        for k in range(sat.MAX_ADDED + 1):
            for points in itertools.combinations(window, k):
                cand = _with(pos, points)
                if cand is None:
                    continue
                items = _items(cand, target)
                if not (items <= n and (n == 1 or items >= n)):
                    continue  # outside the encoding: never a candidate
                if _exact(cand, target, n) == "sound":
                    sound_total += 1
                    assert frozenset(points) in proposed, (target, sorted(points))
    assert sound_total > 0


def test_symmetric_forms_are_learned_and_equivalent():
    # a position symmetric under the half turn: the clause learned from a candidate
    # comes with its image, and the image of a candidate gets the same verdict
    b = Board.parse("4/5")
    found = None
    for seed in range(1, 400):
        pos = G.seed_position(b, seed)
        if pos is None:
            continue
        for sym in b.symmetries[1:]:
            # symmetrise: keep the stones whose image holds a stone of the same colour
            light = {p for p in pos.stones("L") if b.name_of(sym[b.index(p)]) in pos.stones("L")}
            dark = {p for p in pos.stones("D") if b.name_of(sym[b.index(p)]) in pos.stones("D")}
            try:
                spos = Position(b, light, dark, pos.to_move)
            except ValueError:
                continue
            if spos.outcome is not None:
                continue
            for target in G._defender_targets(spos):
                with sat.Reshaper(spos, target, 2) as shaper:
                    if shaper.symmetries and shaper.next() is not None and shaper.added:
                        found = (spos, target, shaper)
                        break
            if found:
                break
        if found:
            break
    assert found, "no symmetric seed position"
    spos, target, _ = found
    with sat.Reshaper(spos, target, 2) as shaper:
        cand = shaper.next()
        added = frozenset(shaper.added)
        shaper.learn("cooked")
        images = {frozenset(sym[p] for p in added) for sym in shaper.symmetries}
        for img in images:
            assert any(cl == (frozenset(shaper.window) - img, img) for cl in shaper.learned)
            twin = _with(spos, img)
            assert twin is not None
            assert _exact(twin, target, 2) == _exact(cand, target, 2)
        # neither the candidate nor an image comes back
        _loop(shaper, lambda c, i: "cooked")


def test_verify_stops_at_the_second_key_and_changes_nothing_else():
    # max_keys=2 (the generator's early exit for cooked candidates): a cooked puzzle is
    # still unsound with two keys; a puzzle with fewer keys gets the very same verdict
    b = Board.parse("4/5")
    cooked = same = 0
    for seed in range(1, 30):
        pos = G.seed_position(b, seed)
        if pos is None:
            continue
        for target in G._defender_targets(pos):
            for n in (1, 2):
                capture.forget()  # both from empty tables: the same nodes
                full = verify(pos, target, n)
                capture.forget()
                early = verify(pos, target, n, max_keys=2)
                if len(full.keys) >= 2:
                    cooked += len(full.keys) > 2
                    assert early.keys == full.keys[:2] and not early.sound and early.complete
                else:
                    same += 1
                    assert early._replace(seconds=0) == full._replace(seconds=0)
    assert cooked and same
    with pytest.raises(ValueError):
        verify(pos, target, 1, max_keys=1)


def test_bench_writes_its_figures(tmp_path, monkeypatch, capsys):
    import json
    import runpy
    import sys

    out = tmp_path / "bench.json"
    monkeypatch.setattr(sys, "argv", ["bench_generators.py", "--board", "4/5", "--units", "2,1", "--out", str(out)])
    with pytest.raises(SystemExit) as e:
        runpy.run_path("scripts/bench_generators.py", run_name="__main__")
    assert e.value.code == 0
    d = json.loads(out.read_text())
    assert d["command"].endswith("--board 4/5 --units 2,1 --out " + str(out)) and d["version"]
    for row in d["rows"]:
        for m in ("baseline", "sat"):
            r = row[m]
            assert sum(r["rejected"].values()) + r["puzzles"] <= r["candidates"]
            assert r["raw_cook_rate"] == round((r["candidates"] - r["puzzles"]) / r["candidates"], 3)
            assert sum(r["stage_seconds"].values()) <= r["cpu_seconds"] + 0.05
    assert "sat" in d["rows"][0] and "raw cook rate" in capsys.readouterr().err
    for bad in (["--units", "x"], ["--units", "-1"], ["--source", "selfplay", "--playouts", "0"], ["--board", "9"]):
        monkeypatch.setattr(sys, "argv", ["bench_generators.py", *bad])
        with pytest.raises(SystemExit) as e:
            runpy.run_path("scripts/bench_generators.py", run_name="__main__")
        assert e.value.code == 2, bad
