"""Alpha-beta (negamax) with a transposition table and the board's symmetries.

Values are for the player to move: ``WIN`` (1), ``DRAW`` (0), ``LOSS`` (-1), and
``UNKNOWN`` when the node budget runs out (never a guess).

Repetition: a position that repeats one on the current search path is a draw (RULES.md).
A result that depended on such a draw is *tainted* and never stored: the table holds only
wins and losses found without any repetition below them, keyed by the position's
canonical Zobrist key (the least of its keys under the 4 symmetries) with the best move in
canonical orientation.  Because such a stored result was proven in another path context,
a value reported at the root is re-checked by :func:`verify` (the winner's moves from the
table, every reply of the loser expanded, repetitions on the path rejected).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import core
from ..bits import bb_any, bb_clear_lowest, bb_load, bb_lowest, bb_store
from ..core import kernel

__all__ = ["WIN", "DRAW", "LOSS", "UNKNOWN", "Search", "new_search", "negamax", "VALUE_NAMES"]

WIN, DRAW, LOSS, UNKNOWN = 1, 0, -1, 2
VALUE_NAMES = {WIN: "win", DRAW: "draw", LOSS: "loss", UNKNOWN: "unknown"}
MAX_PLY = 1024

# stats slots; ABORTED holds why a search stopped: 0 it did not, else one of the reasons
NODES, TT_HITS, TT_STORES, DEEPEST, ABORTED, REASONS = 0, 1, 2, 3, 4, 7
OUT_OF_NODES, PATH_TOO_LONG = 1, 2


class Search(NamedTuple):
    """The arrays of one search: the path, the table and the counters."""

    stack: np.ndarray     # uint64 (2 * MAX_PLY, w): the positions on the path
    path_keys: np.ndarray  # uint64 (MAX_PLY,): their identity Zobrist keys
    keys: np.ndarray      # uint64 (MAX_PLY, 4): the path's keys under each symmetry
    tt_key: np.ndarray    # uint64 (size,)
    tt_val: np.ndarray    # int8 (size,): WIN or LOSS, 0 for an empty slot
    tt_move: np.ndarray   # int16 (size,): best move in canonical orientation, -1 none
    stats: np.ndarray     # int64 (8,): the slots named above
    limits: np.ndarray    # int64 (3,): node budget (0: none), use the table, use symmetries (0/1)


def new_search(
    t: core.Tables, tt_mb: float = 64, max_nodes: int = 0, use_table: bool = True,
    use_symmetry: bool = True,
) -> Search:
    """A search with a table of at most ``tt_mb`` MiB (a power of two number of slots);
    without ``use_symmetry`` the table is keyed by the position as it stands."""
    slot_bytes = 8 + 1 + 2
    size = 1
    while size * 2 * slot_bytes <= tt_mb * 2**20:
        size *= 2
    # np.full, not np.zeros: the pages are touched now, not by page faults mid-search
    return Search(
        np.zeros((2 * MAX_PLY, t.w), np.uint64), np.zeros(MAX_PLY, np.uint64),
        np.zeros((MAX_PLY, 4), np.uint64),
        np.full(size, 0, np.uint64), np.full(size, 0, np.int8), np.full(size, -1, np.int16),
        np.zeros(8, np.int64), np.array([max_nodes, int(use_table), int(use_symmetry)], np.int64),
    )


@kernel
def _canonical(T, keys, ply):
    """(least key, the symmetry that gives it) of the keys row ``ply``."""
    best = keys[ply, 0]
    s_best = 0
    for s in range(1, T.sym.shape[0]):
        if keys[ply, s] < best:
            best = keys[ply, s]
            s_best = s
    return best, s_best


@kernel
def negamax(T, S, ply, side, alpha, beta):
    """The value of the position ``S.stack[2*ply : 2*ply+2]`` for ``side`` to move,
    searched with window (alpha, beta) over {-1, 0, 1}.  ``S.keys[ply]`` must hold its
    Zobrist keys (children get theirs by update).  Returns ``(value, clean)``: ``clean``
    when the value is exact and did not depend on a repetition draw."""
    st = S.stack[2 * ply: 2 * ply + 2]
    S.stats[NODES] += 1
    if ply > S.stats[DEEPEST]:
        S.stats[DEEPEST] = ply
    if S.limits[0] > 0 and S.stats[NODES] > S.limits[0]:
        S.stats[ABORTED] = OUT_OF_NODES
        return DRAW, False
    key = S.keys[ply, 0]
    S.path_keys[ply] = key
    # a repetition of a position on the path (same side to move: same parity) is a draw
    for back in range(ply - 2, -1, -2):
        if S.path_keys[back] == key:
            same = True
            for c in range(2):
                for i in range(T.w):
                    if S.stack[2 * back + c, i] != st[c, i]:
                        same = False
            if same:
                return DRAW, False
    moves = core._moves_of_live(T, st, side)
    if not bb_any(moves):
        if core.count(st, side) >= 2 and core.count(st, 1 - side) == 0:
            return WIN, True
        return LOSS, True
    if ply + 1 >= MAX_PLY:
        S.stats[ABORTED] = PATH_TOO_LONG
        return DRAW, False
    if S.limits[2]:
        canon, sym = _canonical(T, S.keys, ply)
    else:
        canon, sym = key, 0
    slot = int(canon & np.uint64(S.tt_key.shape[0] - 1))
    if S.limits[1] and S.tt_key[slot] == canon and S.tt_val[slot] != 0:
        S.stats[TT_HITS] += 1
        return S.tt_val[slot], True
    best = LOSS - 1
    best_move = -1
    all_clean = True
    child = S.stack[2 * ply + 2: 2 * ply + 4]
    # moves in cell order (move ordering is still to come: the table holds only
    # results, so a hit ends the search of a node before any move is tried)
    todo = moves
    while bb_any(todo):
        cell = bb_lowest(todo)
        todo = bb_clear_lowest(todo)
        for c in range(2):
            bb_store(child, c, bb_load(st, c, T.zero))
        lost, removed = core.play(T, child, side, cell)
        if lost:
            v, clean = LOSS, True
        else:
            _child_keys(T, S.keys, ply, side, cell, removed)
            cv, clean = negamax(T, S, ply + 1, 1 - side, -beta, -alpha)
            v = -cv
        if S.stats[ABORTED]:
            return DRAW, False
        if v == WIN:
            if clean and S.limits[1]:
                _store(S, slot, canon, WIN, T.sym[sym, cell])
            return WIN, clean
        if not (v == LOSS and clean):
            all_clean = False
        if v > best:
            best = v
            best_move = cell
        if best > alpha:
            alpha = best
        if alpha >= beta:
            return best, False  # a bound: never stored
    if best == LOSS:
        if all_clean and S.limits[1]:
            _store(S, slot, canon, LOSS, T.sym[sym, best_move])
        return LOSS, all_clean
    return best, False


@kernel
def _child_keys(T, keys, ply, side, cell, removed):
    """Row ``ply + 1`` of ``keys``: row ``ply`` after ``side`` placed on ``cell`` and
    lost the stones of ``removed``, with the other side to move."""
    zob = T.zobrist
    for s in range(zob.shape[0]):
        keys[ply + 1, s] = keys[ply, s] ^ T.zobrist_side ^ zob[s, side, cell]
    x = removed
    while bb_any(x):
        c = bb_lowest(x)
        x = bb_clear_lowest(x)
        for s in range(zob.shape[0]):
            keys[ply + 1, s] ^= zob[s, side, c]


@kernel
def _store(S, slot, canon, value, move):
    S.tt_key[slot] = canon
    S.tt_val[slot] = value
    S.tt_move[slot] = move
    S.stats[TT_STORES] += 1
