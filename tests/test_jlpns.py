"""Job-level proof-number search (solver.jobs.jlpns): its values are plain df-pn's, with
one worker or two, interrupted and resumed; its master tree follows df-pn's rules of
numbers, taint and repetition; and prove_for, its job, agrees with prove()."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solver import Board
from solver.jobs import jlpns as J
from solver.jobs.jlpns import JlpnsError, MasterTree, jlpns
from solver.rules.position import Position
from solver.rules.randomgame import random_position
from solver.search.dfpn import INF
from solver.search.limit import Limit
from solver.search.prove import ProverAnswer, prove, prove_for
from solver.util.errors import Interrupted, MeridiansError

# (board, plies, seed, job budget): positions whose df-pn takes a few hundred to a few
# hundred thousand expansions, with budgets small enough that the master tree grows
CASES = [("2/3", 3, 3, 30), ("2/3", 3, 4, 30), ("2/3", 3, 5, 30), ("2/3", 5, 4, 30), ("2/3", 4, 11, 30),
         ("3/4", 12, 101, 500), ("3/4", 12, 103, 200), ("3/4", 12, 105, 300), ("3/4", 16, 200, 700),
         ("3/4", 16, 201, 400), ("3/4", 16, 204, 50), ("3/4", 14, 300, 400), ("3/4", 13, 301, 400)]


@pytest.mark.parametrize("board,plies,seed,job_nodes", CASES)
def test_the_value_is_plain_df_pns(board, plies, seed, job_nodes):
    pos = random_position(Board.parse(board), plies, seed)
    plain = prove(pos, Limit(tt_mb=16))
    r = jlpns(pos, workers=1, job_nodes=job_nodes)
    assert r.value == plain.value
    assert r.verified == plain.value.decided and r.method == "jlpns"
    if plain.value == "win":
        assert r.best in pos.legal_moves() and r.line[0] == r.best
    if plain.nodes > 5 * job_nodes:
        assert r.stats["jobs"] > 1 and r.stats["master_nodes"] > 1  # the tree grew


def test_a_budget_gives_unknown_within_it():
    pos = random_position(Board.parse("3/4"), 16, 203)
    r = jlpns(pos, Limit(nodes=2_000), workers=1, job_nodes=500)
    assert r.value == "unknown" and not r.verified
    assert 0 < r.nodes <= 2_000 and r.stats["jobs"] == 4


def test_a_finished_game_needs_no_job():
    pos = random_position(Board.parse("2/3"), 40, 1)
    assert pos.outcome is not None
    r = jlpns(pos, workers=1)
    assert r.source == "rules" and r.value == prove(pos).value


def test_interrupted_after_some_jobs_it_resumes_with_the_same_value(tmp_path):
    pos = random_position(Board.parse("3/4"), 12, 102)
    plain = prove(pos, Limit(tt_mb=16))
    ck = tmp_path / "tree.json"

    def stop_after_5(info):
        if info["jobs"] >= 5:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted) as e:
        jlpns(pos, workers=1, job_nodes=300, checkpoint=ck, progress=stop_after_5)
    assert e.value.path == ck and e.value.finished == 5
    saved = json.loads(ck.read_text())
    assert saved["jobs"] == 5 and len(saved["tree"]) > 1
    r = jlpns(pos, workers=1, job_nodes=300, checkpoint=ck)
    assert r.value == plain.value and r.stats["resumed_jobs"] == 5
    # the finished tree is kept: a third call answers from it without a job
    again = jlpns(pos, workers=1, job_nodes=300, checkpoint=ck)
    assert again.value == plain.value and again.stats["jobs"] == r.stats["jobs"]


def test_one_worker_and_two_workers_give_the_same_value():
    pos = random_position(Board.parse("3/4"), 16, 200)
    one = jlpns(pos, workers=1, job_nodes=700)
    two = jlpns(pos, workers=2, job_nodes=700)
    assert one.value == two.value == prove(pos, Limit(tt_mb=16)).value != "unknown"
    assert two.stats["jobs"] > 1 and two.stats["workers"] == 2


def test_a_checkpoint_of_another_position_or_a_malformed_tree_is_refused(tmp_path):
    a = random_position(Board.parse("2/3"), 3, 3)
    b = random_position(Board.parse("2/3"), 3, 4)
    ck = tmp_path / "tree.json"
    jlpns(a, workers=1, job_nodes=30, checkpoint=ck)
    with pytest.raises(JlpnsError, match="another search"):
        jlpns(b, workers=1, job_nodes=30, checkpoint=ck)
    data = json.loads(ck.read_text())
    data["tree"][1][0] = 5  # a parent after its child
    ck.write_text(json.dumps(data))
    with pytest.raises(JlpnsError, match="malformed tree"):
        jlpns(a, workers=1, job_nodes=30, checkpoint=ck)


@pytest.mark.parametrize("kwargs", [{"workers": 0}, {"job_nodes": 0}, {"in_flight": True}, {"workers": 1.5}])
def test_bad_arguments_are_typed_errors(kwargs):
    with pytest.raises(MeridiansError):
        jlpns(Position.start(Board.parse("2/3")), **{"workers": 1, **kwargs})


# -- the master tree ----------------------------------------------------------------------
def _answer(pos, pn, dn, tainted=False, nodes=10, children=None):
    return ProverAnswer(str(pos), 0, pn, dn, tainted, nodes, children=children or {})


def test_flagged_leaves_are_not_chosen_twice():
    root = Position.start(Board.parse("2/3"))
    tree = MasterTree(root, 0, job_nodes=10)
    assert tree.select() == 0
    tree.start(0)
    assert tree.select() is None  # the only leaf is in flight
    tree.apply(0, _answer(root, 3, 4), budget=10)  # unknown after a whole budget: expanded
    kids = tree.nodes[0].children
    assert len(kids) == len({root.play(m).key for m in root.legal_moves()})
    chosen = []
    while (i := tree.select()) is not None:
        chosen.append(i)
        tree.start(i)
    assert sorted(chosen) == sorted(kids)  # every leaf once, then none
    assert tree.nodes[0].flagged


def test_a_job_cut_short_leaves_its_leaf_a_leaf():
    root = Position.start(Board.parse("2/3"))
    tree = MasterTree(root, 0, job_nodes=10)
    tree.start(0)
    tree.apply(0, _answer(root, 3, 4), budget=5)
    assert tree.nodes[0].state == J.NEW and (tree.nodes[0].pn, tree.nodes[0].dn) == (3, 4)


def test_numbers_and_taint_back_up_as_in_df_pn():
    root = Position.start(Board.parse("2/3"))
    tree = MasterTree(root, 0, job_nodes=10)  # Light to move and proving: an OR root
    tree.start(0)
    moves = root.legal_moves()
    estimates = {m: (2 + k, 5) for k, m in enumerate(moves)}
    tree.apply(0, _answer(root, 2, 50, children=estimates), budget=10)
    kids = [tree.nodes[c] for c in tree.nodes[0].children]
    assert (tree.nodes[0].pn, tree.nodes[0].dn) == (min(k.pn for k in kids), sum(k.dn for k in kids))
    for i, c in enumerate(tree.nodes[0].children[:-1]):  # all but the last disproven, one tainted
        tree.start(c)
        tree.apply(c, _answer(root, INF, 0, tainted=i == 0), budget=10)
    assert tree.nodes[0].dn > 0 and not tree.nodes[0].solved
    last = tree.nodes[0].children[-1]
    tree.start(last)
    tree.apply(last, _answer(root, INF, 0), budget=10)
    assert tree.nodes[0].dn == 0 and tree.nodes[0].tainted  # an OR node: one tainted child taints it
    tree.nodes[tree.nodes[0].children[0]].tainted = False
    tree.recompute()
    assert tree.nodes[0].dn == 0 and not tree.nodes[0].tainted


def _expand_along(tree, moves):
    """Expand the nodes along ``moves`` from the root (each job unknown); the last one's index."""
    i = 0
    for k in range(len(moves) + 1):
        tree.start(i)
        tree.apply(i, _answer(tree.root, 3, 3), budget=tree.job_nodes)
        if k < len(moves):
            i = next(c for c in tree.nodes[i].children if tree.nodes[c].move == moves[k])
    return i


