"""The value model: the probability that the player to move wins, from position features,
and the calibration map of the engine's playout win rate.

:func:`value_features` describes a position from the side of the player to move (the
stone counts, groups, own stones in dead groups, each side's live and safe moves, the
most stones each side's best move kills and the most own stones a move saves, the share
of empty points), a few compiled kernels of the rules core and of the move features
(:func:`~solver.search.features.move_features`, run for each side) doing the work;
:func:`reference_value_features` is its slow twin over the reference rules alone.  A
:class:`ValueModel` is a logistic regression over them (:func:`fit`, Newton's method with
an L2 penalty); :func:`evaluate` measures it with log-loss and the Brier score against a
constant.

A :class:`Calibration` maps the engine's win rate ``w`` (and the position's features) to a
probability: a logistic regression on ``logit(w)`` and, as measured, the empty share and
the value model's logit.  It is monotone in ``w`` (tests check it).  Either model only
estimates: a proven value is never replaced by one.

>>> from solver import Position
>>> x = value_features(Position.start("3/4"))
>>> x.shape == (len(FEATURES),), float(x[0])
(True, 1.0)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from solver.rules import core
from solver.rules.board import Board
from solver.rules.position import Position
from solver.util.errors import MeridiansError
from .features import _CANON, Scratch, move_features

__all__ = ["FEATURES", "RAW", "ValueModelError", "ValueModel", "Calibration", "raw_counts", "reference_raw_counts",
           "value_features", "reference_value_features", "features_from_raw", "fit", "evaluate", "log_loss", "CAL_INPUTS",
           "brier", "reliability", "sigmoid", "shipped_model", "shipped_calibration", "DATA"]

#: the counts a position's features are made of, own (the player to move) and enemy
RAW = ("size", "own", "enemy", "own_groups", "enemy_groups", "own_dead", "own_moves", "enemy_moves",
       "own_safe", "enemy_safe", "own_kill", "enemy_kill", "own_save")
#: the features, in the order of :func:`value_features`'s vector
FEATURES = ("bias", "empty", "stones", "stones_log", "groups", "dead", "kill", "enemy_kill", "save",
            "safe_log", "moves_log", "light", "no_safe", "unsaved", "stones*empty", "stones_log*empty",
            "kill*empty", "enemy_kill*empty", "safe_log*empty", "moves_log*empty")
#: where the shipped models are (package data)
DATA = Path(__file__).resolve().parents[1] / "data"


class ValueModelError(MeridiansError):
    """A value model or calibration file that cannot be read or is for other features."""


# -- features ---------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _scratch(m: int) -> Scratch:
    """The move features' arrays, one set per board (this module's own: not shared with
    :func:`~solver.search.features.position_features`, whose results a caller may hold)."""
    return Scratch(core.tables(Board.get(m)))


def _bucket_stones(k: int) -> int:
    """The move features' bucket of a stone count: 0, 1, 2, 3-4, 5+ -> 0..4."""
    return k if k <= 2 else 3 if k <= 4 else 4


def raw_counts(position: Position) -> dict[str, int]:
    """The counts of :data:`RAW` for ``position`` (its player to move is ``own``), by
    the compiled kernels.  Kills and saves are the move features' buckets (0..4)."""
    board = position.board
    T = core.tables(board)
    st, side = position.bitboards, position.side_index
    s = _scratch(board.m)
    out = {"size": board.size, "own": int(core.count(st, side)), "enemy": int(core.count(st, 1 - side))}
    out["own_groups"] = int(core.group_labels(T, st, side, s.label[0]))
    out["enemy_groups"] = int(core.group_labels(T, st, 1 - side, s.label[0]))
    out["own_dead"] = int(_popcount(core.dead_bb(T, st, side))) if out["own"] >= 2 else 0
    for who, c in (("own", side), ("enemy", 1 - side)):
        n = move_features(T, st, c, -1, -1, _CANON, s.moves, s.feats, s.st, s.label)
        f = s.feats[:n]
        out[f"{who}_moves"] = int(n)
        out[f"{who}_safe"] = int((f[:, 2] == 0).sum())
        out[f"{who}_kill"] = int(f[:, 1].max()) if n else 0
        if who == "own":
            out["own_save"] = int(f[:, 3].max()) if n else 0
    return out


def _popcount(bb) -> int:
    return sum(bin(int(x)).count("1") for x in bb)


