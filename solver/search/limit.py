"""The budget of a search: wall time, nodes and table size, checked before any work starts.

A :class:`Limit` is valid once it exists: its constructor refuses NaN, infinities,
negative or absurd values, and a table that cannot fit in the memory this machine has
available, with a :class:`LimitError` naming the command-line option, so that a bad
value fails at once in one line instead of late (a ``MemoryError`` after minutes, a
search that never stops, every class silently ``unknown``).

>>> Limit(seconds=2.5, tt_mb=16)
Limit(seconds=2.5, nodes=0, tt_mb=16.0, playouts=None)
>>> try:
...     Limit(seconds=float("nan"))
... except LimitError as e:
...     print(e)
--time nan: give a number of seconds greater than 0 (and at most 2592000)
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from solver.util.errors import MeridiansError

__all__ = ["Limit", "LimitError", "MAX_SECONDS", "MAX_NODES", "MIN_TT_MB", "check_seconds",
           "check_nodes", "check_tt_mb", "check_playouts", "check_limit", "available_memory_mb", "MAX_PLAYOUTS",
           "MAX_CAPTURE_N"]

#: the longest budget accepted: 30 days (the longest 3/4 class took 1.3 hours)
MAX_SECONDS = 30 * 24 * 3600
#: the most nodes accepted: what the compiled searches count in 64-bit integers, with room
MAX_NODES = 2**62
#: the most engine playouts accepted
MAX_PLAYOUTS = 10**12
#: the smallest table accepted, about one KiB (a few buckets of the table)
MIN_TT_MB = 0.001
#: the most X-moves a capture search takes (solver.search.capture.MAX_N): here, where the
#: command line can read it without loading the compiled searches
MAX_CAPTURE_N = 8


class LimitError(MeridiansError):
    """A budget value that is not a finite number in its range; the message starts with
    the option (``--time``, ``--max-nodes``, ``--tt-mb``, or the one given)."""


def _number(value: object, option: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LimitError(f"{option} {value!r}: give a number")
    try:
        return float(value)
    except OverflowError:  # an int beyond any float
        raise LimitError(f"{option}: the number is far too large") from None


def check_seconds(value: float | None, option: str = "--time", maximum: float = MAX_SECONDS) -> float | None:
    """``value`` (None: no time limit) as a float in ``(0, maximum]``; else LimitError."""
    if value is None:
        return None
    x = _number(value, option)
    if not (math.isfinite(x) and 0 < x <= maximum):
        raise LimitError(f"{option} {_shown(x)}: give a number of seconds greater than 0 "
                         f"(and at most {maximum:.0f})")
    return x


def check_nodes(value: int, option: str = "--max-nodes") -> int:
    """``value`` (0: no node limit) as an int in ``[0, MAX_NODES]``; else LimitError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise LimitError(f"{option} {value!r}: give a whole number of nodes (0: no limit)")
    if not 0 <= value <= MAX_NODES:
        shown = str(value) if len(str(abs(value))) <= 30 else f"of {len(str(abs(value)))} digits"
        raise LimitError(f"{option} {shown}: give a whole number of nodes from 0 (no limit) to 2**62")
    return value


def check_playouts(value: int | None, option: str = "--playouts") -> int | None:
    """``value`` (None: no playout limit) as an int in ``[1, MAX_PLAYOUTS]``; else LimitError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PLAYOUTS:
        shown = repr(value) if len(repr(value)) <= 30 else f"of {len(repr(value))} characters"
        raise LimitError(f"{option} {shown}: give a whole number from 1 to 10**12")
    return value


def check_tt_mb(value: float | None, option: str = "--tt-mb", copies: int = 1) -> float | None:
    """``value`` (None: the caller's default) as a float of at least :data:`MIN_TT_MB`
    whose ``copies`` tables (one per worker process) fit in the memory available now;
    else LimitError.  Checked before anything is allocated."""
    if value is None:
        return None
    x = _number(value, option)
    if not (math.isfinite(x) and x >= MIN_TT_MB):
        raise LimitError(f"{option} {_shown(x)}: give a table size in MiB of at least {MIN_TT_MB:g}")
    free = available_memory_mb()
    if free is not None and x * copies > free:
        each = f" each for {copies} processes" if copies > 1 else ""
        raise LimitError(f"{option} {_shown(x)}: a table of {x:,.0f} MiB{each} does not fit in the "
                         f"{free:,.0f} MiB of memory available on this machine")
    return x


def _shown(x: float) -> str:
    return f"{x:.15g}"


def available_memory_mb() -> float | None:
    """The memory this machine can give a new allocation now, in MiB: ``MemAvailable``
    of /proc/meminfo (free memory plus caches that can be dropped), else the physical
    memory from ``os.sysconf``; None when neither can be read (then nothing is refused)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024  # kB
    except (OSError, ValueError, IndexError):
        pass  # no /proc/meminfo (not Linux): the physical memory below
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (ValueError, OSError, AttributeError):
        return None


@dataclass(frozen=True)
class Limit:
    """The budget of one search: ``seconds`` of wall time (None: none), ``nodes`` (0:
    none), the table size ``tt_mb`` in MiB (None: the search's default) and the
    engine's ``playouts`` (None: none; a search without playouts ignores it).  Every
    value is checked when the Limit is made (:class:`LimitError`); ``copies`` tables of
    ``tt_mb`` (one per worker process) must fit in the available memory."""

    seconds: float | None = None
    nodes: int = 0
    tt_mb: float | None = None
    playouts: int | None = None
    copies: int = field(default=1, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.copies, bool) or not isinstance(self.copies, int) or self.copies < 1:
            raise LimitError(f"copies must be a whole number of at least 1, not {self.copies!r}")
        object.__setattr__(self, "seconds", check_seconds(self.seconds))
        object.__setattr__(self, "nodes", check_nodes(self.nodes))
        object.__setattr__(self, "tt_mb", check_tt_mb(self.tt_mb, copies=self.copies))
        object.__setattr__(self, "playouts", check_playouts(self.playouts))

    @property
    def bounded(self) -> bool:
        """Whether the limit ends a search: a time, a node or a playout budget."""
        return self.seconds is not None or self.nodes > 0 or self.playouts is not None


def check_limit(limit: Limit | None, default: Limit | None = None) -> Limit:
    """``limit``, or ``default`` (None: ``Limit()``, no bound) when it is None; a
    TypeError for anything else, so that a search never mistakes a number for a budget.

    >>> check_limit(None), check_limit(Limit(nodes=5)).nodes
    (Limit(seconds=None, nodes=0, tt_mb=None, playouts=None), 5)
    """
    if limit is None:
        return Limit() if default is None else default
    if not isinstance(limit, Limit):
        raise TypeError(f"limit must be a Limit, not {type(limit).__name__}")
    return limit