def test_a_repetition_is_a_tainted_disproof_and_jobs_get_the_history(monkeypatch):
    """The hand-found cycle of test_dfpn: after f5 d6 d4, Dark's f3 repeats the start."""
    start = Position.parse("4/5/1L3L/2D2D1/4D3/2DL3/L4L/2D1D/4 L")
    tree = MasterTree(start, 0, job_nodes=10)
    mid = _expand_along(tree, "f5 d6 d4".split())
    f3 = next(tree.nodes[c] for c in tree.nodes[mid].children if tree.nodes[c].move == "f3")
    assert (f3.pn, f3.dn, f3.tainted) == (INF, 0, True)
    others = [tree.nodes[c] for c in tree.nodes[mid].children if tree.nodes[c].move != "f3"]
    assert not any(k.tainted for k in others)
    # the job rebuilds the leaf with its whole game, so its search sees the repetition too
    pos = tree.position(mid)
    path = [(p.bitboards.tobytes(), p.side_index) for p in pos.earlier() + [pos]]
    seen = {}
    monkeypatch.setattr(J, "prove_for", lambda p, prover, limit, **_: seen.setdefault("p", p))
    J.run_leaf(start.board.m, path, 0, Limit(nodes=1))
    assert seen["p"] == pos and seen["p"].earlier()[0] == start and seen["p"].play("f3").outcome == "draw"


