#!/usr/bin/env python3
"""Benchmark of start-up: the wall time of commands in fresh interpreters, cold (an empty
numba cache, as on a fresh clone) and warm (the same cache, filled by the cold run).

Usage: python scripts/bench_startup.py [--board 2/3] [--further "lookup 4/5 --time 1"]...
                                       [--help-runs 5] [--warm-runs 3] [--json] [--out FILE]

Each command runs as ``python -m solver.cli ARGS`` (this interpreter and this tree; a
version manager's shim in front of the ``meridians`` script adds its own start-up) with
``NUMBA_CACHE_DIR`` set to a new empty temporary folder, so that the kernels cached beside
the sources (``__pycache__``) are not used and not touched, and with Python's default of
writing bytecode (without ``PYTHONDONTWRITEBYTECODE``, which would compile every module
from source in every run).  In order, in one cache:

1. ``meridians --help``, ``--help-runs`` times (the median; no kernel is involved);
2. ``meridians solve BOARD --no-database`` cold: the README's main job on a fresh
   machine; then ``--warm-runs`` times warm (the median);
3. each ``--further`` command (default ``lookup 4/5 --time 1`` and
   ``move 3/4 --playouts 100 --no-database``) cold, after the main job filled the cache:
   a further board's first use; then warm.

Printed: per command its cold and warm wall seconds, the target and the ratio of the
measured seconds to it (<= 1 meets it), and the first-use notice the cold run printed on
stderr (so that its estimate can be checked against the measured time).  ``--out FILE``
also writes the JSON (atomically, with the command and the code revision).

Targets (the start-up issue): the main job cold <= 20 s, a further board's first use
<= 5 s, ``meridians --help`` <= 0.3 s.  A benchmark, not a test: the wall times depend on
the machine and its load (the load average is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from solver.util.files import write_json
from solver.util.provenance import provenance

ROOT = Path(__file__).resolve().parent.parent
HELP_TARGET, MAIN_TARGET, FURTHER_TARGET = 0.3, 20.0, 5.0
FURTHER = ["lookup 4/5 --time 1", "move 3/4 --playouts 100 --no-database"]


def run(args: list[str], cache: str) -> tuple[float, str]:
    """Wall seconds of ``meridians ARGS`` in a fresh interpreter with the numba cache in
    ``cache``, and the first line it wrote on stderr."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache,
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # Python's default: modules compiled once, not every run
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "solver.cli", *args], env=env, cwd=ROOT,
                       capture_output=True, text=True)
    took = time.perf_counter() - t0
    if r.returncode not in (0, 1, 3):
        raise SystemExit(f"meridians {shlex.join(args)} exited {r.returncode}: {r.stderr.strip()[-500:]}")
    lines = [line for line in r.stderr.splitlines() if line.startswith("compiling")]
    return took, lines[0] if lines else ""


def measure(args: list[str], cache: str, warm_runs: int, target: float) -> dict:
    cold, notice = run(args, cache)
    warm = [run(args, cache)[0] for _ in range(warm_runs)]
    return {"command": "meridians " + shlex.join(args), "cold": round(cold, 3),
            "warm": round(statistics.median(warm), 3) if warm else None,
            "target": target, "ratio": round(cold / target, 3), "notice": notice}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="2/3", help="the main job's board")
    ap.add_argument("--further", action="append", default=None,
                    help="a further board's command, its arguments as one string (repeatable)")
    ap.add_argument("--help-runs", type=int, default=5)
    ap.add_argument("--warm-runs", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--out", default=None, help="also write the JSON object to this file")
    args = ap.parse_args()
    if args.help_runs < 1 or args.warm_runs < 0:
        ap.error("--help-runs is at least 1, --warm-runs at least 0")
    further = args.further or FURTHER
    stamp = provenance(shlex.join(["python", "scripts/bench_startup.py", *sys.argv[1:]]))  # as the run starts

    rows = []
    with tempfile.TemporaryDirectory(prefix="meridians-numba-cache-") as cache:
        helps = [run(["--help"], cache)[0] for _ in range(args.help_runs)]
        rows.append({"command": "meridians --help", "cold": round(statistics.median(helps), 3),
                     "warm": None, "target": HELP_TARGET,
                     "ratio": round(statistics.median(helps) / HELP_TARGET, 3), "notice": ""})
        rows.append(measure(["solve", args.board, "--no-database"], cache, args.warm_runs, MAIN_TARGET))
        for text in further:
            rows.append(measure(shlex.split(text), cache, args.warm_runs, FURTHER_TARGET))
    met = all(r["ratio"] <= 1 for r in rows)
    out = {**stamp, "rows": rows, "targets_met": met, "load_average": round(os.getloadavg()[0], 2)}
    if args.out:
        write_json(args.out, out)
    if args.json:
        print(json.dumps(out, indent=1))
        return
    width = max(len(r["command"]) for r in rows)
    print(f"{'command':<{width}}  {'cold s':>7}  {'warm s':>7}  {'target':>6}  {'cold/target':>11}")
    for r in rows:
        warm = f"{r['warm']:7.2f}" if r["warm"] is not None else f"{'-':>7}"
        print(f"{r['command']:<{width}}  {r['cold']:7.2f}  {warm}  {r['target']:6.1f}  {r['ratio']:11.2f}")
    for r in rows:
        if r["notice"]:
            print(f"  notice of '{r['command']}': {r['notice']}")
    print(f"--help: median of {args.help_runs}; warm: median of {args.warm_runs}; "
          f"targets {'met' if met else 'NOT met'}  (load average {out['load_average']:.1f})")


if __name__ == "__main__":
    main()
