"""Training the move model (:mod:`solver.search.policy`) from the engine's self-play.

:func:`train` plays seeded self-play games with the engine (:class:`~solver.search.mcts.Engine`,
a playout budget a move), keeping each finished game in a state file
(:class:`~solver.jobs.state.RunState`: Ctrl-C keeps them, the same call continues), then
fits the model on the positions of four games in five and measures it on the fifth.
Each game opens with ``random_plies`` uniformly random moves (so that games differ;
they are not training targets), then the engine plays both sides.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

from solver.jobs.state import RunState
from solver.rules.board import Board
from solver.rules.position import Position
from solver.search.features import FAMILIES, position_features
from solver.search.limit import Limit
from solver.search.mcts import Engine
from solver.search.policy import PolicyModel, Samples, evaluate, fit
from solver.util.errors import Interrupted

__all__ = ["STATE_FORMAT", "HOLD_OUT", "SHARES_KEPT", "TARGETS", "selfplay_game", "play_games", "samples", "train",
           "top_features"]

STATE_FORMAT = "meridians-policy-selfplay/1"
#: one game in HOLD_OUT is held out for measuring, never trained on
HOLD_OUT = 5
#: the root's most visited moves whose shares a game record keeps, a training target
SHARES_KEPT = 8
TARGETS = ("visits", "moves")
#: the families of the first model (results/policy/policy-5-6-p3200.npz): the others came later
FIRST_FAMILIES = 10


def selfplay_game(board: Board, seed: int, playouts: int, random_plies: int, dfpn_nodes: int
                  ) -> tuple[list[str], list[dict[str, float] | None]]:
    """The moves of one self-play game and, for each of the engine's moves, the shares of
    the root's visits of its most visited moves (:data:`SHARES_KEPT`; None for a random move)."""
    rng = random.Random(seed)
    engine = Engine(seed=seed, dfpn_nodes=dfpn_nodes)
    pos = Position.start(board)
    moves: list[str] = []
    shares: list[dict[str, float] | None] = []
    while pos.outcome is None:
        if len(moves) < random_plies:
            move = rng.choice(pos.legal_moves())
            shares.append(None)
        else:
            r = engine.search(pos, Limit(playouts=playouts))
            if any(note.startswith("interrupted") for note in r.notes):
                # the engine answers Ctrl-C with its move so far: not a move to learn from
                raise KeyboardInterrupt
            move = r.best
            # the move played first, so that ties at the cut never leave it out
            top = sorted((m for m in r.moves if m.visits > 0), key=lambda m: (m.move != move, -m.visits))[:SHARES_KEPT]
            shares.append({m.move: round(m.share, 4) for m in top} if r.source == "estimate" and top else None)
        moves.append(move)
        pos = pos.play(move)
    return moves, shares


def play_games(board: Board, *, games: int, playouts: int, seed: int, state: str | Path, random_plies: int = 2,
               dfpn_nodes: int = 2000, log: Callable[[str], None] | None = None
               ) -> tuple[list[list[str]], list[list[dict[str, float] | None]], float]:
    """Play (or resume) ``games`` seeded self-play games kept in the state file ``state``:
    their moves, the search's shares of its visits at each move (:func:`selfplay_game`; a
    game of a state written before they were kept has None at every ply) and the seconds
    spent playing them.  Raises
    :class:`~solver.util.errors.Interrupted` on Ctrl-C after saving the finished games."""
    log = log or (lambda text: print(text, file=sys.stderr, flush=True))
    identity = {"board": board.name, "playouts": playouts, "seed": seed, "random_plies": random_plies,
                "dfpn_nodes": dfpn_nodes}
    run = RunState(state, STATE_FORMAT, identity, name="self-play state", run="training run",
                   fix="remove it or give another --state")
    with run:
        done = run.load_entries("games", list)
        shares = (run.load() or {}).get("shares", [])[:len(done)]
        shares += [[None] * len(g) for g in done[len(shares):]]
        played_seconds = float((run.load() or {}).get("seconds", 0.0))
        if done:
            log(f"resuming: {len(done)} of {games} games in {state}")
        try:
            for i in range(len(done), games):
                t0 = time.monotonic()
                moves, game_shares = selfplay_game(board, seed * 1_000_003 + i, playouts, random_plies, dfpn_nodes)
                played_seconds += time.monotonic() - t0
                done.append(moves)
                shares.append(game_shares)
                run.save({"games": done, "shares": shares, "seconds": round(played_seconds, 1)})
                log(f"game {i + 1}/{games}: {len(moves)} plies in {time.monotonic() - t0:.1f} s")
        except KeyboardInterrupt:
            run.save({"games": done, "shares": shares, "seconds": round(played_seconds, 1)})
            raise Interrupted(f"stopped: {len(done)} of {games} games kept in {state}; the same command goes on",
                              Path(state), len(done), games) from None
    return done[:games], shares[:games], played_seconds


