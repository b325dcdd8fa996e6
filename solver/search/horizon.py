"""Horizon search: can a player force a win within D plies?  Shortest wins and losses.

A depth-bounded AND/OR search, compiled, with iterative deepening over the horizon D:
the first D at which the *prover* forces a win is the length of the shortest forced win
(puzzles and the checking of claims need it).  A win "within D plies" means the game is
decided for the prover after at most D more moves: the defender is left with no legal
placement (or no stones) after the prover's move, or the defender's own move removes the
defender's last stones.

>>> from solver import Board, Position
>>> pos = Position.start(Board.parse("1/2"))
>>> shortest_win(pos, 6, prover="D")  # doctest: +ELLIPSIS
Shortest(plies=2, depth=2, nodes=...)
>>> r = solve_horizon(pos, 6)          # Light's second stone never has a point
>>> VALUE_NAMES[r.value], r.plies, r.line
('loss', 2, ['a1', 'b1'])

**Functions** (``t`` = :func:`solver.rules.core.tables` of the board; ``path`` = the positions
before ``position`` in the game, oldest first, whose repetition counts as a failure of
the prover; a :class:`~solver.rules.position.Position` ``prover`` colour is ``'L'``/``'D'``/0/1,
``None`` for the player to move):

- ``new_horizon(t, tt_mb=64, max_nodes=0, use_table=True, use_symmetry=True,
  use_ordering=True) -> Horizon``: the arrays of a search; the table never grows.
- ``win_within(T, H, ply, side, prover, depth) -> (plies, clean)`` (compiled): the
  position at ``H.stack[2*ply:2*ply+2]`` with ``side`` to move and its keys in
  ``H.keys[ply]``; ``plies`` is the length (``<= depth``) of a forced win of ``prover``,
  or ``-1`` if there is none within ``depth``; ``clean`` is False when that failure
  depended on a repetition (or the search was aborted: ``H.stats[ABORTED]``).
- ``search(H, t, path, prover, depth) -> int | None``: :func:`win_within` for
  ``path[-1]`` (the whole path loaded); ``None`` when the node budget ran out.
- ``shortest_win(position, max_depth, tt_mb=64, max_nodes=0, prover=None, path=None,
  H=None) -> Shortest(plies, depth, nodes)``: iterative deepening; ``plies`` is the
  length of the shortest win of ``prover`` (``depth == plies``), or ``None``: then no win
  within ``depth`` plies is proven, and ``depth < max_depth`` means the budget ran out.
  With ``prover`` the opponent of the player to move, this proves a loss.
- ``solve_horizon(position, max_depth, tt_mb=64, max_nodes=0, path=None, line=True,
  H=None) -> HorizonResult(value, plies, depth, line, nodes, seconds)``: WIN or LOSS for the
  player to move with the length of the shortest win or loss (both deepened together,
  one ply at a time), or UNKNOWN when neither comes within ``max_depth`` (or the budget)
  with ``depth`` the horizon searched; ``line`` is a principal line: the winner's moves
  keep the win within the remaining plies, the loser's replies resist longest.
- ``principal_line(H, t, path, prover, plies) -> list[str]``: that line from ``path[-1]``.

**Table.**  A fixed number of slots (a power of two, at most ``tt_mb`` MiB) in buckets of
4, keyed by the canonical Zobrist key over the board's symmetries (alpha-beta's) salted
with the prover's colour.  An entry keeps both bounds of a position: "a win within k
plies" (answers every horizon ``>= k``) and "no win within d" (answers every horizon
``<= d``), and the move that decided it (canonical orientation).  A new position takes
the empty slot of its bucket or evicts the entry worth least: wins before failures, then
the larger horizon.  An empty slot is all zero bits (the numbers are stored offset, see
:class:`Horizon`), so the table comes from :func:`~solver.search.memory.zeroed` and
costs only the pages the search writes: a short search is as quick with a big table as
with a small one.

**Repetition.**  A position that repeats one on the current path (or on ``path``) is a
failure for the prover (RULES.md: a draw); a failure that depended on one is tainted and
is never stored.  Wins never depend on a repetition, so they are stored as found.  With
no earlier positions given, the root's answer is exact: a shortest win never repeats a
position of its own line (the distance to the win falls at every ply).  A win found
through the table could, in principle, pass through a position of a given ``path``
(the graph-history problem): replay with :class:`~solver.rules.position.Game` when that matters.

**Moves** are tried in alpha-beta's order (:mod:`solver.search.alphabeta`): the table's
move, moves that kill or save a group, killers, history.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from solver.rules import core
from solver.rules.bits import bb_any, bb_load, bb_store
from solver.rules.core import kernel
from solver.rules.position import COLORS, Position
from . import alphabeta as ab
from .memory import zeroed
from .path import child_keys, repeats
from .alphabeta import (
    ABORTED, DEEPEST, DRAW, LOSS, MAX_PLY, NODES, OUT_OF_NODES, PATH_TOO_LONG, REASONS,
    TT_HITS, TT_STORES, UNKNOWN, VALUE_NAMES, WIN,
)

__all__ = [
    "Horizon", "new_horizon", "win_within", "search", "shortest_win", "Shortest",
    "solve_horizon", "HorizonResult", "principal_line", "WIN", "DRAW", "LOSS", "UNKNOWN",
    "VALUE_NAMES", "NO_WIN", "FAIL", "load_kernels",
]

NO_WIN = 0x7FFF  # tt_win of an entry without a proven win
FAIL = -1        # win_within: no win within the horizon
_BUCKET = 4
_WIN_WORTH = 1 << 12  # eviction: a win outweighs any horizon of a failure
_PROVER_SALT = np.uint64(0xD1B54A32D192ED03)  # xor-ed into the key when Dark proves


class Horizon(NamedTuple):
    """The arrays of one horizon search (fields shared with alphabeta.Search keep their
    meaning there, so its move ordering serves both)."""

    stack: np.ndarray      # uint64 (2 * MAX_PLY, w): the positions on the path
    path_keys: np.ndarray  # uint64 (MAX_PLY,): their identity Zobrist keys
    keys: np.ndarray       # uint64 (MAX_PLY, 4): the path's keys under each symmetry
    # the three numbers are stored offset so that an empty slot is all zeros; read them
    # with _win, _fail and _move
    tt_key: np.ndarray     # uint64 (size,): canonical key, salted with the prover
    tt_win: np.ndarray     # int16 (size,): NO_WIN minus "a win within this many plies"
                           # (0: no win)
    tt_fail: np.ndarray    # int16 (size,): one plus "no win within this many plies" (0: none)
    tt_move: np.ndarray    # int16 (size,): one plus the deciding move, canonical
                           # orientation (0: none)
    stats: np.ndarray      # int64 (8,): alphabeta's slots (NODES, TT_HITS, ...)
    limits: np.ndarray     # int64 (4,): node budget (0: none), use the table, use
                           # symmetries (0/1), move ordering (alphabeta.ORDER_* bits)
    unsym: np.ndarray      # int32 (4, 64 w): inverse symmetry maps
    moves: np.ndarray      # int64 (MAX_PLY, n): move lists (alphabeta's format)
    killers: np.ndarray    # int16 (MAX_PLY, 2)
    history: np.ndarray    # int64 (2, 64 w)


def new_horizon(
    t: core.Tables, tt_mb: float = 64, max_nodes: int = 0, use_table: bool = True,
    use_symmetry: bool = True, use_ordering: bool | int = True,
) -> Horizon:
    """A horizon search with a table of at most ``tt_mb`` MiB (a power of two number of
    slots, at least one bucket)."""
    slot_bytes = 8 + 2 + 2 + 2
    size = _BUCKET
    while size * 2 * slot_bytes <= tt_mb * 2**20:
        size *= 2
    ordering = ab.ORDER_ALL if use_ordering is True else int(use_ordering)
    return Horizon(
        np.zeros((2 * MAX_PLY, t.w), np.uint64), np.zeros(MAX_PLY, np.uint64),
        np.zeros((MAX_PLY, 4), np.uint64),
        # all zeros is an empty slot: no page is touched before the search writes it
        zeroed(size, np.uint64), zeroed(size, np.int16),
        zeroed(size, np.int16), zeroed(size, np.int16),
        np.zeros(8, np.int64),
        np.array([max_nodes, int(use_table), int(use_symmetry), ordering], np.int64),
        ab.inverse_symmetries(t), np.zeros((MAX_PLY, t.n), np.int64),
        np.full((MAX_PLY, 2), -1, np.int16), np.zeros((2, 64 * t.w), np.int64),
    )


# --- the table -----------------------------------------------------------------------------
@kernel(inline="always")
def _win(H, e):
    """Entry ``e``'s win within this many plies, NO_WIN for none."""
    return NO_WIN - np.int64(H.tt_win[e])


