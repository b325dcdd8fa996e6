"""Capture-in-N: the exact verifier.

A capture-in-N puzzle is a position, the side to move X, a target stone of the opponent
Y, and N.  The target group is the group holding the target stone (groups only grow or
vanish).  X plays, Y replies, and so on, X making at most N moves.  X succeeds at the
first moment the target group is gone: the engine formulation of RULES.md removes a
player's dead groups right after that player's own placement, so the target can only
disappear right after one of Y's placements; if Y has no legal placement, Y has lost and
the target counts as captured.  X fails if X loses first (X's own placement removes X's
last stones) or if a position of the line repeats one before it (a draw).  Capture is
checked before repetition: the goal is the capture, and it ends the line.

The puzzle is **sound** when exactly one first move (the key) forces success within N
X-moves against every defence and no first move forces it within N-1.

>>> from solver import Position
>>> pos = Position.parse("3/1L2/5/4D1/4L/1L2/3 L")   # a Light stone between two Dark
>>> v = verify(pos, "d5", 1)
>>> v.keys, v.shorter, v.sound
([], [], False)

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
from solver import core
from solver.bits import (
    bb_and, bb_andnot, bb_any, bb_bit, bb_clear_lowest, bb_highest, bb_load, bb_lowest,
    bb_or, bb_popcount, bb_store, bb_test,
)
from solver.core import kernel
from solver.search.path import enter_child, repeats

__all__ = ["verify", "Verdict", "CaptureError", "capture_within", "forget", "new_capture", "MAX_N"]

#: the longest puzzle the verifier takes (X-moves)
MAX_N = 8
_MAXP = 2 * MAX_N + 2

# result bits of the search kernels
SUCC = 1      # X forces the capture within the moves left
TAINT = 2     # a failure that depended on a repetition on the path
MIDREM = 4    # a success whose line removed stones before the capture
ABORT = 8     # the node budget ran out: nothing is known

# stats slots
NODES, TT_HITS, PRUNED, ABORTED = 0, 1, 2, 3

_NO_SUCC = 127


class CaptureError(ValueError):
    """A puzzle that cannot be posed: no stone of the defender on the target, a finished
    game, or an N outside 1..MAX_N."""


class Capture(NamedTuple):
    """The arrays of one verifier (reusable across puzzles of one board)."""

    stack: np.ndarray        # uint64 (2 * _MAXP, w): positions on the path
    path_keys: np.ndarray    # uint64 (_MAXP,): their identity keys (for repeats)
    keys: np.ndarray         # uint64 (_MAXP, 4): keys under each symmetry (child_keys)
    removals: np.ndarray     # int32 (_MAXP,): placements that removed stones, root to ply
    tt_key: np.ndarray       # uint64 (size,): identity key xor the puzzle's salt
    tt_succ: np.ndarray      # int8 (size,): succeeds within this many X-moves, 127 none
    tt_fail: np.ndarray      # int8 (size,): fails within this many X-moves, -1 none
    tt_move: np.ndarray      # int16 (size,): the move that succeeded, -1 none
    stats: np.ndarray        # int64 (4,): NODES, TT_HITS, PRUNED, ABORTED
    limits: np.ndarray       # int64 (3,): node budget (0 none), use the table, use the cut
    salt: np.ndarray         # uint64 (1,): xor-ed into keys, new for every puzzle
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
        np.zeros(size, np.uint64), np.full(size, _NO_SUCC, np.int8), np.full(size, -1, np.int8),
        np.full(size, -1, np.int16), np.zeros(4, np.int64),
        np.array([max_nodes, int(use_table), int(use_cut)], np.int64), np.zeros(1, np.uint64),
        adj, dirsign, np.zeros((6 * nbits, t.w), np.uint64), np.zeros(6 * nbits, np.int32),
        np.zeros((3, t.w), np.uint64), np.zeros((6 * nbits, 2), np.int32), np.zeros(1, np.int32),
        np.zeros((_MAXP + 3, nbits), np.int32),
        np.full(_MAXP, -1, np.int32),
    )


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
@kernel
def _slot(S, key):
    return int(key & np.uint64(S.tt_key.shape[0] - 1))


@kernel
def _store(S, key, succ, fail, move):
    e = _slot(S, key)
    if S.tt_key[e] != key:
        S.tt_key[e] = key
        S.tt_succ[e] = _NO_SUCC
        S.tt_fail[e] = -1
        S.tt_move[e] = -1
    if succ < S.tt_succ[e]:
        S.tt_succ[e] = succ
        S.tt_move[e] = move
    if fail > S.tt_fail[e]:
        S.tt_fail[e] = fail


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
                if S.tt_fail[e] >= k:
                    S.stats[TT_HITS] += 1
                    return 0
                if S.tt_succ[e] <= k and S.removals[ply] == 0:
                    S.stats[TT_HITS] += 1
                    return SUCC
                first = S.tt_move[e]
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
class Verdict(NamedTuple):
    """What the verifier found for one puzzle."""

    keys: list          # first moves forcing the capture within n (names, board order)
    shorter: list       # first moves forcing it within n - 1
    sound: bool         # exactly one key and no shorter solution
    line: list          # key, longest defence and X's answers (sound puzzles only)
    dual_free: bool     # X's move is unique at every later X turn of the line
    duals: list         # (ply, moves) where X had more than one move that works
    tempting: int       # natural tries that fail: first moves on the target's paths or
                        # lines or touching it
    quiet: bool         # the key cuts none of the target's paths
    nodes: int
    seconds: float
    complete: bool      # False when the node budget ran out (then nothing is proven)
    late: tuple = ()    # the tempting tries that fail only late: they capture within
                        # n + 1 (sound puzzles with a line; LATE_NODES nodes a try)


#: node budget of the search that tells whether a tempting try captures within n + 1
LATE_NODES = 100_000


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
    # the puzzle it was found in: the salt is the target's, so later searches for the
    # same target (capture_within, then verify) reuse what earlier ones proved
    S.salt[0] = np.uint64(((tgt + 1) * 0x9E3779B97F4A7C15) & (2**64 - 1))
    return t, S


def forget() -> None:
    """Empty the tables of this process's verifiers.

    Entries stay true from puzzle to puzzle, so keeping them is safe, but they change
    the order of search and so the nodes a later search needs: a generator that drops
    candidates over a node budget calls this before each candidate, so that what it
    keeps does not depend on what the same process verified before."""
    for S in _VERIFIERS.values():
        S.tt_key[:] = 0
        S.tt_succ[:] = _NO_SUCC
        S.tt_fail[:] = -1
        S.tt_move[:] = -1


def _target(position: Position, target: str) -> tuple[int, int]:
    """(X colour, target cell) after checking the puzzle can be posed."""
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
    """Put ``positions`` ((st, side) pairs, a line from the puzzle) on the path."""
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


def capture_within(position: Position, target: str, n: int, max_nodes: int = 0, tt_mb: float = 16) -> bool | None:
    """Whether the side to move forces the capture of ``target``'s group within ``n``
    moves (``None`` when ``max_nodes`` ran out).

    >>> from solver import Position
    >>> capture_within(Position.parse("3/1L2/5/4D1/4L/1L2/3 L"), "d5", 2)
    False
    """
    _check_n(n)
    x, tgt = _target(position, target)
    t, S = _verifier(position, tt_mb, max_nodes, True, True, tgt)
    _load(t, S, [(position.array(), x)])
    r = _x_at(t, S, 0, x, tgt, n)
    if r & ABORT:
        return None
    return bool(r & SUCC)


def _check_n(n: int) -> None:
    if not isinstance(n, int) or not 1 <= n <= MAX_N:
        raise CaptureError(f"n must be a whole number of moves from 1 to {MAX_N}, not {n!r}")


def verify(
    position: Position, target: str, n: int, *, max_nodes: int = 0, tt_mb: float = 16,
    line: bool = True, use_table: bool = True, use_cut: bool = True, all_duals: bool = True,
) -> Verdict:
    """Every first move that forces the capture within ``n`` and within ``n - 1``, the
    main line with its duals, and the effort.  With ``all_duals`` False each dual lists
    two of X's working moves only (which is enough to tell a dual, and spares proving
    that every other move fails).  ``max_nodes`` bounds the whole work (0:
    none); when it runs out, ``complete`` is False and the lists mean nothing."""
    _check_n(n)
    x, tgt = _target(position, target)
    t, S = _verifier(position, tt_mb, max_nodes, use_table, use_cut, tgt)
    t0 = time.perf_counter()
    root = position.array()
    _load(t, S, [(root, x)])
    keys, shorter = [], []
    tries = []
    aborted = False
    segs, zone = _zone_at(t, S, 0, 1 - x, tgt)
    on = lambda bb, c: (int(bb[c >> 6]) >> (c & 63)) & 1  # noqa: E731
    names = position.legal_moves()
    cells = [int(t.cell_of[position.board.index(m)]) for m in names]
    for name, cell in zip(names, cells):
        r = _first_move(t, S, x, tgt, cell, n)
        if r & ABORT:
            aborted = True
            break
        if r & SUCC:
            keys.append(name)
            if n > 1:
                r2 = _first_move(t, S, x, tgt, cell, n - 1)
                if r2 & ABORT:
                    aborted = True
                    break
                if r2 & SUCC:
                    shorter.append(name)
        elif on(zone, cell):
            tries.append((name, cell))
    tempting = len(tries)
    if aborted:
        return Verdict([], [], False, [], False, [], 0, False, int(S.stats[NODES]),
                       time.perf_counter() - t0, False)
    quiet = bool(keys) and not on(segs, cells[names.index(keys[0])])
    sound = len(keys) == 1 and not shorter
    main, duals = ([], [])
    if line and sound:
        main, duals = _main_line(t, S, position, x, tgt, n, keys[0], 0 if all_duals else 2)
        if S.stats[ABORTED]:
            return Verdict(keys, shorter, False, [], False, [], tempting, quiet, int(S.stats[NODES]),
                           time.perf_counter() - t0, False)
    nodes = int(S.stats[NODES])
    late = _late(t, S, root, x, tgt, n, tries, max_nodes) if line and sound else ()
    return Verdict(keys, shorter, sound, main, sound and not duals, duals, tempting, quiet,
                   nodes, time.perf_counter() - t0, True, late)


def _late(t, S, root, x, tgt, n, tries, max_nodes) -> tuple:
    """The failing first moves of ``tries`` (name, cell) that capture within ``n + 1``: a try
    that fails only by a move is one a solver has to read to the end.  Each gets
    :data:`LATE_NODES` nodes; a try not decided within them does not count.  The
    verifier's node count and budget are left as they were."""
    if n + 1 > MAX_N:
        return ()
    before = int(S.stats[NODES])
    late = []
    for name, cell in tries:
        _load(t, S, [(root, x)])
        S.limits[0] = S.stats[NODES] + LATE_NODES
        r = _first_move(t, S, x, tgt, cell, n + 1)
        if S.stats[ABORTED]:
            S.stats[ABORTED] = 0
        elif r & SUCC:
            late.append(name)
    S.limits[0] = max_nodes
    S.stats[NODES] = before
    return tuple(late)


