"""How job-level proof search would scale past this machine: a discrete-event simulation
of the master and ``W`` workers, driven by the jobs of a real run.

The inputs are a run's per-job records (:func:`solver.jobs.jlpns.jlpns` with
``trace=True``): each job's search time on its worker, the master's time for it
(choosing it, sending it, applying its answer, saving the tree) and the pickled sizes of
what goes each way.  The simulation replays jobs drawn from those records (seeded) on:

- one master, a single server that handles one answer at a time and then sends the
  freed worker its next job (a job's master time is charged once, when its answer is
  applied; the first ``W`` jobs are charged when they are sent);
- one network link at the master, which carries every job and answer in turn
  (``bandwidth`` bytes a second, and ``latency`` seconds each way);
- ``W`` workers, each running one job at a time for the job's recorded search time.

What it measures is the *machinery*: how much of the workers' time goes into searching,
and whether the master or its link saturates.  It does not model the *search overhead*
(a wider tree of jobs, work duplicated across workers' tables), which only a real run
with that many workers shows: the caller reports the measured one beside it.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

__all__ = ["Network", "simulate", "FIELDS"]

#: what each job record must hold
FIELDS = ("worker_seconds", "master_seconds", "sent_bytes", "returned_bytes")


@dataclass(frozen=True)
class Network:
    """The master's link: ``bandwidth`` in bytes a second, ``latency`` in seconds each way."""

    bandwidth: float = 125e6  # 1 Gbit/s
    latency: float = 0.0005


def simulate(trace: list[dict], workers: int, *, jobs: int | None = None,
             network: Network = Network(), seed: int = 0) -> dict:
    """Replay ``jobs`` jobs (None: ``max(len(trace), 50 * workers)``) drawn from
    ``trace`` on ``workers`` workers; return the makespan, the speed-up (the jobs'
    search time over the makespan), the efficiency (speed-up over ``workers``) and the
    master's and link's busy shares.  Raises ValueError for an empty or malformed trace."""
    if not trace:
        raise ValueError("an empty trace: run jlpns(..., trace=True) for one")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number of at least 1, not {workers!r}")
    try:
        cols = {f: np.array([float(r[f]) for r in trace]) for f in FIELDS}
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"a malformed job record ({e!r}): each needs {', '.join(FIELDS)}") from None
    if any((c < 0).any() for c in cols.values()):
        raise ValueError("a job record with a negative cost")
    n = jobs if jobs is not None else max(len(trace), 50 * workers)
    rng = np.random.default_rng(seed)
    pick = rng.permutation(len(trace)) if n == len(trace) else rng.integers(0, len(trace), n)
    work, master, sent, back = (cols[f][pick] for f in FIELDS)

    events: list[tuple[float, int, str, int]] = []
    link_free = master_free = 0.0
    link_busy = 0.0
    seq = 0

    def carry(t: float, size: float) -> float:
        """When ``size`` bytes put on the link at ``t`` arrive."""
        nonlocal link_free, link_busy
        start = max(t, link_free)
        link_free = start + size / network.bandwidth
        link_busy += size / network.bandwidth
        return link_free + network.latency

    def dispatch(t: float, j: int) -> None:
        nonlocal seq
        seq += 1
        heapq.heappush(events, (carry(t, sent[j]) + work[j], seq, "searched", j))

    nxt = 0
    for _ in range(min(workers, n)):
        master_free += master[nxt]
        dispatch(master_free, nxt)
        nxt += 1
    end = 0.0
    while events:
        t, _, kind, j = heapq.heappop(events)
        if kind == "searched":
            seq += 1
            heapq.heappush(events, (carry(t, back[j]), seq, "returned", j))
            continue
        master_free = max(t, master_free) + master[j]
        end = master_free
        if nxt < n:
            dispatch(master_free, nxt)
            nxt += 1
    speedup = float(work.sum()) / end if end > 0 else float(workers)
    return {
        "workers": workers, "jobs": n, "makespan": round(end, 3),
        "speedup": round(speedup, 3), "efficiency": round(speedup / workers, 4),
        "master_busy": round(float(master.sum()) / end, 4) if end > 0 else 0.0,
        "link_busy": round(link_busy / end, 4) if end > 0 else 0.0,
    }
