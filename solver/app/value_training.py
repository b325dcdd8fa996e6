"""Training the value model (:mod:`solver.search.value`) on the engine's self-play games.

The games are the move model's (:func:`solver.app.policy_training.play_games`: seeded,
resumable, each finished game kept in a state file), from one or more sources of a
playout budget and a number of games.  Every position of a game that is not over is a
sample, labelled with the game's result for its player to move (1 won, 0 lost, 0.5 a
draw by repetition).  Games are split by their number within their source:
:func:`fold` 0-2 train the value model, 3 fits the calibration map
(:mod:`solver.app.calibration`), 4 is held out for measuring both.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np

from solver.rules.board import Board
from solver.rules.position import Position
from solver.search.value import FEATURES, ValueModel, evaluate, fit, log_loss, sigmoid, value_features
from solver.util.errors import MeridiansError
from solver.util.files import state_dir
from .policy_training import play_games

__all__ = ["Source", "FOLDS", "TRAIN", "CALIBRATE", "TEST", "fold", "load_games", "positions", "dataset",
           "train", "parse_source", "parse_sources", "DEFAULT_SOURCES", "GROUPS", "ablation", "L2"]

FOLDS = 5
TRAIN, CALIBRATE, TEST = (0, 1, 2), 3, 4


@dataclass(frozen=True)
class Source:
    """Self-play games: ``games`` of them at ``playouts`` a move, kept in ``state``."""

    playouts: int
    games: int
    state: str

    def as_dict(self) -> dict:
        return {"playouts": self.playouts, "games": self.games, "state": self.state}


def parse_source(text: str, default_state: Callable[[int], str]) -> Source:
    """``PLAYOUTS:GAMES[:STATE]`` (the state default: ``default_state(playouts)``)."""
    parts = text.split(":", 2)
    try:
        playouts, games = int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        raise MeridiansError(f"--games-of {text!r}: give PLAYOUTS:GAMES or PLAYOUTS:GAMES:STATE") from None
    if playouts < 1 or games < 1:
        raise MeridiansError(f"--games-of {text!r}: playouts and games must be at least 1")
    return Source(playouts, games, parts[2] if len(parts) > 2 else default_state(playouts))


#: the move model's self-play runs the value model and calibration read by default
DEFAULT_SOURCES = ("800:211", "3200:139")


def parse_sources(board: Board, seed: int, specs: list[str] | None) -> list[Source]:
    """The ``--games-of`` sources of the scripts (:data:`DEFAULT_SOURCES` when none), each
    state by default train_policy's file for that board, seed and budget in the state folder."""
    tag = board.name.replace("/", "-")
    return [parse_source(s, lambda p: str(state_dir() / f"policy-selfplay-{tag}-seed{seed}-p{p}.json"))
            for s in (specs or DEFAULT_SOURCES)]


def fold(game: int) -> int:
    """The fold of the ``game``-th game of a source."""
    return game % FOLDS


def load_games(board: Board, sources: list[Source], *, seed: int, random_plies: int = 2, dfpn_nodes: int = 2000,
               log: Callable[[str], None] | None = None) -> tuple[list[list[list[str]]], float]:
    """Each source's games (played or resumed) and the seconds their playing took."""
    out, seconds = [], 0.0
    for s in sources:
        games, _, secs = play_games(board, games=s.games, playouts=s.playouts, seed=seed, state=s.state,
                                    random_plies=random_plies, dfpn_nodes=dfpn_nodes, log=log)
        out.append(games)
        seconds += secs
    return out, seconds


def positions(board: Board, games: list[list[str]], folds, stride: int = 1) -> Iterator[tuple[int, int, Position, float]]:
    """``(game, ply, position, label)`` for the positions of the games of ``folds`` that
    are not over, every ``stride``-th ply (from a ply that varies with the game, so that
    both players are to move in some)."""
    for g, moves in enumerate(games):
        if fold(g) not in folds:
            continue
        pos = Position.start(board)
        trail = [pos]
        for m in moves:
            pos = pos.play(m)
            trail.append(pos)
        winner = pos.outcome
        for ply, p in enumerate(trail[:-1]):
            if (ply + g) % stride:
                continue
            label = 0.5 if winner == "draw" else float(winner == p.to_move)
            yield g, ply, p, label


