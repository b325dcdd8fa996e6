"""The two exceptions every other one of the project stands on.

:class:`MeridiansError` is the base of every error a user of the packages ``solver`` and
``puzzles`` can cause: a board name, a position, a move, a file, an option that is not
one.  Each module raises its own typed subclass (``BoardError``, ``IllegalMoveError``,
``FileFormatError``, ...), so ``except MeridiansError`` catches them all and
``except IllegalMoveError`` one kind; the CLIs turn any of them into one line on stderr
and exit code 2.  It is a ``ValueError``, as every one of them was before it existed, so
code that catches ``ValueError`` still catches them.

:class:`Interrupted` is the one exception of a long run stopped by Ctrl-C or SIGTERM
(a match, ``meridians solve``'s jobs, a measurement, a proof of opening classes) after
what it finished was saved; the CLIs exit 130 on it.

This module is in the rules layer, the lowest: it imports nothing of the project, so
that every layer (the reference rules and the certificate checker too, which run
without numba) may import it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["MeridiansError", "Interrupted", "WORKER_STOPPED"]

#: what a run with worker processes says when one was killed from outside (``kill -9``, out of
#: memory): loky reports it as a ``BrokenProcessPool``
WORKER_STOPPED = "a worker process was stopped from outside (killed, or out of memory)"


class MeridiansError(ValueError):
    """Any error the user of this package can cause; its message is one line."""


class Interrupted(Exception):
    """A run stopped by Ctrl-C or SIGTERM, carrying what was done: the message says what
    was kept and how to go on; ``path`` is the file that holds the finished part (None:
    none was kept, or the message names it), ``finished`` of ``total`` the units done
    (games, jobs; None when the run does not count them).

    Not a :class:`MeridiansError`: nothing the user gave was wrong, and a caller that
    turns bad input into exit code 2 (``except ValueError``) must not take a stopped run
    for one; the CLIs exit 130 on it, as on a Ctrl-C anywhere else.
    """

    def __init__(self, message: str, path: Path | None = None, finished: int | None = None,
                 total: int | None = None):
        super().__init__(message)
        self.path, self.finished, self.total = path, finished, total

    def __reduce__(self):  # pickled (from a worker process), it keeps what it carries
        return type(self), (str(self), self.path, self.finished, self.total)
