"""The one way a long run keeps what it finished, so that the same command resumes it.

A run's state file is a JSON object: ``format`` (what kind of file), the code and rules
versions that wrote it, the run's *identity* (the fields that say which run it is: a
solve's method and jobs, a match's players, board and seed, ...), the time it was saved
and what the run keeps (finished jobs, games, proofs, counts).  :class:`RunState` reads
it back only for the same run of the same code and rules, writes it atomically (a kill
leaves the last whole file, never half of one) and holds a lock, so that one run at a
time works on it.  What an entry is and how it is checked stays with each run: a solve's
checkpoint (:mod:`.checkpoint`), ``meridians match`` (:mod:`solver.app.match`), the puzzle
generator (:mod:`puzzles.generate`) and ``scripts/build_opening_db.py``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from solver import RULES_VERSION, __version__
from solver.util.errors import MeridiansError
from solver.util.files import ExclusiveLock, FileFormatError, FileLockedError, read_json, write_atomic

__all__ = ["StateError", "RunState"]


class StateError(MeridiansError):
    """A state file that cannot be read, is of another run, code or rules, or is in use;
    the message is one line naming the file and what to do."""


class RunState:
    """The state file ``path`` of one run (see the module docstring).

    ``format`` names the kind of file (``'meridians-match/1'``); ``identity`` holds the
    top-level fields a file must have, equal as JSON, for the run to resume it ({}: any
    run's file).  In messages the file is ``name`` (``'match state'``), the run that
    wrote another one ``run`` (``'match'``), and ``fix`` says what to do (``'remove it or
    give another --state'``).  ``lock`` is the lock file (default ``<path>.lock``),
    ``error`` the :class:`StateError` class raised; ``any_code``: a file written by
    another code version is read too (the rules version must still be this one's)."""

    def __init__(self, path: str | os.PathLike, format: str, identity: dict, *, name: str = "state file",
                 run: str = "run", fix: str = "remove it", lock: str | os.PathLike | None = None,
                 error: type[StateError] = StateError, any_code: bool = False):
        self.path = Path(path)
        self.format, self.identity = format, identity
        self.name, self.run, self.fix, self.error_type, self.any_code = name, run, fix, error, any_code
        self._lock = ExclusiveLock(str(self.path) + ".lock" if lock is None else lock,
                                   busy=f"{self.label} is in use: another {run} is writing it")
        self._saved_at = 0.0
        self._save_seconds = 0.0

    @property
    def label(self) -> str:
        return f"{self.name} {self.path}"

    def error(self, problem: str) -> StateError:
        """The error of a file whose content has ``problem``, naming the file and the fix."""
        return self.error_type(f"{self.label}: {problem}: {self.fix}")

    def acquire(self) -> RunState:
        """Take the lock, or raise the error at once when another run holds it or the
        lock file cannot be created."""
        try:
            self._lock.acquire()
        except FileLockedError as e:
            raise self.error_type(str(e)) from None
        except OSError as e:
            raise self.error_type(f"{self.label}: cannot create the lock file {self._lock.path}: "
                                  f"{e.strerror or e}") from None
        return self

    def release(self, remove: bool = False) -> None:
        """Let the lock go (its file is removed); ``remove``: the state file too (the run is over)."""
        if remove:
            self.path.unlink(missing_ok=True)
        self._lock.release()

    def __enter__(self) -> RunState:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    def load(self) -> dict | None:
        """The file's fields (None when there is no file), once its format, versions and
        identity are this run's; the error, naming the file, for anything else (not
        JSON, not a JSON object, NaN, nested too deeply, ...)."""
        if not os.path.lexists(self.path):
            return None
        try:
            data = read_json(self.path, self.name, dict)
        except FileFormatError as e:
            raise self.error(e.problem) from None
        if data.get("format") != self.format:
            raise self.error_type(f"{self.label} is not a meridians {self.name}: {self.fix}")
        for what, key, mine in (("code version", "version", __version__), ("rules version", "rules", RULES_VERSION)):
            if data.get(key) != mine and not (key == "version" and self.any_code and isinstance(data.get(key), str)):
                raise self.error_type(f"{self.label} was written with {what} {_short(data.get(key))}, not {mine}: "
                                      f"{self.fix}")
        differences = self.differences(data)
        if differences:
            raise self.error_type(f"{self.label} records another {self.run} ({', '.join(differences)}): {self.fix}")
        return data

    def differences(self, data: dict) -> list[str]:
        """Where the fields ``data`` holds differ from this run's identity, for a message
        (``seed 2``); empty when ``data`` is this run's."""
        return list(_differences({k: data.get(k) for k in self.identity}, self.identity))

    def load_entries(self, field: str, kind: type[list] | type[dict]) -> list | dict:
        """The finished entries the file keeps in ``field``, a JSON array (``list``) or
        object (``dict``): empty when there is no file, the error when ``field`` is not one."""
        data = self.load()
        entries = kind() if data is None else data.get(field)
        if not isinstance(entries, kind):
            raise self.error(f"{field!r} is not {'a list' if kind is list else 'an object'}")
        return entries

    def save(self, fields: dict, force: bool = True) -> None:
        """Write the header (format, versions, identity, time) and ``fields``, atomically
        (:func:`solver.util.files.write_atomic`).  Not ``force``: skipped while the time
        since the last write is under ten times what that write took, so a run that
        saves after every entry spends at most ~10% of its time rewriting the file."""
        now = time.monotonic()
        if not force and now - self._saved_at < 10 * self._save_seconds:
            return
        data = {"format": self.format, "version": __version__, "rules": RULES_VERSION, **self.identity,
                "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **fields}
        # one field a line, each value on one line: the header reads at a glance, and a
        # long list of entries costs no indentation
        text = ",\n".join(f" {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in data.items())
        write_atomic(self.path, "{\n" + text + "\n}\n")
        self._saved_at = time.monotonic()
        self._save_seconds = self._saved_at - now


def _same(a: object, b: object) -> bool:
    """Equal as JSON: ``true`` is not ``1``, nor ``1.0`` ``1``."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _differences(theirs: dict, mine: dict):
    """What ``theirs`` holds where it differs from ``mine``, for a message: ``seed 2``,
    ``other jobs`` (a list or object too long to show); an object is compared key by key."""
    for key, value in mine.items():
        other = theirs.get(key)
        if _same(other, value):
            continue
        if isinstance(other, dict) and isinstance(value, dict):
            yield from _differences(other, value)
        elif isinstance(other, (dict, list)):
            yield f"other {key}"
        else:
            yield f"{key} {_short(other)}"


def _short(value: object) -> str:
    """A value from the file, quoted and cut to fit in a one-line message."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
