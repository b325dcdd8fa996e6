#!/usr/bin/env python3
"""Train the value model (solver.search.value) on the engine's self-play games, and measure it.

Usage: python scripts/train_value.py [--board 5/6] [--games-of 800:211 --games-of 3200:139]
       [--seed 1] [--l2 0.0001] [--random-plies 2] [--dfpn-nodes 2000] [--out PATH]

Each ``--games-of PLAYOUTS:GAMES[:STATE]`` is a source of seeded self-play games, the move
model's (scripts/train_policy.py's, same seed and state format: its state file serves as
is), played or resumed in the state file (default: in solver.util.files.state_dir());
Ctrl-C (or a kill) keeps the finished games and the same command continues.  Every
position is labelled with its game's result; the model is fitted on three games in five
and measured on the fifth (log-loss and Brier score against the training positions' mean
result).  Writes the weights (``--out``, default solver/data/value-<board>.npz, the
shipped model) with the command, revision and figures inside, and the same record as
JSON in results/value/.  Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from solver import Board
from solver.app.value_training import L2, parse_sources, train
from solver.search.value import DATA
from solver.util.errors import Interrupted, MeridiansError
from solver.util.files import interrupt_on_sigterm, write_json
from solver.util.provenance import code_revision, provenance


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--board", default="5/6")
    ap.add_argument("--games-of", action="append", metavar="PLAYOUTS:GAMES[:STATE]")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--l2", type=float, default=L2)
    ap.add_argument("--random-plies", type=int, default=2)
    ap.add_argument("--dfpn-nodes", type=int, default=2000)
    ap.add_argument("--out")
    ap.add_argument("--record", help="the JSON record (default: results/value/value-<board>.json)")
    args = ap.parse_args(argv)
    interrupt_on_sigterm()  # a run in the background ignores Ctrl-C: a kill keeps the games too
    command = "python scripts/train_value.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    revision = code_revision()
    try:
        board = Board.parse(args.board)
        tag = board.name.replace("/", "-")
        sources = parse_sources(board, args.seed, args.games_of)
        model, record = train(board, sources, seed=args.seed, l2=args.l2, random_plies=args.random_plies,
                              dfpn_nodes=args.dfpn_nodes,
                              log=lambda text: print(text, file=sys.stderr, flush=True))
    except Interrupted as e:
        print(e, file=sys.stderr)
        return 130
    except MeridiansError as e:
        print(e, file=sys.stderr)
        return 2
    record = {**provenance(command, revision=revision), **record}
    model.meta = record
    out = Path(args.out) if args.out else DATA / f"value-{tag}.npz"
    rec_path = Path(args.record) if args.record else Path("results/value") / f"value-{tag}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    shown = out.resolve().relative_to(Path.cwd()) if out.resolve().is_relative_to(Path.cwd()) else out
    write_json(rec_path, {**record, "model": str(shown), "model_bytes": out.stat().st_size})
    print(f"{out}: {out.stat().st_size:,} bytes; {rec_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
