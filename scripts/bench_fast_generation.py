"""The fast generator against the slow one, in one run (issue 36 item 4).

    python scripts/bench_fast_generation.py --board 6/7 --n 4,5,6 --budget 120,150,180 \\
        --out results/puzzles/generation-fast-6-7.json

For each n the generator the committed set used (``sat`` for n <= 5, ``extend`` for
n = 6: :data:`METHODS`) runs its units slow (:func:`puzzles.generate.run_unit` with
``fast=False``: every sound candidate verified in full, the group done at its first
sound puzzle, dual or not) and fast (``fast=True``: :func:`puzzles.verdict.screen`
refuses cooked candidates and those with a dual first, and the group goes on), on the
same seed games (units seeded ``seed * 1_000_003 + u``, u = 0, 1, ..., as
``meridians puzzles generate --seed`` numbers them; self-play at ``--playouts``), the
two sides taking turns unit by unit until each has spent ``--budget`` CPU seconds (a
unit is never cut, so each side ends a little over).  The n's run in parallel worker
processes (``--jobs``), each side's CPU time being the process time of its own units
(seed games included; no compile, no I/O), so a busy machine moves the figures less
than wall time would.  Printed per n and side: units, candidates, sound puzzles found
(with or without a dual), dual-free ones, CPU seconds, dual-free puzzles per
CPU-minute and the CPU seconds of each stage (:data:`puzzles.generate.STAGES`, by
outcome); then the fast/slow ratio, and the committed set's own rate from its state
file (``found_dual_free`` over ``cpu_seconds``), today's rate before this change, with
the fast side's rate over it.  With ``--any-parents``, an n made by ``extend`` gets a
third side, ``fast_any_parents``: the fast generator with (n-1)-movers that may have a
dual (``free_parents=False``, how the fast path ran before), and ``ratio_to_any_parents``.

The fast side reads its seed games from the cache of seed games
(:mod:`puzzles.seedgames`), a fresh temporary one: before each of its units the unit's
game is put there (played once, as the first run of a board and seed does; the c5 and
c6 runs and every resumed run find it there), and the CPU seconds of that are counted
apart, as ``seed_games_cpu_seconds``: ``dual_free_per_cpu_minute`` and ``ratio`` are
the fast side's with the games cached, ``..._cold`` and ``ratio_cold`` with the games
played (the slow side always plays them).  ``--quick`` sets the fast side's first-search
budget (default :data:`puzzles.generate.FAST_SAT_QUICK`).

Every puzzle the fast side keeps is also checked on the spot by
:func:`puzzles.verdict.check_line` (its line dual-free, its last moves as recorded);
a failure stops the run.  ``--out FILE`` writes it all as JSON with the command and
the code version, only when every n finished.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from puzzles.generate import SELFPLAY_PLAYOUTS, run_unit
from puzzles.record import code_version

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: the method each n's committed 6/7 set was made with
METHODS = {1: "sat", 2: "sat", 3: "sat", 4: "sat", 5: "sat", 6: "extend"}


def _ints(text: str, name: str, lo: int, hi: int) -> list[int]:
    try:
        xs = [int(u) for u in text.split(",")]
    except ValueError:
        raise ValueError(f"--{name} must be whole numbers separated by commas, not {text!r}") from None
    if not xs or any(not lo <= x <= hi for x in xs):
        raise ValueError(f"--{name} must be whole numbers from {lo} to {hi}, not {text!r}")
    return xs


def _side() -> dict:
    return {"units": 0, "candidates": 0, "found": 0, "dual_free": 0, "cpu_seconds": 0.0,
            "verdicts": {}, "stages": {}}


def _add(side: dict, r) -> None:
    side["units"] += 1
    side["candidates"] += r.candidates
    side["cpu_seconds"] += r.seconds
    side["dual_free"] += sum(p.dual_free for p in r.puzzles)
    # sound puzzles: the slow side's records, dual or not, and the duals the fast side refused
    side["found"] += len(r.puzzles) + r.verdicts.get("duals", 0)
    for k, v in r.verdicts.items():
        side["verdicts"][k] = side["verdicts"].get(k, 0) + v
    for k, v in r.stages.items():
        side["stages"][k] = side["stages"].get(k, 0.0) + v


def _confirm(p) -> None:
    """Stop the run if a kept puzzle's line is not dual-free as recorded."""
    from puzzles.verdict import line_as_recorded

    if not line_as_recorded(p):
        raise RuntimeError(f"the fast generator kept a puzzle that is not dual-free as recorded: {p.to_dict()}")


