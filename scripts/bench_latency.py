#!/usr/bin/env python3
"""Benchmark of the latency of an easy claim: a small df-pn proof with tables of every size,
and ``meridians verify`` on it in a fresh interpreter.

Usage: python scripts/bench_latency.py [--board 6/7] [--seed 1] [--max-nodes 1000]
                                        [--tt-mb 16,256,2048] [--runs 3] [--no-verify]

The position is fixed by the seed: the random games of :func:`solver.rules.randomgame.random_game`
with seeds seed, seed+1, ... are walked back from their ends, and the first position (at
least 8 plies before an end) whose df-pn proof takes 100 to ``--max-nodes`` nodes is taken
(seed 1 on 6/7: a 208-node loss for Dark).  Printed, in one run:

- the position and its node count;
- the search time of ``prove(position, Limit(tt_mb=X), method='dfpn')`` for each X (the
  Result's seconds: its clock starts once the kernels are loaded; the best of three);
- the wall time of the command ``meridians verify POSITION`` (default table), each run a
  fresh interpreter (``python -m solver.cli``, this interpreter: a version manager's shim
  in front of the ``meridians`` script adds its own start-up) with the kernel cache on
  disk warm: ``--runs`` runs, min and median;
- where that time goes, from one more fresh interpreter: the interpreter's start and exit
  (site included), imports (numpy, numba, the package), kernels (numba's registries and
  the cached kernels of the rules and df-pn), search.

Targets (issue 18): each search <= 0.05 s whatever the table size, the verify's median
<= 1 s.  A benchmark, not a test: the wall times depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from solver import Board, Position
from solver.rules.randomgame import random_game
from solver.search.prove import load_kernels, prove
from solver.search.limit import Limit

ROOT = Path(__file__).resolve().parent.parent
SEARCH_TARGET, VERIFY_TARGET = 0.05, 1.0

#: run in a fresh interpreter: the seconds of each stage of a verify, as JSON
_STAGES = """
import json, sys, time
t0 = time.perf_counter()
import solver.cli, solver.app.verify
from solver import Position
from solver.search.prove import load_kernels, prove
t1 = time.perf_counter()
pos = Position.parse(sys.argv[1])
load_kernels(pos.board, "dfpn")
t2 = time.perf_counter()
p = prove(pos, method="dfpn")
t3 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "kernels": t2 - t1, "search": t3 - t2, "in_python": t3 - t0}))
"""


def easy_position(board: Board, seed: int, max_nodes: int) -> tuple[Position, int]:
    """The first position, going back from the ends of seeded random games, that df-pn
    proves in 100 to ``max_nodes`` nodes (it, and its node count)."""
    for s in range(seed, seed + 200):
        line = list(random_game(board, s))
        for pos in reversed(line[:-8]):
            # without the game's history: the command line gives a position alone
            pos = Position.parse(str(pos))
            p = prove(pos, Limit(nodes=max_nodes, tt_mb=16), method="dfpn")
            if p.value != "unknown" and 100 <= p.nodes <= max_nodes:
                return pos, p.nodes
            if p.value == "unknown":
                break  # earlier positions of this game are harder still
    raise SystemExit(f"no position proven in 100 to {max_nodes:,} nodes from seeds {seed}-{seed + 199}")


def _env() -> dict:
    # this tree first (and cwd=ROOT: python -m and -c put the current folder first)
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


def verify_seconds(text: str) -> float:
    """Wall seconds of ``meridians verify`` on ``text`` in a fresh interpreter."""
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "solver.cli", "verify", text],
                       env=_env(), cwd=ROOT, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if r.returncode not in (0, 1):
        raise SystemExit(f"meridians verify exited {r.returncode}: {r.stderr.strip()}")
    return took


def stages(text: str) -> dict:
    """The seconds of each stage of a verify in a fresh interpreter (``start and exit``:
    the wall time not spent in the measured code)."""
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", _STAGES, text], env=_env(), cwd=ROOT, capture_output=True,
                       text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"the stages run failed: {r.stderr.strip()}")
    got = json.loads(r.stdout.splitlines()[-1])
    got["start and exit"] = wall - got.pop("in_python")
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="6/7")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-nodes", type=int, default=1000)
    ap.add_argument("--tt-mb", default="16,256,2048", help="table sizes in MiB, comma-separated")
    ap.add_argument("--runs", type=int, default=3, help="runs of meridians verify")
    ap.add_argument("--no-verify", action="store_true", help="skip the meridians verify runs")
    args = ap.parse_args()
    try:
        board = Board.parse(args.board)
        sizes = [float(x) for x in args.tt_mb.split(",")]
    except ValueError as e:
        ap.error(str(e))
    if not all(0 < mb < float("inf") for mb in sizes):
        ap.error(f"--tt-mb: table sizes are positive MiB, not {args.tt_mb!r}")
    if args.runs < 1 or args.max_nodes < 100:
        ap.error("--runs is at least 1 and --max-nodes at least 100")

    t0 = time.perf_counter()
    load_kernels(board, "dfpn")
    print(f"kernels loaded in {time.perf_counter() - t0:.2f} s (this process)")
    pos, nodes = easy_position(board, args.seed, args.max_nodes)
    print(f"position: {pos}")
    print(f"  df-pn proves it in {nodes:,} nodes")

    ok = True
    for mb in sizes:
        runs = [prove(pos, Limit(tt_mb=mb), method="dfpn") for _ in range(3)]
        p = min(runs, key=lambda r: r.seconds)
        ok &= p.seconds <= SEARCH_TARGET
        print(f"  search, --tt-mb {mb:6g}: {p.seconds:.4f} s ({p.value} in {p.nodes:,} nodes)")
    if not args.no_verify:
        walls = [verify_seconds(str(pos)) for _ in range(args.runs)]
        ok &= statistics.median(walls) <= VERIFY_TARGET
        print(f"  meridians verify, wall: min {min(walls):.2f} s, median {statistics.median(walls):.2f} s "
              f"of {len(walls)} fresh interpreters")
        s = stages(str(pos))
        print("  of which: " + ", ".join(f"{k} {s[k]:.2f} s" for k in ("start and exit", "imports", "kernels", "search")))
    print(f"targets (search <= {SEARCH_TARGET} s, verify <= {VERIFY_TARGET} s): {'met' if ok else 'NOT met'}"
          f"  (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
