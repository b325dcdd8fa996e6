"""The value of one position within a budget, by a chosen method, in chunks.

:func:`prove` is what every caller that needs one position's value uses (the opening
jobs, ``meridians verify``, the puzzle verifier).  Compiled searches cannot be
interrupted, so the work runs in chunks of nodes: between chunks the time budget is
checked, the ``progress`` callback is called, and Ctrl-C (KeyboardInterrupt) gets through.

The clock of a budget (:class:`~solver.search.clock.Clock`, every search's) starts once
the method's compiled kernels are loaded (:func:`load_kernels`): on a board's first use
they compile for tens of seconds, which no search budget pays for (one line on stderr
says so before the wait).  The answer is a :class:`~solver.search.result.Result`.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np

from solver.rules import core
from solver.rules.board import Board
from solver.rules.notation import points_in_text_order
from solver.rules.position import Position
from . import alphabeta as ab
from . import guide as G_
from . import knowledge as K
from .clock import Clock
from .limit import MAX_NODES, Limit, check_limit
from .methods import METHODS, UnknownMethodError, check_method
from .policy import PolicyModel
from .result import MoveResult, ProofTable, Result
from .values import Value

__all__ = ["prove", "prove_for", "new_search", "table_use", "clear_search", "ProverAnswer", "solved_entries", "add_entries", "plant_certificate", "METHODS", "UnknownMethodError",
           "load_kernels", "DEFAULT_TT_MB"]

#: the table size of a :func:`prove` whose Limit gives none, in MiB
DEFAULT_TT_MB = 256
#: the settled rule's budget in df-pn (solitaire states per owner and child)
KNOWLEDGE_BUDGET = K.DEFAULT_BUDGET
#: whether :func:`prove` uses the settled rule unless told.  Off: measured with
#: scripts/bench_knowledge.py (issue 19) it saves expansions where it fires (3/4 positions
#: 10-16 plies in: 0.38-0.45 of them), but a search where it fires spends 1.4-2 times as
#: long per expansion, and its pre-filter's cost where it does not fire (0-15 %, on a
#: machine too loaded to tell) was not shown to stay within a few percent
DEFAULT_KNOWLEDGE = False
#: the move model :func:`prove` uses unless told (None: plain df-pn)
DEFAULT_MODEL: PolicyModel | None = None
#: the first chunk of a proof with a time limit under SHORT_PROOF_SECONDS, in expansions
FIRST_TIMED_CHUNK = 100
SHORT_PROOF_SECONDS = 1.0
#: the work a planted certificate's entry says lies below it: solved entries are kept
#: before unsolved ones whatever their work, and among solved ones these go last
PLANTED_WORK = 0xFFFFFFFF


def new_search(board: Board, tt_mb: float = DEFAULT_TT_MB):
    """A df-pn table of ``tt_mb`` MiB on ``board`` for several :func:`prove` calls to share
    (``search=``)."""
    from . import dfpn as F

    return F.new_dfpn(core.tables(board), 0, tt_mb)


def table_use(search) -> tuple[float, float]:
    """The shares of a shared table's slots in use and holding a solved position."""
    used = search.tt_key != 0
    solved = used & ((search.tt_pn == 0) | (search.tt_dn == 0))
    size = max(len(search.tt_key), 1)
    return int(used.sum()) / size, int(solved.sum()) / size


def clear_search(search) -> None:
    """Empty a shared table, as :func:`new_search` made it."""
    for a in (search.tt_key, search.tt_pn, search.tt_dn, search.tt_move, search.tt_work, search.seen):
        a[:] = 0


def load_kernels(board: Board, method: str = "dfpn", knowledge: bool = False, guided: bool = False) -> None:
    """Load the compiled kernels that :func:`prove` runs for ``method`` on ``board``,
    compiling them on the board's first use (then one line on stderr says so first).
    :func:`prove` calls it before its clock starts; a caller with a clock of its own
    (a deadline over several proofs) calls it before starting that clock.  ``knowledge``
    (df-pn): the kernels of a search with the settled rule, which are others; ``guided``
    (df-pn): those of a search with a move model."""
    _check_method(method)
    knowledge = bool(knowledge) and method == "dfpn"
    guided = bool(guided) and method == "dfpn"
    if (board.m, method, knowledge, guided) in _LOADED:
        return
    t = core.tables(board)
    if method == "dfpn":
        from . import dfpn

        dfpn.load_kernels(t, knowledge, guided)
    elif method == "alphabeta":
        ab.load_kernels(t)
    else:
        from . import horizon

        horizon.load_kernels(t)
    _LOADED.add((board.m, method, knowledge, guided))


