#!/usr/bin/env python3
"""Alpha-beta node counts and speed with and without the table and the symmetries.

Usage: python scripts/bench_solver.py [--board 2/3] [--positions 20]

Solves the empty board and positions a few plies into seeded random games four ways
(table and symmetries; table only; neither) in one run and prints node counts, nodes/s,
and the ratios against the plain search, so that machine noise between runs does not
enter the ratios.
"""

from __future__ import annotations

import argparse
import random
import time

from solver import Board, Position, core
from solver.search import alphabeta as ab
from solver.search.solve import solve_value

MODES = {"table+symmetry": (True, True), "table": (True, False), "plain": (False, False)}


def positions(board: Board, count: int) -> list[Position]:
    out = [Position.start(board)]
    rng = random.Random(1)
    while len(out) < count:
        pos = Position.start(board)
        for _ in range(rng.randrange(2, 7)):
            if pos.outcome is not None:
                break
            pos = pos.play(rng.choice(pos.legal_moves()))
        if pos.outcome is None:
            out.append(pos)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="2/3")
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--tt-mb", type=float, default=64)
    args = ap.parse_args()
    board = Board.parse(args.board)
    t = core.tables(board)
    todo = positions(board, args.positions)
    solve_value(ab.new_search(t, 1), t, [todo[-1]])  # compile or load before timing
    totals = {}
    values = {}
    for mode, (table, sym) in MODES.items():
        nodes = 0
        elapsed = 0.0
        vals = []
        for pos in todo:
            # a fresh table per position, allocated outside the timing
            S = ab.new_search(t, args.tt_mb, use_table=table, use_symmetry=sym)
            t0 = time.perf_counter()
            v, _ = solve_value(S, t, [pos])
            elapsed += time.perf_counter() - t0
            vals.append(v)
            nodes += int(S.stats[ab.NODES])
        totals[mode] = (nodes, elapsed)
        values[mode] = vals
    assert len({tuple(v) for v in values.values()}) == 1, "the modes disagree on a value"
    plain_nodes = totals["plain"][0]
    print(f"{board.name}: {len(todo)} positions (the empty board and {len(todo) - 1} from random games), same values in every mode")
    print(f"{'mode':>16} {'nodes':>12} {'seconds':>8} {'nodes/s':>12} {'plain/mode nodes':>17}")
    for mode, (nodes, secs) in totals.items():
        print(f"{mode:>16} {nodes:>12,} {secs:>8.3f} {nodes / secs:>12,.0f} {plain_nodes / nodes:>16.1f}x")


if __name__ == "__main__":
    main()
