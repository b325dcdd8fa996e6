"""SAT-backed generator against the baseline, on the same seed positions (issue 5).

    python scripts/bench_generators.py --board 6/7 --units 40,40,40,12,8
    python scripts/bench_generators.py --board 4/5 --units 40,40,40,20 --json

For each n, both methods work through the same seed positions (units seeded 0, 1, ...):
the baseline offers every defender group as it stands, the SAT generator reshapes it
first.  CPU time is the process time of the units themselves (one core, no compile,
no I/O), so a busy machine moves the figures less than wall time would.  Printed per n
and method: sound puzzles, dual-free ones, candidates verified, CPU seconds, puzzles
per CPU-minute, and the SAT/baseline ratios of all puzzles and of dual-free puzzles
per CPU-minute (the issue asks for 5x at n >= 2 at equal quality).
"""

from __future__ import annotations

import argparse
import json
import sys

from puzzles.generate import run_unit
from puzzles.record import code_version


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="6/7")
    ap.add_argument("--units", default="40,40,40,12,8", help="seed positions per n, from n = 1")
    ap.add_argument("--seed", type=int, default=424242, help="first unit seed")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    units = [int(u) for u in args.units.split(",")]
    # compile the kernels outside the measured units
    run_unit("baseline", args.board, 1, args.seed, "warm-up")
    rows = []
    for n, count in enumerate(units, start=1):
        row = {"n": n, "units": count}
        for method in ("baseline", "sat"):
            found = dual = cands = 0
            cpu = 0.0
            for u in range(count):
                r = run_unit(method, args.board, n, args.seed + u, "bench")
                found += len(r.puzzles)
                dual += sum(p.dual_free for p in r.puzzles)
                cands += r.candidates
                cpu += r.seconds
            row[method] = {"puzzles": found, "dual_free": dual, "candidates": cands, "cpu_seconds": round(cpu, 2),
                           "per_cpu_minute": round(found / cpu * 60, 1) if cpu else 0.0,
                           "dual_free_per_cpu_minute": round(dual / cpu * 60, 1) if cpu else 0.0}
            print(f"n={n} {method:8s} {found:4d} puzzles ({dual} dual-free) from {cands} candidates, "
                  f"{cpu:7.1f} CPU s, {row[method]['per_cpu_minute']:7.1f}/CPU-min "
                  f"({row[method]['dual_free_per_cpu_minute']:.1f} dual-free)", file=sys.stderr, flush=True)
        b, s = row["baseline"], row["sat"]
        row["ratio"] = round(s["per_cpu_minute"] / b["per_cpu_minute"], 2) if b["per_cpu_minute"] else None
        row["ratio_dual_free"] = (round(s["dual_free_per_cpu_minute"] / b["dual_free_per_cpu_minute"], 2)
                                  if b["dual_free_per_cpu_minute"] else None)
        print(f"n={n} sat/baseline: {row['ratio']}x puzzles per CPU-minute, "
              f"{row['ratio_dual_free']}x dual-free", file=sys.stderr, flush=True)
        rows.append(row)
    out = {"board": args.board, "version": code_version(), "rows": rows}
    if args.json:
        print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
