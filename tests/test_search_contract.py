"""One search contract (issue 33): ``solver.search.search(position, limit, method=...)``
answers with one :class:`~solver.search.result.Result` for df-pn, alpha-beta, the horizon
search, the engine and the capture search, the same answer as calling the search itself;
its value is always a :class:`~solver.search.values.Value`, never a bare string.  The
budget is one :class:`~solver.search.limit.Limit`, spent by one
:class:`~solver.search.clock.Clock`.  Small boards only."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from solver import Board, Position
from solver.jobs.checkpoint import record_problem
from solver.jobs.runner import JobResult, _merge
from solver.rules.randomgame import random_position
from solver.search import capture, mcts, search
from solver.search.clock import FIXED_CHUNK, Clock
from solver.search.limit import Limit, LimitError
from solver.search.methods import METHODS, SEARCHES, UnknownMethodError
from solver.search.prove import prove
from solver.search.result import MoveResult, ProofTable, Result
from solver.search.values import Value

PUZZLES = Path(__file__).resolve().parent.parent / "results" / "puzzles" / "4-5-c2.jsonl"
#: a win (the empty 2/3 board), a loss, and two positions a few plies into 2/3 games
POSITIONS = ["2/3/4/3/2 L", "1/2/1 L"] + [str(random_position(Board.parse("2/3"), plies, seed))
                                          for plies, seed in ((3, 2), (5, 2))]
PROOF_LIMIT = Limit(nodes=2_000_000, tt_mb=4)
ENGINE_LIMIT = Limit(playouts=500)
#: what the checkpoint reads of a proof (solver/jobs/runner.py _merge, checkpoint._FIELDS)
PROOF_KEYS = {"position", "value", "nodes", "seconds", "method", "line", "verified", "horizon", "notes", "stats"}


def _fresh(text: str) -> Position:
    return Position.parse(text)  # no game history: every call searches the same position


def _check_result(r: Result, pos: Position, method: str) -> None:
    assert isinstance(r, Result) and type(r.value) is Value and r.method == method
    assert r.position == str(pos)
    assert all(isinstance(m, MoveResult) and type(m.value) is Value for m in r.moves)
    assert r.proven == r.value.decided
    assert set(m.move for m in r.moves) <= set(pos.legal_moves())


def _engine_answer(r: Result) -> tuple:
    """What a seeded engine search with a playout budget repeats exactly (not its times)."""
    stats = {k: v for k, v in r.stats.items() if k != "load_seconds"}
    return r.value, r.source, r.best, r.line, r.moves, r.win_rate, r.playouts, r.nodes, stats


# -- every method: a Result with a Value, the same as the direct call --------------------------

@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("text", POSITIONS)
def test_each_proof_method_answers_as_prove_does(method, text):
    pos = _fresh(text)
    r = search(pos, PROOF_LIMIT, method=method)
    _check_result(r, pos, method)
    direct = prove(_fresh(text), PROOF_LIMIT, method=method)
    assert (r.value, r.line, r.best, r.moves, r.nodes, r.verified) == \
        (direct.value, direct.line, direct.best, direct.moves, direct.nodes, direct.verified)
    assert r.value.decided and r.source == method  # small positions: every proof decides
    assert r.best == (r.line[0] if r.line else None)
    if r.value is Value.WIN and r.line:
        assert r.moves == [MoveResult(r.line[0], Value.WIN)]
    if r.value is Value.LOSS:  # every move loses
        assert [m.move for m in r.moves] == pos.legal_moves()
        assert {m.value for m in r.moves} == {Value.LOSS}
    assert r.stats["load_seconds"] >= 0  # the load is reported apart from the search's seconds


@pytest.mark.parametrize("text", POSITIONS)
def test_the_engine_answers_as_its_own_search_does(text):
    pos = _fresh(text)
    r = search(pos, ENGINE_LIMIT, method="engine", seed=3)
    _check_result(r, pos, "engine")
    direct = mcts.search(_fresh(text), ENGINE_LIMIT, seed=3)
    assert _engine_answer(r) == _engine_answer(direct)
    assert r.source in ("tree", "dfpn", "rules", "estimate") and r.stats["seed"] == 3
    assert {"iterations", "seed", "dfpn_nodes"} <= set(r.stats)
    truth = prove(_fresh(text), PROOF_LIMIT).value
    assert r.value in (truth, Value.UNKNOWN)
    if r.proven:
        assert r.win_rate is None and r.shown().startswith(f"{r.value} (proven by ")


def test_the_capture_search_answers_as_capture_within_does():
    from puzzles.record import load_jsonl

    p = load_jsonl(PUZZLES)[0]
    pos = p.to_position()
    won = search(pos, Limit(nodes=10**6), method="capture", target=p.target, n=p.n)
    _check_result(won, pos, "capture")
    assert (won.value, won.source, won.best, won.line) == (Value.WIN, "capture", p.key, [p.key])
    direct = capture.search(pos, Limit(nodes=10**6), target=p.target, n=p.n)
    assert (direct.value, direct.best, direct.line, direct.stats) == (won.value, won.best, won.line, won.stats)
    assert capture.capture_within(pos, p.target, p.n, Limit(nodes=10**6)) is True
    # the docstring's position: no capture within 2
    lost_pos = Position.parse("3/1L2/5/4D1/4L/1L2/3 L")
    lost = search(lost_pos, method="capture", target="d5", n=2)
    _check_result(lost, lost_pos, "capture")
    assert (lost.value, lost.best) == (Value.LOSS, None)
    assert capture.capture_within(lost_pos, "d5", 2) is False
    # a budget of one node decides nothing: unknown, a Value
    spent = search(pos, Limit(nodes=1), method="capture", target=p.target, n=p.n)
    assert spent.value is Value.UNKNOWN and not spent.proven and spent.source == "none"
    with pytest.raises(ValueError, match="no time limit"):
        search(pos, Limit(seconds=5), method="capture", target=p.target, n=p.n)


def test_a_finished_game_is_the_rules_value_for_every_method():
    pos = Position.parse("1/2/1 L").play("a1").play("b1")
    assert pos.outcome is not None
    want = Value.from_outcome(pos.outcome, pos.to_move)
    for method in list(METHODS) + ["engine"]:
        limit = ENGINE_LIMIT if method == "engine" else None
        r = search(pos, limit, method=method)
        assert (r.value, r.source, r.method, r.nodes) == (want, "rules", method, 0)
        assert type(r.value) is Value and r.shown() == f"{want} (the game is over)"


def test_a_spent_budget_is_unknown_never_a_guess():
    pos = Position.start(Board.parse("3/4")).play("d3")
    for method in METHODS:
        r = search(pos, Limit(nodes=10, tt_mb=1), method=method)
        assert r.value is Value.UNKNOWN and r.source == "none" and not r.proven
        assert r.best is None and r.moves == [] and r.nodes <= 10
        assert r.shown() == "unknown"


def test_the_searches_are_named_and_others_refused():
    assert set(SEARCHES) == set(METHODS) | {"engine", "capture"}
    pos = Position.parse("1/2/1 L")
    with pytest.raises(UnknownMethodError, match="'mcts'.*dfpn, alphabeta, horizon, engine, capture"):
        search(pos, method="mcts")


def test_the_engine_refuses_a_limit_without_playouts_or_seconds():
    pos = Position.start(Board.parse("2/3"))
    for limit in (None, Limit(), Limit(nodes=1000), Limit(tt_mb=8)):
        with pytest.raises(LimitError, match="playouts, seconds or both"):
            search(pos, limit, method="engine")
    with pytest.raises(LimitError):
        mcts.Engine().search(pos, Limit(nodes=5))
    with pytest.raises(TypeError, match="limit must be a Limit"):
        mcts.search(pos, 500)
    # a playout budget is kept exactly: with seed and playouts alone the search repeats
    r = mcts.search(Position.start(Board.parse("3/4")), Limit(playouts=123), dfpn_nodes=0)
    assert r.stats["iterations"] == 123 and not r.proven


# -- the Result ---------------------------------------------------------------------------------

def test_a_proof_as_dict_keeps_what_the_checkpoint_reads():
    pos = Position.start(Board.parse("2/3"))
    r = prove(pos, Limit(tt_mb=4))
    assert isinstance(r.table, ProofTable)
    assert r.table.winner == pos.side_index and r.table.tables is not None and r.table.search is not None
    d = r.as_dict()
    assert set(d) == PROOF_KEYS  # the table is not in it
    assert type(d["value"]) is str and d["value"] == "win" and d["method"] == "dfpn"
    assert json.loads(json.dumps(d)) == d
    job = _merge(JobResult("k", str(pos), ("k",)), d)
    assert (job.value, job.nodes, job.line, job.verified, job.runs) == ("win", r.nodes, r.line, True, 1)
    assert record_problem(job.record()) is None
    for method in ("alphabeta", "horizon"):
        other = prove(pos, Limit(tt_mb=4), method=method).as_dict()
        assert set(other) == PROOF_KEYS and record_problem(_merge(JobResult("k", str(pos), ("k",)), other).record()) is None


def test_an_engine_as_dict_has_its_moves():
    r = mcts.search(Position.start(Board.parse("3/4")), Limit(playouts=300), dfpn_nodes=0)
    d = r.as_dict()
    assert {"best", "source", "proven", "win_rate", "playouts", "moves"} <= set(d)
    assert d["source"] == "estimate" and d["proven"] is False and type(d["value"]) is str
    assert {tuple(sorted(m)) for m in d["moves"]} == {("move", "share", "value", "visits", "win_rate")}
    assert sum(m["visits"] for m in d["moves"]) == d["stats"]["iterations"] == 300
    assert json.loads(json.dumps(d)) == d


def test_results_in_words_and_their_values():
    pos = "1/2/1 L"
    assert Result(pos, Value.WIN, "dfpn").shown() == "win (proven by dfpn)"
    assert Result(pos, "loss", "alphabeta").value is Value.LOSS  # a word becomes a Value
    assert Result(pos, Value.WIN, "engine", source="tree").shown() == "win (proven by the tree)"
    assert Result(pos, Value.LOSS, "engine", source="rules").shown() == "loss (the game is over)"
    assert Result(pos, Value.UNKNOWN, "engine", win_rate=0.63).shown() == "estimated 0.63 (win rate)"
    assert Result(pos, Value.UNKNOWN, "engine").shown() == "unknown (no playouts)"
    assert Result(pos, Value.UNKNOWN, "dfpn").source == "none"  # not an estimate: nothing gave a value
    # the value is a MoveResult's second field
    m = MoveResult("b1", "win", 7, 0.5, None)
    assert (m.move, m.value, m.visits, m.share, m.win_rate) == ("b1", Value.WIN, 7, 0.5, None)
    r = Result(pos, Value.WIN, "dfpn", moves=[m, MoveResult("a1")])
    assert r.move_values == {"b1": Value.WIN, "a1": Value.UNKNOWN}


# -- the Clock ----------------------------------------------------------------------------------

def test_a_clock_spends_a_node_budget():
    clock = Clock(Limit(nodes=1000))
    assert clock.allow(800) == 800 and not clock.out()
    clock.spend(800)
    assert clock.allow(800) == 200 and not clock.out()
    clock.spend(200)
    assert clock.allow(800) == 0 and clock.out()
    assert clock.left() is None and not clock.time_up()
    # no budget: nothing is cut
    free = Clock(Limit())
    free.spend(10**9)
    assert free.allow(10**6) == 10**6 and not free.out()


def test_a_clock_of_the_engine_counts_playouts_not_nodes():
    clock = Clock(Limit(playouts=10, nodes=5), counts="playouts")
    assert clock.allow(100) == 10
    clock.spend(nodes=50, playouts=4)
    assert clock.allow(100) == 6 and not clock.out()
    clock.spend(playouts=6)
    assert clock.out() and (clock.nodes, clock.playouts) == (50, 10)
    # a proof's clock counts nodes: the playouts are not its budget
    proof = Clock(Limit(playouts=10, nodes=100))
    proof.spend(playouts=10)
    assert proof.allow(1000) == 100 and not proof.out()


def test_a_clock_spends_a_time_budget():
    clock = Clock(Limit(seconds=0.05))
    assert clock.left() <= 0.05 and clock.allow(10**6) == 10**6
    time.sleep(0.06)
    assert clock.time_up() and clock.out() and clock.left() == 0.0
    assert clock.elapsed() >= 0.05


def test_a_clock_sizes_its_chunks():
    # no time limit: the fixed chunk, whatever the rate (the same paths from run to run)
    fixed = Clock(Limit(nodes=10**6))
    assert fixed.next_chunk(10, 1e-6, 10**9) == FIXED_CHUNK
    assert fixed.next_chunk(10, 100.0, 500) == 500  # never past the cap
    # no fixed size: about chunk_seconds' worth, at most four times the last (and 16), at least `least`
    rated = Clock(Limit(), fixed=None, chunk_seconds=0.5, least=200)
    assert rated.next_chunk(1000, 0.1, 10**9) == 4016        # 5,000 a half second, but 4 * 1000 + 16
    assert rated.next_chunk(1000, 1.0, 10**9) == 500         # 1,000 a second: half a second's worth
    assert rated.next_chunk(1000, 1.0, 300) == 300           # the cap
    assert rated.next_chunk(100, 100.0, 10**9) == 200        # one a second: the least chunk
    # with a time limit, never more than the time left allows at that rate
    timed = Clock(Limit(seconds=0.2), chunk_seconds=0.5)
    size = timed.next_chunk(100_000, 0.1, 10**9)             # 10**6 a second, 0.2 s left
    assert 100_000 < size <= 200_000
    time.sleep(0.25)
    assert timed.next_chunk(100_000, 0.1, 10**9) == 10_000   # time is up: a hundredth of a second's worth


def test_a_clock_reports_progress_and_checks_what_it_is_given():
    seen = []
    clock = Clock(Limit(nodes=10), seen.append)
    clock.spend(3)
    clock.report(horizon=2)
    assert len(seen) == 1 and seen[0]["nodes"] == 3 and seen[0]["horizon"] == 2
    assert {"nodes", "playouts", "seconds"} <= set(seen[0])
    Clock(Limit()).report(x=1)  # no callback: nothing happens
    with pytest.raises(TypeError, match="limit must be a Limit"):
        Clock({"nodes": 5})
    with pytest.raises(ValueError, match="counts nodes or playouts"):
        Clock(Limit(), counts="iterations")


def test_prove_reports_its_clock_between_chunks():
    seen = []
    pos = Position.start(Board.parse("3/4")).play("d3")
    r = prove(pos, Limit(nodes=30_000, tt_mb=4), chunk_nodes=5_000, progress=seen.append)
    assert r.value is Value.UNKNOWN and r.nodes <= 30_000
    assert len(seen) >= 3 and all({"nodes", "seconds", "horizon"} <= set(s) for s in seen)
    assert [s["nodes"] for s in seen] == sorted(s["nodes"] for s in seen) and seen[-1]["nodes"] <= 30_000
