#!/usr/bin/env python3
"""Speed of the engine (solver.search.mcts): tree iterations per second against the bare
random playouts of the compiled core, on the same board in the same run.

Usage: python scripts/bench_engine.py [--seconds S] [--boards 5/6,6/7] [--plies 0,30]
       [--selects uct,puct] [--workers 1] [--json]

For each board and each start (the empty board, and positions ``--plies`` random moves
in, seeded), one engine search of ``--seconds`` (the tree alone: no df-pn first) and
``--seconds`` of bare playouts from the empty board (``solver.app.bench.playout_rate``).  The
ratio iterations/playouts is the share of the core's speed that the tree keeps: each
iteration replays its path from the root, expands a leaf by playing all its moves, and
ends in one playout.  Each start is searched with each selection rule of ``--selects``,
one after the other: ``puct`` pays for the move model's features at every expansion.
With ``--workers 1,2``, each search is also run with that many searches at once (root
parallelism, threads), and ``speedup`` is its iterations a second over one search's of
the same start (meaningful only on a machine with that many idle cores).
"""

from __future__ import annotations

import argparse
import json

from solver import Board, Position
from solver.app.bench import playout_rate
from solver.rules.randomgame import random_position
from solver.search import mcts
from solver.search.limit import Limit


def measure(board: Board, seconds: float, plies: list[int], seed: int = 1,
            selects: tuple[str, ...] = ("uct", "puct"), workers: tuple[int, ...] = (1,)) -> list[dict]:
    rows = []
    bare = playout_rate(board, seconds, seed)
    for n in plies:
        for select in selects:
            pos = Position.start(board) if n == 0 else random_position(board, n, seed)
            mcts.search(pos, Limit(playouts=10), seed=seed, dfpn_nodes=0, select=select)  # load the kernels
            one = None
            for w in workers:
                r = mcts.search(pos, Limit(seconds=seconds), seed=seed, dfpn_nodes=0, select=select, workers=w)
                iterations = r.stats["iterations"]
                rate = iterations / r.seconds
                one = rate if w == 1 else one
                rows.append({
                    "board": board.name, "plies": n, "select": select, "workers": w, "position": str(pos),
                    "seconds": r.seconds, "iterations": iterations, "iterations_per_s": rate,
                    "playouts": r.playouts, "nodes": r.nodes, "nodes_per_iteration": r.nodes / max(iterations, 1),
                    "bare_playouts_per_s": bare["playouts_per_s"],
                    "ratio": rate / bare["playouts_per_s"], "speedup": rate / one if one else None,
                    "best": r.best, "value": r.shown(),
                })
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--boards", default="5/6,6/7")
    ap.add_argument("--plies", default="0,30", help="starts: random moves from the empty board (0: empty)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--selects", default="uct,puct", help="the selection rules to measure")
    ap.add_argument("--workers", default="1", help="searches at once to measure, e.g. 1,2")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if not a.seconds > 0:
        ap.error("--seconds: give a number greater than 0")
    plies = [int(x) for x in a.plies.split(",")]
    selects = tuple(a.selects.split(","))
    if not set(selects) <= set(mcts.SELECTIONS):
        ap.error(f"--selects: of {', '.join(mcts.SELECTIONS)}")
    try:
        workers = tuple(int(x) for x in a.workers.split(","))
    except ValueError:
        ap.error("--workers: whole numbers, e.g. 1,2")
    if not all(1 <= w <= mcts.MAX_WORKERS for w in workers):
        ap.error(f"--workers: each from 1 to {mcts.MAX_WORKERS}")
    rows = [r for b in a.boards.split(",")
            for r in measure(Board.parse(b), a.seconds, plies, a.seed, selects, workers)]
    if a.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'board':5} {'plies':>5} {'select':6} {'workers':>7} {'iterations/s':>13} {'bare playouts/s':>16} "
          f"{'ratio':>6} {'speedup':>7} {'nodes/iter':>10}  best, value")
    for r in rows:
        speedup = f"{r['speedup']:.2f}" if r["speedup"] is not None else "-"
        print(f"{r['board']:5} {r['plies']:>5} {r['select']:6} {r['workers']:>7} {r['iterations_per_s']:>13,.0f} "
              f"{r['bare_playouts_per_s']:>16,.0f} {r['ratio']:>6.2f} {speedup:>7} "
              f"{r['nodes_per_iteration']:>10.1f}  {r['best']}, {r['value']}")


if __name__ == "__main__":
    main()
