#!/usr/bin/env python3
"""Alpha-beta node counts and speed with and without the table, the symmetries and move ordering.

Usage: python scripts/bench_solver.py [--board 2/3] [--positions 20] [--parts]

Solves the empty board and positions a few plies into seeded random games six ways
(table and symmetries; table only; neither; each with and without move ordering) in one
run and prints node counts, nodes/s, and the ratios against the plain search and
against the same mode without ordering, so that machine noise between runs does not
enter the ratios.  ``--parts`` adds table+symmetry runs with one part of the ordering
at a time.  Then the horizon search (shortest forced win or loss, iterative deepening up
to ``--horizon`` plies) of the same positions, with and without ordering and table; its
values are checked against alpha-beta's.
"""

from __future__ import annotations

import argparse
import random
import time

from solver import Board, Position
from solver.rules import core
from solver.rules.randomgame import random_position
from solver.search import alphabeta as ab
from solver.search import horizon as hz
from solver.search.solve import solve_value

MODES = {"table+symmetry": (True, True), "table": (True, False), "plain": (False, False)}
HORIZON_MODES = {
    "table+symmetry, ordered": {}, "table+symmetry": {"use_ordering": False},
    "plain, ordered": {"use_table": False, "use_symmetry": False},
    "plain": {"use_table": False, "use_symmetry": False, "use_ordering": False},
}
PARTS = {
    "table move": ab.ORDER_TABLE, "tactical": ab.ORDER_TACTICAL, "killers": ab.ORDER_KILLERS,
    "history": ab.ORDER_HISTORY, "enhanced transposition cutoffs": ab.ORDER_ETC,
}


def positions(board: Board, count: int) -> list[Position]:
    out = [Position.start(board)]
    rng = random.Random(1)
    while len(out) < count:
        pos = random_position(board, rng.randrange(2, 7), rng)
        if pos.outcome is None:
            out.append(pos)
    return out


def run(t, todo, tt_mb, table, sym, ordering):
    """(nodes, seconds, values) of solving every position of ``todo`` with fresh tables."""
    nodes = 0
    elapsed = 0.0
    vals = []
    for pos in todo:
        # a fresh table per position, allocated outside the timing
        S = ab.new_search(t, tt_mb, use_table=table, use_symmetry=sym, use_ordering=ordering)
        t0 = time.perf_counter()
        v, _ = solve_value(S, t, [pos])
        elapsed += time.perf_counter() - t0
        vals.append(v)
        nodes += int(S.stats[ab.NODES])
    return nodes, elapsed, vals


def run_horizon(t, todo, tt_mb, max_depth, options):
    """(nodes, seconds, values, lengths) of the horizon search of every position."""
    nodes = 0
    elapsed = 0.0
    vals, lengths = [], []
    for pos in todo:
        H = hz.new_horizon(t, tt_mb, **options)
        t0 = time.perf_counter()
        r = hz.solve_horizon(pos, max_depth, line=False, H=H)
        elapsed += time.perf_counter() - t0
        nodes += r.nodes
        vals.append(r.value)
        lengths.append(r.plies)
    return nodes, elapsed, vals, lengths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="2/3")
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--tt-mb", type=float, default=64)
    ap.add_argument("--parts", action="store_true", help="also each part of the ordering alone")
    ap.add_argument("--horizon", type=int, default=40, help="plies for the horizon search (0: skip it)")
    args = ap.parse_args()
    board = Board.parse(args.board)
    t = core.tables(board)
    todo = positions(board, args.positions)
    for ordering in (0, ab.ORDER_ALL):  # compile or load before timing
        solve_value(ab.new_search(t, 1, use_ordering=ordering), t, [todo[-1]])
    totals = {}
    values = {}
    for ordering in (False, True):
        for mode, (table, sym) in MODES.items():
            name = mode + (", ordered" if ordering else "")
            *totals[name], values[name] = run(t, todo, args.tt_mb, table, sym, ordering)
    if args.parts:
        for part, bit in PARTS.items():
            name = f"table+symmetry, {part} only"
            *totals[name], values[name] = run(t, todo, args.tt_mb, True, True, bit)
    assert len({tuple(v) for v in values.values()}) == 1, "the modes disagree on a value"
    plain_nodes = totals["plain"][0]
    print(f"{board.name}: {len(todo)} positions (the empty board and {len(todo) - 1} from random games), same values in every mode")
    print(f"{'mode':>34} {'nodes':>12} {'seconds':>8} {'nodes/s':>12} {'plain/mode':>11} {'unordered/ordered':>18}")
    for name, (nodes, secs) in totals.items():
        base = totals[name.split(",")[0]][0]
        gain = f"{base / nodes:>17.1f}x" if name != name.split(",")[0] else ""
        print(f"{name:>34} {nodes:>12,} {secs:>8.3f} {nodes / secs:>12,.0f} {plain_nodes / nodes:>10.1f}x {gain}")
    if args.horizon <= 0:
        return
    ab_values = values["plain"]
    hz.solve_horizon(todo[-1], 2, H=hz.new_horizon(t, 1))  # compile or load before timing
    h_totals = {}
    for name, options in HORIZON_MODES.items():
        nodes, secs, vals, lengths = run_horizon(t, todo, args.tt_mb, args.horizon, options)
        for v, want in zip(vals, ab_values):
            assert v == want or (v == hz.UNKNOWN and want == ab.DRAW), "horizon and alpha-beta disagree"
        h_totals[name] = (nodes, secs)
    decided = [n for n in lengths if n is not None]
    print(
        f"horizon search to {args.horizon} plies: {len(decided)} of {len(todo)} decided, "
        f"shortest results {min(decided, default=0)}..{max(decided, default=0)} plies, "
        f"{sum(decided)} plies in all"
    )
    print(f"{'mode':>34} {'nodes':>12} {'seconds':>8} {'nodes/s':>12} {'plain/mode':>11} {'unordered/ordered':>18}")
    plain_nodes = h_totals["plain"][0]
    for name, (nodes, secs) in h_totals.items():
        base = h_totals[name.split(",")[0]][0]
        gain = f"{base / nodes:>17.1f}x" if name != name.split(",")[0] else ""
        print(f"{name:>34} {nodes:>12,} {secs:>8.3f} {nodes / secs:>12,.0f} {plain_nodes / nodes:>10.1f}x {gain}")

if __name__ == "__main__":
    main()
