"""Jobs: positions solved independently, in parallel, within one time budget, resumable.

A *job* is one position to solve with :func:`solver.search.prove.prove`.
:func:`run_jobs` runs jobs in worker processes (joblib's loky executor) or on a Dask
cluster (:mod:`.workers`), splits a wall-time budget fairly among them, shows progress
(:mod:`.progress`), and writes each finished job to a checkpoint file at once
(:mod:`.checkpoint`), so that a killed or interrupted run resumes without redoing
finished jobs.  The jobs of an opening (one per class of first moves, or of pie pairs)
and the solve of a whole position are in :mod:`solver.app.openings`.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence, TextIO

from solver.util.errors import Interrupted, MeridiansError
from .checkpoint import Checkpoint, CheckpointError
from solver.search.limit import Limit, check_limit
from .progress import Progress, progress_mode
from solver.search.methods import DEFAULT_METHOD
from solver.search.values import Value
from .workers import BACKENDS, Pool, run_job

__all__ = [
    "Job", "JobResult", "shown_value", "JobsRun", "CheckpointError", "JobError",
    "run_jobs", "DEFAULT_METHOD", "BACKENDS",
]

#: a value for the player to move in a pie job (Light) -> the winning colour
_WINNER = {Value.WIN: "L", Value.LOSS: "D", Value.DRAW: "draw", Value.UNKNOWN: "unknown"}


# -- errors ------------------------------------------------------------------------------

class JobError(MeridiansError, RuntimeError):
    """A job failed in its worker (the message names the job and the error)."""


# -- jobs --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    """One position to solve: ``position`` (notation) stands for every member of the
    class (first moves such as ``'c1'``, or pie pairs ``'c1-d2'``: Light point, Dark
    point); ``key`` is the first member."""

    key: str
    position: str
    members: tuple[str, ...]
    view: str = "position"  # how to show its value: see :func:`shown_value`


def shown_value(view: str, value: str) -> str:
    """A job's value as its class is reported: ``'move'`` for the player who made the
    move (the negation), ``'pie'`` the winning colour (``'L'``, ``'D'``, ``'draw'``,
    ``'unknown'``), ``'position'`` for the player to move in the job's position."""
    if view == "move":
        return Value(value).negated().value
    if view == "pie":
        return _WINNER[Value(value)]
    return value



@dataclass
class JobResult:
    """What a job found.  ``value`` is for the player to move in the job's position.
    ``nodes``, ``seconds`` and ``runs`` add up every run of the job (an unknown job is
    run again, with a new budget, when a solve resumes)."""

    key: str
    position: str
    members: tuple[str, ...]
    value: str = "unknown"
    nodes: int = 0
    seconds: float = 0.0
    runs: int = 0
    method: str = ""
    line: list[str] = field(default_factory=list)
    verified: bool = False
    horizon: int = 0
    notes: list[str] = field(default_factory=list)
    resumed: bool = False     # read from the checkpoint, not run now
    view: str = "position"

    @property
    def shown(self) -> str:
        """The value as the class is reported (see :func:`shown_value`)."""
        return shown_value(self.view, self.value)

    @property
    def done(self) -> bool:
        """Decided (win, loss or draw): never run again."""
        return self.value != "unknown"

    def record(self) -> dict:
        """The checkpoint entry."""
        return {
            "value": self.value, "nodes": self.nodes, "seconds": round(self.seconds, 4),
            "runs": self.runs, "method": self.method, "line": self.line,
            "verified": self.verified, "horizon": self.horizon, "notes": self.notes,
        }


# -- running -----------------------------------------------------------------------------
@dataclass
class JobsRun:
    """The results of :func:`run_jobs`, in job order."""

    results: list[JobResult]
    wall_seconds: float
    resumed: int
    checkpoint: Path | None


def _merge(old: JobResult, proof: dict) -> JobResult:
    """Add one run's proof (its ``Result.as_dict()``) to a job's record."""
    old.value = proof.get("value", "unknown")
    old.nodes += int(proof.get("nodes", 0))
    old.seconds += float(proof.get("seconds", 0.0))
    old.runs += 1
    old.method = proof.get("method", old.method)
    old.line = list(proof.get("line") or [])
    old.verified = bool(proof.get("verified", False))
    old.horizon = max(old.horizon, int(proof.get("horizon") or 0))
    old.notes = list(proof.get("notes") or [])
    return old


