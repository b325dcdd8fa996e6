#!/usr/bin/env python3
"""Measure how well the engine's win rate is calibrated, and fit the calibration map.

Usage: python scripts/measure_calibration.py [--board 5/6] [--games-of 800:211 --games-of 3200:139]
       [--budgets 800,6400] [--seed 1] [--stride 3] [--positions N] [--state PATH] [--value-model PATH]
       [--out results/calibration/calibration-5-6.json] [--ship]

Runs the engine at each playout budget on the positions of held-out self-play games
(solver.app.calibration: the games of scripts/train_value.py's ``--games-of`` sources,
played or resumed with the same state files), each finished position kept in the state
file (Ctrl-C or a kill keeps them; the same command continues).  Then fits the maps on
one fold of games and measures on another: log-loss, Brier score and the largest gap of
the reliability diagram (10 bins), the raw win rate against the calibrated one (the map
fitted over every budget, the budget an input).  Writes
the JSON (``--out``) with the command and the code's revision, a reliability diagram per
budget (``<out>-<playouts>.svg`` beside it), and with ``--ship`` the map chosen over all
budgets as package data (solver/data/calibration-<board>.json), which the analyst applies.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from solver import Board
from solver.app.calibration import measure, report
from solver.app.svg import reliability_svg
from solver.search import mcts
from solver.app.value_training import parse_sources
from solver.search.value import DATA, ValueModel
from solver.util.errors import Interrupted, MeridiansError
from solver.util.files import interrupt_on_sigterm, state_dir, write_atomic, write_json
from solver.util.provenance import code_revision, provenance


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--board", default="5/6")
    ap.add_argument("--games-of", action="append", metavar="PLAYOUTS:GAMES[:STATE]")
    ap.add_argument("--budgets", default="800,6400")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stride", type=int, default=3)
    ap.add_argument("--positions", type=int, help="measure only the first so many positions (default: all)")
    ap.add_argument("--state")
    ap.add_argument("--value-model")
    ap.add_argument("--out")
    ap.add_argument("--ship", action="store_true")
    args = ap.parse_args(argv)
    interrupt_on_sigterm()
    command = "python scripts/measure_calibration.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    revision = code_revision()
    try:
        board = Board.parse(args.board)
        tag = board.name.replace("/", "-")
        sources = parse_sources(board, args.seed, args.games_of)
        budgets = [int(b) for b in args.budgets.split(",")]
        if not budgets or min(budgets) < 1:
            raise MeridiansError("--budgets: playouts of at least 1, separated by commas")
        model_path = Path(args.value_model) if args.value_model else DATA / f"value-{tag}.npz"
        model = ValueModel.load(model_path) if model_path.exists() else None
        state = Path(args.state) if args.state else state_dir() / f"calibration-{tag}-seed{args.seed}.json"
        records = measure(board, sources, budgets=budgets, seed=args.seed, state=state, stride=args.stride,
                          max_positions=args.positions)
        rec, chosen = report(board, records, budgets, model)
    except ValueError:
        print("--budgets: whole numbers separated by commas", file=sys.stderr)
        return 2
    except Interrupted as e:
        print(e, file=sys.stderr)
        return 130
    except MeridiansError as e:
        print(e, file=sys.stderr)
        return 2
    shown = model_path.resolve().relative_to(Path.cwd()) if model_path.resolve().is_relative_to(Path.cwd()) else model_path
    rec = {**provenance(command, revision=revision), "engine": mcts.estimate_identity(),
           "sources": [s.as_dict() for s in sources], "seed": args.seed,
           "stride": args.stride, "max_positions": args.positions,
           "value_model": str(shown) if model is not None else None,
           "value_model_command": model.meta.get("command") if model is not None else None, **rec}
    out = Path(args.out) if args.out else Path("results/calibration") / f"calibration-{tag}.json"
    write_json(out, rec)
    pictures = []
    for budget in budgets:
        pictures.append(out.with_name(f"{out.stem}-{budget}.svg"))
        write_atomic(pictures[-1], reliability_svg(rec, str(budget)))
    if chosen is None:
        print(f"no calibration map increasing in the win rate fits these positions; {out} written",
              file=sys.stderr)
        return 1
    for budget in budgets:
        res = rec["budgets"][str(budget)]
        raw, cal = res["raw"], res["calibrated"]
        print(f"{budget} playouts, {raw['positions']} held-out positions: Brier {raw['brier']:.4f} raw, "
              f"{cal['brier']:.4f} calibrated ({rec['joint']['chosen']}); largest gap {raw['max_gap']} raw, "
              f"{cal['max_gap']} calibrated", file=sys.stderr)
    if args.ship:
        chosen.meta = {"command": command, "revision": revision, "value_model": rec["value_model"],
                       "engine": mcts.estimate_identity(),
                       "held_out": {b: {k: {f: r[k][f] for f in ("positions", "log_loss", "brier", "max_gap")}
                                        for k in ("raw", "calibrated")} for b, r in rec["budgets"].items()}}
        ship = DATA / f"calibration-{tag}.json"
        write_json(ship, chosen.as_dict())
        print(f"{ship}", file=sys.stderr)
    print(f"{out}, {', '.join(str(p) for p in pictures)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
