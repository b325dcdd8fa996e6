"""Job-level proof-number search (JL-PNS; Wu et al., IEEE TCIAIG 2013, which solved
Connect6 openings with it): a master proof tree whose leaves are df-pn jobs on workers.

**The master tree.**  Its nodes are positions, reached from the root by the rules' moves
(:meth:`Position.play`); a node where the prover is to move is an OR node, the others AND
nodes, with proof and disproof numbers from the prover's side as in
:mod:`solver.search.dfpn`.  The most-proving leaf (from the root: the unflagged child of
least ``pn`` at an OR node, of least ``dn`` at an AND node, the first of equals) becomes a
*job*: :func:`~solver.search.prove.prove_for` on its position with a budget of
``job_nodes`` expansions.  A job comes back proven, disproven, or unknown with its root's
numbers and its table's numbers of the leaf's children; the master backs them up to the
root.  **Expansion**: a leaf whose job came back unknown after its whole budget is
expanded: every distinct child position becomes a new leaf, solved if the job solved it
and re-walked it, else with the job's table's numbers for it (1 instead of 0 for one
solved there but not re-walked: only a re-walk decides).  A job cut short by the run's
own budget leaves its leaf a leaf, with the job's numbers.

**Each worker keeps its table** from one job of a run to the next (:func:`run_leaf`):
moves commute in a placement game, so the jobs' subtrees share most of their positions,
and a job on a fresh table would do again much of what its neighbours did.  It is
sound for the reason df-pn's own table is: an entry holds on any path (a proof or a clean
disproof relies on no repetition; a tainted one is never stored).  With several workers,
each job also sends back its table's solved entries of some work, and the next jobs get
all of them (:func:`~solver.search.prove.add_entries`): they only guide, since a proof
through one is re-walked down to finished games like any other.

**Workers do not duplicate each other** by the paper's best policy, *virtual
equivalence with flagging*: a leaf in flight keeps its numbers (nothing is pretended
about a job that has not come back, so no number that decides is ever virtual), and is
*flagged*, as is every node whose unsolved children are all flagged; the selection never
enters a flagged node.  A virtual win or loss would set an in-flight leaf's numbers to a
proof's or a disproof's, which steers the other workers away from its whole line (the
paper found that worse) and mixes pretended values into the numbers that decide.

**Repetitions** are handled as df-pn handles them, so the tree is sound in the same way:
a child that repeats a position of the game (the root's history and the master path:
:attr:`Position.outcome` is then ``'draw'``) counts against the prover, as a *tainted*
disproof; a job gets the leaf's whole history as its search path (a :class:`Position`
made by :meth:`~Position.play` carries it), so its search sees the repetitions a df-pn
from the root would see on the same path.  Taint passes up as in df-pn (an OR node's
disproof is tainted when a child's is, an AND node's unless a child's disproof is clean).
Proofs and clean disproofs never rely on a repetition: they are finite forced wins, true
under any repetition rule, each leaf's re-walked by its job; so the value is reported
only from a proof or a clean disproof at the root.  As in :func:`prove`, a tainted
disproof of the player to move's win asks the question again for the other player (a
second tree); tainted both ways, the value is unknown (a draw under the repetition rule).

**Checkpoint**: the tree (its jobs in flight as unstarted leaves) is saved atomically in a
:class:`~solver.jobs.state.RunState` file after results (at most ~10 % of the time) and
on Ctrl-C; the same call resumes it.  Workers are :class:`~solver.jobs.workers.Pool`'s
(in this process for one worker, else loky processes, or a Dask cluster: the same
:func:`run_leaf` in each).
**Certificates**: a decided root's master tree, with each solved leaf proven again by a
local df-pn, makes one certificate (:mod:`.jlpns_certificate`; ``jlpns(...,
certificate=PATH)``, or :func:`load_tree` and the builder on a kept checkpoint).
"""

from __future__ import annotations

