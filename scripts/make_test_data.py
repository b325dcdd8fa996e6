"""Write the test data of tests/test_perft.py and tests/test_games.py, using only the reference.

Usage::

    python scripts/make_test_data.py            # writes tests/data/perft.json and golden_games.json
    python scripts/make_test_data.py --only perft
    python scripts/make_test_data.py --only games

Everything here is computed by :mod:`solver.reference` (networkx, written straight from
RULES.md), never by the compiled core: the tests then hold the core to these numbers.
Positions are written in the notation of docs/formats.md by a formatter of this script's own,
so the data does not depend on :mod:`solver.rules.notation` either.

* ``perft.json``: the start position of boards 1/2 .. 4/5 to the deepest depth that the
  reference finishes in about 20 s on one core (the depths are fixed below, so the file
  does not depend on the machine), and positions a few plies into seeded random games on
  2/3, 3/4, 5/6 and 6/7, to depth 3 on the small boards and 2 on the large ones.  Each
  entry lists the counts for every depth from 0.
* ``golden_games.json``: seeded random games (uniform over the reference's legal moves,
  ``random.Random(seed)``) on 2/3, 3/4, 4/5 and 6/7: the moves as point names, the
  stones each move removed, the plies, the notation of the final position and the result
  (``'L'``, ``'D'``, ``'draw'`` for a repeated position, or ``null`` for a game cut at
  ``max_plies``).  Most games run to their end.

The whole run takes under a minute (most of it the 2/3 start position to depth 7).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from pathlib import Path

from solver import RULES_VERSION
from solver.reference import rules as R
from solver.rules.board import Board

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
E: frozenset = frozenset()

#: start positions: board m -> deepest depth (the reference's time for it, measured once:
#: 1/2 instant, 2/3 depth 7 about 21 s, 3/4 depth 4 about 3 s (5 takes 50 s), 4/5 depth 3
#: about 4 s (4 takes 50 s))
START_DEPTHS = {1: 5, 2: 7, 3: 4, 4: 3}
#: positions in random games: (board m, seed, plies into the game, depth)
GAME_POSITIONS = [
    (2, 1, 2, 3), (2, 2, 4, 3), (2, 3, 6, 3), (2, 4, 9, 3),
    (3, 1, 3, 3), (3, 2, 8, 3), (3, 3, 16, 3),
    (5, 1, 4, 2), (5, 2, 20, 2), (5, 3, 45, 2),
    (6, 1, 5, 2), (6, 2, 30, 2), (6, 3, 70, 2),
]
#: golden games: (board m, seed, max_plies or None)
GAMES = (
    [(2, s, None) for s in range(1, 6)] + [(2, 6, 5)]
    + [(3, s, None) for s in range(1, 5)] + [(3, 5, 12)]
    + [(4, s, None) for s in range(1, 5)] + [(4, 5, 25)]
    + [(6, s, None) for s in range(1, 4)] + [(6, 4, 40)]
)


def notation(board: Board, light: frozenset, dark: frozenset, to_move: str) -> str:
    """The position notation (docs/formats.md): rows top to bottom, ``L``/``D``/runs of empty points."""
    rows = []
    for i in reversed(range(2 * board.m + 1)):  # the top row has the last letter
        letter = chr(ord("a") + i)
        points = [p for p, n in enumerate(board.names) if n[0] == letter]
        points.sort(key=lambda p: int(board.names[p][1:]))
        text, run = "", 0
        for p in points:
            if p in light or p in dark:
                text += (str(run) if run else "") + ("L" if p in light else "D")
                run = 0
            else:
                run += 1
        rows.append(text + (str(run) if run else ""))
    return "/".join(rows) + " " + to_move


def random_game(board: Board, seed: int, max_plies: int | None):
    """Yield ``(position, move, removed)`` along a seeded random game, then the final
    ``(position, None, result)``.  A repeated position ends the game in a draw.  (Not
    :mod:`solver.rules.randomgame`: the golden games draw from the reference's moves, so that
    they depend on nothing but the reference.)"""
    rng = random.Random(seed)
    pos = (E, E, "L")
    seen = set()
    plies = 0
    while True:
        result = "draw" if pos in seen else R.outcome(board, *pos)
        if result is not None or (max_plies is not None and plies >= max_plies):
            yield pos, None, result
            return
        seen.add(pos)
        p = rng.choice(R.legal_moves(board, *pos))
        gone = R.removed(board, *pos, p)
        yield pos, p, gone
        pos = R.play(board, *pos, p)
        plies += 1


def position_after(board: Board, seed: int, plies: int):
    for i, (pos, move, _) in enumerate(random_game(board, seed, plies)):
        if i == plies or move is None:
            return pos
    raise AssertionError


def perft_entries() -> list[dict]:
    entries = []
    for m, depth in START_DEPTHS.items():
        board = Board.get(m)
        t0 = time.perf_counter()
        counts = [R.perft(board, E, E, "L", d) for d in range(depth + 1)]
        print(f"  {board.name} start: {counts} ({time.perf_counter() - t0:.1f} s)", flush=True)
        entries.append({"board": board.name, "position": notation(board, E, E, "L"), "source": "start", "counts": counts})
    for m, seed, plies, depth in GAME_POSITIONS:
        board = Board.get(m)
        pos = position_after(board, seed, plies)
        assert R.outcome(board, *pos) is None, (m, seed, plies)
        t0 = time.perf_counter()
        counts = [R.perft(board, *pos, d) for d in range(depth + 1)]
        text = notation(board, *pos)
        print(f"  {board.name} {text}: {counts} ({time.perf_counter() - t0:.1f} s)", flush=True)
        entries.append({
            "board": board.name, "position": text,
            "source": f"random game seed {seed}, after {plies} plies", "counts": counts,
        })
    return entries


def golden_games() -> list[dict]:
    games = []
    for m, seed, max_plies in GAMES:
        board = Board.get(m)
        moves, removals = [], {}
        for pos, move, extra in random_game(board, seed, max_plies):
            if move is None:
                final, result = pos, extra
                break
            moves.append(board.name_of(move))
            if extra:
                removals[str(len(moves))] = sorted(board.name_of(p) for p in extra)
        games.append({
            "board": board.name, "seed": seed, "max_plies": max_plies, "plies": len(moves),
            "moves": moves, "removals": removals, "final": notation(board, *final), "result": result,
        })
        print(f"  {board.name} seed {seed}: {len(moves)} plies, result {result}", flush=True)
    for m in sorted({m for m, _, _ in GAMES}):
        assert any(g["result"] in ("L", "D") for g in games if g["board"] == Board.get(m).name)
    return games


def _compact(text: str) -> str:
    """JSON with every list of scalars on one line."""
    return re.sub(r"\[\s*([^\[\]{}]*?)\s*\]", lambda mt: "[" + " ".join(mt.group(1).split()) + "]", text)


def write(name: str, payload: dict) -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / name
    path.write_text(_compact(json.dumps(payload, indent=1)) + "\n", encoding="utf-8")
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["perft", "games"])
    args = parser.parse_args()
    header = {"generated_by": "python scripts/make_test_data.py", "computed_with": "solver.reference",
              "rules_version": RULES_VERSION}
    if args.only in (None, "perft"):
        print("perft (reference):")
        write("perft.json", {**header, "perft": perft_entries()})
    if args.only in (None, "games"):
        print("golden games (reference):")
        write("golden_games.json", {**header, "games": golden_games()})


if __name__ == "__main__":
    main()
