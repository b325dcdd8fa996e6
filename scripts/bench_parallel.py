#!/usr/bin/env python3
"""What the second core buys one proof: parallel df-pn (``prove(..., jobs=N)``) against
the sequential search on the same positions, in one run.

Usage: python scripts/bench_parallel.py [--jobs 2] [--positions SPEC,...] [--time 180]
                                        [--tt-mb 1024] [--plies 6 --count 6 --seed 7]

The positions (``POSITIONS``, default) are 3/4 positions 6 plies into seeded random games
(``random_positions('3/4', 6, 6, seed=7)`` and ``seed=8``) that the sequential search
decides in 0.24-4 M expansions (about 2-35 s on one free core; those that took over 60 s
are left out); ``--plies/--count/--seed`` draw another set instead.  Each position is proven with ``jobs=1`` and with ``jobs=N``
(one after the other, the same budget), printing the value (they must agree), the wall
seconds, the expansions (nodes, every worker's added up, the re-walk included) and
``/proc/loadavg`` before each run.  Summary, on the positions both decided: the wall-clock
speed-up (sequential seconds / parallel seconds, summed) and the search overhead
(parallel expansions / sequential expansions).  The overhead does not depend on the
machine's load; the speed-up does: on a machine that other work keeps busy (a load
average at or above its cores), the speed-up measures the sharing, not the search.  The
CPU seconds (this process and its workers) give an estimate for free cores.

Measured 2026-12-02 on 2 cores shared with other work (load average 4.3-4.8 during every
run, so the wall clock says nothing: each run got about 0.7 of a core): expansions x0.94
(10.60 M -> 9.93 M), CPU seconds 84.3 -> 98.9, so about 1.70x on 2 free cores (an
estimate); the wall clock 0.89x.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from solver import Position
from solver.rules.randomgame import random_positions
from solver.search.prove import load_kernels, prove
from solver.search.limit import Limit
from solver.util.provenance import load_average

#: 3/4, 6 plies into the games of random_positions('3/4', 6, 6, seed=7) and seed=8, those
#: the sequential search decided within 60 s (with its expansions, in millions)
POSITIONS = [
    "2L/4/5/D3D1/LL3/4/1D1 L",   # 1.9
    "3/4/LD3/1D4/2D2/4/LL1 L",   # 2.3
    "3/3D/2L2/6/3L1/LDD1/3 L",   # 0.24
    "3/4/5/6/2LLD/D2D/1L1 L",    # 4.0
    "1D1/4/1DL2/L2L2/5/2D1/3 L", # 1.1
    "3/1L2/L4/1L2D1/5/4/1DD L",  # 1.1
]


def measure(pos: Position, jobs: int, seconds: float, tt_mb: float) -> dict:
    la = load_average()
    t0, c0 = time.perf_counter(), _cpu()
    p = prove(pos, Limit(seconds=seconds, tt_mb=tt_mb), jobs=jobs)
    return {"value": p.value, "seconds": time.perf_counter() - t0, "nodes": p.nodes, "load": la,
            "cpu": _cpu() - c0}


def _cpu() -> float:
    """CPU seconds of this process and its ended workers."""
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--positions", default=None, help="comma-separated positions instead of the default set")
    ap.add_argument("--plies", type=int, default=None, help="draw positions this many plies into seeded games")
    ap.add_argument("--count", type=int, default=6)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--time", type=float, default=180, help="budget of each run in seconds")
    ap.add_argument("--tt-mb", type=float, default=1024)
    args = ap.parse_args()
    if args.plies is not None:
        todo = random_positions("3/4", args.count, args.plies, seed=args.seed)
    else:
        todo = [Position.parse(s) for s in (args.positions.split(",") if args.positions else POSITIONS)]
    load_kernels(todo[0].board)
    print(f"parallel df-pn, jobs={args.jobs} against jobs=1, {len(todo)} positions, {args.time:g} s and "
          f"{args.tt_mb:g} MiB each run, {os.cpu_count()} cores")
    print(f"{'position':<32} {'value':>7} {'s jobs=1':>9} {'s jobs=N':>9} {'nodes jobs=1':>13} "
          f"{'nodes jobs=N':>13} {'speed-up':>8} {'load':>11}")
    pairs = []
    for pos in todo:
        one = measure(pos, 1, args.time, args.tt_mb)
        many = measure(pos, args.jobs, args.time, args.tt_mb)
        decided = "unknown" not in (one["value"], many["value"])
        if decided:
            assert one["value"] == many["value"], f"{pos}: jobs=1 {one['value']}, jobs={args.jobs} {many['value']}"
            pairs.append((one, many))
        value = one["value"] if one["value"] != "unknown" else many["value"]
        ratio = f"{one['seconds'] / many['seconds']:.2f}" if decided else "-"
        print(f"{str(pos):<32} {value:>7} {one['seconds']:>9.1f} {many['seconds']:>9.1f} {one['nodes']:>13,} "
              f"{many['nodes']:>13,} {ratio:>8} {one['load']:>5}/{many['load']:<5}", flush=True)
    if pairs:
        s1, sn = sum(a["seconds"] for a, _ in pairs), sum(b["seconds"] for _, b in pairs)
        n1, nn = sum(a["nodes"] for a, _ in pairs), sum(b["nodes"] for _, b in pairs)
        c1, cn = sum(a["cpu"] for a, _ in pairs), sum(b["cpu"] for _, b in pairs)
        print(f"on the {len(pairs)} positions both decided: speed-up {s1 / sn:.2f}x wall clock "
              f"({s1:.1f} s -> {sn:.1f} s), expansions x{nn / n1:.2f} ({n1:,} -> {nn:,}), "
              f"nodes per second {n1 / s1:,.0f} -> {nn / sn:,.0f}; load now {load_average()}")
        # with a core for each worker the wall time would be the CPU time over the jobs
        print(f"CPU seconds {c1:.1f} -> {cn:.1f}: on {args.jobs} free cores the speed-up would be about "
              f"{args.jobs * c1 / cn:.2f}x (jobs x CPU ratio; an estimate, not a measurement)")
    else:
        print("no position was decided by both: no ratio")


if __name__ == "__main__":
    main()