import os
import pickle
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from solver.rules.board import Board
from solver.rules.position import Position
from solver.rules import core
from solver.search.dfpn import INF, new_dfpn
from solver.search.limit import Limit, check_limit
from solver.search.prove import DEFAULT_TT_MB, ProverAnswer, load_kernels, prove_for
from solver.search.result import MoveResult, Result
from solver.search.values import Value
from solver.util.errors import Interrupted, MeridiansError
from .runner import JobError
from .state import RunState, StateError
from .workers import Pool

__all__ = ["jlpns", "load_tree", "MasterTree", "Node", "run_leaf", "JLPNS_FORMAT", "JlpnsError", "DEFAULT_JOB_NODES"]

JLPNS_FORMAT = "meridians-jlpns/1"
#: a job's budget unless told, in expansions
DEFAULT_JOB_NODES = 100_000
#: a worker sends back its table's solved entries with at least 1/SHARE_PART of a job's
#: budget (and SHARE_LEAST) below them, for the other workers' next jobs
SHARE_PART, SHARE_LEAST = 256, 16
NEW, RUNNING, EXPANDED = "new", "running", "expanded"
_LINE_PLIES = 120


class JlpnsError(StateError):
    """A JL-PNS checkpoint that cannot be read, is of another position, or is in use."""


@dataclass
class Node:
    """One position of the master tree, reached from its ``parent`` (-1: the root) by
    ``move``; ``work`` and ``jobs`` are its jobs' expansions and count, ``best`` the
    winner's move its job found (a solved leaf)."""

    parent: int
    move: str | None
    or_node: bool
    pn: int = 1
    dn: int = 1
    tainted: bool = False
    state: str = NEW
    work: int = 0
    jobs: int = 0
    best: str | None = None
    children: list[int] = field(default_factory=list)
    flagged: bool = False

    @property
    def solved(self) -> bool:
        return self.pn == 0 or self.dn == 0

    def record(self) -> list:
        """The checkpoint entry (a job in flight is saved as not started)."""
        state = NEW if self.state == RUNNING else self.state
        return [self.parent, self.move, self.pn, self.dn, self.tainted, state, self.work, self.jobs, self.best]


