#!/usr/bin/env python3
"""The certificate of a JL-PNS proof against that of one df-pn proof, on one position in
one run: what assembling costs beside the search, and the size of what it writes.

Usage: python scripts/bench_jlpns_certificate.py [--position POS] [--job-nodes 20000]
                                                 [--workers 1] [--tt-mb 256] [--out [FILE]]

The default position is :mod:`scripts.bench_jlpns`'s (a 3/4 position that plain df-pn
proves in about a million expansions).  Runs, each with ``/proc/loadavg`` before it:
JL-PNS (its wall seconds, expansions, jobs, tree), its certificate (seconds to write, the
leaves proven again and their expansions, positions, bytes), the check of that file by
the reference checker (seconds, one process); then plain df-pn, its certificate and its
check alike.  Ratios: the certificate's writing time and its leaves' expansions against
JL-PNS's search, and its positions against the single proof's.  ``--out`` writes the
report as JSON (default results/jlpns/certificate-bench.json) with its command and code
version; without it nothing is written.  The certificates go to a temporary folder.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from solver import Position
from solver.jobs.jlpns import load_tree, jlpns
from solver.jobs.jlpns_certificate import write_jlpns_certificate
from solver.reference.certificate import check
from solver.search.certificate import write_certificate
from solver.search.limit import Limit
from solver.search.prove import load_kernels, prove
from solver.util.files import write_json
from solver.util.provenance import load_average, provenance

OUT = Path(__file__).resolve().parent.parent / "results" / "jlpns" / "certificate-bench.json"
POSITION = "1D1/4/1DL2/L2L2/5/2D1/3 L"


def timed(run):
    la = load_average()
    t0 = time.perf_counter()
    out = run()
    return out, round(time.perf_counter() - t0, 3), la


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--position", default=POSITION)
    ap.add_argument("--job-nodes", type=int, default=20_000, help="each job's budget in expansions")
    ap.add_argument("--workers", type=int, default=1, help="JL-PNS's workers")
    ap.add_argument("--tt-mb", type=float, default=256, help="each table, in MiB")
    ap.add_argument("--out", nargs="?", const=str(OUT), default=None, help="write the report (default path: %(const)s)")
    args = ap.parse_args()
    pos = Position.parse(args.position)
    load_kernels(pos.board)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        ck, jl_file, one_file = Path(tmp) / "tree.json", Path(tmp) / "jlpns.json", Path(tmp) / "one.json"
        r, s, la = timed(lambda: jlpns(pos, Limit(tt_mb=args.tt_mb), workers=args.workers,
                                       job_nodes=args.job_nodes, checkpoint=ck))
        rows["jlpns"] = {"value": r.value.value, "seconds": s, "nodes": r.nodes, "jobs": r.stats["jobs"],
                         "master_nodes": r.stats["master_nodes"], "load": la}
        print(f"jlpns: {r.value}, {s:.1f} s, {r.nodes:,} expansions, {r.stats['jobs']} jobs, "
              f"a tree of {r.stats['master_nodes']} nodes (load {la})", flush=True)
        if not r.value.decided:
            sys.exit("bench_jlpns_certificate: JL-PNS did not decide the position")
        head, s, la = timed(lambda: write_jlpns_certificate(jl_file, pos, load_tree(ck, pos), tt_mb=args.tt_mb))
        n, cs, cla = timed(lambda: check(jl_file))
        rows["jlpns certificate"] = {"seconds": s, "positions": head["node_count"], "bytes": head["bytes"],
                                     **head["jlpns"], "reproved": head["reproved"], "load": la,
                                     "check_seconds": cs, "check_load": cla}
        print(f"its certificate: {head['node_count']:,} positions, {head['bytes']:,} bytes, written in {s:.1f} s "
              f"({head['jlpns']['leaves']} leaves proven again, {head['jlpns']['leaf_nodes']:,} expansions; "
              f"load {la}), checked in {cs:.1f} s (load {cla})", flush=True)
        p, s, la = timed(lambda: prove(pos, Limit(tt_mb=args.tt_mb)))
        rows["dfpn"] = {"value": p.value.value, "seconds": s, "nodes": p.nodes, "load": la}
        print(f"dfpn: {p.value}, {s:.1f} s, {p.nodes:,} expansions (load {la})", flush=True)
        one, s, la = timed(lambda: write_certificate(one_file, pos, p, tt_mb=args.tt_mb))
        n1, cs, cla = timed(lambda: check(one_file))
        rows["dfpn certificate"] = {"seconds": s, "positions": one["node_count"], "bytes": one["bytes"],
                                    "reproved": one["reproved"], "load": la, "check_seconds": cs, "check_load": cla}
        print(f"its certificate: {one['node_count']:,} positions, {one['bytes']:,} bytes, written in {s:.1f} s "
              f"(load {la}), checked in {cs:.1f} s (load {cla})", flush=True)
    if p.value != r.value:
        sys.exit(f"bench_jlpns_certificate: the runs disagree on {pos}: {r.value}, {p.value}")
    jc, dc = rows["jlpns certificate"], rows["dfpn certificate"]
    ratios = {"certificate seconds / jlpns seconds": round(jc["seconds"] / max(1e-9, rows["jlpns"]["seconds"]), 3),
              "leaf expansions / jlpns expansions": round(jc["leaf_nodes"] / max(1, rows["jlpns"]["nodes"]), 3),
              "positions / single proof's positions": round(jc["positions"] / max(1, dc["positions"]), 3)}
    for k, v in ratios.items():
        print(f"{k}: {v:.2f}")
    print(f"load average now {load_average()}")
    if args.out:
        command = " ".join(["python scripts/bench_jlpns_certificate.py"] + sys.argv[1:])
        report = {**provenance(command), "position": str(pos), "job_nodes": args.job_nodes,
                  "workers": args.workers, "runs": rows, "ratios": ratios}
        out = Path(args.out)
        write_json(out, report)
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