_LOADED: set[tuple[int, str, bool, bool]] = set()  # (board, method, knowledge, guided) loaded here


def _check_method(method: str) -> None:
    check_method(method)


def prove(
    position: Position,
    limit: Limit | None = None,
    *,
    method: str = "dfpn",
    progress: Callable[[dict], None] | None = None,
    chunk_nodes: int = 2_000_000,
    line_plies: int = 120,
    max_depth: int = 200,
    table_file: str | Path | None = None,
    jobs: int = 1,
    knowledge: bool | None = None,
    model: PolicyModel | str | Path | bool | None = None,
    focus: int = 0,
    search: "Dfpn | None" = None,
) -> Result:
    """The value of ``position`` for its player to move.

    ``limit`` is the budget (:class:`~solver.search.limit.Limit`; None: no bound and a
    table of :data:`DEFAULT_TT_MB` MiB): its ``seconds`` and ``nodes`` bound the work
    (its ``playouts`` are the engine's, not a proof's); when either runs out the value is
    ``UNKNOWN``; the clock (:class:`~solver.search.clock.Clock`) starts once the kernels
    are loaded (:func:`load_kernels`), so ``seconds`` is search time and the load's time
    is the result's ``stats['load_seconds']``; ``tt_mb`` is the table size (None:
    :data:`DEFAULT_TT_MB`).  ``progress`` is called between chunks with a dict
    (``nodes``, ``seconds``, ``horizon``).  ``method``: one of
    :data:`METHODS` (else :class:`UnknownMethodError`): ``'dfpn'`` (proof-number search:
    wins and losses that hold under any repetition rule, re-walked before they are
    reported), ``'alphabeta'`` (also draws by repetition; small boards only: its paths
    grow past its ply limit on 3/4), ``'horizon'`` (shortest wins by iterative deepening
    up to ``max_depth`` plies; ``horizon`` tells how deep it got).

    ``table_file`` (df-pn only): when the budget runs out or Ctrl-C stops the search,
    its table is saved there; a later call with the same file, position and ``tt_mb``
    loads it and goes on from where the search stopped.  ``nodes`` and ``seconds`` then
    count every run (``stats['runs']`` says how many).  The file is not removed when the
    position is decided: that is the caller's choice.

    ``jobs`` (df-pn only): worker processes searching this one position together, with
    one table in shared memory (:mod:`solver.search.parallel`; ``tt_mb`` is that one
    table, and the node budget counts every worker's nodes).  Their proof is re-walked in
    this process before it is reported, as a sequential one is.  1 (the default): the
    search runs here, in this process.
    ``knowledge`` (df-pn only; None: :data:`DEFAULT_KNOWLEDGE`): a child that the settled
    rule decides (:mod:`solver.search.knowledge`: an enclosure whose harmless moves
    outlast every line of the other player) is a leaf won by its owner;
    ``stats['settled']`` counts them.
    ``model`` (df-pn only, one job; None or False: :data:`DEFAULT_MODEL`): a move model
    (:class:`~solver.search.policy.PolicyModel`, the path of its file, or True for the
    project's, :func:`solver.search.guide.load_model`) that orders each node's children
    and sets their initial numbers (:mod:`solver.search.guide`); the value is the same
    as without it, only the work differs.  ``stats['guided']`` counts the nodes it scored,
    ``stats['guided_cached']`` those of them whose scores it remembered.
    ``focus`` (with ``model``; 0: none): focused df-pn, at the prover's nodes only the
    model's best ``focus`` children not yet disproven count (:mod:`solver.search.guide`);
    the value is again the same, and ``stats['focus']`` says so.
    ``search`` (plain df-pn in one job): a table from :func:`new_search` that this proof
    goes on with and leaves its entries in, so that proofs of positions that transpose
    into each other (the classes of one opening) share their work; ``limit.tt_mb`` is then
    the search's.
    """
    limit = check_limit(limit)
    knowledge = DEFAULT_KNOWLEDGE if knowledge is None else bool(knowledge)
    model = DEFAULT_MODEL if model is None or model is False else model
    if model is not None:
        if method != "dfpn" or jobs != 1:
            raise ValueError("only a df-pn search in one job is guided by a move model")
        model = G_.as_model(model)
    if isinstance(focus, bool) or not isinstance(focus, int) or focus < 0:
        raise ValueError(f"focus {focus!r}: give a whole number of children, 0 for none")
    if focus and model is None:
        raise ValueError("focus needs a move model (model=...)")
    if search is not None:
        if method != "dfpn" or jobs != 1 or model is not None or knowledge:
            raise ValueError("a shared table (search=...) is for plain df-pn in one job")
        if search.ch_cell.shape[1] != position.board.size:
            raise ValueError("the shared table (search=...) is for another board")
    if limit.tt_mb is None:
        limit = replace(limit, tt_mb=DEFAULT_TT_MB)
    _check_method(method)
    if table_file is not None and method != "dfpn":
        raise ValueError("only df-pn searches save and resume their table")
    jobs = _check_jobs(jobs, method)
    if position.outcome is not None:
        value = Value.from_outcome(position.outcome, position.to_move)
        return Result(str(position), value, method, source="rules", notes=[position.outcome_reason or "the game is over"])
    t_load = time.perf_counter()
    load_kernels(position.board, method, knowledge, model is not None)
    loaded = time.perf_counter() - t_load
    clock = Clock(limit, progress)  # after the kernels load: the budget is for searching
    if method == "alphabeta":
        r = _alphabeta(position, clock, chunk_nodes)
    elif method == "dfpn":
        r = _dfpn(position, clock, chunk_nodes, line_plies, table_file, jobs, knowledge, model, focus, search)
    else:
        r = _horizon(position, clock, chunk_nodes, max_depth)
    r.stats["load_seconds"] = round(loaded, 4)
    return r


