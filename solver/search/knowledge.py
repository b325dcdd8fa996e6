"""The "settled" rule (KNOWLEDGE.md), fast: compiled kernels on the core's bitboards.

A position where both players have two or more stones and the game goes on is *settled*
for an owner X (the other player Y) when X has an enclosure that supplies more harmless
moves than Y has moves left.  The rule, its proof and its numbers are those of
KNOWLEDGE.md; :mod:`solver.reference.settled` is its slow, reference twin and the tests compare the
two.  In short:

- **Enclosure** (section 1).  A = the flood from Y's stones over points without an X
  stone; I (the interior) = the empty points outside A; W (the walls) = the X groups with
  a stone next to I.  Y can never place in I while W stands: a line leaving I meets a W
  stone first.
- **Supply** h_X (section 2): the longest sequence of *harmless* X moves in the X-model
  (X stones W, every point outside I and W filled with Y stones, I empty; a move is a
  normal-phase placement of X in I, then X's dead groups go; harmless: every W stone
  stays).  While X plays such moves, reality inside I and W equals the model (a W group
  alive in the model has the same empty path in reality; stones in I see only I and W;
  Y's moves never touch I and W), so X can make h_X moves whatever Y does.
- **Bound** v_Y (section 3): the longest sequence of Y moves in the Y-model (the real
  board with I filled with X stones, which never go; X's other dead groups go after each
  counted move); a move that leaves Y without stones ends the sequence uncounted.  While
  X plays harmless moves in I, every real Y move is a model move, so Y has at most v_Y
  moves before it has no move or loses its stones.
- **Decision** (section 4): X wins if X is to move and h_X >= v_Y + 1, or Y is to move and
  h_X >= v_Y; the player to move is tried as the owner first.  A cycle among the states of
  either solitaire, or a budget of visited states running out (counted over both
  solitaires of one owner), gives no claim: a claim never depends on the budget.
- **Repetition guard** (section 4b): every position of the continuation has X stones in
  I and W equal to a visited X-model state and Y stones equal to those of a visited
  Y-model state; if an earlier position (game history, search path) has both, no claim.
  So the win holds under any repetition rule.

The solitaires are depth-first searches with a hash table of visited states (their
longest-path values; a state on the current line is marked, and meeting it again is a
cycle).  The bound's search knows the supply already and stops as soon as it finds a Y
line long enough to deny the claim, so that a failed claim is cheap; the numbers of a
claim are always exact.

**Pre-filters** (only in front of the search; :data:`MAX_INTERIOR`, :data:`MAX_REACH`,
:data:`MAX_SURPLUS`)
decline positions whose solitaires would be large, and positions without an interior:
they never make a claim, they only leave one unmade.  :func:`settled_value` can switch
them off (the tests compare the numbers with the reference then).

df-pn (:mod:`solver.search.dfpn`) calls :func:`settled_child` for each child it generates,
behind ``limits[KNOWLEDGE]``; its results are cached by the child's table key and stones
(and, when a result depends on the search path, by a hash of the path).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.rules import core
from solver.rules.bits import (
    bb_and, bb_andnot, bb_any, bb_clear_lowest, bb_eq, bb_load, bb_lowest, bb_or, bb_popcount,
    bb_shift, bb_store,
)
from solver.rules.core import kernel

__all__ = [
    "Scratch", "new_scratch", "settle", "settled_child", "settled_value", "supply_value",
    "bound_value", "worth_a_look", "affordable", "DEFAULT_BUDGET", "MAX_INTERIOR", "MAX_REACH", "MAX_DEPTH",
]

#: The default budget: solitaire states visited for one owner (both solitaires together).
DEFAULT_BUDGET = 2000
#: Pre-filter: the interior I may have at most this many points.  The supply's search
#: visits up to about 2**|I| states; a bigger interior is declined before any search.
MAX_INTERIOR = 12
#: Pre-filter: the empty points Y can reach (the empty points of A) may be at most this
#: many.  The bound's search visits states over these points; more are declined.
MAX_REACH = 12
#: Pre-filter: Y's reach (the empty points of A) may exceed the size of I by at most this
#: many points.  Y can mostly fill its reach, so a reach much bigger than I almost
#: always has a Y line longer than the supply (measured on random 3/4 positions: 9 in
#: 10 claims have a surplus of at most 1, and 9 in 10 failed searches more).
MAX_SURPLUS = 1
#: The allowance of a df-pn search (:func:`affordable`): solitaire states it may visit in
#: all, this many to begin with, more for each expansion and for each claim made.  A claim
#: saves a subtree, a failed search costs ~230 states (about 1.5 ms on 6/7, where one
#: expansion is ~35 us); measured with 20,000 expansions a position: 3/4 positions 12
#: plies in used 2-30 states an expansion and made a claim every 3-8 searches, 6/7
#: positions at 24 empty points up to 914 states an expansion without one claim (170x the
#: plain search's time).  So the rule pays its way where it claims and costs at most
#: about a third more where it never does.
ALLOWANCE_BASE = 10_000
ALLOWANCE_PER_EXPANSION = 2
ALLOWANCE_PER_CLAIM = 300
#: The longest line either search follows; a longer one is treated as a budget overrun.
MAX_DEPTH = 256
#: Entries of the cache of df-pn's children (direct-mapped).
CACHE_SIZE = 1 << 13

# stats slots
N_STATS = 9
CALLS, FILTERED, SEARCHED, CLAIMS, GUARDED, OUT, CACHE_HITS, STATES, CYCLES = range(N_STATS)
STAT_NAMES = ("calls", "filtered", "searched", "claims", "guarded", "out_of_budget",
              "cache_hits", "states", "cycles")
# settings slots
N_SETTINGS = 5
BUDGET, INTERIOR_LIMIT, REACH_LIMIT, FILTERS, SURPLUS_LIMIT = range(N_SETTINGS)
# results of a solitaire besides a length
NONE_CYCLE, NONE_BUDGET, NONE_CAP = -1, -3, -2

_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0x9E3779B97F4A7C15)


class Scratch(NamedTuple):
    """The arrays of the rule's searches (no kernel allocates)."""

    states: np.ndarray   # uint64 (2 * size, w): visited states, (own, other) rows
    tag: np.ndarray      # int64 (size,): which search a slot belongs to (older: empty)
    val: np.ndarray      # int32 (size,): the longest line from the state (-1: on the line)
    stk: np.ndarray      # uint64 (3 * MAX_DEPTH, w): the line: own, other, moves left
    slot: np.ndarray     # int64 (MAX_DEPTH,): the table slot of each state on the line
    best: np.ndarray     # int64 (MAX_DEPTH,): the longest line found below it so far
    pos: np.ndarray      # uint64 (2, w): a position to play on
    gen: np.ndarray      # int64 (2,): the last tag used; states left in this owner's budget
    out: np.ndarray      # int64 (4,): the last claim: owner, supply, bound, and I's size
    stats: np.ndarray    # int64 (N_STATS,)
    settings: np.ndarray  # int64 (N_SETTINGS,)
    ck_key: np.ndarray   # uint64 (CACHE_SIZE,): cache of df-pn children: table key (0: empty)
    ck_st: np.ndarray    # uint64 (2 * CACHE_SIZE, w): their stones
    ck_sig: np.ndarray   # uint64 (CACHE_SIZE,): the path's hash, for path-dependent results
    ck_res: np.ndarray   # int64 (CACHE_SIZE,): winner + 1, side << 2, path-dependent << 3


