"""The move model: a probability for each legal move of a position (a conditional logit).

A move's score is the sum of the weights of its features (:mod:`.features`), and the
probability of a move is its share of ``exp(score)`` among the legal moves: Coulom's
generalised Bradley-Terry model of move patterns, with each feature family a team
member.  :func:`fit` finds the weights by gradient descent on the log-likelihood of the
moves chosen in self-play (L2-regularised: 3e-3 was best of 1e-4 to 3e-2 on held-out 3/4 games), :func:`evaluate` measures a model on held-out
positions against a uniform choice, and :func:`policy` answers for one position.

>>> from solver import Position
>>> p = policy(Position.parse("2/3/4/3/2 L"), PolicyModel.uniform())
>>> len(p), round(sum(p.values()), 9)
(14, 1.0)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from solver.rules.position import Position
from solver.util.errors import MeridiansError
from .features import FAMILIES, N_FEATURES, position_features

__all__ = ["PolicyError", "PolicyModel", "Samples", "policy", "fit", "evaluate"]


class PolicyError(MeridiansError):
    """A model file that cannot be read or is for other features."""


@dataclass
class PolicyModel:
    """The weights of the move model, one per feature, and where they came from."""

    weights: np.ndarray
    meta: dict = field(default_factory=dict)

    @classmethod
    def uniform(cls) -> PolicyModel:
        """All weights 0: every legal move equally likely."""
        return cls(np.zeros(N_FEATURES))

    def scores(self, feats: np.ndarray) -> np.ndarray:
        """The score of each move of a feature array (moves, families)."""
        return self.weights[feats].sum(axis=1)

    def save(self, path: str | Path) -> None:
        """Write the weights (.npz) with the families they are for and ``meta`` as JSON."""
        families = json.dumps(FAMILIES)
        np.savez_compressed(path, weights=self.weights, families=np.array(families),
                            meta=np.array(json.dumps(self.meta)))

    @classmethod
    def load(cls, path: str | Path) -> PolicyModel:
        """A model written by :meth:`save`; :class:`PolicyError` for another file."""
        try:
            with np.load(path) as f:
                weights, families, meta = f["weights"], str(f["families"]), str(f["meta"])
        except (OSError, KeyError, ValueError) as e:
            raise PolicyError(f"{path}: not a move model file ({e})") from None
        theirs = [tuple(x) for x in json.loads(families)]
        # a model of fewer families (an older model of these first ones) scores as before:
        # the families it lacks weigh nothing
        if theirs != list(FAMILIES[:len(theirs)]) or weights.shape != (sum(n for _, n in theirs),):
            raise PolicyError(f"{path}: a move model for other features than this code's")
        full = np.zeros(N_FEATURES)
        full[:len(weights)] = weights
        return cls(full, json.loads(meta))


def policy(position: Position, model: PolicyModel | str | Path) -> dict[str, float]:
    """The model's probability for each legal move of ``position`` (none once the game is
    over); ``model``: a model or the path of a model file."""
    if not isinstance(model, PolicyModel):
        model = PolicyModel.load(model)
    names, feats = position_features(position)
    if not names:
        return {}
    s = model.scores(feats)
    e = np.exp(s - s.max())
    p = e / e.sum()
    return {m: float(x) for m, x in zip(names, p)}


@dataclass
class Samples:
    """Positions with the move chosen in each: the feature rows of all their legal moves,
    one block a position (``starts``: where each block begins, and the end), the chosen
    move's row within its block, and the training target of each row (a distribution
    over each block: the chosen move alone, or the search's shares of its visits)."""

    feats: np.ndarray   # int32 (rows, families)
    starts: np.ndarray  # int64 (positions + 1)
    chosen: np.ndarray  # int64 (positions)
    target: np.ndarray | None = None  # float64 (rows); None: the chosen moves

    @classmethod
    def build(cls, blocks: list[tuple]) -> Samples:
        """From ``(feature array, chosen row)`` or ``(feature array, chosen row, target
        array)`` tuples, one a position."""
        sizes = [len(b[0]) for b in blocks]
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        feats = np.concatenate([b[0] for b in blocks]) if blocks else np.zeros((0, len(FAMILIES)), np.int32)
        chosen = np.array([b[1] for b in blocks], np.int64)
        target = None
        if any(len(b) > 2 and b[2] is not None for b in blocks):
            target = np.zeros(len(feats))
            for b, start in zip(blocks, starts[:-1]):
                if len(b) > 2 and b[2] is not None:
                    target[start:start + len(b[0])] = b[2] / b[2].sum()
                else:
                    target[start + b[1]] = 1.0
        return cls(feats, starts, chosen, target)

    def targets(self) -> np.ndarray:
        """The target of each row (one-hot on the chosen moves when there is none)."""
        if self.target is not None:
            return self.target
        t = np.zeros(len(self.feats))
        t[self.starts[:-1] + self.chosen] = 1.0
        return t

    def __len__(self) -> int:
        return len(self.chosen)


def _log_softmax(s: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each row's score minus the log-sum-exp of its block."""
    top = np.maximum.reduceat(s, starts[:-1])
    sizes = np.diff(starts)
    shifted = s - np.repeat(top, sizes)
    lse = np.log(np.add.reduceat(np.exp(shifted), starts[:-1]))
    return shifted - np.repeat(lse, sizes)


def _loss(w: np.ndarray, data: Samples, l2: float, target: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean cross-entropy of the targets under the model (plus the L2 term) and its gradient."""
    n = len(data)
    logp = _log_softmax(w[data.feats].sum(axis=1), data.starts)
    loss = -(target * logp).sum() / n + 0.5 * l2 * (w @ w)
    p = np.exp(logp)
    # d/dw: expected feature counts under the model minus those under the targets
    k = data.feats.shape[1]
    grad = np.bincount(data.feats.ravel(), np.repeat(p - target, k), N_FEATURES)
    return loss, grad / n + l2 * w


def fit(data: Samples, *, l2: float = 3e-3, steps: int = 400, rate: float = 0.1) -> PolicyModel:
    """Weights that minimise the cross-entropy of the targets (the likelihood of the
    chosen moves when there are no others; Adam, full batch, deterministic)."""
    target = data.targets()
    w = np.zeros(N_FEATURES)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    b1, b2 = 0.9, 0.999
    for t in range(1, steps + 1):
        _, g = _loss(w, data, l2, target)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w -= rate * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + 1e-8)
    return PolicyModel(w)


def evaluate(model: PolicyModel, data: Samples) -> dict[str, float]:
    """On ``data``: the model's top-1 agreement with the chosen moves (ties shared) and
    mean log-likelihood, and a uniform choice's."""
    s = model.scores(data.feats)
    logp = _log_softmax(s, data.starts)
    chosen_rows = data.starts[:-1] + data.chosen
    top = np.maximum.reduceat(s, data.starts[:-1])
    sizes = np.diff(data.starts)
    at_top = s >= np.repeat(top, sizes) - 1e-12
    ties = np.add.reduceat(at_top.astype(np.int64), data.starts[:-1])
    top1 = np.where(at_top[chosen_rows], 1.0 / ties, 0.0)
    return {
        "positions": int(len(data)),
        "top1": float(top1.mean()), "uniform_top1": float((1.0 / sizes).mean()),
        "loglik": float(logp[chosen_rows].mean()), "uniform_loglik": float(-np.log(sizes).mean()),
        "mean_moves": float(sizes.mean()),
    }
