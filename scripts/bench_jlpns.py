#!/usr/bin/env python3
"""Job-level proof-number search against plain df-pn: one position, plain df-pn on one
core, then JL-PNS with 1 and with 2 workers, in one run.

Usage: python scripts/bench_jlpns.py [--position POS] [--job-nodes 20000] [--workers 1,2]
                                     [--backend loky|shared] [--tt-mb 256] [--time 1800]
                                     [--job-tt-mb MB] [--no-dfpn] [--trace] [--out [FILE]]

The default position is a 3/4 position 6 plies into a seeded random game (one of
``scripts/bench_parallel.py``'s, ``random_positions('3/4', 6, 6, seed=7)``), which plain
df-pn proves in about a million expansions: small enough for a loaded machine (the first
move classes of 3/4, such as ``3/4/5/1L4/5/4/3 D``, take 10**7 to 10**8).  Each run
prints its value (they must agree), wall seconds, expansions (every job's, re-walks
included), jobs and master-tree size, and ``/proc/loadavg`` before it (one worker runs
in this process, more in loky processes, each keeping its own table, or with ``--backend
shared`` in forked processes on one table in shared memory); then the ratios:
JL-PNS against plain df-pn (expansions, wall clock) and 2 workers against 1 (the wall
clock speed-up and the expansions).  The wall clock depends on the machine's load: on a
machine that other work keeps busy, the speed-up measures the sharing, not the search.
``--out`` writes the report as JSON (default results/jlpns/bench.json), with its command
and code version; without it nothing is written.  ``--trace`` keeps each JL-PNS run's
per-job records in it (``jlpns(..., trace=True)``: search and master seconds, pickled
sizes), the input of ``scripts/simulate_jlpns.py``; ``--no-dfpn`` leaves out the plain
df-pn run (the ratios are then between the JL-PNS runs only).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from solver import Position
from solver.app.match import MAX_JOBS
from solver.jobs.jlpns import jlpns
from solver.search.limit import Limit, check_tt_mb
from solver.search.prove import load_kernels, prove
from solver.util.errors import Interrupted
from solver.util.files import write_json
from solver.util.provenance import load_average, provenance

OUT = Path(__file__).resolve().parent.parent / "results" / "jlpns" / "bench.json"
POSITION = "1D1/4/1DL2/L2L2/5/2D1/3 L"


def worker_counts(text: str) -> list[int]:
    """The worker counts of ``--workers``: whole numbers from 1 to :data:`MAX_JOBS` (the
    most processes ``meridians match`` starts), separated by commas; ValueError else."""
    counts = []
    for part in text.split(","):
        part = part.strip()
        # isdecimal, not isdigit: "²" is a digit that int() refuses
        if not (part.isdecimal() and 1 <= int(part) <= MAX_JOBS):
            raise ValueError(f"--workers must be worker counts from 1 to {MAX_JOBS} separated by commas, "
                             f"such as 1,2; not {text!r}")
        counts.append(int(part))
    return counts


def measure(name: str, run) -> dict:
    la = load_average()
    t0 = time.perf_counter()
    r = run()
    row = {"run": name, "value": r.value.value, "seconds": round(time.perf_counter() - t0, 3), "nodes": r.nodes,
           "jobs": r.stats.get("jobs", 1), "master_nodes": r.stats.get("master_nodes", 0), "load": la}
    if "trace" in r.stats:
        row["load_after"] = load_average()
        row["trace"] = r.stats["trace"]
    print(f"{name:<14} {row['value']:>7} {row['seconds']:>9.1f} {row['nodes']:>13,} {row['jobs']:>6} "
          f"{row['master_nodes']:>7} {la:>6}", flush=True)
    return row


class Ticker:
    """A progress line on stderr at most once a minute: a long run is not silent."""

    def __init__(self, name: str, every: float = 60.0):
        self.name, self.every, self.t0 = name, every, time.perf_counter()
        self.last = self.t0

    def __call__(self, d: dict) -> None:
        now = time.perf_counter()
        if now - self.last >= self.every:
            self.last = now
            print(f"  {self.name}: {now - self.t0:,.0f} s, {d.get('nodes', 0):,} expansions, "
                  f"{d.get('jobs', 0):,} jobs, tree {d.get('tree', 0):,}, root pn {d.get('pn')} dn {d.get('dn')}",
                  file=sys.stderr, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--position", default=POSITION)
    ap.add_argument("--job-nodes", type=int, default=20_000, help="each job's budget in expansions")
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts of the JL-PNS runs")
    ap.add_argument("--backend", default="loky", choices=("loky", "shared"),
                    help="where 2+ workers run: loky processes (a table each) or forked ones on one shared table")
    ap.add_argument("--tt-mb", type=float, default=256, help="plain df-pn's table")
    ap.add_argument("--job-tt-mb", type=float, default=None,
                    help="each JL-PNS worker's table, kept from job to job (default: plain df-pn's default)")
    ap.add_argument("--time", type=float, default=1800, help="budget of each run in seconds")
    ap.add_argument("--trace", action="store_true", help="keep each JL-PNS run's per-job records")
    ap.add_argument("--no-dfpn", action="store_true", help="leave out the plain df-pn run")
    ap.add_argument("--out", nargs="?", const=str(OUT), default=None, help="write the report (default path: %(const)s)")
    args = ap.parse_args()
    try:
        pos = Position.parse(args.position)
        workers = worker_counts(args.workers)
        check_tt_mb(args.job_tt_mb, "--job-tt-mb", copies=max(workers))
        check_tt_mb(args.tt_mb)
    except ValueError as e:  # MeridiansError is one
        print(f"bench_jlpns: {e}", file=sys.stderr)
        sys.exit(2)  # a bad option value, as argparse's own
    load_kernels(pos.board)
    print(f"JL-PNS against plain df-pn on {pos}: jobs of {args.job_nodes:,} expansions, {args.time:g} s a run")
    print(f"{'run':<14} {'value':>7} {'seconds':>9} {'expansions':>13} {'jobs':>6} {'tree':>7} {'load':>6}")
    rows = [] if args.no_dfpn else [measure("dfpn", lambda: prove(pos, Limit(seconds=args.time, tt_mb=args.tt_mb)))]
    try:
        for w in workers:
            rows.append(measure(f"jlpns w={w}", lambda w=w: jlpns(
                pos, Limit(seconds=args.time, tt_mb=args.job_tt_mb), workers=w, job_nodes=args.job_nodes,
                backend=args.backend, trace=args.trace, progress=Ticker(f"jlpns w={w}"))))
    except (Interrupted, KeyboardInterrupt):
        sys.exit("bench_jlpns: interrupted: nothing written (a benchmark's runs must all finish)")
    values = {r["value"] for r in rows} - {"unknown"}
    if len(values) > 1:
        sys.exit(f"bench_jlpns: the runs disagree on {pos}: {[r['value'] for r in rows]}")
    ratios = {}
    if not args.no_dfpn:
        base = rows.pop(0)
        for r in rows:
            ratios[f"{r['run']} / dfpn"] = {"nodes": round(r["nodes"] / max(1, base["nodes"]), 3),
                                            "seconds": round(r["seconds"] / max(1e-9, base["seconds"]), 3)}
    if len(rows) > 1:
        one = rows[0]
        for r in rows[1:]:
            ratios[f"{r['run']} / {one['run']}"] = {
                "speed-up": round(one["seconds"] / max(1e-9, r["seconds"]), 3),
                "nodes": round(r["nodes"] / max(1, one["nodes"]), 3)}
    for k, v in ratios.items():
        print(f"{k}: " + ", ".join(f"{a} {b:.2f}" for a, b in v.items()))
    print(f"load average now {load_average()}")
    if args.out:
        command = " ".join(["python scripts/bench_jlpns.py"] + sys.argv[1:])
        report = {**provenance(command), "position": str(pos), "job_nodes": args.job_nodes,
                  "backend": args.backend, "job_tt_mb": args.job_tt_mb, "runs": ([] if args.no_dfpn else [base]) + rows,
                  "ratios": ratios}
        out = Path(args.out)
        write_json(out, report)
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
