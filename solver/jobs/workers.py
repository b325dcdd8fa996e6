"""Where jobs run: the job function, and the pool of workers of each backend.

:func:`run_job` is what a worker runs: :func:`solver.search.prove.prove` on one job's
position, within its share of the time, reporting progress through a status file and
ending early when the run that sent it is gone.  :class:`Pool` runs it in this process
(one job at a time), in joblib's loky worker processes, or on a Dask cluster
(``BACKENDS``).
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import threading
import time
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Callable

from solver.util.errors import MeridiansError
from solver.util.files import write_atomic
from solver.search.limit import Limit

if TYPE_CHECKING:
    from solver.jobs.runner import Job

__all__ = ["BACKENDS", "Pool", "run_job", "SchedulerAddressError", "check_scheduler_address"]

BACKENDS = ("loky", "dask")
_STATUS_EVERY = 0.5   # seconds between a worker's status files
_STOP_CHECK_EVERY = 1.0  # seconds between a Dask worker's looks at the stop event


#: a Dask scheduler address: ``[scheme://]host:port``, host a name, an IPv4 address or
#: an IPv6 address in brackets
SCHEDULER_ADDRESS = re.compile(
    r"^(?:(?:tcp|tls|ws|wss|ucx|inproc)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9._-]*):([0-9]{1,5})$")


class SchedulerAddressError(MeridiansError):
    """A Dask scheduler address that is not ``[scheme://]host:port``."""


def check_scheduler_address(address: str) -> str:
    """``address`` if it is a Dask scheduler address ``[scheme://]host:port`` (port
    1-65535); else :class:`SchedulerAddressError`.  Checked before any connection is
    tried: distributed takes 20 s to give up on a malformed address, then prints a
    traceback from its client's ``__del__``."""
    mt = SCHEDULER_ADDRESS.match(address) if isinstance(address, str) else None
    if not mt or not 1 <= int(mt.group(2)) <= 65535:
        shown = repr(address) if len(repr(address)) <= 60 else repr(address)[:57] + "..."
        raise SchedulerAddressError(f"{shown} is not a Dask scheduler address: expected scheme://host:port, "
                                    f"such as tcp://10.0.0.5:8786")
    return address


class _Stop(Exception):
    """Raised from the progress callback to end a job whose solve was abandoned."""


def _write_status(status_dir: str, token: str, key: str, index: int, info: dict) -> None:
    try:
        write_atomic(os.path.join(status_dir, f"job-{index}.json"),
                     json.dumps({"run": token, "key": key, **info}))
    except OSError:
        pass  # progress is a courtesy: a worker that cannot write it still solves


def run_job(
    job: Job, index: int, *, method: str, limit: Limit, seconds: float | None, deadline: float | None,
    status_dir: str | None, token: str,
    chunk_nodes: int | None = None, parent_pid: int | None = None,
    stop_event: str | None = None, report: Callable[[dict], None] | None = None,
) -> dict:
    """Solve one job: :func:`prove` on its position within the run's ``limit`` (its nodes
    and table size; a Limit travels to loky and Dask workers by pickling, which keeps
    every field and checks nothing again), ``seconds`` (this job's share of the run's
    time, None: none) and the absolute wall-clock ``deadline``.  Returns the proof's
    ``Result.as_dict()`` (:class:`~solver.search.result.Result`), or ``{'stopped': True}`` when
    the solve that sent it is gone (its process died, or a Dask client set the stop
    event)."""
    from solver.rules.position import Position
    from solver.search.prove import load_kernels, prove

    position = Position.parse(job.position)
    load_kernels(position.board, method)  # a worker's own load: not the search's share
    if deadline is not None:
        left = deadline - time.time()
        seconds = left if seconds is None else min(seconds, left)
        if seconds <= 0:
            return {"value": "unknown", "nodes": 0, "seconds": 0.0, "method": method,
                    "notes": ["no time left"]}
    last = {"status": 0.0, "stop": time.monotonic()}
    event = None

    def progress(info: dict) -> None:
        nonlocal event
        now = time.monotonic()
        if report is not None:
            report(info)
        if status_dir is not None and now - last["status"] >= _STATUS_EVERY:
            last["status"] = now
            _write_status(status_dir, token, job.key, index, info)
        if now - last["stop"] >= _STOP_CHECK_EVERY:
            last["stop"] = now
            if parent_pid is not None and os.getppid() != parent_pid:
                raise _Stop()
            if stop_event is not None and event is not False:
                try:
                    if event is None:
                        from distributed import Event
                        event = Event(stop_event)
                    stopped = event.is_set()
                except Exception:  # cannot ask: solve on, as without the event
                    event, stopped = False, False
                if stopped:
                    raise _Stop()

    extra = {} if chunk_nodes is None else {"chunk_nodes": chunk_nodes}
    try:
        # one table in this process: the run checked that ``limit.copies`` of them fit
        proof = prove(position, method=method, limit=replace(limit, seconds=seconds, copies=1),
                      progress=progress, **extra)
    except _Stop:
        return {"stopped": True}
    return proof.as_dict()


def worker_init(parent_pid: int) -> None:
    """A loky worker leaves Ctrl-C to the main process, which stops it, and ends itself
    when the main process is gone (killed): a watcher thread looks every half second
    (compiled chunks hold the interpreter, so a busy worker ends after its chunk)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="meridians-parent-watch", daemon=True).start()



class Pool:
    """Runs job functions: in this process (one job at a time), in loky worker processes,
    or on a Dask cluster.  ``submit`` returns a future-like object with ``done()`` and
    ``result()``; ``wake`` is set whenever a job finishes."""

    def __init__(self, backend: str, jobs_n: int | None, scheduler: str | None):
        self.backend = backend
        self.wake = threading.Event()
        self.client = None
        self.executor = None
        self.stop_event: str | None = None
        if backend == "dask":
            if not scheduler:
                raise ValueError("--backend dask needs --scheduler ADDRESS (a Dask scheduler, such as tcp://host:8786)")
            check_scheduler_address(scheduler)
            try:
                from distributed import Client
            except ImportError as e:  # pragma: no cover - a dependency
                raise ValueError(f"the dask backend needs the 'distributed' package ({e})") from None
            try:
                self.client = Client(scheduler, timeout="10s", set_as_default=False)
            except (OSError, TimeoutError) as e:
                raise ValueError(f"cannot reach the Dask scheduler at {scheduler} ({e})") from None
            if jobs_n is None:
                jobs_n = max(1, sum(self.client.nthreads().values()))
            self.stop_event = f"meridians-stop-{uuid.uuid4().hex}"
        elif backend == "loky":
            jobs_n = jobs_n or 1
            if jobs_n > 1:
                from joblib.externals.loky import get_reusable_executor

                self.executor = get_reusable_executor(max_workers=jobs_n, timeout=30,
                                                      initializer=worker_init,
                                                      initargs=(os.getpid(),))
        else:
            raise ValueError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")
        self.n = jobs_n
        self.in_process = self.client is None and self.executor is None

    def submit(self, fn, *args, **kwargs):
        if self.client is not None:
            fut = self.client.submit(fn, *args, pure=False, stop_event=self.stop_event, **kwargs)
        else:
            fut = self.executor.submit(fn, *args, parent_pid=os.getpid(), **kwargs)
        fut.add_done_callback(lambda _: self.wake.set())
        return fut

    def shutdown(self, abandon: bool) -> None:
        """Close the pool; ``abandon`` stops the running jobs (killing local workers)."""
        if self.client is not None:
            if abandon:
                try:
                    from distributed import Event
                    Event(self.stop_event, client=self.client).set()
                except Exception:
                    pass  # the scheduler is gone: so are the jobs
            self.client.close()
        elif self.executor is not None and abandon:
            # loky's manager thread, told to kill its workers, drops the pending work items
            # and then looks up any id still queued for one: a KeyError traceback on stderr
            # when Ctrl-C comes just after a submit.  Taking the queued ids first leaves
            # nothing to look up (no job is submitted after this).
            work_ids = getattr(self.executor, "_work_ids", None)
            while work_ids is not None:
                try:
                    work_ids.get_nowait()
                except queue.Empty:
                    break
            self.executor.shutdown(wait=False, kill_workers=True)

