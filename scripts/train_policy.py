#!/usr/bin/env python3
"""Train the move model (solver.search.policy) from the engine's self-play, and measure it.

Usage: python scripts/train_policy.py [--board 5/6] [--games 200] [--playouts 3200] [--seed 1]
       [--random-plies 2] [--dfpn-nodes 2000] [--state PATH] [--out results/policy/policy-5-6.npz]

Plays ``--games`` seeded self-play games (solver.app.policy_training), each finished game
kept in the state file (default: in solver.util.files.state_dir()); Ctrl-C (or a kill) keeps them and
the same command continues.  Then fits the model on four games in five, measures it on the
fifth (top-1 agreement with the engine's move and mean log-likelihood, against a uniform
choice) and writes the weights (``--out``, .npz) and beside them a JSON with the command,
the code's revision, the data and the figures.  Progress goes to stderr.

The engine's moves are the targets, and a stronger engine's are easier to predict: on 5/6,
139 games each, held-out top-1 agreement 15.0% at 800 playouts a move and 19.6% at 3,200
(log-likelihood -3.091 and -2.879 a move, uniform about -3.30; 11.4% at 200 playouts on
100 games), for 4-5 and 6-8 s a game: hence the default of 3,200.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from solver import Board
from solver.app.policy_training import top_features, train
from solver.util.errors import Interrupted, MeridiansError
from solver.util.files import interrupt_on_sigterm, state_dir, write_json
from solver.util.provenance import code_revision, provenance


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--board", default="5/6")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--playouts", type=int, default=3200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--random-plies", type=int, default=2)
    ap.add_argument("--dfpn-nodes", type=int, default=2000)
    ap.add_argument("--targets", choices=("visits", "moves"), default="visits",
                    help="train on the search's shares of its visits (default) or on the moves played")
    ap.add_argument("--ablation", action="store_true",
                    help="also fit without each feature family and record what each is worth")
    ap.add_argument("--state")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    interrupt_on_sigterm()  # a run in the background ignores Ctrl-C: a kill keeps the games too
    command = "python scripts/train_policy.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    revision = code_revision()
    board = Board.parse(args.board)
    tag = board.name.replace("/", "-")
    state = Path(args.state) if args.state else state_dir() / f"policy-selfplay-{tag}-seed{args.seed}.json"
    out = Path(args.out) if args.out else Path("results/policy") / f"policy-{tag}.npz"
    try:
        model, record = train(board, games=args.games, playouts=args.playouts, seed=args.seed, state=state,
                              random_plies=args.random_plies, dfpn_nodes=args.dfpn_nodes, targets=args.targets,
                              ablation=args.ablation)
    except Interrupted as e:
        print(e, file=sys.stderr)
        return 130
    except MeridiansError as e:
        print(e, file=sys.stderr)
        return 2
    record = {**provenance(command, revision=revision), **record, "top_weights": top_features(model)}
    model.meta = record
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    write_json(out.with_suffix(".json"), record)
    print(f"{out}: {out.stat().st_size:,} bytes; {out.with_suffix('.json')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