@kernel(inline="always")
def _fail(H, e):
    """Entry ``e``'s "no win within this many plies", -1 for none."""
    return np.int64(H.tt_fail[e]) - 1


@kernel(inline="always")
def _move(H, e):
    """Entry ``e``'s deciding move (canonical orientation), -1 for none."""
    return np.int64(H.tt_move[e]) - 1


@kernel
def _probe(H, key):
    """The slot holding ``key``, or -1."""
    base = int(key & np.uint64(H.tt_key.shape[0] - 1)) & ~(_BUCKET - 1)
    for e in range(base, base + _BUCKET):
        if H.tt_key[e] == key:
            return e
    return -1


@kernel
def _put(H, key, win, fail, move):
    """Record for ``key``: a win within ``win`` plies (NO_WIN: none), no win within
    ``fail`` (-1: none), the deciding ``move`` (-1: keep the old one).  Callers pass int64
    values, never literals: numba would compile it once for each combination (it did 5)."""
    base = int(key & np.uint64(H.tt_key.shape[0] - 1)) & ~(_BUCKET - 1)
    e = -1
    for i in range(base, base + _BUCKET):
        if H.tt_key[i] == key:
            e = i
            break
    if e < 0:
        worth_min = 1 << 30
        for i in range(base, base + _BUCKET):
            if _win(H, i) != NO_WIN:
                worth = _WIN_WORTH + _win(H, i)
            else:
                worth = _fail(H, i) + 1 + (1 if _move(H, i) >= 0 else 0)
            if worth < worth_min:
                worth_min = worth
                e = i
        H.tt_key[e] = key
        H.tt_win[e] = 0   # no win
        H.tt_fail[e] = 0  # no failure
        H.tt_move[e] = 0  # no move
    if win < _win(H, e):
        H.tt_win[e] = NO_WIN - win
    if fail > _fail(H, e):
        H.tt_fail[e] = fail + 1
    if move >= 0:
        H.tt_move[e] = move + 1
    H.stats[TT_STORES] += 1


