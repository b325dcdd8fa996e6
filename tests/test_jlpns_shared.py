"""JL-PNS's shared backend (solver.jobs.shared_pool): two forked workers on one df-pn
table in shared memory give plain df-pn's values, and a failed job is a typed error."""

from __future__ import annotations

import pytest

from solver import Board
from solver.jobs import jlpns as J
from solver.jobs.jlpns import jlpns
from solver.jobs.runner import JobError
from solver.rules.randomgame import random_position
from solver.search.limit import Limit
from solver.search.parallel import can_fork
from solver.search.prove import prove

pytestmark = pytest.mark.skipif(not can_fork(), reason="the shared backend forks")

CASES = [("2/3", 3, 3, 30), ("2/3", 5, 4, 30), ("3/4", 12, 101, 500), ("3/4", 16, 200, 700),
         ("3/4", 16, 204, 50), ("3/4", 14, 300, 400)]


@pytest.mark.parametrize("board,plies,seed,job_nodes", CASES)
def test_two_workers_on_one_shared_table_give_plain_df_pns_value(board, plies, seed, job_nodes):
    pos = random_position(Board.parse(board), plies, seed)
    plain = prove(pos, Limit(tt_mb=16))
    r = jlpns(pos, Limit(tt_mb=16), workers=2, job_nodes=job_nodes, backend="shared")
    assert r.value == plain.value
    assert r.verified == plain.value.decided and r.stats["workers"] == 2
    if plain.value == "win":
        assert r.best in pos.legal_moves() and r.line[0] == r.best
    if plain.nodes > 5 * job_nodes:
        assert r.stats["jobs"] > 1


def _crash(*args, **kwargs):
    raise ValueError("boom")


def test_a_failed_job_in_a_shared_worker_is_a_typed_error(monkeypatch):
    pos = random_position(Board.parse("3/4"), 12, 101)
    monkeypatch.setattr(J, "run_leaf", _crash)  # the workers are forked after: they have it too
    with pytest.raises(JobError, match="boom"):
        jlpns(pos, Limit(tt_mb=16), workers=2, job_nodes=500, backend="shared")
