#!/usr/bin/env python3
"""OpenSpiel's MCTS bot against the project's engine, on the OpenSpiel game of solver/app/openspiel.py.

Usage: python scripts/openspiel_match.py [--board 3/4] [--games 4] [--seed 1]
       [--simulations 1000] [--rollouts 1] [--engine-playouts 1000] [--seconds S]
       [--jobs J] [--out FILE]

The OpenSpiel side is ``open_spiel.python.algorithms.mcts.MCTSBot`` with random rollouts
(``RandomRolloutEvaluator``: ``--rollouts`` random games a leaf), ``--simulations``
simulations a move, UCT constant 2 and its solver on (``solve=True``, its default),
searching afresh at every move.  The project's side is the engine as ``meridians match``
drives it (:mod:`solver.app.match`: the player ``engine:playouts=P``, one
:class:`solver.search.mcts.Engine` a game so that its tree is kept from move to move,
df-pn first with its default node budget).  Both play the same game: every move goes
through the OpenSpiel state, whose position is the project's.

**Equal time** (``--seconds S``): the engine plays ``engine:time=S`` and the bot, which
has no time limit of its own, gets before each move as many simulations as it has been
running in the time it is owed (``S`` a move so far minus what it has spent, within
``S/2`` to ``2S``, at least :data:`MIN_SIMULATIONS`): its rate (simulations a second)
measured on its previous move of the game, at the first move on a probe of the empty
board made once a process.  Each
game records both sides' seconds and moves, so the file shows how equal the time was
(``seconds_a_move``).  Timed games depend on the machine's load and do not replay.

Colours alternate: the OpenSpiel bot is Light (OpenSpiel's player 0) in games 1, 3, 5, ...
Game ``i`` is seeded by ``--seed`` and ``i`` alone (:func:`solver.app.match.game_seed`; the
bot's numpy random state and the engine's seeds come from it), so with playout budgets
the same command into a new file replays the same games.  ``--jobs``: games at once.

Writes ``results/openspiel/match-<board>.json`` (``--out``): the command, the code and
rules versions, the open_spiel version, both players' settings, every game (colours,
outcome, moves, each side's seconds) and the tally: the bot's wins, draws and losses as
Light and as Dark, its score and the Elo difference with its 95% interval.  The file is
written after every game, so Ctrl-C loses only the games under way (exit 130), and the
same command resumes: the games of a file with the same settings are kept (a file with
other settings is refused, not overwritten).
"""

from __future__ import annotations

import argparse
import json
import shlex
import signal
import sys
import threading
import time
from functools import partial
from pathlib import Path

import numpy as np

from solver import Board
from solver.util.files import write_json
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


#: the simulations of the probe that measures the bot's rate before a process's first timed game
PROBE = 200
_rate: dict[int, float] = {}  # board m -> the probe's simulations a second, once a process
_stopped = threading.Event()  # set by Ctrl-C (see _on_ctrl_c)


def _on_ctrl_c(signum, frame) -> None:
    """Ctrl-C: remembered, then raised as usual.  The engine answers a Ctrl-C during its
    search with its move so far (as on the command line), so the game loop looks at the
    flag after each engine move to end the match there."""
    _stopped.set()
    raise KeyboardInterrupt


#: the fewest simulations the bot can move with: its first simulation only evaluates the
#: root, the second expands it (with one, MCTSBot has no child to choose)
MIN_SIMULATIONS = 2
_warm: set[int] = set()  # boards whose engine kernels this process has loaded


def _bot(game, simulations: int, rollouts: int, rs):
    from open_spiel.python.algorithms import mcts as os_mcts
    return os_mcts.MCTSBot(game, UCT_C, simulations, os_mcts.RandomRolloutEvaluator(rollouts, random_state=rs),
                           solve=True, random_state=rs)


def _probe_rate(game, m: int, rollouts: int) -> float:
    """The bot's simulations a second on the empty board (measured once a process)."""
    if m not in _rate:
        bot = _bot(game, PROBE, rollouts, np.random.RandomState(0))
        t0 = time.perf_counter()
        bot.step(game.new_initial_state())
        _rate[m] = PROBE / max(time.perf_counter() - t0, 1e-6)
    return _rate[m]