class MasterTree:
    """The master proof tree of ``root`` for ``prover`` (0 Light, 1 Dark), whose leaves
    are expanded after an unknown job of ``job_nodes``; ``records``: a checkpoint's nodes
    (ValueError for a malformed one)."""

    def __init__(self, root: Position, prover: int, job_nodes: int = DEFAULT_JOB_NODES,
                 records: list | None = None):
        self.root, self.prover, self.job_nodes = root, prover, job_nodes
        self.nodes = [Node(-1, None, root.side_index == prover)]
        if records:
            self.nodes = []
            for i, r in enumerate(records):
                self.nodes.append(self._read(i, r))
                if i:
                    self.nodes[self.nodes[i].parent].children.append(i)
            if any((n.state == EXPANDED) != bool(n.children) for n in self.nodes):
                raise ValueError("a leaf with children or an expanded node without")
        self.recompute()

    def _read(self, i: int, r: object) -> Node:
        """Node ``i`` from its checkpoint record (its parent read already)."""
        if not (isinstance(r, list) and len(r) == 9):
            raise ValueError(f"node {i} is not a list of 9 fields")
        parent, move, pn, dn, tainted, state, work, jobs, best = r
        counts = all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x for x in (pn, dn, work, jobs))
        if not (counts and pn <= INF and dn <= INF and isinstance(tainted, bool) and state in (NEW, EXPANDED)
                and isinstance(parent, int) and not isinstance(parent, bool) and (parent == -1) == (i == 0)
                and parent < i and (move is None) == (i == 0) and (move is None or isinstance(move, str))
                and (best is None or isinstance(best, str))):
            raise ValueError(f"node {i} is malformed")
        or_node = self.root.side_index == self.prover if i == 0 else not self.nodes[parent].or_node
        return Node(parent, move, or_node, pn, dn, tainted, state, work, jobs, best)

    # -- reading ---------------------------------------------------------------------
    def path(self, i: int) -> list[str]:
        """The moves from the root to node ``i``."""
        moves = []
        while i > 0:
            moves.append(self.nodes[i].move)
            i = self.nodes[i].parent
        return moves[::-1]

    def position(self, i: int) -> Position:
        """Node ``i``'s position, with the root's history and the path as its game."""
        pos = self.root
        for m in self.path(i):
            pos = pos.play(m)
        return pos

    def _under_solved(self, i: int) -> bool:
        """Whether a proper ancestor of node ``i`` is solved (its subtree no longer counts)."""
        i = self.nodes[i].parent
        while i >= 0:
            if self.nodes[i].solved:
                return True
            i = self.nodes[i].parent
        return False

    def select(self) -> int | None:
        """The most-proving leaf not in flight, or None (the root solved, or every
        unsolved leaf in flight)."""
        i = 0
        while True:
            n = self.nodes[i]
            if n.solved or n.flagged:
                return None
            if n.state == NEW:
                return i
            open_ = [c for c in n.children if not self.nodes[c].solved and not self.nodes[c].flagged]
            key = (lambda c: self.nodes[c].pn) if n.or_node else (lambda c: self.nodes[c].dn)
            i = min(open_, key=key)  # not empty: n is not flagged

    # -- changing --------------------------------------------------------------------
    def start(self, i: int) -> None:
        """Node ``i`` is in flight."""
        self.nodes[i].state = RUNNING
        self._back_up(i)

    def abandon(self, i: int) -> None:
        """Node ``i``'s job is lost: it is a leaf to start again."""
        self.nodes[i].state = NEW
        self._back_up(i)

    def apply(self, i: int, answer: ProverAnswer, budget: int) -> None:
        """Node ``i``'s job came back with ``answer`` after a budget of ``budget``."""
        n = self.nodes[i]
        n.state = NEW
        n.work += answer.nodes
        n.jobs += 1
        n.pn, n.dn, n.tainted = answer.pn, answer.dn, answer.tainted
        if n.solved:
            n.best = answer.move
        elif budget >= self.job_nodes and not self._under_solved(i):
            # (a whole budget, not the work done: a root whose numbers saturated comes
            # back early, and would be sent again as it is)
            self._expand(i, answer.children, answer.solved)
        self._back_up(i)

    def _expand(self, i: int, estimates: dict[str, tuple[int, int]],
                solved: dict[str, tuple[int, str | None]]) -> None:
        pos = self.position(i)
        seen = set()
        for m in pos.legal_moves():
            child = pos.play(m)
            if child.key in seen:
                continue  # the same position as an earlier move's: one child, as in df-pn
            seen.add(child.key)
            c = Node(i, m, child.side_index == self.prover)
            if child.outcome == "draw":
                c.pn, c.dn, c.tainted = INF, 0, True  # a repetition counts against the prover
            elif child.outcome is not None:
                won = child.outcome == "LD"[self.prover]
                c.pn, c.dn = (0, INF) if won else (INF, 0)
            elif m in solved:  # re-walked by the job
                winner, c.best = solved[m]
                c.pn, c.dn = (0, INF) if winner == self.prover else (INF, 0)
            else:
                pn, dn = estimates.get(m, (1, 1))
                c.pn, c.dn = min(max(pn, 1), INF - 1), min(max(dn, 1), INF - 1)
            self.nodes[i].children.append(len(self.nodes))
            self.nodes.append(c)
        self.nodes[i].state = EXPANDED

    def _back_up(self, i: int) -> None:
        """Numbers, taint and flags from node ``i`` up to the root."""
        while i >= 0:
            n = self.nodes[i]
            if n.state == EXPANDED:
                self._combine(n)
            else:
                n.flagged = n.state == RUNNING
            i = n.parent

    def recompute(self) -> None:
        """Every expanded node's numbers and flags from its children's (after a load)."""
        for n in reversed(self.nodes):
            if n.state == EXPANDED:
                self._combine(n)
            else:
                n.flagged = n.state == RUNNING

    def _combine(self, n: Node) -> None:
        kids = [self.nodes[c] for c in n.children]
        pns, dns = [k.pn for k in kids], [k.dn for k in kids]
        if n.or_node:
            pn, dn = min(pns), (INF if INF in dns else min(sum(dns), INF - 1))
        else:
            pn, dn = (INF if INF in pns else min(sum(pns), INF - 1)), min(dns)
        if pn == 0:
            dn = INF
        if dn == 0:
            pn = INF
        n.pn, n.dn = pn, dn
        disproven = [k for k in kids if k.dn == 0]
        if dn == 0:
            n.tainted = any(k.tainted for k in kids) if n.or_node else all(k.tainted for k in disproven)
        else:
            n.tainted = False
        n.flagged = not n.solved and all(k.flagged for k in kids if not k.solved)

    def line(self) -> list[str]:
        """A principal line of the solved root: the winner's solving child, the loser's
        child with the most work below it; then the move the last job found."""
        root = self.nodes[0]
        if not root.solved:
            return []
        proven = root.pn == 0
        work = self._subtree_work()
        line, i = [], 0
        while self.nodes[i].state == EXPANDED and len(line) < _LINE_PLIES:
            n = self.nodes[i]
            winner_moves = n.or_node == proven
            if winner_moves:
                i = next(c for c in n.children
                         if (self.nodes[c].pn == 0 if proven else self.nodes[c].dn == 0 and not self.nodes[c].tainted))
            else:
                i = max(n.children, key=lambda c: work[c])
            line.append(self.nodes[i].move)
        if self.nodes[i].best is not None:
            line.append(self.nodes[i].best)
        return line

    def _subtree_work(self) -> list[int]:
        work = [n.work for n in self.nodes]
        for i in range(len(self.nodes) - 1, 0, -1):
            work[self.nodes[i].parent] += work[i]
        return work


