"""Parallel df-pn (prove(..., jobs=N), solver.search.parallel): the same values as the
sequential search, proofs that re-walk, a claimed root that does not re-walk never
reported, torn table entries that crash nothing, Ctrl-C leaving no process and no shared
memory behind, and jobs=1 the sequential code path."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from solver import Position
from solver.search import dfpn as F
from solver.search import parallel
from solver.search.prove import prove
from solver.search.limit import Limit
from refplay import random_position

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="parallel df-pn forks its workers")


def _same(pos: Position, nodes: int = 0) -> bool:
    """Whether both searches decided ``pos`` (then the same way; with a node budget,
    one of them may run out where the other does not)."""
    limit = Limit(nodes=nodes, tt_mb=16)
    one = prove(pos, limit)
    before = set(parallel_children())  # an earlier test's idle loky workers (they stay 30 s) are not ours
    two = prove(pos, limit, jobs=2)
    assert not set(parallel_children()) - before
    if two.value in ("win", "loss"):
        assert two.verified and two.stats["rewalked"] > 0 and two.stats["jobs"] == 2
    if "unknown" in (one.value, two.value) and nodes:
        return False
    assert two.value == one.value, (str(pos), one.value, two.value, two.notes)
    return True


def parallel_children() -> list:
    import multiprocessing

    return multiprocessing.active_children()


def test_every_first_move_of_2_3_has_the_sequential_value():
    start = Position.start("2/3")
    assert prove(start, Limit(tt_mb=16), jobs=2).value == prove(start, Limit(tt_mb=16)).value
    for move in start.legal_moves():
        _same(start.play(move))


def test_random_3_4_positions_have_the_sequential_value():
    positions = [random_position("3/4", plies, seed) for plies in (14, 16, 18) for seed in range(10)]
    positions = [p for p in positions if p.outcome is None]
    assert sum(_same(pos, nodes=150_000) for pos in positions) >= 20


def test_the_node_budget_counts_every_worker():
    pos = Position.start("3/4").play("c1")  # far beyond 20,000 nodes
    p = prove(pos, Limit(nodes=20_000), jobs=2)
    assert p.value == "unknown" and 0 < p.nodes <= 20_000


def test_a_claimed_root_that_does_not_rewalk_is_not_reported(monkeypatch):
    # a worker that says "proven" where the position is lost (a torn table can mislead
    # a worker so): the re-walk searches again, finds no win and nothing is reported
    pos = next(p for seed in range(50) if (p := random_position("3/4", 14, seed)).outcome is None
               and prove(p, Limit(tt_mb=16)).value == "loss")
    calls = []

    def forged(t, table, path, side, prover, **kw):
        calls.append(prover)
        return 0, F.INF, False  # "pn 0: proven"

    monkeypatch.setattr(parallel, "search_root", forged)
    p = prove(pos, Limit(tt_mb=16), jobs=2)
    assert calls and p.value == "unknown" and not p.verified
    assert any("re-walk" in n for n in p.notes)


def test_torn_table_moves_and_numbers_crash_nothing():
    # every entry's move replaced by a value that is no cell (or another cell), and
    # random entries "proven": the re-walk validates each move, re-searches, and agrees
    pos = next(p for seed in range(50) if (p := random_position("3/4", 14, seed)).outcome is None)
    proof = prove(pos, Limit(tt_mb=16))
    assert proof.verified
    t, D, winner = proof.table.tables, proof.table.search, proof.table.winner
    rng = np.random.default_rng(1)
    used = np.flatnonzero(D.tt_key)
    D.tt_move[used] = rng.integers(-32768, 32767, len(used), dtype=np.int16)
    D = D._replace(seen=np.zeros(1024, np.uint64))
    D.limits[F.MAX_EXPANSIONS] = 0
    ply = F.load_root(D, t, [(p.bitboards, p.side_index) for p in pos.earlier() + [pos]])
    assert F.rewalk(t, D, ply, pos.side_index, winner) == 1
    # forged "solved" numbers for a quarter of the entries: a re-walk never accepts a
    # win for the loser
    D.tt_pn[used[::4]] = 0
    D.tt_dn[used[1::4]] = 0
    D = D._replace(seen=np.zeros(1024, np.uint64))
    ply = F.load_root(D, t, [(p.bitboards, p.side_index) for p in pos.earlier() + [pos]])
    assert F.rewalk(t, D, ply, pos.side_index, 1 - winner) == 0


def test_a_table_file_saved_by_workers_resumes(tmp_path):
    # the shared table has the sequential table's slots: either search resumes it
    pos = next(p for seed in range(50) if (p := random_position("3/4", 12, seed)).outcome is None
               and prove(p, Limit(nodes=30_000, tt_mb=16)).value == "unknown")
    file = tmp_path / "table.bin"
    first = prove(pos, Limit(nodes=20_000, tt_mb=16), jobs=2, table_file=file)
    assert first.value == "unknown" and file.exists()
    again = prove(pos, Limit(tt_mb=16), table_file=file)
    assert again.value == prove(pos, Limit(tt_mb=16)).value != "unknown"
    assert again.stats["runs"] == 2 and again.nodes > first.nodes


def test_jobs_1_is_the_sequential_path(monkeypatch):
    def refuse(*a, **kw):
        raise AssertionError("jobs=1 must not start workers")

    monkeypatch.setattr(parallel, "SharedTable", refuse)
    monkeypatch.setattr(parallel, "search_root", refuse)
    p = prove(random_position("3/4", 14, 3), Limit(tt_mb=16))
    assert p.value in ("win", "loss") and "jobs" not in p.stats
    assert p.table.search.worker[0] == -1  # the search marks no path


def test_virtual_numbers_only_order():
    from solver.rules import core

    table = parallel.SharedTable(1, 2)
    D = F.new_dfpn(core.tables(Position.start("2/3").board), 0, 0.01, shared=table.arrays, worker=0)
    key = np.uint64(0x1234567)
    slot = int(key) & (parallel.BUSY_SLOTS - 1)
    assert F._virtual(D, key, 5) == 5  # nobody there
    D.busy[0, slot] = 1
    assert F._virtual(D, key, 5) == 5  # this worker's own path does not count
    D.busy[1, slot] = 1
    assert F._virtual(D, key, 5) == 6  # one other worker: one more
    # solved, given up and the root's threshold are never reached or changed
    assert [F._virtual(D, key, x) for x in (0, F.INF, F.INF - 1, F.INF - 2, F.INF - 3)] == [
        0, F.INF, F.INF - 1, F.INF - 2, F.INF - 2]


def test_torn_numbers_are_read_as_missing():
    assert F._whole(0, F.INF) and F._whole(F.INF, 0) and F._whole(3, 4)
    assert not F._whole(0, 5) and not F._whole(5, F.INF) and not F._whole(F.INF, 7) and not F._whole(7, 0)


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True, "2"])
def test_jobs_must_be_a_whole_number_of_at_least_1(jobs):
    with pytest.raises(ValueError, match="jobs"):
        prove(Position.start("2/3"), jobs=jobs)


def test_only_dfpn_searches_with_several_jobs():
    with pytest.raises(ValueError, match="df-pn"):
        prove(Position.start("2/3"), method="alphabeta", jobs=2)


def test_a_parallel_proof_writes_a_certificate_the_checker_accepts(tmp_path, run_cli):
    # the independent confirmation: the reference rules check the proof the workers found
    cert = tmp_path / "proof.json"
    r = run_cli("verify", "2/3/4/3/2 L", "--jobs", "2", "--certificate", cert, "--json", code=0)
    assert json.loads(r.stdout)["certificate"]["file"] == str(cert)
    assert "positions checked: Light wins 2/3/4/3/2 L" in run_cli("check", cert, code=0).stdout


def test_verify_takes_jobs(run_cli):
    r = run_cli("verify", "2/3/L3/3/2 D", "--jobs", "2", "--json", code=None)
    one = run_cli("verify", "2/3/L3/3/2 D", "--json", code=None)
    assert r.code == one.code == 0 and r.exception is None
    assert json.loads(r.stdout)["value"] == json.loads(one.stdout)["value"] != "unknown"
    assert run_cli("verify", "2/3/L3/3/2 D", "--jobs", "0").code == 2


_INTERRUPTED = textwrap.dedent("""
    import multiprocessing, sys
    from solver import Position
    from solver.search.limit import Limit
    from solver.search.prove import load_kernels, prove

    pos = Position.start("3/4").play("c1")
    load_kernels(pos.board)
    told = []

    def progress(info):
        if not told and len(multiprocessing.active_children()) == 2:
            told.append(1)
            print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)

    try:
        prove(pos, Limit(tt_mb=64), jobs=2, progress=progress)
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(0)
""")


def test_workers_end_when_their_main_process_is_killed(tree_env):
    # no finally runs in a killed process: the workers see that it is gone
    # Ctrl-C as from a terminal even where this test runs with SIGINT ignored (a background
    # job of a shell script, whose children inherit the ignoring)
    proc = subprocess.Popen([sys.executable, "-c", _INTERRUPTED], stdout=subprocess.PIPE, text=True,
                            env=tree_env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        pids = [int(x) for x in proc.stdout.readline().split()]
        assert len(pids) == 2, pids
        proc.kill()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids)


def _shm() -> set:
    try:
        return set(os.listdir("/dev/shm"))
    except OSError:
        return set()


def test_ctrl_c_leaves_no_process_and_no_shared_memory(tree_env):
    before = _shm()
    # Ctrl-C as from a terminal even where this test runs with SIGINT ignored (a background
    # job of a shell script, whose children inherit the ignoring)
    proc = subprocess.Popen([sys.executable, "-c", _INTERRUPTED], stdout=subprocess.PIPE, text=True,
                            env=tree_env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        pids = [int(x) for x in proc.stdout.readline().split()]
        assert len(pids) == 2, pids
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 5
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [p for p in pids if _alive(p)]
        time.sleep(0.05)
    assert not alive
    assert _shm() <= before


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (ended, not yet reaped by init) is not running
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False