def new_scratch(t: core.Tables, budget: int | None = None, *, max_interior: int | None = None,
                max_reach: int | None = None, max_surplus: int | None = None, filters: bool = True,
                cache: int = CACHE_SIZE) -> Scratch:
    """The scratch of the rule on the board of ``t`` with a budget of ``budget`` visited
    states per owner (the table has room for four times that); None: the module's
    :data:`DEFAULT_BUDGET`, :data:`MAX_INTERIOR`, :data:`MAX_REACH`, :data:`MAX_SURPLUS`
    as they are now (a benchmark may change them)."""
    max_surplus = MAX_SURPLUS if max_surplus is None else max_surplus
    budget = DEFAULT_BUDGET if budget is None else budget
    max_interior = MAX_INTERIOR if max_interior is None else max_interior
    max_reach = MAX_REACH if max_reach is None else max_reach
    size = 64
    while size < 4 * (budget + 2):
        size *= 2
    w = t.w
    return Scratch(
        np.zeros((2 * size, w), np.uint64), np.zeros(size, np.int64), np.zeros(size, np.int32),
        np.zeros((3 * MAX_DEPTH, w), np.uint64), np.zeros(MAX_DEPTH, np.int64),
        np.zeros(MAX_DEPTH, np.int64), np.zeros((2, w), np.uint64), np.zeros(2, np.int64),
        np.zeros(4, np.int64), np.zeros(N_STATS, np.int64),
        np.array([budget, max_interior, max_reach, int(filters), max_surplus], np.int64),
        np.zeros(cache, np.uint64), np.zeros((2 * cache, w), np.uint64), np.zeros(cache, np.uint64),
        np.zeros(cache, np.int64),
    )


