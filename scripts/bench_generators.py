"""SAT-backed generator against the baseline, on the same seed positions (issue 5, issue 21 item 5).

    python scripts/bench_generators.py --board 6/7 --units 40,40,40,12,8
    python scripts/bench_generators.py --board 4/5 --units 40,40,40,20 --out results/puzzles/generators-4-5.json

For each n, both methods work through the same seed positions (units seeded 0, 1, ...):
the baseline offers every defender group as it stands, the SAT generator reshapes it
first.  CPU time is the process time of the units themselves (one core, no compile,
no I/O), so a busy machine moves the figures less than wall time would.  Printed per n
and method: sound puzzles, dual-free ones, candidates verified, CPU seconds, puzzles
per CPU-minute, the SAT/baseline ratios of all puzzles and of dual-free puzzles per
CPU-minute (issue 21 asks for 5x at n = 3, 4 and 5), the **raw cook rate** (the share
of candidates the verifier rejects, in all and by reason: ``escapes``, no capture
within n found; ``shorter``, a capture within n - 1; ``cooked``, a second key;
``budget``, a search ran out), the SAT candidates blocked by an escape certificate
before any search (``certified``, :func:`puzzles.sat.certificate`) and the CPU seconds of each stage
(:data:`puzzles.generate.STAGES`, by outcome).  ``--out FILE`` writes all of it as
JSON with the command and the code version (``--json``: to stdout).  ``--source
selfplay`` takes the seed positions from the engine's self-play games instead (each
method plays the unit's game itself, and its CPU time counts).
"""

from __future__ import annotations

import argparse
import json
import sys

from puzzles.generate import SELFPLAY_PLAYOUTS, run_unit
from puzzles.record import code_version

#: the verifier's reasons for rejecting a candidate
REASONS = ("escapes", "shorter", "cooked", "budget")


def _units(text: str) -> list[int]:
    try:
        units = [int(u) for u in text.split(",")]
    except ValueError:
        raise ValueError(f"--units must be whole numbers separated by commas, not {text!r}") from None
    if not units or any(not 0 <= u <= 100_000 for u in units):
        raise ValueError(f"--units must be whole numbers from 0 to 100,000, not {text!r}")
    return units


def measure(method: str, board: str, n: int, seed: int, count: int, source: tuple = ("random",)) -> dict:
    """One method's figures over ``count`` units from ``seed``, seeds from ``source``
    (as :func:`puzzles.generate.seed_positions` takes it)."""
    found = dual = cands = 0
    cpu = 0.0
    verdicts: dict = {}
    stages: dict = {}
    for u in range(count):
        r = run_unit(method, board, n, seed + u, "bench", source)
        found += len(r.puzzles)
        dual += sum(p.dual_free for p in r.puzzles)
        cands += r.candidates
        cpu += r.seconds
        for k, v in r.verdicts.items():
            verdicts[k] = verdicts.get(k, 0) + v
        for k, v in r.stages.items():
            stages[k] = stages.get(k, 0.0) + v
    rejected = cands - verdicts.get("sound", 0)
    return {
        "puzzles": found, "dual_free": dual, "candidates": cands, "cpu_seconds": round(cpu, 2),
        "per_cpu_minute": round(found / cpu * 60, 2) if cpu else 0.0,
        "dual_free_per_cpu_minute": round(dual / cpu * 60, 2) if cpu else 0.0,
        "raw_cook_rate": round(rejected / cands, 3) if cands else None,
        "rejected": {k: verdicts.get(k, 0) for k in REASONS},
        # SAT candidates with an escape certificate (puzzles.sat, claim C): blocked
        # by their hard clause before any search, not counted as candidates
        "certified": verdicts.get("certified", 0),
        "rejected_share": {k: round(verdicts.get(k, 0) / cands, 3) if cands else None for k in REASONS},
        "stage_seconds": {k: round(v, 2) for k, v in sorted(stages.items())},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="6/7")
    ap.add_argument("--units", default="40,40,40,12,8", help="seed positions per n, from n = 1")
    ap.add_argument("--seed", type=int, default=424242, help="first unit seed")
    ap.add_argument("--source", default="random", choices=("random", "selfplay"),
                    help="seed games: random (the default) or the engine's self-play")
    ap.add_argument("--playouts", type=int, default=SELFPLAY_PLAYOUTS, help="self-play playouts a move")
    ap.add_argument("--json", action="store_true", help="the results as JSON on stdout")
    ap.add_argument("--out", help="write the results as JSON to this file")
    args = ap.parse_args()
    try:
        units = _units(args.units)
        if not 1 <= args.playouts <= 1_000_000:
            raise ValueError(f"--playouts must be a whole number from 1 to 1,000,000, not {args.playouts}")
        from solver import Board

        Board.parse(args.board)
    except ValueError as e:
        print(f"bench_generators: {e}", file=sys.stderr)
        return 2
    # compile the kernels outside the measured units
    run_unit("baseline", args.board, 1, args.seed, "warm-up")
    source = ("selfplay", args.playouts) if args.source == "selfplay" else ("random",)
    rows = []
    for n, count in enumerate(units, start=1):
        row = {"n": n, "units": count}
        for method in ("baseline", "sat"):
            m = row[method] = measure(method, args.board, n, args.seed, count, source)
            cooks = ", ".join(f"{k} {m['rejected'][k]}" for k in REASONS)
            print(f"n={n} {method:8s} {m['puzzles']:4d} puzzles ({m['dual_free']} dual-free) from "
                  f"{m['candidates']} candidates, {m['cpu_seconds']:7.1f} CPU s, {m['per_cpu_minute']:7.1f}/CPU-min "
                  f"({m['dual_free_per_cpu_minute']:.1f} dual-free); raw cook rate {m['raw_cook_rate']} ({cooks}); "
                  f"certified escapes {m['certified']}",
                  file=sys.stderr, flush=True)
            print("      stages: " + ", ".join(f"{k} {v:.1f}s" for k, v in m["stage_seconds"].items()),
                  file=sys.stderr, flush=True)
        b, s = row["baseline"], row["sat"]
        row["ratio"] = round(s["per_cpu_minute"] / b["per_cpu_minute"], 2) if b["per_cpu_minute"] else None
        row["ratio_dual_free"] = (round(s["dual_free_per_cpu_minute"] / b["dual_free_per_cpu_minute"], 2)
                                  if b["dual_free_per_cpu_minute"] else None)
        print(f"n={n} sat/baseline: {row['ratio']}x puzzles per CPU-minute, "
              f"{row['ratio_dual_free']}x dual-free", file=sys.stderr, flush=True)
        rows.append(row)
    command = "python scripts/bench_generators.py " + " ".join(sys.argv[1:])
    out = {"command": command, "board": args.board, "seed": args.seed, "source": args.source,
           **({"playouts": args.playouts} if args.source == "selfplay" else {}),
           "version": code_version(), "rows": rows}
    text = json.dumps(out, indent=1) + "\n"
    if args.out:
        from solver.util.files import write_atomic

        try:
            write_atomic(args.out, text)
        except OSError as e:
            print(f"bench_generators: cannot write {args.out}: {e.strerror or e}", file=sys.stderr)
            return 1
    if args.json:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