def play_one(m: int, index: int, seed: int, simulations: int, rollouts: int, engine_spec,
             seconds: float | None = None) -> dict:
    """Game ``index`` of the match: the bot is Light when ``index`` is even; with
    ``seconds``, the bot's simulations a move follow its measured rate (equal time)."""
    import random

    import pyspiel

    import solver.app.openspiel  # noqa: F401  (registers the game in this process)

    game = pyspiel.load_game("meridians", {"m": m})
    gseed = game_seed(seed, index)
    bot_player = index % 2  # OpenSpiel's player 0 is Light
    rs = np.random.RandomState(gseed % 2**32)
    bot = _bot(game, simulations, rollouts, rs)
    rate = _probe_rate(game, m, rollouts) if seconds else None
    if seconds and m not in _warm:  # load the engine's kernels before its clock runs
        from solver import Position
        from solver.search.limit import Limit
        from solver.search import mcts
        mcts.search(Position.start(f"{m}/{m + 1}"), Limit(playouts=1), seed=0, dfpn_nodes=1)
        _warm.add(m)
    engine = engine_of(engine_spec, 2 * gseed + 1 - bot_player)
    rng = random.Random(gseed)
    state = game.new_initial_state()
    spent = {"openspiel": 0.0, "engine": 0.0}
    count = {"openspiel": 0, "engine": 0}
    sims = 0
    moves: list[str] = []
    while not state.is_terminal():
        t0 = time.perf_counter()
        if state.current_player() == bot_player:
            if rate is not None:
                # aim the bot's total at seconds a move so far (its rate drifts along a game)
                owed = seconds * (count["openspiel"] + 1) - spent["openspiel"]
                bot.max_simulations = max(MIN_SIMULATIONS, int(rate * min(max(owed, seconds / 2), 2 * seconds)))
            action = bot.step(state)
            side = "openspiel"
            sims += bot.max_simulations
        else:
            move = choose_move(engine_spec, state.position, rng, gseed * 1000 + len(moves), engine)
            if _stopped.is_set():  # Ctrl-C during the engine's move ended its search, not the match
                raise KeyboardInterrupt
            action = game.action(move)
            side = "engine"
        took = time.perf_counter() - t0
        if side == "openspiel" and rate is not None:
            rate = bot.max_simulations / max(took, 1e-6)
        spent[side] += took
        count[side] += 1
        moves.append(state.action_to_string(action))
        state.apply_action(action)
    outcome = state.position.outcome
    returns = state.returns()
    return {"index": index, "openspiel": "L" if bot_player == 0 else "D", "outcome": outcome,
            "openspiel_return": returns[bot_player], "plies": len(moves), "moves": moves,
            "seconds": {k: round(v, 2) for k, v in spent.items()}, "moves_made": count,
            "openspiel_simulations": sims}


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
    per_move = {side: round(sum(g["seconds"][side] for g in games)
                            / max(1, sum(g.get("moves_made", {}).get(side, 0) for g in games)), 3)
                for side in ("openspiel", "engine")} if all("moves_made" in g for g in games) else None
    return {"seconds_a_move": per_move, "openspiel_as_light": t["L"], "openspiel_as_dark": t["D"], "openspiel_wins": wins, "draws": draws,
            "engine_wins": n - wins - draws, "openspiel_score": round(score, 4), "elo": d, "elo_low": lo,
            "elo_high": hi}


def _settings(record: dict) -> dict:
    """What must be equal for a results file's games to count towards a new run."""
    return {k: record.get(k) for k in ("board", "seed", "seconds_asked", "openspiel_player", "engine_player",
                                       "engine_dfpn_nodes")}