# --- the table of visited states -------------------------------------------------------------
@kernel(inline="always")
def _hash(own):
    h = _M2
    for word in own:
        h = (h ^ word) * _M1
        h ^= h >> np.uint64(29)
    return h


@kernel
def _probe(T, K, own, other, tag, base):
    """The slot of the state (own, other) of the search ``tag``: ``(slot, found)``; a
    slot whose tag is below ``base`` is free (its search is over).  Linear probing from
    the hash of ``own`` alone, so all states with the same ``own`` lie in one run."""
    mask = K.tag.shape[0] - 1
    i = np.int64(_hash(own) & np.uint64(mask))
    for _ in range(mask + 1):
        if K.tag[i] < base:
            return i, False
        if K.tag[i] == tag and bb_eq(bb_load(K.states, 2 * i, T.zero), own) and bb_eq(
                bb_load(K.states, 2 * i + 1, T.zero), other):
            return i, True
        i = (i + 1) & np.int64(mask)
    return -1, False


@kernel
def _has_own(T, K, own, tag, base):
    """Whether some state of the search ``tag`` has ``own`` as its first part."""
    mask = K.tag.shape[0] - 1
    i = np.int64(_hash(own) & np.uint64(mask))
    for _ in range(mask + 1):
        if K.tag[i] < base:
            return False
        if K.tag[i] == tag and bb_eq(bb_load(K.states, 2 * i, T.zero), own):
            return True
        i = (i + 1) & np.int64(mask)
    return False


# --- the solitaires ----------------------------------------------------------------------
@kernel(inline="always")
def _placements(T, own, other):
    """Normal-phase placements of the player of ``own``: the empty points seen from one
    of its stones along a line through empty points (whatever its number of stones)."""
    empty = bb_andnot(T.full, bb_or(own, other))
    seen = T.zero
    for d in range(6):
        seen = bb_or(seen, bb_shift(core.fill(T, own, empty, d), core.offset(T, d)))
    return bb_and(seen, empty)


