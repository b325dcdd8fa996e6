#!/usr/bin/env python3
"""From which empty count on are the engine's results proven?  Engine-against-engine
games at a fixed budget a move; for each game, the first position from which every one
of the engine's searches answered with a proven value (df-pn or the tree), and how many
points were empty there.

Usage: python scripts/bench_engine_proof.py [--board 6/7] [--games 6] [--time 1]
                                            [--playouts N] [--seed 1] [--out FILE]

Writes FILE (default ``results/engine/proven-from-<board>.json``, the command and the
code's revision in it, rewritten after every game so that Ctrl-C keeps the games
played) and, beside it, each game's record with the engine's value of every move as a
comment (``*.txt``).  Seconds a move depend on the machine's load; with ``--playouts``
alone the games replay exactly.
"""

from __future__ import annotations

import argparse
import io
import shlex
import statistics
import sys
from pathlib import Path

from solver.rules.board import Board
from solver.util.files import write_atomic, write_json
from solver.app.interactive import engine_limit, engine_vs_engine, label, proven_from
from solver.rules.position import Game
from solver.util.provenance import code_revision, provenance
from solver.rules.randomgame import empty_points
from solver.rules.record import GameRecord
from solver.search.limit import LimitError

OUT = Path(__file__).resolve().parent.parent / "results" / "engine"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="6/7")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--time", type=float, default=None, help="seconds a move (default 1 without --playouts)")
    ap.add_argument("--playouts", type=int, default=None, help="playouts a move")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    try:
        board = Board.parse(a.board)
        limit = engine_limit(a.time, a.playouts)
    except (ValueError, LimitError) as e:
        ap.error(str(e))
    if not 1 <= a.games <= 10_000:
        ap.error("--games: give a number from 1 to 10000")
    out = Path(a.out) if a.out else OUT / f"proven-from-{board.name.replace('/', '-')}.json"
    command = "python scripts/bench_engine_proof.py " + shlex.join(sys.argv[1:])
    stamp = provenance(command, revision=code_revision())
    rows: list[dict] = []
    for g in range(a.games):
        seed = a.seed + 2 * g
        ending = engine_vs_engine(Game(board), limit, out=io.StringIO(), seed=seed, quiet=True)
        if ending.how == "interrupted":
            print("interrupted: the games before this one are kept", file=sys.stderr)
            break
        game = ending.game
        first = proven_from(ending)
        record_path = out.with_name(f"{out.stem}-game-{g + 1}.txt")
        write_atomic(record_path, GameRecord.from_game(game, {
            "Light": f"engine ({label(limit)})", "Dark": f"engine ({label(limit)})",
            "Source": f"{command}, game {g + 1}"}, ending.comments).text())
        seconds = [r.seconds for r in ending.results.values()]
        rows.append({"game": g + 1, "seed": seed, "moves": len(game.moves), "outcome": game.outcome,
                     "proven_from_ply": first, "empty_at_proven_from": None if first is None else empty_points(game.positions[first]),
                     "proven_moves": sum(r.proven for r in ending.results.values()),
                     "mean_seconds_a_move": round(statistics.fmean(seconds), 3) if seconds else None,
                     "record": record_path.name})
        empties = [r["empty_at_proven_from"] for r in rows if r["empty_at_proven_from"] is not None]
        write_json(out, {
            "board": board.name, "budget": label(limit), **stamp, "games": rows,
            "summary": {"games": len(rows), "median_empty_at_proven_from": statistics.median(empties) if empties else None,
                        "min": min(empties, default=None), "max": max(empties, default=None)},
        })
        r = rows[-1]
        print(f"game {g + 1}: {r['moves']} moves, {r['outcome']} wins; proven from ply {r['proven_from_ply']} "
              f"({r['empty_at_proven_from']} empty points), {r['mean_seconds_a_move']} s a move", flush=True)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
