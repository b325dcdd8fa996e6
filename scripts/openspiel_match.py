#!/usr/bin/env python3
"""OpenSpiel's MCTS bot against the project's engine, on the OpenSpiel game of solver/app/openspiel.py.

Usage: python scripts/openspiel_match.py [--board 3/4] [--games 4] [--seed 1]
       [--simulations 1000] [--rollouts 1] [--engine-playouts 1000] [--out FILE]

The OpenSpiel side is ``open_spiel.python.algorithms.mcts.MCTSBot`` with random rollouts
(``RandomRolloutEvaluator``: ``--rollouts`` random games a leaf), ``--simulations``
simulations a move, UCT constant 2 and its solver on (``solve=True``, its default),
searching afresh at every move.  The project's side is the engine as ``meridians match``
drives it (:mod:`solver.app.match`: the player ``engine:playouts=P``, one
:class:`solver.search.mcts.Engine` a game so that its tree is kept from move to move,
df-pn first with its default node budget).  Both play the same game: every move goes
through the OpenSpiel state, whose position is the project's.

Colours alternate: the OpenSpiel bot is Light (OpenSpiel's player 0) in games 1, 3, 5, ...
Game ``i`` is seeded by ``--seed`` and ``i`` alone (:func:`solver.app.match.game_seed`; the
bot's numpy random state and the engine's seeds come from it), and both sides have
playout budgets, not time, so the same command replays the same games.

Writes ``results/openspiel/match-<board>.json`` (``--out``): the command, the code and
rules versions, the open_spiel version, both players' settings, every game (colours,
outcome, moves, each side's seconds) and the tally: the bot's wins, draws and losses as
Light and as Dark, its score and the Elo difference with its 95% interval.  The file is
written after every game, so Ctrl-C loses only the game under way (exit 130).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

import numpy as np

from solver import Board
from solver.util.files import write_atomic
from solver.app.match import choose_move, elo, engine_of, game_seed, parse_player
from solver.util.provenance import code_revision, provenance

#: the folder of the results file
OUT = Path("results/openspiel")
UCT_C = 2.0
_NAME = {"L": "Light", "D": "Dark"}


def _fail(message: str) -> int:
    print(f"openspiel_match: {message}", file=sys.stderr)
    return 2


def _whole(text: str, name: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name} {text!r}: give a whole number") from None
    if value < least:
        raise ValueError(f"{name} {value}: give a whole number of at least {least}")
    return value


def play_one(game, board: Board, index: int, seed: int, simulations: int, rollouts: int, engine_spec) -> dict:
    """Game ``index`` of the match: the bot is Light when ``index`` is even."""
    import random

    from open_spiel.python.algorithms import mcts as os_mcts

    gseed = game_seed(seed, index)
    bot_player = index % 2  # OpenSpiel's player 0 is Light
    rs = np.random.RandomState(gseed % 2**32)
    bot = os_mcts.MCTSBot(game, UCT_C, simulations, os_mcts.RandomRolloutEvaluator(rollouts, random_state=rs),
                          solve=True, random_state=rs)
    engine = engine_of(engine_spec, 2 * gseed + 1 - bot_player)
    rng = random.Random(gseed)
    state = game.new_initial_state()
    seconds = {"openspiel": 0.0, "engine": 0.0}
    moves: list[str] = []
    while not state.is_terminal():
        t0 = time.perf_counter()
        if state.current_player() == bot_player:
            action = bot.step(state)
            side = "openspiel"
        else:
            move = choose_move(engine_spec, state.position, rng, gseed * 1000 + len(moves), engine)
            action = game.action(move)
            side = "engine"
        seconds[side] += time.perf_counter() - t0
        moves.append(state.action_to_string(action))
        state.apply_action(action)
    outcome = state.position.outcome
    returns = state.returns()
    return {"index": index, "openspiel": "L" if bot_player == 0 else "D", "outcome": outcome,
            "openspiel_return": returns[bot_player], "plies": len(moves), "moves": moves,
            "seconds": {k: round(v, 2) for k, v in seconds.items()}}


def _elo(score: float, d, lo, hi) -> str:
    """The Elo difference and its interval in words (None: infinite, a score of 0 or 1)."""
    def one(x, infinite):
        return infinite if x is None else f"{x:+.0f}"
    return f"{one(d, '-inf' if score < 0.5 else '+inf')} (95%: {one(lo, '-inf')} to {one(hi, '+inf')})"


def tally(games: list[dict]) -> dict:
    """The bot's wins, draws and losses, by colour and in all, its score and Elo."""
    t = {c: {"wins": 0, "draws": 0, "losses": 0} for c in ("L", "D")}
    for g in games:
        r = g["openspiel_return"]
        t[g["openspiel"]]["wins" if r > 0 else "losses" if r < 0 else "draws"] += 1
    wins = sum(t[c]["wins"] for c in t)
    draws = sum(t[c]["draws"] for c in t)
    n = len(games)
    score = (wins + draws / 2) / n if n else 0.0
    d, lo, hi = elo(score, n) if n else (None, None, None)
    return {"openspiel_as_light": t["L"], "openspiel_as_dark": t["D"], "openspiel_wins": wins, "draws": draws,
            "engine_wins": n - wins - draws, "openspiel_score": round(score, 4), "elo": d, "elo_low": lo,
            "elo_high": hi}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="3/4")
    ap.add_argument("--games", default="4", help="games (colours alternate)")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--simulations", default="1000", help="OpenSpiel MCTS simulations a move")
    ap.add_argument("--rollouts", default="1", help="random rollouts a leaf of OpenSpiel's MCTS")
    ap.add_argument("--engine-playouts", default="1000", help="the engine's playouts a move")
    ap.add_argument("--out", default=None, help="the results file (default: results/openspiel/match-<board>.json)")
    args = sys.argv[1:] if argv is None else argv
    a = ap.parse_args(args)
    try:
        board = Board.parse(a.board)
        games = _whole(a.games, "--games", 1)
        seed = _whole(a.seed, "--seed", 0)
        simulations = _whole(a.simulations, "--simulations", 1)
        rollouts = _whole(a.rollouts, "--rollouts", 1)
        engine_spec = parse_player(f"engine:playouts={_whole(a.engine_playouts, '--engine-playouts', 1)}")
    except ValueError as e:
        return _fail(str(e))
    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts  # noqa: F401  (the bot, imported again per game)

        import solver.app.openspiel  # noqa: F401  (registers the game)
    except ImportError as e:
        return _fail(f"needs OpenSpiel, the optional extra: pip install -e '.[openspiel]' ({e})")
    from importlib.metadata import PackageNotFoundError, version
    try:
        os_version = version("open-spiel")
    except PackageNotFoundError:
        os_version = "unknown"
    out = Path(a.out) if a.out else Path(OUT) / f"match-{board.name.replace('/', '-')}.json"
    game = pyspiel.load_game("meridians", {"m": board.m})
    record = {
        **provenance(shlex.join(["python", "scripts/openspiel_match.py", *args]), revision=code_revision()),
        "open_spiel": os_version, "board": board.name, "seed": seed, "games_asked": games,
        "openspiel_player": {"bot": "open_spiel.python.algorithms.mcts.MCTSBot", "uct_c": UCT_C,
                             "max_simulations": simulations, "evaluator": "RandomRolloutEvaluator",
                             "n_rollouts": rollouts, "solve": True},
        "engine_player": engine_spec.spec, "engine_dfpn_nodes": engine_spec.dfpn,
        "games": [],
    }
    played: list[dict] = []
    t_start = time.perf_counter()
    try:
        for i in range(games):
            played.append(play_one(game, board, i, seed, simulations, rollouts, engine_spec))
            record["games"] = played
            record.update(tally(played), seconds=round(time.perf_counter() - t_start, 1))
            write_atomic(out, json.dumps(record, indent=1) + "\n")
            g = played[-1]
            ending = "a draw" if g["outcome"] == "draw" else f"{_NAME[g['outcome']]} wins"
            print(f"game {i + 1}/{games}: OpenSpiel MCTS as {_NAME[g['openspiel']]}: {ending} after {g['plies']} "
                  f"plies (MCTS {g['seconds']['openspiel']:.1f} s, engine {g['seconds']['engine']:.1f} s)",
                  file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print(f"\ninterrupted: {len(played)} games in {out}", file=sys.stderr)
        return 130
    t = record
    print(f"{board.name}, {games} games: OpenSpiel MCTS ({simulations} simulations, {rollouts} rollout"
          f"{'s' if rollouts != 1 else ''} a leaf) {t['openspiel_wins']} wins, {t['draws']} draws, "
          f"{t['engine_wins']} losses against {engine_spec.spec} "
          f"(as Light {t['openspiel_as_light']['wins']}-{t['openspiel_as_light']['draws']}-"
          f"{t['openspiel_as_light']['losses']}, as Dark {t['openspiel_as_dark']['wins']}-"
          f"{t['openspiel_as_dark']['draws']}-{t['openspiel_as_dark']['losses']}); score "
          f"{t['openspiel_score']:.0%}, Elo difference {_elo(t['openspiel_score'], t['elo'], t['elo_low'], t['elo_high'])}; written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