def run_jobs(
    jobs: Sequence[Job],
    *,
    method: str = DEFAULT_METHOD,
    limit: Limit | None = None,
    jobs_n: int | None = 1,
    checkpoint: str | os.PathLike | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    progress_ui: bool | str = True,
    params: dict | None = None,
    stream: TextIO | None = None,
    chunk_nodes: int | None = None,
) -> JobsRun:
    """Run ``jobs`` and return their results (in job order).

    ``limit`` (a :class:`~solver.search.limit.Limit`; None: no bound) is the budget.  Its
    ``seconds`` is a wall-time budget for the whole run: each job, when it starts, gets
    the time left times the number of workers divided by the number of jobs not yet
    started (at most the time left), so that every job gets its share; a job that runs
    out reports ``'unknown'`` with its effort.  Its ``nodes`` bound each job's nodes
    (0: no bound), its ``tt_mb`` is each job's table (None: :func:`prove`'s default).
    ``jobs_n`` jobs run at once: in this process when it is 1, else in
    loky worker processes; with ``backend='dask'`` on the cluster at ``scheduler``
    (default: as many as the cluster has threads).

    ``checkpoint``: a JSON file that gets every finished job at once (atomically); a
    matching checkpoint's decided jobs are taken as they are (``resumed``), its unknown
    jobs are run again and their effort added up.  ``progress_ui``: ``True`` a live table
    on a terminal, else a line per finished job; ``False`` nothing.  ``chunk_nodes``
    (default: :func:`prove`'s) bounds the nodes between two looks at the clock.

    Raises :class:`CheckpointError` (a corrupt, mismatched or busy checkpoint),
    :class:`JobError` (a job failed) and :class:`~solver.util.errors.Interrupted` (Ctrl-C:
    workers stopped, checkpoint kept: its ``path``).
    """
    stream = stream or sys.stderr
    limit = check_limit(limit)
    seconds = limit.seconds
    keys = [j.key for j in jobs]
    if len(set(keys)) != len(keys):
        raise ValueError("two jobs with the same key")
    results = {j.key: JobResult(j.key, j.position, j.members, method=method, view=j.view) for j in jobs}
    ck = None
    resumed = 0
    if checkpoint is not None:
        # read before the kernels load: a bad checkpoint is refused at once
        ck = Checkpoint(Path(checkpoint), jobs, method, dict(params or {}, method=method))
        ck.acquire()
    try:
        if ck is not None:
            resumed = _resume(ck, results)
        if jobs and backend != "dask":
            # compile (or load) the kernels here, once, before the clock of ``seconds``
            # starts: a cold compile takes tens of seconds that no class's share pays
            # for, and loky workers then load them from the cache
            from solver.rules.position import Position
            from solver.search.prove import load_kernels

            load_kernels(Position.parse(jobs[0].position).board, method)  # a job's position is notation
        t_start = time.time()
        pool = Pool(backend, jobs_n, scheduler)
    except BaseException:
        if ck is not None:
            ck.release()
        raise
    token = uuid.uuid4().hex[:12]
    deadline = None if seconds is None else t_start + seconds
    status_dir = str(ck.status_dir) if (ck is not None and not pool.in_process) else None
    ui = Progress(progress_mode(progress_ui, stream), jobs,
                   stream, Path(status_dir) if status_dir else None, token, deadline)
    abandon = True
    try:
        if resumed:
            ui.resumed = resumed
            ui.message(f"meridians: resumed {resumed} finished jobs of {len(jobs)} from {ck.path}")
        pending = [(i, j) for i, j in enumerate(jobs) if not results[j.key].done]
        ui.start()
        _schedule(pool, pending, results, ui, ck, method=method, limit=limit,
                  deadline=deadline, status_dir=status_dir, token=token, chunk_nodes=chunk_nodes)
        abandon = False
    except KeyboardInterrupt:
        # the running jobs' effort so far is kept as unknown results
        if ck is not None:
            ui.poll()  # the workers' last status files
            with ui.lock:
                for key, st in ui.running.items():
                    if st["nodes"]:
                        _merge(results[key], {"value": "unknown", "nodes": st["nodes"],
                                              "seconds": st["seconds"], "method": method,
                                              "notes": ["interrupted"]})
            ck.save(results)
        # as the progress counts them: every job that ended in this run, decided or out of
        # budget, and the decided ones resumed (not only the decided ones)
        finished = len(ui.finished) + resumed
        where = f"; run the same command to resume from {ck.path}" if ck else ""
        raise Interrupted(f"interrupted with {finished} of {len(jobs)} jobs finished{where}",
                          ck.path if ck else None, finished, len(jobs)) from None
    finally:
        ui.close()
        pool.shutdown(abandon)
        if ck is not None:
            ck.release()
    out = [results[j.key] for j in jobs]
    return JobsRun(out, time.time() - t_start, resumed, ck.path if ck else None)


