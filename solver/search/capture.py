"""Capture within N: can the side to move force the capture of a target group?

The question is a position, the side to move X, a target stone of the opponent Y, and
N.  The target group is the group holding the target stone (groups only grow or
vanish).  X plays, Y replies, and so on, X making at most N moves.  X succeeds at the
first moment the target group is gone: the engine formulation of RULES.md removes a
player's dead groups right after that player's own placement, so the target can only
disappear right after one of Y's placements; if Y has no legal placement, Y has lost and
the target counts as captured.  X fails if X loses first (X's own placement removes X's
last stones) or if a position of the line repeats one before it (a draw).  Capture is
checked before repetition: the goal is the capture, and it ends the line.

>>> from solver import Position
>>> pos = Position.parse("3/1L2/5/4D1/4L/1L2/3 L")   # a Light stone between two Dark
>>> capture_within(pos, "d5", 1)
False

Puzzles built on this search (the key, the main line, duals, scoring) are in
:mod:`puzzles.verdict`; its slow twin on the networkx rules is :mod:`puzzles.reference`.

**Search.**  A compiled AND/OR search over every legal move at every ply, depth-first,
with a table of proven bounds ("succeeds within k X-moves", "fails within k") and one
exact cut:

*Safe targets.*  A *segment* of the target group T is a line from one of its stones
through one or more empty points to a stone of another Y group (its *partner*): exactly
a path of T (RULES.md).  A *fresh line* is a line from a stone of T whose two nearest
points are empty, the second not touching T: Y placing there makes a new path.  Take m
*items*, segments and fresh lines, whose points (a segment's empty points; a fresh
line's two points) are pairwise disjoint, and give each a *reserve*: empty points
adjacent to the partner group (for a fresh line, to its second point), not touching T,
not on any segment or fresh line of T, and not in another item's reserve.  Y's answer
to each X move: place on the second point of a fresh line X has not touched (legal: it
sees T through the first point), or else on a free reserve point of a surviving item
(legal: it touches a Y stone).  Neither fills a point of another item or touches T, and
no group that keeps T alive can be removed (a partner has a path to T).  An X stone
takes a point of at most one item, or a reserve point, and X's own removals only free
points.  Y may also answer on a *common* reserve point: a liberty of T that touches no
other Y stone, no fresh line's second point and no reserve point, and is on no item
(joining T there changes no item).  So at Y's j-th answer, if X has cut c items, at
least m - c items survive, and their reserves with the common one have lost at most
(j - c) points to X and j - 1 to Y.  When, for every j <= k and c <= j, the m - c smallest reserves and the common
one hold more than (j - c) + (j - 1) points, Y always has an answer and T has a path
after each of them: X cannot capture T within k moves (m >= k + 1, so an item
survives).  If X's move touches no item, reserve or liberty of T, it is *wasted*: the
same count with c <= j - 1 and one X stone fewer on the reserves shows that X fails
with the remaining k - 1 moves as soon as m >= k, so only the moves that touch need a
search.

*Last reply.*  When Y makes the last reply (no X move follows), T survives if it has a
segment and Y has a legal point off its segments and not touching it; the search then
stops without trying the replies one by one.

**Exactness of the table.**  A failure is stored only when no repetition on the path
decided any part of it (a *clean* failure holds on every path, since repetitions only
add draws).  A success is stored, and reused, only when neither the path to the
position nor the success below it removed any stone before the capture: then every
position above has fewer stones and every position below more, so no line through the
entry can repeat a position.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from solver import Position
from solver.rules import core
from solver.rules.bits import (
    bb_and, bb_andnot, bb_any, bb_bit, bb_clear_lowest, bb_highest, bb_load, bb_lowest,
    bb_or, bb_popcount, bb_store, bb_test,
)
from solver.rules.core import kernel
from solver.util.errors import MeridiansError
from solver.search.limit import MAX_CAPTURE_N, Limit, check_limit
from solver.search.memory import zeroed
from solver.search.path import enter_child, repeats
from solver.search.result import Result
from solver.search.values import Value

__all__ = ["CaptureError", "CaptureSearch", "capture_within", "search", "check_n", "forget", "new_capture", "MAX_N",
           "capture_limit", "DEFAULT_TT_MB"]

#: the table size of a capture search whose Limit gives none, in MiB
DEFAULT_TT_MB = 16

#: the most X-moves a search takes
MAX_N = MAX_CAPTURE_N
_MAXP = 2 * MAX_N + 2

# result bits of the search kernels
SUCC = 1      # X forces the capture within the moves left
TAINT = 2     # a failure that depended on a repetition on the path
MIDREM = 4    # a success whose line removed stones before the capture
ABORT = 8     # the node budget ran out: nothing is known

# stats slots
NODES, TT_HITS, PRUNED, ABORTED = 0, 1, 2, 3

_NO_SUCC = 127


class CaptureError(MeridiansError):
    """A capture question that cannot be posed: the target is not a point of the board
    or holds no stone of the defender, the game is over, or N is out of range.  Both
    the fast search and its reference twin (:mod:`puzzles.reference`) raise it."""


class Capture(NamedTuple):
    """The arrays of one capture search (reusable across targets of one board)."""

    stack: np.ndarray        # uint64 (2 * _MAXP, w): positions on the path
    path_keys: np.ndarray    # uint64 (_MAXP,): their identity keys (for repeats)
    keys: np.ndarray         # uint64 (_MAXP, 4): keys under each symmetry (child_keys)
    removals: np.ndarray     # int32 (_MAXP,): placements that removed stones, root to ply
    # the table: an all-zero slot is empty, so that it comes from memory.zeroed and costs
    # only the pages a search writes (see _slot for the encoding)
    tt_key: np.ndarray       # uint64 (size,): identity key xor the target's salt
    tt_succ: np.ndarray      # int8 (size,): 127 - (succeeds within this many X-moves); 0 none
    tt_fail: np.ndarray      # int8 (size,): 1 + (fails within this many X-moves); 0 none
    tt_move: np.ndarray      # int16 (size,): 1 + the move that succeeded; 0 none
    stats: np.ndarray        # int64 (4,): NODES, TT_HITS, PRUNED, ABORTED
    limits: np.ndarray       # int64 (3,): node budget (0 none), use the table, use the cut
    salt: np.ndarray         # uint64 (1,): xor-ed into keys, one per target
    adj: np.ndarray          # uint64 (64 w, w): the cells adjacent to each cell
    dirsign: np.ndarray      # int8 (6,): 1 where a ray's cells lie above its origin
    seg_between: np.ndarray  # uint64 (6 * 64 w, w): scratch, the empty points of segments
    seg_partner: np.ndarray  # int32 (6 * 64 w,): scratch, the partner stone of segments
    seg_acc: np.ndarray      # uint64 (3, w): scratch, union of segments' points; vision;
                             # the points a wasted X move avoids
    fresh: np.ndarray        # int32 (6 * 64 w, 2): scratch, fresh lines' two nearest points
    nfresh: np.ndarray       # int32 (1,): how many
    order: np.ndarray        # int32 (_MAXP + 3, 64 w): move lists per ply, three scratch rows
    killers: np.ndarray      # int32 (_MAXP,): the last refutation found at each ply


def new_capture(t: core.Tables, tt_mb: float = 16, max_nodes: int = 0,
                use_table: bool = True, use_cut: bool = True) -> Capture:
    """A verifier for the board of ``t`` with a table of at most ``tt_mb`` MiB."""
    size = 1
    while size * 2 * 12 <= tt_mb * 2**20:
        size *= 2
    nbits = 64 * t.w
    adj = np.zeros((nbits, t.w), np.uint64)
    for d in range(6):
        for x in range(nbits):
            ray = t.rays[d, x]
            if not ray.any():
                continue
            # the nearest cell of the ray: lowest or highest set bit, by the ray's direction
            bits = [i * 64 + b for i in range(t.w) for b in range(64) if int(ray[i]) >> b & 1]
            near = min(bits) if min(bits) > x else max(bits)
            adj[x, near >> 6] |= np.uint64(1) << np.uint64(near & 63)
    dirsign = np.zeros(6, np.int8)
    for d in range(6):
        for x in range(nbits):
            ray = t.rays[d, x]
            if ray.any():
                bits = [i * 64 + b for i in range(t.w) for b in range(64) if int(ray[i]) >> b & 1]
                dirsign[d] = 1 if min(bits) > x else 0
                break
    return Capture(
        np.zeros((2 * _MAXP, t.w), np.uint64), np.zeros(_MAXP, np.uint64),
        np.zeros((_MAXP, 4), np.uint64), np.zeros(_MAXP, np.int32),
        *_table(size), np.zeros(4, np.int64),
        np.array([max_nodes, int(use_table), int(use_cut)], np.int64), np.zeros(1, np.uint64),
        adj, dirsign, np.zeros((6 * nbits, t.w), np.uint64), np.zeros(6 * nbits, np.int32),
        np.zeros((3, t.w), np.uint64), np.zeros((6 * nbits, 2), np.int32), np.zeros(1, np.int32),
        np.zeros((_MAXP + 3, nbits), np.int32),
        np.full(_MAXP, -1, np.int32),
    )


def _table(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """An empty table of ``size`` slots (all zeros: its pages are mapped as written)."""
    return zeroed(size, np.uint64), zeroed(size, np.int8), zeroed(size, np.int8), zeroed(size, np.int16)


# --- geometry of the target ----------------------------------------------------------------
@kernel
def _around(T, S, g):
    """The cells adjacent to the stones of ``g`` (not ``g`` itself unless adjacent)."""
    out = T.zero
    x = g
    while bb_any(x):
        out = bb_or(out, bb_load(S.adj, bb_lowest(x), T.zero))
        x = bb_clear_lowest(x)
    return out


@kernel
def _group(T, S, own, cell):
    """The group of ``own`` holding ``cell``."""
    g = bb_bit(T.zero, cell)
    todo = g
    while bb_any(todo):
        c = bb_lowest(todo)
        todo = bb_clear_lowest(todo)
        new = bb_andnot(bb_and(bb_load(S.adj, c, T.zero), own), g)
        g = bb_or(g, new)
        todo = bb_or(todo, new)
    return g


@kernel
def _fresh(T, S, cells, d):
    """Record the two cells of ``cells`` (empty points along direction ``d`` from the
    target) nearest the target: Y placing on the second makes a new path."""
    if S.dirsign[d]:
        c1 = bb_lowest(cells)
        c2 = bb_lowest(bb_clear_lowest(cells))
    else:
        c1 = bb_highest(cells)
        c2 = bb_highest(bb_andnot(cells, bb_bit(T.zero, c1)))
    i = S.nfresh[0]
    S.fresh[i, 0] = c1
    S.fresh[i, 1] = c2
    S.nfresh[0] = i + 1


@kernel
def _segments(T, S, st, y, g):
    """The segments of ``y``'s group ``g``: their empty points into ``S.seg_between``,
    their partner stones into ``S.seg_partner``; ``S.seg_acc[0]`` = the union of their
    points, ``S.seg_acc[1]`` = every empty point ``g`` sees along a line.  Returns how
    many."""
    own = bb_load(st, y, T.zero)
    occ = bb_or(own, bb_load(st, 1 - y, T.zero))
    n = 0
    S.nfresh[0] = 0
    union = T.zero
    vision = T.zero
    x = g
    while bb_any(x):
        t = bb_lowest(x)
        x = bb_clear_lowest(x)
        for d in range(6):
            ray = bb_load(T.rays[d], t, T.zero)
            ahead = bb_and(ray, occ)
            if not bb_any(ahead):
                vision = bb_or(vision, ray)
                if bb_popcount(ray) >= 2:
                    _fresh(T, S, ray, d)
                continue
            f = bb_lowest(ahead) if S.dirsign[d] else bb_highest(ahead)
            between = bb_andnot(bb_andnot(ray, bb_load(T.rays[d], f, T.zero)), bb_bit(T.zero, f))
            vision = bb_or(vision, between)
            if bb_any(between) and bb_test(own, f) and not bb_test(g, f):
                bb_store(S.seg_between, n, between)
                S.seg_partner[n] = f
                union = bb_or(union, between)
                n += 1
            elif bb_popcount(between) >= 2:
                _fresh(T, S, between, d)
    bb_store(S.seg_acc, 0, union)
    bb_store(S.seg_acc, 1, vision)
    return n


@kernel
def _safe(T, S, st, y, g, k):
    """How surely T = ``g`` survives ``k`` more X-moves, by disjoint *items* (segments
    and fresh lines) with disjoint reserves large enough (module text): 2 whatever X
    plays, 1 if X's next move is *wasted* (touches none of the points left in
    ``S.seg_acc[2]``), else 0.  Leaves the target's segments in ``S.seg_acc[0:2]``
    (:func:`_segments`)."""
    n = _segments(T, S, st, y, g)
    nf = S.nfresh[0]
    if n + nf < k:
        return 0
    own = bb_load(st, y, T.zero)
    empty = bb_andnot(T.full, bb_or(own, bb_load(st, 1 - y, T.zero)))
    near_t = _around(T, S, g)
    # every point of every item: no reserve point may lie on one
    blocked = bb_or(bb_load(S.seg_acc, 0, T.zero), near_t)
    for i in range(nf):
        blocked = bb_or(blocked, bb_bit(T.zero, S.fresh[i, 0]))
        blocked = bb_or(blocked, bb_bit(T.zero, S.fresh[i, 1]))
    # shortest segments first: they leave the most room for the others
    idx = S.order[_MAXP]       # spare rows of the move lists serve as scratch
    size = S.order[_MAXP + 1]
    res = S.order[_MAXP + 2]
    for i in range(n):
        idx[i] = i
        size[i] = bb_popcount(bb_load(S.seg_between, i, T.zero))
    for i in range(1, n):
        j = i
        while j > 0 and size[idx[j - 1]] > size[idx[j]]:
            idx[j - 1], idx[j] = idx[j], idx[j - 1]
            j -= 1
    taken = T.zero
    assigned = T.zero  # reserve points already given to an item: reserves are disjoint
    zone = blocked     # items, every candidate reserve and the points next to T
    m = 0
    for ii in range(n):
        i = idx[ii]
        between = bb_load(S.seg_between, i, T.zero)
        if bb_any(bb_and(between, taken)):
            continue
        z = _group(T, S, own, S.seg_partner[i])
        reserve = bb_andnot(bb_andnot(bb_and(_around(T, S, z), empty), blocked), assigned)
        zone = bb_or(zone, bb_and(_around(T, S, z), empty))
        taken = bb_or(taken, between)
        assigned = bb_or(assigned, reserve)
        res[m] = bb_popcount(reserve)
        m += 1
    for i in range(nf):
        c1 = S.fresh[i, 0]
        c2 = S.fresh[i, 1]
        if bb_test(taken, c1) or bb_test(taken, c2) or bb_test(near_t, c2):
            continue
        reserve = bb_andnot(bb_andnot(bb_and(bb_load(S.adj, c2, T.zero), empty), blocked), assigned)
        zone = bb_or(zone, bb_and(bb_load(S.adj, c2, T.zero), empty))
        taken = bb_or(taken, bb_or(bb_bit(T.zero, c1), bb_bit(T.zero, c2)))
        assigned = bb_or(assigned, reserve)
        res[m] = bb_popcount(reserve)
        m += 1
    # a common reserve: liberties of T that touch no other Y stone, no fresh line's second
    # point and no reserve point, on no item: Y joining T there changes no item
    items = bb_load(S.seg_acc, 0, T.zero)
    c2s = T.zero
    for i in range(nf):
        items = bb_or(items, bb_bit(T.zero, S.fresh[i, 0]))
        items = bb_or(items, bb_bit(T.zero, S.fresh[i, 1]))
        c2s = bb_or(c2s, bb_bit(T.zero, S.fresh[i, 1]))
    common = bb_andnot(bb_and(near_t, empty), items)
    common = bb_andnot(common, _around(T, S, bb_andnot(own, g)))
    common = bb_andnot(common, _around(T, S, c2s))
    common = bb_andnot(common, _around(T, S, bb_andnot(zone, blocked)))
    pool = bb_popcount(common)
    bb_store(S.seg_acc, 2, zone)
    if m < k:
        return 0
    # reserves in increasing order
    for i in range(1, m):
        j = i
        while j > 0 and res[j - 1] > res[j]:
            res[j - 1], res[j] = res[j], res[j - 1]
            j -= 1
    if m >= k + 1 and _enough(res, m, k, pool, 0):
        return 2
    return 1 if _enough(res, m, k, pool, 1) else 0


@kernel
def _enough(res, m, k, pool, waste):
    """Whether the ``m`` items with reserves ``res`` (increasing) and the common reserve
    ``pool`` hold out for ``k`` X-moves (the first wasted with ``waste``): try the items
    with the largest reserves, as many as there are down to k + 1 - waste."""
    for use in range(m, k - waste, -1):
        lo = m - use  # the items used are res[lo:m]
        ok = True
        for j in range(1, k + 1):
            for c in range(0, j + 1 - waste):
                # X cut c items (the ones with the largest reserves) and put j - c
                # stones (j - c - 1 after a wasted first move) on reserve points; Y put
                # j - 1 stones there
                left = pool
                for r in range(lo, lo + use - c):
                    left += res[r]
                if left - (j - c - waste) - (j - 1) < 1:
                    ok = False
                    break
            if not ok:
                break
        if ok:
            return True
    return False


# --- the table -----------------------------------------------------------------------------
# A slot holds its bounds shifted so that zero means "nothing known": an empty slot is
# zero in every field and a slot whose key is zero (one key in 2**64) reads as empty.
@kernel
def _slot(S, key):
    return int(key & np.uint64(S.tt_key.shape[0] - 1))


@kernel
def _succ(S, e):
    """Succeeds within this many X-moves (_NO_SUCC: not known)."""
    return _NO_SUCC - np.int64(S.tt_succ[e])


@kernel
def _fail(S, e):
    """Fails within this many X-moves (-1: not known)."""
    return np.int64(S.tt_fail[e]) - 1


@kernel
def _move(S, e):
    """The move that succeeded (-1: none)."""
    return np.int64(S.tt_move[e]) - 1


@kernel
def _store(S, key, succ, fail, move):
    e = _slot(S, key)
    if S.tt_key[e] != key:
        S.tt_key[e] = key
        S.tt_succ[e] = 0
        S.tt_fail[e] = 0
        S.tt_move[e] = 0
    if succ < _succ(S, e):
        S.tt_succ[e] = _NO_SUCC - succ
        S.tt_move[e] = move + 1
    if fail > _fail(S, e):
        S.tt_fail[e] = fail + 1


# --- move lists ----------------------------------------------------------------------------
@kernel
def _push(T, S, ply, n, cells, first):
    """Append the cells of ``cells`` (skipping ``first``) to the list of ``ply``."""
    while bb_any(cells):
        c = bb_lowest(cells)
        cells = bb_clear_lowest(cells)
        if c != first:
            S.order[ply, n] = c
            n += 1
    return n


@kernel
def _order(T, S, ply, moves, first, a, b, c):
    """The list of ``ply``: ``first`` if legal, then ``moves`` in ``a``, in ``b``, in
    ``c`` and the rest."""
    n = 0
    if first >= 0 and bb_test(moves, first):
        S.order[ply, 0] = first
        n = 1
    else:
        first = -1
    rest = moves
    for part in (a, b, c):
        sel = bb_and(rest, part)
        n = _push(T, S, ply, n, sel, first)
        rest = bb_andnot(rest, sel)
    return _push(T, S, ply, n, rest, first)


# --- the search ----------------------------------------------------------------------------
@kernel
def _enter(T, S, ply, side, cell):
    """The child of ``ply`` after ``side`` plays ``cell``, at ``ply + 1`` with its keys
    and removal count; returns ``(lost, removed_any)``."""
    lost, removed = enter_child(T, S, ply, side, cell)
    rem = bb_any(removed)
    S.removals[ply + 1] = S.removals[ply] + (1 if rem else 0)
    return lost, rem


@kernel
def node(T, S, ply, xturn, x, tgt, k):
    """The result bits of the node at ``ply``: X (colour ``x``) to move with ``k >= 1``
    moves left when ``xturn``, else Y to reply with ``k`` X-moves left after the reply.
    One self-recursive function whose recursive calls repeat its own argument types
    (no literal constants): otherwise numba's cache loads a kernel that crashes."""
    st = S.stack[2 * ply: 2 * ply + 2]
    S.stats[NODES] += 1
    if S.limits[0] > 0 and S.stats[NODES] > S.limits[0]:
        S.stats[ABORTED] = 1
        return ABORT
    key = S.keys[ply, 0]
    S.path_keys[ply] = key
    y = 1 - x
    own_y = bb_load(st, y, T.zero)
    g = _group(T, S, own_y, tgt)
    if xturn:
        tkey = key ^ S.salt[0]
        first = -1
        if S.limits[1]:
            e = _slot(S, tkey)
            if S.tt_key[e] == tkey:
                if _fail(S, e) >= k:
                    S.stats[TT_HITS] += 1
                    return 0
                if _succ(S, e) <= k and S.removals[ply] == 0:
                    S.stats[TT_HITS] += 1
                    return SUCC
                first = _move(S, e)
        moves = core.legal_bb(T, st, x)
        if S.limits[2]:
            level = _safe(T, S, st, y, g, k)  # also fills S.seg_acc[0:2]
            if level == 2:
                S.stats[PRUNED] += 1
                if S.limits[1]:
                    _store(S, tkey, _NO_SUCC, k, -1)
                return 0
            if level == 1:
                # a move away from the target's items and reserves is wasted: only the
                # others need a search
                moves = bb_and(moves, bb_load(S.seg_acc, 2, T.zero))
        else:
            _segments(T, S, st, y, g)
        # moves that cut a path of T first, then those on its lines, then those touching it
        n = _order(T, S, ply, moves, first, bb_load(S.seg_acc, 0, T.zero),
                   bb_load(S.seg_acc, 1, T.zero), _around(T, S, g))
        taint = False
        for i in range(n):
            cell = S.order[ply, i]
            lost, rem = _enter(T, S, ply, x, cell)
            if lost:
                continue  # X removed their own last stones: X has lost
            if repeats(S, ply + 1, S.stack[2 * ply + 2: 2 * ply + 4]):
                taint = True
                continue
            r = node(T, S, ply + 1, not xturn, x, tgt, k - 1)
            if r & ABORT:
                return ABORT
            if r & SUCC:
                mid = (r & MIDREM) != 0 or rem
                if S.limits[1] and not mid:
                    _store(S, tkey, k, -1, cell)
                return SUCC | (MIDREM if mid else 0)
            if r & TAINT:
                taint = True
        if taint:
            return TAINT
        if S.limits[1]:
            _store(S, tkey, _NO_SUCC, k, -1)
        return 0
    # Y to reply
    moves = core.legal_bb(T, st, y)
    if not bb_any(moves):
        return SUCC  # Y has stones but no legal placement: Y has lost
    nseg = _segments(T, S, st, y, g)
    union = bb_load(S.seg_acc, 0, T.zero)
    vision = bb_load(S.seg_acc, 1, T.zero)
    near = _around(T, S, g)
    if k == 0 and S.limits[2] and nseg > 0 and bb_any(bb_andnot(bb_andnot(moves, union), near)):
        S.stats[PRUNED] += 1
        return 0  # a quiet reply keeps a path of T: it survives the last reply
    # replies that give T a new path first, then those that join it
    n = _order(T, S, ply, moves, S.killers[ply], bb_andnot(vision, near), near, T.zero)
    mid = False
    for i in range(n):
        cell = S.order[ply, i]
        lost, rem = _enter(T, S, ply, y, cell)
        child = S.stack[2 * ply + 2: 2 * ply + 4]
        if lost:
            continue  # Y removed their own last stones
        if not bb_test(bb_load(child, y, T.zero), tgt):
            continue  # captured
        if k == 0:
            S.killers[ply] = cell
            return 0
        if repeats(S, ply + 1, child):
            S.killers[ply] = cell
            return TAINT
        r = node(T, S, ply + 1, not xturn, x, tgt, k)
        if r & ABORT:
            return ABORT
        if not (r & SUCC):
            S.killers[ply] = cell
            return r
        if rem or (r & MIDREM):
            mid = True
    return SUCC | (MIDREM if mid else 0)