@dataclass
class ProverAnswer:
    """What one df-pn run for a fixed ``prover`` (0 Light, 1 Dark) found at ``position``:
    ``pn``/``dn`` from the prover's side (``pn`` 0: proven, ``dn`` 0: disproven, else the
    root's numbers when the budget ran out), ``tainted`` (a disproof that relied on a
    repetition), the ``nodes`` spent (re-walks included), ``move`` (the winner's move at
    the position when it is the winner's turn), the proof's ``line``, ``verified``
    (re-walked) and, when unknown, the numbers of the position's unfinished ``children``
    by move (the table's, or df-pn's first numbers for one it lacks), and of them those
    ``solved`` and re-walked: ``(winner, the winner's move there when it is the winner's
    turn)``; ``seconds`` the run's time (kernels loaded)."""

    position: str
    prover: int
    pn: int
    dn: int
    tainted: bool = False
    nodes: int = 0
    move: str | None = None
    line: list[str] = field(default_factory=list)
    verified: bool = False
    children: dict[str, tuple[int, int]] = field(default_factory=dict)
    solved: dict[str, tuple[int, str | None]] = field(default_factory=dict)
    entries: tuple | None = field(default=None, repr=False)
    seconds: float = 0.0

    @property
    def status(self) -> str:
        """``'proven'``, ``'disproven'`` (tainted or clean) or ``'unknown'``."""
        return "proven" if self.pn == 0 else "disproven" if self.dn == 0 else "unknown"


