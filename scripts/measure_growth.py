#!/usr/bin/env python3
"""Measure how the cost of a df-pn proof grows with the number of empty points, and
extrapolate it to the positions after the first move.

Usage: python scripts/measure_growth.py [--board 4/5] [--empty 12-32:2] [--games 6]
                                        [--max-nodes 20000000] [--tt-mb 1024] [--seed 1]

The positions are fixed by the seed: random games are played on the board (seeds seed,
seed+1, ... seed+games-1) and from each game, for each empty-point count ``e`` asked for,
the first position with ``e`` empty points and no result is taken.  Each is proven with
df-pn (the solver's defaults) within ``--max-nodes`` expansions on one core.  Per count:
the median expansions (an undecided position counts as more than the cap).  A straight
line through log10(median) against ``e`` gives the growth factor per empty point and,
extended to ``points - 1`` empty points, the expected cost of a first-move class.  On 3/4
the classes already decided (``results/solutions/3-4-*-value.json``) are put beside the
extrapolation, which calibrates it for 4/5.

Writes ``results/solutions/<board>-growth.json`` after every position (so Ctrl-C loses at
most the position in progress, and the same command resumes) and the chart
``<board>-growth.svg``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

from solver import Board, Position
from solver.files import claim, interrupt_on_sigterm, write_atomic
from solver.provenance import code_revision, provenance
from solver.randomgame import empty_points, random_game
from solver.search.prove import prove
from solver.svg import growth_svg

OUT = Path(__file__).resolve().parent.parent / "results" / "solutions"


def positions(board: Board, counts: list[int], games: int, seed: int) -> list[tuple[int, int, str]]:
    """``(seed, e, position)`` for each game and wanted count ``e`` the game passes."""
    out = []
    for s in range(seed, seed + games):
        first: dict[int, str] = {}
        for pos in random_game(board, s):
            e = empty_points(pos)
            if pos.outcome is None and e in counts and e not in first:
                first[e] = str(pos)
        out.extend((s, e, first[e]) for e in sorted(first))
    return out


def parse_counts(text: str) -> list[int]:
    """``'12-32:2'`` -> 12, 14, ..., 32; ``'10,12'`` -> 10, 12."""
    try:
        if "-" in text:
            span, _, step = text.partition(":")
            lo, hi = (int(x) for x in span.split("-"))
            return list(range(lo, hi + 1, int(step or 1)))
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"--empty {text!r}: give LO-HI[:STEP] or a comma-separated list") from None


def summarize(board: Board, runs: list[dict], cap: int) -> dict:
    """Medians per count, the fitted line and its extrapolation."""
    by_e: dict[int, list[dict]] = {}
    for r in runs:
        by_e.setdefault(r["empty"], []).append(r)
    rows = []
    for e in sorted(by_e):
        rs = by_e[e]
        costs = sorted(r["expansions"] if r["value"] != "unknown" else math.inf for r in rs)
        med = statistics.median(costs)
        rows.append({"empty": e, "positions": len(rs),
                     "decided": sum(r["value"] != "unknown" for r in rs),
                     "median_expansions": None if math.isinf(med) else med,
                     "median_over_cap": math.isinf(med)})
    pts = [(r["empty"], math.log10(max(r["median_expansions"], 1)))
           for r in rows if r["median_expansions"] is not None and r["positions"] >= 3]
    fit = None
    if len(pts) >= 3:
        mx = statistics.fmean(x for x, _ in pts)
        my = statistics.fmean(y for _, y in pts)
        sxx = sum((x - mx) ** 2 for x, _ in pts)
        slope = sum((x - mx) * (y - my) for x, y in pts) / sxx
        first = len(board.names) - 1
        fit = {
            "counts_used": [x for x, _ in pts], "log10_per_point": slope,
            "factor_per_point": 10 ** slope, "intercept": my - slope * mx,
            "first_move_empty": first,
            "first_move_expansions": 10 ** (my + slope * (first - mx)),
        }
    return {"by_empty": rows, "fit": fit, "cap": cap}


def class_costs(board: Board) -> list[dict]:
    """The committed first-move class records of ``board``: value and expansions."""
    out = []
    for f in sorted(OUT.glob(f"{board.name.replace('/', '-')}-*-value.json")):
        rec = json.loads(f.read_text())
        out.append({"file": f.name, "value_dark_to_move": rec["value"], "expansions": rec["nodes"],
                    "seconds": round(rec["seconds"]), "decided": rec["value"] in ("win", "loss")})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="4/5")
    ap.add_argument("--empty", default=None, help="counts of empty points: LO-HI[:STEP] or a list")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--max-nodes", type=int, default=20_000_000)
    ap.add_argument("--tt-mb", type=float, default=1024)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    try:
        board = Board.parse(args.board)
        counts = parse_counts(args.empty) if args.empty else list(range(10, len(board.names) - 7, 2))
    except ValueError as e:
        sys.exit(f"measure_growth: {e}")
    stem = board.name.replace("/", "-")
    out = OUT / f"{stem}-growth.json"
    command = (f"python scripts/measure_growth.py --board {board.name}"
               + (f" --empty {args.empty}" if args.empty else "")
               + f" --games {args.games} --max-nodes {args.max_nodes} --tt-mb {args.tt_mb:g} --seed {args.seed}")
    # a background run (where Ctrl-C is ignored) is stopped with SIGTERM: it keeps what
    # it measured, as Ctrl-C does
    interrupt_on_sigterm()
    lock = out.with_suffix(".running")
    if not claim(lock):
        sys.exit(f"measure_growth: another process is measuring {board.name} ({lock})")
    try:
        measure(board, counts, args, out, command)
    finally:
        lock.unlink(missing_ok=True)


def measure(board: Board, counts: list[int], args: argparse.Namespace, out: Path, command: str) -> None:
    """Prove the positions not yet in ``out``, saving after each."""
    runs: list[dict] = []
    if out.exists():
        try:
            old = json.loads(out.read_text())
            # results of the same positions with at least this budget are kept
            runs = [r for r in old["runs"] if r["value"] != "unknown" or r["cap"] >= args.max_nodes]
        except (ValueError, KeyError, TypeError) as e:
            sys.exit(f"measure_growth: {out} is not a growth file ({e}); move it away to start again")
    done = {(r["seed"], r["empty"], r["position"]) for r in runs}
    todo = [p for p in positions(board, counts, args.games, args.seed) if p not in done]
    print(f"{board.name}: {len(done)} positions done, {len(todo)} to prove "
          f"(cap {args.max_nodes:,} expansions each)", file=sys.stderr, flush=True)
    revision = code_revision()

    def save() -> None:
        rec = {
            "board": board.name, **provenance(command, revision=revision),
            "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            **summarize(board, runs, args.max_nodes), "classes": class_costs(board),
            "runs": sorted(runs, key=lambda r: (r["empty"], r["seed"])),
        }
        write_atomic(out, json.dumps(rec, indent=1) + "\n")
        write_atomic(out.with_suffix(".svg"), growth_svg(rec))

    try:
        for k, (s, e, text) in enumerate(todo, 1):
            p = prove(Position.parse(text), max_nodes=args.max_nodes, tt_mb=args.tt_mb)
            runs.append({"seed": s, "empty": e, "position": text, "value": p.value,
                         "expansions": p.nodes, "seconds": round(p.seconds, 2), "cap": args.max_nodes,
                         "revision": revision})
            print(f"[{k}/{len(todo)}] {e:>2} empty, seed {s}: {p.value:<7} {p.nodes:>12,} expansions "
                  f"{p.seconds:8.1f} s", file=sys.stderr, flush=True)
            save()
    except KeyboardInterrupt:
        sys.exit(f"measure_growth: interrupted; {len(runs)} positions kept in {out.name}")
    save()
    fit = summarize(board, runs, args.max_nodes)["fit"]
    if fit:
        print(f"{board.name}: x{fit['factor_per_point']:.2f} expansions per empty point; a first-move "
              f"class ({fit['first_move_empty']} empty) ~ {fit['first_move_expansions']:.3g} expansions",
              file=sys.stderr)


if __name__ == "__main__":
    main()