def _first_move(T, S, x, tgt, cell, k) -> int:
    """The result bits of X's first move ``cell`` from ply 0 with ``k`` moves in all.
    Python calls the recursive kernel itself: a cached kernel that calls a recursive
    one crashes when loaded from numba's cache."""
    lost, _ = _enter(T, S, 0, x, cell)
    if lost:
        return 0
    return node(T, S, 1, False, x, tgt, k - 1)


@kernel
def _zone_at(T, S, ply, y, tgt):
    """(the points of the paths of ``y``'s group on ``tgt``, every point that touches
    it or lies on one of its lines): the moves a solver tries first."""
    st = S.stack[2 * ply: 2 * ply + 2]
    own = bb_load(st, y, T.zero)
    g = _group(T, S, own, tgt)
    _segments(T, S, st, y, g)
    segs = bb_load(S.seg_acc, 0, T.zero)
    zone = bb_or(bb_or(segs, bb_load(S.seg_acc, 1, T.zero)), _around(T, S, g))
    return segs, zone


def _x_at(T, S, ply, x, tgt, k) -> int:
    return node(T, S, ply, True, x, tgt, k)


def _y_at(T, S, ply, x, tgt, k) -> int:
    return node(T, S, ply, False, x, tgt, k)


# --- Python side ---------------------------------------------------------------------------
_VERIFIERS: dict = {}