def prove_for(position: Position, prover: int, limit: Limit | None = None, *,
              chunk_nodes: int = 2_000_000, line_plies: int = 0, search=None,
              entries: tuple | None = None, share_work: int = 0) -> ProverAnswer:
    """One stage of :func:`prove`'s df-pn: can ``prover`` force a win from ``position``
    (its game history counting as the search path, so a repetition of it counts against
    the prover)?  A proof or clean disproof is re-walked, with a budget as large as the
    search's, before it is reported (else the answer is unknown); a tainted disproof is
    reported as it is.  When the budget runs out, the children solved in the table are
    re-walked (with one more such budget) and reported too, so that a caller need not
    solve them again.  ``search``: a :class:`~solver.search.dfpn.Dfpn` for ``prover`` on
    this board from an earlier call, to go on with its table (then ``limit.tt_mb`` is not
    used): its entries hold on any path, as df-pn's do across a search's own transpositions
    (a proof or a clean disproof relies on no repetition; a tainted one is never stored).
    ``entries``: other searches' solved entries to put in the table first
    (:func:`add_entries`); ``share_work`` (0: none): the answer's ``entries`` are then the
    table's solved ones with at least that much work (:func:`solved_entries`).
    The job of :mod:`solver.jobs.jlpns`."""
    from . import dfpn as F

    limit = check_limit(limit)
    if prover not in (0, 1):
        raise ValueError(f"the prover is 0 (Light) or 1 (Dark), not {prover!r}")
    if limit.tt_mb is None:
        limit = replace(limit, tt_mb=DEFAULT_TT_MB)
    if position.outcome is not None:
        won = position.outcome == "LD"[prover]
        return ProverAnswer(str(position), prover, 0 if won else F.INF, F.INF if won else 0,
                            tainted=position.outcome == "draw", verified=True)
    load_kernels(position.board, "dfpn")
    t0 = time.perf_counter()
    t = core.tables(position.board)
    side = position.side_index
    path = _game_path(position)
    D = F.new_dfpn(t, prover, limit.tt_mb) if search is None else search
    if int(D.limits[F.PROVER]) != prover or D.ch_cell.shape[1] != t.n:
        raise ValueError("the search given is for another prover or board")
    D.stats[:] = 0  # this call's counts
    if entries is not None:
        add_entries(D, entries)

    def step():
        return F.mid(t, D, F.load_root(D, t, path), side, F.INF - 1, F.INF - 1)

    r = _run_chunks(D, Clock(limit), chunk_nodes, step)
    pn, dn, tainted = r if r is not None else (-1, -1, False)
    winner = prover if pn == 0 else 1 - prover if dn == 0 and not tainted else -1
    answer = ProverAnswer(str(position), prover, pn, dn, tainted)
    if winner >= 0:
        def walk():
            return F.rewalk(t, D, F.load_root(D, t, path), side, winner)

        # its own budget: a proof found near the end of the search's is still reported
        walked = _run_chunks(D, Clock(limit), chunk_nodes, walk)
        answer.verified = walked == 1
        if answer.verified:
            found, _, _, move, _ = F.probe(t, D, position.bitboards, side)
            if found and move >= 0 and side == winner:
                answer.move = position.board.names[t.point_of[move]]
            if line_plies:
                answer.line = _dfpn_line(t, D, position, winner, line_plies)
    if not (answer.verified or dn == 0 and tainted):
        answer.pn, answer.dn, answer.tainted = *_root_numbers(t, D, position, prover, answer.children), False
        clock = Clock(limit)
        for m, (cpn, cdn) in answer.children.items():
            if cpn != 0 and cdn != 0:
                continue
            child = position.play(m)
            cwin = prover if cpn == 0 else 1 - prover  # a stored disproof is clean

            def walk_child():
                return F.rewalk(t, D, F.load_root(D, t, path + [(child.bitboards, child.side_index)]),
                                child.side_index, cwin)

            walked = _run_chunks(D, clock, chunk_nodes, walk_child)
            if walked is None:
                break
            if walked == 1:
                found, _, _, move, _ = F.probe(t, D, child.bitboards, child.side_index)
                ok = found and move >= 0 and child.side_index == cwin
                answer.solved[m] = (cwin, position.board.names[t.point_of[move]] if ok else None)
    answer.nodes = int(D.stats[F.EXPANSIONS] + D.stats[F.REWALKED])
    if share_work:
        answer.entries = solved_entries(D, share_work)
    answer.seconds = round(time.perf_counter() - t0, 6)
    return answer


def solved_entries(search, least_work: int) -> tuple[np.ndarray, ...]:
    """The solved entries of a df-pn ``search``'s table with at least ``least_work``
    expansions below them: its key, pn, dn, move and work arrays, for :func:`add_entries`."""
    tt = (search.tt_key, search.tt_pn, search.tt_dn, search.tt_move, search.tt_work)
    keep = (tt[0] != 0) & ((tt[1] == 0) | (tt[2] == 0)) & (tt[4] >= least_work)
    return tuple(a[keep] for a in tt)


