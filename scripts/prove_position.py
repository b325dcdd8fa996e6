#!/usr/bin/env python3
"""Prove one position by df-pn (one search from it, no split into move classes) and
write the result to results/solutions/.

Usage: python scripts/prove_position.py [--board 3/4 | --position POS] [--time S] [--tt-mb N]
                                        [--model [FILE] [--focus K]] [--out FILE]

One search from the root lets df-pn put its effort where the proof is cheapest (the
decisive first move) instead of sharing it among all classes as ``meridians solve`` does.
Writes ``results/solutions/<board>-value.json`` (for a position other than the empty
board: ``<board>-<hash>-value.json``): the value for the player to move, whether the proof
survived its re-walk, a principal line, expansions, seconds, table size, and the code
and rules versions with the command.  A budget that runs out writes the effort spent
with the value ``unknown``; Ctrl-C writes nothing.  Progress goes to stderr.  With
``--model`` the proof is guided by the move model (FILE, default
:data:`solver.search.guide.MODEL_PATH`), with ``--focus K`` also focused on its best K
children; such a record goes to ``--out`` (default: the plain record's name with
``-guided`` or ``-focused`` before ``.json``), so it never replaces a plain proof's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from solver import Board, Position
from solver.util.files import write_json
from solver.app.openings.classes import value_path
from solver.util.provenance import code_revision, provenance
from solver.search.prove import prove
from solver.search.limit import Limit

OUT = Path(__file__).resolve().parent.parent / "results" / "solutions"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="3/4")
    ap.add_argument("--position", default=None, help="a position instead of the empty board")
    ap.add_argument("--time", type=float, default=3600.0, help="seconds (default 3600)")
    ap.add_argument("--tt-mb", type=float, default=4096.0)
    ap.add_argument("--model", nargs="?", const="", default=None, help="prove guided by the move model")
    ap.add_argument("--focus", type=int, default=0, help="with --model: focus on its best K children")
    ap.add_argument("--out", default=None, help="the record (default: results/solutions/...)")
    args = ap.parse_args()
    model = None
    if args.model is not None:
        from solver.search.guide import load_model
        from solver.search.policy import PolicyError

        try:
            model = load_model(args.model or None)
        except PolicyError as e:
            sys.exit(f"prove_position: {e}")
    if args.focus < 0 or (args.focus and model is None):
        sys.exit("prove_position: --focus K needs --model and K >= 1")
    try:
        pos = Position.parse(args.position) if args.position else Position.start(Board.parse(args.board))
    except ValueError as e:
        sys.exit(f"prove_position: {e}")
    last = [0.0]

    def progress(info: dict) -> None:
        if info["seconds"] - last[0] >= 30:
            last[0] = info["seconds"]
            print(f"{info['seconds']:8.0f} s {info['nodes']:>14,} expansions "
                  f"{info['nodes'] / max(info['seconds'], 1e-9):>10,.0f}/s", file=sys.stderr, flush=True)

    t0 = time.time()
    revision = code_revision()  # of the code that runs, before anyone changes it
    try:
        p = prove(pos, Limit(seconds=args.time, tt_mb=args.tt_mb), method="dfpn", progress=progress,
                  model=model, focus=args.focus)
    except KeyboardInterrupt:
        sys.exit("prove_position: interrupted, nothing written")
    command = "python scripts/prove_position.py " + (
        f"--position '{pos}'" if args.position else f"--board {pos.board.name}"
    ) + f" --time {args.time:g} --tt-mb {args.tt_mb:g}"
    if model is not None:
        command += " --model" + (f" {args.model}" if args.model else "")
        command += f" --focus {args.focus}" if args.focus else ""
    if args.out:
        command += f" --out {args.out}"
    record = {
        "position": str(pos), "board": pos.board.name, "to_move": pos.to_move,
        **provenance(command, revision=revision),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0)),
        **p.as_dict(),
    }
    # a position's record is where scripts/solve_openings.py keeps a class's; the empty
    # board's has no hash
    out = value_path(OUT, pos) if args.position else OUT / f"{pos.board.name.replace('/', '-')}-value.json"
    if model is not None:
        out = out.with_name(out.stem + ("-focused" if args.focus else "-guided") + ".json")
    out = Path(args.out) if args.out else out
    write_json(out, record)
    print(f"{pos}: {p.value} for {'Light' if pos.to_move == 'L' else 'Dark'} to move "
          f"(re-walked: {p.verified}); {p.nodes:,} expansions in {p.seconds:.0f} s; wrote {out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
