"""JL-PNS on a real Dask cluster: a ``dask scheduler`` and two ``dask worker`` processes
started on this machine over TCP, the same value as a local proof, and a worker killed
in the middle of a run changing nothing but the time (the scheduler sends its job to the
other worker)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from solver import Board
from solver.jobs.jlpns import jlpns
from solver.rules.randomgame import random_position
from solver.search.limit import Limit
from solver.search.prove import load_kernels, prove

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parent.parent
# a 3/4 win of ~120,000 df-pn expansions: ~65 jobs of 2,000
POSITION, JOB_NODES = ("3/4", 11, 5), 2_000
START_TIMEOUT = 120   # seconds for the scheduler and both workers to come up (a loaded machine)
RUN_TIMEOUT = 240     # seconds for one run; longer is a hang


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A scheduler and two workers (``w0``, ``w1``), each in its own process group."""

    def __init__(self, tmp: Path, env: dict):
        self.tmp, self.env = tmp, env
        self.procs: dict[str, subprocess.Popen] = {}
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        self.client = None

    def _start(self, name: str, *args: str) -> None:
        log = open(self.tmp / f"{name}.log", "wb")
        # the programs of the `dask scheduler` and `dask worker` commands, run by this
        # interpreter (a `dask` on PATH may be another Python's), in the source tree; each
        # in its own session, whose whole group is killed at the end whatever the test did
        self.procs[name] = subprocess.Popen([sys.executable, "-m", *args], cwd=ROOT, env=self.env,
                                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()

    def start(self) -> None:
        from distributed import Client

        port = self.address.rsplit(":", 1)[1]
        # --idle-timeout and --death-timeout: an orphaned cluster (the test process
        # killed before its finalizer) ends itself
        self._start("scheduler", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", port,
                    "--no-dashboard", "--no-show", "--idle-timeout", "300s")
        # --no-nanny: the worker is the process started, so a killed one stays dead (no
        # nanny starts another) and the run ends on the other
        for name in ("w0", "w1"):
            self._start(name, "distributed.cli.dask_worker", self.address, "--nworkers", "1", "--nthreads", "1",
                        "--no-nanny", "--no-dashboard", "--name", name, "--host", "127.0.0.1",
                        "--death-timeout", "60s", "--local-directory", str(self.tmp / name))
        try:
            self.client = Client(self.address, timeout=f"{START_TIMEOUT}s", set_as_default=False)
            self.client.wait_for_workers(2, timeout=START_TIMEOUT)
        except Exception as e:  # noqa: BLE001 - failed with the processes' own words
            pytest.fail(f"the cluster did not come up ({type(e).__name__}: {e})\n{self.logs()}")

    def name_of(self, address: str) -> str:
        return self.client.scheduler_info(n_workers=-1)["workers"][address]["name"]

    def kill(self, name: str) -> None:
        """SIGKILL a process's group (no handler runs, as when a machine dies)."""
        try:
            os.killpg(self.procs[name].pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.procs[name].wait(timeout=30)

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n" + p.read_text(errors="replace")[-3000:]
                         for p in sorted(self.tmp.glob("*.log")))

    def stop(self) -> None:
        """End every process: the workers, then the scheduler (a worker whose scheduler
        went first would try to reach it again for seconds); SIGKILL for any that lingers
        and for anything left in their groups."""
        if self.client is not None:
            self.client.close()
        for names in (["w0", "w1"], ["scheduler"]):
            procs = [self.procs[n] for n in names if n in self.procs]
            for proc in procs:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            for proc in procs:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
        for proc in self.procs.values():
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=30)


@pytest.fixture
def cluster(tmp_path, tree_env):
    pytest.importorskip("distributed", reason="the Dask cluster test needs the 'distributed' package")
    import cloudpickle

    # this module's functions travel by value (the cluster cannot import a test module)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    load_kernels(Board.parse(POSITION[0]), "dfpn")  # the workers load the compiled kernels from the cache
    c = Cluster(tmp_path, tree_env)
    try:
        c.start()
        yield c
    finally:
        c.stop()
    assert all(p.poll() is not None for p in c.procs.values())


