"""Writing files safely: nothing already written is lost or left half-written, also when
a long run is stopped."""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Iterable

__all__ = ["write_atomic", "write_atomic_chunks", "claim", "interrupt_on_sigterm"]


def write_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    """Write ``text`` (or bytes) to ``path`` through a temporary file in the same folder
    and a rename, so that an interrupted write never leaves half a file."""
    write_atomic_chunks(path, [text if isinstance(text, bytes) else text.encode("utf-8")])


def write_atomic_chunks(path: str | os.PathLike, chunks: Iterable[bytes]) -> None:
    """:func:`write_atomic` of the bytes ``chunks`` yields, written as they come: a file
    too large to hold in memory at once."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass  # the temporary file is already gone; the original error matters
        raise


def claim(lock: str | os.PathLike) -> bool:
    """Claim the work that ``lock`` (a file holding a process id) stands for: False if
    another live process holds it; else write this process's id there and return True.
    The caller removes the file when done; a file left by a process that died is taken
    over."""
    try:
        with open(lock, encoding="utf-8") as f:
            pid = int(f.read())
        os.kill(pid, 0)
        if pid != os.getpid():
            return False
    except (OSError, ValueError):
        pass  # no lock, or its process is gone: take it
    write_atomic(lock, str(os.getpid()))
    return True


def interrupt_on_sigterm() -> None:
    """Make SIGTERM raise KeyboardInterrupt in the main thread, so that a kill stops a long
    run as Ctrl-C does: it saves what it computed. (A run started in the background with
    ``&`` ignores Ctrl-C, so a kill is the only way to stop it.)"""
    signal.signal(signal.SIGTERM, _raise_interrupt)


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt
