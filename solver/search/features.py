"""Features of candidate moves, the move model's input (:mod:`.policy`).

Each legal move of a position gets one feature index from each of :data:`FAMILIES`
(a move's score is the sum of its features' weights), computed by one compiled kernel
over the rules core, :func:`move_features`:

- ``pattern``: the colours of its 6 neighbours (empty, own, enemy, off the board), up to
  the 12 symmetries of the hexagon around the point;
- ``kill``: enemy stones left in dead groups after the move (the enemy must revive them or
  lose them), bucketed 0, 1, 2, 3-4, 5+;
- ``harm``: own stones the move removes (the mover's dead groups, its own stone too);
- ``save``: own stones in dead groups before the move that the move keeps;
- ``last``, ``prev``: hex distance to the last move and to the one before: 1, 2, 3, 4+, none;
- ``own_seen``, ``enemy_seen``: lines on which the first stone is own (enemy) and not
  adjacent (0-3+): the paths the stone makes, the enemy stones it faces;
- ``blocks``: enemy paths that run through the point (0-3+), cut by a stone there;
- ``joins``: own paths that run through it (0-3+);
- ``threat``: enemy stones in groups with two or more paths of which the move blocks all
  but one (bucketed as ``kill``): the next move there kills them;
- ``safety``: the paths of the group the new stone is in after the move (0-3+; a path is
  counted at each of its ends in the group);
- ``size``: the stones of that group (1, 2, 3-4, 5+);
- ``ring2``: own and enemy stones at distance 2 (0-3+ each, 16 classes).

:func:`reference_features` computes the same from the reference rules alone (a slow
twin, for tests).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from solver.rules import core
from solver.rules.bits import (
    bb_and, bb_andnot, bb_any, bb_bit, bb_clear_lowest, bb_highest, bb_load, bb_lowest, bb_or,
    bb_popcount, bb_store, bb_test,
)
from solver.rules.board import DIRECTIONS, Board
from solver.rules.core import kernel
from solver.rules.position import Position

__all__ = ["FAMILIES", "PATTERNS", "N_FEATURES", "OFFSETS", "LABEL_ROWS", "Scratch", "move_features",
           "position_features",
           "recent_moves", "reference_features", "feature_names"]


def _pattern_classes() -> np.ndarray:
    """``canon[code]`` for the 4**6 neighbour codes (colour of direction d at digit d):
    the class number of the code up to the 12 symmetries of a hexagon."""
    index = {d: i for i, d in enumerate(DIRECTIONS)}
    rot = [index[(-dr, dq + dr)] for dq, dr in DIRECTIONS]        # a turn by 60 degrees
    mirror = [index[(dr, dq)] for dq, dr in DIRECTIONS]           # swapping the axes q and r
    perms = []
    p = list(range(6))
    for _ in range(6):
        p = [rot[x] for x in p]
        perms.append(p)
        perms.append([mirror[x] for x in p])
    codes = np.arange(4**6)
    digits = [(codes // 4**d) % 4 for d in range(6)]
    least = np.full(4**6, 4**6)
    for perm in perms:
        # the colour of direction d goes to direction perm[d]
        least = np.minimum(least, sum(digits[d] * 4 ** perm[d] for d in range(6)))
    _, canon = np.unique(least, return_inverse=True)
    return canon.astype(np.int32)


_CANON = _pattern_classes()
PATTERNS = int(_CANON.max()) + 1
#: the feature families and their sizes, in the order of a move's feature row
FAMILIES: tuple[tuple[str, int], ...] = (
    ("pattern", PATTERNS), ("kill", 5), ("harm", 5), ("save", 5), ("last", 5), ("prev", 5),
    ("own_seen", 4), ("enemy_seen", 4), ("blocks", 4), ("joins", 4),
    ("threat", 5), ("safety", 4), ("size", 4), ("ring2", 16),
)
#: OFFSETS[f]: the index of family f's first feature
OFFSETS = np.cumsum([0] + [n for _, n in FAMILIES[:-1]]).astype(np.int32)
N_FEATURES = int(sum(n for _, n in FAMILIES))
K = len(FAMILIES)
#: rows of the ``label`` scratch of :func:`move_features`: group labels (own, enemy), the
#: enemy groups' path ends, their sizes, and the ends a move blocks
LABEL_ROWS = 5


def feature_names() -> list[str]:
    """A name per feature index: ``'kill=2'`` (the bucket), ``'pattern=17'`` (the class)."""
    return [f"{name}={i}" for name, n in FAMILIES for i in range(n)]


@kernel(inline="always")
def _bucket5(k):
    """0, 1, 2, 3-4, 5+ -> 0..4."""
    if k <= 2:
        return k
    return 3 if k <= 4 else 4


@kernel(inline="always")
def _distance(T, a, b):
    """Hex distance between cells ``a`` and ``b``, bucketed 1, 2, 3, 4+ -> 0..3; 4: ``b`` is -1."""
    if b < 0:
        return 4
    m = len(T.mtag)
    stride = 2 * m + 1
    dq = (a + m) % stride - (b + m) % stride
    dr = (a + m) // stride - (b + m) // stride
    d = (abs(dq) + abs(dr) + abs(dq + dr)) // 2
    return min(d, 4) - 1


@kernel(inline="always")
def _seen(T, cell, d, occupied):
    """The first occupied cell beyond ``cell`` in direction ``d``, -1 if none."""
    ahead = bb_and(bb_load(T.rays[d], cell, T.zero), occupied)
    if not bb_any(ahead):
        return -1
    if core.offset(T, d) > 0:
        return bb_lowest(ahead)
    return bb_highest(ahead)


@kernel(inline="always")
def _hex_distance(T, a, b):
    """Hex distance between cells ``a`` and ``b`` (large across the board's padding)."""
    m = len(T.mtag)
    stride = 2 * m + 1
    dq = (a + m) % stride - (b + m) % stride
    dr = (a + m) // stride - (b + m) // stride
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@kernel
def _ring2(T, cell, own, enemy):
    """The class of the own and enemy stones at distance 2 from ``cell``: 4 own + enemy (each 0-3+)."""
    nbits = 64 * T.w
    n_own = 0
    n_enemy = 0
    # each point at distance 2 is two steps along one direction or along two at 60 degrees:
    # one unordered pair of directions; the distance test drops the other pairs and the
    # steps that wrap around the board's padding
    for d in range(6):
        for e in range(d, 6):
            x = cell + core.offset(T, d) + core.offset(T, e)
            if 0 <= x < nbits and T.point_of[x] >= 0 and _hex_distance(T, cell, x) == 2:
                if bb_test(own, x):
                    n_own += 1
                elif bb_test(enemy, x):
                    n_enemy += 1
    return 4 * min(n_own, 3) + min(n_enemy, 3)


@kernel
def _path_ends(T, g, own, occupied):
    """The paths of the group ``g`` (stones of ``own``), counted at each of its ends in ``g``."""
    ends = 0
    todo = g
    while bb_any(todo):
        s = bb_lowest(todo)
        todo = bb_clear_lowest(todo)
        for d in range(6):
            x = _seen(T, s, d, occupied)
            if x >= 0 and bb_test(own, x) and not bb_test(g, x):
                ends += 1
    return ends


@kernel
def move_features(T, st, side, last, prev, canon, moves, feats, scratch, label):
    """Write the moves of ``st`` (``side`` to move; :func:`~solver.rules.core.live_moves_bb`) into ``moves`` and their feature
    rows into ``feats`` (one column per family of ``FAMILIES``, each its bucket within
    the family); return how many.  ``last``, ``prev``: the cells of the last two moves
    (-1: none); ``canon``: the pattern classes.  Scratch: ``scratch`` (2, w) uint64,
    ``label`` int32 (LABEL_ROWS, 64 w) (:func:`new_scratch` makes both)."""
    if label.shape[0] < LABEL_ROWS or label.shape[1] < 64 * T.w or feats.shape[1] < K:
        # kernels do not check bounds: a caller's smaller scratch would be overwritten past its end
        raise ValueError("move_features: scratch smaller than features.Scratch's")
    live = core.live_moves_bb(T, st, side)  # the searches' move generator: none once won
    n = 0
    while bb_any(live):
        moves[n] = bb_lowest(live)
        n += 1
        live = bb_clear_lowest(live)
    own = bb_load(st, side, T.zero)
    enemy = bb_load(st, 1 - side, T.zero)
    occupied = bb_or(own, enemy)
    nbits = 64 * T.w
    n_enemy = core.count(st, 1 - side)
    # the player to move may have dead groups (the last move blocked them): lost unless saved
    dead_before = core.dead_bb(T, st, side) if core.count(st, side) >= 2 else T.zero
    core.group_labels(T, st, side, label[0])
    ng = core.group_labels(T, st, 1 - side, label[1])
    ends, size, cut = label[2], label[3], label[4]
    for g in range(ng):
        ends[g] = size[g] = cut[g] = 0
    rest = enemy
    while bb_any(rest):
        s = bb_lowest(rest)
        rest = bb_clear_lowest(rest)
        size[label[1, s]] += 1
        for d in range(6):
            x = _seen(T, s, d, occupied)
            if x >= 0 and bb_test(enemy, x) and label[1, x] != label[1, s]:
                ends[label[1, s]] += 1
    for i in range(n):
        cell = moves[i]
        code = 0
        mul = 1
        for d in range(6):
            nb = cell + core.offset(T, d)
            s = 3
            if 0 <= nb < nbits and T.point_of[nb] >= 0:
                s = 1 if bb_test(own, nb) else 2 if bb_test(enemy, nb) else 0
            code += s * mul
            mul *= 4
        feats[i, 0] = canon[code]
        for c in range(2):
            bb_store(scratch, c, bb_load(st, c, T.zero))
        _, removed = core.play(T, scratch, side, cell)
        # one enemy stone alone is "dead" by the letter of the rules, but not in danger
        kill = bb_popcount(core.dead_bb(T, scratch, 1 - side)) if n_enemy >= 2 else 0
        feats[i, 1] = _bucket5(kill)
        feats[i, 2] = _bucket5(bb_popcount(removed))
        feats[i, 3] = _bucket5(bb_popcount(bb_andnot(dead_before, removed)))
        feats[i, 4] = _distance(T, cell, last)
        feats[i, 5] = _distance(T, cell, prev)
        own_seen = 0
        enemy_seen = 0
        blocks = 0
        joins = 0
        for a in range(3):
            x = _seen(T, cell, 2 * a, occupied)
            y = _seen(T, cell, 2 * a + 1, occupied)
            if x >= 0 and _distance(T, cell, x) >= 1:
                if bb_test(own, x):
                    own_seen += 1
                else:
                    enemy_seen += 1
            if y >= 0 and _distance(T, cell, y) >= 1:
                if bb_test(own, y):
                    own_seen += 1
                else:
                    enemy_seen += 1
            if x >= 0 and y >= 0:
                if bb_test(own, x) and bb_test(own, y) and label[0, x] != label[0, y]:
                    joins += 1
                elif bb_test(enemy, x) and bb_test(enemy, y) and label[1, x] != label[1, y]:
                    blocks += 1
                    cut[label[1, x]] += 1
                    cut[label[1, y]] += 1
        threat = 0
        if blocks > 0:
            for a in range(6):
                x = _seen(T, cell, a, occupied)
                if x >= 0 and bb_test(enemy, x):
                    g = label[1, x]
                    if cut[g] > 0:
                        if ends[g] >= 2 and ends[g] - cut[g] == 1:
                            threat += size[g]
                        cut[g] = 0
        safety = 0
        stones = 1
        mine = bb_load(scratch, side, T.zero)
        if bb_test(mine, cell):
            g_after = core.flood(T, bb_bit(T.zero, cell), mine)
            safety = _path_ends(T, g_after, mine, bb_or(mine, enemy))
            stones = bb_popcount(g_after)
        feats[i, 6] = min(own_seen, 3)
        feats[i, 7] = min(enemy_seen, 3)
        feats[i, 8] = min(blocks, 3)
        feats[i, 9] = min(joins, 3)
        feats[i, 10] = _bucket5(threat)
        feats[i, 11] = min(safety, 3)
        feats[i, 12] = 0 if stones <= 1 else 1 if stones == 2 else 2 if stones <= 4 else 3
        feats[i, 13] = _ring2(T, cell, own, enemy)
    return n


class Scratch:
    """The arrays :func:`move_features` writes into (``moves``, ``feats``) and works in
    (``st``, ``label``), for one board; searches that call it in their kernels keep one."""

    def __init__(self, T: core.Tables):
        nbits = 64 * T.w
        self.moves = np.zeros(nbits, np.int64)
        self.feats = np.zeros((nbits, K), np.int32)
        self.st = np.zeros((2, T.w), np.uint64)
        self.label = np.zeros((LABEL_ROWS, nbits), np.int32)


@lru_cache(maxsize=None)
def _scratch(m: int) -> Scratch:
    return Scratch(core.tables(Board.get(m)))


def recent_moves(position: Position) -> tuple[str | None, str | None]:
    """The last move and the one before it (names; None where the game has none), read
    off the position and the earlier positions it remembers."""
    last = position.last_move
    earlier = position.earlier()
    prev = None
    if len(earlier) >= 2:
        a, b = earlier[-2], earlier[-1]
        placed = b.stones(a.to_move) - a.stones(a.to_move)
        if len(placed) == 1:  # else the stone placed was removed at once: no point to name
            prev = next(iter(placed))
    return last, prev


def position_features(position: Position, last: str | None = None, prev: str | None = None
                      ) -> tuple[list[str], np.ndarray]:
    """The legal moves of ``position`` (names, in the kernels' cell order) and their features, an int32
    array (moves, len(FAMILIES)) of global feature indices (< N_FEATURES).  ``last``,
    ``prev``: the last two moves (default: :func:`recent_moves`)."""
    board = position.board
    T = core.tables(board)
    if last is None and prev is None:
        last, prev = recent_moves(position)
    cell = lambda name: -1 if name is None else int(T.cell_of[board.index(name)])  # noqa: E731
    s = _scratch(board.m)
    if position.outcome is not None:
        return [], np.zeros((0, K), np.int32)
    n = move_features(T, position.bitboards, position.side_index, cell(last), cell(prev), _CANON,
                      s.moves, s.feats, s.st, s.label)
    names = [board.name_of(int(T.point_of[c])) for c in s.moves[:n]]
    return names, s.feats[:n] + OFFSETS


def reference_features(position: Position, last: str | None = None, prev: str | None = None
                       ) -> dict[str, tuple[int, ...]]:
    """:func:`position_features` from the reference rules alone (slow, for tests): each
    legal move's name and its feature indices."""
    from solver.reference import rules as R

    board = position.board
    own = frozenset(board.index(p) for p in position.stones(position.to_move))
    other_colour = "D" if position.to_move == "L" else "L"
    enemy = frozenset(board.index(p) for p in position.stones(other_colour))
    light, dark = (own, enemy) if position.to_move == "L" else (enemy, own)
    if position.outcome is not None:
        return {}

    def dist(a: int, b: int) -> int:
        (qa, ra), (qb, rb) = board.coords[a], board.coords[b]
        return (abs(qa - qb) + abs(ra - rb) + abs(qa + ra - qb - rb)) // 2

    def bucket5(k: int) -> int:
        return k if k <= 2 else 3 if k <= 4 else 4

    def near(p: int, name: str | None) -> int:
        return 4 if name is None else min(dist(p, board.index(name)), 4) - 1

    def first_seen(p: int, d: int) -> int | None:
        return next((q for q in board.rays[p][d] if q in own or q in enemy), None)

    def group_of(stones: frozenset, p: int) -> frozenset:
        return next(g for g in R.groups(board, stones) if p in g)

    def paths_of(paths: set, g: frozenset) -> int:
        return sum(1 for a, b in paths if a in g or b in g)

    def between(a: int, b: int, p: int) -> bool:
        ray = next(r for r in board.rays[a] if b in r)
        return p in ray[:ray.index(b)]

    board_points = range(board.size)
    enemy_groups = R.groups(board, enemy)
    enemy_paths = R.paths(board, enemy, own)
    dead_before = set().union(*R.dead_groups(board, own, enemy)) if len(own) >= 2 else set()
    out = {}
    for p in R.legal_moves(board, light, dark, position.to_move):
        code = 0
        for d in range(6):
            q = board.step[p][d]
            colour = 3 if q < 0 else 1 if q in own else 2 if q in enemy else 0
            code += colour * 4**d
        gone = R.removed(board, light, dark, position.to_move, p) if len(own) >= 1 else frozenset()
        new_own = (own | {p}) - gone
        kill = sum(len(g) for g in R.dead_groups(board, enemy, new_own)) if len(enemy) >= 2 else 0
        seen = [first_seen(p, d) for d in range(6)]
        far = [q for q in seen if q is not None and dist(p, q) >= 2]
        blocks = joins = 0
        for a in range(3):
            x, y = seen[2 * a], seen[2 * a + 1]
            for side, count in ((own, "joins"), (enemy, "blocks")):
                if x in side and y in side and y not in group_of(side, x):
                    if count == "joins":
                        joins += 1
                    else:
                        blocks += 1
        threat = 0
        for g in enemy_groups:
            through = sum(1 for a, b in enemy_paths if (a in g or b in g) and between(a, b, p))
            if through and paths_of(enemy_paths, g) >= 2 and paths_of(enemy_paths, g) - through == 1:
                threat += len(g)
        safety, stones = 0, 1
        light2, dark2, _ = R.play(board, light, dark, position.to_move, p)
        own2, enemy2 = (light2, dark2) if position.to_move == "L" else (dark2, light2)
        if p in own2:
            g2 = group_of(own2, p)
            safety, stones = paths_of(R.paths(board, own2, enemy2), g2), len(g2)
        ring = [q for q in board_points if dist(p, q) == 2]
        row = (int(_CANON[code]), bucket5(kill), bucket5(len(gone)), bucket5(len(dead_before - gone)),
               near(p, last), near(p, prev), min(sum(q in own for q in far), 3),
               min(sum(q in enemy for q in far), 3), min(blocks, 3), min(joins, 3),
               bucket5(threat), min(safety, 3), 0 if stones <= 1 else 1 if stones == 2 else 2 if stones <= 4 else 3,
               4 * min(sum(q in own for q in ring), 3) + min(sum(q in enemy for q in ring), 3))
        out[board.name_of(p)] = tuple(int(o) + v for o, v in zip(OFFSETS, row))
    return out
