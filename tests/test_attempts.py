"""Puzzle ratings from attempts (puzzles/attempts.py, puzzles/glicko.py): Glicko-2 against
Glickman's worked example and a bisection twin, attempts that replay, solvers that play the
line or a wrong first move, and the fixed point's order and scale."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from puzzles.attempts import (ANCHOR, Attempt, AttemptError, Solver, attempt, key_effort, parse_solver, rate,
                              rate_against, read_move)
from puzzles.glicko import SCALE, START, GlickoError, Rating, glicko2
from puzzles.record import load_jsonl

SETS = Path(__file__).resolve().parent.parent / "results" / "puzzles"


def slow_glicko2(p, games, tau=0.5):
    """Glicko-2 with the volatility's equation solved by plain bisection (not Illinois)."""
    mu, phi = (p.r - 1500) / SCALE, p.rd / SCALE
    gs = [((r - 1500) / SCALE, 1 / math.sqrt(1 + 3 * (rd / SCALE) ** 2 / math.pi ** 2), s) for r, rd, s in games]
    es = [1 / (1 + math.exp(-g * (mu - m))) for m, g, _ in gs]
    v = 1 / sum(g * g * e * (1 - e) for (_, g, _), e in zip(gs, es))
    delta = v * sum(g * (s - e) for (_, g, s), e in zip(gs, es))
    a = math.log(p.vol ** 2)

    def f(x):
        return (math.exp(x) * (delta ** 2 - phi ** 2 - v - math.exp(x)) / (2 * (phi ** 2 + v + math.exp(x)) ** 2)
                - (x - a) / tau ** 2)

    lo, hi = a - 50, a + 50  # f decreases: positive far below its root, negative far above
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    vol = math.exp(lo / 2)
    new_phi = 1 / math.sqrt(1 / (phi ** 2 + vol ** 2) + 1 / v)
    return SCALE * (mu + new_phi ** 2 * sum(g * (s - e) for (_, g, s), e in zip(gs, es))) + 1500, SCALE * new_phi, vol


def test_glickmans_worked_example():
    r = glicko2(Rating(1500, 200, 0.06), [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)])
    # the paper rounds its intermediate values: unrounded, r is 1464.0507 and vol 0.059996
    assert r.r == pytest.approx(1464.06, abs=0.015) and r.rd == pytest.approx(151.52, abs=0.005)
    assert r.vol == pytest.approx(0.05999, abs=1e-5)


@pytest.mark.parametrize("p, games", [
    (Rating(1500, 200, 0.06), [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)]),
    (Rating(1500, 350, 0.06), [(1320, 100, 1)] * 7 + [(2100, 60, 0)] * 3),
    (Rating(1500, 60, 0.06), [(2200, 100, 1)]),  # an upset: the other branch of the bracket
    (Rating(900, 30, 0.09), [(2600, 40, 1), (2500, 40, 1), (800, 350, 0.5)]),
])
def test_glicko2_matches_its_bisection_twin(p, games):
    r, rd, vol = slow_glicko2(p, games)
    got = glicko2(p, games)
    assert got.r == pytest.approx(r, abs=1e-3) and got.rd == pytest.approx(rd, abs=1e-3)
    assert got.vol == pytest.approx(vol, abs=1e-6)


def test_glicko2_refuses_bad_input_and_grows_rd_without_games():
    assert glicko2(START, []).rd > START.rd and glicko2(START, []).r == START.r
    for p, games in ((Rating(1500, 0, 0.06), []), (START, [(1500, 100, 2)]), (START, [(math.nan, 100, 1)]),
                     (START, [(1500, 100)])):
        with pytest.raises(GlickoError):
            glicko2(p, games)
    # ratings so far apart that exp() overflows: an OverflowError traceback before, now a GlickoError
    for p, games in ((START, [(1e6, 30, 1)]), (Rating(-1e6, 350, 0.06), [(1500, 30, 0)])):
        with pytest.raises(GlickoError, match="too far apart"):
            glicko2(p, games)


@pytest.fixture(scope="module")
def puzzles():
    return load_jsonl(SETS / "4-5-c1.jsonl")[:3] + load_jsonl(SETS / "4-5-c3.jsonl")[:3]


def test_the_line_always_solves_and_a_wrong_first_move_fails(puzzles):
    for p in puzzles:
        a = attempt(Solver("line"), p)
        assert a.solved and a.failed_at is None and a.moves == p.line[0:2 * p.n - 1:2]
        b = attempt(Solver("wrong"), p)
        assert not b.solved and b.failed_at == 0 and b.moves[0] != p.key


def test_an_attempt_replays(puzzles):
    s = parse_solver("policy-t1")
    runs = [[attempt(s, p, seed) for p in puzzles for seed in (1, 2, 3)] for _ in range(2)]
    assert runs[0] == runs[1]
    # the seed matters: a drawn solver does not play one sequence for every seed
    assert len({a.moves for a in runs[0]}) > len(puzzles)
    argmax = [attempt(parse_solver("policy-t0"), p, seed) for p in puzzles for seed in (1, 2)]
    assert all(x.moves == y.moves for x, y in zip(argmax[::2], argmax[1::2]))


