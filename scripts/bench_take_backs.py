"""Take-backs against one-point changes alone, or a larger node budget against today's,
in one run (issue 36 item 4).

    python scripts/bench_take_backs.py --set 6-7-c5 --parents 40 --jobs 2 \\
        --out results/puzzles/take-backs-6-7-c6.json
    python scripts/bench_take_backs.py --set 6-7-c5 --parents 40 --jobs 2 --budget 24000000 \\
        --out results/puzzles/budget-6-7-c6.json

The extend generator on the committed (n-1)-movers of ``--set`` as parents (the
first ``--parents`` of the file, as ``--source parents`` takes them), each parent run
twice by :func:`puzzles.generate.extend_unit`: ``one_point``, its one-point changes
alone (``take_back=False``, the generator before take-backs), and ``take_backs``, its
take-backs first (the generator now); which side goes first alternates parent by
parent.  Printed per side: parents, candidates, dual-free children (one a parent at
most), CPU seconds (each side's own process time), dual-free children per CPU-minute
and the verdicts; then take_backs/one_point.  With ``--budget N`` the sides are
``today`` (the generator as it is, ``BUDGET[n]`` nodes for every search after the
first) and ``larger`` (N nodes), both with take-backs; then larger/today.  Every child is also checked on the spot
by :func:`puzzles.verdict.check_line` (its line dual-free); a failure stops the run.
``--out FILE`` writes it all as JSON with the command and the code version, only when
every parent finished.  Ctrl-C stops it with nothing written.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the two sides, before and after, with what extend_unit is given on each (``--budget``
#: compares ``today`` with ``larger`` instead)
SIDES = {"one_point": {"take_back": False}, "take_backs": {}}


def _confirm(p) -> None:
    """Stop the run if a kept child's line is not dual-free as recorded."""
    from puzzles.verdict import line_as_recorded

    if not line_as_recorded(p):
        raise RuntimeError(f"a child is not dual-free as recorded: {p.to_dict()}")


def both_sides(parent, index: int, version: str, sides: dict) -> dict:
    """Each side's extend unit on ``parent``: {side: (candidates, dual-free children,
    CPU seconds, verdicts)}."""
    from puzzles.generate import extend_unit

    board = parent.to_position().board
    order = list(sides) if index % 2 == 0 else list(sides)[::-1]
    out = {}
    for side in order:
        t = time.process_time()
        r = extend_unit(board, parent.n + 1, 0, version, source=("parents", parent), fast=True, **sides[side])
        cpu = time.process_time() - t
        for p in r.puzzles:
            _confirm(p)
        out[side] = (r.candidates, sum(p.dual_free for p in r.puzzles), cpu, dict(r.verdicts))
    return out


def _today(parents) -> int:
    """The node budget the generator gives the children of ``parents`` today."""
    from puzzles.generate import node_budget

    return node_budget(parents[0].n + 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="6-7-c5", help="the committed (n-1)-set whose puzzles are the parents")
    ap.add_argument("--parents", type=int, default=40, help="how many of its puzzles, from the first")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (a parent each)")
    ap.add_argument("--budget", type=int, help="compare this node budget with today's instead of take-backs")
    ap.add_argument("--out", help="write the results as JSON to this file")
    args = ap.parse_args()
    path = os.path.join(ROOT, "results", "puzzles", f"{args.set}.jsonl")
    try:
        if not 1 <= args.parents <= 10_000:
            raise ValueError(f"--parents must be a whole number from 1 to 10,000, not {args.parents}")
        if not 1 <= args.jobs <= 8:
            raise ValueError(f"--jobs must be a whole number from 1 to 8, not {args.jobs}")
        if args.budget is not None and not 1_000 <= args.budget <= 10**9:
            raise ValueError(f"--budget must be a whole number from 1,000 to 1,000,000,000, not {args.budget}")
        if not os.path.exists(path):
            raise ValueError(f"--set {args.set}: no such committed set ({os.path.relpath(path, ROOT)})")
        from puzzles.record import code_version, load_jsonl

        parents = load_jsonl(path)[:args.parents]
        if parents and parents[0].n < 2:
            raise ValueError(f"--set {args.set}: take-backs need parents of 2 moves or more")
        if args.budget is not None and args.budget <= _today(parents):
            raise ValueError(f"--budget {args.budget:,} is not larger than today's {_today(parents):,}")
    except ValueError as e:
        print(f"bench_take_backs: {e}", file=sys.stderr)
        return 2
    from joblib import Parallel, delayed

    from solver.util.provenance import code_revision, provenance

    version = code_version()  # before the run: what ran, whatever is edited meanwhile
    revision = code_revision()
    sides = SIDES if args.budget is None else {"today": {}, "larger": {"budget": args.budget}}
    print(f"bench_take_backs: {len(parents)} parents of {args.set}, both sides each; the first run "
          "compiles the capture kernels", file=sys.stderr, flush=True)
    t0 = time.time()
    totals = {s: {"parents": 0, "candidates": 0, "dual_free": 0, "cpu_seconds": 0.0, "verdicts": {}} for s in sides}
    try:
        for i, row in enumerate(Parallel(n_jobs=args.jobs, return_as="generator")(
                delayed(both_sides)(p, i, version, sides) for i, p in enumerate(parents)), 1):
            for side, (cands, free, cpu, verdicts) in row.items():
                t = totals[side]
                t["parents"] += 1
                t["candidates"] += cands
                t["dual_free"] += free
                t["cpu_seconds"] += cpu
                for k, v in verdicts.items():
                    t["verdicts"][k] = t["verdicts"].get(k, 0) + v
            print(f"{i}/{len(parents)}: " + "; ".join(
                f"{s} {totals[s]['dual_free']} dual-free in {totals[s]['cpu_seconds']:.0f} CPU s" for s in sides),
                file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("bench_take_backs: interrupted, nothing written", file=sys.stderr)
        return 130
    for side, t in totals.items():
        t["cpu_seconds"] = round(t["cpu_seconds"], 1)
        t["dual_free_per_cpu_minute"] = round(t["dual_free"] / t["cpu_seconds"] * 60, 3) if t["cpu_seconds"] else 0.0
        print(f"{side}: {t['parents']} parents, {t['candidates']} candidates, {t['dual_free']} dual-free children, "
              f"{t['cpu_seconds']} CPU s, {t['dual_free_per_cpu_minute']} a CPU-minute; verdicts {t['verdicts']}")
    (first, before), (second, after) = ((s, totals[s]["dual_free_per_cpu_minute"]) for s in sides)
    ratio = round(after / before, 2) if before else None
    print(f"{second}/{first}: {ratio}x dual-free children a CPU-minute" + ("" if before else f" (none from {first})"))
    if args.out:
        from solver.util.files import write_json

        out = {**provenance("python scripts/bench_take_backs.py " + " ".join(sys.argv[1:]), revision=revision),
               "code_version": version,
               "set": args.set, **({} if args.budget is None else {"budget": args.budget, "budget_today": _today(parents)}),
               "wall_seconds": round(time.time() - t0), **totals, "ratio": ratio}
        try:
            write_json(args.out, out)
        except OSError as e:
            print(f"bench_take_backs: cannot write {args.out}: {e.strerror or e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