def _kept(out: Path, record: dict) -> list[dict]:
    """The games of ``out`` (none when it does not exist); ValueError when it holds a
    match with other settings, which a run must not overwrite."""
    if not out.exists():
        return []
    try:
        old = json.loads(out.read_text())
        if _settings(old) != _settings(record):
            raise ValueError(f"{out} holds a match with other settings: give another --out, or remove it")
        return [g for g in old["games"] if g["index"] < record["games_asked"]]
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as e:
        raise ValueError(str(e) if isinstance(e, ValueError) and str(out) in str(e)
                         else f"{out} is not a match file of this script ({e}): give another --out") from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="3/4")
    ap.add_argument("--games", default="4", help="games (colours alternate)")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--simulations", default="1000", help="OpenSpiel MCTS simulations a move")
    ap.add_argument("--rollouts", default="1", help="random rollouts a leaf of OpenSpiel's MCTS")
    ap.add_argument("--engine-playouts", default="1000", help="the engine's playouts a move")
    ap.add_argument("--seconds", default=None, help="equal time: seconds a move for both sides "
                                                    "(instead of --simulations and --engine-playouts)")
    ap.add_argument("--jobs", default="1", help="games at once")
    ap.add_argument("--out", default=None, help="the results file (default: results/openspiel/match-<board>.json)")
    args = sys.argv[1:] if argv is None else argv
    a = ap.parse_args(args)
    try:
        board = Board.parse(a.board)
        games = _whole(a.games, "--games", 1)
        seed = _whole(a.seed, "--seed", 0)
        simulations = _whole(a.simulations, "--simulations", MIN_SIMULATIONS)
        rollouts = _whole(a.rollouts, "--rollouts", 1)
        jobs = _whole(a.jobs, "--jobs", 1)
        seconds = None
        if a.seconds is not None:
            try:
                seconds = float(a.seconds)
            except ValueError:
                raise ValueError(f"--seconds {a.seconds!r}: give a number of seconds") from None
            if not 0 < seconds <= 3600:
                raise ValueError(f"--seconds {a.seconds}: give a time between 0 and 3600 seconds")
            engine_spec = parse_player(f"engine:time={seconds:g}")
        else:
            engine_spec = parse_player(f"engine:playouts={_whole(a.engine_playouts, '--engine-playouts', 1)}")
    except ValueError as e:
        return _fail(str(e))
    try:
        import pyspiel  # noqa: F401
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
    bot = {"bot": "open_spiel.python.algorithms.mcts.MCTSBot", "uct_c": UCT_C,
           "max_simulations": f"its rate x {seconds:g} s" if seconds else simulations,
           "evaluator": "RandomRolloutEvaluator", "n_rollouts": rollouts, "solve": True}
    record = {
        **provenance(shlex.join(["python", "scripts/openspiel_match.py", *args]), revision=code_revision()),
        "open_spiel": os_version, "board": board.name, "seed": seed, "games_asked": games,
        "seconds_asked": seconds, "openspiel_player": bot,
        "engine_player": engine_spec.spec, "engine_dfpn_nodes": engine_spec.dfpn,
        "games": [],
    }
    try:
        played = _kept(out, record)
    except ValueError as e:
        return _fail(str(e))
    if played:
        print(f"resuming: {len(played)} games already in {out}", file=sys.stderr, flush=True)
    todo = [i for i in range(games) if i not in {g["index"] for g in played}]
    t_start = time.perf_counter()

    def done(g: dict) -> None:
        played.append(g)
        played.sort(key=lambda x: x["index"])
        record["games"] = played
        record.update(tally(played), seconds=round(time.perf_counter() - t_start, 1))
        write_json(out, record)
        ending = "a draw" if g["outcome"] == "draw" else f"{_NAME[g['outcome']]} wins"
        print(f"game {g['index'] + 1}/{games} ({len(played)} done): OpenSpiel MCTS as {_NAME[g['openspiel']]}: "
              f"{ending} after {g['plies']} plies (MCTS {g['seconds']['openspiel']:.1f} s, engine "
              f"{g['seconds']['engine']:.1f} s)", file=sys.stderr, flush=True)

    play = partial(play_one, board.m, seed=seed, simulations=simulations, rollouts=rollouts,
                   engine_spec=engine_spec, seconds=seconds)  # play(i): game i
    _stopped.clear()
    previous = signal.signal(signal.SIGINT, _on_ctrl_c)  # before the workers fork: they inherit it
    try:
        if jobs == 1 or len(todo) <= 1:
            for i in todo:
                done(play(i))
        else:
            from concurrent.futures import ProcessPoolExecutor, as_completed
            with ProcessPoolExecutor(min(jobs, len(todo))) as pool:
                futures = [pool.submit(play, i) for i in todo]
                try:
                    for f in as_completed(futures):
                        done(f.result())
                except KeyboardInterrupt:
                    pool.shutdown(wait=False, cancel_futures=True)
                    raise
    except KeyboardInterrupt:
        print(f"\ninterrupted: {len(played)} games in {out}; the same command resumes", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGINT, previous)
    if not todo:
        record.update(tally(played))
    t = record
    budget = (f"{seconds:g} s a move each" if seconds else
              f"{simulations} simulations, {rollouts} rollout{'s' if rollouts != 1 else ''} a leaf")
    per = t.get("seconds_a_move")
    timing = f"; seconds a move: MCTS {per['openspiel']:.3f}, engine {per['engine']:.3f}" if per else ""
    print(f"{board.name}, {len(played)} games: OpenSpiel MCTS ({budget}) {t['openspiel_wins']} wins, "
          f"{t['draws']} draws, {t['engine_wins']} losses against {engine_spec.spec} "
          f"(as Light {t['openspiel_as_light']['wins']}-{t['openspiel_as_light']['draws']}-"
          f"{t['openspiel_as_light']['losses']}, as Dark {t['openspiel_as_dark']['wins']}-"
          f"{t['openspiel_as_dark']['draws']}-{t['openspiel_as_dark']['losses']}); score "
          f"{t['openspiel_score']:.0%}, Elo difference {_elo(t['openspiel_score'], t['elo'], t['elo_low'], t['elo_high'])}"
          f"{timing}; written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