#: this process's df-pn search, kept from one job of a run to the next (``key``, ``search``)
_KEPT: dict = {}


def run_leaf(board: int, path: list[tuple[bytes, int]], prover: int, limit: Limit, run: str = "",
             entries: tuple | None = None, share_work: int = 0,
             parent_pid: int | None = None, stop_event: str | None = None,
             shared: tuple | None = None) -> ProverAnswer:
    """A worker's job: :func:`prove_for` at the last position of ``path`` (``(stones,
    side)`` of each position of its game, oldest first: the search path) on board ``m``
    ``board``.  The jobs of one ``run`` ("": none) that a process runs share its table
    (positions recur across jobs: moves commute); ``entries`` and ``share_work`` are
    :func:`prove_for`'s (the other workers' solved entries, and what to send back);
    ``parent_pid`` and ``stop_event`` are the pool's (a job ends by its budget);
    ``shared``: the :class:`~solver.jobs.shared_pool.SharedPool`'s ``(arrays, worker,
    seen_mb)``, the table that all its workers' searches use."""
    b = Board.get(board)
    search = None
    if run:
        key = (run, board, prover, limit.tt_mb, shared is not None)
        if _KEPT.get("key") != key:
            _KEPT.clear()  # another run's table goes before this one's is made
            if shared is None:
                made = new_dfpn(core.tables(b), prover, limit.tt_mb)
            else:
                arrays, worker, seen_mb = shared
                made = new_dfpn(core.tables(b), prover, seen_mb, shared=arrays, worker=worker)
            _KEPT.update(key=key, search=made)
        search = _KEPT["search"]
        if shared is not None:
            search.busy[search.worker[0], :] = 0  # a job cut short leaves its path marked
    keys = [(board, st, side) for st, side in path[:-1]]
    st, side = path[-1]
    w = len(st) // 16
    pos = Position.from_arrays(b, np.frombuffer(st, np.uint64).reshape(2, w), side, history=keys, check=False)
    return prove_for(pos, prover, limit, search=search, entries=entries, share_work=share_work)


