#!/usr/bin/env python3
"""Benchmark of meridians verify: endgames from random games on 5/6 and 6/7.

Usage: python scripts/bench_verify.py [--boards 5/6,6/7] [--per-board 12] [--time 60] [--seed 1] [--tt-mb 256]

The endgame set is fixed by the seed: random games are played on each board (seeds
seed, seed+1, ...), and from each game that reaches one, a position with 8 to 24 empty
points and no result yet is taken (the empty-point counts cycle through 8-12, 13-16,
17-20, 21-24, the position nearest the middle of the range).  Each is verified with
df-pn (solver.app.verify.verify_position) within --time seconds on one core.  Prints one
line per position, then decided/total and seconds per position by board and number of
empty points.  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from solver import Board
from solver.rules.randomgame import empty_points, random_game
from solver.app.verify import verify_position
from solver.search.limit import Limit

BUCKETS = [(8, 12), (13, 16), (17, 20), (21, 24)]


def endgames(board: str, count: int, seed: int) -> list:
    """``count`` endgame positions of ``board`` (see the module docstring)."""
    out = []
    s = seed
    while len(out) < count and s < seed + 50 * count:
        lo, hi = BUCKETS[len(out) % len(BUCKETS)]
        pick = None
        for p in random_game(Board.parse(board), s):
            e = empty_points(p)
            if p.outcome is None and lo <= e <= hi and (
                    pick is None or abs(e - (lo + hi) / 2) < abs(empty_points(pick) - (lo + hi) / 2)):
                pick = p
        s += 1
        if pick is not None:
            out.append(pick)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", default="5/6,6/7")
    ap.add_argument("--per-board", type=int, default=12)
    ap.add_argument("--time", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tt-mb", type=float, default=256)
    args = ap.parse_args(argv)
    stats: dict = defaultdict(lambda: [0, 0, 0.0])  # (board, bucket) -> decided, total, seconds
    for board in [b for b in args.boards.split(",") if b]:
        positions = endgames(board, args.per_board, args.seed)
        if positions:  # compile the kernels of this board before any clock starts
            verify_position(positions[0], limit=Limit(seconds=0.05, tt_mb=1))
        for pos in positions:
            e = empty_points(pos)
            t0 = time.perf_counter()
            r = verify_position(pos, limit=Limit(seconds=args.time, tt_mb=args.tt_mb))
            dt = time.perf_counter() - t0
            bucket = next(b for b in BUCKETS if b[0] <= e <= b[1])
            st = stats[(board, bucket)]
            st[0] += r.value != "unknown"
            st[1] += 1
            st[2] += dt
            print(f"{board} {e:3d} empty  {r.value:8} {r.nodes:>12,} nodes {dt:8.2f} s  {pos}", flush=True)
    print(f"\n{'board':6} {'empty':>6} {'decided':>8} {'s/position':>11}")
    for (board, (lo, hi)), (d, n, sec) in sorted(stats.items()):
        print(f"{board:6} {lo:>2}-{hi:<3} {d:>4}/{n:<3} {sec / n:>11.2f}")
    d = sum(v[0] for v in stats.values())
    n = sum(v[1] for v in stats.values())
    sec = sum(v[2] for v in stats.values())
    print(f"all: {d}/{n} decided, {sec / max(n, 1):.2f} s per position (budget {args.time:g} s each)")


if __name__ == "__main__":
    main()