# --- the search ----------------------------------------------------------------------------
@kernel
def win_within(T, H, ply, side, prover, depth):
    """Whether ``prover`` can force a win within ``depth`` plies from the position
    ``H.stack[2*ply : 2*ply+2]`` with ``side`` to move (keys in ``H.keys[ply]``).

    Returns ``(plies, clean)``: the length of a forced win (at most ``depth``) or FAIL;
    ``clean`` is False for a failure that depended on a repetition on the path, or when
    the search was aborted (``H.stats[ABORTED]`` says why; the result is then unknown)."""
    st = H.stack[2 * ply: 2 * ply + 2]
    H.stats[NODES] += 1
    if ply > H.stats[DEEPEST]:
        H.stats[DEEPEST] = ply
    if H.limits[0] > 0 and H.stats[NODES] > H.limits[0]:
        H.stats[ABORTED] = OUT_OF_NODES
        return FAIL, False
    key = H.keys[ply, 0]
    H.path_keys[ply] = key
    # a repetition of a position on the path: a draw, so a failure of the prover
    if repeats(H, ply, st):
        return FAIL, False
    moves = core.live_moves_bb(T, st, side)
    if not bb_any(moves):
        won = core.count(st, side) >= 2 and core.count(st, 1 - side) == 0
        winner = side if won else 1 - side
        return (0 if winner == prover else FAIL), True
    if depth <= 0:
        return FAIL, True
    if ply + 1 >= MAX_PLY:
        H.stats[ABORTED] = PATH_TOO_LONG
        return FAIL, False
    if H.limits[2]:
        canon, sym = ab._canonical(T, H.keys, ply)
    else:
        canon, sym = key, 0
    if prover == 1:
        canon ^= _PROVER_SALT
    first = -1
    if H.limits[1]:
        e = _probe(H, canon)
        if e >= 0:
            if _win(H, e) <= depth:
                H.stats[TT_HITS] += 1
                return int(_win(H, e)), True
            if _fail(H, e) >= depth:
                H.stats[TT_HITS] += 1
                return FAIL, True
            if _move(H, e) >= 0:
                first = H.unsym[sym, _move(H, e)]
    child = H.stack[2 * ply + 2: 2 * ply + 4]
    n = ab._order(T, H, ply, side, st, moves, first)
    attack = side == prover
    all_clean = True
    longest = 0
    for i in range(n):
        cell = ab._next_move(H, ply, i, n)
        for c in range(2):
            bb_store(child, c, bb_load(st, c, T.zero))
        lost, removed = core.play(T, child, side, cell)
        if lost:
            # the mover removed their own last stones
            k, clean = (FAIL if attack else 0), True
        else:
            child_keys(T, H.keys, ply, side, cell, removed)
            k, clean = win_within(T, H, ply + 1, 1 - side, prover, depth - 1)
            if H.stats[ABORTED]:
                return FAIL, False
        if attack:
            if k >= 0:
                ab._cutoff(H, ply, side, cell, i)
                if H.limits[1]:
                    _put(H, canon, np.int64(k + 1), np.int64(-1), np.int64(T.sym[sym, cell]))
                return k + 1, True
            if not clean:
                all_clean = False
        else:
            if k < 0:
                # a reply that holds out beyond the horizon
                ab._cutoff(H, ply, side, cell, i)
                if H.limits[1]:
                    _put(H, canon, np.int64(NO_WIN), np.int64(depth if clean else -1), np.int64(T.sym[sym, cell]))
                return FAIL, clean
            if k + 1 > longest:
                longest = k + 1
    if attack:
        if all_clean and H.limits[1]:
            _put(H, canon, np.int64(NO_WIN), np.int64(depth), np.int64(-1))
        return FAIL, all_clean
    if H.limits[1]:
        _put(H, canon, np.int64(longest), np.int64(-1), np.int64(-1))
    return longest, True


