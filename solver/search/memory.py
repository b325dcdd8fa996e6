"""Transposition tables whose cost follows their use.

A table is allocated all zeros (an empty slot is zero bits in every search) as anonymous
memory that the system maps one 4 KiB page at a time, on the first write: a proof of a
few hundred nodes touches a few hundred pages whether the table has 16 MiB or 16 GiB.
numpy's own big arrays ask the system for 2 MiB "huge" pages, each cleared whole on its
first write, so a short search that writes a few hundred scattered slots would clear most
of the table.  A long search wants those huge pages back (fewer address-translation
misses): :func:`prefer_huge_pages` asks for them once it has run a while.
"""

from __future__ import annotations

import mmap

import numpy as np

__all__ = ["zeroed", "prefer_huge_pages"]

_SMALL = 1 << 22  # below 4 MiB numpy's zeros are as good (and it asks no huge pages)


def zeroed(size: int, dtype) -> np.ndarray:
    """A 1-D array of ``size`` zeros of ``dtype`` whose pages are mapped as they are
    first written (small pages; on a system without anonymous maps, ``np.zeros``).
    Raises MemoryError when the system refuses that much memory."""
    nbytes = int(size) * np.dtype(dtype).itemsize
    flags = getattr(mmap, "MAP_PRIVATE", None), getattr(mmap, "MAP_ANONYMOUS", None)
    if nbytes < _SMALL or None in flags:
        return np.zeros(size, dtype)
    try:
        # private: a forked worker's writes stay its own
        mm = mmap.mmap(-1, nbytes, flags=flags[0] | flags[1])
    except (OSError, OverflowError):
        # as np.zeros would say it, so that callers catch one error
        raise MemoryError(f"cannot allocate a table of {nbytes / 2**20:,.0f} MiB") from None
    _advise(mm, "MADV_NOHUGEPAGE")  # also where the system gives huge pages unasked
    return np.frombuffer(mm, dtype)


def prefer_huge_pages(*arrays: np.ndarray) -> None:
    """Ask for huge pages for the rest of these :func:`zeroed` arrays (pages already
    mapped stay as they are): for a search that has run long enough to fill its table."""
    for a in arrays:
        base = a
        while base is not None and not isinstance(base, mmap.mmap):
            # an array's base, a buffer's exporter
            base = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)
        if base is not None:
            _advise(base, "MADV_HUGEPAGE")


def _advise(mm: mmap.mmap, name: str) -> None:
    advice = getattr(mmap, name, None)
    if advice is not None and hasattr(mm, "madvise"):
        try:
            mm.madvise(advice)
        except OSError:
            pass  # a kernel without transparent huge pages: nothing to ask
