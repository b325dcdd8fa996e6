"""Compiled rules kernels: bitboards, move generation, dead groups, play, Zobrist keys.

Everything here is a plain ``@njit`` function over numpy arrays and bitboard values, so
that search and generators can call it from their own compiled loops with no Python
objects and no allocation per move.  The Python side builds the constant tables of a
board once (:func:`tables`).

**Cells.**  The kernels do not number points as :mod:`solver.rules.board` does.  A point at
axial ``(q, r)`` is bit ``cell = q + S * (r + m) - m`` with row stride ``S = 2m + 1``:
one unused column separates the rows, so a step along any of the three lines is a
shift by a constant (``+-1``, ``+-S``, ``+-(S - 1)``) and a step off the board always
lands on an unused bit.  Moving along lines is then a handful of shifts for all stones
at once (Kogge-Stone fills) instead of a walk per stone.  ``Tables.cell_of`` and
``Tables.point_of`` translate; the board 3/4 fits one 64-bit word (42 cells), 6/7 three.

**Bitboards** are ``UniTuple(uint64, w)`` values handled by :mod:`solver.rules.bits`; a
position is a ``(2, w)`` uint64 array ``st`` (``st[0]`` Light, ``st[1]`` Dark) in cell
order.  Colours are ``0`` (Light) and ``1`` (Dark); ``side`` is the colour to move.

**Rules** (RULES.md, engine formulation): positions are "after removal"; after each
placement from a player's second stone on, the mover's own dead groups are removed.  The
phase of the player to move comes from stone counts: ``PH_FIRST`` (no stones, opponent at
most one), ``PH_SECOND`` (one stone), ``PH_NORMAL`` (two or more), ``PH_LOST`` (no stones
while the opponent has two or more).
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
from typing import NamedTuple

import numpy as np
from numba import njit

from .bits import (
    bb_and, bb_andnot, bb_any, bb_bit, bb_clear_lowest, bb_eq, bb_highest, bb_load,
    bb_lowest, bb_or, bb_popcount, bb_shift, bb_store, bb_test,
)
from .board import Board
from ..util.files import uninterrupted

__all__ = [
    "Tables", "tables", "new_position", "kernel",
    "PH_FIRST", "PH_SECOND", "PH_NORMAL", "PH_LOST", "NO_RESULT", "DRAW",
    "count", "phase", "legal_bb", "legal_moves", "live_moves_bb", "dead_bb", "group_labels", "play",
    "outcome", "zobrist_keys", "transform", "perft", "random_playout", "run_playouts",
    "run_perft", "is_compiled", "announce_compiling", "compile_seconds", "load_kernels",
]

#: Kernels are compiled without numba's reference counting (``_nrt=False``): the atomic
#: increments it puts around every array use cost several times the rules work itself.
#: The price is that kernels must not allocate: they use arrays the caller passes in.
def kernel(fn=None, **options):
    """``@kernel`` or ``@kernel(inline="always")``: njit, cached, without reference counting."""
    if fn is None:
        return lambda f: njit(cache=True, _nrt=False, **options)(f)
    return njit(cache=True, _nrt=False)(fn)

PH_FIRST, PH_SECOND, PH_NORMAL, PH_LOST = 0, 1, 2, 3
#: results of :func:`outcome` and the playouts: a colour (the winner), or these
NO_RESULT, DRAW = -1, 2


# --- tables --------------------------------------------------------------------------------
class Tables(NamedTuple):
    """The constant arrays of one board, as the kernels take them."""

    m: int
    mtag: tuple            # m zero bytes: the length of this tuple is part of its numba type,
                           # so kernels are compiled for each board with its line offsets
                           # as constants, and the shifts along lines get immediate operands
    n: int                 # points
    w: int                 # words per bitboard
    zero: tuple            # the empty bitboard (its type carries w)
    full: tuple            # every cell of the board
    cell_of: np.ndarray    # int32 (n,): point -> cell
    point_of: np.ndarray   # int32 (64 w,): cell -> point, -1 off the board
    rays: np.ndarray       # uint64 (6, 64 w, w): the cells beyond a cell in each direction
    sym: np.ndarray        # int32 (4, 64 w): cell -> cell under each symmetry, -1 off the board
    zobrist: np.ndarray    # uint64 (4, 2, 64 w): zobrist[s, c, x] = key of colour c at sym_s(x)
    zobrist_side: np.uint64  # xor-ed in when Dark is to move


_TABLES: dict[int, Tables] = {}


def tables(board: Board) -> Tables:
    """The kernels' tables for ``board`` (built once, then shared)."""
    t = _TABLES.get(board.m)
    if t is not None:
        return t
    m, n = board.m, board.size
    stride = 2 * m + 1
    cells = [q + stride * (r + m) - m for q, r in board.coords]
    w = (max(cells) + 64) // 64
    nbits = 64 * w
    cell_of = np.array(cells, dtype=np.int32)
    point_of = np.full(nbits, -1, dtype=np.int32)
    point_of[cell_of] = np.arange(n, dtype=np.int32)
    full_int = sum(1 << c for c in cells)
    words = lambda x: tuple(np.uint64((x >> (64 * i)) & (2**64 - 1)) for i in range(w))  # noqa: E731
    rays = np.zeros((6, nbits, w), dtype=np.uint64)
    for p in range(n):
        for d in range(6):
            rays[d, cells[p]] = words(sum(1 << cells[x] for x in board.rays[p][d]))
    sym = np.full((len(board.symmetries), nbits), -1, dtype=np.int32)
    for s, perm in enumerate(board.symmetries):
        sym[s, cell_of] = cell_of[np.array(perm)]
    # fixed seed: the keys are part of the transposition-table and checkpoint formats
    rng = np.random.default_rng(0x4D6572696469616E + m)
    base = rng.integers(0, 2**64 - 1, size=(2, n), dtype=np.uint64, endpoint=True)
    side_key = rng.integers(0, 2**64 - 1, dtype=np.uint64, endpoint=True)
    zob = np.zeros((len(board.symmetries), 2, nbits), dtype=np.uint64)
    for s, perm in enumerate(board.symmetries):
        # key of a stone on point p in the position mapped by symmetry s: base[perm[p]]
        zob[s][:, cell_of] = base[:, np.array(perm)]
    t = Tables(
        m, (np.int8(0),) * m, n, w, words(0), words(full_int), cell_of, point_of, rays, sym, zob,
        np.uint64(side_key),
    )
    _TABLES[m] = t
    _load_numba()
    _announce_if_cold(board, t)
    return t