def _verifier(position: Position, tt_mb: float, max_nodes: int, use_table: bool, use_cut: bool, tgt: int):
    t = core.tables(position.board)
    key = (position.board.m, tt_mb)
    S = _VERIFIERS.get(key)
    if S is None:
        S = new_capture(t, tt_mb)
        _VERIFIERS[key] = S
    S.limits[:] = (max_nodes, int(use_table), int(use_cut))
    S.stats[:] = 0
    S.killers[:] = -1
    # an entry means "X captures the group on tgt within k from this position", whatever
    # the search it was found in: the salt is the target's, so later searches for the
    # same target (capture_within, then a full verification) reuse what earlier ones proved
    S.salt[0] = np.uint64(((tgt + 1) * 0x9E3779B97F4A7C15) & (2**64 - 1))
    return t, S


def forget() -> None:
    """Empty the tables of this process's capture searches.

    Entries stay true from search to search, so keeping them is safe, but they change
    the order of search and so the nodes a later search needs: a caller that drops
    candidates over a node budget calls this before each candidate, so that what it
    keeps does not depend on what the same process searched before.

    Each table is replaced by a new empty one (its pages mapped as they are written),
    so that emptying costs what the searches wrote, not the table's size; a
    :class:`CaptureSearch` made before keeps the table it had."""
    for key, S in _VERIFIERS.items():
        _VERIFIERS[key] = S._replace(**dict(zip(("tt_key", "tt_succ", "tt_fail", "tt_move"),
                                                _table(S.tt_key.shape[0]))))


