"""The checkpoint of a run of jobs: a JSON file that gets every finished job at once.

A killed or interrupted run leaves its finished jobs in the file; the next run with the
same jobs, method and code reads them back and runs only the rest.  Beside the file, a
folder ``<checkpoint>.status`` holds a lock (one run per checkpoint at a time) and the
workers' status files, which the progress display reads.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from solver.search.values import Value
from .state import RunState, StateError

if TYPE_CHECKING:
    from solver.jobs.runner import Job, JobResult

__all__ = ["CHECKPOINT_FORMAT", "CheckpointError", "Checkpoint", "record_problem"]

CHECKPOINT_FORMAT = "meridians-jobs/1"
_VALUES = {v.value for v in Value}


#: the fields of a job's recorded result and their JSON types (``bool`` is no ``int``
#: here); ``value``, ``nodes`` and ``seconds`` are required, the others optional
_FIELDS: dict[str, type | tuple[type, ...]] = {
    "value": str, "nodes": int, "seconds": (int, float), "runs": int, "method": str,
    "line": list, "verified": bool, "horizon": int, "notes": list,
}
_REQUIRED = ("value", "nodes", "seconds")
_HINT = "remove it or give another --checkpoint"


class CheckpointError(StateError):
    """A checkpoint file that is corrupt, belongs to another solve, or is in use.  The
    message names the file."""


def job_list(jobs: Sequence[Job]) -> list[dict]:
    """The jobs as the checkpoint names them (a checkpoint of other jobs is refused)."""
    return [{"key": j.key, "position": j.position, "members": list(j.members)} for j in jobs]


class Checkpoint:
    """The checkpoint file: finished (and budget-exhausted) jobs, parameters, versions;
    a :class:`solver.jobs.state.RunState` whose identity is the method and the jobs."""

    def __init__(self, path: Path, jobs: Sequence[Job], method: str, params: dict):
        self.path = path
        self.jobs = jobs
        self.params = params
        self.status_dir = Path(str(path) + ".status")
        self._state = RunState(path, CHECKPOINT_FORMAT, {"method": method, "jobs": job_list(jobs)},
                               name="checkpoint", run="solve", fix=_HINT, lock=self.status_dir / "lock",
                               error=CheckpointError)

    def acquire(self) -> None:
        """Create the status folder and take the lock in it (its file ``lock``): one solve
        per checkpoint at a time.  :class:`CheckpointError` at once when another solve
        holds it."""
        self.status_dir.mkdir(parents=True, exist_ok=True)
        self._state.acquire()
        for p in self.status_dir.glob("job-*.json"):  # left by a killed run
            p.unlink(missing_ok=True)

    def release(self, remove: bool = False) -> None:
        if remove:
            shutil.rmtree(self.status_dir, ignore_errors=True)
        elif self.status_dir.exists():
            for p in self.status_dir.glob("job-*.json"):
                p.unlink(missing_ok=True)
        self._state.release(remove)  # removes the lock file too
        try:
            # (also after rmtree: on Windows the open lock file stayed until its release)
            self.status_dir.rmdir()
        except OSError:
            pass  # gone already, or another solve's status files are there: leave the folder to it

    def load(self) -> dict[str, dict]:
        """The recorded results of a matching checkpoint ({} when there is none), each
        checked field by field (see :func:`record_problem`).  Raises
        :class:`CheckpointError`, naming the file, for a file that :meth:`RunState.load
        <solver.jobs.state.RunState.load>` refuses (unreadable, not a checkpoint, of
        another solve, code or rules) or with a result of the wrong shape."""
        results = self._state.load_entries("results", dict)
        keys = {j.key for j in self.jobs}
        for key, record in results.items():
            if key not in keys:
                raise self._state.error(f"a result for {_short(key)}, which is not one of its jobs")
            problem = record_problem(record)
            if problem:
                raise self._state.error(f"job {key!r} {problem}")
        return results

    def save(self, results: dict[str, JobResult]) -> None:
        self._state.save({
            "params": self.params, "finished": sum(r.done for r in results.values()),
            "results": {k: r.record() for k, r in results.items() if r.runs or r.nodes},
        })


def record_problem(record: object) -> str | None:
    """What is wrong with one job's recorded result (None: nothing): not an object, a
    required field missing, a field of the wrong JSON type, an unknown value, a
    negative count, or a line or notes that are not lists of strings."""
    if not isinstance(record, dict):
        return "has a result that is not an object"
    for name in _REQUIRED:
        if name not in record:
            return f"has no {name!r}"
    for name, kind in _FIELDS.items():
        value = record.get(name)
        if value is None and name not in _REQUIRED:
            continue
        if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
            return f"has a malformed {name!r}"
        if name in ("line", "notes") and not all(isinstance(x, str) for x in value):
            return f"has a malformed {name!r}"
        if name in ("nodes", "seconds", "runs", "horizon") and value < 0:
            return f"has a negative {name!r}"
    if record["value"] not in _VALUES:
        return f"has the unknown value {_short(record['value'])}"
    return None


def _short(value: object) -> str:
    """A value from the file, quoted and cut to fit in a one-line message."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
