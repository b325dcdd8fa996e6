"""The compiled half of the engine (:mod:`solver.search.mcts`): the search tree in numpy
arrays and the MCTS-Solver iteration loop as one kernel.

Kept apart from the driver because any edit of a file that defines kernels empties the
whole kernel cache (see ``core._drop_stale_cache``): the driver, its result and its
reports change without recompiling anything.

**Tree.**  Node 0 is the root.  A node holds the move (a cell) that leads to it from its
parent, its children as a range ``first .. first + nchild`` (``first = -1``: not
expanded), its visits, its score, and its proof state.  Positions are not stored: every
iteration replays the moves from the root (a few plays, against the tens of plies of the
playout that follows).  ``score`` counts half points for the player who moved *into* the
node (2 a win, 1 a draw), so a parent compares its children directly.

**Proof states**, for the player to move at the node: ``WON``, ``LOST`` (the rules'
outcome, or backed up), ``DRAWN`` (the position repeats one of the game before the root:
RULES.md's draw; a leaf, never proven), ``OPEN``.  MCTS-Solver (Winands, Björnsson and
Saito 2008): a node with a child ``LOST`` is ``WON``; a node whose children are all
``WON`` is ``LOST``.  A node is expanded all at once and every child is played on the
spot, so a child that ends the game is known at once (a capture-in-1 is a proven win
after the first expansion).

**Soundness of a proven value.**  Positions that repeat within the tree are not looked
for, yet a ``WON`` root is a win under the repetition rule: the proof is a finite tree
whose leaves are won end positions and none is a position of the game before the root
(those are ``DRAWN``); a smallest such tree repeats no position along any line (a repeated
position's later subtree would prove the earlier one with fewer nodes), so the winner
following it never meets a repetition.  Playout results are estimates only.

**Selection**, one of three (``params[SELECT]``); children ``WON`` for their mover
(losing moves) are never selected, and ties go to the earlier child (children are
shuffled when created, so ties are broken at random):

- ``UCT``: an unvisited child first, else the child with the most ``q + c *
  sqrt(ln(parent visits) / visits)``, ``q = score / (2 visits)`` (the engine before the
  move model; the match player ``uct``);
- ``PUCT`` (AlphaZero's rule with the move model's priors ``P``): the child with the most
  ``q + c_p * P * sqrt(parent visits) / (1 + visits)``, an unvisited child's ``q`` being
  the parent's own mean result for its player to move less ``fpu`` (first-play urgency);
- ``BIAS`` (progressive bias): the unvisited child of highest prior first, else UCT's
  value plus ``c_p * P / (1 + visits)``.

A leaf is expanded once it has ``expand_at`` visits (the root at once).  With ``PUCT``
or ``BIAS`` the expansion also computes every child's prior: the move model's softmax
(:mod:`.policy`) over the features (:func:`.features.move_features`) of the node's
moves, the last move and the one before being those that lead to the node (above the
root: the game's, ``params[ROOT_LAST]`` and ``params[ROOT_PREV]``).  Priors order and
focus the search only; proofs are backed up as before.

**RAVE** (with ``PUCT`` only, ``params[RAVE_REF] > 0``; Gelly and Silver's rapid action
value estimate, with Cazenave's GRAVE reference): every child also counts the iterations
through its parent in which its mover played its cell later on (in the descent or the
playout), and their results (``amaf_n``, ``amaf_s``, half points as ``score``).  A child's
``q`` becomes ``(1 - b) q + b q_amaf`` with ``b = m / (m + n + bias m n)`` (``n`` its
visits, ``m`` the AMAF count, ``bias`` = ``knobs[RAVE_BIAS]``); an unvisited child's ``q``
is then its AMAF mean alone.  The AMAF counts are read at the nearest node from the node
up, in steps of two plies (the same player to move), with at least ``params[RAVE_REF]``
visits (GRAVE: a young node borrows its ancestor's better-filled statistics).  RAVE
orders only; proofs are backed up as before.

**Playouts** (:func:`_playout`): random legal moves, except that a move after which the
mover loses stones of their own (a group of theirs left with no path, removed at once)
is drawn again, up to ``tries`` draws in all: a cheap bias towards saving one's groups
(the removal is computed by the placement anyway).  ``tries = 1``: uniform playouts.
With ``params[POLICY_PLIES] > 0`` the first that many plies of each playout are drawn
from the move model instead (:func:`_policy_pick`: its softmax over the legal moves,
given the last two moves), the rest as above: the model's playouts, which cost a feature
computation a ply.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.rules import core
from solver.rules.bits import bb_any, bb_clear_lowest, bb_load, bb_lowest, bb_popcount, bb_store
from solver.rules.core import kernel
from .features import _CANON, K, LABEL_ROWS, N_FEATURES, OFFSETS, move_features

__all__ = [
    "OPEN", "WON", "LOST", "DRAWN", "Tree", "new_tree", "grow", "set_root", "iterate", "subtree", "refresh",
    "load_kernels", "NODES", "ITERATIONS", "PLAYOUTS", "PLIES", "FULL", "DEEPEST", "UCT", "PUCT", "BIAS",
]

OPEN, WON, LOST, DRAWN = 0, 1, 2, 3
# stats slots
NODES, ITERATIONS, PLAYOUTS, PLIES, FULL, DEEPEST = range(6)
# params slots
ROOT_SIDE, EXPAND_AT, MAX_PLIES, HISTORY, SOLVER, TRIES, SELECT, ROOT_LAST, ROOT_PREV, RAVE_REF, POLICY_PLIES = range(11)
# knobs slots: the prior's weight c_p, the first-play reduction, RAVE's bias
PRIOR_C, FPU, RAVE_BIAS = range(3)
# selection rules (params[SELECT])
UCT, PUCT, BIAS = range(3)
#: the deepest path a descent follows; below it a leaf is not expanded
MAX_DEPTH = 4096


class Tree(NamedTuple):
    """The arrays of one search (capacity: the length of the node arrays)."""

    parent: np.ndarray    # int32 (cap,)
    first: np.ndarray     # int32 (cap,): first child, -1 while not expanded
    nchild: np.ndarray    # int32 (cap,)
    move: np.ndarray      # int32 (cap,): the cell played to reach the node
    visits: np.ndarray    # int64 (cap,)
    score: np.ndarray     # int64 (cap,): half points of the player who moved into the node
    proof: np.ndarray     # int8 (cap,): OPEN, WON, LOST or DRAWN, for the player to move
    root: np.ndarray      # uint64 (2, w): the root position
    hist: np.ndarray      # uint64 (h, 2, w): the game's positions before the root
    hist_side: np.ndarray  # int8 (h,): their players to move
    cur: np.ndarray       # uint64 (2, w): scratch, the position of the descent
    child: np.ndarray     # uint64 (2, w): scratch, a child being created
    cells: np.ndarray     # int32 (64 w,): scratch, the moves of a node being expanded
    path: np.ndarray      # int32 (MAX_DEPTH,): the nodes of the descent
    walk: np.ndarray      # int32 (MAX_DEPTH,): scratch of refresh(), the next child at each depth
    stack: np.ndarray     # uint64 (2 MAX_DEPTH, w): scratch of refresh(), the positions on its path
    rng: np.ndarray       # uint64 (1,): splitmix64 state (playouts and shuffles)
    c: np.ndarray         # float64 (1,): the exploration constant
    stats: np.ndarray     # int64 (6,)
    params: np.ndarray    # int64 (11,)
    prior: np.ndarray     # float32 (cap,): the move model's probability of the node's move (PUCT, BIAS)
    weights: np.ndarray   # float64 (N_FEATURES,): the move model's weights
    offsets: np.ndarray   # int32 (K,): features.OFFSETS
    canon: np.ndarray     # int32 (4**6,): the pattern classes
    knobs: np.ndarray     # float64 (2,): PRIOR_C, FPU
    fmoves: np.ndarray    # int64 (64 w,): scratch of move_features, the moves
    feats: np.ndarray     # int32 (64 w, K): scratch of move_features, their features
    fst: np.ndarray       # uint64 (2, w): scratch of move_features
    label: np.ndarray     # int32 (LABEL_ROWS, 64 w): scratch of move_features
    probs: np.ndarray     # float64 (64 w,): scratch, the priors of a node being expanded
    amaf_n: np.ndarray    # int64 (cap,): RAVE, the iterations whose later moves held the node's move
    amaf_s: np.ndarray    # int64 (cap,): RAVE, their half points for the node's mover
    trace: np.ndarray     # int32 (max plies + 1,): the cells of the last playout
    seen: np.ndarray      # uint8 (2, 64 w): scratch of the back-up, the cells each colour played
    refidx: np.ndarray    # int32 (64 w,): scratch of RAVE's selection, a cell's child at the reference


def new_tree(t: core.Tables, capacity: int, seed: int, exploration: float, expand_at: int,
             max_plies: int, solver: bool = True, tries: int = 1, select: int = UCT,
             weights: np.ndarray | None = None, prior_c: float = 0.0, fpu: float = 0.0,
             rave_ref: int = 0, rave_bias: float = 0.0, policy_plies: int = 0) -> Tree:
    """An empty tree with room for ``capacity`` nodes; :func:`set_root` gives it a root.
    ``solver=False``: plain MCTS, for comparison: no proof is backed up (end positions
    are still leaves with their result) and losing moves are not set aside.  ``select``:
    ``UCT``, ``PUCT`` or ``BIAS`` (see the module's text), with the move model's
    ``weights`` (default all 0: uniform priors), ``prior_c`` and ``fpu``; with ``PUCT``,
    ``rave_ref`` > 0 turns RAVE on (its reference visits, with ``rave_bias``);
    ``policy_plies``: the plies of each playout drawn from the move model (0: none)."""
    cap = max(int(capacity), 1)
    nbits = 64 * t.w
    w = np.zeros(N_FEATURES) if weights is None else np.asarray(weights, np.float64)
    if w.shape != (N_FEATURES,):
        raise ValueError(f"the move model has {w.shape} weights, not ({N_FEATURES},)")
    return Tree(
        np.zeros(cap, np.int32), np.full(cap, -1, np.int32), np.zeros(cap, np.int32),
        np.zeros(cap, np.int32), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
        np.zeros(cap, np.int8), core.new_position(t), np.zeros((1, 2, t.w), np.uint64),
        np.zeros(1, np.int8), core.new_position(t), core.new_position(t),
        np.zeros(64 * t.w, np.int32), np.zeros(MAX_DEPTH, np.int32), np.zeros(MAX_DEPTH, np.int32),
        np.zeros((2 * MAX_DEPTH, t.w), np.uint64),
        np.array([seed & (2**64 - 1)], np.uint64), np.array([float(exploration)]),
        np.zeros(6, np.int64),
        np.array([0, expand_at, max_plies, 0, int(solver), tries, int(select), -1, -1, int(rave_ref),
                  int(policy_plies)], np.int64),
        np.zeros(cap, np.float32), w.copy(), OFFSETS.astype(np.int32), _CANON.astype(np.int32),
        np.array([float(prior_c), float(fpu), float(rave_bias)]), np.zeros(nbits, np.int64),
        np.zeros((nbits, K), np.int32), np.zeros((2, t.w), np.uint64), np.zeros((LABEL_ROWS, nbits), np.int32),
        np.zeros(nbits, np.float64), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
        np.zeros(max(int(max_plies), 0) + 1, np.int32), np.zeros((2, nbits), np.uint8), np.zeros(nbits, np.int32),
    )


def set_root(R: Tree, st: np.ndarray, side: int, history: list[tuple[np.ndarray, int]],
             keep: bool = False, last: int = -1, prev: int = -1) -> Tree:
    """``R`` with the root position ``st`` (``side`` to move) and the earlier positions
    of the game ``history`` (``(st, side)`` pairs), as one open, unexpanded node; with
    ``keep``, the nodes of ``R`` stay (``R`` from :func:`subtree`; then :func:`refresh`).
    ``last``, ``prev``: the cells of the game's last two moves (-1: none), for the priors."""
    h = max(len(history), 1)
    hist = np.zeros((h, 2, R.root.shape[1]), np.uint64)
    hist_side = np.zeros(h, np.int8)
    for i, (s, sd) in enumerate(history):
        hist[i] = s
        hist_side[i] = sd
    R.root[:] = st
    R.params[ROOT_SIDE] = side
    R.params[HISTORY] = len(history)
    R.params[ROOT_LAST] = last
    R.params[ROOT_PREV] = prev
    if keep:
        nodes = R.stats[NODES]
        R.stats[:] = 0
        R.stats[NODES] = nodes
        return R._replace(hist=hist, hist_side=hist_side)
    R.parent[0], R.first[0], R.nchild[0], R.move[0] = -1, -1, 0, -1
    R.visits[0] = R.score[0] = R.amaf_n[0] = R.amaf_s[0] = 0
    R.proof[0] = OPEN
    R.stats[:] = 0
    R.stats[NODES] = 1
    return R._replace(hist=hist, hist_side=hist_side)


def grow(R: Tree, capacity: int) -> Tree:
    """``R`` with node arrays of ``capacity`` (at least the nodes in use)."""
    used = int(R.stats[NODES])
    cap = max(int(capacity), used)

    def bigger(a, fill=0):
        out = np.full(cap, fill, a.dtype)
        out[:used] = a[:used]
        return out

    return R._replace(parent=bigger(R.parent), first=bigger(R.first, -1), nchild=bigger(R.nchild),
                      move=bigger(R.move), visits=bigger(R.visits), score=bigger(R.score),
                      proof=bigger(R.proof), prior=bigger(R.prior), amaf_n=bigger(R.amaf_n),
                      amaf_s=bigger(R.amaf_s))


@kernel
def _random(rng):
    """One step of splitmix64 on a one-element uint64 array; returns the next output."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def _in_history(R, st, side):
    """Whether ``st`` with ``side`` to move is a position of the game before the root."""
    for i in range(R.params[HISTORY]):
        if R.hist_side[i] != side:
            continue
        same = True
        for c in range(2):
            for j in range(st.shape[1]):
                if R.hist[i, c, j] != st[c, j]:
                    same = False
        if same:
            return True
    return False


@kernel
def _priors(T, R, side, last, prev):
    """The moves of ``R.cur`` (``side`` to move) into ``R.cells`` and the move model's
    probabilities of them into ``R.probs``; returns how many.  ``last``, ``prev``: the
    cells of the last two moves (-1: none)."""
    k = move_features(T, R.cur, side, last, prev, R.canon, R.fmoves, R.feats, R.fst, R.label)
    total = _weigh(R, k)
    for i in range(k):
        R.probs[i] /= total
        R.cells[i] = R.fmoves[i]
    return k


@kernel
def _weigh(R, k):
    """The move model's softmax weights of the ``k`` moves in ``R.feats`` into
    ``R.probs``, not normalised; returns their sum."""
    top = -np.inf
    for i in range(k):
        s = 0.0
        for f in range(R.feats.shape[1]):
            s += R.weights[R.offsets[f] + R.feats[i, f]]
        R.probs[i] = s
        top = max(top, s)
    total = 0.0
    for i in range(k):
        R.probs[i] = np.exp(R.probs[i] - top)
        total += R.probs[i]
    return total


@kernel
def _expand(T, R, node, side, last, prev):
    """Create the children of ``node`` (position ``R.cur``, ``side`` to move), shuffled,
    with their priors (``PUCT``, ``BIAS``: ``last`` and ``prev`` are the cells of the
    moves that led to the node), each played at once to see whether it ends the game;
    then the node is ``WON`` if a child is ``LOST``, ``LOST`` if every child is ``WON``."""
    if R.params[SELECT] == UCT:
        moves = core.legal_bb(T, R.cur, side)
        k = 0
        while bb_any(moves):
            R.cells[k] = bb_lowest(moves)
            R.probs[k] = 0.0
            k += 1
            moves = bb_clear_lowest(moves)
    else:
        k = _priors(T, R, side, last, prev)
    for i in range(k - 1, 0, -1):  # Fisher-Yates
        j = int(_random(R.rng) % np.uint64(i + 1))
        R.cells[i], R.cells[j] = R.cells[j], R.cells[i]
        R.probs[i], R.probs[j] = R.probs[j], R.probs[i]
    base = R.stats[NODES]
    won = False
    all_lost = True  # every child won by its player to move
    for i in range(k):
        x = base + i
        R.parent[x] = node
        R.first[x] = -1
        R.nchild[x] = 0
        R.move[x] = R.cells[i]
        R.prior[x] = R.probs[i]
        R.visits[x] = 0
        R.score[x] = 0
        R.amaf_n[x] = 0
        R.amaf_s[x] = 0
        for c in range(2):
            bb_store(R.child, c, bb_load(R.cur, c, T.zero))
        # cells as int64 (the int32 rows widened), as the playouts give them: play compiles once
        lost, _ = core.play(T, R.child, side, np.int64(R.cells[i]))
        state = OPEN
        if lost:
            state = WON
        else:
            o = core.outcome(T, R.child, 1 - side)
            if o == 1 - side:
                state = WON
            elif o == side:
                state = LOST
            elif _in_history(R, R.child, 1 - side):
                state = DRAWN
        R.proof[x] = state
        if state == LOST:
            won = True
        if state != WON:
            all_lost = False
    R.first[node] = base
    R.nchild[node] = k
    R.stats[NODES] = base + k
    if R.params[SOLVER] == 0:
        return
    if won:
        R.proof[node] = WON
    elif all_lost:
        R.proof[node] = LOST  # also k == 0, which outcome() rules out before expansion


@kernel
def _select(R, node):
    """The child of ``node`` to descend into (see the module's text)."""
    mode = R.params[SELECT]
    if mode == PUCT:
        return _select_puct(R, node)
    if mode == BIAS:
        return _select_bias(R, node)
    first = R.first[node]
    log_n = np.log(max(R.visits[node], 1))
    c = R.c[0]
    best = -1
    best_u = -1.0
    solver = R.params[SOLVER] != 0
    for x in range(first, first + R.nchild[node]):
        if R.proof[x] == WON and solver:
            continue  # a losing move
        v = R.visits[x]
        if v == 0:
            return x
        u = R.score[x] / (2.0 * v) + c * np.sqrt(log_n / v)
        if u > best_u:
            best, best_u = x, u
    return best


@kernel
def _select_puct(R, node):
    """PUCT's child of ``node`` (see the module's text)."""
    first = R.first[node]
    n = R.visits[node]
    root_n = np.sqrt(max(n, 1))
    # the mean result of the node for its player to move (score is its mover's)
    q_node = 1.0 - R.score[node] / (2.0 * n) if n > 0 else 0.5
    fpu = q_node - R.knobs[FPU]
    cp = R.knobs[PRIOR_C]
    best = -1
    best_u = -np.inf
    solver = R.params[SOLVER] != 0
    ref = _rave_reference(R, node)
    bias = R.knobs[RAVE_BIAS]
    for x in range(first, first + R.nchild[node]):
        if R.proof[x] == WON and solver:
            continue
        v = R.visits[x]
        q = R.score[x] / (2.0 * v) if v > 0 else fpu
        if ref >= 0:
            a = R.refidx[R.move[x]]
            m = R.amaf_n[a] if a >= 0 else 0
            if m > 0:
                b = m / (m + v + bias * m * v)
                q = (1.0 - b) * q + b * R.amaf_s[a] / (2.0 * m)
        u = q + cp * R.prior[x] * root_n / (1.0 + v)
        if u > best_u:
            best, best_u = x, u
    return best


@kernel
def _rave_reference(R, node):
    """With RAVE on, the node whose children's AMAF counts ``node``'s children use (the
    nearest from ``node`` up in steps of two plies with ``params[RAVE_REF]`` visits, else
    the highest such node), with its children's indices put in ``R.refidx`` by cell (-1:
    none for a cell of ``node``'s children); -1 with RAVE off."""
    need = R.params[RAVE_REF]
    if need <= 0:
        return -1
    ref = node
    while R.visits[ref] < need:
        up = R.parent[ref]
        if up < 0:
            break
        up = R.parent[up]
        if up < 0:
            break
        ref = up
    first = R.first[node]
    for x in range(first, first + R.nchild[node]):
        R.refidx[R.move[x]] = -1
    rf = R.first[ref]
    for y in range(rf, rf + R.nchild[ref]):
        R.refidx[R.move[y]] = y
    return ref


@kernel
def _select_bias(R, node):
    """Progressive bias's child of ``node`` (see the module's text)."""
    first = R.first[node]
    log_n = np.log(max(R.visits[node], 1))
    c = R.c[0]
    cp = R.knobs[PRIOR_C]
    best = -1
    best_u = -np.inf
    fresh = -1
    fresh_p = -1.0
    solver = R.params[SOLVER] != 0
    for x in range(first, first + R.nchild[node]):
        if R.proof[x] == WON and solver:
            continue
        v = R.visits[x]
        if v == 0:
            if R.prior[x] > fresh_p:
                fresh, fresh_p = x, R.prior[x]
            continue
        u = R.score[x] / (2.0 * v) + c * np.sqrt(log_n / v) + cp * R.prior[x] / (1.0 + v)
        if u > best_u:
            best, best_u = x, u
    return fresh if fresh >= 0 else best


@kernel
def _pick(T, moves, k, rng):
    """A uniformly random cell of the ``k`` cells of ``moves``."""
    for _ in range(int(_random(rng) % np.uint64(k))):
        moves = bb_clear_lowest(moves)
    return bb_lowest(moves)


@kernel
def _last_two(R, node, depth):
    """The cells of the last two moves of the game at ``node``, ``depth`` plies below the
    root on the path (-1: none): the path's moves, then the game's before the root."""
    if depth == 0:
        return R.params[ROOT_LAST], R.params[ROOT_PREV]
    if depth == 1:
        return np.int64(R.move[node]), R.params[ROOT_LAST]
    return np.int64(R.move[node]), np.int64(R.move[R.path[depth - 1]])


@kernel
def _policy_pick(T, R, st, side, last, prev):
    """One of the legal moves of ``st`` (``side`` to move; ``last``, ``prev``: the
    cells of the last two moves, -1: none) drawn from the move model's softmax: its cell."""
    n = move_features(T, st, side, last, prev, R.canon, R.fmoves, R.feats, R.fst, R.label)
    total = _weigh(R, n)
    # a uniform draw in [0, total) from the top 53 bits
    u = float(_random(R.rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * total
    for i in range(n - 1):
        u -= R.probs[i]
        if u < 0.0:
            return R.fmoves[i]
    return R.fmoves[n - 1]


@kernel
def _playout(T, R, side, last, prev):
    """A playout from ``R.cur`` (changed), ``side`` to move (``last``, ``prev``: the cells
    of the last two moves, -1: none): its first ``params[POLICY_PLIES]`` plies drawn
    from the move model, the others random moves, except that a move that removes some
    of the mover's own stones is drawn again, up to ``params[TRIES]`` draws in all (the
    last one is played).  Returns (result, plies) as ``core.random_playout`` does."""
    plies = 0
    st, alt = R.cur, R.child
    tries = R.params[TRIES]
    max_plies = R.params[MAX_PLIES]
    policy = R.params[POLICY_PLIES]
    while True:
        moves = T.zero
        if not (core.count(st, side) >= 2 and core.count(st, 1 - side) == 0):
            moves = core.legal_bb(T, st, side)
        k = bb_popcount(moves)
        if k == 0:
            if core.count(st, side) >= 2 and core.count(st, 1 - side) == 0:
                return side, plies
            return 1 - side, plies
        if plies >= max_plies:
            return core.DRAW, plies
        plies += 1
        for c in range(2):
            bb_store(alt, c, bb_load(st, c, T.zero))
        if plies <= policy:
            cell = _policy_pick(T, R, st, side, last, prev)
        else:
            cell = _pick(T, moves, k, R.rng)
        lost, removed = core.play(T, alt, side, cell)
        t = 1 if plies > policy else tries  # the model's move is played as it is
        while bb_any(removed) and t < tries:
            for c in range(2):
                bb_store(alt, c, bb_load(st, c, T.zero))
            cell = _pick(T, moves, k, R.rng)
            lost, removed = core.play(T, alt, side, cell)
            t += 1
        R.trace[plies - 1] = cell
        prev, last = last, np.int64(cell)
        st, alt = alt, st
        if lost:
            return 1 - side, plies
        side = 1 - side


@kernel
def _amaf(R, depth, side, plies, r):
    """RAVE's back-up: for each node of the descent ``R.path[:depth + 1]`` (``side`` to
    move at the leaf), count its children whose mover played their cell later in this
    iteration (the descent below the node, then the ``plies`` moves of ``R.trace``),
    with ``r``, the half points for the player to move at the leaf, turned to theirs."""
    for i in range(plies):
        R.seen[(side + i) % 2, R.trace[i]] = 1
    for d in range(depth, -1, -1):
        x = R.path[d]
        mover = (side + depth - d) % 2  # to move at x: its children's mover
        rd = r if (depth - d) % 2 == 0 else 2 - r
        for y in range(R.first[x], R.first[x] + R.nchild[x]):
            if R.seen[mover, R.move[y]]:
                R.amaf_n[y] += 1
                R.amaf_s[y] += rd
        if d > 0:
            R.seen[1 - mover, R.move[x]] = 1  # x's move, played by its parent's player
    for i in range(plies):
        R.seen[(side + i) % 2, R.trace[i]] = 0
    for d in range(1, depth + 1):
        R.seen[0, R.move[R.path[d]]] = 0
        R.seen[1, R.move[R.path[d]]] = 0


@kernel(nogil=True)  # the engine's root-parallel searches run it in threads at once
def iterate(T, R, iterations):
    """Run up to ``iterations`` iterations (descent, expansion, playout, back-up); return
    how many ran.  Stops early when the root is proven, or when an expansion would need
    more nodes than the arrays hold (``stats[FULL]`` set; that iteration has changed
    nothing, so growing the arrays and calling again goes on exactly as if it had not
    stopped)."""
    done = 0
    cap = R.parent.shape[0]
    while done < iterations and R.proof[0] == OPEN:
        for c in range(2):
            bb_store(R.cur, c, bb_load(R.root, c, T.zero))
        side = R.params[ROOT_SIDE]
        node = np.int64(0)  # not the literal 0: _expand and _select compile once, for int64
        depth = 0
        R.path[0] = 0
        full = False
        while R.proof[node] == OPEN:
            if R.first[node] < 0:
                if R.visits[node] < R.params[EXPAND_AT] and node != 0:
                    break
                if depth + 1 >= MAX_DEPTH:
                    break
                if R.stats[NODES] + T.n > cap:
                    full = True
                    break
                last, prev = _last_two(R, node, depth)
                _expand(T, R, node, side, last, prev)
                if R.proof[node] != OPEN:
                    break
            x = _select(R, node)
            core.play(T, R.cur, side, np.int64(R.move[x]))
            side = 1 - side
            node = x
            depth += 1
            R.path[depth] = node
        if full:
            R.stats[FULL] = 1
            return done
        R.stats[FULL] = 0
        if depth > R.stats[DEEPEST]:
            R.stats[DEEPEST] = depth
        # r: the result in half points for the player to move at the leaf
        state = R.proof[node]
        plies = 0
        if state == WON:
            r = 2
        elif state == LOST:
            r = 0
        elif state == DRAWN:
            r = 1
        else:
            last, prev = _last_two(R, node, depth)
            res, plies = _playout(T, R, side, last, prev)
            r = 2 if res == side else (1 if res == core.DRAW else 0)
            R.stats[PLAYOUTS] += 1
            R.stats[PLIES] += plies
        if R.params[RAVE_REF] > 0:
            _amaf(R, depth, side, plies, r)
        # back up the result, and the proof while it changes something
        proven = (state == WON or state == LOST) and R.params[SOLVER] != 0
        for d in range(depth, -1, -1):
            x = R.path[d]
            R.visits[x] += 1
            R.score[x] += 2 - r
            r = 2 - r
            if proven and d > 0:
                p = R.path[d - 1]
                proven = False
                if R.proof[p] == OPEN:
                    if R.proof[x] == LOST:
                        R.proof[p] = WON
                        proven = True
                    else:
                        every = True
                        for y in range(R.first[p], R.first[p] + R.nchild[p]):
                            if R.proof[y] != WON:
                                every = False
                                break
                        if every:
                            R.proof[p] = LOST
                            proven = True
        done += 1
        R.stats[ITERATIONS] += 1
    return done


def subtree(R: Tree, node: int, capacity: int) -> Tree:
    """A new tree (arrays of at least ``capacity``) of the nodes below ``node`` of ``R``,
    ``node`` its root, in breadth-first order (children stay contiguous and come after
    their parent); the rest as in ``R``.  Give it its root with :func:`set_root` (which
    keeps the nodes when told) and then :func:`refresh`."""
    order = [np.array([node], np.int64)]
    level = order[0]
    while True:
        expanded = level[R.first[level] >= 0]
        if not len(expanded):
            break
        starts = R.first[expanded].astype(np.int64)
        counts = R.nchild[expanded].astype(np.int64)
        ends = np.cumsum(counts)
        level = np.repeat(starts - ends + counts, counts) + np.arange(int(ends[-1]))
        order.append(level)
    old = np.concatenate(order)
    n = len(old)
    new_of = np.full(R.parent.shape[0], -1, np.int64)
    new_of[old] = np.arange(n)
    cap = max(int(capacity), n)

    def take(a, fill=0):
        out = np.full(cap, fill, a.dtype)
        out[:n] = a[old]
        return out

    first = take(R.first, -1)
    has = first[:n] >= 0
    first[:n][has] = new_of[first[:n][has]]
    parent = take(R.parent)
    parent[:n] = np.where(np.arange(n) == 0, -1, new_of[np.maximum(parent[:n], 0)])
    stats = R.stats.copy()
    stats[NODES] = n
    return R._replace(parent=parent, first=first, nchild=take(R.nchild), move=take(R.move),
                      visits=take(R.visits), score=take(R.score), proof=take(R.proof), prior=take(R.prior),
                      amaf_n=take(R.amaf_n), amaf_s=take(R.amaf_s), stats=stats,
                      root=R.root.copy(), params=R.params.copy(), rng=R.rng.copy())


@kernel
def refresh(T, R):
    """Bring the states of a tree whose root or game history changed up to date: a node
    whose position now repeats a position of the game becomes ``DRAWN`` (a leaf), and
    then every expanded node's proof is computed again from its children, bottom up
    (with the solver on).  End positions keep their states: they are the rules'.
    One play per node, depth first."""
    side0 = R.params[ROOT_SIDE]
    solver = R.params[SOLVER] != 0
    for c in range(2):
        bb_store(R.stack, c, bb_load(R.root, c, T.zero))
    depth = 0
    R.path[0] = 0
    R.walk[0] = 0
    while depth >= 0:
        node = R.path[depth]
        if R.first[node] < 0 or R.walk[depth] >= R.nchild[node]:
            # every child done: the node's proof from theirs
            if R.first[node] >= 0 and R.proof[node] != DRAWN and solver:
                state = LOST if R.nchild[node] > 0 else OPEN
                for y in range(R.first[node], R.first[node] + R.nchild[node]):
                    if R.proof[y] == LOST:
                        state = WON
                        break
                    if R.proof[y] != WON:
                        state = OPEN
                R.proof[node] = state
            depth -= 1
            continue
        x = R.first[node] + R.walk[depth]
        R.walk[depth] += 1
        terminal = R.first[x] < 0 and (R.proof[x] == WON or R.proof[x] == LOST)
        if terminal or R.proof[x] == DRAWN:
            continue
        side = (side0 + depth) % 2
        here = R.stack[2 * depth: 2 * depth + 2]
        child = R.stack[2 * depth + 2: 2 * depth + 4]
        for c in range(2):
            bb_store(child, c, bb_load(here, c, T.zero))
        core.play(T, child, side, np.int64(R.move[x]))
        if _in_history(R, child, 1 - side):
            R.proof[x] = DRAWN
            continue
        if R.first[x] < 0:
            R.proof[x] = OPEN
            continue
        depth += 1
        R.path[depth] = x
        R.walk[depth] = 0


def load_kernels(t: core.Tables) -> None:
    """Load :func:`iterate` for the board of ``t`` (compiling it on the board's first
    use) with the argument types the engine gives it; the call here returns at once."""
    R = set_root(new_tree(t, 4, 1, 0.7, 1, 10), core.new_position(t), 0, [])
    core.load_kernels(t, "the engine", [(iterate, (t, R, 0)), (refresh, (t, R))])
