"""The engine: Monte Carlo tree search with an exact solver inside (MCTS-Solver).

:func:`search` answers "what should the player to move play, and how good is it?" within
a budget of playouts or seconds.  Two kinds of answer, never mixed up:

- a **proven** value, ``'win'`` or ``'loss'`` for the player to move, found by df-pn
  (tried first with a small node budget, so that a position within its reach is decided
  at once: ``source='dfpn'``) or by the tree itself (``source='tree'``): the tree backs
  proven wins and losses up from the end positions it meets (a node with a child lost
  for its mover is won; a node whose children are all won for their movers is lost);
- an **estimate**, the win rate of the best move in random playouts from the tree's
  leaves (``value='unknown'``, ``source='estimate'``, ``win_rate``), which is a
  percentage of games and never a proof.

The tree and its compiled iteration loop are in :mod:`solver.search.mcts_tree` (PUCT
selection with the priors of the move model shipped in ``solver/data/policy.npz``
(:func:`model_weights`, :mod:`solver.search.policy`), or UCT with the exploration
constant :data:`EXPLORATION` as before the model (``select='uct'``), random playouts
that avoid moves losing the mover's own stones (:data:`PLAYOUT_TRIES`), the
MCTS-Solver back-up; why a proven value holds under the repetition rule is argued
there).  The priors order and focus the search; they decide no value.  The best move is a proven winning move if there is one, else the
most visited move that is not proven lost; when every move loses, the move a search
without the solver prefers (the opponent may miss the win: ``resist``).
:class:`Engine` does the same and keeps its tree from one move of a game to the next.

>>> from solver import Position
>>> r = search(Position.parse("D1/3/L1D1/1L1/L1 D"), Limit(playouts=1000), seed=1, dfpn_nodes=0)
>>> r.value, r.source, r.win_rate, r.best
(<Value.WIN: 'win'>, 'tree', None, 'c2')
"""

from __future__ import annotations

import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import lru_cache
from typing import Callable

import numpy as np

from solver.rules import core
from solver.rules.position import Position
from . import mcts_tree as M
from .clock import Clock
from .limit import MAX_PLAYOUTS, Limit, LimitError, check_limit
from .result import MoveResult, Result
from .values import Value

__all__ = ["search", "load_kernels", "Engine", "EXPLORATION", "DFPN_NODES", "MAX_TREE_NODES",
           "MAX_PLAYOUTS", "EXPAND_AT", "PLAYOUT_TRIES", "SELECTIONS", "SELECT", "PRIOR_C", "FPU", "model_weights",
           "estimate_identity", "MAX_WORKERS"]

#: UCT's exploration constant c in ``score + c * sqrt(ln N / n)`` (results in [0, 1]):
#: tuned on 5/6 at 1,000 playouts a move (the tree search without the solver against
#: itself, 40 games each, scripts/bench_strength.py's matches): 0.3 beat 0.7 28-12, 1.2
#: lost to 0.7 15-25, 0.15 drew with 0.3 20-20
EXPLORATION = 0.3
#: the playout policy: a playout move that removes some of the mover's own stones (a
#: group left with no path) is drawn again, up to this many draws in all (1: uniform
#: random playouts); 3 beat 1 30-10 at equal playouts on 5/6
PLAYOUT_TRIES = 3
#: a leaf is expanded once it has been visited this often (the root at once)
EXPAND_AT = 1
#: the selection rules (:mod:`.mcts_tree`): UCT alone (the engine before the move model,
#: the match player ``uct``), PUCT with the move model's priors, progressive bias
SELECTIONS = {"uct": M.UCT, "puct": M.PUCT, "bias": M.BIAS}
#: the engine's selection rule, chosen by matches against ``uct`` (results/engine/engine2-5-6-uct.json)
SELECT = "puct"
#: the weight of the prior (PUCT's c_p; progressive bias's weight)
PRIOR_C = 1.0
#: PUCT's first-play reduction: an unvisited child's value is the parent's less this
FPU = 0.0
#: RAVE (GRAVE) with PUCT: the reference visits (0: off) and the bias of its weight
RAVE = 0
RAVE_BIAS = 1e-4
#: the plies of each playout drawn from the move model (0: none; chosen by a match)
POLICY_PLIES = 0
#: df-pn's node budget before the tree search (0: none); a table of DFPN_TT_MB MiB
DFPN_NODES = 20_000
DFPN_TT_MB = 16
#: with a time budget, the share of it df-pn may take at most
DFPN_TIME_SHARE = 0.25
#: the most nodes the tree grows to (37 bytes each with the prior: 296 MB, and while the arrays double,
#: 444 MB); then the search stops.  6/7 grows 4-20 nodes an iteration, 5,000 iterations
#: a second: a search of a minute or two fits
MAX_TREE_NODES = 8_000_000
_FIRST_CAPACITY = 1 << 16
_DFPN_CHUNK = 2_000
_LOADED: set[int] = set()  # boards whose engine kernels this process has loaded
#: the most searches of one position at once (root parallelism, ``workers``)
MAX_WORKERS = 64
#: how the seed of a root-parallel helper search is drawn from the engine's (the golden ratio's bits)
_HELPER_SEED_STEP = 0x9E3779B97F4A7C15
#: seconds per compiled chunk: the clock, progress and Ctrl-C are looked at between chunks
_CHUNK_SECONDS = 0.1


