#!/usr/bin/env python3
"""Measure how the cost of a df-pn proof grows with the number of empty points, and
extrapolate it to the positions after the first move.

Usage: python scripts/measure_growth.py [--board 4/5] [--empty 12-32:2] [--games 6]
                                        [--max-nodes 20000000] [--tt-mb 1024] [--seed 1]
                                        [--knowledge] [--model [FILE]] [--focus K]

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
``<board>-growth.svg``.  With ``--knowledge`` the proofs use the settled rule
(:mod:`solver.search.knowledge`) and the files are ``<board>-growth-knowledge.json`` and
``.svg``, which also set the run beside ``<board>-growth.json`` on the positions both
measured (expansions and seconds, and the fit without the rule on those positions): run
both with the same seed, games and cap.  With ``--model`` the proofs are guided by the
move model (FILE, default :data:`solver.search.guide.MODEL_PATH`;
:mod:`solver.search.guide`) and the files are ``<board>-growth-guided.json`` and ``.svg``,
set beside ``<board>-growth.json`` in the same way; with ``--focus K`` as well the proofs
are also focused on the model's best K children (``<board>-growth-focused.json``).  The work is done by :mod:`solver.app.openings.growth`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from solver import Board, Interrupted
from solver.util.files import claim, interrupt_on_sigterm
from solver.app.openings.growth import GrowthError, measure
from solver.rules.randomgame import parse_counts

OUT = Path(__file__).resolve().parent.parent / "results" / "solutions"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="4/5")
    ap.add_argument("--empty", default=None, help="counts of empty points: LO-HI[:STEP] or a list")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--max-nodes", type=int, default=20_000_000)
    ap.add_argument("--tt-mb", type=float, default=1024)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--knowledge", action="store_true", help="prove with the settled rule")
    ap.add_argument("--model", nargs="?", const="", default=None, help="prove guided by the move model")
    ap.add_argument("--focus", type=int, default=0, help="with --model: focus on its best K children")
    args = ap.parse_args()
    model = None
    if args.model is not None:
        from solver.search.guide import load_model
        from solver.search.policy import PolicyError

        if args.knowledge:
            sys.exit("measure_growth: give --knowledge or --model, not both")
        try:
            model = load_model(args.model or None)
        except PolicyError as e:
            sys.exit(f"measure_growth: {e}")
    if args.focus < 0 or (args.focus and model is None):
        sys.exit("measure_growth: --focus K needs --model and K >= 1")
    try:
        board = Board.parse(args.board)
        counts = parse_counts(args.empty) if args.empty else list(range(10, len(board.names) - 7, 2))
    except ValueError as e:
        sys.exit(f"measure_growth: {e}")
    stem = board.name.replace("/", "-")
    suffix = "-knowledge" if args.knowledge else "-focused" if args.focus else "-guided" if model is not None else ""
    out = OUT / f"{stem}-growth{suffix}.json"
    command = (f"python scripts/measure_growth.py --board {board.name}"
               + (f" --empty {args.empty}" if args.empty else "")
               + f" --games {args.games} --max-nodes {args.max_nodes} --tt-mb {args.tt_mb:g} --seed {args.seed}"
               + (" --knowledge" if args.knowledge else "")
               + ("" if args.model is None else f" --model {args.model}".rstrip())
               + (f" --focus {args.focus}" if args.focus else ""))
    # a background run (where Ctrl-C is ignored) is stopped with SIGTERM: it keeps what
    # it measured, as Ctrl-C does
    interrupt_on_sigterm()
    lock = out.with_suffix(".running")
    if not claim(lock):
        sys.exit(f"measure_growth: another process is measuring {board.name} ({lock})")
    try:
        rec = measure(board, counts, out, command, games=args.games, seed=args.seed,
                      max_nodes=args.max_nodes, tt_mb=args.tt_mb, knowledge=args.knowledge,
                      baseline=OUT / f"{stem}-growth.json" if suffix else None, model=model,
                      focus=args.focus)
    except (GrowthError, Interrupted) as e:
        sys.exit(f"measure_growth: {e}")
    finally:
        lock.unlink(missing_ok=True)
    fit = rec["fit"]
    if fit:
        print(f"{board.name}: x{fit['factor_per_point']:.2f} expansions per empty point; a first-move "
              f"class ({fit['first_move_empty']} empty) ~ {fit['first_move_expansions']:.3g} expansions",
              file=sys.stderr)
    vs = rec.get("against")
    if vs:
        base = vs["baseline_fit"]
        print(f"against {vs['baseline']} on the same {vs['positions']} positions: decided {vs['decided']} "
              f"against {vs['decided_baseline']}; on the {vs['both_decided']} both decided, expansions "
              f"x{vs['expansions_ratio']:.3f}, seconds x{vs['seconds_ratio']:.3f}"
              + (f"; its fit there x{base['factor_per_point']:.2f} per empty point" if base else ""),
              file=sys.stderr)


if __name__ == "__main__":
    main()
