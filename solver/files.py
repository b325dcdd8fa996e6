"""Writing files safely: nothing already written is lost or left half-written."""

from __future__ import annotations

import os
import tempfile

__all__ = ["write_atomic"]


def write_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    """Write ``text`` (or bytes) to ``path`` through a temporary file in the same folder
    and a rename, so that an interrupted write never leaves half a file."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")
    try:
        with (os.fdopen(fd, "wb") if isinstance(text, bytes) else os.fdopen(fd, "w", encoding="utf-8")) as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass  # the temporary file is already gone; the original error matters
        raise