def search(
    position: Position,
    limit: Limit,
    *,
    seed: int = 1,
    exploration: float = EXPLORATION,
    dfpn_nodes: int = DFPN_NODES,
    max_tree_nodes: int = MAX_TREE_NODES,
    expand_at: int = EXPAND_AT,
    solver: bool = True,
    resist: bool = True,
    tries: int = PLAYOUT_TRIES,
    select: str = SELECT,
    prior_c: float = PRIOR_C,
    fpu: float = FPU,
    model: str | None = None,
    workers: int = 1,
    rave: int = RAVE,
    rave_bias: float = RAVE_BIAS,
    policy_plies: int = POLICY_PLIES,
    progress: Callable[[dict], None] | None = None,
    known: dict[str, Value] | None = None,
) -> Result:
    """Search ``position`` for its player to move within ``limit``: its ``playouts``
    (iterations, each ending in one random playout unless it reaches a decided node)
    and/or its ``seconds``, whichever ends first (one of them is needed, else
    :class:`~solver.search.limit.LimitError`; its ``nodes`` and ``tt_mb`` are a proof's,
    not the engine's).  With a playout budget and no time
    the result depends only on the position, the options and ``seed``.  ``solver=False``
    (with ``dfpn_nodes=0``: plain MCTS, to measure what the solver adds): no proof is
    backed up, so the value is always an estimate.  ``resist`` (with the solver): in a
    position proven lost, the move is the one a search without the solver prefers for
    the same budget (see :meth:`Engine.search`), not an arbitrary losing move.
    ``tries``: the playout policy (:data:`PLAYOUT_TRIES`; 1: uniform random playouts).
    ``select``: the selection rule, one of :data:`SELECTIONS` (``'uct'``: the engine
    before the move model), with the prior's weight ``prior_c`` and PUCT's first-play
    reduction ``fpu``; ``model``: a move model file in place of the shipped one.
    ``rave`` (with ``'puct'``): RAVE's reference visits (0: off; see
    :mod:`.mcts_tree`), ``rave_bias`` the bias of its weight.  ``policy_plies`` (with
    ``'puct'`` or ``'bias'``): the plies of each playout drawn from the move model (0: none).
    ``workers``: searches of the position at once, in threads (root parallelism: each
    its own tree and seed, a playout budget shared out, their root moves' visits and
    results added up, a move or the root proven by any of them proven).

    Before the tree, df-pn gets ``dfpn_nodes`` nodes (0: skipped) and, with a time
    budget, at most a quarter of it; a position it decides is answered at once.  The
    tree grows to ``max_tree_nodes``, then the search stops (a note says so).  Ctrl-C
    (KeyboardInterrupt) during the tree search stops it with the answer so far (a note
    says so).  ``progress`` is called about ten times a second with a dict (``iterations``,
    ``playouts``, ``nodes``, ``seconds``, ``best``, ``win_rate``, ``value``).  A fresh tree each
    call: :class:`Engine` keeps it from one move of a game to the next.  ``known``: moves
    whose values (for the player who plays them) are proven elsewhere (the database, a
    proof): the tree holds them as proven nodes from the start, so that it spends no
    playouts on them and backs their values up.
    """
    engine = Engine(seed=seed, exploration=exploration, dfpn_nodes=dfpn_nodes, max_tree_nodes=max_tree_nodes,
                    expand_at=expand_at, solver=solver, resist=resist, tries=tries, select=select,
                    prior_c=prior_c, fpu=fpu, model=model, workers=workers, rave=rave, rave_bias=rave_bias,
                    policy_plies=policy_plies)
    return engine.search(position, limit, progress=progress, known=known)