def measure_n(board: str, n: int, method: str, seed: int, budget: float, playouts: int,
              quick: int | None = None, any_parents: bool = False) -> dict:
    """Both sides of one n (the module docstring), taking turns unit by unit; with
    ``any_parents`` (extend only) a third, the fast side with parents that may have a dual."""
    import shutil
    import tempfile

    from puzzles import seedgames
    from puzzles.generate import FAST_SAT_QUICK, _span, selfplay_game
    from solver import Board
    from solver.util.files import CACHE_DIR_ENV

    run_unit("baseline", board, 1, seed, "warm-up", fast=False)  # compile outside the units
    selfplay_game(Board.parse(board), 0, playouts, plies=1)  # and load the engine's kernels
    if quick is None:
        quick = FAST_SAT_QUICK[n if method == "sat" else n - 1]
    folder = tempfile.mkdtemp(prefix="bench-seedgames-")
    os.environ[CACHE_DIR_ENV] = folder  # this worker's cache: empty, so every game is played once
    source = ("selfplay", playouts)
    names = ["slow", "fast"] + (["fast_any_parents"] if any_parents and method == "extend" else [])
    sides = {name: _side() for name in names}
    for name in names[1:]:
        sides[name]["seed_games_cpu_seconds"] = 0.0
    u = dict.fromkeys(names, 0)
    t0 = time.time()
    while any(s["cpu_seconds"] < budget for s in sides.values()):
        for name, side in sides.items():
            if side["cpu_seconds"] >= budget:
                continue
            unit_seed = seed * 1_000_003 + u[name]
            if name != "slow":
                t = time.process_time()
                seedgames.selfplay_game(Board.parse(board), unit_seed, playouts, plies=_span(Board.parse(board))[1])
                side["seed_games_cpu_seconds"] += time.process_time() - t
            r = run_unit(method, board, n, unit_seed, "bench", source, fast=name != "slow",
                         quick=quick if name != "slow" else None, free_parents=name != "fast_any_parents")
            if name != "slow":
                for p in r.puzzles:
                    _confirm(p)
            _add(side, r)
            u[name] += 1
            print(f"n={n} {name} unit {u[name]}: {len(r.puzzles)} kept, {r.seconds:.1f} CPU s; "
                  f"{side['dual_free']} dual-free in {side['cpu_seconds']:.0f} CPU s", file=sys.stderr, flush=True)
    shutil.rmtree(folder, ignore_errors=True)
    fast = sides["fast"]
    cold = fast["cpu_seconds"] + fast["seed_games_cpu_seconds"]
    fast["seed_games_cpu_seconds"] = round(fast["seed_games_cpu_seconds"], 1)
    fast["dual_free_per_cpu_minute_cold"] = round(fast["dual_free"] / cold * 60, 3) if cold else 0.0
    for side in sides.values():
        cpu = side["cpu_seconds"]
        side["cpu_seconds"] = round(cpu, 1)
        side["dual_free_per_cpu_minute"] = round(side["dual_free"] / cpu * 60, 3) if cpu else 0.0
        side["stages"] = {k: round(v, 1) for k, v in sorted(side["stages"].items())}
    s, f = sides["slow"]["dual_free_per_cpu_minute"], fast["dual_free_per_cpu_minute"]
    c = fast["dual_free_per_cpu_minute_cold"]
    extra = {}
    if "fast_any_parents" in sides:
        a = sides["fast_any_parents"]["dual_free_per_cpu_minute"]
        extra["ratio_to_any_parents"] = round(f / a, 2) if a else None
    return {"n": n, "method": method, "budget_cpu_seconds": budget, "fast_quick": quick, **sides,
            "ratio": round(f / s, 2) if s else None, "ratio_cold": round(c / s, 2) if s else None, **extra,
            "wall_seconds": round(time.time() - t0)}


