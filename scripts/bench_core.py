#!/usr/bin/env python3
"""Random-playout throughput of the compiled core against the networkx reference.

Usage: python scripts/bench_core.py [--seconds S] [--boards 2/3,3/4,6/7] [--json]

Both engines play uniformly random games from the empty board, one core each in turn, in
the same run, so that the ratio is not spoiled by the machine's noise between runs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from solver import RULES_VERSION, Board, __version__
from solver.reference import rules as ref
from solver.app.bench import playout_rate
from solver.util.provenance import provenance


def reference_rate(board: Board, seconds: float, seed: int = 1) -> dict:
    """Random playouts with solver.reference (no repetition tracking, like the core).
    (Not :mod:`solver.rules.randomgame`: this measures the reference's own moves.)"""
    rng = random.Random(seed)
    games = plies = 0
    t0 = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds or games == 0:
        light, dark, side = frozenset(), frozenset(), "L"
        while ref.outcome(board, light, dark, side) is None:
            p = rng.choice(ref.legal_moves(board, light, dark, side))
            light, dark, side = ref.play(board, light, dark, side, p)
            plies += 1
        games += 1
        elapsed = time.perf_counter() - t0
    return {"playouts_per_s": games / elapsed, "plies_per_s": plies / elapsed, "playouts": games}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="per engine and board")
    ap.add_argument("--boards", default="2/3,3/4,6/7")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    for name in args.boards.split(","):
        board = Board.parse(name)
        core = playout_rate(board, args.seconds)
        slow = reference_rate(board, args.seconds)
        rows.append({
            "board": board.name,
            "core_playouts_per_s": core["playouts_per_s"],
            "core_plies_per_s": core["plies_per_s"],
            "plies_per_playout": core["plies_per_playout"],
            "reference_playouts_per_s": slow["playouts_per_s"],
            "speedup": core["plies_per_s"] / slow["plies_per_s"],
        })
    if args.json:
        command = " ".join(["python scripts/bench_core.py", *sys.argv[1:]])
        print(json.dumps({**provenance(command), "boards": rows}, indent=1))
        return
    print(f"meridians {__version__}, rules {RULES_VERSION}, {args.seconds:g} s per engine and board")
    print(f"{'board':>6} {'core playouts/s':>16} {'core plies/s':>14} {'plies/game':>10} {'reference playouts/s':>21} {'core/reference':>15}")
    for r in rows:
        print(f"{r['board']:>6} {r['core_playouts_per_s']:>16,.0f} {r['core_plies_per_s']:>14,.0f} "
              f"{r['plies_per_playout']:>10.1f} {r['reference_playouts_per_s']:>21,.1f} {r['speedup']:>14,.0f}x")


if __name__ == "__main__":
    main()