@kernel
def _longest(T, K, c, own0, other0, fixed, tag, base, cap, ymodel):
    """The longest line of the solitaire of colour ``c`` (stones ``own``, the others
    ``other``) from (own0, other0), by depth-first search with the visited states in the
    table under ``tag``.

    X-model (``ymodel`` False): a move is a placement, then ``c``'s dead groups go; it
    counts only if every stone of ``fixed`` (W) stays, else it is not made.  Y-model: a
    placement, then ``c``'s dead groups go; if ``c`` has no stones left the move is not
    counted; else the other colour's dead groups without a stone of ``fixed`` (the
    permanent stones) go.  Returns the length, NONE_CYCLE, NONE_BUDGET (the budget of
    ``K.gen[1]`` states ran out, or the line grew past MAX_DEPTH), or NONE_CAP: a line of
    ``cap`` moves exists (``cap`` > 0; the search stops there)."""
    slot, _ = _probe(T, K, own0, other0, tag, base)
    if slot < 0 or K.gen[1] <= 0:
        return NONE_BUDGET
    K.gen[1] -= 1
    K.stats[STATES] += 1
    K.tag[slot] = tag
    K.val[slot] = -1
    bb_store(K.states, 2 * slot, own0)
    bb_store(K.states, 2 * slot + 1, other0)
    bb_store(K.stk, 0, own0)
    bb_store(K.stk, 1, other0)
    bb_store(K.stk, 2, _placements(T, own0, other0))
    K.slot[0] = slot
    K.best[0] = 0
    lv = 0
    while True:
        moves = bb_load(K.stk, 3 * lv + 2, T.zero)
        if not bb_any(moves):
            b = K.best[lv]
            K.val[K.slot[lv]] = b
            if lv == 0:
                return b
            lv -= 1
            if b + 1 > K.best[lv]:
                K.best[lv] = b + 1
                if cap > 0 and lv + K.best[lv] >= cap:
                    return NONE_CAP
            continue
        cell = bb_lowest(moves)
        bb_store(K.stk, 3 * lv + 2, bb_clear_lowest(moves))
        own = bb_load(K.stk, 3 * lv, T.zero)
        other = bb_load(K.stk, 3 * lv + 1, T.zero)
        bb_store(K.pos, c, own)
        bb_store(K.pos, 1 - c, other)
        lost, _ = core.play(T, K.pos, c, cell)
        nown = bb_load(K.pos, c, T.zero)
        if ymodel:
            if lost:
                continue  # the move that loses Y's last stones is not counted
            dead = core.dead_bb(T, K.pos, 1 - c)
            nother = bb_andnot(other, bb_andnot(dead, fixed))
        else:
            if bb_any(bb_andnot(fixed, nown)):
                continue  # not harmless: a wall went
            nother = other
        s2, found = _probe(T, K, nown, nother, tag, base)
        if found:
            v = K.val[s2]
            if v < 0:
                K.stats[CYCLES] += 1
                return NONE_CYCLE
            if v + 1 > K.best[lv]:
                K.best[lv] = v + 1
                if cap > 0 and lv + K.best[lv] >= cap:
                    return NONE_CAP
            continue
        if cap > 0 and lv + 1 >= cap:
            return NONE_CAP
        if s2 < 0 or K.gen[1] <= 0 or lv + 1 >= MAX_DEPTH:
            return NONE_BUDGET
        K.gen[1] -= 1
        K.stats[STATES] += 1
        K.tag[s2] = tag
        K.val[s2] = -1
        bb_store(K.states, 2 * s2, nown)
        bb_store(K.states, 2 * s2 + 1, nother)
        lv += 1
        bb_store(K.stk, 3 * lv, nown)
        bb_store(K.stk, 3 * lv + 1, nother)
        bb_store(K.stk, 3 * lv + 2, _placements(T, nown, nother))
        K.slot[lv] = s2
        K.best[lv] = 0


# --- one owner -----------------------------------------------------------------------------
@kernel(inline="always")
def _spread(T, g, own):
    """The stones of ``own`` connected to ``g`` (as core._flood, inlined: the rule's
    pre-filter runs for every child of df-pn, and a call costs as much as the fill)."""
    while True:
        grown = bb_and(core.neighbours(T, g), own)
        if bb_eq(grown, g):
            return g
        g = grown


@kernel(inline="always")
def _interior(T, st, x):
    """I of owner ``x`` (KNOWLEDGE.md section 1): the empty points that the flood from
    the other player's stones over points without an ``x`` stone does not reach."""
    X = bb_load(st, x, T.zero)
    Y = bb_load(st, 1 - x, T.zero)
    empty = bb_andnot(T.full, bb_or(X, Y))
    return bb_andnot(empty, _spread(T, Y, bb_andnot(T.full, X)))


@kernel
def _enclosure(T, st, x):
    """(I, W) of owner ``x`` (KNOWLEDGE.md section 1)."""
    interior = _interior(T, st, x)
    X = bb_load(st, x, T.zero)
    return interior, _spread(T, bb_and(core.neighbours(T, interior), X), X)


