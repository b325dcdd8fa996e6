"""The one clock of every search: a :class:`Limit` spent in compiled chunks.

A compiled search cannot be interrupted, so each search runs in chunks (of nodes, or of
the engine's iterations): between chunks its :class:`Clock` says whether the budget is
spent, how large the next chunk may be, calls the ``progress`` callback, and lets Ctrl-C
(KeyboardInterrupt) through.  A clock starts when it is made, which a search does once
its compiled kernels are loaded: the budget is search time, never the first use's compile.

>>> clock = Clock(Limit(nodes=1000))
>>> clock.allow(800), clock.spend(800), clock.allow(800), clock.out()
(800, None, 200, False)
>>> clock.spend(200); clock.out()
True
>>> Clock(Limit(playouts=10, nodes=5), counts="playouts").allow(100)
10
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from .limit import Limit, check_limit
from .memory import prefer_huge_pages

__all__ = ["Clock", "FIXED_CHUNK", "HUGE_PAGES_AFTER"]

#: the chunk of a search whose limit has no time: a tenth of a second or so of df-pn, so
#: that progress and Ctrl-C still act promptly, and of a size that does not depend on
#: the machine's speed (a df-pn chunk starts again from the root, so chunk sizes drawn
#: from the clock would make a search of a node budget take other paths from run to run)
FIXED_CHUNK = 20_000
#: seconds of search after which the table asks for huge pages: a short search maps only
#: the small pages it writes, a long one wants fewer address-translation misses
HUGE_PAGES_AFTER = 2.0


class Clock:
    """The budget of one running search: ``limit``'s seconds and its ``counts`` (``'nodes'``
    for a proof, ``'playouts'`` for the engine; the other is not this search's budget),
    and what has been spent of them.  ``chunk_seconds`` is the time a chunk aims at;
    ``least`` the smallest chunk; ``fixed`` (or None) the chunk size when the limit has no
    time (see :data:`FIXED_CHUNK`)."""

    def __init__(self, limit: Limit, progress: Callable[[dict], None] | None = None, *, counts: str = "nodes",
                 chunk_seconds: float = 0.5, least: int = 200, fixed: int | None = FIXED_CHUNK):
        check_limit(limit)
        if counts not in ("nodes", "playouts"):
            raise ValueError(f"a clock counts nodes or playouts, not {counts!r}")
        self.limit, self.progress, self.counts = limit, progress, counts
        self.chunk_seconds, self.least, self.fixed = chunk_seconds, least, fixed
        self.t0 = time.perf_counter()
        self.nodes = 0
        self.playouts = 0
        self._huge = False

    def elapsed(self) -> float:
        """Seconds since the clock started."""
        return time.perf_counter() - self.t0

    def left(self) -> float | None:
        """Seconds left (at least 0), or None without a time limit."""
        s = self.limit.seconds
        return None if s is None else max(0.0, s - self.elapsed())

    def time_up(self) -> bool:
        return self.limit.seconds is not None and self.elapsed() >= self.limit.seconds

    def out(self) -> bool:
        """Whether the budget's seconds or what it counts is spent."""
        return self.allow(1) == 0 or self.time_up()

    def spend(self, nodes: int = 0, playouts: int = 0) -> None:
        """Count what a chunk did."""
        self.nodes += int(nodes)
        self.playouts += int(playouts)

    def allow(self, want: int) -> int:
        """The size of a chunk of ``want``, cut to the nodes or playouts left (0: none left)."""
        lim = self.limit
        if self.counts == "nodes" and lim.nodes:
            want = min(want, lim.nodes - self.nodes)
        if self.counts == "playouts" and lim.playouts is not None:
            want = min(want, lim.playouts - self.playouts)
        return max(0, want)

    def next_chunk(self, n: int, took: float, cap: int) -> int:
        """The size of the next chunk after one of ``n`` took ``took`` seconds: about
        ``chunk_seconds`` worth, at most four times the last (a first chunk of a few
        units says little about the rate), never more than the time left allows at that
        rate, and at most ``cap``; without a time limit, ``fixed`` if given."""
        if self.limit.seconds is None and self.fixed is not None:
            return min(cap, self.fixed)
        rate = n / max(took, 1e-4)
        size = rate * self.chunk_seconds
        left = self.left()
        if left is not None:
            size = min(size, rate * max(0.01, left))
        return int(min(cap, 4 * n + 16, max(self.least, size)))

    def settle(self, *table: np.ndarray) -> None:
        """Once the search has run :data:`HUGE_PAGES_AFTER` seconds, let its table's
        arrays take huge pages (see :mod:`solver.search.memory`)."""
        if not self._huge and self.elapsed() >= HUGE_PAGES_AFTER:
            self._huge = True
            prefer_huge_pages(*table)

    def report(self, **info) -> None:
        """Call ``progress`` with the nodes, playouts and seconds so far and ``info``."""
        if self.progress is not None:
            self.progress({"nodes": self.nodes, "playouts": self.playouts, "seconds": self.elapsed(), **info})