@lru_cache(maxsize=None)
def model_weights(path: str | None = None) -> np.ndarray:
    """The move model's weights: the model shipped with the package
    (``solver/data/policy.npz``, its provenance in ``policy.json``) or the model file at
    ``path`` (:class:`~solver.search.policy.PolicyError` if it is none), read once."""
    from importlib import resources

    from .policy import PolicyModel

    if path is not None:
        w = PolicyModel.load(path).weights
    else:
        with resources.as_file(resources.files("solver.data").joinpath("policy.npz")) as shipped:
            w = PolicyModel.load(shipped).weights
    w.setflags(write=False)
    return w


@lru_cache(maxsize=None)
def estimate_identity() -> dict:
    """What the default engine's win rates depend on (its selection rule and knobs, the
    shipped move model's digest): a calibration map fitted on one engine's rates holds
    for that engine only."""
    import hashlib
    from importlib import resources

    digest = hashlib.sha256(resources.files("solver.data").joinpath("policy.npz").read_bytes()).hexdigest()[:16]
    return {"select": SELECT, "prior_c": PRIOR_C, "fpu": FPU, "expand_at": EXPAND_AT, "exploration": EXPLORATION,
            "tries": PLAYOUT_TRIES, "model": digest, **({"rave": RAVE, "rave_bias": RAVE_BIAS} if RAVE else {}),
            **({"policy_plies": POLICY_PLIES} if POLICY_PLIES else {})}


