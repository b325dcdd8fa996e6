#!/usr/bin/env python3
"""What one df-pn table shared by the class proofs buys (solve_openings.py's way): the
expansions and seconds of some classes proven each with a new table, then the same
classes in order in one table, in one run.

Usage: python scripts/bench_shared_table.py [--board 3/4] [--pie]
                                            [--classes a1-a3,a1-b3,a1-a2] [--tt-mb 4000]

Prints each class's expansions both ways and the ratios (shared over new), per class and
in total; the values must agree.
"""

from __future__ import annotations

import argparse
import sys
import time

from solver import Board, Position
from solver.app.openings.classes import class_jobs
from solver.search.limit import Limit
from solver.search.prove import load_kernels, new_search, prove


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="3/4")
    ap.add_argument("--pie", action="store_true", help="the pie's classes of pairs of first stones")
    ap.add_argument("--classes", default="a1-a3,a1-b3,a1-a2", help="class names, in the order they are proven")
    ap.add_argument("--tt-mb", type=float, default=4000)
    a = ap.parse_args()
    try:
        board = Board.parse(a.board)
    except ValueError as e:
        sys.exit(f"bench_shared_table: {e}")
    jobs = {j.key: j for j in class_jobs(board, a.pie)}
    keys = [k for k in a.classes.split(",") if k]
    if not keys or any(k not in jobs for k in keys):
        sys.exit(f"bench_shared_table: give classes of {a.board}{' (pie)' if a.pie else ''}: {', '.join(jobs)}")
    load_kernels(board)
    limit = Limit(tt_mb=a.tt_mb)
    rows = {}
    for k in keys:
        t = time.perf_counter()
        p = prove(Position.parse(jobs[k].position), limit)
        rows[k] = [p.value, p.nodes, time.perf_counter() - t]
        print(f"new table    {k:8} {p.value!s:8} {p.nodes:>14,} expansions {rows[k][2]:8.1f} s", flush=True)
    search = new_search(board, a.tt_mb)
    for k in keys:
        t = time.perf_counter()
        p = prove(Position.parse(jobs[k].position), limit, search=search)
        if p.value != rows[k][0]:
            sys.exit(f"bench_shared_table: {k} is {rows[k][0]} with a new table, {p.value} in the shared one")
        rows[k] += [p.nodes, time.perf_counter() - t]
        print(f"shared table {k:8} {p.value!s:8} {p.nodes:>14,} expansions {rows[k][4]:8.1f} s "
              f"(x{p.nodes / max(rows[k][1], 1):.2f})", flush=True)
    new, shared = sum(r[1] for r in rows.values()), sum(r[3] for r in rows.values())
    print(f"in all: {shared:,} expansions in the shared table against {new:,} in new ones: x{shared / max(new, 1):.3f}; "
          f"seconds x{sum(r[4] for r in rows.values()) / max(sum(r[2] for r in rows.values()), 1e-9):.3f}")


if __name__ == "__main__":
    main()