class _Ready:
    """A job run in this process: a finished future (its error raised by ``result``)."""

    def __init__(self, fn, *args):
        self.value, self.error = None, None
        try:
            self.value = fn(*args)
        except Exception as e:
            self.error = e

    def done(self) -> bool:
        return True

    def result(self):
        if self.error is not None:
            raise self.error
        return self.value


def jlpns(position: Position, limit: Limit | None = None, *, workers: int = 2,
          job_nodes: int = DEFAULT_JOB_NODES, in_flight: int | None = None,
          checkpoint: str | os.PathLike | None = None,
          progress: Callable[[dict], None] | None = None,
          backend: str = "loky", scheduler: str | None = None,
          certificate: str | os.PathLike | None = None, trace: bool = False) -> Result:
    """The value of ``position`` for its player to move by JL-PNS (see the module).

    ``limit``: ``nodes`` bounds the jobs' search budgets together (their re-walks come
    on top), ``seconds`` the wall time, ``tt_mb`` each worker's table (None:
    :data:`~solver.search.prove.DEFAULT_TT_MB`), which it keeps from job to job.
    ``workers`` processes (1: this process), ``in_flight`` jobs at once (None: one per
    worker); ``backend`` and ``scheduler`` are :class:`~solver.jobs.workers.Pool`'s, or
    ``backend='shared'``: ``workers`` processes forked here, whose jobs all use one table
    of ``tt_mb`` in shared memory (:mod:`.shared_pool`).
    ``checkpoint``: the master tree's file; a matching file is resumed, and kept when the
    run ends.  ``progress`` gets a dict after each job (``nodes``, ``seconds``, ``jobs``,
    ``running``, ``tree``, ``stage``, the root's ``pn`` and ``dn``).
    ``certificate``: when the value is decided, its certificate is written there
    (:func:`~solver.jobs.jlpns_certificate.write_jlpns_certificate`; ``.gz``: compressed),
    its path, ``sha256``, ``bytes`` and ``node_count`` in ``stats['certificate']``, while
    ``progress`` gets its build's dicts (``stage`` ``'certificate'``).
    ``trace``: each job's record is also kept, in ``stats['trace']`` and the progress
    dict's ``job``: its ``nodes``, ``worker_seconds`` (its search), ``master_seconds``
    (choosing, sending, applying and saving it here), ``round_trip`` (sent to received,
    as the master saw it) and the pickled sizes ``sent_bytes`` and ``returned_bytes``
    (measured by pickling them once more), the inputs of :mod:`.scaling`.
    Raises :class:`~solver.util.errors.Interrupted` on Ctrl-C and
    :class:`~solver.jobs.runner.JobError` when a job fails (the tree saved either way)."""
    limit = check_limit(limit)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise MeridiansError(f"workers must be a whole number of at least 1, not {workers!r}")
    if isinstance(job_nodes, bool) or not isinstance(job_nodes, int) or job_nodes < 1:
        raise MeridiansError(f"job_nodes must be a whole number of at least 1, not {job_nodes!r}")
    in_flight = workers if in_flight is None else in_flight
    if isinstance(in_flight, bool) or not isinstance(in_flight, int) or in_flight < 1:
        raise MeridiansError(f"in_flight must be a whole number of at least 1, not {in_flight!r}")
    tt_mb = DEFAULT_TT_MB if limit.tt_mb is None else limit.tt_mb
    if position.outcome is not None:
        value = Value.from_outcome(position.outcome, position.to_move)
        r = Result(str(position), value, "jlpns", source="rules", notes=[position.outcome_reason])
        if certificate is not None:
            _certify(r, certificate, MasterTree(position, position.side_index), tt_mb, progress)
        return r
    Limit(tt_mb=tt_mb, copies=workers)  # the workers' tables fit (LimitError if not)
    state = None
    if checkpoint is not None:
        state = _state(checkpoint, position)
        state.acquire()
    run = _Run(position, limit, workers, job_nodes, in_flight, tt_mb, state, progress)
    run.trace = [] if trace else None
    try:
        run.load()
        load_kernels(position.board, "dfpn")  # before the clock: a cold compile is no job's
        run.t0 = time.perf_counter()
        if backend == "shared" and workers > 1:
            from .shared_pool import SharedPool

            run.pool = SharedPool(workers, tt_mb)
        else:
            run.pool = Pool("loky" if backend == "shared" else backend, workers, scheduler)
        try:
            run.search()
        except Exception:  # a failed job, or the caller's progress callback raised: the
            # tree is kept and the jobs stop (else a Dask client or loky workers live on)
            run.save(force=True)
            run.pool.shutdown(abandon=True)
            raise
        except KeyboardInterrupt:
            run.save(force=True)
            run.pool.shutdown(abandon=True)
            where = f"; run it again to resume from {state.path}" if state else ""
            raise Interrupted(f"interrupted after {run.jobs} jobs{where}", state.path if state else None,
                              run.jobs) from None
        run.pool.shutdown(abandon=False)  # nothing runs: loky's workers stay for the next call
        run.save(force=True)
    finally:
        _KEPT.clear()  # this process's table (one worker); a loky worker's goes with the
        # next run's first job there, or with the process (ended after 30 s idle)
        if state is not None:
            state.release()
    r = run.result()
    if certificate is not None:
        try:
            _certify(r, certificate, run.tree, tt_mb, progress)
        except KeyboardInterrupt:
            where = f"; the tree is kept in {state.path}: run it again to write the certificate" if state else ""
            raise Interrupted(f"interrupted while writing the certificate{where}", state.path if state else None,
                              run.jobs) from None
    return r