@kernel(inline="always")
def _passes(T, K, st, x):
    """Whether owner ``x`` passes the pre-filters: an interior of at most
    :data:`MAX_INTERIOR` points, a reach of Y of at most :data:`MAX_REACH` empty points
    and at most :data:`MAX_SURPLUS` more than the interior."""
    empty = bb_andnot(T.full, bb_or(bb_load(st, 0, T.zero), bb_load(st, 1, T.zero)))
    n = bb_popcount(empty)
    # I lies among the empty points not next to a Y stone, and the surplus limit needs
    # at least (n - surplus) / 2 of them: six shifts decide most children, not a flood
    loose = bb_popcount(bb_andnot(empty, core.neighbours(T, bb_load(st, 1 - x, T.zero))))
    if 2 * loose < n - K.settings[SURPLUS_LIMIT]:
        return False
    k = bb_popcount(_interior(T, st, x))
    reach = n - k
    return (0 < k <= K.settings[INTERIOR_LIMIT] and reach <= K.settings[REACH_LIMIT]
            and reach - k <= K.settings[SURPLUS_LIMIT])


@kernel
def _guarded(T, K, hist, nplies, x, inside, fill, base):
    """Whether one of the ``nplies`` positions in rows ``0 .. 2 nplies - 1`` of ``hist``
    has X stones in I and W equal to a visited X-model state and Y stones equal to those
    of a visited Y-model state (section 4b)."""
    for b in range(nplies):
        zx = bb_and(bb_load(hist, 2 * b + x, T.zero), inside)
        _, found = _probe(T, K, zx, fill, base, base)
        if found and _has_own(T, K, bb_load(hist, 2 * b + 1 - x, T.zero), base + 1, base):
            return True
    return False


@kernel
def _owner(T, K, st, s, x, hist, nplies, mode):
    """The claim for owner ``x`` in ``st`` (``s`` to move): ``(supply, bound)``, or
    ``(-1, reason)`` (1 no claim, 2 the guard).  ``mode`` 0 decides; 1 computes the supply
    alone, 2 the bound alone (for tests: then neither the decision nor the guard is
    applied).  With ``K.settings[FILTERS]`` (df-pn's way), the bound's search stops at a
    Y line as long as I and the supply's at the first harmless line that beats the bound
    (the supply reported is then that line's length, a lower bound); without, the supply
    is exact and the bound's search stops only at a line that denies the claim."""
    interior, walls = _enclosure(T, st, x)
    X = bb_load(st, x, T.zero)
    Y = bb_load(st, 1 - x, T.zero)
    K.stats[SEARCHED] += 1
    K.gen[0] += 2
    base = K.gen[0]
    K.gen[1] = K.settings[BUDGET]
    inside = bb_or(interior, walls)
    fill = bb_andnot(T.full, inside)
    need = 1 if x == s else 0
    # the Y-model: I filled with X stones, X's dead groups outside I and W gone
    xm = bb_or(X, interior)
    bb_store(K.pos, x, xm)
    bb_store(K.pos, 1 - x, Y)
    xm = bb_andnot(xm, bb_andnot(core.dead_bb(T, K.pos, x), inside))
    h = 0
    v = 0
    if mode == 0 and K.settings[FILTERS]:
        # the bound first, cut at the size of I: a supply seldom exceeds it (only when
        # stones in I die), so a Y line that long almost always denies the claim, and
        # is found at once when Y has room
        k = bb_popcount(interior)
        if k < need:
            return -1, 1
        v = _longest(T, K, 1 - x, Y, xm, inside, base + 1, base, k - need + 1, True)
        if v == NONE_BUDGET:
            K.stats[OUT] += 1
        if v < 0:
            return -1, 1
        # then a harmless line of v + need moves, the search stopping at the first: X
        # plays that line (its states are all visited, so the guard below covers them);
        # the supply reported is its length, a lower bound of h_X
        goal = v + need
        h = _longest(T, K, x, walls, fill, walls, base, base, max(goal, 1), False)
        if h == NONE_CAP:
            h = goal
        elif h == NONE_BUDGET:
            K.stats[OUT] += 1
        if h < goal:
            return -1, 1
    else:
        if mode != 2:
            h = _longest(T, K, x, walls, fill, walls, base, base, np.int64(0), False)  # not a literal: one compile
            if h == NONE_BUDGET:
                K.stats[OUT] += 1
            if h < 0 or mode == 1:
                return h, 1
            if h < need:
                return -1, 1
        cap = 0 if mode == 2 else h - need + 1
        v = _longest(T, K, 1 - x, Y, xm, inside, base + 1, base, cap, True)
        if v == NONE_BUDGET:
            K.stats[OUT] += 1
        if mode == 2:
            return v, 1
        if v < 0 or h < v + need:
            return -1, 1
    if nplies > 0 and _guarded(T, K, hist, nplies, x, inside, fill, base):
        K.stats[GUARDED] += 1
        return -1, 2
    K.out[3] = bb_popcount(interior)
    return h, v