def samples(board: Board, games: list[list[str]], random_plies: int,
            shares: list[list[dict[str, float] | None]] | None = None) -> Samples:
    """The engine's moves of ``games`` with the features of every legal move; with
    ``shares`` (one list a game, as :func:`selfplay_game` gives), the shares of the
    search's visits are the targets where a game has them."""
    blocks = []
    for g, moves in enumerate(games):
        pos = Position.start(board)
        game_shares = shares[g] if shares is not None and g < len(shares) else None
        for i, move in enumerate(moves):
            if i >= random_plies:
                names, feats = position_features(pos)
                target = None
                if game_shares is not None and game_shares[i]:
                    target = np.array([game_shares[i].get(name, 0.0) for name in names])
                    if target.sum() <= 0:
                        target = None
                blocks.append((feats.copy(), names.index(move), target))
            pos = pos.play(move)
    return Samples.build(blocks)


def train(board: Board, *, games: int, playouts: int, seed: int, state: str | Path, random_plies: int = 2,
          dfpn_nodes: int = 2000, targets: str = "visits", ablation: bool = False,
          log: Callable[[str], None] | None = None) -> tuple[PolicyModel, dict]:
    """Play (or resume) ``games`` self-play games, fit the model and measure it: the model
    and a record of the run (data, figures, seconds).  ``targets``: ``'visits'`` (the
    search's shares of its visits, where a game has them) or ``'moves'`` (the moves played).
    ``ablation``: also measure models fitted without each family (:func:`_ablation`).  Raises
    :class:`~solver.util.errors.Interrupted` on Ctrl-C after saving the finished games."""
    if targets not in TARGETS:
        raise ValueError(f"targets must be one of {', '.join(TARGETS)}, not {targets!r}")
    log = log or (lambda text: print(text, file=sys.stderr, flush=True))
    done, shares, played_seconds = play_games(board, games=games, playouts=playouts, seed=seed, state=state,
                                              random_plies=random_plies, dfpn_nodes=dfpn_nodes, log=log)
    train_part = [i for i in range(len(done)) if i % HOLD_OUT != HOLD_OUT - 1]
    test_part = [i for i in range(len(done)) if i % HOLD_OUT == HOLD_OUT - 1]
    t0 = time.monotonic()
    train_data = samples(board, [done[i] for i in train_part], random_plies,
                         [shares[i] for i in train_part] if targets == "visits" else None)
    # measured against the moves played, whatever the training targets
    test_data = samples(board, [done[i] for i in test_part], random_plies)
    model = fit(train_data)
    fit_seconds = time.monotonic() - t0
    record = {
        "data": {"board": board.name, "games": len(done), "train_games": len(train_part),
                 "test_games": len(test_part), "targets": targets,
                 "games_with_shares": sum(1 for g in shares if any(g)), "playouts": playouts,
                 "random_plies": random_plies,
                 "dfpn_nodes": dfpn_nodes, "seed": seed, "selfplay_seconds": round(played_seconds, 1)},
        "train": evaluate(model, train_data),
        "held_out": evaluate(model, test_data) if len(test_data) else None,
        "fit_seconds": round(fit_seconds, 1),
        "parameters": int(model.weights.size),
    }
    if ablation:
        record["ablation"] = _ablation(train_data, test_data, log)
    log(f"fitted on {len(train_data)} positions in {fit_seconds:.1f} s; held out: "
        + (", ".join(f"{k} {v:.3f}" for k, v in record["held_out"].items()) if record["held_out"] else "none"))
    model.meta = record
    return model, record


def _ablation(train_data: Samples, test_data: Samples, log: Callable[[str], None]) -> dict[str, dict]:
    """Held-out figures of models fitted without one feature family each, and with the
    families of the first model (:data:`FIRST_FAMILIES`) alone: what each family is worth."""
    def fitted_on(cols: list[int]) -> dict:
        pick = lambda d: Samples(d.feats[:, cols].copy(), d.starts, d.chosen, d.target)  # noqa: E731
        return evaluate(fit(pick(train_data)), pick(test_data))

    k = len(FAMILIES)
    out = {}
    for f in range(1, k):
        out[f"without {FAMILIES[f][0]}"] = fitted_on([c for c in range(k) if c != f])
        log(f"without {FAMILIES[f][0]}: held-out top-1 {out[f'without {FAMILIES[f][0]}']['top1']:.4f}")
    out["first model's families"] = fitted_on(list(range(FIRST_FAMILIES)))
    return out


def top_features(model: PolicyModel, k: int = 10) -> list[tuple[str, float]]:
    """The ``k`` largest weights by size, with their feature names (for a report)."""
    from solver.search.features import feature_names

    names = feature_names()
    order = np.argsort(-np.abs(model.weights))[:k]
    return [(names[i], round(float(model.weights[i]), 3)) for i in order]
