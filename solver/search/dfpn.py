"""Depth-first proof-number search (df-pn) with the 1+epsilon trick, a transposition
table over the board's symmetries, and repetitions counted against the prover.

The question is always "can ``prover`` force a win?".  Proof numbers ``pn`` and disproof
numbers ``dn`` are from the prover's side: a node where the prover is to move is an OR
node (``pn`` = least child ``pn``, ``dn`` = sum of child ``dn``), the other an AND node.
A node is proven when ``pn == 0`` (then ``dn == INF``) and disproven when ``dn == 0``.

**Repetitions.**  A position that repeats one on the current search path (or on the game
history loaded before the root) counts as a failure for the prover: a disproof.  Such a
disproof depends on the path, so it is *tainted*: it is never stored in the table and the
taint passes to every disproof that relied on it.  Proofs never rely on a repetition, so a
proof is a finite forced win that holds under any repetition rule, and so is a clean
(untainted) disproof, which is a finite forced win of the other player.  A tainted
disproof at the root is not reported as a result.

**Initial numbers** of a new child come from the number ``k`` of legal moves of its player
to move: ``(1, k)`` at an OR node, ``(k, 1)`` at an AND node (k moves to refute), with
``k`` halved when that player has dead groups (they lose them unless rescued, so their
moves are mostly bad) and doubled when the move that led there gave up the mover's own
dead groups.  **1+epsilon** (Pawlewicz and Lew): the best child's threshold is
``ceil(second * (1 + eps))`` instead of ``second + 1`` (eps 0.5), so the search stays
longer in one subtree.  **Knowledge**: moves that reach the very same position are one
child; a child whose player to move loses with every move (looked for when all of that
player's groups are dead) is a won leaf at once.  The table is 4-way bucketed, of any
size; a new entry replaces the unsolved entry with the least work first, so solved
entries and big subtrees stay.  An empty slot is all zero bits, so the table is allocated
by :func:`~solver.search.memory.zeroed`: the system maps its pages as the search first
writes them, and a
proof of a few hundred nodes costs the same with a table of 16 MiB or of 16 GiB.  ``scripts/bench_dfpn.py`` measures each of these.

**Guidance** (optional, df-pn+ style): a Dfpn that carries a move model
(:mod:`solver.search.guide`) scales the number that chooses each new child by the
model's view of its move and orders the children by the model's score; focused (the
guide's ``focus``), the prover's nodes count only the model's best children not yet
disproven (see ``_focus``).  Without a guide the model's code is not compiled in (see
``_guide_node``).  It never decides a value.

Python callers use :func:`solver.search.prove.prove`.  With ``jobs=N`` it runs :func:`mid`
in N processes on one shared table (:mod:`solver.search.parallel`; the ``busy`` and
``worker`` fields and the kernels ``_busy``, ``_virtual`` and ``_whole`` are for that).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import types
from numba.extending import overload

from solver.rules import core
from solver.rules.bits import bb_any, bb_clear_lowest, bb_eq, bb_load, bb_lowest, bb_popcount, bb_store
from solver.rules.core import kernel
from . import guide as G_
from . import knowledge
from .memory import zeroed
from .path import child_keys, enter_child, repeats

__all__ = ["INF", "MAX_PLY", "Dfpn", "new_dfpn", "mid", "rewalk", "load_root", "probe", "load_kernels"]

INF = 2**31 - 1
MAX_PLY = 2048
BUCKET = 4
PROVER_SALT = np.uint64(0x9E3779B97F4A7C15)  # xor-ed into keys when Dark is the prover
KEY_SALT = np.uint64(0x5851F42D4C957F2D)     # xor-ed into every key, so that none is 0

# stats slots
N_STATS = 8
EXPANSIONS, TT_HITS, STORES, DEEPEST, ABORTED, REWALKED, RESEARCHED, REPETITIONS = range(N_STATS)
# limits slots
MAX_EXPANSIONS, PROVER, USE_SYMMETRY, EPS_PER_MILLE, DEAD_SHIFT, USE_TABLE, DEDUP, LOOKAHEAD, ABANDON, MOBILITY = range(10)
KNOWLEDGE = 10  # the settled rule (solver.search.knowledge) on the children: 1 on, 0 off
N_LIMITS = 11
# LOOKAHEAD modes: when to look one ply further for a child whose every move loses
LOOK_OFF, LOOK_ALL_DEAD, LOOK_ALWAYS = 0, 1, 2
# child flags
OPEN, TERMINAL, TAINTED = 0, 1, 2


class Dfpn(NamedTuple):
    """The arrays of one proof search."""

    stack: np.ndarray      # uint64 (2 * MAX_PLY, w): positions on the path
    path_keys: np.ndarray  # uint64 (MAX_PLY,): their identity keys
    keys: np.ndarray       # uint64 (MAX_PLY, 4): their keys under each symmetry
    ch_cell: np.ndarray    # int32 (MAX_PLY, n): the children of each node on the path
    ch_key: np.ndarray     # uint64 (MAX_PLY, n): their table keys
    ch_pn: np.ndarray      # int64 (MAX_PLY, n): their last known numbers
    ch_dn: np.ndarray      # int64 (MAX_PLY, n)
    ch_flag: np.ndarray    # int8 (MAX_PLY, n): OPEN, TERMINAL or TAINTED (this visit)
    tt_key: np.ndarray     # uint64 (size,): 0 for an empty slot
    tt_pn: np.ndarray      # uint32 (size,)
    tt_dn: np.ndarray      # uint32 (size,)
    tt_move: np.ndarray    # int16 (size,): proving / clean-disproving move, canonical cell
                           # plus one (0: none, so that an empty slot is all zeros)
    tt_work: np.ndarray    # uint32 (size,): expansions spent below the entry (saturating)
    seen: np.ndarray       # uint64 (seen_size,): keys re-walked and found correct
    stats: np.ndarray      # int64 (8,)
    limits: np.ndarray     # int64 (N_LIMITS,)
    busy: np.ndarray       # int32 (workers, 2**k slots): paths of parallel workers (see _busy)
    worker: np.ndarray     # int64 (1,): this search's row of ``busy``; -1: searching alone
    know: knowledge.Scratch | None  # the settled rule's searches and cache (None: no rule)
    guide: G_.Guide | None  # the move model's weights and scratch (None: unguided)


SLOT_BYTES = 8 + 4 + 4 + 2 + 4


def new_dfpn(
    t: core.Tables, prover: int, tt_mb: float = 256, *, eps: float = 0.5,
    use_symmetry: bool = True, use_table: bool = True, dead_shift: int = 1,
    seen_mb: float | None = None, dedup: bool = True, lookahead: int = LOOK_ALL_DEAD,
    abandon: bool = True, mobility: bool = False, knowledge_budget: int = 0,
    shared: tuple | None = None, worker: int = -1, guide: G_.Guide | None = None,
) -> Dfpn:
    """A proof search for ``prover`` (0 Light, 1 Dark) whose table and re-walk set
    together take at most ``tt_mb`` MiB (in buckets of 4 slots; the set gets a fifth
    unless ``seen_mb`` says otherwise); the path arrays add about ``2048 * 30 * n`` bytes.
    ``dead_shift``: the initial number of a player with dead groups is its move count
    shifted right by this (0: not lowered; -1: all initial numbers 1, plain df-pn).
    ``dedup``: moves that lead to the very same position (a stone that dies at once with
    the dead groups it joined, whatever point it took) are one child, not several.
    ``lookahead``: a child where the player to move loses with every move is a won leaf
    at once (``LOOK_ALL_DEAD``: looked for only when all of that player's groups are
    dead; ``LOOK_ALWAYS``; ``LOOK_OFF``).  ``abandon``: a move after which the mover's own
    dead groups went off the board gets its initial number doubled (it gave up stones).
    ``mobility``: the move count ``a`` of the player to move is weighed against the
    other player's ``b``: ``2a * a / (a + b)`` instead of ``a``.  ``knowledge_budget``: a
    child that the settled rule (:mod:`solver.search.knowledge`) decides within this many
    solitaire states per owner is a leaf won by its owner (0: the rule is not used).
    ``shared`` (:mod:`solver.search.parallel`): the table arrays ``(tt_key, tt_pn, tt_dn,
    tt_move, tt_work, busy)`` to use instead of new ones (views on memory that worker
    processes share; then ``tt_mb`` sizes the re-walk set alone), ``worker`` this
    search's row of ``busy`` (-1: it searches alone).  ``guide``: the move model orders
    the children and sets their initial numbers (:mod:`solver.search.guide`)."""
    if shared is not None:
        seen_mb = tt_mb if seen_mb is None else seen_mb
    seen_bytes = (tt_mb / 5 if seen_mb is None else seen_mb) * 2**20
    table_bytes = tt_mb * 2**20 - seen_bytes
    # whole buckets, as many as fit (not a power of two: a 9 GB request gets 7.2 GB of
    # table, not the 5.4 GB of the power of two below it)
    size = max(BUCKET, int(table_bytes // SLOT_BYTES) // BUCKET * BUCKET)
    seen = max(BUCKET, int(seen_bytes // 8) // BUCKET * BUCKET)
    n = t.n
    return Dfpn(
        np.zeros((2 * MAX_PLY, t.w), np.uint64), np.zeros(MAX_PLY, np.uint64),
        np.zeros((MAX_PLY, 4), np.uint64),
        np.zeros((MAX_PLY, n), np.int32), np.zeros((MAX_PLY, n), np.uint64),
        np.zeros((MAX_PLY, n), np.int64), np.zeros((MAX_PLY, n), np.int64),
        np.zeros((MAX_PLY, n), np.int8),
        # an empty slot is all zeros, so no page of the table is touched before the
        # search writes to it (its cost follows its use, not its size)
        *(shared[:5] if shared is not None else (
            zeroed(size, np.uint64), zeroed(size, np.uint32), zeroed(size, np.uint32),
            zeroed(size, np.int16), zeroed(size, np.uint32))),
        zeroed(seen, np.uint64),
        np.zeros(N_STATS, np.int64),
        np.array([0, prover, int(use_symmetry), int(round(eps * 1000)), dead_shift, int(use_table),
                  int(dedup), int(lookahead), int(abandon), int(mobility), int(knowledge_budget > 0)],
                 np.int64),
        shared[5] if shared is not None else np.zeros((1, 1), np.int32),
        np.array([worker if shared is not None else -1], np.int64),
        # without the rule, no scratch: None, a type of its own, so that the kernels
        # compiled for such a search leave the rule out (see _settled)
        knowledge.new_scratch(t, knowledge_budget, cache=knowledge.CACHE_SIZE) if knowledge_budget > 0 else None,
        guide,
    )


def _settled(T, D, child, cs, key, ply):
    """Whether the settled rule decides ``child`` (``cs`` to move, table key ``key``,
    at ``ply + 1``); its winner is then :func:`_settled_winner`.  Compiled code only."""
    raise NotImplementedError


def _settled_winner(D):
    """The winner of the child :func:`_settled` decided.  Compiled code only."""
    raise NotImplementedError


def _no_rule(D) -> bool:
    """Whether the search ``D`` (a numba type) was made without the settled rule."""
    return isinstance(D.types[D.fields.index("know")], types.NoneType)


# The settled rule is compiled into a search only when its Dfpn has the rule's scratch:
# a search without it (the default, prove's DEFAULT_KNOWLEDGE) does not compile the rule's
# kernels (7 of the 27 s that df-pn took to compile on a board's first use).
@overload(_settled, jit_options={"_nrt": False})
def _settled_impl(T, D, child, cs, key, ply):
    if _no_rule(D):
        return lambda T, D, child, cs, key, ply: False

    def impl(T, D, child, cs, key, ply):
        return knowledge.worth_a_look(T, D.know, child) and knowledge.affordable(
            D.know, D.stats[EXPANSIONS]) and knowledge.settled_child(
            T, D.know, child, cs, key, D.stack, D.path_keys, ply + 1) >= 0
    return impl


@overload(_settled_winner, jit_options={"_nrt": False})
def _settled_winner_impl(D):
    if _no_rule(D):
        return lambda D: -1
    return lambda D: D.know.out[0]


def _unguided(D) -> bool:
    """Whether the search ``D`` (a numba type) was made without a move model."""
    return isinstance(D.types[D.fields.index("guide")], types.NoneType)


def _guide_node(T, D, ply, side):
    """Score the moves of the node at ``ply`` with the model (nothing without one)."""
    raise NotImplementedError


def _guided(D, ply, cell, k, or_node):
    """The number ``k`` that chooses the child of move ``cell`` of the node at ``ply`` (an
    OR node if ``or_node``), as the model weighs it."""
    raise NotImplementedError


def _note_move(D, ply, cell):
    """Remember that ``cell`` was played into ``ply`` (the model's last moves)."""
    raise NotImplementedError


def _order(D, ply, nc, or_node):
    """Sort the ``nc`` children of the node at ``ply`` (an OR node if ``or_node``) by the
    model's score, likeliest first."""
    raise NotImplementedError


def _focus(D, ply, or_node, spent):
    """How many children not disproven the node at ``ply`` (an OR node if ``or_node``;
    ``spent`` expansions into this visit) counts, in the model's order (0: all)."""
    raise NotImplementedError


# As the settled rule: the model is compiled into a search only when its Dfpn carries a
# guide, so an unguided search compiles and runs as if it did not exist.
@overload(_guide_node, jit_options={"_nrt": False})
def _guide_node_impl(T, D, ply, side):
    if _unguided(D):
        return lambda T, D, ply, side: None

    def impl(T, D, ply, side):
        g = D.guide
        g.valid[ply] = 0
        if g.params[G_.P_SIDES] == G_.OR_MODEL and side != D.limits[PROVER]:
            return  # not scored: the other player's nodes stay plain
        if g.params[G_.P_LAZY] > 0:
            key, _ = _node_key(D, ply)
            if _find(D, key) < 0:
                return  # a first visit: plain
        prev = g.path_move[ply - 1] if ply >= 1 else -1
        G_.node_factors(T, g, D.stack[2 * ply: 2 * ply + 2], side, g.path_move[ply], prev, D.keys[ply, 0])
        g.valid[ply] = 1
    return impl


@overload(_guided, jit_options={"_nrt": False})
def _guided_impl(D, ply, cell, k, or_node):
    if _unguided(D):
        return lambda D, ply, cell, k, or_node: k

    def impl(D, ply, cell, k, or_node):
        if not D.guide.valid[ply]:
            return np.int64(k)
        sides = D.guide.params[G_.P_SIDES]
        if ((sides == G_.OR_ONLY or sides == G_.OR_MODEL) and not or_node) or (sides == G_.AND_ONLY and or_node):
            return np.int64(k)
        x = np.int64(k * D.guide.factor[cell] + 0.5)
        return max(np.int64(1), min(x, np.int64(INF // 4)))
    return impl


@overload(_note_move, jit_options={"_nrt": False})
def _note_move_impl(D, ply, cell):
    if _unguided(D):
        return lambda D, ply, cell: None

    def impl(D, ply, cell):
        if ply < D.guide.path_move.shape[0]:
            D.guide.path_move[ply] = cell
    return impl


@overload(_order, jit_options={"_nrt": False})
def _order_impl(D, ply, nc, or_node):
    if _unguided(D):
        return lambda D, ply, nc, or_node: None

    def impl(D, ply, nc, or_node):
        if not D.guide.valid[ply]:
            return  # not scored (the other player's node, or a lazy guide's first visit)
        score = D.guide.score
        # insertion sort, stable: equal scores keep the generator's order
        for i in range(1, nc):
            cell = D.ch_cell[ply, i]
            key = D.ch_key[ply, i]
            pn = D.ch_pn[ply, i]
            dn = D.ch_dn[ply, i]
            flag = D.ch_flag[ply, i]
            s = score[cell]
            j = i - 1
            while j >= 0 and score[D.ch_cell[ply, j]] < s:
                D.ch_cell[ply, j + 1] = D.ch_cell[ply, j]
                D.ch_key[ply, j + 1] = D.ch_key[ply, j]
                D.ch_pn[ply, j + 1] = D.ch_pn[ply, j]
                D.ch_dn[ply, j + 1] = D.ch_dn[ply, j]
                D.ch_flag[ply, j + 1] = D.ch_flag[ply, j]
                j -= 1
            D.ch_cell[ply, j + 1] = cell
            D.ch_key[ply, j + 1] = key
            D.ch_pn[ply, j + 1] = pn
            D.ch_dn[ply, j + 1] = dn
            D.ch_flag[ply, j + 1] = flag
    return impl


@overload(_focus, jit_options={"_nrt": False})
def _focus_impl(D, ply, or_node, spent):
    if _unguided(D):
        return lambda D, ply, or_node, spent: np.int64(0)

    def impl(D, ply, or_node, spent):
        g = D.guide
        k = np.int64(g.params[G_.P_FOCUS])
        if k <= 0 or not or_node or not g.valid[ply]:
            return np.int64(0)
        w = g.params[G_.P_WIDEN]
        if w > 1.0:
            work = spent
            key, _ = _node_key(D, ply)
            slot = _find(D, key)
            if slot >= 0:
                work += np.int64(D.tt_work[slot])
            k += np.int64(math.log(1.0 + work) / math.log(w))
        return k
    return impl


# --- keys and the table --------------------------------------------------------------------
@kernel
def _node_key(D, ply):
    """(table key, symmetry giving it) of the node at ``ply``."""
    best = D.keys[ply, 0]
    s_best = 0
    if D.limits[USE_SYMMETRY]:
        for s in range(1, D.keys.shape[1]):
            if D.keys[ply, s] < best:
                best = D.keys[ply, s]
                s_best = s
    if D.limits[PROVER] == 1:
        best ^= PROVER_SALT
    # 0 marks an empty slot, and the empty board's Zobrist key is 0
    best ^= KEY_SALT
    if best == 0:
        best = np.uint64(1)
    return best, s_best


@kernel(inline="always")
def _bucket(key, slots):
    """The first slot of ``key``'s bucket in a table of ``slots`` slots."""
    return int(key % np.uint64(slots // BUCKET)) * BUCKET


@kernel
def _find(D, key):
    """The slot holding ``key``, or -1."""
    if not D.limits[USE_TABLE]:
        return -1
    base = _bucket(key, D.tt_key.shape[0])
    for i in range(base, base + BUCKET):
        if D.tt_key[i] == key:
            return i
    return -1


@kernel
def _store(D, key, pn, dn, move, work):
    if not D.limits[USE_TABLE]:
        return
    base = _bucket(key, D.tt_key.shape[0])
    victim = -1
    victim_rank = np.int64(1) << 62
    for i in range(base, base + BUCKET):
        if D.tt_key[i] == key or D.tt_key[i] == 0:
            victim = i
            break
        solved = D.tt_pn[i] == 0 or D.tt_dn[i] == 0
        rank = np.int64(D.tt_work[i]) + (np.int64(1) << 40 if solved else np.int64(0))
        if rank < victim_rank:
            victim_rank = rank
            victim = i
    D.tt_key[victim] = key
    D.tt_pn[victim] = pn
    D.tt_dn[victim] = dn
    D.tt_move[victim] = move + 1  # -1 (no move) is stored as 0
    D.tt_work[victim] = min(work, 0xFFFFFFFF)
    D.stats[STORES] += 1


@kernel
def _grow(x, eps_per_mille):
    """The 1+epsilon threshold above a second-best number ``x``."""
    if x >= INF - 1:
        return INF - 1
    g = (x * (1000 + eps_per_mille) + 999) // 1000
    if g < x + 1:
        g = x + 1
    return min(g, INF - 1)


# --- parallel workers (solver.search.parallel) ---------------------------------------------
@kernel
def _busy(D, key, step):
    """Mark (``step`` 1) or unmark (-1) the node ``key`` as on this worker's search path,
    in this worker's own row of ``D.busy`` (no other process writes it: no lost update)."""
    if D.worker[0] >= 0:
        slot = int(key & np.uint64(D.busy.shape[1] - 1))  # a power of two: a mask, no division
        D.busy[D.worker[0], slot] += step


@kernel
def _virtual(D, key, x):
    """Kaneko's virtual proof number: the number ``x`` that chooses a child, plus one for
    each other worker whose path goes through the child now (the increase its work there
    may bring), so that of two equal children a worker takes the one nobody searches.
    0 and INF stay as they are, and nothing reaches INF - 1 (the root's threshold), so
    no node is ever solved or given up by it: it only orders."""
    others = 0
    slot = int(key & np.uint64(D.busy.shape[1] - 1))
    for w in range(D.busy.shape[0]):
        if w != D.worker[0] and D.busy[w, slot] > 0:
            others += 1
    if others == 0 or x == 0 or x >= INF - 1:
        return x
    return min(x + others, np.int64(INF - 2))


# --- the search ----------------------------------------------------------------------------
@kernel
def _all_moves_lose(T, D, ply, cs, cm):
    """Whether every move ``cm`` of ``cs`` in the child at ``ply + 1`` leaves ``cs``
    without stones (rows ``ply + 2`` of the stack are the scratch)."""
    child = D.stack[2 * ply + 2: 2 * ply + 4]
    scratch = D.stack[2 * ply + 4: 2 * ply + 6]
    while bb_any(cm):
        cell = bb_lowest(cm)
        cm = bb_clear_lowest(cm)
        for c in range(2):
            bb_store(scratch, c, bb_load(child, c, T.zero))
        lost, _ = core.play(T, scratch, cs, cell)
        if not lost:
            return False
    return True


@kernel
def _same_as_earlier(T, D, ply, side, nc, key):
    """Whether an earlier child of the node at ``ply`` is the very position now in row
    ``ply + 1`` (table keys first, then the stones, so a key collision never merges
    two positions)."""
    st = D.stack[2 * ply: 2 * ply + 2]
    child = D.stack[2 * ply + 2: 2 * ply + 4]
    scratch = D.stack[2 * ply + 4: 2 * ply + 6]
    for j in range(nc):
        if D.ch_key[ply, j] != key:
            continue
        for c in range(2):
            bb_store(scratch, c, bb_load(st, c, T.zero))
        core.play(T, scratch, side, np.int64(D.ch_cell[ply, j]))  # an int64 cell: play compiles once
        same = True
        for c in range(2):
            for i in range(child.shape[1]):
                if scratch[c, i] != child[c, i]:
                    same = False
        if same:
            return True
    return False


@kernel
def _expand(T, D, ply, side):
    """Generate the children of the node at ``ply``: fill the ``ch_*`` rows; return
    ``(count, decided)`` where ``decided`` is the index of a child that settles the node
    at once (a terminal win for the player to move), else -1."""
    st = D.stack[2 * ply: 2 * ply + 2]
    child = D.stack[2 * ply + 2: 2 * ply + 4]
    prover = D.limits[PROVER]
    # the knowledge below uses rows ply + 2 of the stack as scratch
    room = ply + 3 < MAX_PLY
    moves = core.live_moves_bb(T, st, side)
    nc = 0
    scored = False  # whether the model has scored this node's moves (when a child needs it)
    while bb_any(moves):
        cell = bb_lowest(moves)
        moves = bb_clear_lowest(moves)
        for c in range(2):
            bb_store(child, c, bb_load(st, c, T.zero))
        lost, removed = core.play(T, child, side, cell)
        D.ch_cell[ply, nc] = cell
        D.ch_key[ply, nc] = 0
        winner = -1
        cs = 1 - side
        if lost:
            winner = cs
        else:
            cm = core.live_moves_bb(T, child, cs)
            if not bb_any(cm):
                if core.count(child, cs) >= 2 and core.count(child, side) == 0:
                    winner = cs
                else:
                    winner = side
            else:
                child_keys(T, D.keys, ply, side, cell, removed)
                key, _ = _node_key(D, ply + 1)
                if D.limits[DEDUP] and room and _same_as_earlier(T, D, ply, side, np.int64(nc), key):
                    continue  # the same position as an earlier move's: one child
                D.ch_key[ply, nc] = key
                look = D.limits[LOOKAHEAD]
                dead = T.zero
                known = False  # whether ``dead`` holds cs's dead stones (computed once)
                if look == LOOK_ALL_DEAD and room:
                    dead = core.dead_bb(T, child, cs)
                    known = True
                    look = core.count(child, cs) >= 2 and bb_eq(dead, bb_load(child, cs, T.zero))
                if ply + 2 >= MAX_PLY or repeats(D, ply + 1, child):
                    D.ch_flag[ply, nc] = TAINTED
                    D.ch_pn[ply, nc] = INF
                    D.ch_dn[ply, nc] = 0
                    D.stats[REPETITIONS] += 1
                elif look and room and _all_moves_lose(T, D, ply, cs, cm):
                    winner = side
                elif D.limits[KNOWLEDGE] and _settled(T, D, child, cs, key, ply):
                    winner = _settled_winner(D)  # the path above the child is the guard's
                else:
                    k = bb_popcount(cm)
                    if D.limits[DEAD_SHIFT] < 0:
                        k = 1  # all-ones: plain df-pn, for measurements
                    else:
                        if D.limits[MOBILITY]:
                            b = bb_popcount(core.legal_bb(T, child, side))
                            k = max(1, (2 * k * k + k + b - 1) // (k + b))
                        if D.limits[DEAD_SHIFT] and not known:
                            dead = core.dead_bb(T, child, cs)
                        if D.limits[DEAD_SHIFT] and bb_any(dead):
                            k = max(1, k >> D.limits[DEAD_SHIFT])
                        if D.limits[ABANDON] and bb_any(removed):
                            k *= 2
                    if not scored:
                        _guide_node(T, D, ply, side)
                        scored = True
                    k = _guided(D, ply, cell, k, side == prover)
                    D.ch_flag[ply, nc] = OPEN
                    if cs == prover:
                        D.ch_pn[ply, nc] = 1
                        D.ch_dn[ply, nc] = k
                    else:
                        D.ch_pn[ply, nc] = k
                        D.ch_dn[ply, nc] = 1
        if winner >= 0:
            D.ch_flag[ply, nc] = TERMINAL
            if winner == prover:
                D.ch_pn[ply, nc] = 0
                D.ch_dn[ply, nc] = INF
            else:
                D.ch_pn[ply, nc] = INF
                D.ch_dn[ply, nc] = 0
            if winner == side:
                return nc + 1, nc
        nc += 1
    return nc, -1


@kernel
def _child_numbers(D, ply, i):
    """(pn, dn) of child ``i`` of the node at ``ply``: the table's if it has them."""
    if D.ch_flag[ply, i] == OPEN:
        slot = _find(D, D.ch_key[ply, i])
        if slot >= 0:
            pn, dn = np.int64(D.tt_pn[slot]), np.int64(D.tt_dn[slot])
            if D.busy.shape[0] == 1 or _whole(pn, dn):
                D.stats[TT_HITS] += 1
                return pn, dn
    return D.ch_pn[ply, i], D.ch_dn[ply, i]


@kernel(inline="always")
def _whole(pn, dn):
    """Whether ``(pn, dn)`` can be one entry's: a proof (pn 0) has dn INF and a disproof
    (dn 0) pn INF, in every entry one search writes.  Parallel workers write the table
    unlocked, and an entry written by two at once can pair one's pn with the other's dn:
    a search on a shared table (``busy`` has a row per worker) passes over such an entry
    (as if missing) instead of taking a torn dn INF for a proof's."""
    return (pn == 0) == (dn >= INF) and (dn == 0) == (pn >= INF)


@kernel
def _canonical_cell(T, D, ply, cell):
    """``cell`` in the orientation of the table key of the node at ``ply``."""
    _, s = _node_key(D, ply)
    return T.sym[s, cell]


@kernel
def mid(T, D, ply, side, thpn, thdn):
    """Search the node at ``ply`` (position ``D.stack[2*ply:2*ply+2]``, keys in
    ``D.keys[ply]``, ``side`` to move, not finished) until its proof number reaches
    ``thpn`` or its disproof number ``thdn``.  Returns ``(pn, dn, tainted)``.  When the
    expansion budget runs out, ``D.stats[ABORTED]`` is set and nothing more is stored."""
    # the budget counts expansions and re-walked nodes together
    if D.limits[MAX_EXPANSIONS] > 0 and D.stats[EXPANSIONS] + D.stats[REWALKED] >= D.limits[MAX_EXPANSIONS]:
        D.stats[ABORTED] = 1
        return np.int64(0), np.int64(0), False
    D.stats[EXPANSIONS] += 1
    if ply > D.stats[DEEPEST]:
        D.stats[DEEPEST] = ply
    D.path_keys[ply] = D.keys[ply, 0]
    start = D.stats[EXPANSIONS]
    or_node = side == D.limits[PROVER]
    eps = D.limits[EPS_PER_MILLE]
    nc, decided = _expand(T, D, ply, side)
    pn = np.int64(0)
    dn = np.int64(0)
    best = -1
    if decided < 0:
        _order(D, ply, nc, or_node)
    if decided >= 0:
        best = decided
        if or_node:
            pn, dn = np.int64(0), np.int64(INF)
        else:
            pn, dn = np.int64(INF), np.int64(0)
    else:
        while True:
            # the node's numbers from its children's, and the child to search
            best = -1
            b1 = np.int64(INF) + 1   # best child's number (pn at OR, dn at AND)
            b2 = np.int64(INF)       # second best
            total = np.int64(0)
            saturated = False
            other_best = np.int64(0)  # the best child's other number
            # focused (the model's): the children in order until ``kf`` are not disproven,
            # and any proven child; a disproof still needs every child disproven
            kf = _focus(D, ply, or_node, D.stats[EXPANSIONS] - start)
            taken = 0
            for i in range(nc):
                cpn, cdn = _child_numbers(D, ply, i)
                if or_node:
                    x, y = cpn, cdn
                else:
                    x, y = cdn, cpn
                if kf > 0:
                    if taken >= kf:
                        if x != 0:
                            continue
                    elif y != 0:
                        taken += 1
                if D.worker[0] >= 0:
                    x = _virtual(D, D.ch_key[ply, i], x)
                if x < b1:
                    b2 = b1 if b1 <= INF else np.int64(INF)
                    b1 = x
                    best = i
                    other_best = y
                elif x < b2:
                    b2 = x
                if y >= INF:
                    saturated = True
                total += y
            mn = b1
            sm = np.int64(INF) if saturated else min(total, np.int64(INF - 1))
            if or_node:
                pn, dn = mn, sm
            else:
                pn, dn = sm, mn
            if pn >= thpn or dn >= thdn:
                break
            # thresholds of the best child
            if or_node:
                cthpn = min(thpn, _grow(b2, eps))
                cthdn = min(thdn - dn + other_best, np.int64(INF - 1))
            else:
                cthdn = min(thdn, _grow(b2, eps))
                cthpn = min(thpn - pn + other_best, np.int64(INF - 1))
            cell = D.ch_cell[ply, best]
            _note_move(D, ply + 1, cell)
            enter_child(T, D, ply, side, cell)
            _busy(D, D.ch_key[ply, best], np.int64(1))  # not a literal: one compile for both
            cpn, cdn, ctaint = mid(T, D, ply + 1, 1 - side, cthpn, cthdn)
            _busy(D, D.ch_key[ply, best], np.int64(-1))
            if D.stats[ABORTED]:
                return np.int64(0), np.int64(0), False
            D.ch_pn[ply, best] = cpn
            D.ch_dn[ply, best] = cdn
            if ctaint:
                D.ch_flag[ply, best] = TAINTED
    # was a disproof helped by a repetition?  (a proof never is)
    tainted = False
    move = -1
    if dn == 0:
        if or_node:
            for i in range(nc):
                if D.ch_flag[ply, i] == TAINTED:
                    tainted = True
        else:
            tainted = True
            for i in range(nc):
                if D.ch_flag[ply, i] != TAINTED:
                    _, cdn = _child_numbers(D, ply, i)
                    if cdn == 0:
                        tainted = False
                        move = D.ch_cell[ply, i]
                        break
    elif pn == 0 and or_node:
        move = D.ch_cell[ply, best]
    if decided >= 0:
        move = D.ch_cell[ply, decided]
    if not tainted:
        key, _ = _node_key(D, ply)
        canon_move = -1 if move < 0 else _canonical_cell(T, D, ply, move)
        _store(D, key, pn, dn, canon_move, D.stats[EXPANSIONS] - start + 1)
    return pn, dn, tainted


# --- re-walking a proof ---------------------------------------------------------------------
WINNER_SALT = np.uint64(0xD1B54A32D192ED03)


@kernel
def _solved_for(D, slot, winner):
    """Whether table entry ``slot`` says ``winner`` wins there."""
    if winner == D.limits[PROVER]:
        return D.tt_pn[slot] == 0
    return D.tt_dn[slot] == 0


@kernel
def _seen_key(D, ply, winner):
    best = D.keys[ply, 0]
    for s in range(1, D.keys.shape[1]):
        if D.keys[ply, s] < best:
            best = D.keys[ply, s]
    if winner == 1:
        best ^= WINNER_SALT
    best ^= KEY_SALT  # 0 marks an empty slot
    if best == 0:
        best = np.uint64(1)
    return best


@kernel
def _seen_has(D, key):
    base = _bucket(key, D.seen.shape[0])
    for i in range(base, base + BUCKET):
        if D.seen[i] == key:
            return True
    return False


@kernel
def _seen_add(D, key):
    base = _bucket(key, D.seen.shape[0])
    for i in range(base, base + BUCKET):
        if D.seen[i] == 0 or D.seen[i] == key:
            D.seen[i] = key
            return
    # a full bucket: forget one (the set only saves re-walking a shared subtree again)
    D.seen[base + int((key >> np.uint64(40)) & np.uint64(BUCKET - 1))] = key


@kernel
def _table_move(T, D, ply):
    """The move the table holds for the node at ``ply``, in its real orientation, or -1."""
    key, s = _node_key(D, ply)
    slot = _find(D, key)
    if slot < 0 or D.tt_move[slot] == 0:
        return -1
    canon = D.tt_move[slot] - 1
    for c in range(T.sym.shape[1]):
        if T.sym[s, c] == canon:
            return c
    return -1


@kernel
def rewalk(T, D, ply, side, winner):
    """Check that ``winner`` wins the node at ``ply`` (not finished, ``side`` to move) by
    walking the strategy in the table: one winning move at the winner's turns, every
    legal reply at the other's, every leaf a finished game the winner has won, no
    position repeating one on the path.  An entry missing from the table (evicted) is
    searched again.  Returns 1 (checked), 0 (not a win) or -1 (the budget ran out)."""
    if D.limits[MAX_EXPANSIONS] > 0 and D.stats[EXPANSIONS] + D.stats[REWALKED] >= D.limits[MAX_EXPANSIONS]:
        D.stats[ABORTED] = 1
        return -1
    D.stats[REWALKED] += 1
    D.path_keys[ply] = D.keys[ply, 0]
    skey = _seen_key(D, ply, winner)
    if _seen_has(D, skey):
        return 1
    for attempt in range(2):
        nc, decided = _expand(T, D, ply, side)
        if decided >= 0:
            if side == winner:
                _seen_add(D, skey)
                return 1
            return 0
        if side == winner:
            first = _table_move(T, D, ply)
            # the table's move first, then any child the table has as won
            for pass_ in range(2):
                for i in range(nc):
                    cell = D.ch_cell[ply, i]
                    if (pass_ == 0) != (cell == first):
                        continue
                    if D.ch_flag[ply, i] != OPEN:
                        continue
                    slot = _find(D, D.ch_key[ply, i])
                    if slot < 0 or not _solved_for(D, slot, winner):
                        continue
                    _note_move(D, ply + 1, cell)
                    enter_child(T, D, ply, side, cell)
                    r = rewalk(T, D, ply + 1, 1 - side, winner)
                    if r < 0:
                        return r
                    if r == 1:
                        _seen_add(D, skey)
                        return 1
        else:
            ok = True
            for i in range(nc):
                if D.ch_flag[ply, i] == TERMINAL:
                    continue  # not a win for the player to move (decided < 0)
                if D.ch_flag[ply, i] == TAINTED:
                    return 0  # a repetition: not a finite win
                cell = D.ch_cell[ply, i]
                _note_move(D, ply + 1, cell)
                enter_child(T, D, ply, side, cell)
                r = rewalk(T, D, ply + 1, 1 - side, winner)
                if r < 0:
                    return r
                if r == 0:
                    ok = False
                    break
            if ok:
                _seen_add(D, skey)
                return 1
        if attempt == 1:
            break
        # the table lacks (or misstates) this node's strategy: search it again
        D.stats[RESEARCHED] += 1
        pn, dn, _ = mid(T, D, ply, side, np.int64(INF - 1), np.int64(INF - 1))
        if D.stats[ABORTED]:
            return -1
        if (pn != 0) if winner == D.limits[PROVER] else (dn != 0):
            return 0
    return 0


# --- driving from Python -------------------------------------------------------------------
def load_root(D: Dfpn, t: core.Tables, path: list) -> int:
    """Put the positions of ``path`` (``(st, side)`` pairs, oldest first, the root last)
    on the search path, so that repeating any of them counts against the prover; return
    the root's ply."""
    if len(path) + 2 >= MAX_PLY:
        raise ValueError(f"a game history of {len(path)} positions is too long to search")
    for ply, (st, side) in enumerate(path):
        D.stack[2 * ply: 2 * ply + 2] = st
        core.zobrist_keys(t, st, side, D.keys[ply])
        D.path_keys[ply] = D.keys[ply, 0]
    if D.guide is not None:
        D.guide.path_move[:] = -1
        for ply in range(1, len(path)):
            (before, mover), (after, _) = path[ply - 1], path[ply]
            placed = np.asarray(after[mover]) & ~np.asarray(before[mover])
            cells = [64 * i + b for i, word in enumerate(placed.tolist()) for b in range(64) if word >> b & 1]
            if len(cells) == 1:  # else the stone died at once: no cell to measure from
                D.guide.path_move[ply] = cells[0]
    return len(path) - 1


@kernel
def probe(T, D, st, side):
    """The table entry of the position ``st`` with ``side`` to move: ``(found, pn, dn,
    move, work)``, the move in the position's own orientation (-1: none)."""
    ply = MAX_PLY - 1  # a row the search never reaches
    for c in range(2):
        bb_store(D.stack[2 * ply: 2 * ply + 2], c, bb_load(st, c, T.zero))
    core.zobrist_keys(T, st, side, D.keys[ply])
    key, _ = _node_key(D, ply)
    slot = _find(D, key)
    if slot < 0:
        return False, np.int64(0), np.int64(0), -1, np.int64(0)
    return (True, np.int64(D.tt_pn[slot]), np.int64(D.tt_dn[slot]), _table_move(T, D, ply),
            np.int64(D.tt_work[slot]))


@kernel
def plant(T, D, st, side, pn, dn, cell, work):
    """Store ``(pn, dn)``, the move ``cell`` (in the position's own orientation; -1: none)
    and ``work`` as the table entry of the position ``st`` with ``side`` to move, for D's
    prover; the inverse of :func:`probe`."""
    ply = MAX_PLY - 1
    for c in range(2):
        bb_store(D.stack[2 * ply: 2 * ply + 2], c, bb_load(st, c, T.zero))
    core.zobrist_keys(T, st, side, D.keys[ply])
    key, s = _node_key(D, ply)
    _store(D, key, pn, dn, T.sym[s, cell] if cell >= 0 else -1, work)


def load_kernels(t: core.Tables, knowledge: bool = False, guided: bool = False) -> None:
    """Load the kernels a proof on the board of ``t`` runs (:func:`mid`, :func:`rewalk`,
    :func:`probe`), compiling them on the board's first use, with the argument types
    :func:`solver.search.prove.prove` gives them: each call here returns at once.
    ``knowledge``: those of a search with the settled rule (another type of Dfpn);
    ``guided``: those of a search with a move model (another again)."""
    from .policy import PolicyModel

    guide = G_.new_guide(t, PolicyModel.uniform()) if guided else None
    D = new_dfpn(t, 0, 0.001, knowledge_budget=1 if knowledge else 0, guide=guide)
    st = core.new_position(t)
    st.flags.writeable = False  # as a Position's stones
    ply = load_root(D, t, [(st, 0)])
    D.limits[MAX_EXPANSIONS] = 1
    D.stats[EXPANSIONS] = 1  # the budget is spent: mid and rewalk stop at once
    core.load_kernels(t, "the df-pn search", [
        (mid, (t, D, ply, 0, INF - 1, INF - 1)), (rewalk, (t, D, ply, 0, 0)),
        (probe, (t, D, st, 0)),
    ])
