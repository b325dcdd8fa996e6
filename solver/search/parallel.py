"""Parallel df-pn: worker processes search the same root with one table in shared memory.

``prove(position, jobs=N)`` (:func:`solver.search.prove.prove`) runs the df-pn of
:mod:`solver.search.dfpn` in ``N`` forked worker processes that all search the root of
the position, each with its own search path, and all read and write one transposition
table: the table arrays (``tt_key``, ``tt_pn``, ``tt_dn``, ``tt_move``, ``tt_work``)
are views on one anonymous shared memory map made before the fork.  What one worker
stores, the others use, so together they build one proof.

**Spreading the workers** (Kaneko, "Parallel depth first proof number search", AAAI
2010: virtual proof numbers).  Each worker marks the nodes on its search path in its own
row of a shared ``busy`` array (hashed by the node's key).  When a worker chooses a child,
the number it chooses by (``pn`` at an OR node, ``dn`` at an AND node) is one more for
every other worker whose path goes through that child (Kaneko's estimate of what their
work there will add), so where two children are about equally promising the second
worker takes the one nobody searches instead of following the first down the same path.
These virtual numbers only order the search: 0 and infinity are never changed.  (A
doubling instead of one more spread the workers further and cost more expansions:
5.5 M against 4.3-4.6 M on the three positions of ``scripts/bench_parallel.py``,
4.4 M sequentially.)

**Soundness.**  The workers do not lock the table: two writes to one slot at once can
leave a torn entry (the key of one node, the numbers or move of another), and a worker
can read an entry half written.  A torn entry can mislead the search, so a root that a
worker reports proven or disproven is not a result: the caller re-walks it in one
process (:func:`solver.search.dfpn.rewalk`, as for a sequential proof: the strategy is
walked down to finished games, every node re-expanded by the rules, every position the
table lacks searched again), and a result that does not survive the re-walk is not
reported (the value is ``'unknown'``, with a note).  A torn entry never crashes a
worker: a table move is only compared with the moves generated at the node, never used
as an index, and the table's numbers only choose which child to search.  Torn numbers
are also kept from stopping the search: an entry whose ``pn`` and ``dn`` cannot belong
together (a proof has ``dn`` infinite, a disproof ``pn``) is read as missing, and a root
search that ends neither proven nor disproven is started again (a few times in a row at
most: a sum of numbers can saturate, as it can sequentially).

**Budget and stopping.**  The workers' nodes are added up: with a node budget each
worker has its share, and the re-walk what is left; the wall clock is the caller's.  The
main process polls the workers every few hundredths of a second, passes their progress
on, and stops them (a flag in the shared memory, then a kill) when one of them has
decided the root, when the budget is spent, or on Ctrl-C.  The workers ignore Ctrl-C
(the main process stops them) and end by themselves when the main process is gone.  The
memory map has no name (nothing in ``/dev/shm``): it is freed when its last process ends,
however that happens, so nothing can be left behind.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import signal
import time
from typing import Callable

import numpy as np

from . import dfpn as F

__all__ = ["SharedTable", "search_root", "worker_stats", "can_fork", "BUSY_SLOTS"]

#: slots of each worker's row of the ``busy`` array (a collision only makes a worker
#: avoid a node that nobody is searching: it orders, never decides)
BUSY_SLOTS = 1 << 15
_POLL = 0.02  # seconds between the main process's looks at the workers
_CHUNK_SECONDS = 0.1  # a worker's chunk of expansions, between looks at the stop flag
_UNDECIDED_TRIES = 16  # root searches in a row ending undecided before a worker gives up
# control row of a worker: its stats (N_STATS), then these
_STATE, _PN, _DN, _TAINT = F.N_STATS, F.N_STATS + 1, F.N_STATS + 2, F.N_STATS + 3
_ROW = F.N_STATS + 4
RUNNING, DECIDED, SPENT = 0, 1, 2  # a worker's state


def can_fork() -> bool:
    """Whether this system can run parallel df-pn (it forks the workers)."""
    return "fork" in multiprocessing.get_all_start_methods()


def _align(n: int) -> int:
    return (n + 63) // 64 * 64


class SharedTable:
    """One df-pn table, its ``busy`` rows and the workers' control rows, in one memory
    map shared with the processes forked after it is made.  ``tt_mb`` is what a
    sequential :func:`~solver.search.dfpn.new_dfpn` would take for the table and its
    re-walk set together; the table has as many slots as that search's (so a table file
    saved by one is loaded by the other); the re-walk set is the main process's own."""

    def __init__(self, tt_mb: float, workers: int):
        seen_bytes = tt_mb / 5 * 2**20
        size = max(F.BUCKET, int((tt_mb * 2**20 - seen_bytes) // F.SLOT_BYTES) // F.BUCKET * F.BUCKET)
        self.seen_mb = tt_mb / 5
        layout = [(size, np.uint64), (size, np.uint32), (size, np.uint32), (size, np.int16),
                  (size, np.uint32), (workers * BUSY_SLOTS, np.int32), (workers * _ROW, np.int64),
                  (1, np.int64)]
        total = sum(_align(n * np.dtype(d).itemsize) for n, d in layout)
        try:
            # shared and anonymous: forked workers write the same pages; no name, so
            # nothing outlives the last process that maps it
            self._mm = mmap.mmap(-1, total, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
        except (OSError, OverflowError):
            raise MemoryError(f"cannot allocate a shared table of {total / 2**20:,.0f} MiB") from None
        arrays, at = [], 0
        for n, d in layout:
            arrays.append(np.frombuffer(self._mm, d, n, at))
            at += _align(n * np.dtype(d).itemsize)
        busy, control, stop = arrays[5:]
        self.arrays = (*arrays[:5], busy.reshape(workers, BUSY_SLOTS))
        self.control = control.reshape(workers, _ROW)
        self.stop = stop
        self.workers = workers


def _worker(t, table: SharedTable, k: int, prover: int, path: list, side: int, cap: int,
            parent: int, knowledge_budget: int = 0) -> None:
    """Worker ``k``: df-pn from the root in chunks, publishing its stats after each,
    until it decides the root, spends ``cap`` expansions (0: no cap), the stop flag is
    set or the main process ``parent`` is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process stops us
    D = F.new_dfpn(t, prover, 0.01, shared=table.arrays, worker=k, knowledge_budget=knowledge_budget)
    row = table.control[k]
    size = 5_000
    undecided = 0  # root searches in a row that ended with the root not solved
    while not table.stop[0] and os.getppid() == parent:
        done = int(D.stats[F.EXPANSIONS])
        n = size if not cap else min(size, cap - done)
        if n <= 0:
            row[_STATE] = SPENT
            return
        D.limits[F.MAX_EXPANSIONS] = done + n
        D.stats[F.ABORTED] = 0
        D.busy[k, :] = 0  # an aborted chunk leaves its path marked
        t0 = time.perf_counter()
        pn, dn, tainted = F.mid(t, D, F.load_root(D, t, path), side, F.INF - 1, F.INF - 1)
        took = max(time.perf_counter() - t0, 1e-4)
        row[:F.N_STATS] = D.stats
        if not D.stats[F.ABORTED]:
            # a root that is neither proven nor disproven reached its threshold through
            # numbers read half written (or a sum that saturated, as it can sequentially):
            # searched again, unless that keeps happening
            undecided = 0 if (pn == 0 or dn == 0) else undecided + 1
            if undecided == 0 or undecided >= _UNDECIDED_TRIES:
                row[_PN], row[_DN], row[_TAINT] = pn, dn, int(tainted)
                row[_STATE] = DECIDED
                return
        size = int(min(2_000_000, max(1_000, n / took * _CHUNK_SECONDS)))


def search_root(t, table: SharedTable, path: list, side: int, prover: int, *, workers: int,
                nodes: int = 0, out: Callable[[int], bool], knowledge_budget: int = 0) -> tuple[int, int, bool] | None:
    """Search the root (the last position of ``path``, ``side`` to move) for ``prover``
    with ``workers`` forked processes on ``table`` until one of them decides it (or its
    numbers reach the root's threshold), the ``nodes`` budget (0: none, shared out among
    the workers) is spent, or ``out(spent)`` (called every poll with the nodes spent so
    far) says the caller's budget is.  Returns ``(pn, dn, tainted)``, or None when the
    budget ran out.  Every worker has ended when it returns, whatever happens (Ctrl-C
    too); :func:`worker_stats` then has what they did."""
    ctx = multiprocessing.get_context("fork")
    table.stop[0] = 0
    table.control[:] = 0
    table.arrays[5][:] = 0
    cap = 0 if not nodes else max(1, nodes // workers)
    procs = [ctx.Process(target=_worker, args=(t, table, k, prover, path, side, cap, os.getpid(), knowledge_budget),
                         daemon=True) for k in range(workers)]
    result = None
    try:
        for p in procs:
            p.start()
        while True:
            # who is alive before what they wrote: a worker writes its state, then ends
            alive = any(p.is_alive() for p in procs)
            spent = int(table.control[:, F.EXPANSIONS].sum())
            state = table.control[:, _STATE]
            decided = np.flatnonzero(state == DECIDED)
            if len(decided):
                row = table.control[decided[0]]
                result = (int(row[_PN]), int(row[_DN]), bool(row[_TAINT]))
                break
            if (state == SPENT).all() or out(spent):
                break
            if not alive:
                raise RuntimeError("the df-pn worker processes ended without a result")
            time.sleep(_POLL)
    finally:
        _stop(table, procs)
    return result


def worker_stats(table: SharedTable) -> np.ndarray:
    """The stats of the last :func:`search_root`'s workers (as of their last chunk),
    added up (the deepest ply: the deepest of all)."""
    stats = table.control[:, :F.N_STATS].sum(axis=0)
    stats[F.DEEPEST] = table.control[:, F.DEEPEST].max()
    return stats


def _stop(table: SharedTable, procs: list) -> None:
    """End every started worker: the flag (each looks at it between chunks of about
    :data:`_CHUNK_SECONDS`), then a kill for any that has not ended within a second."""
    table.stop[0] = 1
    deadline = time.monotonic() + 1.0
    for p in procs:
        if p.pid is None:
            continue  # never started
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join()