def committed_rate(board: str, n: int) -> dict | None:
    """Today's rate: the dual-free puzzles over the CPU seconds of the run that began the
    committed set (its first, when the set was grown by later runs)."""
    path = os.path.join(ROOT, "results", "puzzles", f"{board.replace('/', '-')}-c{n}.jsonl.state.json")
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    earlier = d.get("earlier")
    if isinstance(earlier, list) and earlier and isinstance(earlier[0], dict):
        d = earlier[0]
    cpu, dual = d.get("cpu_seconds"), d.get("found_dual_free")
    if not isinstance(cpu, (int, float)) or not isinstance(dual, int) or cpu <= 0:
        return None
    return {"file": os.path.relpath(path, ROOT), "method": d.get("method"), "seed": d.get("seed"),
            "units": d.get("units"), "found_dual_free": dual, "cpu_seconds": round(cpu, 1),
            "dual_free_per_cpu_minute": round(dual / cpu * 60, 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="6/7")
    ap.add_argument("--n", default="4,5,6", help="the n's, comma-separated")
    ap.add_argument("--budget", default="120,150,180", help="CPU seconds per side, one per n (or one for all)")
    ap.add_argument("--seed", type=int, default=1, help="the run seed (the committed 6/7 sets': 1)")
    ap.add_argument("--playouts", type=int, default=SELFPLAY_PLAYOUTS, help="self-play playouts a move")
    ap.add_argument("--jobs", type=int, default=3, help="worker processes (one n each)")
    ap.add_argument("--quick", default=None,
                    help="the fast side's first-search budget in nodes, one per n or one for all "
                         "(default: puzzles.generate.FAST_SAT_QUICK)")
    ap.add_argument("--any-parents", action="store_true",
                    help="for extend: a third side, the fast one with (n-1)-movers that may have a dual")
    ap.add_argument("--out", help="write the results as JSON to this file")
    args = ap.parse_args()
    try:
        ns = _ints(args.n, "n", 1, 6)
        budgets = _ints(args.budget, "budget", 1, 100_000)
        if len(budgets) == 1:
            budgets *= len(ns)
        if len(budgets) != len(ns):
            raise ValueError(f"--budget must give one value, or one per n ({len(ns)}), not {args.budget!r}")
        quicks = [None] * len(ns) if args.quick is None else _ints(args.quick, "quick", 1, 100_000_000)
        if len(quicks) == 1:
            quicks *= len(ns)
        if len(quicks) != len(ns):
            raise ValueError(f"--quick must give one value, or one per n ({len(ns)}), not {args.quick!r}")
        if not 1 <= args.playouts <= 1_000_000:
            raise ValueError(f"--playouts must be a whole number from 1 to 1,000,000, not {args.playouts}")
        if not 0 <= args.seed < 2**40:
            raise ValueError(f"--seed must be a whole number from 0 to 2^40, not {args.seed}")
        if not 1 <= args.jobs <= 8:
            raise ValueError(f"--jobs must be a whole number from 1 to 8, not {args.jobs}")
        from solver import Board

        Board.parse(args.board)
    except ValueError as e:
        print(f"bench_fast_generation: {e}", file=sys.stderr)
        return 2
    from joblib import Parallel, delayed

    version = code_version()  # before the run: what ran, whatever is edited meanwhile
    t0 = time.time()
    work = [(n, METHODS[n], b, q) for n, b, q in zip(ns, budgets, quicks)]
    rows = Parallel(n_jobs=min(args.jobs, len(work)), backend="loky")(
        delayed(measure_n)(args.board, n, method, args.seed, b, args.playouts, q, args.any_parents)
        for n, method, b, q in work)
    for row in rows:
        row["committed"] = committed_rate(args.board, row["n"])
        c = row["committed"]["dual_free_per_cpu_minute"] if row["committed"] else 0
        # the measure: the fast side against today's committed rate
        row["fast_vs_committed"] = round(row["fast"]["dual_free_per_cpu_minute"] / c, 2) if c else None
        row["fast_cold_vs_committed"] = round(row["fast"]["dual_free_per_cpu_minute_cold"] / c, 2) if c else None
        for name in ("slow", "fast", "fast_any_parents"):
            if name not in row:
                continue
            m = row[name]
            print(f"n={row['n']} {row['method']} {name}: {m['units']} units, {m['candidates']} candidates, "
                  f"{m['found']} sound ({m['dual_free']} dual-free), {m['cpu_seconds']} CPU s, "
                  f"{m['dual_free_per_cpu_minute']} dual-free/CPU-min; verdicts {m['verdicts']}", file=sys.stderr)
            print("      stages: " + ", ".join(f"{k} {v}s" for k, v in m["stages"].items()), file=sys.stderr)
        c = row["committed"]
        print(f"n={row['n']} fast/slow: {row['ratio']}x dual-free puzzles per CPU-minute with the seed games "
              f"cached, {row['ratio_cold']}x played ({row['fast']['seed_games_cpu_seconds']} CPU s)"
              + (f"; the committed set: {c['dual_free_per_cpu_minute']}/CPU-min ({c['found_dual_free']} in "
                 f"{c['cpu_seconds']} CPU s), fast/committed {row['fast_vs_committed']}x cached, "
                 f"{row['fast_cold_vs_committed']}x played" if c else "")
              + (f"; fast/fast with any parents: {row['ratio_to_any_parents']}x" if "fast_any_parents" in row else ""),
              file=sys.stderr, flush=True)
    command = "python scripts/bench_fast_generation.py " + " ".join(sys.argv[1:])
    out = {"command": command, "board": args.board, "seed": args.seed, "source": "selfplay",
           "playouts": args.playouts, "version": version, "wall_seconds": round(time.time() - t0),
           "rows": rows}
    if args.out:
        from solver.util.files import write_json

        try:
            write_json(args.out, out)
        except OSError as e:
            print(f"bench_fast_generation: cannot write {args.out}: {e.strerror or e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