def test_a_tainted_disproof_asks_the_other_player(monkeypatch):
    """As prove() does: "can Light win?" disproven by a repetition, then "can Dark win?"."""
    pos = random_position(Board.parse("2/3"), 3, 3)

    def fake(board, path, prover, limit, run="", **_):
        if prover == pos.side_index:
            return _answer(pos, INF, 0, tainted=True)
        return _answer(pos, 0, INF)

    monkeypatch.setattr(J, "run_leaf", fake)
    r = jlpns(pos, workers=1, job_nodes=30)
    assert r.value == "loss" and r.stats["stage"] == 1

    def draw(board, path, prover, limit, run="", **_):
        return _answer(pos, INF, 0, tainted=True)

    monkeypatch.setattr(J, "run_leaf", draw)
    r = jlpns(pos, workers=1, job_nodes=30)
    assert r.value == "unknown" and r.stats["stage"] == 2 and "draw" in r.notes[0]


# -- the job ------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [300, 301, 308, 311])
def test_prove_for_agrees_with_prove(seed):
    pos = random_position(Board.parse("3/4"), 14, seed)
    assert pos.outcome is None
    plain = prove(pos, Limit(tt_mb=16))
    me, other = pos.side_index, 1 - pos.side_index
    mine, theirs = prove_for(pos, me, Limit(tt_mb=16)), prove_for(pos, other, Limit(tt_mb=16))
    assert (mine.status == "proven") == (plain.value == "win") == (theirs.status == "disproven")
    assert (theirs.status == "proven") == (plain.value == "loss") == (mine.status == "disproven")
    assert mine.verified and theirs.verified
    if plain.value == "win":
        assert prove(pos.play(mine.move)).value == "loss"  # the winner's move
    cut = prove_for(pos, me, Limit(nodes=100, tt_mb=4))
    assert cut.status == "unknown" and cut.pn > 0 and cut.dn > 0 and cut.nodes == 100
    assert set(cut.children) <= set(pos.legal_moves())
    assert all(0 <= pn <= INF and 0 <= dn <= INF for pn, dn in cut.children.values())


def test_a_failed_job_is_a_typed_error_and_the_tree_is_kept(monkeypatch, tmp_path):
    pos = random_position(Board.parse("2/3"), 3, 3)
    calls = []

    def crash(board, path, prover, limit, run="", **_):
        calls.append(len(path))
        if len(calls) > 3:
            raise RuntimeError("worker lost")
        return _answer(pos, 2, 2, nodes=30)

    monkeypatch.setattr(J, "run_leaf", crash)
    ck = tmp_path / "tree.json"
    with pytest.raises(J.JobError, match="worker lost"):
        jlpns(pos, workers=1, job_nodes=30, checkpoint=ck)
    assert json.loads(ck.read_text())["jobs"] == 3


