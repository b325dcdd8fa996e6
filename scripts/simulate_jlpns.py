#!/usr/bin/env python3
"""JL-PNS on 16, 64 and 256 workers, on paper: the simulation of solver/jobs/scaling.py
driven by the job records of a real run.

Usage: python scripts/simulate_jlpns.py --trace FILE [--run NAME] [--workers 1,2,16,64,256]
                                        [--jobs N] [--gbit 1] [--latency-ms 0.5] [--seed 0]
                                        [--out [FILE]]

``--trace`` is a report of ``scripts/bench_jlpns.py --trace`` (its run ``--run``, by
default the one with the most workers); each simulated job is one of its jobs, drawn with
replacement (seeded): its search seconds on a worker, the master's seconds for it and the
bytes sent each way.  For each worker count, prints the simulated speed-up over the
jobs' search time, the efficiency, and how busy the master and its network link
(``--gbit``, ``--latency-ms``) are; the master is the bottleneck where its busy share
nears 1 (from there a worker more adds nothing).  Also prints the trace's means and the
worker count where the master saturates on average (search plus transfer time over
master time).  The search overhead of more workers (their extra expansions) is not
simulated: the report carries the trace run's measured ratios beside it.  ``--out``
writes it all as JSON (default results/jlpns/scaling.json) with its command.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from solver.jobs.scaling import FIELDS, Network, simulate
from solver.util.files import write_json
from solver.util.provenance import provenance

OUT = Path(__file__).resolve().parent.parent / "results" / "jlpns" / "scaling.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", required=True, help="a report of scripts/bench_jlpns.py --trace")
    ap.add_argument("--run", default=None, help="which of its runs (default: the one with the most workers)")
    ap.add_argument("--workers", default="1,2,16,64,256")
    ap.add_argument("--jobs", type=int, default=None, help="jobs a simulation runs (default: 50 a worker)")
    ap.add_argument("--gbit", type=float, default=1.0, help="the master's link, Gbit/s")
    ap.add_argument("--latency-ms", type=float, default=0.5, help="one way")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", nargs="?", const=str(OUT), default=None, help="write the report (default path: %(const)s)")
    args = ap.parse_args()
    try:
        report = json.loads(Path(args.trace).read_text())
        runs = [r for r in report["runs"] if r.get("trace")]
        workers = [int(w) for w in args.workers.split(",")]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"simulate_jlpns: cannot read {args.trace}: {e}")
    if not runs:
        sys.exit(f"simulate_jlpns: {args.trace} has no run with a trace (bench_jlpns.py --trace)")
    if args.run is None:
        run = max(runs, key=lambda r: int(r["run"].split("=")[-1]))
    else:
        run = next((r for r in runs if r["run"] == args.run), None)
        if run is None:
            sys.exit(f"simulate_jlpns: no run {args.run!r} in {args.trace} (runs: {', '.join(r['run'] for r in runs)})")
    trace = run["trace"]
    net = Network(bandwidth=args.gbit * 1e9 / 8, latency=args.latency_ms / 1e3)
    try:
        mean = {f: sum(float(j.get(f, 0)) for j in trace) / len(trace) for f in FIELDS + ("nodes",)}
    except (AttributeError, TypeError, ValueError) as e:
        sys.exit(f"simulate_jlpns: a malformed job record in {args.trace}: {e}")
    per_job = mean["worker_seconds"] + 2 * net.latency + (mean["sent_bytes"] + mean["returned_bytes"]) / net.bandwidth
    saturates = per_job / mean["master_seconds"] if mean["master_seconds"] > 0 else float("inf")
    print(f"{args.trace} run {run['run']}: {len(trace)} jobs; a mean job: {mean['nodes']:,.0f} expansions, "
          f"{mean['worker_seconds']:.3f} s searching, {mean['master_seconds'] * 1e3:.2f} ms of the master, "
          f"{mean['sent_bytes']:,.0f} bytes out, {mean['returned_bytes']:,.0f} back")
    print(f"the master saturates near {saturates:,.0f} workers (a job's search and transfer over its master time)")
    print(f"{'workers':>8} {'jobs':>7} {'speed-up':>9} {'efficiency':>10} {'master busy':>11} {'link busy':>9}")
    rows = []
    try:
        for w in workers:
            r = simulate(trace, w, jobs=args.jobs, network=net, seed=args.seed)
            rows.append(r)
            print(f"{w:>8} {r['jobs']:>7} {r['speedup']:>9.2f} {r['efficiency']:>10.3f} {r['master_busy']:>11.3f} "
                  f"{r['link_busy']:>9.3f}")
    except ValueError as e:
        sys.exit(f"simulate_jlpns: {e}")
    if args.out:
        command = " ".join(["python scripts/simulate_jlpns.py"] + sys.argv[1:])
        out = {**provenance(command), "trace": args.trace, "trace_run": run["run"],
               "trace_revision": report.get("revision"), "trace_position": report.get("position"),
               "trace_load": [run.get("load"), run.get("load_after")],
               "measured_ratios": report.get("ratios", {}),
               "network": {"gbit": args.gbit, "latency_ms": args.latency_ms}, "seed": args.seed,
               "mean_job": {k: round(v, 6) for k, v in mean.items()},
               "master_saturates_at_workers": round(saturates, 1),
               "not_modelled": "search overhead (extra expansions with more workers): see measured_ratios",
               "rows": rows}
        path = Path(args.out)
        write_json(path, out)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
