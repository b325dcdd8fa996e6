#!/usr/bin/env python3
"""The proof frontier: the share of game positions that df-pn decides within a time
budget, by empty points, with and without its game knowledge, in one run.

Usage: python scripts/bench_frontier.py [--boards 5/6,6/7] [--empty 20-40:4] [--per-count 20]
                                        [--seconds 60] [--tt-mb 256] [--seed 1] [--out FILE]
                                        [--modes knowledge,plain] [--model FILE] [--focus K]

Positions come from seeded random games (for each board and count of empty points, the
first position with that many empty points of each game, one a game, ``--per-count`` a
count); each is verified by df-pn in each of ``--modes`` (``knowledge``: with the
knowledge, ``plain``: without it, ``guided``: without it but guided by the move model
``--model``, default :data:`solver.search.guide.MODEL_PATH`; ``focused``: guided and
focused on the model's best ``--focus`` children), one after the other,
``--seconds`` each on one core.  With ``guided`` or ``focused`` the record also compares the modes on
the positions all of them decided (expansions and seconds).  Writes ``results/frontier/<boards>.json`` (every run,
and per board, count and mode the share decided and the median seconds) and the chart
beside it after every run, so Ctrl-C loses at most the run in progress and the same
command goes on.  The work is done by :mod:`solver.app.frontier`.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from solver import Board, Interrupted
from solver.util.files import claim, interrupt_on_sigterm
from solver.app.frontier import FrontierError, measure
from solver.rules.randomgame import parse_counts

OUT = Path(__file__).resolve().parent.parent / "results" / "frontier"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", default="5/6,6/7")
    ap.add_argument("--empty", default="20-40:4")
    ap.add_argument("--per-count", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--tt-mb", type=float, default=256)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="results file (default results/frontier/<boards>.json)")
    ap.add_argument("--modes", default="knowledge,plain")
    ap.add_argument("--model", default=None, help="move model of the guided and focused modes")
    ap.add_argument("--focus", type=int, default=3, help="children of the focused mode (default 3)")
    args = ap.parse_args()
    modes = tuple(m for m in args.modes.split(",") if m)
    model = None
    if "guided" in modes or "focused" in modes:
        from solver.search.guide import MODEL_PATH, load_model
        from solver.search.policy import PolicyError

        try:
            model = load_model(args.model)
        except PolicyError as e:
            sys.exit(f"bench_frontier: {e}")
        model_name = Path(args.model or MODEL_PATH).name
    try:
        boards = [Board.parse(b) for b in args.boards.split(",")]
        counts = parse_counts(args.empty)
        if not (0 < args.seconds <= 3600) or not math.isfinite(args.seconds):
            raise ValueError(f"--seconds {args.seconds:g}: give a number of seconds in (0, 3600]")
        if not (1 <= args.per_count <= 1000):
            raise ValueError(f"--per-count {args.per_count}: give 1 to 1000")
    except ValueError as e:
        sys.exit(f"bench_frontier: {e}")
    stem = "_".join(b.name.replace("/", "-") for b in boards)
    out = Path(args.out) if args.out else OUT / f"{stem}.json"
    command = (f"python scripts/bench_frontier.py --boards {','.join(b.name for b in boards)} --empty {args.empty}"
               f" --per-count {args.per_count} --seconds {args.seconds:g} --tt-mb {args.tt_mb:g} --seed {args.seed}"
               + (f" --out {args.out}" if args.out else "")
               + (f" --modes {args.modes}" if modes != ("knowledge", "plain") else "")
               + (f" --model {args.model}" if args.model else "")
               + (f" --focus {args.focus}" if "focused" in modes else ""))
    interrupt_on_sigterm()  # a background run stopped by a kill keeps what it measured
    lock = out.with_suffix(".running")
    out.parent.mkdir(parents=True, exist_ok=True)
    if not claim(lock):
        sys.exit(f"bench_frontier: another process is writing {out} ({lock})")
    try:
        rec = measure(boards, counts, out, command, per_count=args.per_count, seed=args.seed,
                      seconds=args.seconds, tt_mb=args.tt_mb, modes=modes, model=model,
                      model_name=model_name if model is not None else "", focus=args.focus)
    except (FrontierError, Interrupted) as e:
        sys.exit(f"bench_frontier: {e}")
    finally:
        lock.unlink(missing_ok=True)
    print(f"{'board':<6}{'empty':>6}  {'mode':<10}{'decided':>10}{'median s':>10}")
    for r in rec["summary"]:
        med = "over" if r["median_seconds"] is None else f"{r['median_seconds']:.2f}"
        print(f"{r['board']:<6}{r['empty']:>6}  {r['mode']:<10}{r['decided']:>4}/{r['positions']:<5}{med:>10}")
    for r in rec.get("compare", []):
        n = r["both_decided"]
        print(f"{r['board']} {r['empty']} empty, {n} decided in every mode: " + ", ".join(
            f"{m} {r[m + '_expansions'] / max(n, 1):,.0f} expansions {r[m + '_seconds'] / max(n, 1):.2f} s a position"
            for m in modes))


if __name__ == "__main__":
    main()