def reference_raw_counts(position: Position) -> dict[str, int]:
    """:func:`raw_counts` from the reference rules alone (slow, for tests)."""
    from solver.reference import rules as R

    board = position.board
    me = position.to_move
    them = "D" if me == "L" else "L"
    stones = {c: frozenset(board.index(p) for p in position.stones(c)) for c in "LD"}
    own, enemy = stones[me], stones[them]
    out = {"size": board.size, "own": len(own), "enemy": len(enemy),
           "own_groups": len(R.groups(board, own)), "enemy_groups": len(R.groups(board, enemy)),
           "own_dead": sum(len(g) for g in R.dead_groups(board, own, enemy)) if len(own) >= 2 else 0}
    for who, colour, mine, theirs in (("own", me, own, enemy), ("enemy", them, enemy, own)):
        light, dark = (mine, theirs) if colour == "L" else (theirs, mine)
        won = len(mine) >= 2 and not theirs  # the searches' generator: no moves once won
        moves = [] if won else R.legal_moves(board, light, dark, colour)
        dead_before = set().union(*R.dead_groups(board, mine, theirs)) if len(mine) >= 2 else set()
        safe = kill = save = 0
        for p in moves:
            gone = R.removed(board, light, dark, colour, p) if mine else frozenset()
            new_mine = (mine | {p}) - gone
            killed = sum(len(g) for g in R.dead_groups(board, theirs, new_mine)) if len(theirs) >= 2 else 0
            safe += not gone
            kill = max(kill, _bucket_stones(killed))
            save = max(save, _bucket_stones(len(dead_before - gone)))
        out[f"{who}_moves"], out[f"{who}_safe"], out[f"{who}_kill"] = len(moves), safe, kill
        if who == "own":
            out["own_save"] = save
    return out


def features_from_raw(r: dict[str, int], light: bool) -> np.ndarray:
    """The feature vector (:data:`FEATURES`) of a position's counts; ``light``: Light is
    to move."""
    so, se = r["own"], r["enemy"]
    empty = (r["size"] - so - se) / r["size"]
    stones = (so - se) / (so + se + 1)
    stones_log = math.log((so + 1) / (se + 1))
    groups = (r["own_groups"] - r["enemy_groups"]) / (r["own_groups"] + r["enemy_groups"] + 1)
    dead = r["own_dead"] / (so + 1)
    kill, enemy_kill, save = r["own_kill"] / 4, r["enemy_kill"] / 4, r["own_save"] / 4
    safe_log = math.log((r["own_safe"] + 1) / (r["enemy_safe"] + 1))
    moves_log = math.log((r["own_moves"] + 1) / (r["enemy_moves"] + 1))
    no_safe = float(r["own_safe"] == 0)
    unsaved = float(r["own_dead"] > 0 and r["own_save"] == 0)
    return np.array([1.0, empty, stones, stones_log, groups, dead, kill, enemy_kill, save, safe_log, moves_log,
                     float(light), no_safe, unsaved, stones * empty, stones_log * empty, kill * empty,
                     enemy_kill * empty, safe_log * empty, moves_log * empty])


def value_features(position: Position) -> np.ndarray:
    """The feature vector (:data:`FEATURES`) of ``position`` for its player to move."""
    return features_from_raw(raw_counts(position), position.to_move == "L")


def reference_value_features(position: Position) -> np.ndarray:
    """:func:`value_features` from the reference rules alone (slow, for tests)."""
    return features_from_raw(reference_raw_counts(position), position.to_move == "L")


# -- the model ----------------------------------------------------------------------------


def sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _logit(p: np.ndarray | float, eps: float = 1e-4) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=np.float64), eps, 1 - eps)
    return np.log(p / (1 - p))


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """Mean negative log-likelihood of labels ``y`` (1 won, 0 lost, 0.5 drawn) under ``p``."""
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def brier(p: np.ndarray, y: np.ndarray) -> float:
    """Mean squared difference of ``p`` and the labels."""
    return float(((p - y) ** 2).mean())