@kernel(inline="always")
def _settle(T, K, st, s, hist, nplies):
    K.stats[CALLS] += 1
    if bb_popcount(bb_load(st, 0, T.zero)) < 2 or bb_popcount(bb_load(st, 1, T.zero)) < 2:
        K.stats[FILTERED] += 1
        return -1, False
    filters = K.settings[FILTERS] != 0
    guarded = False
    searched = False
    for k in range(2):
        x = s if k == 0 else 1 - s
        if filters and not _passes(T, K, st, x):
            continue
        searched = True
        h, v = _owner(T, K, st, s, x, hist, nplies, 0)
        if h >= 0:
            K.stats[CLAIMS] += 1
            K.out[0] = x
            K.out[1] = h
            K.out[2] = v
            return x, True
        if v == 2:
            guarded = True
    if not searched:
        K.stats[FILTERED] += 1
    return -1, guarded


@kernel
def settle(T, K, st, s, hist, nplies):
    """The rule on the position ``st`` with ``s`` to move, which must not be finished,
    the earlier positions in rows ``0 .. 2 nplies - 1`` of ``hist``: the owner (the player
    to move tried first) or -1 (no claim); a claim's owner, supply and bound go to
    ``K.out``.  Also returns whether the result depends on the earlier positions (the
    guard denied a claim, or there is one)."""
    return _settle(T, K, st, s, hist, nplies)


@kernel
def _path_sig(path_keys, nplies):
    h = np.uint64(nplies) * _M2
    for b in range(nplies):
        h = (h ^ path_keys[b]) * _M1
        h ^= h >> np.uint64(31)
    return h


@kernel(inline="always")
def worth_a_look(T, K, st):
    """The cheapest necessary condition of a claim under the pre-filters (inlined in
    df-pn's expansion, so that a child far from the end costs a popcount): the empty
    points fit in I and Y's reach together."""
    empty = bb_andnot(T.full, bb_or(bb_load(st, 0, T.zero), bb_load(st, 1, T.zero)))
    return bb_popcount(empty) <= K.settings[INTERIOR_LIMIT] + K.settings[REACH_LIMIT]


@kernel(inline="always")
def affordable(K, expansions):
    """Whether df-pn, after ``expansions``, may still search for claims: the states its
    solitaires visited are within :data:`ALLOWANCE_BASE` plus
    :data:`ALLOWANCE_PER_EXPANSION` an expansion plus :data:`ALLOWANCE_PER_CLAIM` a claim.
    It only leaves claims unmade (the rule's cost follows what it earns), never makes one."""
    return K.stats[STATES] < (ALLOWANCE_BASE + ALLOWANCE_PER_EXPANSION * expansions
                              + ALLOWANCE_PER_CLAIM * K.stats[CLAIMS])


