"""Random-playout throughput of the compiled core (``meridians bench``, scripts/bench_*)."""

from __future__ import annotations

import math
import time

import numpy as np

from solver.rules import core
from solver.rules.board import Board

__all__ = ["playout_rate"]


def playout_rate(board: Board, seconds: float, seed: int = 1, chunk: int | None = None) -> dict:
    """Play random games from the empty board for about ``seconds`` on one core.

    Games run in compiled chunks; the chunk size is tuned so that a chunk takes about a
    tenth of a second, which keeps the Python overhead out of the figure.  Games are cut
    (and counted as draws) after 20 * points plies, far beyond any game seen so far.
    ``seconds`` must be finite and positive (ValueError): NaN would time nothing and
    infinity would never stop.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not (
            math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"a benchmark lasts a finite positive number of seconds, not {seconds!r}")
    T = core.tables(board)
    start = core.new_position(T)
    rng = np.array([seed], dtype=np.uint64)
    stats = np.zeros(4, dtype=np.int64)
    scratch = (core.new_position(T),)
    max_plies = 20 * T.n
    core.run_playouts(T, start, 0, rng, 1, max_plies, stats, *scratch)  # compile or load
    stats[:] = 0
    games = 0
    if chunk is None:
        chunk = 1
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 0.02:
            core.run_playouts(T, start, 0, rng, chunk, max_plies, stats, *scratch)
            games += chunk
            chunk *= 2
    stats[:] = 0
    games = 0
    t0 = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        core.run_playouts(T, start, 0, rng, chunk, max_plies, stats, *scratch)
        games += chunk
        elapsed = time.perf_counter() - t0
        chunk = max(1, min(chunk * 2, int(games / elapsed * 0.1) + 1))
    plies = int(stats[3])
    return {
        "board": board.name,
        "seconds": elapsed,
        "playouts": games,
        "plies": plies,
        "playouts_per_s": games / elapsed,
        "plies_per_s": plies / elapsed,
        "plies_per_playout": plies / games,
        "light_wins": int(stats[0]),
        "dark_wins": int(stats[1]),
        "cut": int(stats[2]),
        "seed": seed,
    }