# --- drivers -------------------------------------------------------------------------------
class Shortest(NamedTuple):
    """:func:`shortest_win`'s answer."""

    plies: int | None  # the length of the shortest win, or None
    depth: int         # the horizon searched: no win within fewer plies (within `depth` if None)
    nodes: int


class HorizonResult(NamedTuple):
    """:func:`solve_horizon`'s answer, for the player to move."""

    value: int         # WIN, LOSS or UNKNOWN
    plies: int | None  # length of the shortest win (WIN) or of the longest loss (LOSS)
    depth: int         # the horizon: neither a win nor a loss within fewer plies
    line: list         # a principal line (point names), `plies` moves long
    nodes: int
    seconds: float


def _colour(prover, position: Position) -> int:
    if prover is None:
        return position.side_index
    if isinstance(prover, str):
        return COLORS.index(prover)
    return int(prover)


def _load(H: Horizon, t: core.Tables, path: list[Position]) -> None:
    for ply, p in enumerate(path):
        H.stack[2 * ply: 2 * ply + 2] = p.bitboards
        core.zobrist_keys(t, p.bitboards, p.side_index, H.keys[ply])
        H.path_keys[ply] = H.keys[ply, 0]


def search(H: Horizon, t: core.Tables, path: list[Position], prover: int, depth: int) -> int | None:
    """:func:`win_within` for ``path[-1]`` with the earlier positions of ``path`` on the
    search path: the length of a win of ``prover`` within ``depth`` plies, -1 (FAIL) if
    there is none, None if the node budget ran out or the path grew too long."""
    if len(path) + depth >= MAX_PLY:
        depth = MAX_PLY - len(path) - 1
    _load(H, t, path)
    H.stats[ABORTED] = 0
    last = path[-1]
    k, _ = win_within(t, H, len(path) - 1, last.side_index, prover, depth)
    if H.stats[ABORTED]:
        H.stats[REASONS] |= 1 << int(H.stats[ABORTED])
        return None
    return int(k)