def _target(position: Position, target: str) -> tuple[int, int]:
    """(X colour, target cell) after checking the question can be posed."""
    board = position.board
    try:
        p = board.index(target)
    except ValueError as e:
        raise CaptureError(f"target: {e}") from None
    x = 0 if position.to_move == "L" else 1
    y_name = "D" if x == 0 else "L"
    if board.name_of(p) not in position.stones(y_name):
        what = "empty" if board.name_of(p) not in position.stones(position.to_move) else "a stone of the side to move"
        raise CaptureError(
            f"target {board.name_of(p)} is {what}: it must hold a stone of the defender "
            f"({'Dark' if y_name == 'D' else 'Light'})"
        )
    if position.outcome is not None:
        raise CaptureError(f"the game is over ({position.outcome_reason})")
    t = core.tables(board)
    return x, int(t.cell_of[p])


def _load(t, S, positions: list) -> None:
    """Put ``positions`` ((st, side) pairs, a line from the root) on the path."""
    out = np.empty(len(t.zobrist), np.uint64)
    total_before = None
    rem = 0
    for i, (st, side) in enumerate(positions):
        S.stack[2 * i: 2 * i + 2] = st
        core.zobrist_keys(t, st, side, out)
        S.keys[i, : len(out)] = out
        S.path_keys[i] = out[0]
        total = core.count(st, 0) + core.count(st, 1)
        if total_before is not None and total != total_before + 1:
            rem += 1
        S.removals[i] = rem
        total_before = total