def new_position(t: Tables) -> np.ndarray:
    """An empty ``(2, w)`` position array."""
    return np.zeros((2, t.w), dtype=np.uint64)


# --- compiling ----------------------------------------------------------------------------
#: Seconds to compile a board's kernels on its first use, by words per bitboard: the
#: rules, then each search's own (the rules already compiled).  Measured with an empty
#: numba cache on a shared 2-core machine (load average about 2), rounded up: 2/3 (w 1)
#: 2.6 s for the rules, 11.3 df-pn, 3.7 the engine, 6.0 horizon; 4/5 (w 2) 3.3, 13.9, 6.1,
#: 8.9, 5.9 alpha-beta; 6/7 (w 3) 4.9, 18.8, 7.4, 9.6, 6.6; w 4 (7/8) extrapolated.
_COMPILE_SECONDS = {
    1: {"rules": 3, "the df-pn search": 12, "the engine": 5, "the horizon search": 7, "the alpha-beta search": 6, "the certificate builder": 3},
    2: {"rules": 4, "the df-pn search": 14, "the engine": 6, "the horizon search": 9, "the alpha-beta search": 6, "the certificate builder": 3},
    3: {"rules": 5, "the df-pn search": 19, "the engine": 8, "the horizon search": 10, "the alpha-beta search": 7, "the certificate builder": 3},
    4: {"rules": 6, "the df-pn search": 22, "the engine": 9, "the horizon search": 11, "the alpha-beta search": 8, "the certificate builder": 3},
}
#: the engine compiles df-pn too (its exact solver), after its own kernels
_ALSO = {"the engine": "the df-pn search"}
_ANNOUNCED: set[int] = set()