@kernel
def settled_child(T, K, st, s, key, hist, path_keys, nplies):
    """:func:`settle` for a df-pn child: the position ``st`` (``s`` to move, not
    finished, table key ``key``) after the path in rows ``0 .. 2 nplies - 1`` of ``hist``
    (identity keys in ``path_keys``).  Returns the winner or -1 (also in ``K.out[0]``).
    Results are cached by key and stones; a result that depends on the path (a claim,
    or one the guard denied) only for the same path (by a hash of its keys)."""
    i = np.int64(key & np.uint64(K.ck_key.shape[0] - 1))
    if K.ck_key[i] == key and bb_eq(bb_load(K.ck_st, 2 * i, T.zero), bb_load(st, 0, T.zero)) and bb_eq(
            bb_load(K.ck_st, 2 * i + 1, T.zero), bb_load(st, 1, T.zero)):
        r = K.ck_res[i]
        if (r >> 2) & 1 == s and ((r >> 3) & 1 == 0 or K.ck_sig[i] == _path_sig(path_keys, nplies)):
            K.stats[CACHE_HITS] += 1
            K.out[0] = (r & 3) - 1
            return K.out[0]
    searched = K.stats[SEARCHED]
    w, on_path = _settle(T, K, st, s, hist, nplies)
    if K.stats[SEARCHED] != searched:  # a result that took no search is not worth a slot
        K.ck_key[i] = key
        bb_store(K.ck_st, 2 * i, bb_load(st, 0, T.zero))
        bb_store(K.ck_st, 2 * i + 1, bb_load(st, 1, T.zero))
        K.ck_res[i] = (w + 1) | (s << 2) | (np.int64(on_path) << 3)
        if on_path:
            K.ck_sig[i] = _path_sig(path_keys, nplies)
    K.out[0] = w
    return w


@kernel
def _one(T, K, st, s, x, hist, nplies, mode):
    return _owner(T, K, st, s, x, hist, nplies, mode)


# --- Python ------------------------------------------------------------------------------
def _history_rows(t: core.Tables, history) -> np.ndarray:
    """The earlier positions (Positions or ``(stones, side)`` pairs) as stacked rows."""
    rows = np.zeros((2 * max(1, len(history)), t.w), np.uint64)
    for b, z in enumerate(history):
        st = z.bitboards if hasattr(z, "bitboards") else z[0]
        rows[2 * b: 2 * b + 2] = st
    return rows


def settled_value(position, history=(), budget: int = DEFAULT_BUDGET, *, filters: bool = True):
    """The rule on ``position`` (a :class:`~solver.rules.position.Position`) with the earlier
    positions ``history`` (Positions or ``(stones, side)`` pairs, any order): ``(winner,
    owner, supply, bound)`` ('L'/'D', the winner is the owner) or None (no claim: the
    rule does not apply, the claim fails, a cycle, the budget, the guard; with
    ``filters``, also a pre-filter).  A claim says the owner wins whatever the other
    player does, under any repetition rule (module docstring)."""
    if position.outcome is not None:
        return None
    t = core.tables(position.board)
    K = new_scratch(t, budget, filters=filters, cache=1)
    rows = _history_rows(t, history)
    w, _ = settle(t, K, position.bitboards, position.side_index, rows, len(history))
    if w < 0:
        return None
    return "LD"[w], "LD"[int(K.out[0])], int(K.out[1]), int(K.out[2])


def _solitaire(position, owner: str, budget: int, mode: int) -> int | None:
    t = core.tables(position.board)
    K = new_scratch(t, budget, filters=False, cache=1)
    x = "LD".index(owner)
    v, _ = _one(t, K, position.bitboards, position.side_index, x, _history_rows(t, ()), 0, mode)
    return None if v < 0 else int(v)


def supply_value(position, owner: str, budget: int = DEFAULT_BUDGET) -> int | None:
    """h_X of ``owner`` ('L' or 'D') in ``position``: the longest harmless sequence in
    its enclosure (0 without one), or None (a cycle, or the budget ran out)."""
    return _solitaire(position, owner, budget, 1)


def bound_value(position, owner: str, budget: int = DEFAULT_BUDGET) -> int | None:
    """v_Y of the player other than ``owner`` in ``position``: the longest Y sequence of
    the Y-model, or None (a cycle, or the budget ran out)."""
    return _solitaire(position, owner, budget, 2)
