"""The move model inside df-pn (df-pn+ style): it orders a node's children and sets their
initial numbers, and nothing else, so the values df-pn proves stay exactly those of plain
df-pn (tests/test_guided.py compares them).

At a node's expansion :func:`node_factors` scores every live move with the model
(:mod:`.policy` over :mod:`.features`; the last two moves come from the search path, -1
where unknown) and turns the probability ``p`` of each of the ``n`` moves into a factor
``(p * n) ** -power`` clipped to ``[1 / clip, clip]``: the number that chooses a child
(its proof number at the prover's nodes, its disproof number at the other player's),
``k`` from its move count as in plain df-pn, becomes ``round(k * factor)`` (at least 1),
so a move the model likes costs less to try first and a move it dislikes more.  The
children are then ordered by the model's score, so that ties go to the likelier move.
df-pn expands a node again each time it comes back to it, mostly along the same path, so
the factors of the last :data:`CACHE` nodes scored are kept, by the position's key and
its last two moves (a key collision could only change an order, never a value).

**Focus** (``focus=k``, Hex's FDFPN made stateless): at the prover's nodes df-pn takes the
children in the model's order until ``k`` of them are not disproven (the table says), so
the focused set widens by one for each child disproven; the node's proof number is the
least of that set's, its disproof number the sum of that set's, and a child proven
anywhere proves it.  The node is disproven only when every child is, so the values stay
those of plain df-pn.  With ``widen=w`` the set also grows by one child each time the
node's work (its expansions, the table's and this visit's) grows by the factor ``w``.

:func:`load_model` is the one place that says where the model comes from.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import NamedTuple

import numpy as np

from solver.rules import core
from solver.rules.core import kernel
from .features import _CANON, K, LABEL_ROWS, OFFSETS, move_features
from .policy import PolicyError, PolicyModel

__all__ = ["Guide", "new_guide", "node_factors", "load_model", "MODEL_PATH", "POWER", "CLIP", "as_model"]

#: the move model df-pn uses when asked for "the" model: the engine's, shipped with the package
MODEL_PATH = Path(__file__).resolve().parents[1] / "data" / "policy.npz"
#: the mapping from probabilities to factors (chosen by scripts/bench_guided.py,
#: results/guided/tuning-3-4.json)
POWER = 0.5
CLIP = 8.0
#: at whose nodes the factors apply: BOTH, the prover's (OR) only, the other's (AND) only
#: (the model still orders every node's children), or OR_MODEL: the model is used at the
#: prover's nodes only (factors, order, focus), and the other player's are not scored at all
BOTH, OR_ONLY, AND_ONLY, OR_MODEL = 0, 1, 2, 3
SIDES = BOTH
#: focused df-pn (Hex's FDFPN): at the prover's nodes only the model's best ``FOCUS``
#: children that are not disproven count (0: all children, plain df-pn+).  Off unless
#: asked for; asked for, 3 (chosen in results/guided/focus-tuning*.json)
FOCUS = 0
#: the focus widens by one child each time the expansions spent below a node grow by
#: this factor (more than 1; 0: it widens only for the children disproven); without
#: widening, focus loses proofs (chosen in results/guided/focus-widen-3-4.json)
WIDEN = 4.0
#: lazy: the model scores a node only when df-pn comes back to it (the table has it), so
#: a node's first expansion, most expansions, is plain df-pn's and costs no scoring
LAZY = False
# params slots
P_POWER, P_CLIP, P_SIDES, P_FOCUS, P_WIDEN, P_LAZY = range(6)
#: nodes whose factors a guide remembers: df-pn expands a node again each time the
#: search comes back to it, mostly along the same path (same last moves)
CACHE = 4096
#: a bound on the number of plies the guide remembers moves for (dfpn.MAX_PLY)
MAX_PLY = 2048


class Guide(NamedTuple):
    """The model's weights and the scratch of its evaluation inside df-pn."""

    weights: np.ndarray    # float64 (N_FEATURES,)
    offsets: np.ndarray    # int32 (families,): a family's first feature index
    canon: np.ndarray      # int32 (4**6,): neighbour patterns up to symmetry
    moves: np.ndarray      # int64 (64 w,): the moves of the node being expanded
    feats: np.ndarray      # int32 (64 w, families)
    st: np.ndarray         # uint64 (2, w): scratch of move_features
    label: np.ndarray      # int32 (LABEL_ROWS, 64 w): scratch of move_features
    factor: np.ndarray     # float64 (64 w,): per cell, the factor of its move's number
    score: np.ndarray      # float64 (64 w,): per cell, its move's score (ordering)
    path_move: np.ndarray  # int64 (MAX_PLY,): the cell played into each ply (-1: unknown)
    params: np.ndarray     # float64 (6,): power, clip, sides, focus, widen, lazy
    stats: np.ndarray      # int64 (2,): nodes evaluated, nodes found in the cache
    ck_key: np.ndarray     # uint64 (cache,): a node and its last two moves (0: empty)
    ck_factor: np.ndarray  # float64 (cache, 64 w): their ``factor`` row
    ck_score: np.ndarray   # float64 (cache, 64 w): their ``score`` row
    valid: np.ndarray      # int8 (MAX_PLY,): whether the node at each ply was scored at its
                           # last expansion (else its children are plain df-pn's)


