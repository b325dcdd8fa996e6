"""Compare the positions of random games and engine self-play games (issue 21 item 1).

    python scripts/compare_seeds.py                       # 6/7 and 4/5, a few minutes
    python scripts/compare_seeds.py --boards 4/5 --random-games 20 --selfplay-games 5

The puzzle generator draws seed positions from games (``meridians puzzles generate
--source random|selfplay``).  This plays seeded games of both kinds on each board,
random games as the generator's baseline plays them (:func:`puzzles.generate.seed_position`'s
rule: a uniformly random legal move a ply) and self-play games of the engine at
``--playouts`` a move (:func:`puzzles.generate.selfplay_game`, the ``selfplay``
source), and measures, per band of empty points (so that both are compared at the same
empty-point counts):

- ``dead_share``: the share of the stones on the board that are in dead groups (the
  player to move's: the other player never has one, RULES.md), mean over positions;
- ``group_size``: the mean size of a group (both colours), mean over positions;
- ``captures``: placements that removed stones, per game, by the band of empty points
  of the position they were played in, and the mean number of stones they removed.

Also the CPU seconds and plies of a self-play game, and, with ``--versus-random``, the
score of the engine at that budget against random play (that its play is sensible).
Writes ``results/puzzles/seed-sources.json`` (atomically, with its command, revision and
rules version) and prints a table.  Games are seeded: the same command gives the same
figures (the self-play games use a playout budget, not a time budget).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from puzzles.generate import SELFPLAY_PLAYOUTS, selfplay_game
from solver import Board, Position
from solver.util.files import write_json
from solver.util.provenance import provenance

OUT = Path(__file__).resolve().parent.parent / "results" / "puzzles" / "seed-sources.json"
#: bands of empty points a board is cut into
BANDS = 8


def random_moves(board: Board, seed: int) -> list[str]:
    """A random game to its end, one ``rng.choice`` of the legal moves a ply."""
    rng = random.Random(seed)
    pos = Position.start(board)
    moves = []
    while pos.outcome is None:
        m = rng.choice(pos.legal_moves())
        pos = pos.play(m)
        moves.append(m)
    return moves


def game_figures(board: Board, moves: list[str]) -> tuple[list[tuple[int, float, float]], list[tuple[int, int]]]:
    """``(positions, captures)`` of one game: each position before a move (from the
    fifth ply on: before it a player's lone stone is a dead group by the rules) as ``(empty points, share of stones
    in dead groups, mean group size)``, and each placement that removed stones as
    ``(empty points before it, stones removed)``.

    >>> b = Board.parse("2/3")
    >>> ps, cs = game_figures(b, random_moves(b, 1))
    >>> all(0 <= d <= 1 and g >= 1 for _, d, g in ps), all(r > 0 for _, r in cs)
    (True, True)
    """
    pos = Position.start(board)
    positions, captures = [], []
    for ply, m in enumerate(moves):
        stones = len(pos.stones("L")) + len(pos.stones("D"))
        empty = board.size - stones
        if ply >= 4:
            dead = sum(len(g) for c in "LD" for g in pos.dead_groups(c))
            groups = len(pos.groups("L")) + len(pos.groups("D"))
            positions.append((empty, dead / stones, stones / groups))
        after = pos.play(m)
        if after.removed:
            captures.append((empty, len(after.removed)))
        pos = after
    return positions, captures


def _band(board: Board, empty: int) -> int:
    return min(BANDS - 1, empty * BANDS // (board.size + 1))


def _label(board: Board, k: int) -> str:
    lo = -(-k * (board.size + 1) // BANDS)
    hi = -(-(k + 1) * (board.size + 1) // BANDS) - 1
    return f"{lo}-{min(hi, board.size)}"


def summarise(board: Board, games: list[list[str]]) -> dict:
    """The figures of a list of games (see the module docstring), per band of empty
    points, fullest band first."""
    bands = [{"positions": 0, "dead": 0.0, "size": 0.0, "captures": 0, "removed": 0} for _ in range(BANDS)]
    plies = []
    for moves in games:
        plies.append(len(moves))
        ps, cs = game_figures(board, moves)
        for empty, dead, size in ps:
            b = bands[_band(board, empty)]
            b["positions"] += 1
            b["dead"] += dead
            b["size"] += size
        for empty, removed in cs:
            b = bands[_band(board, empty)]
            b["captures"] += 1
            b["removed"] += removed
    out = {}
    for k in range(BANDS):
        b = bands[k]
        if not b["positions"] and not b["captures"]:
            continue
        out[_label(board, k)] = {
            "positions": b["positions"],
            "dead_share": round(b["dead"] / b["positions"], 4) if b["positions"] else None,
            "group_size": round(b["size"] / b["positions"], 3) if b["positions"] else None,
            "captures_per_game": round(b["captures"] / len(games), 3),
            "stones_per_capture": round(b["removed"] / b["captures"], 2) if b["captures"] else None,
        }
    all_caps = [e for moves in games for e, _ in game_figures(board, moves)[1]]
    return {
        "games": len(games), "mean_plies": round(sum(plies) / len(plies), 1),
        "captures_per_game": round(len(all_caps) / len(games), 2),
        "mean_empty_at_capture": round(sum(all_caps) / len(all_caps), 1) if all_caps else None,
        "bands": dict(sorted(out.items(), key=lambda kv: -int(kv[0].split("-")[0]))),
    }


def versus_random(board: Board, playouts: int, games: int, seed: int) -> dict:
    """The engine at ``playouts`` a move (df-pn off, as in self-play) against random
    play, colours alternating."""
    from solver.app.match import parse_player, play_game

    engine = parse_player(f"engine:playouts={playouts},dfpn=0")
    rnd = parse_player("random")
    wins = 0
    for i in range(games):
        light, dark = (engine, rnd) if i % 2 == 0 else (rnd, engine)
        outcome, _ = play_game(light, dark, board.name, seed * 1000 + i)
        wins += outcome == ("L" if i % 2 == 0 else "D")
    return {"games": games, "engine_wins": wins}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", default="6/7,4/5", help="comma-separated boards (default 6/7,4/5)")
    ap.add_argument("--random-games", type=int, default=40, help="random games a board (default 40)")
    ap.add_argument("--selfplay-games", type=int, default=12, help="self-play games a board (default 12)")
    ap.add_argument("--playouts", type=int, default=SELFPLAY_PLAYOUTS,
                    help=f"the engine's playouts a move (default {SELFPLAY_PLAYOUTS}, the generator's)")
    ap.add_argument("--versus-random", type=int, default=4, help="engine-against-random games a board (default 4)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    ap.add_argument("--out", default=str(OUT), help="the JSON file to write (default results/puzzles/seed-sources.json)")
    args = ap.parse_args(argv)
    for name in ("random_games", "selfplay_games", "playouts"):
        if not 1 <= getattr(args, name) <= 100_000:
            sys.exit(f"compare_seeds: --{name.replace('_', '-')} must be from 1 to 100000")
    if not 0 <= args.versus_random <= 1000 or not 0 <= args.seed < 2**31:
        sys.exit("compare_seeds: --versus-random must be from 0 to 1000 and --seed from 0 to 2^31 - 1")
    try:
        boards = [Board.parse(b) for b in args.boards.split(",")]
    except ValueError as e:
        sys.exit(f"compare_seeds: {e}")
    command = "python scripts/compare_seeds.py " + " ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if k != "out")
    stamp = provenance(command)  # the revision as the run starts
    record = {**stamp, "bands": BANDS, "boards": {}}
    for board in boards:
        t0 = time.process_time()
        rnd = [random_moves(board, args.seed * 1_000_003 + i) for i in range(args.random_games)]
        t_random = time.process_time() - t0
        selfplay, seconds = [], []
        for i in range(args.selfplay_games):
            t0 = time.process_time()
            selfplay.append(selfplay_game(board, args.seed * 1_000_003 + i, args.playouts))
            seconds.append(time.process_time() - t0)
            print(f"{board.name}: self-play game {i + 1}/{args.selfplay_games}, {len(selfplay[-1])} plies, "
                  f"{seconds[-1]:.1f} CPU s", file=sys.stderr, flush=True)
        entry = {
            "random": {**summarise(board, rnd), "cpu_seconds_per_game": round(t_random / len(rnd), 3)},
            "selfplay": {**summarise(board, selfplay), "playouts": args.playouts,
                         "cpu_seconds_per_game": round(sum(seconds) / len(seconds), 2)},
        }
        if args.versus_random:
            entry["selfplay"]["versus_random"] = versus_random(board, args.playouts, args.versus_random, args.seed)
        record["boards"][board.name] = entry
        print(f"\n{board.name}: random {entry['random']['games']} games ({entry['random']['mean_plies']} plies, "
              f"{entry['random']['captures_per_game']} captures each, mean {entry['random']['mean_empty_at_capture']} "
              f"empty points at a capture); self-play {entry['selfplay']['games']} games at {args.playouts} playouts "
              f"({entry['selfplay']['mean_plies']} plies, {entry['selfplay']['cpu_seconds_per_game']} CPU s each, "
              f"{entry['selfplay']['captures_per_game']} captures, mean {entry['selfplay']['mean_empty_at_capture']} "
              f"empty points at a capture)")
        print("| empty points | dead share random / self-play | group size random / self-play | "
              "captures a game random / self-play |")
        print("|---|---|---|---|")
        labels = sorted(entry["random"]["bands"].keys() | entry["selfplay"]["bands"].keys(),
                        key=lambda s: -int(s.split("-")[0]))
        for label in labels:
            r = entry["random"]["bands"].get(label, {})
            s = entry["selfplay"]["bands"].get(label, {})
            print(f"| {label} | {r.get('dead_share')} / {s.get('dead_share')} | {r.get('group_size')} / "
                  f"{s.get('group_size')} | {r.get('captures_per_game')} / {s.get('captures_per_game')} |")
    try:
        write_json(args.out, record)
    except OSError as e:
        sys.exit(f"compare_seeds: cannot write {args.out}: {e.strerror or e}")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
