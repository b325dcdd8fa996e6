"""Local JL-PNS workers on one df-pn table in shared memory (:func:`~solver.jobs.jlpns.jlpns`'s
backend ``'shared'``).

With loky, each worker keeps its own table from job to job, so two workers split what
the run has learned and each does again much of what the other did.  Here the workers
are processes forked from the master after it has made one
:class:`~solver.search.parallel.SharedTable`: every job's df-pn reads and writes that
one table (its arrays are views on the anonymous shared map), whichever worker runs it.

**Soundness** is :mod:`solver.search.parallel`'s: the table is not locked, so an entry
can tear; a job's value counts only when :func:`~solver.search.prove.prove_for` has
re-walked it down to finished games in the worker (each worker's re-walk set is its own),
and the numbers it reads only order the search (torn numbers that cannot belong together
are read as missing, as for parallel df-pn's workers).

Jobs go to the workers through one queue; each worker says which job it starts, so a
worker that dies fails its job (a :class:`RuntimeError` from the future's ``result``).
The workers ignore Ctrl-C (the master stops them) and end when the master is gone.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
from concurrent.futures import Future

from solver.search.parallel import SharedTable, can_fork

__all__ = ["SharedPool", "can_fork"]

_LOOK = 0.2  # seconds between a waiting worker's (and the collector's) looks around


def _serve(table: SharedTable, k: int, tasks, results, parent: int) -> None:
    """Worker ``k``: run the queue's jobs on the shared table until told to stop or the
    master ``parent`` is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    shared = (table.arrays, k, table.seen_mb)
    while os.getppid() == parent:
        try:
            item = tasks.get(timeout=_LOOK)
        except queue.Empty:
            continue
        if item is None:
            return
        jid, fn, args = item
        results.put(("start", k, jid, None))
        try:
            results.put(("done", k, jid, (True, fn(*args, shared=shared))))
        except Exception as e:  # the job's failure is the master's to report
            results.put(("done", k, jid, (False, f"{type(e).__name__}: {e}")))


class SharedPool:
    """``workers`` forked processes running job functions on one table of ``tt_mb`` MiB
    in shared memory; a job function gets ``shared=(arrays, worker, seen_mb)`` for
    :func:`~solver.search.dfpn.new_dfpn`.  ``submit`` returns a future; ``wake`` is set
    whenever a job finishes (:class:`~solver.jobs.workers.Pool`'s interface)."""

    in_process = False
    shares_table = True

    def __init__(self, workers: int, tt_mb: float):
        if not can_fork():
            raise ValueError("the shared backend forks its workers: this system cannot fork")
        self.table = SharedTable(tt_mb, workers)
        self.n = workers
        self.wake = threading.Event()
        ctx = multiprocessing.get_context("fork")
        self.tasks, self.results = ctx.Queue(), ctx.Queue()
        self.futures: dict[int, Future] = {}
        self.holding: dict[int, int] = {}  # worker -> the job it runs
        self.next_id = 0
        self.closed = False
        self.procs = [ctx.Process(target=_serve, args=(self.table, k, self.tasks, self.results, os.getpid()),
                                  daemon=True) for k in range(workers)]
        for p in self.procs:
            p.start()
        self.collector = threading.Thread(target=self._collect, name="meridians-shared-pool", daemon=True)
        self.collector.start()

    def submit(self, fn, *args) -> Future:
        fut: Future = Future()
        fut.add_done_callback(lambda _: self.wake.set())
        jid, self.next_id = self.next_id, self.next_id + 1
        self.futures[jid] = fut
        self.tasks.put((jid, fn, args))
        return fut

    def reset(self) -> None:
        """Empty the table (no job may be running): its entries are for one prover."""
        for a in self.table.arrays:
            a[...] = 0

    def _collect(self) -> None:
        while not self.closed:
            try:
                kind, k, jid, payload = self.results.get(timeout=_LOOK)
            except queue.Empty:
                for k, p in enumerate(self.procs):
                    if not p.is_alive() and k in self.holding and not self.closed:
                        self._finish(self.holding.pop(k), (False, f"RuntimeError: worker {k} ended "
                                                                  f"(exit code {p.exitcode})"))
                continue
            except (EOFError, OSError):
                return
            if kind == "start":
                self.holding[k] = jid
            else:
                self.holding.pop(k, None)
                self._finish(jid, payload)

    def _finish(self, jid: int, payload: tuple) -> None:
        fut = self.futures.pop(jid, None)
        if fut is None:
            return
        ok, value = payload
        if ok:
            fut.set_result(value)
        else:
            fut.set_exception(RuntimeError(value))

    def shutdown(self, abandon: bool) -> None:
        """Stop the workers: at once (``abandon``), else after their jobs."""
        if not abandon:
            for _ in self.procs:
                self.tasks.put(None)
            for p in self.procs:
                p.join(2.0)
        self.closed = True
        for p in self.procs:
            if p.is_alive():
                p.kill()
            p.join()
        self.collector.join()
        self.tasks.cancel_join_thread()  # jobs nobody will take: no wait for them at exit
        self.tasks.close()
        self.results.close()