def check_n(n: int) -> None:
    """Raise :class:`CaptureError` unless ``n`` is a whole number from 1 to :data:`MAX_N`."""
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_N:
        raise CaptureError(f"n must be a whole number of moves from 1 to {MAX_N}, not {n!r}")


def capture_limit(limit: Limit | None = None) -> Limit:
    """``limit`` (None: no node bound) with its table size filled in (:data:`DEFAULT_TT_MB`
    when it gives none).  A capture search counts nodes and has no clock: a Limit with
    ``seconds`` is refused (ValueError) rather than silently not kept."""
    limit = check_limit(limit)
    if limit.seconds is not None:
        raise ValueError("a capture search has no time limit: give its budget in nodes")
    if limit.tt_mb is None:
        limit = Limit(nodes=limit.nodes, tt_mb=DEFAULT_TT_MB)
    return limit


class CaptureSearch:
    """Capture searches for one target in one position (the *root*, X to move).

    A search runs from the last position of the *line* on the search path: the root,
    then positions after it (:meth:`load`), at most ``2 * MAX_N + 1`` of them.  Each
    answer is True (X forces the capture), False (not), or None when the node budget
    ran out (nothing is known then).  The table is this process's table for the board
    and ``tt_mb``, shared by every search of that board (:func:`forget` empties it).
    Raises :class:`CaptureError` when the question cannot be posed.

    ``limit`` is the budget (:func:`capture_limit`: nodes and table size, no seconds).
    """

    def __init__(self, position: Position, target: str, *, limit: Limit | None = None,
                 use_table: bool = True, use_cut: bool = True):
        limit = capture_limit(limit)
        self.root = position
        self.x, self._tgt = _target(position, target)
        self._t, self._S = _verifier(position, limit.tt_mb, limit.nodes, use_table, use_cut, self._tgt)
        self.limit = limit
        self.max_nodes = limit.nodes
        self.load([position])

    def load(self, line: list[Position]) -> None:
        """Put ``line`` (the root, then the positions after it) on the search path."""
        if len(line) > _MAXP - 1:
            raise CaptureError(f"a line of {len(line)} positions is longer than the {_MAXP - 1} a search holds")
        self._ply = len(line) - 1
        _load(self._t, self._S, [(p.array(), 0 if p.to_move == "L" else 1) for p in line])

    def _answer(self, r: int) -> bool | None:
        return None if r & ABORT else bool(r & SUCC)

    def captures(self, k: int) -> bool | None:
        """Whether X, to move at the end of the line, captures within ``k >= 1`` moves."""
        return self._answer(_x_at(self._t, self._S, self._ply, self.x, self._tgt, k))

    def captures_after_reply(self, k: int) -> bool | None:
        """Whether, Y to move at the end of the line, X captures within ``k >= 0`` more
        moves whatever Y replies (``k = 0``: every reply loses the target)."""
        return self._answer(_y_at(self._t, self._S, self._ply, self.x, self._tgt, k))

    def move_captures(self, move: str, k: int) -> bool | None:
        """Whether the first move ``move`` (legal at the root) captures within ``k``
        moves in all; the line on the path is left as the root alone."""
        self.load([self.root])
        cell = int(self._t.cell_of[self.root.board.index(move)])
        return self._answer(_first_move(self._t, self._S, self.x, self._tgt, cell, k))

    def target_zone(self) -> tuple[frozenset[str], frozenset[str]]:
        """At the root: (the empty points on the target group's paths, every empty point
        on those paths, on the group's lines or touching it): the moves a solver
        tries first."""
        self.load([self.root])
        segs, zone = _zone_at(self._t, self._S, 0, 1 - self.x, self._tgt)
        board = self.root.board

        def names(bb) -> frozenset[str]:
            out = []
            for p in range(board.size):
                c = int(self._t.cell_of[p])
                if (int(bb[c >> 6]) >> (c & 63)) & 1:
                    out.append(board.name_of(p))
            return frozenset(out)

        return names(segs), names(zone)

    def target_gone(self, position: Position) -> bool:
        """Whether the target point holds no stone of the defender in ``position``."""
        st = position.array()
        c = self._tgt
        return not (int(st[1 - self.x, c >> 6]) >> (c & 63)) & 1

    def refutation(self, ply: int = 1) -> str | None:
        """The last defender reply that refuted an attacker move at ``ply`` (odd: a
        Y turn) in the searches since this one was made: the point of a Y move after
        which the search found no capture in the moves left (or only a repetition),
        for some X move before it; None when no reply was found to refute at ``ply``.
        It is the search's killer move (what it tries first at that ply next time),
        read after the search: nothing more is searched for it."""
        if not 0 <= ply < _MAXP:
            raise CaptureError(f"ply must be from 0 to {_MAXP - 1}, not {ply!r}")
        c = int(self._S.killers[ply])
        if c < 0:
            return None
        return self.root.board.name_of(int(self._t.point_of[c]))

    @property
    def nodes(self) -> int:
        """The nodes searched since the search was made (what the budget counts)."""
        return int(self._S.stats[NODES])

    @nodes.setter
    def nodes(self, value: int) -> None:
        self._S.stats[NODES] = value

    @property
    def node_limit(self) -> int:
        """The node count at which searches stop (0: none)."""
        return int(self._S.limits[0])

    @node_limit.setter
    def node_limit(self, value: int) -> None:
        self._S.limits[0] = value

    @property
    def aborted(self) -> bool:
        """Whether a search ran out of nodes (until :meth:`clear_aborted`)."""
        return bool(self._S.stats[ABORTED])

    def clear_aborted(self) -> None:
        self._S.stats[ABORTED] = 0