def load_model(path: str | Path | None = None) -> PolicyModel:
    """The move model at ``path`` (None: :data:`MODEL_PATH`); PolicyError if it cannot
    be read."""
    path = MODEL_PATH if path is None else Path(path)
    if not path.exists():
        raise PolicyError(f"{path}: no move model there")
    return PolicyModel.load(path)


def as_model(model: PolicyModel | str | Path | bool) -> PolicyModel:
    """A model from what a caller gives: a model, a path, or True for :func:`load_model`'s."""
    if isinstance(model, PolicyModel):
        return model
    if model is True:
        return load_model()
    if isinstance(model, (str, Path)):
        return load_model(model)
    raise TypeError(f"model: a PolicyModel, a path or True, not {model!r}")


def new_guide(t: core.Tables, model: PolicyModel, *, power: float | None = None, clip: float | None = None,
              sides: int | None = None, focus: int | None = None, widen: float | None = None,
              lazy: bool | None = None, cache: int = CACHE) -> Guide:
    """The guide of a df-pn search on the board of ``t`` with ``model`` (None: the
    module's :data:`POWER`, :data:`CLIP`, :data:`SIDES`, :data:`FOCUS`, :data:`WIDEN`,
    :data:`LAZY` as they are now), remembering the factors of the last ``cache`` nodes it scored (at
    least 1)."""
    power = POWER if power is None else power
    clip = CLIP if clip is None else clip
    sides = SIDES if sides is None else sides
    focus = FOCUS if focus is None else focus
    widen = WIDEN if widen is None else widen
    lazy = LAZY if lazy is None else bool(lazy)
    if not (power >= 0 and math.isfinite(power)) or not (clip >= 1 and math.isfinite(clip)):
        raise ValueError(f"power {power} must be >= 0 and clip {clip} >= 1")
    if sides not in (BOTH, OR_ONLY, AND_ONLY, OR_MODEL):
        raise ValueError(f"sides {sides}: give {BOTH}, {OR_ONLY}, {AND_ONLY} or {OR_MODEL}")
    if isinstance(focus, bool) or not isinstance(focus, (int, np.integer)) or focus < 0:
        raise ValueError(f"focus {focus!r}: give a whole number of children, 0 for all")
    if not ((widen == 0 or widen > 1) and math.isfinite(widen)):
        raise ValueError(f"widen {widen}: give a factor above 1, or 0 for none")
    nbits = 64 * t.w
    return Guide(
        np.ascontiguousarray(model.weights, np.float64), OFFSETS.astype(np.int32), _CANON,
        np.zeros(nbits, np.int64), np.zeros((nbits, K), np.int32), np.zeros((2, t.w), np.uint64),
        np.zeros((LABEL_ROWS, nbits), np.int32), np.ones(nbits), np.zeros(nbits), np.full(MAX_PLY, -1, np.int64),
        np.array([power, clip, sides, focus, widen, float(lazy)], np.float64), np.zeros(2, np.int64),
        np.zeros(max(1, cache), np.uint64), np.ones((max(1, cache), nbits)), np.zeros((max(1, cache), nbits)),
        np.zeros(MAX_PLY, np.int8),
    )


@kernel
def node_factors(T, G, st, side, last, prev, key):
    """Fill ``G.factor`` and ``G.score`` at the cells of the live moves of ``st``
    (``side`` to move; ``last``, ``prev``: the cells of the last two moves, -1: none;
    ``key``: the position's identity key, which with the last moves finds it in the
    cache; 0: not looked for)."""
    G.stats[0] += 1
    h = np.uint64(0)
    slot = np.int64(0)
    if key != 0:
        h = key ^ (np.uint64(last + 1) * np.uint64(0x9E3779B97F4A7C15)) ^ (
            np.uint64(prev + 1) * np.uint64(0xC2B2AE3D27D4EB4F))
        if h == 0:
            h = np.uint64(1)
        slot = np.int64(h % np.uint64(G.ck_key.shape[0]))
        if G.ck_key[slot] == h:
            G.stats[1] += 1
            for c in range(G.factor.shape[0]):  # loops: slice copies need numba's allocator
                G.factor[c] = G.ck_factor[slot, c]
                G.score[c] = G.ck_score[slot, c]
            return
    n = move_features(T, st, side, last, prev, G.canon, G.moves, G.feats, G.st, G.label)
    if n == 0:
        return
    top = -1e300
    for i in range(n):
        s = 0.0
        for f in range(G.feats.shape[1]):
            s += G.weights[G.offsets[f] + G.feats[i, f]]
        G.score[G.moves[i]] = s
        top = max(top, s)
    total = 0.0
    for i in range(n):
        total += math.exp(G.score[G.moves[i]] - top)
    power = G.params[P_POWER]
    clip = G.params[P_CLIP]
    lo = 1.0 / clip
    # log(p * n) = score - top - log(total) + log(n)
    shift = -top - math.log(total) + math.log(n)
    for i in range(n):
        c = G.moves[i]
        G.factor[c] = min(clip, max(lo, math.exp(-power * (G.score[c] + shift))))
    if h != 0:
        G.ck_key[slot] = h
        for c in range(G.factor.shape[0]):
            G.ck_factor[slot, c] = G.factor[c]
            G.ck_score[slot, c] = G.score[c]