def _resume(ck: Checkpoint, results: dict[str, JobResult]) -> int:
    """Fill ``results`` from the checkpoint (its records checked by
    :meth:`Checkpoint.load`); the number of decided jobs read."""
    resumed = 0
    for key, rec in ck.load().items():
        r = results[key]
        r.value, r.nodes, r.seconds = rec["value"], rec["nodes"], float(rec["seconds"])
        r.runs = 1 if rec.get("runs") is None else rec["runs"]
        r.line = list(rec.get("line") or [])
        r.verified = bool(rec.get("verified"))
        r.horizon = rec.get("horizon") or 0
        r.notes = list(rec.get("notes") or [])
        if r.done:
            r.resumed = True
            resumed += 1
    return resumed


def _schedule(pool: Pool, pending, results, ui: Progress, ck: Checkpoint | None, *,
              method, limit, deadline, status_dir, token, chunk_nodes) -> None:
    """Start jobs as workers come free, each with its share of the time left; record each
    finished job in the checkpoint at once."""
    queue = list(pending)
    running: dict[Any, Job] = {}
    ends: dict[Any, float] = {}  # when each running job's share runs out

    def share() -> float | None:
        # the workers' time left, less what the running jobs still have, split evenly
        # among the jobs not yet started (this one included)
        if deadline is None:
            return None
        now = time.time()
        left = deadline - now
        committed = sum(max(0.0, end - now) for end in ends.values())
        return max(0.0, min(left, (left * pool.n - committed) / max(1, len(queue))))

    def finish(job: Job, proof: dict) -> None:
        if proof.get("stopped"):
            raise JobError(f"job {job.key} was stopped by its worker")
        r = _merge(results[job.key], proof)
        if ck is not None:
            ck.save(results)
        ui.end(r, {"nodes": int(proof.get("nodes", 0)), "seconds": float(proof.get("seconds", 0.0))})

    common = {"method": method, "deadline": deadline, "limit": limit,
              "token": token, "chunk_nodes": chunk_nodes}
    if pool.in_process:
        while queue:
            budget = share()
            i, job = queue[0]
            queue.pop(0)
            ui.begin(job)
            try:
                proof = run_job(job, i, seconds=budget, status_dir=None,
                                 report=lambda info, k=job.key: ui.update(k, info), **common)
            except Exception as e:
                raise JobError(f"job {job.key} failed: {type(e).__name__}: {e}") from e
            finish(job, proof)
        return

    while queue or running:
        while queue and len(running) < pool.n:
            budget = share()
            i, job = queue.pop(0)
            ui.begin(job)
            fut = pool.submit(run_job, job, i, seconds=budget, status_dir=status_dir, **common)
            running[fut] = job
            if budget is not None:
                ends[fut] = time.time() + budget
        pool.wake.wait(0.5)
        pool.wake.clear()
        for fut in [f for f in running if f.done()]:
            job = running.pop(fut)
            ends.pop(fut, None)
            try:
                proof = fut.result()
            except Exception as e:  # a crash in the worker
                raise JobError(f"job {job.key} failed: {type(e).__name__}: {e}") from e
            finish(job, proof)

