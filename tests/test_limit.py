"""One budget for every search entry point: ``limit=Limit(...)`` gives the same result as
the loose keywords (its short form), which are checked by the same rules; both at once
are refused.  Small boards only: the whole file runs in a few seconds once compiled."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from solver import Board, Position
from solver.search.capture import CaptureSearch, capture_limit, capture_within
from solver.jobs.runner import Job, run_jobs
from solver.search.limit import Limit, LimitError
from solver.search.prove import prove
from solver.app.openings import solve_openings
from solver.app.verify import verify_position
from puzzles.record import load_jsonl
from puzzles.verdict import verify as verify_puzzle

B23 = "2/3/4/3/2 L"
PUZZLES = Path(__file__).resolve().parent.parent / "results" / "puzzles" / "4-5-c2.jsonl"


def _same_proof(a, b) -> None:
    assert (a.value, a.nodes, a.line, a.verified) == (b.value, b.nodes, b.line, b.verified)


# -- the shim ---------------------------------------------------------------------------------

def test_a_limit_survives_pickling_to_a_worker_with_its_copies():
    limit = Limit(seconds=3, nodes=10, tt_mb=16, copies=2)
    back = pickle.loads(pickle.dumps(limit))
    assert back == limit and back.copies == 2  # copies is not compared: checked on its own


# -- each entry point: the same result both ways ----------------------------------------------

@pytest.mark.parametrize("method", ["dfpn", "alphabeta", "horizon"])
def test_prove_gives_the_same_proof_with_a_limit(method):
    pos = Position.parse(B23)
    _same_proof(prove(pos, method=method, limit=Limit(nodes=200_000, tt_mb=1)),
                prove(pos, method=method, max_nodes=200_000, tt_mb=1))
    # a node budget too small to decide: unknown both ways, with the same effort
    small = prove(pos, method=method, limit=Limit(nodes=10, tt_mb=1))
    _same_proof(small, prove(pos, method=method, max_nodes=10, tt_mb=1))
    assert small.value == "unknown"


def test_verify_position_gives_the_same_verdict_with_a_limit():
    pos = Position.parse(B23)
    a = verify_position(pos, claim="win", limit=Limit(seconds=60, tt_mb=1), max_plies=6)
    b = verify_position(pos, claim="win", seconds=60, tt_mb=1, max_plies=6)
    assert (a.value, a.verdict, a.nodes, a.line) == (b.value, b.verdict, b.nodes, b.line) == \
        ("win", "proven", b.nodes, b.line)


def test_the_capture_searches_give_the_same_answers_with_a_limit():
    p = load_jsonl(PUZZLES)[0]
    pos = p.to_position()
    a = verify_puzzle(pos, p.target, p.n, limit=Limit(nodes=10**6, tt_mb=4))
    b = verify_puzzle(pos, p.target, p.n, max_nodes=10**6, tt_mb=4)
    assert (a.keys, a.shorter, a.complete, a.nodes) == (b.keys, b.shorter, b.complete, b.nodes)
    assert a.keys == [p.key]
    assert capture_within(pos, p.target, p.n, limit=Limit(nodes=10**6)) is \
        capture_within(pos, p.target, p.n, max_nodes=10**6) is True
    # a budget of one node decides nothing, both ways
    assert verify_puzzle(pos, p.target, p.n, limit=Limit(nodes=1)).complete is False
    assert verify_puzzle(pos, p.target, p.n, max_nodes=1).complete is False
    assert CaptureSearch(pos, p.target).limit == Limit(tt_mb=16)  # the capture default table


def test_solve_openings_and_run_jobs_give_the_same_values_with_a_limit():
    start = Position.start(Board.parse("2/3"))
    quiet = {"method": "alphabeta", "progress_ui": False}
    a = solve_openings(start, limit=Limit(seconds=60, tt_mb=4), **quiet)
    b = solve_openings(start, seconds=60, tt_mb=4, **quiet)
    assert (a.value, a.moves) == (b.value, b.moves)
    assert [c.nodes for c in a.classes] == [c.nodes for c in b.classes]
    jobs = [Job("a", "2/3/4/3/2 L", ("a",))]
    ra = run_jobs(jobs, limit=Limit(nodes=50), **quiet).results[0]
    rb = run_jobs(jobs, max_nodes=50, **quiet).results[0]
    assert (ra.value, ra.nodes) == (rb.value, rb.nodes)


# -- refused ----------------------------------------------------------------------------------

def test_a_limit_and_a_loose_budget_keyword_together_are_refused():
    pos = Position.parse(B23)
    limit = Limit(nodes=100)
    calls = [
        lambda: prove(pos, limit=limit, seconds=1),
        lambda: prove(pos, limit=limit, tt_mb=16),
        lambda: verify_position(pos, limit=limit, max_nodes=5),
        lambda: solve_openings(pos, limit=limit, seconds=1, progress_ui=False),
        lambda: run_jobs([], limit=limit, tt_mb=16, progress_ui=False),
    ]
    for call in calls:
        with pytest.raises(TypeError, match="not both"):
            call()
    p = load_jsonl(PUZZLES)[0]
    with pytest.raises(TypeError, match="not both"):
        verify_puzzle(p.to_position(), p.target, p.n, limit=limit, max_nodes=5)
    with pytest.raises(TypeError, match="not both"):
        capture_within(p.to_position(), p.target, p.n, 5, limit=limit)


@pytest.mark.parametrize("kwargs", [
    {"seconds": float("nan")}, {"seconds": float("inf")}, {"seconds": 0}, {"seconds": -1},
    {"max_nodes": -1}, {"max_nodes": 2.5}, {"tt_mb": float("nan")}, {"tt_mb": 1e12},
])
def test_bad_loose_values_are_refused_by_the_limit_rules(kwargs):
    pos = Position.parse(B23)
    with pytest.raises(LimitError):
        prove(pos, **kwargs)
    with pytest.raises(LimitError):
        verify_position(pos, **kwargs)
    with pytest.raises(LimitError):
        run_jobs([], progress_ui=False, **kwargs)


def test_a_capture_search_refuses_a_time_limit_and_bad_nodes():
    with pytest.raises(ValueError, match="no time limit"):
        capture_limit(Limit(seconds=5))
    with pytest.raises(LimitError):
        capture_limit(None, max_nodes=-3)
    with pytest.raises(LimitError):
        capture_limit(None, tt_mb=float("nan"))
