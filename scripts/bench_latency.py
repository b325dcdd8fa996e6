#!/usr/bin/env python3
"""Benchmark of the latency of an easy claim: a small df-pn proof with tables of every size.

Usage: python scripts/bench_latency.py [--board 6/7] [--seed 1] [--max-nodes 1000]
                                        [--tt-mb 16,256,2048] [--no-verify]

The position is fixed by the seed: random games are played on the board (seeds seed,
seed+1, ...), and going back from each game's end, the first position (at least 8
plies before the end) whose df-pn proof takes 100 to ``--max-nodes`` nodes is taken.  It
is printed with its node count.  Then, in one run, the search time of
``prove(position, method='dfpn', tt_mb=X)`` for each X (the Proof's seconds: its clock
starts once the kernels are loaded, so only the search counts; the best of three runs)
and its ratio to the first table size's time; then the wall time of the command
``meridians verify POSITION --tt-mb X`` run in a fresh interpreter with a warm kernel
cache (the best of two).  Targets (issue 18): each search <= 0.05 s whatever the table
size, each verify <= 1 s.  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from solver import Board, Position
from solver.search.prove import load_kernels, prove

ROOT = Path(__file__).resolve().parent.parent
SEARCH_TARGET, VERIFY_TARGET = 0.05, 1.0


def easy_position(board: Board, seed: int, max_nodes: int) -> tuple[Position, int]:
    """The first position, going back from the ends of seeded random games, that df-pn
    proves in 100 to ``max_nodes`` nodes (it, and its node count)."""
    for s in range(seed, seed + 200):
        rng = random.Random(s)
        line = [Position.start(board)]
        while line[-1].outcome is None:
            line.append(line[-1].play(rng.choice(line[-1].legal_moves())))
        for pos in reversed(line[:-8]):
            # without the game's history: the command line gives a position alone
            pos = Position.parse(str(pos))
            p = prove(pos, method="dfpn", max_nodes=max_nodes, tt_mb=16)
            if p.value != "unknown" and 100 <= p.nodes <= max_nodes:
                return pos, p.nodes
            if p.value == "unknown":
                break  # earlier positions of this game are harder still
    raise SystemExit(f"no position proven in 100 to {max_nodes:,} nodes from seeds {seed}-{seed + 199}")


def verify_seconds(text: str, tt_mb: float) -> float:
    """Wall seconds of ``meridians verify`` on ``text`` in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "solver.cli", "verify", text, "--tt-mb", f"{tt_mb:g}"],
                       env=env, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if r.returncode not in (0, 1):
        raise SystemExit(f"meridians verify exited {r.returncode}: {r.stderr.strip()}")
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="6/7")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-nodes", type=int, default=1000)
    ap.add_argument("--tt-mb", default="16,256,2048", help="table sizes in MiB, comma-separated")
    ap.add_argument("--no-verify", action="store_true", help="skip the meridians verify runs")
    args = ap.parse_args()
    board = Board.parse(args.board)
    sizes = [float(x) for x in args.tt_mb.split(",")]

    t0 = time.perf_counter()
    load_kernels(board, "dfpn")
    print(f"kernels loaded in {time.perf_counter() - t0:.2f} s")
    pos, nodes = easy_position(board, args.seed, args.max_nodes)
    print(f"position: {pos}  (df-pn proves it in {nodes:,} nodes)")

    base = None
    ok = True
    for mb in sizes:
        runs = []
        for _ in range(3):
            t1 = time.perf_counter()
            p = prove(pos, method="dfpn", tt_mb=mb)
            runs.append((p.seconds, time.perf_counter() - t1, p))
        search, wall, p = min(runs, key=lambda r: r[0])
        base = base or search
        ok &= search <= SEARCH_TARGET
        print(f"  --tt-mb {mb:6g}: search {search:.4f} s (x{search / base:.2f} of {sizes[0]:g} MiB), "
              f"prove() wall {wall:.4f} s, {p.value} in {p.nodes:,} nodes")
    if not args.no_verify:
        for mb in sizes:
            took = min(verify_seconds(str(pos), mb) for _ in range(2))
            ok &= took <= VERIFY_TARGET
            print(f"  meridians verify --tt-mb {mb:6g}: {took:.2f} s wall")
    print(f"targets (search <= {SEARCH_TARGET} s, verify <= {VERIFY_TARGET} s): {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
