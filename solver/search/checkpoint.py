"""The checkpoint of a run of jobs: a JSON file that gets every finished job at once.

A killed or interrupted run leaves its finished jobs in the file; the next run with the
same jobs, method and code reads them back and runs only the rest.  Beside the file, a
folder ``<checkpoint>.status`` holds a lock (one run per checkpoint at a time) and the
workers' status files, which the progress display reads.
"""

from __future__ import annotations

import errno
import json
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .. import RULES_VERSION, __version__
from ..files import write_atomic
from .values import Value

if TYPE_CHECKING:
    from .jobs import Job, JobResult

__all__ = ["CHECKPOINT_FORMAT", "CheckpointError", "Checkpoint"]

CHECKPOINT_FORMAT = "meridians-jobs/1"
_VALUES = {v.value for v in Value}


class CheckpointError(ValueError):
    """A checkpoint file that is corrupt, belongs to another solve, or is in use."""


def job_list(jobs: Sequence[Job]) -> list[dict]:
    """The jobs as the checkpoint names them (a checkpoint of other jobs is refused)."""
    return [{"key": j.key, "position": j.position, "members": list(j.members)} for j in jobs]


class Checkpoint:
    """The checkpoint file: finished (and budget-exhausted) jobs, parameters, versions."""

    def __init__(self, path: Path, jobs: Sequence[Job], method: str, params: dict):
        self.path = path
        self.jobs = jobs
        self.method = method
        self.params = params
        self.status_dir = Path(str(path) + ".status")
        self._lock_file = None

    def acquire(self) -> None:
        """Create the status folder and lock it: one solve per checkpoint at a time."""
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.status_dir.mkdir(exist_ok=True)
        f = open(self.status_dir / "lock", "a+")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            f.close()
            if e.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise CheckpointError(f"checkpoint {self.path} is in use by another solve") from None
            raise
        self._lock_file = f
        for p in self.status_dir.glob("job-*.json"):  # left by a killed run
            p.unlink(missing_ok=True)

    def release(self, remove: bool = False) -> None:
        if remove:
            shutil.rmtree(self.status_dir, ignore_errors=True)
            self.path.unlink(missing_ok=True)
        elif self.status_dir.exists():
            for p in self.status_dir.glob("job-*.json"):
                p.unlink(missing_ok=True)
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None
        if not remove:
            try:
                (self.status_dir / "lock").unlink(missing_ok=True)
                self.status_dir.rmdir()
            except OSError:
                pass  # another solve's status files are still there: leave the folder to it

    def load(self) -> dict[str, dict]:
        """The recorded results of a matching checkpoint ({} when there is none)."""
        if not self.path.exists():
            return {}
        bad = f"checkpoint {self.path}"
        hint = "remove it or give another --checkpoint"
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as e:
            raise CheckpointError(f"{bad} cannot be read ({e}): {hint}") from None
        except json.JSONDecodeError as e:
            raise CheckpointError(f"{bad} is not valid JSON ({e}): {hint}") from None
        if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
            raise CheckpointError(f"{bad} is not a meridians checkpoint: {hint}")
        for what, mine in (("code version", __version__), ("rules version", RULES_VERSION),
                           ("method", self.method)):
            theirs = data.get({"code version": "version", "rules version": "rules"}.get(what, what))
            if theirs != mine:
                raise CheckpointError(f"{bad} was written with {what} {theirs}, not {mine}: {hint}")
        if data.get("jobs") != job_list(self.jobs):
            raise CheckpointError(f"{bad} belongs to another position or variant: {hint}")
        results = data.get("results")
        keys = {j.key for j in self.jobs}
        if not isinstance(results, dict) or not set(results) <= keys:
            raise CheckpointError(f"{bad} has malformed results: {hint}")
        for key, r in results.items():
            if (not isinstance(r, dict) or r.get("value") not in _VALUES
                    or not isinstance(r.get("nodes"), int) or not isinstance(r.get("seconds"), (int, float))):
                raise CheckpointError(f"{bad} has a malformed result for job {key}: {hint}")
        return results

    def save(self, results: dict[str, JobResult]) -> None:
        data = {
            "format": CHECKPOINT_FORMAT, "version": __version__, "rules": RULES_VERSION,
            "method": self.method, "params": self.params,
            "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "finished": sum(r.done for r in results.values()),
            "jobs": job_list(self.jobs),
            "results": {k: r.record() for k, r in results.items() if r.runs or r.nodes},
        }
        write_atomic(self.path, json.dumps(data, indent=1) + "\n")