def _within(seconds: float, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, failing the test if it takes more than ``seconds`` (a hang)."""
    out: dict = {}

    def run():
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 - raised again in the test's thread
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        pytest.fail(f"{fn.__name__} did not finish within {seconds} s")
    if "error" in out:
        raise out["error"]
    return out["value"]


def _solver_file() -> str:
    import solver

    return solver.__file__


def _run_tables() -> list:
    """The JL-PNS run whose table this worker keeps (empty: it ran no job)."""
    from solver.jobs.jlpns import _KEPT

    return list(_KEPT.get("key", ()))[:1]


def _check(r, pos, plain) -> None:
    assert r.value == plain.value == "win" and r.verified and r.method == "jlpns"
    assert r.stats["workers"] == 2 and r.stats["jobs"] > 10 and r.stats["master_nodes"] > 1
    assert r.best in pos.legal_moves() and r.line[0] == r.best
    p = pos
    for m in r.line:  # the line is a game
        assert p.outcome is None and m in p.legal_moves()
        p = p.play(m)


def test_a_dask_scheduler_and_two_workers_prove_the_local_value(cluster):
    pos = random_position(Board.parse(POSITION[0]), *POSITION[1:])
    plain = prove(pos, Limit(tt_mb=16))
    roots = cluster.client.run(_solver_file)  # the code under test
    assert len(roots) == 2 and all(Path(f).resolve().is_relative_to(ROOT) for f in roots.values())
    r = _within(RUN_TIMEOUT, jlpns, pos, Limit(tt_mb=16), workers=2, job_nodes=JOB_NODES, backend="dask",
                scheduler=cluster.address)
    _check(r, pos, plain)
    assert all(run for run in cluster.client.run(_run_tables).values())  # both workers ran jobs


def test_a_worker_killed_in_the_middle_changes_nothing_but_the_time(cluster):
    pos = random_position(Board.parse(POSITION[0]), *POSITION[1:])
    plain = prove(pos, Limit(tt_mb=16))
    client = cluster.client
    killed: dict = {}

    def kill_a_busy_worker(info: dict) -> None:
        """After 5 jobs, SIGKILL the first worker seen with a job in flight (the other
        job of two: this one is back)."""
        if killed or info["jobs"] < 5:
            return
        busy = [a for a, keys in client.processing().items() if keys]
        if busy:
            name = cluster.name_of(busy[0])
            cluster.kill(name)
            killed.update(name=name, address=busy[0], jobs=info["jobs"])

    r = _within(RUN_TIMEOUT, jlpns, pos, Limit(tt_mb=16), workers=2, job_nodes=JOB_NODES, backend="dask",
                scheduler=cluster.address, progress=kill_a_busy_worker)
    assert killed, "no worker was ever seen with a job in flight"
    assert r.stats["jobs"] > killed["jobs"]  # the run went on after the kill
    assert killed["address"] not in client.scheduler_info(n_workers=-1)["workers"]  # the scheduler saw it go
    gone = [e for _, e in client.get_events(killed["address"]) if e.get("action") == "remove-worker"]
    # it took a job with it: one running, or one done whose result the run had not fetched
    assert gone and (gone[0]["processing-tasks"] or gone[0]["lost-computed-tasks"]), gone
    _check(r, pos, plain)


def _clients(dask_scheduler) -> int:
    return len(dask_scheduler.clients)


def test_an_error_in_the_progress_callback_closes_the_run_s_client(cluster):
    pos = random_position(Board.parse(POSITION[0]), *POSITION[1:])
    before = cluster.client.run_on_scheduler(_clients)

    def fail(info: dict) -> None:
        if info["jobs"] >= 3:
            raise RuntimeError("the caller's own error")

    with pytest.raises(RuntimeError, match="the caller's own error"):
        _within(RUN_TIMEOUT, jlpns, pos, Limit(tt_mb=16), workers=2, job_nodes=JOB_NODES, backend="dask",
                scheduler=cluster.address, progress=fail)
    deadline = time.monotonic() + 30
    while cluster.client.run_on_scheduler(_clients) != before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert cluster.client.run_on_scheduler(_clients) == before