def _state(checkpoint: str | os.PathLike, position: Position) -> RunState:
    """The checkpoint file of a JL-PNS run on ``position``."""
    identity = {"position": str(position), "earlier": [str(p) for p in position.earlier()]}
    return RunState(checkpoint, JLPNS_FORMAT, identity, name="JL-PNS checkpoint", run="search",
                    fix="remove it or give another checkpoint", error=JlpnsError)


def load_tree(checkpoint: str | os.PathLike, position: Position) -> MasterTree:
    """The master tree (its last stage's) that the JL-PNS checkpoint ``checkpoint`` of
    ``position`` keeps; :class:`JlpnsError` when there is none or it is of another run."""
    run = _Run(position, check_limit(None), 1, DEFAULT_JOB_NODES, 1, DEFAULT_TT_MB, _state(checkpoint, position), None)
    if not run.load():
        raise JlpnsError(f"JL-PNS checkpoint {checkpoint}: there is no such file")
    return run.tree


def _certify(r: Result, path: str | os.PathLike, tree: MasterTree, tt_mb: float, progress) -> None:
    """Write the certificate of a decided ``r`` (its position's; ``tree`` the run's) to
    ``path``; its ``path``, ``sha256``, ``bytes`` and ``node_count`` go in ``r.stats``."""
    if r.value not in (Value.WIN, Value.LOSS):
        r.notes.append(f"no certificate: the value is {r.value}")
        return
    from .jlpns_certificate import write_jlpns_certificate

    def shown(info: dict) -> None:
        progress({"stage": "certificate", **info})

    if r.source == "rules":  # a finished game: its certificate is one leaf
        from solver.search.certificate import write_certificate

        head = write_certificate(path, tree.root)
    else:
        head = write_jlpns_certificate(path, tree.root, tree, tt_mb=tt_mb,
                                       progress=shown if progress is not None else None)
    r.stats["certificate"] = {"path": str(path), **{k: head[k] for k in ("sha256", "bytes", "node_count")}}