def reliability(p: np.ndarray, y: np.ndarray, bins: int = 10) -> list[dict]:
    """The reliability diagram of ``p`` against ``y`` in ``bins`` equal-width bins: each
    non-empty bin's count, mean prediction and mean outcome."""
    idx = np.minimum((p * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        sel = idx == b
        if sel.any():
            out.append({"bin": b, "low": b / bins, "high": (b + 1) / bins, "count": int(sel.sum()),
                        "predicted": float(p[sel].mean()), "observed": float(y[sel].mean())})
    return out


def _newton(X: np.ndarray, y: np.ndarray, l2: float, steps: int = 50) -> np.ndarray:
    """Weights of a logistic regression (penalty ``l2`` on all but the first column)."""
    n, d = X.shape
    w = np.zeros(d)
    pen = np.full(d, l2)
    pen[0] = 0.0
    for _ in range(steps):
        p = sigmoid(X @ w)
        g = X.T @ (p - y) / n + pen * w
        H = (X * (p * (1 - p))[:, None]).T @ X / n + np.diag(pen) + 1e-9 * np.eye(d)
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return w


@dataclass
class ValueModel:
    """The weights of the value model, one per feature of :data:`FEATURES`, and where
    they came from."""

    weights: np.ndarray
    meta: dict = field(default_factory=dict)

    def logit(self, x: np.ndarray) -> np.ndarray:
        """The log-odds of a feature vector or matrix."""
        return np.asarray(x) @ self.weights

    def probability(self, position: Position) -> float:
        """The model's probability that the player to move of ``position`` wins (a game
        over: 1 or 0 by the rules)."""
        if position.outcome is not None:
            return 1.0 if position.outcome == position.to_move else 0.5 if position.outcome == "draw" else 0.0
        return float(sigmoid(self.logit(value_features(position))))

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, weights=self.weights, features=np.array(json.dumps(FEATURES)),
                            meta=np.array(json.dumps(self.meta)))

    @classmethod
    def load(cls, path: str | Path) -> ValueModel:
        """A model written by :meth:`save`; :class:`ValueModelError` for another file."""
        try:
            with np.load(path) as f:
                weights, features, meta = f["weights"], str(f["features"]), str(f["meta"])
        except (OSError, KeyError, ValueError) as e:
            raise ValueModelError(f"{path}: not a value model file ({e})") from None
        if json.loads(features) != list(FEATURES) or weights.shape != (len(FEATURES),):
            raise ValueModelError(f"{path}: a value model for other features than this code's")
        return cls(weights.astype(np.float64), json.loads(meta))


def fit(X: np.ndarray, y: np.ndarray, *, l2: float = 1e-3) -> ValueModel:
    """The logistic regression of the labels ``y`` (1, 0, or 0.5 for a draw) on the
    feature rows ``X``."""
    return ValueModel(_newton(np.asarray(X, np.float64), np.asarray(y, np.float64), l2))


def evaluate(p: np.ndarray, y: np.ndarray, constant: float) -> dict[str, float]:
    """Log-loss and Brier score of predictions ``p`` and of the ``constant`` prediction."""
    c = np.full(len(y), constant)
    return {"positions": int(len(y)), "log_loss": log_loss(p, y), "brier": brier(p, y),
            "constant": float(constant), "constant_log_loss": log_loss(c, y), "constant_brier": brier(c, y)}


# -- calibration --------------------------------------------------------------------------

#: the inputs a calibration map may use: functions of the win rate (its logit), the empty
#: share, the value model's logit and the search's playouts (``budget``: log2 of the
#: playouts over the fewest the map was fitted at, held within the budgets it was fitted at)
CAL_INPUTS = ("bias", "logit", "empty", "logit*empty", "value", "budget", "logit*budget")


@dataclass
class Calibration:
    """A map from the engine's win rate to a probability: ``sigmoid(sum c_i * input_i)``
    over ``inputs`` (names of :data:`CAL_INPUTS`); ``budgets``: the fewest and most
    playouts of the searches it was fitted on; ``board`` the board."""

    inputs: tuple[str, ...]
    coef: np.ndarray
    budgets: tuple[int, int] = (1, 1)
    board: str = ""
    meta: dict = field(default_factory=dict)

    def budget(self, playouts) -> np.ndarray:
        """The ``budget`` input of a search of ``playouts``."""
        lo, hi = self.budgets
        return np.log2(np.clip(np.asarray(playouts, np.float64), lo, hi) / lo)

    def design(self, win_rate, empty, value, playouts) -> np.ndarray:
        """The input matrix for arrays of win rates, empty shares, value logits and playouts."""
        lw = _logit(win_rate, 1e-3)
        shape = lw.shape
        empty = np.broadcast_to(np.asarray(empty, np.float64), shape)
        value = np.broadcast_to(np.asarray(value, np.float64), shape)
        budget = np.broadcast_to(self.budget(playouts), shape)
        cols = {"bias": np.ones_like(lw), "logit": lw, "empty": empty, "logit*empty": lw * empty, "value": value,
                "budget": budget, "logit*budget": lw * budget}
        return np.stack([cols[name] for name in self.inputs], axis=-1)

    @property
    def needs_value(self) -> bool:
        return "value" in self.inputs

    def __call__(self, win_rate, empty=0.0, value=0.0, playouts=None):
        """The calibrated probability of win rate(s) ``win_rate`` at empty share ``empty``,
        value-model logit ``value`` and a search of ``playouts`` (None: the fewest fitted)."""
        playouts = self.budgets[0] if playouts is None else playouts
        return sigmoid(self.design(win_rate, empty, value, playouts) @ self.coef)

    @classmethod
    def fit(cls, inputs, win_rate, empty, value, playouts, y, *, l2: float = 1e-4, board: str = "") -> Calibration:
        """The map fitted to outcomes ``y``, monotone in the win rate: a fit that is not is
        refitted without its interaction terms (``logit*...``), and failing that refused
        (:class:`ValueModelError`)."""
        inputs = tuple(inputs)
        playouts = np.asarray(playouts)
        c = cls(inputs, np.zeros(len(inputs)), (int(playouts.min()), int(playouts.max())), board)
        c.coef = _newton(c.design(win_rate, empty, value, playouts), np.asarray(y, np.float64), l2)
        if not c.monotone():
            plain = tuple(i for i in inputs if not i.startswith("logit*"))
            if plain == inputs:
                raise ValueModelError("the calibration map fitted decreasing in the win rate: too little data")
            return cls.fit(plain, win_rate, empty, value, playouts, y, l2=l2, board=board)
        return c

    def slope(self, empty: float, budget: float) -> float:
        """d logit(p) / d logit(w) at empty share ``empty`` and ``budget`` input."""
        s = 0.0
        for name, c in zip(self.inputs, self.coef):
            s += {"logit": c, "logit*empty": c * empty, "logit*budget": c * budget}.get(name, 0.0)
        return s

    def monotone(self) -> bool:
        """Whether the map increases with the win rate at every empty share and budget
        (the slope is linear in both: its corners decide)."""
        top = float(self.budget(self.budgets[1]))
        return all(self.slope(e, b) > 0 for e in (0.0, 1.0) for b in (0.0, top))

    def as_dict(self) -> dict:
        return {"board": self.board, "inputs": list(self.inputs), "coef": [float(c) for c in self.coef],
                "budgets": list(self.budgets), "meta": self.meta}

    @classmethod
    def from_dict(cls, d: dict) -> Calibration:
        try:
            inputs = tuple(d["inputs"])
            coef = np.array(d["coef"], np.float64)
            lo, hi = (int(x) for x in d.get("budgets", (1, 1)))
            if not set(inputs) <= set(CAL_INPUTS) or coef.shape != (len(inputs),) or not 1 <= lo <= hi:
                raise ValueError("inputs, coefficients and budgets do not match")
            c = cls(inputs, coef, (lo, hi), str(d.get("board", "")), dict(d.get("meta", {})))
        except (KeyError, TypeError, ValueError) as e:
            raise ValueModelError(f"not a calibration map ({e})") from None
        if not c.monotone():
            raise ValueModelError("a calibration map that is not monotone in the win rate")
        return c

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.as_dict(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        try:
            d = json.loads(Path(path).read_text())
        except (OSError, ValueError) as e:
            raise ValueModelError(f"{path}: not a calibration file ({e})") from None
        return cls.from_dict(d)


@lru_cache(maxsize=None)
def shipped_model(board_name: str) -> ValueModel | None:
    """The value model shipped for a board (``'5/6'``), None when there is none."""
    path = DATA / f"value-{board_name.replace('/', '-')}.npz"
    return ValueModel.load(path) if path.exists() else None


@lru_cache(maxsize=None)
def shipped_calibration(board_name: str) -> Calibration | None:
    """The calibration map shipped for a board, None when there is none."""
    path = DATA / f"calibration-{board_name.replace('/', '-')}.json"
    return Calibration.load(path) if path.exists() else None
