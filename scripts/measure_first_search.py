"""The nodes the generator's first search needs on committed puzzles (issue 36 item 4).

    python scripts/measure_first_search.py --sets 6-7-c4,6-7-c5,6-7-c6 \\
        --out results/puzzles/first-search-nodes-6-7.json

:func:`puzzles.generate.check` drops a candidate whose capture its first search (a
"can X capture at all" search on emptied tables, :data:`puzzles.generate.SAT_QUICK`
nodes for the SAT generator, :data:`puzzles.generate.EXTEND_QUICK` for extend) does
not find.  Every sound puzzle passed that search, so the nodes it needs on each
committed puzzle (re-run here on today's code, within ``--budget`` nodes, a budget at
least the generator's: the search's order does not depend on its budget, so the count
is the one any budget above it finds) say how many puzzles a tighter budget would have
dropped.  Printed and written per set: the puzzles, their generator, the nodes'
percentiles, the share found within each budget of ``--cuts``, and the CPU seconds.
``--out`` is written atomically with the command and code version.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the folder of the committed sets
SETS = ROOT / "results" / "puzzles"
CUTS = (2_000, 5_000, 10_000, 15_000, 20_000, 30_000, 40_000, 60_000, 100_000, 200_000, 500_000, 1_000_000)


def first_search_nodes(p, budget: int) -> int | None:
    """The nodes :func:`puzzles.generate.check`'s first search needs to find the
    puzzle's capture (None: not within ``budget``)."""
    from solver.search import capture
    from solver.search.limit import Limit

    capture.forget()
    s = capture.CaptureSearch(p.to_position(), p.target, limit=Limit(nodes=budget))
    found = s.captures(p.n)
    return s.nodes if found else None


def _percentile(xs: list[int], q: float) -> int:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def measure(name: str, budget: int) -> dict:
    from puzzles.record import load_jsonl

    puzzles = load_jsonl(SETS / f"{name}.jsonl")
    t0 = time.process_time()
    nodes = [first_search_nodes(p, budget) for p in puzzles]
    cpu = time.process_time() - t0
    got = [x for x in nodes if x is not None]
    gens: dict = {}
    for p in puzzles:
        gens[p.generator] = gens.get(p.generator, 0) + 1
    return {
        "set": name, "puzzles": len(puzzles), "generators": gens, "budget": budget,
        "not_found": len(nodes) - len(got),
        "percentiles": {f"p{int(q * 100)}": _percentile(got, q) for q in (0.5, 0.75, 0.9, 0.95, 0.99)} if got else {},
        "max": max(got, default=None),
        "within": {str(c): sum(x <= c for x in got) for c in CUTS if c <= budget},
        "cpu_seconds": round(cpu, 1),
        "nodes": nodes,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="6-7-c4,6-7-c5,6-7-c6", help="committed sets, comma-separated")
    ap.add_argument("--budget", type=int, default=1_000_000, help="node budget of each re-run")
    ap.add_argument("--out", help="write the results as JSON to this file")
    args = ap.parse_args()
    names = [s for s in args.sets.split(",") if s]
    missing = [s for s in names if not (SETS / f"{s}.jsonl").is_file()]
    if not names or missing:
        print(f"measure_first_search: no committed set {', '.join(missing) or '(none given)'}", file=sys.stderr)
        return 2
    if not 1 <= args.budget <= 100_000_000:
        print(f"measure_first_search: --budget must be from 1 to 100,000,000, not {args.budget}", file=sys.stderr)
        return 2
    from puzzles.record import code_version

    version = code_version()
    rows = []
    for name in names:
        r = measure(name, args.budget)
        rows.append(r)
        print(f"{name}: {r['puzzles']} puzzles {r['generators']}, not found {r['not_found']}, "
              f"nodes {r['percentiles']} max {r['max']}; within {r['within']}; {r['cpu_seconds']} CPU s",
              file=sys.stderr, flush=True)
    out = {"command": "python scripts/measure_first_search.py " + " ".join(sys.argv[1:]), "version": version,
           "rows": rows}
    if args.out:
        from solver.util.files import write_json

        try:
            write_json(args.out, out)
        except OSError as e:
            print(f"measure_first_search: cannot write {args.out}: {e.strerror or e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