class Engine:
    """The engine of one game: :meth:`search` as :func:`search` does, but it keeps its
    tree, so that a later position of the same game (reached by moves the tree holds,
    as after the engine's move and the reply) starts from the subtree below it, with
    its visits and proofs.  A reused tree is brought up to date first
    (:func:`~solver.search.mcts_tree.refresh`): its nodes that repeat a position of the
    game, which grew, become draws, and every proof is computed again from the leaves.
    With playout budgets the results depend only on the positions searched, in order,
    the options and ``seed``."""

    def __init__(self, *, seed: int = 1, exploration: float = EXPLORATION, dfpn_nodes: int = DFPN_NODES,
                 max_tree_nodes: int = MAX_TREE_NODES, expand_at: int = EXPAND_AT, solver: bool = True,
                 resist: bool = True, tries: int = PLAYOUT_TRIES, select: str = SELECT,
                 prior_c: float = PRIOR_C, fpu: float = FPU, model: str | None = None, workers: int = 1,
                 rave: int = RAVE, rave_bias: float = RAVE_BIAS, policy_plies: int = POLICY_PLIES):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"the seed is a whole number, not {seed!r}")
        if not (isinstance(exploration, (int, float)) and math.isfinite(exploration) and exploration >= 0):
            raise ValueError(f"the exploration constant is a finite number >= 0, not {exploration!r}")
        for name, v, least in (("dfpn_nodes", dfpn_nodes, 0), ("max_tree_nodes", max_tree_nodes, 0),
                               ("expand_at", expand_at, 0), ("tries", tries, 1), ("workers", workers, 1),
                               ("rave", rave, 0), ("policy_plies", policy_plies, 0)):
            if isinstance(v, bool) or not isinstance(v, int) or v < least:
                raise ValueError(f"{name} is a whole number >= {least}, not {v!r}")
        if workers > MAX_WORKERS:
            raise ValueError(f"workers is at most {MAX_WORKERS}, not {workers}")
        if select not in SELECTIONS:
            raise ValueError(f"the selection rule is one of {', '.join(SELECTIONS)}, not {select!r}")
        for name, v in (("prior_c", prior_c), ("fpu", fpu), ("rave_bias", rave_bias)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{name} is a finite number, not {v!r}")
        if rave and select != "puct":
            raise ValueError(f"RAVE works with the selection rule 'puct', not {select!r}")
        if rave_bias < 0:
            raise ValueError(f"rave_bias is a number >= 0, not {rave_bias!r}")
        if policy_plies and select == "uct":
            raise ValueError("playouts from the move model (policy_plies) need the selection rule 'puct' or 'bias'")
        self.policy_plies = policy_plies
        self.rave, self.rave_bias = rave, float(rave_bias)
        self.select, self.prior_c, self.fpu = select, float(prior_c), float(fpu)
        self.model = None if model is None else str(model)
        if self.model is not None:
            model_weights(self.model)  # a file that is no model is refused here, not mid-game
        self.seed = seed & (2**64 - 1)
        self.exploration, self.dfpn_nodes, self.max_tree_nodes = exploration, dfpn_nodes, max_tree_nodes
        self.expand_at, self.solver, self.resist, self.tries = expand_at, bool(solver), bool(resist), tries
        self.workers = workers
        self._helpers: list[Engine] = []  # the other searches of root parallelism, each keeping its tree
        self._tree: M.Tree | None = None
        self._root: Position | None = None

    def search(self, position: Position, limit: Limit, *, progress: Callable[[dict], None] | None = None,
               known: dict[str, Value] | None = None, dfpn: bool = True) -> Result:
        """See :func:`search`; ``dfpn=False``: no df-pn before the tree this time (the caller
        has just run the same proof, as the analyst does).  A position proven lost (by df-pn or the tree), with
        ``resist``: every move loses against perfect play, but the opponent may not find
        the win, so the move played is the one a fresh search without the solver and
        without df-pn (the same exploration, same seed) prefers for the same playouts or
        the time left (at least every root move tried once): the move that keeps the
        most winning chances in random play.  The value stays the proven loss, every
        move ``'loss'``; the visits and line are that search's."""
        _check(limit)
        t0 = time.perf_counter()
        r = self._search_all(position, limit, progress, known, dfpn)
        if not (self.resist and self.solver and r.value is Value.LOSS and r.source != "rules"):
            return r
        left = None if limit.seconds is None else max(limit.seconds - (time.perf_counter() - t0), 1e-3)
        plain = self.variant(dfpn_nodes=0, solver=False)
        p = plain._search(position, replace(limit, seconds=left), progress)
        note = f"proven lost: the move a search without the solver prefers ({p.playouts:,} playouts)"
        return replace(r, best=p.best, moves=[replace(m, win_rate=None, value=Value.LOSS) for m in p.moves],
                       line=p.line, playouts=r.playouts + p.playouts, seconds=time.perf_counter() - t0,
                       notes=r.notes + [note],
                       stats={**r.stats, "iterations": r.stats["iterations"] + p.stats["iterations"]})

    def options(self) -> dict:
        """The keyword arguments that make an engine like this one (a fresh tree)."""
        return {"seed": self.seed, "exploration": self.exploration, "dfpn_nodes": self.dfpn_nodes,
                "max_tree_nodes": self.max_tree_nodes, "expand_at": self.expand_at, "solver": self.solver,
                "resist": self.resist, "tries": self.tries, "select": self.select, "prior_c": self.prior_c,
                "fpu": self.fpu, "model": self.model, "workers": self.workers, "rave": self.rave,
                "rave_bias": self.rave_bias, "policy_plies": self.policy_plies}

    def variant(self, **changes) -> Engine:
        """A fresh engine with this one's options but ``changes``."""
        return Engine(**{**self.options(), **changes})

    def _search_all(self, position: Position, limit: Limit, progress: Callable[[dict], None] | None,
                    known: dict[str, Value] | None, dfpn: bool) -> Result:
        """This engine's search, and with ``workers`` its helpers' at the same time, in
        threads (the compiled iterations run without the GIL); their answers merged."""
        if self.workers == 1 or position.outcome is not None:
            return self._search(position, limit, progress, known, dfpn)
        if not self._helpers:
            self._helpers = [self.variant(seed=(self.seed + i * _HELPER_SEED_STEP) & (2**64 - 1), workers=1,
                                          dfpn_nodes=0, resist=False) for i in range(1, self.workers)]
        own = limit
        share = limit
        if limit.playouts is not None:
            part = max(1, limit.playouts // self.workers)
            share = replace(limit, playouts=part)
            own = replace(limit, playouts=max(1, limit.playouts - part * (self.workers - 1)))
        stop = threading.Event()

        def watch(info: dict) -> None:
            if stop.is_set():  # a helper's search ends as at Ctrl-C: with its answer so far
                raise KeyboardInterrupt

        with ThreadPoolExecutor(len(self._helpers)) as pool:
            futures = [pool.submit(h._search, position, share, watch, known) for h in self._helpers]
            try:
                mine = self._search(position, own, progress, known, dfpn)
                if mine.proven or any(n.startswith("interrupted") for n in mine.notes):
                    stop.set()  # the root is decided, or the user stopped: the helpers stop too
            except BaseException:
                stop.set()
                raise
            others = [f.result() for f in futures]
        if mine.source == "dfpn":
            return mine
        return _merge(position, mine, others, self.workers)

    def _new_tree(self, position: Position, t: core.Tables) -> M.Tree:
        """A tree with only the root ``position``."""
        mode = SELECTIONS[self.select]
        R = M.new_tree(t, min(_FIRST_CAPACITY, max(self.max_tree_nodes, 1)), self.seed, self.exploration,
                       self.expand_at, 20 * t.n, solver=self.solver, tries=self.tries, select=mode,
                       weights=None if mode == M.UCT else model_weights(self.model), prior_c=self.prior_c, fpu=self.fpu,
                       rave_ref=self.rave, rave_bias=self.rave_bias, policy_plies=self.policy_plies)
        return M.set_root(R, position.array(), position.side_index,
                          [(p.bitboards, p.side_index) for p in position.earlier()],
                          **_recent_cells(position, t))

    def _search(self, position: Position, limit: Limit, progress: Callable[[dict], None] | None,
                known: dict[str, Value] | None = None, dfpn: bool = True) -> Result:
        seed, max_tree_nodes = self.seed, self.max_tree_nodes
        board = position.board
        if position.outcome is not None:
            value = Value.from_outcome(position.outcome, position.to_move)
            return Result(str(position), value, "engine", source="rules", stats=_stats(0, seed, 0),
                          notes=[position.outcome_reason or "the game is over"])
        t = core.tables(board)
        t_load = time.perf_counter()
        load_kernels(board, dfpn=bool(self.dfpn_nodes))
        loaded = time.perf_counter() - t_load
        # after the kernels load: the budget is for searching
        clock = Clock(limit, counts="playouts", chunk_seconds=_CHUNK_SECONDS, least=1, fixed=None)
        notes: list[str] = []
        spent = 0
        R = self._reuse(position, t, notes)
        if dfpn and self.dfpn_nodes and (R is None or R.proof[0] == M.OPEN):
            share = None if limit.seconds is None else limit.seconds * DFPN_TIME_SHARE
            value, line, spent = _try_dfpn(position, self.dfpn_nodes, share, notes)
            if value.decided:
                moves = [MoveResult(line[0], value, line=list(line))] if line else []
                return Result(str(position), value, "engine", source="dfpn", seconds=clock.elapsed(), line=line,
                              best=line[0] if line else None, moves=moves, notes=notes,
                              stats={**_stats(0, seed, spent), "load_seconds": round(loaded, 4)})
        if R is None:
            R = self._new_tree(position, t)
        self._tree, self._root = R, position
        chunk = 16
        if known and self.solver:
            clock.spend(playouts=_seed(t, R, position, known))
        shown_at = 0.0
        try:
            while R.proof[0] == M.OPEN:
                # the clock stops the search only once every root move has been tried
                # (a time spent by df-pn alone would leave no move to answer with)
                tried = R.first[0] >= 0 and clock.playouts >= R.nchild[0]
                n = clock.allow(chunk)
                if n <= 0 or (clock.time_up() and tried):
                    break
                t_chunk = time.perf_counter()
                k = M.iterate(t, R, n)
                took = time.perf_counter() - t_chunk
                clock.spend(playouts=k)
                if R.stats[M.FULL]:
                    cap = R.parent.shape[0]
                    if cap + t.n > max_tree_nodes:
                        notes.append(f"the tree is full ({int(R.stats[M.NODES]):,} nodes, at most "
                                     f"{max_tree_nodes:,}): the search stopped there")
                        break
                    R = self._tree = M.grow(R, min(2 * cap, max_tree_nodes))
                    continue
                if k == n:  # about _CHUNK_SECONDS a chunk, and no more than the time left allows
                    chunk = clock.next_chunk(k, took, 2**40)
                if progress is not None and time.perf_counter() - shown_at >= _CHUNK_SECONDS:
                    shown_at = time.perf_counter()
                    r = _result(position, t, R, seed, clock, notes, spent, lines=False)
                    progress({"iterations": r.stats["iterations"], "playouts": r.playouts, "nodes": r.nodes,
                              "seconds": r.seconds, "best": r.best, "win_rate": r.win_rate, "value": str(r.value)})
        except KeyboardInterrupt:
            notes.append("interrupted: the answer so far")
        r = _result(position, t, R, seed, clock, notes, spent)
        r.stats["load_seconds"] = round(loaded, 4)
        return r

    def _reuse(self, position: Position, t: core.Tables, notes: list[str]) -> M.Tree | None:
        """The kept tree re-rooted at ``position``, if its last root is an earlier
        position of the same game and the moves since are in the tree; else None."""
        R, old = self._tree, self._root
        if R is None or old is None or old.board != position.board:
            return None
        chain = position.earlier() + [position]
        keys = [p.key for p in chain]
        if old.key not in keys or old.earlier() != chain[:keys.index(old.key)]:
            return None
        at = keys.index(old.key)
        names = position.board.names
        node = 0
        for before, after in zip(chain[at:], chain[at + 1:]):
            step = None
            for x in _children(R, node):
                if before.play(names[int(t.point_of[int(R.move[x])])]).key == after.key:
                    step = int(x)
                    break
            if step is None:
                return None
            node = step
        n_before = int(R.stats[M.NODES])
        R = M.subtree(R, node, min(max(_FIRST_CAPACITY, 2 * n_before), self.max_tree_nodes))
        R = M.set_root(R, position.array(), position.side_index,
                       [(p.bitboards, p.side_index) for p in position.earlier()], keep=True,
                       **_recent_cells(position, t))
        M.refresh(t, R)
        notes.append(f"{int(R.stats[M.NODES]):,} nodes of the last search's tree reused")
        return R


def load_kernels(board, dfpn: bool = True) -> None:
    """Load the engine's compiled kernels for ``board`` (and df-pn's, which it tries
    first), compiling them on the board's first use; a caller with a clock of its own
    calls it before starting that clock."""
    if board.m not in _LOADED:
        M.load_kernels(core.tables(board))
        _LOADED.add(board.m)
    if dfpn:
        from .prove import load_kernels as load_dfpn

        load_dfpn(board, "dfpn")


def _seed(t: core.Tables, R: M.Tree, position: Position, known: dict[str, Value]) -> int:
    """Mark the root's moves whose values ``known`` gives as proven nodes (a losing move's
    position won for its mover, a winning move's lost), expanding the root first (one
    iteration, returned), and the root proven when they decide it."""
    done = 0
    if R.first[0] < 0:
        done = M.iterate(t, R, 1)
    names = position.board.names
    kids = _children(R, 0)
    for x in kids:
        v = known.get(names[int(t.point_of[int(R.move[x])])])
        if v is Value.WIN:
            R.proof[x] = M.LOST
        elif v is Value.LOSS:
            R.proof[x] = M.WON
    if len(kids) and R.proof[0] == M.OPEN:
        if (R.proof[kids] == M.LOST).any():
            R.proof[0] = M.WON
        elif (R.proof[kids] == M.WON).all():
            R.proof[0] = M.LOST
    return done


def _recent_cells(position: Position, t: core.Tables) -> dict[str, int]:
    """The cells of the game's last two moves (-1: none), as the move model reads them."""
    from .features import recent_moves

    board = position.board
    return {k: -1 if name is None else int(t.cell_of[board.index(name)])
            for k, name in zip(("last", "prev"), recent_moves(position))}


def _check(limit: Limit) -> None:
    """Refuse a limit that gives the engine no budget: it needs playouts or seconds."""
    check_limit(limit)
    if limit.playouts is None and limit.seconds is None:
        raise LimitError("the engine needs a budget: playouts, seconds or both")


def _stats(iterations: int, seed: int, dfpn_nodes: int) -> dict:
    return {"iterations": iterations, "seed": seed, "dfpn_nodes": dfpn_nodes}


def _try_dfpn(position: Position, nodes: int, seconds: float | None,
              notes: list[str]) -> tuple[Value, list[str], int]:
    """df-pn's ``(value, line, nodes spent)`` for ``position`` within the budget (the
    value ``'unknown'`` when it did not decide; the attempt is noted)."""
    from .prove import prove

    if seconds is not None:
        seconds = max(seconds, 0.001)
    # chunks of at most _DFPN_CHUNK nodes, so that the clock is looked at often enough for
    # a share of a fraction of a second (prove's first chunk would be 20,000 nodes)
    proof = prove(position, Limit(seconds=seconds, nodes=nodes, tt_mb=DFPN_TT_MB), method="dfpn",
                  chunk_nodes=_DFPN_CHUNK)
    if proof.proven:
        notes.append(f"df-pn proved it in {proof.nodes:,} nodes, {proof.seconds:.2f} s")
        return proof.value, list(proof.line), proof.nodes
    notes.append(f"df-pn did not decide it in {proof.nodes:,} nodes ({proof.seconds:.2f} s)")
    return Value.UNKNOWN, [], proof.nodes


def _merge(position: Position, mine: Result, others: list[Result], workers: int) -> Result:
    """One answer from root-parallel searches of ``position``: each root move's visits
    added up and its win rate weighted by them, a value proven by any search (each is
    sound) kept, and the best move, value and line chosen from the sums as a single tree
    chooses them (:func:`_choice`); each move's line that of the search that visited it most."""
    every = [mine, *others]
    visits: dict[str, int] = {}
    won: dict[str, float] = {}
    rated: dict[str, int] = {}
    value: dict[str, Value] = {}
    lines: dict[str, tuple[int, list[str]]] = {}  # each move's line: the search that visited it most
    for r in every:
        for m in r.moves:
            if m.line and m.visits > lines.get(m.move, (-1, []))[0]:
                lines[m.move] = (m.visits, m.line)
            visits[m.move] = visits.get(m.move, 0) + m.visits
            if m.value.decided or m.value is Value.DRAW:
                value[m.move] = m.value
            elif m.win_rate is not None and m.visits:
                won[m.move] = won.get(m.move, 0.0) + m.win_rate * m.visits
                rated[m.move] = rated.get(m.move, 0) + m.visits
    total = max(sum(visits.values()), 1)
    moves = []
    for name, v in visits.items():
        val = value.get(name, Value.UNKNOWN)
        rate = won[name] / rated[name] if val is Value.UNKNOWN and rated.get(name) else None
        moves.append(MoveResult(name, val, v, v / total, rate, list(lines.get(name, (0, []))[1])))
    moves = _in_order(moves)
    # as _choice: a winning move, else a move not proven lost, else any; the most visited
    by_visits = sorted(moves, key=lambda m: (-m.visits, -(m.win_rate or 0.0)))
    best = next((m for m in by_visits if m.value is Value.WIN), None) or \
        next((m for m in by_visits if m.value is not Value.LOSS), None) or (by_visits[0] if by_visits else None)
    proven = next((r for r in every if r.proven), None)
    if proven is not None:
        root, source, rate = proven.value, proven.source, None
    elif any(m.value is Value.WIN for m in moves):
        root, source, rate = Value.WIN, "tree", None
    elif moves and all(m.value is Value.LOSS for m in moves):
        root, source, rate = Value.LOSS, "tree", None
    else:
        root, source = Value.UNKNOWN, "estimate"
        rate = best.win_rate if best is not None and best.value is Value.UNKNOWN else \
            0.5 if best is not None and best.value is Value.DRAW else None
    name = None if best is None else best.move
    # the line through the best move of the search that visited it most, as each move's
    line = lines[name][1] if name in lines else ([name] if name else [])
    playouts = sum(r.playouts for r in every)
    notes = [*mine.notes, f"{workers} searches at once (root parallelism), {playouts:,} playouts in all"]
    stats = {**mine.stats, "iterations": sum(int(r.stats.get("iterations", 0)) for r in every), "workers": workers}
    return Result(str(position), root, "engine", source=source, nodes=sum(r.nodes for r in every),
                  seconds=max(r.seconds for r in every), line=list(line), best=name, moves=moves, win_rate=rate,
                  playouts=playouts, notes=notes, stats=stats)


def _children(R: M.Tree, node: int) -> np.ndarray:
    first = int(R.first[node])
    return np.arange(first, first + int(R.nchild[node])) if first >= 0 else np.zeros(0, np.int64)


def _choice(R: M.Tree, node: int) -> int | None:
    """The child to play at ``node``: a proven win (a child lost for its mover) if any,
    most visited first; else the most visited child not proven lost; else the most
    visited.  None if the node has no children."""
    kids = _children(R, node)
    if not len(kids):
        return None
    proof = R.proof[kids]
    visits = R.visits[kids]
    for mask in (proof == M.LOST, proof != M.WON, np.ones(len(kids), bool)):
        if mask.any():
            # most visits, ties to the higher score (then to the earlier child)
            order = np.lexsort((-R.score[kids][mask], -visits[mask]))
            return int(kids[mask][order[0]])
    return None  # pragma: no cover - the last mask is never empty


_MOVE_VALUE = {M.LOST: Value.WIN, M.WON: Value.LOSS, M.DRAWN: Value.DRAW, M.OPEN: Value.UNKNOWN}
_RANK = {Value.WIN: 0, Value.UNKNOWN: 1, Value.DRAW: 1, Value.LOSS: 2}


def _in_order(moves: list[MoveResult]) -> list[MoveResult]:
    """The root moves as a result lists them: wins, then open moves and draws, then
    losses; the most visited first, then the best win rate."""
    return sorted(moves, key=lambda m: (_RANK[m.value], -m.visits, -(m.win_rate or 0.0)))


def _pv(R: M.Tree, node: int, name: Callable[[int], str], plies: int = 60) -> list[str]:
    """The principal line through tree node ``node`` (its move first): the engine's
    choice (:func:`_choice`) at each node below, while the tree has searched it; [] for a
    node neither visited nor proven."""
    line: list[str] = []
    x: int | None = node
    while x is not None and len(line) < plies and not (R.visits[x] == 0 and R.proof[x] == M.OPEN):
        line.append(name(x))
        x = _choice(R, x)
    return line


def _result(position: Position, t: core.Tables, R: M.Tree, seed: int, clock: Clock, notes: list[str],
            spent: int, lines: bool = True) -> Result:
    """The answer of the tree ``R``; ``lines``: each root move's principal line too (not
    for the progress shown while searching)."""
    names = position.board.names

    def name(x: int) -> str:
        return names[int(t.point_of[int(R.move[x])])]

    kids = _children(R, 0)
    total = max(int(R.visits[kids].sum()), 1) if len(kids) else 1
    moves = []
    kid = {name(x): int(x) for x in kids}
    for x in kids:
        v = int(R.visits[x])
        value = _MOVE_VALUE[int(R.proof[x])]
        rate = float(R.score[x]) / (2 * v) if v and value is Value.UNKNOWN else None
        moves.append(MoveResult(name(x), value, v, v / total, rate))
    moves = _in_order(moves)
    best = _choice(R, 0)
    root = int(R.proof[0])
    if root == M.WON:
        value, source, rate = Value.WIN, "tree", None
    elif root == M.LOST:
        value, source, rate = Value.LOSS, "tree", None
    else:
        value, source = Value.UNKNOWN, "estimate"
        rate = None
        if best is not None and R.visits[best] and R.proof[best] == M.OPEN:
            rate = float(R.score[best]) / (2 * int(R.visits[best]))
        elif best is not None and R.proof[best] == M.DRAWN:
            rate = 0.5
    line = _pv(R, best, name) if best is not None else []
    if lines:
        moves = [replace(m, line=_pv(R, kid[m.move], name)) for m in moves]
    return Result(str(position), value, "engine", source=source, nodes=int(R.stats[M.NODES]),
                  seconds=clock.elapsed(), line=line, best=name(best) if best is not None else None, moves=moves,
                  win_rate=rate, playouts=int(R.stats[M.PLAYOUTS]), notes=list(notes),
                  stats=_stats(int(R.stats[M.ITERATIONS]), seed, spent))