def _min_x(t, S, ply, x, tgt, kmax) -> int:
    """The fewest X-moves that capture from the X node at ``ply`` (``kmax + 1``: not
    within ``kmax``)."""
    for k in range(1, kmax + 1):
        r = _x_at(t, S, ply, x, tgt, k)
        if r & ABORT:
            return kmax + 1
        if r & SUCC:
            return k
    return kmax + 1


def _main_line(t, S, position, x, tgt, n, key, stop=0) -> tuple[list, list]:
    """The key, then Y's longest resistance and X's answers; X turns with more than one
    move that keeps the capture within the moves left are the duals.

    A main line is the defence a composer would show: among Y's equally long defences,
    one along which X's answer is unique at every turn if there is one (searched over
    all tied defences, :data:`LINE_SEARCH` Y turns at most), else the first in board
    order, taking at each Y turn a reply after which X has a single working answer when
    one exists.  X's answer is the first working move."""
    free = _free_line(t, S, [(position.array(), x)], position.play(key), x, tgt, n - 1,
                      [LINE_SEARCH])
    if free is not None:
        return [key] + free, []
    path = [(position.array(), x)]
    line = [key]
    duals = []
    cur = position.play(key)
    left = n - 1
    while True:
        path.append((cur.array(), 1 - x))
        tied, over = _longest(t, S, path, cur, x, tgt, left)
        if over:
            line.extend(tied[:1])
            break
        chosen, answers = None, None
        for reply in tied:
            after = cur.play(reply)
            working = _working(t, S, path + [(after.array(), x)], after, x, tgt, left, stop=2)
            if answers is None or (len(working) == 1 and len(answers) != 1):
                chosen, answers = reply, working
            if len(working) == 1:
                break
        line.append(chosen)
        cur = cur.play(chosen)
        path.append((cur.array(), x))
        working = _working(t, S, path, cur, x, tgt, left, stop)
        if not working:
            break  # cannot happen for a proven key; the line just stops
        if len(working) > 1:
            duals.append((len(line), working))
        line.append(working[0])
        cur = cur.play(working[0])
        left -= 1
    return line, duals


