"""Compiled rules kernels: uint64 bitboards, move generation, dead groups, Zobrist keys.

Everything here is a plain ``@kernel`` function over numpy arrays, so that the
search and generators can call it from their own compiled loops with no Python objects
and no allocation per move.  The Python side builds the constant tables of a board once
(:func:`tables`) and owns the scratch arrays.

Conventions shared by every kernel:

* A point is an index ``0 <= p < n`` (:mod:`solver.board` order).  A bitboard is a
  ``uint64`` array of ``w = ceil(n / 64)`` words; point ``p`` is bit ``p & 63`` of word
  ``p >> 6``.  A position is a ``(2, w)`` array ``st``: ``st[0]`` Light, ``st[1]`` Dark.
* Colours are ``0`` (Light) and ``1`` (Dark); ``side`` is the colour to move.
* Positions are "after removal" (RULES.md's engine formulation): after each placement
  from a player's second stone on, the mover's own dead groups are removed.
* Phases of the player to move, from stone counts: ``PH_FIRST`` (no stones, opponent has
  at most one), ``PH_SECOND`` (one stone), ``PH_NORMAL`` (two or more), ``PH_LOST`` (no
  stones while the opponent has two or more).

numba mixes int64 and uint64 into float64 silently, so every bit constant is built from
``np.uint64`` values.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from .board import Board

__all__ = [
    "Tables", "tables", "PH_FIRST", "PH_SECOND", "PH_NORMAL", "PH_LOST",
    "popcount", "phase", "legal_moves", "play", "dead_stones", "group_labels",
    "outcome", "zobrist_keys", "transform", "random_playout", "new_position",
]

#: Every kernel is compiled without numba's reference counting (``_nrt=False``): the
#: atomic increments it puts around each array use cost several times the rules work
#: itself.  The price is that kernels must not allocate; they use the scratch arrays of
#: their :class:`Tables` or arrays the caller passes in.
kernel = njit(cache=True, _nrt=False)

PH_FIRST, PH_SECOND, PH_NORMAL, PH_LOST = 0, 1, 2, 3
#: outcome codes of :func:`outcome` and :func:`random_playout`
NO_RESULT, LIGHT_WINS, DARK_WINS, DRAW = -1, 0, 1, 2

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_SIX = np.uint64(63)


# --- bit intrinsics ------------------------------------------------------------------------
@intrinsic
def _ctpop(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        (v,) = args
        fn = builder.module.declare_intrinsic("llvm.ctpop", [v.type])
        return builder.call(fn, [v])

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        from llvmlite import ir

        (v,) = args
        fn = builder.module.declare_intrinsic("llvm.cttz", [v.type, ir.IntType(1)])
        return builder.call(fn, [v, ir.Constant(ir.IntType(1), 0)])

    return sig, codegen


# Two-dimensional arrays are indexed in place (``a[row, word]``) rather than sliced:
# every slice is an array object whose reference count numba updates atomically, which
# cost more than the rest of a move generation.
@kernel
def _has(a, row, p):
    return (a[row, p >> 6] >> np.uint64(p & 63)) & _ONE


@kernel
def _set(a, row, p):
    a[row, p >> 6] |= _ONE << np.uint64(p & 63)


@kernel
def count(st, c):
    """Number of stones of colour ``c``."""
    k = 0
    for i in range(st.shape[1]):
        k += int(_ctpop(st[c, i]))
    return k


@kernel
def popcount(bb):
    """Number of set bits of a bitboard."""
    c = 0
    for i in range(bb.shape[0]):
        c += int(_ctpop(bb[i]))
    return c


@kernel
def _lowest(bb):
    """Index of the lowest set bit, or -1 for an empty bitboard."""
    for i in range(bb.shape[0]):
        if bb[i] != _ZERO:
            return i * 64 + int(_cttz(bb[i]))
    return -1


# --- tables --------------------------------------------------------------------------------
class Tables(NamedTuple):
    """The constant arrays of one board, as the kernels take them."""

    n: int
    w: int
    step: np.ndarray       # int32 (n, 6): neighbour in direction d, -1 off the board
    zobrist: np.ndarray    # uint64 (4, 2, n): zobrist[s, c, p] = base key of colour c at sym_s(p)
    zobrist_side: np.uint64  # xor-ed in when Dark is to move
    sym: np.ndarray        # int32 (4, n): the board's symmetries as point permutations
    full: np.ndarray       # uint64 (w,): every point of the board
    # scratch space for the kernels' temporaries, so that no call allocates; kernels do not
    # call each other while holding these, so one set per board is enough (one process,
    # one thread: parallel work uses processes)
    tmp_u: np.ndarray      # uint64 (3, w)
    tmp_i: np.ndarray      # int32 (3, n)
    label: np.ndarray      # int32 (n,): group labels
    tmp_b: np.ndarray      # bool (n,)


_TABLES: dict[int, Tables] = {}


def tables(board: Board) -> Tables:
    """The kernels' tables for ``board`` (built once, then shared)."""
    t = _TABLES.get(board.m)
    if t is None:
        n = board.size
        w = (n + 63) // 64
        step = np.array(board.step, dtype=np.int32)
        sym = np.array(board.symmetries, dtype=np.int32)
        # fixed seed: keys are part of the TT and checkpoint formats, so they must not move
        rng = np.random.default_rng(0x4D6572696469616E + board.m)
        base = rng.integers(0, 2**64 - 1, size=(2, n), dtype=np.uint64, endpoint=True)
        side_key = rng.integers(0, 2**64 - 1, dtype=np.uint64, endpoint=True)
        zob = np.empty((len(sym), 2, n), dtype=np.uint64)
        for s in range(len(sym)):
            zob[s] = base[:, sym[s]]
        full = np.zeros(w, dtype=np.uint64)
        for p in range(n):
            full[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
        t = Tables(n, w, step, zob, np.uint64(side_key), sym, full,
                   np.zeros((3, w), np.uint64), np.zeros((3, n), np.int32), np.zeros(n, np.int32), np.zeros(n, np.bool_))
        _TABLES[board.m] = t
    return t


def new_position(t: Tables) -> np.ndarray:
    """An empty ``(2, w)`` position array."""
    return np.zeros((2, t.w), dtype=np.uint64)


# --- rules ---------------------------------------------------------------------------------
@kernel
def phase(st, side):
    """The phase of the player to move (PH_* codes), from stone counts."""
    own = count(st, side)
    if own >= 2:
        return PH_NORMAL
    if own == 1:
        return PH_SECOND
    if count(st, 1 - side) <= 1:
        return PH_FIRST
    return PH_LOST


@kernel
def legal_moves(T, st, side, out):
    """Write the legal points of the player to move into ``out``; return how many.

    Normal phase: an empty point whose first stone along some line is friendly.  Second
    stone: an empty point that sees the single friendly stone through at least one empty
    point.  First stone: any empty point.  Moves come out in increasing point order.
    """
    step = T.step
    w = T.w
    tu = T.tmp_u  # row 0: occupied points, row 1: legal points
    ph = phase(st, side)
    if ph == PH_LOST:
        return 0
    for i in range(w):
        tu[0, i] = st[0, i] | st[1, i]
        tu[1, i] = _ZERO
    if ph == PH_FIRST:
        for i in range(w):
            tu[1, i] = T.full[i] & ~tu[0, i]
    else:
        skip_adjacent = ph == PH_SECOND
        for i in range(w):
            x = st[side, i]
            while x != _ZERO:
                s = i * 64 + int(_cttz(x))
                x &= x - _ONE
                for d in range(6):
                    t = step[s, d]
                    if skip_adjacent:
                        if t < 0 or _has(tu, 0, t):
                            continue
                        t = step[t, d]
                    while t >= 0 and not _has(tu, 0, t):
                        _set(tu, 1, t)
                        t = step[t, d]
    k = 0
    for i in range(w):
        x = tu[1, i]
        while x != _ZERO:
            out[k] = i * 64 + int(_cttz(x))
            k += 1
            x &= x - _ONE
    return k


@kernel
def group_labels(T, st, color, label):
    """Label the groups of ``color``: ``label[p]`` = group number for its stones (other
    entries untouched).  Groups are numbered 0.. in order of their lowest point; returns
    their number."""
    step = T.step
    stack = T.tmp_i
    w = T.w
    for i in range(w):
        x = st[color, i]
        while x != _ZERO:
            label[i * 64 + int(_cttz(x))] = -1
            x &= x - _ONE
    ng = 0
    for i in range(w):
        x = st[color, i]
        while x != _ZERO:
            s = i * 64 + int(_cttz(x))
            x &= x - _ONE
            if label[s] >= 0:
                continue
            label[s] = ng
            stack[2, 0] = s
            top = 1
            while top > 0:
                top -= 1
                u = stack[2, top]
                for d in range(6):
                    v = step[u, d]
                    if v >= 0 and label[v] < 0 and _has(st, color, v):
                        label[v] = ng
                        stack[2, top] = v
                        top += 1
            ng += 1
    return ng


@kernel
def dead_stones(T, st, color, out):
    """Write the stones of ``color``'s dead groups into bitboard ``out``; return how many
    groups are dead.  A group is alive when one of its stones sees a friendly stone of
    another group along a line through at least one empty point."""
    step = T.step
    w = T.w
    label = T.label
    for i in range(w):
        out[i] = _ZERO
    ng = group_labels(T, st, color, label)
    if ng == 0:
        return 0
    if ng == 1:
        # a single group has no other group to have a path to
        for i in range(w):
            out[i] = st[color, i]
        return 1
    tu = T.tmp_u  # row 2: occupied points
    for i in range(w):
        tu[2, i] = st[0, i] | st[1, i]
    alive = T.tmp_b
    for g in range(ng):
        alive[g] = False
    n_alive = 0
    for i in range(w):
        x = st[color, i]
        while x != _ZERO and n_alive < ng:
            s = i * 64 + int(_cttz(x))
            x &= x - _ONE
            # the three positive directions find every pair once
            for d in range(0, 6, 2):
                t = step[s, d]
                if t < 0 or _has(tu, 2, t):
                    continue  # off the board or adjacent: no path this way
                while t >= 0 and not _has(tu, 2, t):
                    t = step[t, d]
                if t >= 0 and _has(st, color, t) and label[t] != label[s]:
                    a, b = label[s], label[t]
                    if not alive[a]:
                        alive[a] = True
                        n_alive += 1
                    if not alive[b]:
                        alive[b] = True
                        n_alive += 1
    if n_alive == ng:
        return 0
    for i in range(w):
        x = st[color, i]
        while x != _ZERO:
            s = i * 64 + int(_cttz(x))
            x &= x - _ONE
            if not alive[label[s]]:
                out[i] |= _ONE << np.uint64(s & 63)
    return ng - n_alive


@kernel
def play(T, st, side, p, removed):
    """Place ``side``'s stone at ``p`` (assumed legal) and remove the mover's own dead
    groups, unless it was their first stone.  The removed stones go to bitboard
    ``removed``.  Returns True if the mover has no stones left (the mover has lost)."""
    w = T.w
    first = count(st, side) == 0
    _set(st, side, p)
    if first:
        for i in range(w):
            removed[i] = _ZERO
        return False
    dead_stones(T, st, side, removed)
    left = _ZERO
    for i in range(w):
        st[side, i] &= ~removed[i]
        left |= st[side, i]
    return left == _ZERO


@kernel
def outcome(T, st, side):
    """The result of the position as it stands: NO_RESULT, or the winner's colour.

    The player to move wins if they have two or more stones and the opponent none (the
    opponent's last placement removed their last group).  The player to move loses if they
    have no stones while the opponent has two or more, or have stones but no legal
    placement.  Repetition is a property of a game, not of a position: see Game."""
    own = count(st, side)
    opp = count(st, 1 - side)
    if own >= 2 and opp == 0:
        return side
    if own == 0 and opp >= 2:
        return 1 - side
    if own > 0 and legal_moves(T, st, side, T.label) == 0:
        return 1 - side
    return NO_RESULT


@kernel
def zobrist_keys(T, st, side, out):
    """Write the Zobrist key of the position under each symmetry into ``out``: ``out[s]``
    is the key of the position transformed by symmetry ``s``, so ``out.min()`` is a key
    shared by all symmetric positions."""
    zob = T.zobrist
    ns = zob.shape[0]
    for s in range(ns):
        out[s] = T.zobrist_side if side == 1 else _ZERO
    for c in range(2):
        for i in range(T.w):
            x = st[c, i]
            while x != _ZERO:
                p = i * 64 + int(_cttz(x))
                x &= x - _ONE
                for s in range(ns):
                    out[s] ^= zob[s, c, p]


@kernel
def transform(T, s, st, out):
    """Write the position ``st`` mapped by symmetry number ``s`` into ``out``."""
    sym = T.sym[s]
    for c in range(2):
        for i in range(T.w):
            out[c, i] = _ZERO
        for i in range(T.w):
            x = st[c, i]
            while x != _ZERO:
                p = i * 64 + int(_cttz(x))
                x &= x - _ONE
                _set(out, c, sym[p])


# --- random playouts ---------------------------------------------------------------------
@kernel
def _splitmix(state):
    """One step of splitmix64 on a one-element uint64 array; returns the next output."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def random_playout(T, st, side, rng, max_plies, moves, removed):
    """Play uniformly random legal moves from ``st`` (changed in place) until the game ends
    or ``max_plies`` moves were made.  ``rng`` is a one-element uint64 splitmix64 state;
    ``moves`` (int32, at least ``n`` long) and ``removed`` (uint64, ``w``) are scratch.
    Repetitions are not tracked; a game cut at ``max_plies`` counts as DRAW.
    Returns (result, plies)."""
    plies = 0
    while True:
        if count(st, side) >= 2 and count(st, 1 - side) == 0:
            return side, plies
        if plies >= max_plies:
            return DRAW, plies
        k = legal_moves(T, st, side, moves)
        if k == 0:
            return 1 - side, plies
        p = moves[int(_splitmix(rng) % np.uint64(k))]
        plies += 1
        if play(T, st, side, p, removed):
            return 1 - side, plies
        side = 1 - side


@kernel
def run_playouts(T, st0, side, rng, games, max_plies, stats, st, moves, removed):
    """Play ``games`` random playouts from ``st0``; accumulate into ``stats`` (int64, 4):
    Light wins, Dark wins, draws (cut at ``max_plies``), total plies.  ``st``, ``moves``
    and ``removed`` are scratch as in :func:`random_playout`."""
    for _ in range(games):
        for c in range(2):
            for i in range(T.w):
                st[c, i] = st0[c, i]
        r, plies = random_playout(T, st, side, rng, max_plies, moves, removed)
        stats[r] += 1
        stats[3] += plies


@kernel
def perft(T, st0, side0, depth, stack_st, stack_moves, stack_k, stack_i, removed):
    """Count the leaves of the move tree ``depth`` plies deep (a finished position counts
    0 at depth >= 1).  Scratch: ``stack_st`` (depth+1, 2, w) uint64, ``stack_moves``
    (depth, n) int32, ``stack_k`` and ``stack_i`` (depth,) int32, ``removed`` (w,)."""
    if depth == 0:
        return 1
    w = T.w
    for c in range(2):
        for i in range(w):
            stack_st[0, c, i] = st0[c, i]
    total = 0
    level = 0
    side = side0
    # enter level 0
    stack_k[0] = _gen(T, stack_st[0], side, stack_moves[0])
    stack_i[0] = 0
    while level >= 0:
        if stack_i[level] >= stack_k[level]:
            level -= 1
            side = 1 - side
            continue
        p = stack_moves[level, stack_i[level]]
        stack_i[level] += 1
        child = stack_st[level + 1]
        for c in range(2):
            for i in range(w):
                child[c, i] = stack_st[level, c, i]
        lost = play(T, child, side, p, removed)
        if level + 1 == depth:
            total += 1
            continue
        if lost:
            continue  # the mover removed their last stones: the game is over
        level += 1
        side = 1 - side
        stack_k[level] = _gen(T, stack_st[level], side, stack_moves[level])
        stack_i[level] = 0
    return total


@kernel
def _gen(T, st, side, out):
    """Legal moves of a position that is not over; 0 when it is."""
    if count(st, side) >= 2 and count(st, 1 - side) == 0:
        return 0
    return legal_moves(T, st, side, out)


def run_perft(board: Board, st: np.ndarray, side: int, depth: int) -> int:
    """:func:`perft` with its scratch allocated."""
    T = tables(board)
    return perft(
        T, st, side, depth,
        np.zeros((depth + 1, 2, T.w), np.uint64), np.zeros((max(depth, 1), T.n), np.int32),
        np.zeros(max(depth, 1), np.int32), np.zeros(max(depth, 1), np.int32),
        np.zeros(T.w, np.uint64),
    )
