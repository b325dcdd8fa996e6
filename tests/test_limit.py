"""One budget for every search entry point: ``Limit(...)``, the only form (the loose
``seconds=``/``max_nodes=``/``tt_mb=`` keywords are gone and refused as unknown keywords),
honoured by each entry point and checked by the Limit's rules before any work.  Small
boards only: the whole file runs in a few seconds once compiled."""

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


# -- the Limit -------------------------------------------------------------------------------

def test_a_limit_survives_pickling_to_a_worker_with_its_copies():
    limit = Limit(seconds=3, nodes=10, tt_mb=16, copies=2)
    back = pickle.loads(pickle.dumps(limit))
    assert back == limit and back.copies == 2  # copies is not compared: checked on its own


# -- each entry point: the budget is the Limit ------------------------------------------------

@pytest.mark.parametrize("method", ["dfpn", "alphabeta", "horizon"])
def test_prove_takes_its_limit_positionally_or_by_name_and_keeps_it(method):
    pos = Position.parse(B23)
    whole = prove(pos, Limit(nodes=200_000, tt_mb=1), method=method)
    _same_proof(whole, prove(pos, limit=Limit(nodes=200_000, tt_mb=1), method=method))
    assert whole.value == "win" and whole.nodes <= 200_000
    # a node budget too small to decide: unknown, with the same effort either way, within it
    small = prove(pos, Limit(nodes=10, tt_mb=1), method=method)
    _same_proof(small, prove(pos, limit=Limit(nodes=10, tt_mb=1), method=method))
    assert small.value == "unknown" and small.nodes <= 10


def test_verify_position_keeps_its_limit():
    pos = Position.parse(B23)
    a = verify_position(pos, claim="win", limit=Limit(seconds=60, tt_mb=1), max_plies=6)
    b = verify_position(pos, claim="win", limit=Limit(seconds=60, tt_mb=1), max_plies=6)
    assert (a.value, a.verdict, a.nodes, a.line) == (b.value, b.verdict, b.nodes, b.line) == \
        ("win", "proven", b.nodes, b.line)


def test_the_capture_searches_keep_their_limit():
    p = load_jsonl(PUZZLES)[0]
    pos = p.to_position()
    a = verify_puzzle(pos, p.target, p.n, limit=Limit(nodes=10**6, tt_mb=4))
    b = verify_puzzle(pos, p.target, p.n, limit=Limit(nodes=10**6, tt_mb=4))
    assert (a.keys, a.shorter, a.complete, a.nodes) == (b.keys, b.shorter, b.complete, b.nodes)
    assert a.keys == [p.key]
    assert capture_within(pos, p.target, p.n, Limit(nodes=10**6)) is \
        capture_within(pos, p.target, p.n, limit=Limit(nodes=10**6)) is True
    # a budget of one node decides nothing
    assert verify_puzzle(pos, p.target, p.n, limit=Limit(nodes=1)).complete is False
    assert capture_within(pos, p.target, p.n, Limit(nodes=1)) is None
    assert CaptureSearch(pos, p.target).limit == Limit(tt_mb=16)  # the capture default table
    assert CaptureSearch(pos, p.target, limit=Limit(nodes=7)).limit == Limit(nodes=7, tt_mb=16)


def test_solve_openings_and_run_jobs_keep_their_limit():
    start = Position.start(Board.parse("2/3"))
    quiet = {"method": "alphabeta", "progress_ui": False}
    a = solve_openings(start, limit=Limit(seconds=60, tt_mb=4), **quiet)
    b = solve_openings(start, limit=Limit(nodes=10**7, tt_mb=4), **quiet)  # a time or a node budget: the same
    assert (a.value, a.moves) == (b.value, b.moves) and a.value == "win"
    assert [c.nodes for c in a.classes] == [c.nodes for c in b.classes]
    jobs = [Job("a", "2/3/4/3/2 L", ("a",))]
    ra = run_jobs(jobs, limit=Limit(nodes=50), **quiet).results[0]
    rb = run_jobs(jobs, limit=Limit(nodes=50, tt_mb=4), **quiet).results[0]
    assert (ra.value, ra.nodes) == (rb.value, rb.nodes)
    assert ra.value == "unknown" and 0 < ra.nodes <= 50


# -- refused ----------------------------------------------------------------------------------

def test_the_loose_budget_keywords_are_gone():
    pos = Position.parse(B23)
    calls = [
        lambda: prove(pos, seconds=1),
        lambda: prove(pos, max_nodes=100),
        lambda: prove(pos, limit=Limit(nodes=100), tt_mb=16),
        lambda: verify_position(pos, max_nodes=5),
        lambda: verify_position(pos, seconds=1),
        lambda: solve_openings(pos, seconds=1, progress_ui=False),
        lambda: run_jobs([], tt_mb=16, progress_ui=False),
    ]
    for call in calls:
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            call()
    p = load_jsonl(PUZZLES)[0]
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        verify_puzzle(p.to_position(), p.target, p.n, max_nodes=5)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        CaptureSearch(p.to_position(), p.target, tt_mb=4)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        capture_within(p.to_position(), p.target, p.n, max_nodes=5)


def test_a_budget_that_is_not_a_limit_is_refused():
    pos = Position.parse(B23)
    with pytest.raises(TypeError, match="limit must be a Limit"):
        prove(pos, 1000)  # a node count where the Limit goes
    with pytest.raises(TypeError, match="limit must be a Limit"):
        prove(pos, limit={"nodes": 5})
    p = load_jsonl(PUZZLES)[0]
    with pytest.raises(TypeError, match="limit must be a Limit"):
        capture_within(p.to_position(), p.target, p.n, 5)  # the old max_nodes place
    with pytest.raises(TypeError, match="limit must be a Limit"):
        capture_limit(5)
    # the entry points above the searches refuse it too, before any work (a falsy 0
    # is not taken for "no budget")
    for call in (lambda: verify_position(pos, limit=0), lambda: solve_openings(pos, limit=60.0),
                 lambda: run_jobs([Job("a", B23, ("a",))], method="dfpn", limit=0, progress_ui=False)):
        with pytest.raises(TypeError, match="limit must be a Limit"):
            call()


@pytest.mark.parametrize("kwargs", [
    {"seconds": float("nan")}, {"seconds": float("inf")}, {"seconds": 0}, {"seconds": -1},
    {"nodes": -1}, {"nodes": 2.5}, {"tt_mb": float("nan")}, {"tt_mb": 1e12},
])
def test_bad_budget_values_are_refused_by_the_limit_rules(kwargs):
    with pytest.raises(LimitError) as e:
        Limit(**kwargs)
    option = {"seconds": "--time", "nodes": "--max-nodes", "tt_mb": "--tt-mb"}[next(iter(kwargs))]
    assert str(e.value).startswith(option)


def test_a_capture_search_refuses_a_time_limit_and_bad_nodes():
    with pytest.raises(ValueError, match="no time limit"):
        capture_limit(Limit(seconds=5))
    with pytest.raises(ValueError, match="no time limit"):
        capture_within(Position.parse(B23), "a1", 1, Limit(seconds=5))
    assert capture_limit() == capture_limit(None) == Limit(tt_mb=16)
    assert capture_limit(Limit(nodes=3, tt_mb=2)) == Limit(nodes=3, tt_mb=2)