#: how many Y turns the search for a dual-free main line may try
LINE_SEARCH = 64


def _gone(st, x, tgt) -> bool:
    return not (int(st[1 - x, tgt >> 6]) >> (tgt & 63)) & 1


def _longest(t, S, path, cur, x, tgt, left) -> tuple[list, bool]:
    """Y's replies at ``cur`` (the last position of ``path``, Y to move) after which X
    needs the most moves, and whether the line ends with them (the target is gone or
    the game over, or X has no move left).  A ``cur`` where the line already ended
    gives ``([], True)``."""
    if _gone(cur.array(), x, tgt) or cur.outcome is not None:
        return [], True
    replies = cur.legal_moves()
    if left >= 2:
        # after a working X move no reply needs more than ``left``: the replies that
        # need all of them are those that hold out against left - 1, one search each
        slow = []
        for reply in replies:
            after = cur.play(reply)
            ast = after.array()
            if _gone(ast, x, tgt) or after.outcome is not None:
                continue
            _load(t, S, path + [(ast, x)])
            if not _x_at(t, S, len(path), x, tgt, left - 1) & SUCC:
                slow.append(reply)
        if slow:
            return slow, False
    tied, best_need = [], -1
    for reply in replies:
        after = cur.play(reply)
        ast = after.array()
        if _gone(ast, x, tgt) or after.outcome is not None:
            need = 0  # the defence ends the line at once
        else:
            _load(t, S, path + [(ast, x)])
            need = _min_x(t, S, len(path), x, tgt, left)
        if need > best_need:
            tied, best_need = [reply], need
        elif need == best_need:
            tied.append(reply)
    return tied, best_need == 0 or left == 0


