"""The counterexample-guided loop of :mod:`puzzles.sat` (issue 21 item 5).

- a candidate the loop has learned from never comes back, and no later candidate
  breaks a hard clause learned before it (over several seeds, targets and n, with the
  verifier's verdicts and with made-up ones);
- slow twin: on small 4/5 cases, every subset of the window (at most MAX_ADDED
  stones) is built and judged by the exact verifier with no budget; every sound one
  that the encoding admits is proposed by the loop run to exhaustion, so no learned
  clause (hard, soft or symmetric) ever blocked a sound puzzle;
- the symmetric forms: a position mapped onto itself by a board symmetry gets the
  image of each learned clause, and the image of a candidate is the same puzzle;
- the escape's witness: the defender reply the first search reports
  (``CaptureSearch.refutation``) refutes some attacker first move, checked exactly
  move by move; its route lies on the target's lines; the loop learning from
  witnesses still proposes every sound candidate (the route clause is soft).
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
        verdict = judge(cand, len(seen))  # a verdict, or (verdict, the escape's witness)
        shaper.learn(*verdict) if isinstance(verdict, tuple) else shaper.learn(verdict)
    pytest.fail("the loop did not end")


def _checked(cand: Position, target: str, n: int) -> tuple[str, str | None]:
    """The generator's verdict (first search within 20,000 nodes) and the escape's
    witness, as sat_unit passes them to Reshaper.learn."""
    w: dict = {}
    why = G.check(cand, target, n, "sat", "test", quick=20_000, witness=w)[1]
    return why, w.get("reply")


def _exact_witness(cand: Position, target: str, n: int) -> tuple[str, str | None]:
    """The exact verdict, and for an escape the refutation of a search with no budget."""
    why = _exact(cand, target, n)
    reply = None
    if why == "escapes":
        s = capture.CaptureSearch(cand, target)
        assert s.captures(n) is False
        reply = s.refutation(1)
    return why, reply


@pytest.mark.parametrize("board,n,seed", [("4/5", 1, 4), ("4/5", 2, 9), ("4/5", 3, 1), ("6/7", 3, 7)])
def test_a_learned_candidate_never_comes_back(board, n, seed, monkeypatch):
    monkeypatch.setattr(sat, "ROUTE", 3)  # the escape's route learned too (off by default)
    pos = _position(board, seed)
    proposed = 0
    for target in G._defender_targets(pos)[:6]:
        with sat.Reshaper(pos, target, n) as shaper:
            if board == "4/5":
                seen = _loop(shaper, lambda c, i: _checked(c, target, n))
            else:  # the verifier is slower there: made-up verdicts, every kind
                seen = _loop(shaper, lambda c, i: ("escapes", "shorter", "cooked", "budget")[i % 4], limit=60)
            proposed += len(seen)
    assert proposed >= 5


def _certified_or_exact(shaper: sat.Reshaper, cand: Position, target: str, n: int):
    """As sat_unit judges: a candidate with an escape certificate gets its hard clause
    (and is an escape, claim C); any other the exact verdict and witness."""
    cert = shaper.certificate()
    if cert is not None:
        shaper.learn_certificate(cert)
        return "escapes", None
    return _exact_witness(cand, target, n)


# (seed, n): 4/5 cases where the old hard generalisations blocked sound candidates;
# the loop learns from the exact verdict and, for an escape, its witness (the route)
@pytest.mark.parametrize("seed,n", [(1, 1), (1, 2), (4, 2), (6, 2), (9, 2), (11, 1)])
def test_no_learned_clause_blocks_a_sound_candidate(seed, n, monkeypatch):
    monkeypatch.setattr(sat, "ROUTE", 3)  # the escape's route learned too (off by default)
    pos = _position("4/5", seed)
    sound_total = 0
    for target in G._defender_targets(pos):
        with sat.Reshaper(pos, target, n) as shaper:
            if shaper.solver is None:
                continue
            window = list(shaper.window)
            proposed = set(_loop(shaper, lambda c, i: _certified_or_exact(shaper, c, target, n)))
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


# (board, seed, n): small cases, every window subset of at most MAX_ADDED points
@pytest.mark.parametrize("board,seed,n", [
    ("4/5", 1, 1), ("4/5", 2, 1), ("4/5", 4, 2), ("4/5", 9, 2), ("4/5", 10, 2), ("4/5", 10, 3),
    ("5/6", 5, 1), ("5/6", 7, 2), ("5/6", 7, 3),
])
def test_a_certificate_holds_for_every_candidate_that_keeps_it(board, seed, n):
    # claim C of puzzles.sat: when a candidate has an escape certificate, every
    # candidate that adds no stone on its points escapes (exact verifier), so its
    # hard clause never blocks a puzzle; checked over every subset of the window
    pos = _position(board, seed)
    b = pos.board
    certs = checked = 0
    for target in G._defender_targets(pos):
        with sat.Reshaper(pos, target, n) as shaper:
            window, tgroup, own, occupied = shaper.window, shaper.tgroup, shaper.own, shaper.occupied
        subsets = [frozenset(pts) for k in range(sat.MAX_ADDED + 1)
                   for pts in itertools.combinations(window, k) if _with(pos, pts) is not None]
        escapes: dict = {}
        found = set()
        for pts in subsets:
            cert = sat.certificate(b, tgroup, own, occupied | pts, n)
            if cert is None or cert in found:
                continue
            found.add(cert)
            certs += 1
            assert not cert & (occupied | pts)  # its points are empty
            for other in subsets:
                if other & cert:
                    continue
                if other not in escapes:
                    escapes[other] = capture.capture_within(_with(pos, other), target, n) is False
                    checked += 1
                assert escapes[other], (target, sorted(pts), sorted(other))
    assert certs > 0 and checked > 0


def _refutes(pos: Position, target: str, n: int, reply: str) -> bool:
    """Whether ``reply`` refutes some legal first move of the attacker in ``pos``: Y may
    play it after that move, and X then cannot capture within n - 1 (n = 1: the target
    is still there), checked with no budget and the line on the search path."""
    s = capture.CaptureSearch(pos, target)
    for m in pos.legal_moves():
        after = pos.play(m)
        if after.outcome is not None or reply not in after.legal_moves():
            continue
        last = after.play(reply)
        if s.target_gone(last):
            continue
        if n == 1:
            return True
        if last.outcome is not None:
            continue  # the game ended: X lost (a draw is a repetition, also a failure)
        s.load([pos, after, last])
        if s.captures(n - 1) is False:
            return True
    return False


@pytest.mark.parametrize("board,seeds", [("4/5", range(1, 9)), ("5/6", range(1, 4))])
def test_an_escape_witness_refutes_an_attacker_move(board, seeds):
    # the claim of CaptureSearch.refutation and of the witness check() passes on, exact
    # on every escape of the seed positions and their first SAT candidates, n = 1..3;
    # and the route of the reply (Reshaper.route) lies on the target's lines
    checked = 0
    for seed in seeds:
        pos = _position(board, seed)
        for target in G._defender_targets(pos)[:4]:
            for n in (1, 2, 3):
                with sat.Reshaper(pos, target, n) as shaper:
                    cands = [pos]
                    c = shaper.next()
                    if c is not None:
                        cands.append(c)
                    for cand in cands:
                        w: dict = {}
                        why = G.check(cand, target, n, "sat", "test", quick=20_000, witness=w)[1]
                        if why != "escapes":
                            assert "reply" not in w
                            continue
                        reply = w["reply"]
                        if reply is None:
                            continue
                        checked += 1
                        assert _refutes(cand, target, n, reply), (str(cand), target, n, reply)
                        if cand is c:
                            b = cand.board
                            route = shaper.route(reply)
                            occupied = {b.index(p) for p in cand.stones("L") | cand.stones("D")}
                            r = b.index(reply)
                            assert r in route and not route & occupied
                            for p in route - {r}:
                                # p lies between a target stone and the reply, on one line
                                assert any(p in ray and r in ray and ray.index(p) < ray.index(r)
                                           for t in shaper.tgroup for ray in b.rays[t])
    assert checked >= 10


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