def shortest_win(
    position: Position, max_depth: int, tt_mb: float = 64, max_nodes: int = 0,
    prover=None, path: list[Position] | None = None, H: Horizon | None = None,
) -> Shortest:
    """The shortest forced win of ``prover`` (default: the player to move) from
    ``position``, by iterative deepening up to ``max_depth`` plies; ``path`` holds the
    positions before it in the game (oldest first)."""
    t = core.tables(position.board)
    if H is None:
        H = new_horizon(t, tt_mb, max_nodes)
    colour = _colour(prover, position)
    full = list(path or []) + [position]
    start = int(H.stats[NODES])
    done = 0
    for depth in range(max_depth + 1):
        k = search(H, t, full, colour, depth)
        if k is None:
            break
        if k >= 0:
            return Shortest(k, k, int(H.stats[NODES]) - start)
        done = depth
    return Shortest(None, done, int(H.stats[NODES]) - start)


def solve_horizon(
    position: Position, max_depth: int, tt_mb: float = 64, max_nodes: int = 0,
    path: list[Position] | None = None, line: bool = True, H: Horizon | None = None,
) -> HorizonResult:
    """WIN or LOSS for the player to move with its shortest length, or UNKNOWN when
    neither is forced within ``max_depth`` plies (or within the node budget); ``H``: a
    search to use (its table is kept) instead of a new one."""
    t0 = time.perf_counter()
    if position.outcome == "draw":
        return HorizonResult(DRAW, 0, 0, [], 0, 0.0)  # a finished game, drawn by repetition
    t = core.tables(position.board)
    if H is None:
        H = new_horizon(t, tt_mb, max_nodes)
    start = int(H.stats[NODES])
    full = list(path or []) + [position]
    me = position.side_index
    depth = 0
    for d in range(max_depth + 1):
        for prover, value in ((me, WIN), (1 - me, LOSS)):
            k = search(H, t, full, prover, d)
            if k is None:
                return HorizonResult(UNKNOWN, None, depth, [], int(H.stats[NODES]) - start, time.perf_counter() - t0)
            if k >= 0:
                moves = principal_line(H, t, full, prover, k) if line else []
                return HorizonResult(value, k, k, moves, int(H.stats[NODES]) - start, time.perf_counter() - t0)
        depth = d
    return HorizonResult(UNKNOWN, None, depth, [], int(H.stats[NODES]) - start, time.perf_counter() - t0)


def principal_line(H: Horizon, t: core.Tables, path: list[Position], prover: int, plies: int) -> list[str]:
    """A line of the shortest win of ``prover`` from ``path[-1]``, where ``plies`` is its
    length: the prover's moves keep a win within the plies left, the defender's replies
    put it off longest (the first in board order among equals)."""
    line: list[str] = []
    path = list(path)
    pos = path[-1]
    left = plies
    while left > 0 and pos.outcome is None:
        chosen = None
        fallback = None  # the defender's first reply that does not lose at once
        suicide = None   # the defender's first reply that does
        for m in pos.legal_moves():
            child = pos.play(m)
            if pos.side_index == prover:
                if child.outcome == COLORS[prover]:
                    chosen = m
                    break
                if child.outcome is None and _wins(H, t, path + [child], prover, left - 1):
                    chosen = m
                    break
            elif child.outcome is not None:
                suicide = suicide or m
            else:
                fallback = fallback or m
                if left >= 2 and not _wins(H, t, path + [child], prover, left - 2):
                    chosen = m  # the win takes all of the plies left
                    break
        chosen = chosen or fallback or suicide
        if chosen is None:
            break
        line.append(chosen)
        pos = pos.play(chosen)
        path.append(pos)
        left -= 1
    return line


def _wins(H, t, path, prover, depth) -> bool:
    k = search(H, t, path, prover, depth)
    return k is not None and k >= 0


def load_kernels(t: core.Tables) -> None:
    """Load :func:`win_within` for the board of ``t`` (compiling it on the board's first
    use) with the argument types :func:`search` gives it; the call here returns at once."""
    H = new_horizon(t, 0)
    st = core.new_position(t)
    st.flags.writeable = False  # as a Position's stones
    core.zobrist_keys(t, st, 0, H.keys[0])
    H.limits[0] = 1
    H.stats[NODES] = 1  # the budget is spent: win_within stops at once
    core.load_kernels(t, "the horizon search", [(win_within, (t, H, 0, 0, 0, 1))])