class _Run:
    """One call of :func:`jlpns`: its trees (one per stage), budget, pool and checkpoint."""

    def __init__(self, position, limit, workers, job_nodes, in_flight, tt_mb, state, progress):
        self.position, self.limit, self.workers, self.job_nodes = position, limit, workers, job_nodes
        self.in_flight, self.tt_mb, self.state, self.progress = in_flight, tt_mb, state, progress
        self.stage, self.spent, self.jobs, self.seconds_before = 0, 0, 0, 0.0
        self.resumed_jobs = 0
        self.tree = self._tree(0)
        self.t0 = time.perf_counter()
        self.pool = None
        self.token = uuid.uuid4().hex[:12]  # the workers keep one table per run
        self.entries: tuple | None = None  # the workers' solved entries, shared
        self.trace: list[dict] | None = None  # each job's costs, when asked for

    def _tree(self, stage: int, records: list | None = None) -> MasterTree:
        prover = (self.position.side_index, 1 - self.position.side_index)[stage]
        return MasterTree(self.position, prover, self.job_nodes, records)

    def load(self) -> bool:
        """Whether the checkpoint had a tree (then loaded)."""
        data = self.state.load() if self.state is not None else None
        if data is None:
            return False
        try:
            stage, spent, jobs, seconds = data["stage"], data["spent"], data["jobs"], data["seconds"]
            if stage not in (0, 1, 2) or not all(isinstance(x, int) and x >= 0 for x in (spent, jobs)):
                raise ValueError("malformed counts")
            self.tree = self._tree(min(stage, 1), data["tree"])
        except (KeyError, TypeError, ValueError) as e:
            raise self.state.error(f"a malformed tree ({e})") from None
        self.stage, self.spent, self.jobs, self.seconds_before = stage, spent, jobs, float(seconds)
        self.resumed_jobs = jobs
        return True

    def save(self, force: bool = False) -> None:
        if self.state is not None:
            self.state.save({"stage": self.stage, "spent": self.spent, "jobs": self.jobs,
                             "seconds": round(self.seconds(), 3),
                             "tree": [n.record() for n in self.tree.nodes]}, force=force)

    def seconds(self) -> float:
        return self.seconds_before + time.perf_counter() - self.t0

    def search(self) -> None:
        """Run the stages: the player to move's win, then (after a tainted disproof) the
        other player's; ``stage`` 2 when both were tainted."""
        while self.stage < 2:
            self._stage()
            root = self.tree.nodes[0]
            if not (root.dn == 0 and root.tainted):
                return  # decided, or out of budget
            self.stage += 1
            self.entries = None  # keyed for the other prover: of no use to this one
            if getattr(self.pool, "shares_table", False):
                self.pool.reset()
            if self.stage < 2:
                self.tree = self._tree(self.stage)
            self.save(force=True)

    def _share(self, entries: tuple | None) -> None:
        """Add a job's solved entries to those sent with the next jobs (one per key)."""
        if entries is None or not len(entries[0]):
            return
        both = entries if self.entries is None else tuple(np.concatenate(x) for x in zip(self.entries, entries))
        _, first = np.unique(both[0], return_index=True)
        self.entries = tuple(a[first] for a in both)

    def _budget(self, committed: int) -> int:
        """The next job's budget (0: none left)."""
        if self.limit.seconds is not None and self.seconds() - self.seconds_before >= self.limit.seconds:
            return 0
        if not self.limit.nodes:
            return self.job_nodes
        return max(0, min(self.job_nodes, self.limit.nodes - self.spent - committed))

    def _stage(self) -> None:
        tree, pool = self.tree, self.pool
        running: dict = {}  # future -> (node, budget)
        limit = self.limit
        while True:
            while not tree.nodes[0].solved and len(running) < self.in_flight:
                t_choose = time.perf_counter()
                budget = self._budget(sum(b for _, b, _ in running.values()))
                i = tree.select() if budget > 0 else None
                if i is None:
                    break
                pos = tree.position(i)
                path = [(p.bitboards.tobytes(), p.side_index) for p in pos.earlier() + [pos]]
                left = None if limit.seconds is None else max(
                    0.01, limit.seconds - (self.seconds() - self.seconds_before))
                job = Limit(seconds=left, nodes=budget, tt_mb=self.tt_mb)
                tree.start(i)
                args = (pos.board.m, path, tree.prover, job, self.token)
                if not pool.in_process and not getattr(pool, "shares_table", False):
                    # one table here or in shared memory; several to share among
                    args += (self.entries, max(SHARE_LEAST, self.job_nodes // SHARE_PART))
                t_send = time.perf_counter()
                fut = _Ready(run_leaf, *args) if pool.in_process else pool.submit(run_leaf, *args)
                sent = time.perf_counter()
                cost = {}
                if self.trace is not None:
                    # in process the job ran inside submit: only the choosing is the master's
                    cost = {"master_seconds": (t_send if pool.in_process else sent) - t_choose,
                            "sent": sent, "sent_bytes": len(pickle.dumps(args, protocol=5))}
                running[fut] = (i, budget, cost)
            if not running:
                return
            if not pool.in_process:
                pool.wake.wait(0.5)
                pool.wake.clear()
            for fut in [f for f in running if f.done()]:
                t_back = time.perf_counter()
                i, budget, cost = running.pop(fut)
                try:
                    answer = fut.result()
                except Exception as e:  # a crash in the worker
                    tree.abandon(i)
                    raise JobError(f"the job at {' '.join(tree.path(i)) or 'the root'} failed: "
                                   f"{type(e).__name__}: {e}") from e
                self.spent += answer.nodes
                self.jobs += 1
                self._share(answer.entries)
                tree.apply(i, answer, budget)
                self.save()
                job = None
                if self.trace is not None:
                    job = {"nodes": answer.nodes, "worker_seconds": answer.seconds,
                           "master_seconds": round(cost["master_seconds"] + time.perf_counter() - t_back, 6),
                           "round_trip": round(t_back - cost["sent"], 6) if not pool.in_process else answer.seconds,
                           "sent_bytes": cost["sent_bytes"],
                           "returned_bytes": len(pickle.dumps(answer, protocol=5)), "tree": len(tree.nodes)}
                    self.trace.append(job)
                if self.progress is not None:
                    root = tree.nodes[0]
                    self.progress({"nodes": self.spent, "seconds": self.seconds(), "jobs": self.jobs,
                                   "running": len(running), "tree": len(tree.nodes), "stage": self.stage,
                                   "pn": root.pn, "dn": root.dn, **({"job": job} if job else {})})

    def result(self) -> Result:
        position, tree = self.position, self.tree
        root = tree.nodes[0]
        winner = -1
        if root.pn == 0:
            winner = tree.prover
        elif root.dn == 0 and not root.tainted:
            winner = 1 - tree.prover
        notes = []
        value = Value.UNKNOWN
        line: list[str] = []
        if winner >= 0:
            value = Value.WIN if winner == position.side_index else Value.LOSS
            line = tree.line()
        elif self.stage == 2:
            notes.append("neither player can force a win when repetitions count against them "
                         "(a draw under the repetition rule; df-pn does not report draws)")
        moves = ([MoveResult(line[0], Value.WIN)] if value is Value.WIN and line else
                 [MoveResult(m, Value.LOSS) for m in position.legal_moves()] if value is Value.LOSS else [])
        r = Result(str(position), value, "jlpns", source="dfpn" if value.decided else "none",
                   nodes=self.spent, seconds=round(self.seconds(), 4), line=line,
                   best=line[0] if line else None, moves=moves, verified=value.decided, notes=notes)
        r.stats = {"jobs": self.jobs, "resumed_jobs": self.resumed_jobs, "master_nodes": len(tree.nodes),
                   "stage": self.stage, "workers": self.workers, "job_nodes": self.job_nodes,
                   "pn": root.pn, "dn": root.dn}
        if self.trace is not None:
            r.stats["trace"] = self.trace
        return r