def test_the_jobs_of_a_run_share_their_process_s_table():
    pos = random_position(Board.parse("3/4"), 14, 300)
    path = [(p.bitboards.tobytes(), p.side_index) for p in pos.earlier() + [pos]]
    job = Limit(tt_mb=16)
    try:
        first = J.run_leaf(pos.board.m, path, pos.side_index, job, "run-a")
        again = J.run_leaf(pos.board.m, path, pos.side_index, job, "run-a")
        other = J.run_leaf(pos.board.m, path, pos.side_index, job, "run-b")
    finally:
        J._KEPT.clear()
    assert first.status == again.status == other.status == "proven" and again.verified
    assert again.nodes < first.nodes / 10 and other.nodes == first.nodes
    with pytest.raises(ValueError, match="another prover"):
        prove_for(pos, 1 - pos.side_index, job, search=J.new_dfpn(J.core.tables(pos.board), pos.side_index, 1))


def test_a_killed_run_resumes_from_its_last_save(tmp_path):
    """SIGKILL after 6 jobs (no Ctrl-C handler runs): the next run starts from the file."""
    import os
    import subprocess
    import sys

    pos = random_position(Board.parse("3/4"), 12, 102)
    ck = tmp_path / "tree.json"
    code = f"""
import os, signal
from solver.jobs.jlpns import jlpns
from solver.rules.randomgame import random_position
def kill(info):
    if info["jobs"] >= 6:
        os.kill(os.getpid(), signal.SIGKILL)
jlpns(random_position("3/4", 12, 102), workers=1, job_nodes=300, checkpoint={str(ck)!r}, progress=kill)
"""
    root = str(Path(J.__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": root}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, timeout=120)
    assert done.returncode == -9
    saved = json.loads(ck.read_text())["jobs"]
    assert 1 <= saved <= 6
    r = jlpns(pos, workers=1, job_nodes=300, checkpoint=ck)  # the dead run's lock is free
    assert r.value == prove(pos, Limit(tt_mb=16)).value and r.stats["resumed_jobs"] == saved


def test_a_dask_cluster_runs_the_same_jobs():
    distributed = pytest.importorskip("distributed")
    pos = random_position(Board.parse("3/4"), 16, 200)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        r = jlpns(pos, Limit(tt_mb=16), workers=2, job_nodes=700, backend="dask",
                  scheduler=cluster.scheduler_address)
    assert r.value == prove(pos, Limit(tt_mb=16)).value != "unknown" and r.stats["jobs"] > 1


def test_solved_entries_of_one_search_guide_another_and_are_re_walked():
    from solver.rules import core
    from solver.search.dfpn import new_dfpn
    from solver.search.prove import add_entries, solved_entries

    pos = random_position(Board.parse("3/4"), 14, 300)
    t = core.tables(pos.board)
    first = new_dfpn(t, pos.side_index, 16)
    alone = prove_for(pos, pos.side_index, search=first)
    entries = solved_entries(first, 16)
    assert len(entries[0]) > 0 and ((entries[1] == 0) | (entries[2] == 0)).all()
    # a child's search, given them, does less; its answer is re-walked as always
    child = pos.play(alone.move)
    plain = prove_for(child, pos.side_index, Limit(tt_mb=16))
    helped = prove_for(child, pos.side_index, Limit(tt_mb=16), entries=entries)
    assert plain.status == helped.status == "proven" and helped.verified
    assert helped.nodes < plain.nodes
    fresh = new_dfpn(t, pos.side_index, 16)
    assert add_entries(fresh, entries) == len(entries[0])
    assert add_entries(fresh, entries) == len(entries[0])  # their own slots again: no growth
    assert int((fresh.tt_key != 0).sum()) == len(entries[0])
