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

Move ordering (``use_ordering``, on by default; it changes which nodes are searched,
never a value): the table's move first (also kept, without a value, for nodes whose
result was a draw, a bound or tainted), then the tactical moves (:func:`tactical_moves`:
those that make an opponent group dead or save a dead group of the mover), then the two
killer moves of the ply, then the rest by a history score of the moves that cut off.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.rules import core
from solver.rules.bits import (
    bb_and, bb_andnot, bb_any, bb_bit, bb_clear_lowest, bb_load, bb_lowest, bb_or, bb_shift,
    bb_store, bb_test,
)
from solver.rules.core import kernel
from .memory import zeroed
from .path import child_keys, repeats

__all__ = [
    "WIN", "DRAW", "LOSS", "UNKNOWN", "Search", "new_search", "negamax", "VALUE_NAMES",
    "tactical_moves", "inverse_symmetries", "load_kernels",
]

WIN, DRAW, LOSS, UNKNOWN = 1, 0, -1, 2
VALUE_NAMES = {WIN: "win", DRAW: "draw", LOSS: "loss", UNKNOWN: "unknown"}
MAX_PLY = 1024

# stats slots; ABORTED holds why a search stopped: 0 it did not, else one of the reasons
NODES, TT_HITS, TT_STORES, DEEPEST, ABORTED, REASONS = 0, 1, 2, 3, 4, 7
# cutoffs (a win or alpha >= beta), and those made by the first move tried
CUTOFFS, FIRST_CUTOFFS = 5, 6
OUT_OF_NODES, PATH_TOO_LONG = 1, 2
# the parts of move ordering (bits of ``limits[3]``)
ORDER_TABLE, ORDER_TACTICAL, ORDER_KILLERS, ORDER_HISTORY = 1, 2, 4, 8
#: enhanced transposition cutoffs: before searching, look every child up in the table;
#: one stored as lost for its player to move wins at once (not move ordering, but it
#: shares the switch, so the benchmark can measure it the same way).  Off by default:
#: on 2/3 it saves 1.2-1.3 times the nodes but costs twice the time (bench_solver.py).
ORDER_ETC = 16
ORDER_ALL = 15

# move scores (a move list entry is score << _CELL_BITS | cell)
_CELL_BITS, _CELL_MASK = 10, (1 << 10) - 1
_S_TABLE, _S_TACTICAL, _S_KILLER, _HISTORY_CAP = 1 << 40, 1 << 36, 1 << 34, (1 << 30)


class Search(NamedTuple):
    """The arrays of one search: the path, the table and the counters."""

    stack: np.ndarray     # uint64 (2 * MAX_PLY, w): the positions on the path
    path_keys: np.ndarray  # uint64 (MAX_PLY,): their identity Zobrist keys
    keys: np.ndarray      # uint64 (MAX_PLY, 4): the path's keys under each symmetry
    tt_key: np.ndarray    # uint64 (size,)
    tt_val: np.ndarray    # int8 (size,): WIN or LOSS, 0 for no value (a move only, or empty)
    tt_move: np.ndarray   # int16 (size,): best move in canonical orientation plus one, 0 none
    stats: np.ndarray     # int64 (8,): the slots named above
    limits: np.ndarray    # int64 (4,): node budget (0: none), use the table, use symmetries
                          # (0/1), move ordering (ORDER_* bits)
    unsym: np.ndarray     # int32 (4, 64 w): the inverse of each symmetry's cell map
    moves: np.ndarray     # int64 (MAX_PLY, n): the move list of each ply, score << 10 | cell
    killers: np.ndarray   # int16 (MAX_PLY, 2): the last two moves that cut off at each ply
    history: np.ndarray   # int64 (2, 64 w): per colour and cell, cutoffs made by the move


def inverse_symmetries(t: core.Tables) -> np.ndarray:
    """``out[s, t.sym[s, x]] = x``: maps a cell of the position mapped by symmetry ``s``
    back (the table's moves are stored in the canonical orientation)."""
    out = np.full_like(t.sym, -1)
    for s in range(t.sym.shape[0]):
        on = t.sym[s] >= 0
        out[s, t.sym[s][on]] = np.nonzero(on)[0]
    return out