def dataset(board: Board, games: list[list[str]], folds, stride: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The feature rows and labels of the positions of ``folds``."""
    rows, labels = [], []
    for _, _, p, label in positions(board, games, folds, stride):
        rows.append(value_features(p))
        labels.append(label)
    X = np.array(rows) if rows else np.zeros((0, len(FEATURES)))
    return X, np.array(labels)


#: the L2 penalty: on 5/6 (the games of results/value), fitted on folds 0-2, 1e-4 gave the
#: lowest log-loss on fold 3 of 0, 1e-5, 1e-4, 3e-4, 1e-3 and 1e-2
L2 = 1e-4
#: groups of features, for the ablation in :func:`train`'s record
GROUPS = (("stones", ("bias", "empty", "stones", "stones_log", "light")),
          ("groups and dead stones", ("groups", "dead", "unsaved")),
          ("mobility", ("safe_log", "moves_log", "no_safe")),
          ("kills and saves", ("kill", "enemy_kill", "save")),
          ("by phase", ("stones*empty", "stones_log*empty", "kill*empty", "enemy_kill*empty", "safe_log*empty",
                        "moves_log*empty")))


def ablation(X, y, Xt, yt, l2: float) -> dict:
    """Held-out log-loss with the feature groups added one by one, and with all but one."""
    def held_out(names) -> float:
        cols = [FEATURES.index(n) for n in names]
        m = fit(X[:, cols], y, l2=l2)
        return round(log_loss(sigmoid(Xt[:, cols] @ m.weights), yt), 5)

    out: dict = {"added": {}, "all_but": {}}
    names: list[str] = []
    for group, members in GROUPS:
        names += members
        out["added"][group] = held_out(names)
    for group, members in GROUPS[1:]:
        out["all_but"][group] = held_out([n for n in FEATURES if n not in members])
    return out


def train(board: Board, sources: list[Source], *, seed: int, l2: float = L2, random_plies: int = 2,
          dfpn_nodes: int = 2000, log: Callable[[str], None] | None = None) -> tuple[ValueModel, dict]:
    """Play (or resume) the sources' games, fit the value model on folds 0-2 and measure
    it on fold 4 (held out) against the training positions' mean result: the model and a
    record of the run."""
    games, played = load_games(board, sources, seed=seed, random_plies=random_plies, dfpn_nodes=dfpn_nodes,
                               log=log)
    t0 = time.monotonic()
    parts = [(dataset(board, g, TRAIN), dataset(board, g, (TEST,))) for g in games]
    X = np.concatenate([tr[0] for tr, _ in parts])
    y = np.concatenate([tr[1] for tr, _ in parts])
    Xt = np.concatenate([te[0] for _, te in parts])
    yt = np.concatenate([te[1] for _, te in parts])
    features_seconds = time.monotonic() - t0
    t0 = time.monotonic()
    model = fit(X, y, l2=l2)
    fit_seconds = time.monotonic() - t0
    constant = float(y.mean()) if len(y) else 0.5
    record = {
        "data": {"board": board.name, "sources": [s.as_dict() for s in sources], "seed": seed,
                 "random_plies": random_plies, "dfpn_nodes": dfpn_nodes,
                 "train_games": sum(sum(fold(i) in TRAIN for i in range(len(g))) for g in games),
                 "test_games": sum(sum(fold(i) == TEST for i in range(len(g))) for g in games),
                 "selfplay_seconds": round(played, 1)},
        "l2": l2,
        "train": evaluate(sigmoid(model.logit(X)), y, constant),
        "held_out": evaluate(sigmoid(model.logit(Xt)), yt, constant) if len(yt) else None,
        "ablation_held_out_log_loss": ablation(X, y, Xt, yt, l2) if len(yt) else None,
        "features_seconds": round(features_seconds, 1),
        "fit_seconds": round(fit_seconds, 2),
        "weights": {name: round(float(w), 4) for name, w in zip(FEATURES, model.weights)},
    }
    if log and record["held_out"]:
        h = record["held_out"]
        log(f"value model: {len(y)} training positions; held out {h['positions']}: log-loss {h['log_loss']:.4f} "
            f"(constant {h['constant_log_loss']:.4f}), Brier {h['brier']:.4f} (constant {h['constant_brier']:.4f})")
    model.meta = record
    return model, record