def _free_line(t, S, path, cur, x, tgt, left, budget) -> list | None:
    """A longest defence from ``cur`` (Y to move, after X's move; ``path`` ends before
    it) along which X's working answer is unique at every turn, with those answers; None
    if there is none or ``budget[0]`` Y turns were tried without finding one."""
    budget[0] -= 1
    if budget[0] < 0:
        return None
    path = path + [(cur.array(), 1 - x)]
    tied, over = _longest(t, S, path, cur, x, tgt, left)
    if over:
        return tied[:1]
    for reply in tied:
        after = cur.play(reply)
        here = path + [(after.array(), x)]
        working = _working(t, S, here, after, x, tgt, left, stop=2)
        if len(working) != 1:
            continue
        rest = _free_line(t, S, here, after.play(working[0]), x, tgt, left - 1, budget)
        if rest is not None:
            return [reply, working[0]] + rest
        if budget[0] < 0:
            return None
    return None


def _working(t, S, path, cur, x, tgt, left, stop=0) -> list:
    """X's moves at ``cur`` (the last position of ``path``) that keep the capture within
    ``left`` moves; with ``stop``, at most that many."""
    working = []
    for move in cur.legal_moves():
        after = cur.play(move)
        _load(t, S, path + [(after.array(), 1 - x)])
        r = _y_at(t, S, len(path), x, tgt, left - 1)
        if r & SUCC:
            working.append(move)
            if stop and len(working) >= stop:
                break
    return working