def add_entries(search, entries: tuple[np.ndarray, ...]) -> int:
    """Put ``entries`` (:func:`solved_entries` of a search for the same prover on the same
    board) in ``search``'s table, each where its bucket has a free slot or its own (none
    is evicted); the number put.  They only guide: a proof that goes through one is
    re-walked down to finished games like any other, the table searched again where it
    lacks the rest."""
    from .dfpn import BUCKET

    tt = (search.tt_key, search.tt_pn, search.tt_dn, search.tt_move, search.tt_work)
    buckets = np.uint64(tt[0].shape[0] // BUCKET)
    put = 0
    for k, pn, dn, move, work in zip(*entries):
        base = int(k % buckets) * BUCKET
        row = tt[0][base:base + BUCKET]
        free = np.flatnonzero((row == k) | (row == 0))
        if len(free):
            i = base + int(free[0])
            for a, v in zip(tt, (k, pn, dn, move, work)):
                a[i] = v
            put += 1
    return put


def plant_certificate(search, board: Board, path: str | os.PathLike) -> int:
    """Put the positions of the certificate file ``path`` (on ``board``) in ``search``'s
    table as won by its winner, for either prover, with the winner's moves; the number of
    positions put.  Like :func:`add_entries` they only guide: a proof through them is
    re-walked down to finished games, and its own certificate checked.  Raises
    :class:`~solver.reference.certificate.CertificateError` for a file it cannot read."""
    from solver.reference.certificate import MOVE, REPLIES, CertificateError, read_certificate

    from . import dfpn as F

    t = core.tables(board)
    data = read_certificate(path)
    try:
        nodes, winner, on = data["nodes"], "LD".index(data["winner"]), data["board"]
    except (KeyError, TypeError, ValueError):
        raise CertificateError(f"{path} is not a certificate: its header lacks nodes, winner or board") from None
    if on != board.name:
        raise CertificateError(f"{path} is a certificate on {on}, not {board.name}")
    cells = _cells_in_text_order(board, t)
    core.load_kernels(t, "the df-pn table's planting", [
        (F.plant, (t, search, core.new_position(t), 0, 0, F.INF, -1, 0))])
    prover = int(search.limits[F.PROVER])
    put = 0
    try:
        for i in range(len(nodes)):
            kind = nodes.kind[i]
            if kind != MOVE and kind != REPLIES:
                continue  # a finished game (the search sees it) or a settled leaf
            try:
                st, side = _stones(nodes.text(i), cells, t)
                cell = int(t.cell_of[board.index(nodes.points[nodes.edges(i).start])]) if kind == MOVE else -1
            except (ValueError, IndexError) as e:  # a spoilt file, named with its node
                raise CertificateError(f"{path}: node {i} cannot be read: {e}") from None
            for p in (0, 1):
                search.limits[F.PROVER] = p
                pn, dn = (0, F.INF) if p == winner else (F.INF, 0)
                F.plant(t, search, st, side, pn, dn, cell, PLANTED_WORK)
            put += 1
    finally:
        search.limits[F.PROVER] = prover
    return put


def _cells_in_text_order(board: Board, t) -> list[int]:
    """The kernels' cells of ``board``'s points in the order the notation writes them."""
    return [int(t.cell_of[p]) for p in points_in_text_order(board)]


def _stones(text: str, cells: list[int], t) -> tuple[np.ndarray, int]:
    """``(stones, side)`` of a position in the notation (a certificate's: written by the
    builder, read by the checker), without :class:`Position`'s checks."""
    rows, side = text.split()
    st = core.new_position(t)
    k = 0
    count = 0
    for ch in rows:
        if ch.isdigit():
            count = 10 * count + int(ch)
            continue
        k += count
        count = 0
        if ch == "L" or ch == "D":
            c = cells[k]
            st[0 if ch == "L" else 1, c >> 6] |= np.uint64(1 << (c & 63))
            k += 1
    return st, "LD".index(side)


def _root_numbers(t, D, position: Position, prover: int, children: dict) -> tuple[int, int]:
    """The numbers of an unfinished search's root from its children's, each child's table
    numbers also put in ``children`` (by move): a finished child counts as it is, one
    the table lacks as a new child in df-pn (1 and its player's number of moves), one
    solved in the table 1 instead of 0 (it was not re-walked: nothing unproven may look
    proven); min and sum at the prover's turn, sum and min at the other's."""
    from . import dfpn as F

    pns, dns = [], []
    for m in position.legal_moves():
        child = position.play(m)
        if child.outcome is not None:
            won = child.outcome == "LD"[prover]
            pn, dn = (0, F.INF) if won else (F.INF, 0)
        else:
            found, pn, dn, _, _ = F.probe(t, D, child.bitboards, child.side_index)
            if found:
                children[m] = (int(pn), int(dn))
            else:  # df-pn's initial numbers (less its refinements): k moves to answer
                k = max(1, len(child.legal_moves()))
                children[m] = (1, k) if child.side_index == prover else (k, 1)
            pn, dn = children[m]
            pn, dn = min(max(pn, 1), F.INF - 1), min(max(dn, 1), F.INF - 1)
        pns.append(pn)
        dns.append(dn)
    if position.side_index == prover:
        return int(min(pns)), int(min(sum(dns), F.INF - 1))
    return int(min(sum(pns), F.INF - 1)), int(min(dns))


def _check_jobs(jobs: object, method: str) -> int:
    """``jobs`` if it is a whole number of at least 1, and 1 unless ``method`` is df-pn
    on a system that forks; else ValueError."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a whole number of at least 1, not {jobs!r}")
    if jobs > 1:
        from .parallel import can_fork

        if method != "dfpn":
            raise ValueError(f"only df-pn searches one position with several jobs, not {method}")
        if not can_fork():
            raise ValueError("parallel df-pn needs a system that forks processes (jobs=1 here)")
    return jobs


def _horizon(position: Position, clock: Clock, chunk_nodes: int, max_depth: int) -> Result:
    """Iterative deepening of the horizon search, both players' wins at each horizon, in
    chunks of nodes (an interrupted horizon is searched again; its table keeps what the
    chunk finished)."""
    from . import horizon as H_

    t = core.tables(position.board)
    H = H_.new_horizon(t, clock.limit.tt_mb)
    full = position.earlier() + [position]
    me = position.side_index
    size = min(chunk_nodes, 20_000)
    reached = 0
    value, plies, line = Value.UNKNOWN, None, []
    depth = 0
    k = None  # stays None when the budget is spent before a horizon is searched
    while depth <= max_depth and value is Value.UNKNOWN:
        for prover, name in ((me, Value.WIN), (1 - me, Value.LOSS)):
            k = None
            while True:
                n = clock.allow(size)
                if n <= 0 or clock.out():
                    break
                H.limits[0] = int(H.stats[H_.NODES]) + n
                before = int(H.stats[H_.NODES])
                t_chunk = time.perf_counter()
                k = H_.search(H, t, full, prover, depth)
                size = clock.next_chunk(n, time.perf_counter() - t_chunk, chunk_nodes)
                clock.spend(min(int(H.stats[H_.NODES]) - before, n))
                clock.settle(H.tt_key, H.tt_win, H.tt_fail, H.tt_move)
                clock.report(horizon=depth)
                if k is not None:
                    break
            if k is None:
                break
            if k >= 0:
                value, plies = name, k
                line = H_.principal_line(H, t, full, prover, k)
                break
        if k is None:
            break
        reached = depth
        depth += 1
    r = Result(str(position), value, "horizon", nodes=clock.nodes, seconds=clock.elapsed(), line=line,
               best=line[0] if line else None, moves=_moves(position, value, line), verified=value.decided,
               horizon=reached)
    if plies is not None:
        r.stats = {"plies": plies}
        r.notes.append(f"shortest: the {value} takes {plies} plies with best play")
    else:
        r.notes.append(f"no forced win for either player within {reached} plies")
    return r


def _moves(position: Position, value: Value, line: list[str]) -> list[MoveResult]:
    """What a proof says of the moves: a win, its winning move; a loss, every move lost."""
    if value is Value.WIN and line:
        return [MoveResult(line[0], Value.WIN)]
    if value is Value.LOSS:
        return [MoveResult(m, Value.LOSS) for m in position.legal_moves()]
    return []


def _game_path(position: Position) -> list[tuple[np.ndarray, int]]:
    """The positions of the game so far (``(st, side)``, oldest first, ``position``
    last): a repetition of any of them ends the game in a draw."""
    return [(p.bitboards, p.side_index) for p in position.earlier() + [position]]


def _run_chunks(D, clock: Clock, chunk_nodes: int, step) -> int | None:
    """Call ``step()`` (one compiled call that stops after ``D.limits`` allows) in chunks
    until it finishes; return its result, or None when the budget ran out."""
    from . import dfpn as F

    # the first chunk is a guess of a fraction of a second; with the settled rule an
    # expansion can cost a hundred times more (6/7: 9,635 expansions took 60 s), and a
    # chunk is never cut short, so the guess is smaller then
    size = min(chunk_nodes, 500 if D.limits[F.KNOWLEDGE] else 20_000)
    if clock.limit.seconds is not None and clock.limit.seconds < SHORT_PROOF_SECONDS:
        # a chunk is never cut short, and on a large board a few thousand expansions can
        # take a tenth of a second: a short proof feels its way up from FIRST_TIMED_CHUNK
        # (a longer one keeps fixed chunks: sizes drawn from a slow first chunk's rate
        # would change its path from run to run)
        size = min(size, FIRST_TIMED_CHUNK)
    while True:
        n = clock.allow(size)
        if n <= 0 or clock.out():
            return None
        done = int(D.stats[F.EXPANSIONS] + D.stats[F.REWALKED])
        D.limits[F.MAX_EXPANSIONS] = done + n  # expansions and re-walked nodes together
        D.stats[F.ABORTED] = 0
        t_chunk = time.perf_counter()
        r = step()
        size = clock.next_chunk(n, time.perf_counter() - t_chunk, chunk_nodes)
        clock.spend(int(D.stats[F.EXPANSIONS] + D.stats[F.REWALKED]) - done)
        clock.settle(D.tt_key, D.tt_pn, D.tt_dn, D.tt_move, D.tt_work, D.seen)
        clock.report(horizon=0)
        if not D.stats[F.ABORTED]:
            return r


def _dfpn(position: Position, clock: Clock, chunk_nodes: int, line_plies: int, table_file, jobs: int = 1,
          knowledge: bool = True, model: PolicyModel | None = None, focus: int = 0, search=None) -> Result:
    from . import dfpn as F
    from . import tablefile

    t = core.tables(position.board)
    side = position.side_index
    path = _game_path(position)
    tt_mb = clock.limit.tt_mb
    kb = KNOWLEDGE_BUDGET if knowledge else 0
    if search is not None:
        D = search
        D.stats[:] = 0  # this proof's counts
    elif jobs == 1:
        guide = None if model is None else G_.new_guide(t, model, focus=focus)
        D = F.new_dfpn(t, side, tt_mb, knowledge_budget=kb, guide=guide)
    else:
        from . import parallel

        table = parallel.SharedTable(tt_mb, jobs)
        # the workers' table, and this process's own re-walk set
        D = F.new_dfpn(t, side, table.seen_mb, shared=table.arrays, knowledge_budget=kb)

        def together():
            """The workers' search of the root for D's prover; their stats join D's."""
            shown = [0.0]

            def out(spent):
                if clock.elapsed() - shown[0] >= 0.5:  # progress as often as in chunks
                    shown[0] = clock.elapsed()
                    clock.report(horizon=0, nodes=clock.nodes + spent)
                return clock.time_up()

            left = clock.allow(MAX_NODES)
            if clock.out() or left <= 0:
                return None
            try:
                return parallel.search_root(t, table, path, side, int(D.limits[F.PROVER]), workers=jobs,
                                            nodes=left if clock.limit.nodes else 0, out=out, knowledge_budget=kb)
            finally:
                # also after Ctrl-C: a saved table file counts the workers' nodes
                stats = parallel.worker_stats(table)
                clock.spend(int(stats[F.EXPANSIONS]))
                clock.settle(D.tt_key, D.tt_pn, D.tt_dn, D.tt_move, D.tt_work, D.seen)
                for i in (F.EXPANSIONS, F.TT_HITS, F.STORES, F.REPETITIONS):
                    D.stats[i] += stats[i]
                D.stats[F.DEEPEST] = max(D.stats[F.DEEPEST], stats[F.DEEPEST])
    notes: list[str] = []
    value = Value.UNKNOWN
    winner = -1
    tainted_both = True
    # effort of earlier runs whose table this one continues
    before = {"stage": 0, "seconds": 0.0, "runs": 0}
    if table_file is not None and Path(table_file).exists():
        header = tablefile.load_table(table_file, t, D, str(position))
        before.update({k: header[k] for k in before if k in header})
    stage = int(before["stage"])

    def save():
        if table_file is not None:
            tablefile.save_table(table_file, t, D, str(position), stage=stage,
                                 seconds=before["seconds"] + clock.elapsed(),
                                 runs=before["runs"] + 1, tt_mb=tt_mb)

    # first "can the player to move win?", then, unless that was settled cleanly, the same
    # question for the opponent (the table is shared: the prover is part of every key)
    try:
        for stage in range(stage, 2):
            prover = (side, 1 - side)[stage]
            D.limits[F.PROVER] = prover

            def step():
                ply = F.load_root(D, t, path)
                return F.mid(t, D, ply, side, F.INF - 1, F.INF - 1)

            r = _run_chunks(D, clock, chunk_nodes, step) if jobs == 1 else together()
            if r is None:
                tainted_both = False
                save()
                break
            pn, dn, tainted = r
            if pn == 0:
                winner = prover
                break
            if dn == 0 and not tainted:
                winner = 1 - prover
                break
            if dn != 0:
                tainted_both = False
                break
    except KeyboardInterrupt:
        save()
        raise
    verified = False
    table = None
    line: list[str] = []
    if winner >= 0:
        value = Value.WIN if winner == side else Value.LOSS
        prover = int(D.limits[F.PROVER])

        def walk():
            ply = F.load_root(D, t, path)
            return F.rewalk(t, D, ply, side, winner)

        try:
            r = _run_chunks(D, clock, chunk_nodes, walk)
        except KeyboardInterrupt:
            save()
            raise
        if r is None:
            save()
            notes.append("the budget ran out while re-walking the proof: not reported")
            value = Value.UNKNOWN
        elif r != 1:
            notes.append("the proof did not survive its re-walk: not reported")
            value = Value.UNKNOWN
        else:
            verified = True
            line = _dfpn_line(t, D, position, winner, line_plies)
            # the re-walk's set is done with: the certificate writer needs only the table
            table = ProofTable(t, D._replace(seen=np.zeros(F.BUCKET, np.uint64)), winner)
    elif tainted_both:
        notes.append(
            "neither player can force a win when repetitions count against them "
            "(a draw under the repetition rule; df-pn does not report draws)"
        )
    nodes = int(D.stats[F.EXPANSIONS] + D.stats[F.REWALKED])
    p = Result(str(position), value, "dfpn", nodes=nodes, seconds=before["seconds"] + clock.elapsed(), line=line,
               best=line[0] if line else None, moves=_moves(position, value, line), verified=verified,
               notes=notes, table=table)
    p.stats = {
        "runs": int(before["runs"]) + 1, "stage": stage,
        "expansions": int(D.stats[F.EXPANSIONS]), "rewalked": int(D.stats[F.REWALKED]),
        "researched": int(D.stats[F.RESEARCHED]), "deepest": int(D.stats[F.DEEPEST]),
        "repetitions": int(D.stats[F.REPETITIONS]), "stores": int(D.stats[F.STORES]),
        "settled": int(D.know.stats[K.CLAIMS]) if D.know is not None else 0,
    }
    if D.guide is not None:
        p.stats["guided"] = int(D.guide.stats[0])
        p.stats["guided_cached"] = int(D.guide.stats[1])
        p.stats["focus"] = int(D.guide.params[G_.P_FOCUS])
    if jobs > 1:
        p.stats["jobs"] = jobs
    return p


def _dfpn_line(t, D, position: Position, winner: int, plies: int) -> list[str]:
    """A principal line of a checked proof: the winner's move from the table (a move that
    ends the game at once if there is one), the loser's reply with the most work below
    it (the longest resistance the search saw)."""
    from . import dfpn as F

    prover = int(D.limits[F.PROVER])

    def won(p: Position) -> bool | None:
        if p.outcome is not None:
            return p.outcome == "LD"[winner]
        found, pn, dn, _, _ = F.probe(t, D, p.bitboards, p.side_index)
        if not found:
            # the search's lookahead settles a position whose every move loses at once
            # without a table entry
            return True if all(p.play(m).outcome == "LD"[winner] for m in p.legal_moves()) else None
        return pn == 0 if winner == prover else dn == 0

    line: list[str] = []
    pos = position
    seen = {pos.key}
    for _ in range(plies):
        if pos.outcome is not None:
            break
        children = {m: pos.play(m) for m in pos.legal_moves()}
        if pos.side_index == winner:
            ends = [m for m, c in children.items() if c.outcome == "LD"[winner]]
            _, _, _, move, _ = F.probe(t, D, pos.bitboards, pos.side_index)
            table_move = pos.board.names[t.point_of[move]] if move >= 0 else None
            order = ends + ([table_move] if table_move in children else []) + list(children)
            chosen = next((m for m in order if won(children[m])), None)
        else:
            work = {m: -1 if c.outcome is not None else int(F.probe(t, D, c.bitboards, c.side_index)[4])
                    for m, c in children.items()}
            most = max(work.values())
            tied = [m for m in children if work[m] == most]

            def holds(m):
                # ties (a work of 1: settled at once) go to a reply the winner cannot
                # finish with one move (the search's lookahead settled it, two plies on);
                # looked for among the tied replies only (each costs a play per move)
                c = children[m]
                return not any(c.play(r).outcome == "LD"[winner] for r in c.legal_moves())
            chosen = tied[0] if len(tied) == 1 else max(tied, key=holds)
        if chosen is None or children[chosen].key in seen:
            break
        line.append(chosen)
        pos = children[chosen]
        seen.add(pos.key)
    return line


def _alphabeta(position: Position, clock: Clock, chunk_nodes: int) -> Result:
    from .solve import solve_value

    t = core.tables(position.board)
    S = ab.new_search(t, tt_mb=clock.limit.tt_mb)
    size = min(chunk_nodes, 20_000)
    while True:
        # a fresh root search per chunk: the table keeps what earlier chunks proved
        n = clock.allow(size)
        S.stats[ab.NODES] = 0
        S.limits[0] = n
        t_chunk = time.perf_counter()
        v, _ = solve_value(S, t, [position])
        size = clock.next_chunk(n, time.perf_counter() - t_chunk, chunk_nodes)
        clock.spend(int(min(S.stats[ab.NODES], n)))
        clock.settle(S.tt_key, S.tt_val, S.tt_move)
        clock.report(horizon=0)
        if v != ab.UNKNOWN or S.stats[ab.ABORTED] != ab.OUT_OF_NODES or clock.out():
            break
    value = Value(ab.VALUE_NAMES[v])
    p = Result(str(position), value, "alphabeta", nodes=clock.nodes, seconds=clock.elapsed(),
               moves=_moves(position, value, []))
    if S.stats[ab.REASONS] & (1 << ab.PATH_TOO_LONG):
        p.notes.append(f"a search path grew past {ab.MAX_PLY} plies")
    if value is Value.DRAW:
        p.notes.append("the draw depends on the repetition rule")
    return p