def new_search(
    t: core.Tables, tt_mb: float = 64, max_nodes: int = 0, use_table: bool = True,
    use_symmetry: bool = True, use_ordering: bool | int = True,
) -> Search:
    """A search with a table of at most ``tt_mb`` MiB (a power of two number of slots);
    without ``use_symmetry`` the table is keyed by the position as it stands; without
    ``use_ordering`` moves are tried in cell order (an int: the ORDER_* parts to use)."""
    ordering = ORDER_ALL if use_ordering is True else int(use_ordering)
    slot_bytes = 8 + 1 + 2
    size = 1
    while size * 2 * slot_bytes <= tt_mb * 2**20:
        size *= 2
    # an empty slot is all zeros: the table's pages stay untouched until the search
    # writes them, so a short search costs the same whatever the table's size
    return Search(
        np.zeros((2 * MAX_PLY, t.w), np.uint64), np.zeros(MAX_PLY, np.uint64),
        np.zeros((MAX_PLY, 4), np.uint64),
        zeroed(size, np.uint64), zeroed(size, np.int8), zeroed(size, np.int16),
        np.zeros(8, np.int64),
        np.array([max_nodes, int(use_table), int(use_symmetry), ordering], np.int64),
        inverse_symmetries(t), np.zeros((MAX_PLY, t.n), np.int64),
        np.full((MAX_PLY, 2), -1, np.int16), np.zeros((2, 64 * t.w), np.int64),
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
def _gap_cells(T, st, color):
    """The empty cells that lie between two stones of ``color`` on a line with only empty
    points between: a placement that makes a group of ``color`` dead is among them."""
    own = bb_load(st, color, T.zero)
    empty = bb_andnot(T.full, bb_or(own, bb_load(st, 1 - color, T.zero)))
    out = T.zero
    for d in range(0, 6, 2):
        ahead = bb_and(core.fill(T, own, empty, d), empty)
        behind = bb_and(core.fill(T, own, empty, d + 1), empty)
        out = bb_or(out, bb_and(ahead, behind))
    return out


@kernel
def _seen_cells(T, st, stones):
    """The empty cells adjacent to ``stones`` or seeing one of them along a line through
    empty points: a placement that saves a dead group is among those of the group."""
    occupied = bb_or(bb_load(st, 0, T.zero), bb_load(st, 1, T.zero))
    empty = bb_andnot(T.full, occupied)
    out = T.zero
    for d in range(6):
        out = bb_or(out, bb_shift(core.fill(T, stones, empty, d), core.offset(T, d)))
    return bb_and(out, empty)


@kernel
def tactical_moves(T, st, side, moves, scratch):
    """The moves of ``moves`` (a bitboard) after which an opponent group is dead, or a
    dead group of ``side`` is no longer dead, as a bitboard.  ``scratch`` is a (2, w)
    array.  Only moves that can be such (cells on an opponent path; cells next to or in
    sight of the dead stones) are played to find out."""
    out = T.zero
    if core.count(st, side) < 2:
        return out  # the opening: nothing to kill, nothing to save
    kill = core.count(st, 1 - side) >= 2
    cand = bb_and(moves, _gap_cells(T, st, 1 - side)) if kill else T.zero
    dead = core.dead_bb(T, st, side)
    if bb_any(dead):
        cand = bb_or(cand, bb_and(moves, _seen_cells(T, st, dead)))
    while bb_any(cand):
        cell = bb_lowest(cand)
        cand = bb_clear_lowest(cand)
        for c in range(2):
            bb_store(scratch, c, bb_load(st, c, T.zero))
        lost, removed = core.play(T, scratch, side, cell)
        if lost:
            continue
        if bb_any(bb_andnot(dead, removed)) or (kill and bb_any(core.dead_bb(T, scratch, 1 - side))):
            out = bb_or(out, bb_bit(T.zero, cell))
    return out



@kernel
def _order(T, S, ply, side, st, moves, first):
    """Write the moves of the node at ``ply`` into ``S.moves[ply]`` with their scores
    (the table's move ``first``, tactical moves, killers, history, as ``S.limits[3]``
    enables them); return how many.  With no ordering, the moves are in cell order."""
    order = S.limits[3]
    tact = T.zero
    if order & ORDER_TACTICAL:
        tact = tactical_moves(T, st, side, moves, S.stack[2 * ply + 2: 2 * ply + 4])
    k0, k1 = -1, -1
    if order & ORDER_KILLERS:
        k0 = S.killers[ply, 0]
        k1 = S.killers[ply, 1]
    if not order & ORDER_TABLE:
        first = -1
    n = 0
    todo = moves
    while bb_any(todo):
        cell = bb_lowest(todo)
        todo = bb_clear_lowest(todo)
        if cell == first:
            score = _S_TABLE
        elif bb_test(tact, cell):
            score = _S_TACTICAL
        elif cell == k0:
            score = _S_KILLER + 1
        elif cell == k1:
            score = _S_KILLER
        elif order & ORDER_HISTORY:
            score = S.history[side, cell]
        else:
            score = 0
        S.moves[ply, n] = (score << _CELL_BITS) | cell
        n += 1
    return n


@kernel(inline="always")
def _next_move(S, ply, i, n):
    """Bring the best-scored of the moves ``i..n-1`` at ``ply`` to position ``i`` (a
    stable selection: among equal scores the first) and return its cell."""
    row = S.moves[ply]
    best = i
    for j in range(i + 1, n):
        if (row[j] >> _CELL_BITS) > (row[best] >> _CELL_BITS):
            best = j
    x = row[best]
    for j in range(best, i, -1):
        row[j] = row[j - 1]
    row[i] = x
    return int(x & _CELL_MASK)


@kernel(inline="always")
def _cutoff(S, ply, side, cell, i):
    """Remember a move that cut off: killer of the ply, history of the colour."""
    S.stats[CUTOFFS] += 1
    if i == 0:
        S.stats[FIRST_CUTOFFS] += 1
    if S.killers[ply, 0] != cell:
        S.killers[ply, 1] = S.killers[ply, 0]
        S.killers[ply, 0] = cell
    if S.history[side, cell] < _HISTORY_CAP:
        S.history[side, cell] += 1


@kernel
def _etc(T, S, ply, side, st, moves):
    """A move of the node at ``ply`` to a child the table holds as a clean loss for its
    player to move (and that does not repeat a position of the path), or -1."""
    child = S.stack[2 * ply + 2: 2 * ply + 4]
    todo = moves
    while bb_any(todo):
        cell = bb_lowest(todo)
        todo = bb_clear_lowest(todo)
        for c in range(2):
            bb_store(child, c, bb_load(st, c, T.zero))
        lost, removed = core.play(T, child, side, cell)
        if lost:
            continue
        child_keys(T, S.keys, ply, side, cell, removed)
        if S.limits[2]:
            ck, _ = _canonical(T, S.keys, ply + 1)
        else:
            ck = S.keys[ply + 1, 0]
        cslot = int(ck & np.uint64(S.tt_key.shape[0] - 1))
        if S.tt_key[cslot] != ck or S.tt_val[cslot] != LOSS:
            continue
        if not repeats(S, ply + 1, child):
            return cell
    return -1


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
    if repeats(S, ply, st):
        return DRAW, False
    moves = core.live_moves_bb(T, st, side)
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
    first = -1
    if S.limits[1] and S.tt_key[slot] == canon:
        if S.tt_val[slot] != 0:
            S.stats[TT_HITS] += 1
            return S.tt_val[slot], True
        if S.tt_move[slot] > 0:
            first = S.unsym[sym, S.tt_move[slot] - 1]
    child = S.stack[2 * ply + 2: 2 * ply + 4]
    if S.limits[1] and S.limits[3] & ORDER_ETC:
        cell = _etc(T, S, ply, side, st, moves)
        if cell >= 0:
            S.stats[TT_HITS] += 1
            _store(S, slot, canon, WIN, T.sym[sym, cell])
            return WIN, True
    best = LOSS - 1
    best_move = -1
    all_clean = True
    n = _order(T, S, ply, side, st, moves, first)
    for i in range(n):
        cell = _next_move(S, ply, i, n)
        for c in range(2):
            bb_store(child, c, bb_load(st, c, T.zero))
        lost, removed = core.play(T, child, side, cell)
        if lost:
            v, clean = LOSS, True
        else:
            child_keys(T, S.keys, ply, side, cell, removed)
            cv, clean = negamax(T, S, ply + 1, 1 - side, -beta, -alpha)
            v = -cv
        if S.stats[ABORTED]:
            return DRAW, False
        if v == WIN:
            _cutoff(S, ply, side, cell, i)
            if S.limits[1]:
                if clean:
                    _store(S, slot, canon, WIN, T.sym[sym, cell])
                else:
                    _store_move(S, slot, canon, T.sym[sym, cell])
            return WIN, clean
        if not (v == LOSS and clean):
            all_clean = False
        if v > best:
            best = v
            best_move = cell
        if best > alpha:
            alpha = best
        if alpha >= beta:
            _cutoff(S, ply, side, cell, i)
            if S.limits[1]:
                _store_move(S, slot, canon, T.sym[sym, cell])
            return best, False  # a bound: never stored as a value
    if best == LOSS:
        if all_clean and S.limits[1]:
            _store(S, slot, canon, LOSS, T.sym[sym, best_move])
        return LOSS, all_clean
    if S.limits[1]:
        _store_move(S, slot, canon, T.sym[sym, best_move])
    return best, False


@kernel
def _store(S, slot, canon, value, move):
    S.tt_key[slot] = canon
    S.tt_val[slot] = value
    S.tt_move[slot] = move + 1
    S.stats[TT_STORES] += 1


@kernel
def _store_move(S, slot, canon, move):
    """Keep a move without a value (a draw, a bound, a tainted result), unless the slot
    holds a value."""
    if S.tt_val[slot] == 0:
        S.tt_key[slot] = canon
        S.tt_val[slot] = 0
        S.tt_move[slot] = move + 1


def load_kernels(t: core.Tables) -> None:
    """Load :func:`negamax` for the board of ``t`` (compiling it on the board's first use)
    with the argument types :func:`solver.search.solve.solve_value` gives it; the call
    here returns at once."""
    S = new_search(t, tt_mb=0)
    st = core.new_position(t)
    st.flags.writeable = False  # as a Position's stones
    core.zobrist_keys(t, st, 0, S.keys[0])
    S.limits[0] = 1
    S.stats[NODES] = 1  # the budget is spent: negamax stops at once
    core.load_kernels(t, "the alpha-beta search", [(negamax, (t, S, 0, 0, 0, 1))])