def _estimates(t: Tables) -> dict:
    return _COMPILE_SECONDS.get(t.w, _COMPILE_SECONDS[max(_COMPILE_SECONDS)])


def compile_seconds(t: Tables, what: str = "the df-pn search") -> tuple[int, int]:
    """About how long a first use of the board of ``t`` compiles: ``(rules, search)``
    seconds, ``search`` for ``what`` (a :func:`load_kernels` name; the engine's includes
    the df-pn it runs inside)."""
    e = _estimates(t)
    search = e.get(what, e["the df-pn search"])
    if what in _ALSO:
        search += e[_ALSO[what]]
    return e["rules"], search


def is_compiled(fn, *args) -> bool | None:
    """Whether a call of the kernel ``fn`` with ``args`` runs without compiling: its machine
    code for these argument types is loaded already or is in numba's cache on disk (and
    not stale).  None when numba's cache cannot be read (another numba, caching off).

    Reads numba's cache index, as numba does before it compiles; nothing is loaded."""
    try:
        sig = tuple(fn.typeof_pyval(a) for a in args)
        if sig in fn.overloads:
            return True
        cache = fn._cache
        key = cache._index_key(sig, fn.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # numba's internals moved: say nothing rather than fail
        return None


def announce_compiling(board: Board, how_long: str) -> None:
    """Print one line on stderr, "compiling the <board> kernels once: <how_long>", at most
    once per board in a process: said before the wait, a cold first use (tens of seconds)
    does not look like a hang."""
    if board.m in _ANNOUNCED:
        return
    _ANNOUNCED.add(board.m)
    print(f"compiling the {board.name} kernels once: {how_long} "
          "(later runs load them from the cache)", file=sys.stderr, flush=True)


def load_kernels(t: Tables, what: str, calls: list) -> None:
    """Make the kernel calls ``calls`` (``(kernel, args)`` pairs, each a call that returns
    at once) so that their machine code is loaded, compiling it first if the cache lacks
    it; before compiling, one line on stderr says so (``what``: the search, for it).
    Search drivers do this before their clock starts: a budget counts search only."""
    if any(is_compiled(fn, *args) is False for fn, args in calls):
        announce_compiling(Board.get(t.m), f"about {compile_seconds(t, what)[1]} s for {what}")
    for fn, args in calls:
        fn(*args)


_NO_BLAS = "scipy.linalg.cython_blas"


def _load_numba() -> None:
    """Load numba's implementations of Python and numpy (its CPU target's registries)
    once per process, before the first kernel runs or loads from the cache, at less than
    numba's own cost (a warm ``meridians verify`` is mostly numba's start-up):

    - without letting numba import scipy.linalg for BLAS.  numba does that load on its
      first compile or cache load, and one module of it (numba.np.arraymath) imports
      scipy.linalg then to see whether np.dot on floats can call BLAS: 0.4-0.6 s.  No
      kernel here uses np.dot or np.linalg, so the import is blocked while the
      registries load (numba then takes BLAS as absent, and would compile an inner
      product as a loop); afterwards scipy imports as usual;
    - then out of the cycle collector's way (:func:`gc.freeze`, after a collection).

    Nothing is done when scipy's BLAS or numba's registries are loaded already.
    """
    _hold_interrupts_while_compiling()
    if _NO_BLAS in sys.modules or "numba.np.arraymath" in sys.modules:
        return
    try:
        from numba.core.compiler_lock import global_compiler_lock
        from numba.core.registry import cpu_target
    except ImportError:  # numba's internals moved: its own first load does it, only slower
        return

    with global_compiler_lock:  # numba's own loads and compiles wait for this one
        if "numba.np.arraymath" in sys.modules:
            return
        sys.modules[_NO_BLAS] = None  # type: ignore[assignment]  # import fails, parents untouched
        try:
            cpu_target.target_context.refresh()
        finally:
            if sys.modules.get(_NO_BLAS, 0) is None:
                del sys.modules[_NO_BLAS]
        # numba's registries are 100,000 objects that live as long as the process: out
        # of the cycle collector's way, neither its collections during a search nor the
        # interpreter's exit walk them (the exit took 0.2-0.3 s).  Collected first, so
        # that nothing already garbage is kept; objects frozen here that later become
        # garbage in a cycle are kept (a bounded cost, once per process).
        gc.collect()
        gc.freeze()


def _hold_interrupts_while_compiling() -> None:
    """Make Ctrl-C (and a SIGTERM that acts like it) wait while numba compiles or loads
    kernels in the main thread, and act once it is done, once per process.  numba and
    llvmlite swallow a KeyboardInterrupt raised inside them: the run ends with
    ``RuntimeError: no compiled object yet``, or prints "Exception ignored" and goes on."""
    global _HOLD
    if _HOLD is not None:
        return
    try:
        from numba.core import event
    except ImportError:  # numba's internals moved: interrupts act at once, as before
        return

    class Hold(event.Listener):
        """Holds the signals from the outermost take of numba's compiler lock to its
        release (the release comes after the kernel and its callees are compiled and
        cached, so raising then leaves numba consistent)."""

        depth = 0
        stack: contextlib.ExitStack | None = None

        def on_start(self, ev) -> None:
            if threading.current_thread() is not threading.main_thread():
                return
            self.depth += 1
            if self.depth == 1:
                self.stack = contextlib.ExitStack()
                self.stack.enter_context(uninterrupted(_say_held))

        def on_end(self, ev) -> None:
            if threading.current_thread() is not threading.main_thread() or self.depth == 0:
                return
            self.depth -= 1
            if self.depth == 0 and self.stack is not None:
                stack, self.stack = self.stack, None
                stack.close()  # raises KeyboardInterrupt if Ctrl-C came meanwhile

    _HOLD = Hold()
    event.register("numba:compiler_lock", _HOLD)


_HOLD = None  # the listener of _hold_interrupts_while_compiling, once registered


def _say_held(signum: int) -> None:
    print("stopping once the kernel being compiled is ready (a few seconds)", file=sys.stderr, flush=True)


def _announce_if_cold(board: Board, t: Tables) -> None:
    """:func:`announce_compiling` when the rules kernels of ``board`` are not in the
    cache (two that every position uses are looked up)."""
    st = new_position(t)
    frozen = new_position(t)
    frozen.flags.writeable = False  # a Position's stones are read-only: another signature
    if is_compiled(legal_bb, t, frozen, 0) is False or is_compiled(play, t, st, 0, 0) is False:
        rules, proof = compile_seconds(t)
        engine = compile_seconds(t, "the engine")[1]
        announce_compiling(board, f"about {rules} s for the rules, then {proof} s for a proof search "
                                  f"or {engine} s for the engine")


# --- lines -----------------------------------------------------------------------------
@kernel(inline="always")
def _offset(T, d):
    """The cell offset of direction ``d`` (board.DIRECTIONS order).  A compile-time
    constant when ``d`` is, because the stride comes from the length of ``T.mtag``."""
    stride = 2 * len(T.mtag) + 1
    if d == 0:
        return 1
    if d == 1:
        return -1
    if d == 2:
        return stride
    if d == 3:
        return -stride
    if d == 4:
        return 1 - stride
    return stride - 1


@kernel(inline="always")
def _fill(T, g, prop, d):
    """``g`` grown along direction ``d`` through the cells of ``prop`` (Kogge-Stone):
    every cell reachable from ``g`` by steps along ``d`` over ``prop``."""
    m = len(T.mtag)
    k = _offset(T, d)
    # doubling steps so that 2**steps covers the longest line, 2m points
    steps = 1 if m == 1 else 2 if m == 2 else 3 if m <= 4 else 4
    for _ in range(steps):
        g = bb_or(g, bb_and(prop, bb_shift(g, k)))
        prop = bb_and(prop, bb_shift(prop, k))
        k = k * 2
    return g


@kernel(inline="always")
def _neighbours(T, g):
    """``g`` and the cells adjacent to it (and off-board bits, which callers mask away)."""
    out = g
    for d in range(6):
        out = bb_or(out, bb_shift(g, _offset(T, d)))
    return out


#: the line kernels the searches build on (search/alphabeta.py, search/knowledge.py),
#: under public names: the same kernels
offset, fill, neighbours = _offset, _fill, _neighbours


@kernel
def _flood(T, g, own):
    """The stones of ``own`` connected to ``g`` through adjacent stones of ``own``."""
    while True:
        grown = bb_and(_neighbours(T, g), own)
        if bb_eq(grown, g):
            return g
        g = grown


#: the group of a stone, under a public name for the searches (search/features.py)
flood = _flood


@kernel(inline="always")
def _gap_starts(T, own, empty, d):
    """The stones of ``own`` that see another stone of ``own`` in direction ``d`` through
    at least one empty point: the far ends of such gaps walked the other way."""
    back = d ^ 1
    reached = bb_and(_fill(T, own, empty, back), empty)
    return bb_and(bb_shift(reached, _offset(T, back)), own)


@kernel(inline="always")
def _first_stone(T, cell, d, occupied):
    """The first occupied cell beyond ``cell`` in direction ``d`` (-1 or 64 w if none)."""
    ahead = bb_and(bb_load(T.rays[d], cell, T.zero), occupied)
    if _offset(T, d) > 0:
        return bb_lowest(ahead)
    return bb_highest(ahead)


# --- rules ---------------------------------------------------------------------------------
@kernel
def count(st, c):
    """Number of stones of colour ``c``."""
    k = 0
    for i in range(st.shape[1]):
        x = st[c, i]
        while x:
            x &= x - np.uint64(1)
            k += 1
    return k


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
def legal_bb(T, st, side):
    """The legal cells of the player to move, as a bitboard.

    Normal phase: an empty point whose first stone along some line is friendly, i.e. the
    empty points reached from a friendly stone through empty points.  Second stone: those
    not adjacent to the single friendly stone.  First stone: any empty point.
    """
    ph = phase(st, side)
    own = bb_load(st, side, T.zero)
    empty = bb_andnot(T.full, bb_or(own, bb_load(st, 1 - side, T.zero)))
    if ph == PH_LOST:
        return T.zero
    if ph == PH_FIRST:
        return empty
    seen = T.zero
    for d in range(6):
        seen = bb_or(seen, bb_shift(_fill(T, own, empty, d), _offset(T, d)))
    seen = bb_and(seen, empty)
    if ph == PH_SECOND:
        seen = bb_andnot(seen, _neighbours(T, own))
    return seen


@kernel
def legal_moves(T, st, side, out):
    """Write the legal cells of the player to move into ``out`` (increasing); return how
    many."""
    moves = legal_bb(T, st, side)
    k = 0
    while bb_any(moves):
        out[k] = bb_lowest(moves)
        k += 1
        moves = bb_clear_lowest(moves)
    return k


@kernel
def dead_bb(T, st, color):
    """The stones of ``color``'s dead groups, as a bitboard.  A group is alive when one of
    its stones sees a friendly stone of another group along a line through at least one
    empty point; a player whose stones form one group has it dead."""
    own = bb_load(st, color, T.zero)
    occupied = bb_or(own, bb_load(st, 1 - color, T.zero))
    empty = bb_andnot(T.full, occupied)
    # per direction, the stones where a gap to a friendly stone starts: every path has
    # its two ends among them, so a group without any is dead
    starts = (
        _gap_starts(T, own, empty, 0), _gap_starts(T, own, empty, 1),
        _gap_starts(T, own, empty, 2), _gap_starts(T, own, empty, 3),
        _gap_starts(T, own, empty, 4), _gap_starts(T, own, empty, 5),
    )
    ends = bb_or(bb_or(bb_or(starts[0], starts[1]), bb_or(starts[2], starts[3])), bb_or(starts[4], starts[5]))
    dead = T.zero
    rest = own
    while bb_any(rest):
        g = _flood(T, bb_bit(T.zero, bb_lowest(rest)), own)
        if bb_eq(g, own):
            return own  # one group: no other group to have a path to
        rest = bb_andnot(rest, g)
        alive = False
        if bb_any(bb_and(g, ends)):
            # a gap is a path unless it leads back into the group itself
            for d in range(6):
                todo = bb_and(g, starts[d])
                while bb_any(todo) and not alive:
                    other = _first_stone(T, bb_lowest(todo), d, occupied)
                    alive = not bb_test(g, other)
                    todo = bb_clear_lowest(todo)
                if alive:
                    break
        if not alive:
            dead = bb_or(dead, g)
    return dead


@kernel
def group_labels(T, st, color, label):
    """Label ``color``'s groups: ``label[cell]`` = group number for each of its stones
    (other entries untouched), numbered from 0 in order of their lowest cell.  Returns
    the number of groups."""
    own = bb_load(st, color, T.zero)
    rest = own
    ng = 0
    while bb_any(rest):
        g = _flood(T, bb_bit(T.zero, bb_lowest(rest)), own)
        rest = bb_andnot(rest, g)
        while bb_any(g):
            label[bb_lowest(g)] = ng
            g = bb_clear_lowest(g)
        ng += 1
    return ng


@kernel
def play(T, st, side, cell):
    """Place ``side``'s stone on ``cell`` (assumed legal), then remove the mover's own
    dead groups unless it was their first stone.  Changes ``st``; returns ``(lost,
    removed)``: whether the mover has no stones left (and so has lost), and the removed
    stones as a bitboard."""
    first = count(st, side) == 0
    own = bb_or(bb_load(st, side, T.zero), bb_bit(T.zero, cell))
    bb_store(st, side, own)
    if first:
        return False, T.zero
    removed = dead_bb(T, st, side)
    own = bb_andnot(own, removed)
    bb_store(st, side, own)
    return not bb_any(own), removed


@kernel
def outcome(T, st, side):
    """The result of the position as it stands: NO_RESULT, or the winner's colour.

    The player to move wins if they have two or more stones and the opponent none (the
    opponent's last placement removed their last group).  The player to move loses if
    they have no stones while the opponent has two or more, or have stones but no legal
    placement.  Repetition is a property of a game, not of a position: see Game."""
    own = count(st, side)
    opp = count(st, 1 - side)
    if own >= 2 and opp == 0:
        return side
    if own == 0 and opp >= 2:
        return 1 - side
    if own > 0 and not bb_any(legal_bb(T, st, side)):
        return 1 - side
    return NO_RESULT


@kernel
def live_moves_bb(T, st, side):
    """The move generator of every search: the moves of a position as a bitboard, none
    once the game is over.  These are :func:`legal_bb`'s, except that a player to move
    who has already won (two or more stones, the opponent none) has none."""
    if count(st, side) >= 2 and count(st, 1 - side) == 0:
        return T.zero
    return legal_bb(T, st, side)


# --- keys and symmetry -----------------------------------------------------------------
@kernel
def zobrist_keys(T, st, side, out):
    """Write the Zobrist key of the position under each symmetry into ``out``: ``out[s]``
    is the key of the position mapped by symmetry ``s``, so ``out.min()`` is shared by
    all symmetric positions."""
    zob = T.zobrist
    ns = zob.shape[0]
    for s in range(ns):
        out[s] = T.zobrist_side if side == 1 else np.uint64(0)
    for c in range(2):
        x = bb_load(st, c, T.zero)
        while bb_any(x):
            cell = bb_lowest(x)
            x = bb_clear_lowest(x)
            for s in range(ns):
                out[s] ^= zob[s, c, cell]


@kernel
def transform(T, s, st, out):
    """Write the position ``st`` mapped by symmetry number ``s`` into ``out``."""
    sym = T.sym[s]
    for c in range(2):
        x = bb_load(st, c, T.zero)
        y = T.zero
        while bb_any(x):
            y = bb_or(y, bb_bit(T.zero, sym[bb_lowest(x)]))
            x = bb_clear_lowest(x)
        bb_store(out, c, y)


# --- whole trees and games -------------------------------------------------------------
@kernel
def perft(T, st0, side, depth, stack, todo):
    """Count the leaves of the move tree ``depth`` plies deep; a finished position counts
    0 at depth >= 1.  Scratch: ``stack`` uint64 (2 * (depth + 1), w) for the positions,
    ``todo`` uint64 (depth, w) for the moves left at each level."""
    if depth == 0:
        return 1
    for c in range(2):
        bb_store(stack, c, bb_load(st0, c, T.zero))
    bb_store(todo, 0, live_moves_bb(T, stack[0:2], side))
    total = 0
    level = 0
    while level >= 0:
        moves = bb_load(todo, level, T.zero)
        if not bb_any(moves):
            level -= 1
            side = 1 - side
            continue
        cell = bb_lowest(moves)
        bb_store(todo, level, bb_clear_lowest(moves))
        child = stack[2 * level + 2: 2 * level + 4]
        for c in range(2):
            bb_store(child, c, bb_load(stack, 2 * level + c, T.zero))
        lost, _ = play(T, child, side, cell)
        if level + 1 == depth:
            total += 1
        elif not lost:
            level += 1
            side = 1 - side
            bb_store(todo, level, live_moves_bb(T, child, side))
    return total


def run_perft(board: Board, st: np.ndarray, side: int, depth: int) -> int:
    """:func:`perft` with its scratch allocated."""
    t = tables(board)
    stack = np.zeros((2 * (depth + 1), t.w), np.uint64)
    todo = np.zeros((max(depth, 1), t.w), np.uint64)
    return perft(t, st, side, depth, stack, todo)


@kernel
def _splitmix(state):
    """One step of splitmix64 on a one-element uint64 array; returns the next output."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def random_playout(T, st, side, rng, max_plies):
    """Play uniformly random legal moves from ``st`` (changed in place) until the game
    ends or ``max_plies`` moves were made.  ``rng`` is a one-element uint64 splitmix64
    state.  Repetitions are not tracked; a game cut at ``max_plies`` counts as DRAW.
    Returns (result, plies)."""
    plies = 0
    while True:
        moves = live_moves_bb(T, st, side)
        k = bb_popcount(moves)
        if k == 0:
            if count(st, side) >= 2 and count(st, 1 - side) == 0:
                return side, plies
            return 1 - side, plies
        if plies >= max_plies:
            return DRAW, plies
        for _ in range(int(_splitmix(rng) % np.uint64(k))):
            moves = bb_clear_lowest(moves)
        plies += 1
        lost, _ = play(T, st, side, bb_lowest(moves))
        if lost:
            return 1 - side, plies
        side = 1 - side


@kernel
def run_playouts(T, st0, side, rng, games, max_plies, stats, st):
    """Play ``games`` random playouts from ``st0``, using ``st`` as scratch; add to
    ``stats`` (int64, 4): Light wins, Dark wins, draws (cut at ``max_plies``), plies."""
    for _ in range(games):
        for c in range(2):
            bb_store(st, c, bb_load(st0, c, T.zero))
        r, plies = random_playout(T, st, side, rng, max_plies)
        stats[r] += 1
        stats[3] += plies


def _drop_stale_cache() -> None:
    """Empty the numba cache of every kernel module when any kernel source changed.

    numba marks a cached kernel stale only when the file that defines it changes; but a
    kernel compiles in the kernels it calls from other files (the bitboard intrinsics of
    bits.py, the rules of this file, the settled rule of search/knowledge.py inside
    df-pn), so a change there alone would run old code.  A stamp of all of them (this
    file, bits.py and the solver/search/*.py that define kernels, read as files: nothing
    above is imported) beside the cache catches that.  Runs at import, before any kernel loads its cache.
    """
    import hashlib
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    search = os.path.join(os.path.dirname(here), "search")
    sources = [os.path.join(here, "bits.py"), os.path.join(here, "core.py")]
    try:
        sources += sorted(os.path.join(search, n) for n in os.listdir(search) if n.endswith(".py"))
    except OSError:
        pass  # no search package beside us: the rules alone
    digest = hashlib.sha256()
    for path in sources:
        try:
            with open(path, "rb") as f:
                text = f.read()
        except OSError:
            continue  # a file gone since the listing: the stamp differs, the cache goes
        if b"@kernel" in text or path.endswith(("bits.py", "core.py")):
            # only files that define kernels: an edit of prove.py recompiles nothing
            digest.update(os.path.basename(path).encode() + b"\0" + text)
    stamp = digest.hexdigest()
    cache_dir = getattr(getattr(legal_bb, "_cache", None), "_cache_path", None)
    if cache_dir is None:
        return  # caching is off: kernels compile in memory, nothing can be stale
    stamp_file = os.path.join(cache_dir, "core.sources-stamp")
    try:
        with open(stamp_file) as f:
            if f.read().strip() == stamp:
                return
    except OSError:
        pass  # no stamp yet: treat the cache as stale
    try:
        # the search modules cache in their own __pycache__ beside this one's (or, with
        # NUMBA_CACHE_DIR, in the folder named after theirs)
        if os.path.basename(cache_dir) == "__pycache__":
            search_cache = os.path.join(os.path.dirname(os.path.dirname(cache_dir)), "search", "__pycache__")
        else:
            search_cache = os.path.join(os.path.dirname(cache_dir), "search")
        for folder in (cache_dir, search_cache):
            try:
                names = os.listdir(folder)
            except FileNotFoundError:
                continue
            for name in names:
                if name.endswith((".nbi", ".nbc")):
                    try:
                        os.unlink(os.path.join(folder, name))
                    except FileNotFoundError:
                        pass  # another process got there first
        tmp = f"{stamp_file}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(stamp + "\n")
        os.replace(tmp, stamp_file)
    except OSError:
        pass  # a read-only cache folder: numba will not write there either


def _lock_cache_saves() -> None:
    """Make numba's cache saves one at a time across processes (an exclusive ``flock``
    on ``<index>.lock`` around each).

    numba saves a compiled kernel by reading the kernel's index, adding an entry and
    writing the index back, then writing the code to the file the entry names.  Two
    processes that save different signatures of one kernel (two boards) at the same
    moment can both read the same index and pick the same file name: one's entry then
    names the other's code, which a later process loads for the wrong board.  Parallel
    tests, match workers and pie processes share one cache, so the save is serialised;
    loads need no lock (files are replaced whole, a missing file is a recompile).
    """
    try:
        import fcntl
        from numba.core.caching import IndexDataCacheFile
    except ImportError:  # not POSIX, or numba's internals moved: saves stay as numba makes them
        return
    save = IndexDataCacheFile.save
    if getattr(save, "locked_across_processes", False):
        return

    def locked_save(self, key, data):
        try:
            lock = open(self._index_path + ".lock", "a")
        except OSError:  # a read-only cache folder: numba's save will not write either
            return save(self, key, data)
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return save(self, key, data)

    locked_save.locked_across_processes = True
    IndexDataCacheFile.save = locked_save


_lock_cache_saves()
_drop_stale_cache()