def test_solver_names_round_trip():
    for name in ("policy-t0", "policy-t0.5", "look-w3-n200", "engine-p256", "read-n1000"):
        assert parse_solver(name).name == name
    for bad in ("policy", "look-w0-n5", "engine-p0", "policy-tx", "chess-p1", "read-n0", "read-x5", "read-n1-n2"):
        with pytest.raises(AttemptError):
            parse_solver(bad)
    # a small temperature's name has an exponent with a '-' (policy-t1e-05): it parsed as a wrong
    # name, so measure_ratings --rating-solvers policy-t0.00001 failed in the first attempt, a traceback
    for t in (1e-5, 2.5e-7, 0.125):
        s = Solver("policy", t=t)
        assert parse_solver(s.name) == s and parse_solver(s.name).name == s.name
    for bad in ("policy-t-1", "policy-t1-2", "policy-t", "policy-1"):
        with pytest.raises(AttemptError):
            parse_solver(bad)


def test_a_policy_solver_with_a_tiny_temperature_plays_the_likeliest_move(puzzles):
    # every weight p ** (1 / t) underflowed to 0 at t = 1e-5: "Probabilities contain NaN", a traceback
    for p in puzzles:
        cold = [attempt(Solver("policy", t=t), p, seed) for t in (1e-5, 1e-9) for seed in (1, 2)]
        assert all(a.moves == attempt(parse_solver("policy-t0"), p).moves for a in cold)


def _attempts():
    # solver k of 4 solves puzzle j of 8 when j < 2 * (k + 1): stronger solvers, easier puzzles
    return [Attempt(f"s{k}", f"p{j}", 1, j < 2 * (k + 1), None) for k in range(4) for j in range(8)]


def test_rate_orders_solvers_and_puzzles_and_anchors_the_weakest():
    fit = rate(_attempts())
    s = [fit.solvers[f"s{k}"].r for k in range(4)]
    assert s[0] == pytest.approx(ANCHOR) and s == sorted(s) and s[0] < s[-1]
    p = [fit.puzzles[f"p{j}"].r for j in range(8)]
    assert all(p[2 * i] == pytest.approx(p[2 * i + 1]) for i in range(4))  # the same results, the same rating
    assert all(p[2 * i] < p[2 * i + 2] for i in range(3))
    # a puzzle rated against the fit's solvers alone rates as in the fit
    again = rate_against(_attempts(), fit)
    assert all(again[k].r == pytest.approx(fit.puzzles[k].r, abs=1e-6) for k in fit.puzzles)
    with pytest.raises(AttemptError):
        rate([])


def _first_capture(p, k):
    """The slow twin of an unbounded read: every legal move in the model's order, each
    searched to the end, the first that captures."""
    from puzzles.attempts import _ranked
    from solver.search.capture import CaptureSearch
    pos = p.to_position()
    return next(m for m in _ranked(pos)[0] if CaptureSearch(pos, p.target).move_captures(m, k))


@pytest.fixture(scope="module")
def harder():
    return load_jsonl(SETS / "4-5-c3.jsonl")[:4] + load_jsonl(SETS / "4-5-c4.jsonl")[:4]


def test_read_finds_the_key_with_budget_and_its_effort_is_where_it_does(harder):
    for p in harder:
        r = read_move(p.to_position(), p.target, p.n, 10**7)
        # dual-free: the key is the only first move that captures, the model-ordered search's and the twin's
        assert r.proven and r.move == p.key == _first_capture(p, p.n)
        at = key_effort(p, 10**7)
        assert at is not None and at <= r.nodes
        assert key_effort(p, at) == at and (at < 32 or key_effort(p, at - 1) is None)
        short = read_move(p.to_position(), p.target, p.n, 1)
        assert not short.proven and short.nodes <= 2  # a search stops one node past its limit


def test_the_read_solvers_scale_is_monotone_in_their_budget(harder, puzzles):
    budgets = (10, 100, 1000, 10000, 100000)
    ps = list({p.id: p for p in puzzles + harder}.values())
    atts = [attempt(parse_solver(f"read-n{b}"), p) for b in budgets for p in ps]
    solved = {b: {a.puzzle for a in atts if a.solved and a.solver == f"read-n{b}"} for b in budgets}
    # a larger budget reads on from where a smaller one stopped: what the smaller solves, it solves
    assert all(solved[a] <= solved[b] for a, b in zip(budgets, budgets[1:]))
    assert solved[budgets[0]] != solved[budgets[-1]] and len(solved[budgets[-1]]) == len(ps)
    fit = rate(atts)
    r = [fit.solvers[f"read-n{b}"].r for b in budgets]
    assert r == sorted(r) and r[0] == pytest.approx(ANCHOR) and r[-1] > r[0] + 200
    # the fewer of these solvers solve a puzzle, the higher its rating
    by = {p.id: sum(p.id in solved[b] for b in budgets) for p in ps}
    assert all(fit.puzzles[i].r > fit.puzzles[j].r for i in by for j in by if by[i] < by[j])