def capture_within(position: Position, target: str, n: int, limit: Limit | None = None) -> bool | None:
    """Whether the side to move forces the capture of ``target``'s group within ``n``
    moves (``None`` when the node budget ran out).  ``limit`` is the budget (nodes and
    table size, see :func:`capture_limit`).  Raises :class:`CaptureError` for a question
    that cannot be posed.

    >>> from solver import Position
    >>> capture_within(Position.parse("3/1L2/5/4D1/4L/1L2/3 L"), "d5", 2)
    False
    """
    check_n(n)
    return CaptureSearch(position, target, limit=capture_limit(limit)).captures(n)


def search(position: Position, limit: Limit | None = None, *, target: str, n: int) -> Result:
    """The capture question as every search answers: ``WIN`` when the side to move
    captures ``target``'s group within ``n`` moves, ``LOSS`` when it cannot, ``UNKNOWN``
    when the node budget ran out; ``best`` a first move that captures (the first in
    board order), ``nodes`` the nodes searched.

    >>> from solver import Position
    >>> r = search(Position.parse("3/1L2/5/4D1/4L/1L2/3 L"), target="d5", n=2)
    >>> r.value, r.method, r.best
    (<Value.LOSS: 'loss'>, 'capture', None)
    """
    check_n(n)
    s = CaptureSearch(position, target, limit=capture_limit(limit))
    t0 = time.perf_counter()
    answer = s.captures(n)
    value = Value.UNKNOWN if answer is None else Value.WIN if answer else Value.LOSS
    best = None
    if answer:
        best = next((m for m in position.legal_moves() if s.move_captures(m, n)), None)
    r = Result(str(position), value, "capture", nodes=s.nodes, seconds=time.perf_counter() - t0,
               line=[best] if best else [], best=best, stats={"target": target, "n": n})
    r.notes.append(f"X captures {target} within {n}" if answer else
                   f"X does not capture {target} within {n}" if answer is False else "the node budget ran out")
    return r
