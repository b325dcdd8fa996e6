"""One answer for a position: its value and each move's, from the database, a proof or the engine.

:func:`analyse` is the one place that answers "what is this position worth, and each of
its moves?" within a :class:`~solver.search.limit.Limit`.  Every front end asks it:
``meridians lookup``, ``move``, ``play --engine`` (moves and ``hint``), ``match``'s
``engine`` player and the web application's ``/api/analyse`` and ``/api/move``; none
puts the policy together itself, so one position gets one answer everywhere.

The policy, each answer labelled with its source (:data:`SOURCES`):

1. ``rules``: the game is over, or a move ends it (or repeats a position of the game);
2. ``database``: the shipped opening database (:mod:`solver.app.openings.database`) holds
   the position or the position after a move.  A lost position's moves all lose (a move
   that did not would make the position not lost), with the position's source;
3. ``proof``: df-pn (:func:`solver.search.prove.prove`) within :data:`PROOF_SHARE` of
   the time (:data:`OPEN_PROOF_SHARE` on positions of more than :data:`PROOF_MOVES`
   moves): the position first (it may take all of that share), then, on positions of
   at most :data:`PROOF_MOVES` moves, the moves still undecided (moves that are the same up to symmetry share one
   proof); the engine's tree proves more (MCTS-Solver's back-up);
4. ``engine``: the engine's estimate (:func:`solver.search.mcts.search`) with the time
   or playouts left: a win rate with its visits and 95% interval (:class:`Estimate`),
   never a win or a loss; on a board with a calibration map (:func:`calibrate`, fitted on
   self-play games whose results are known: ``scripts/measure_calibration.py``) also the
   calibrated probability of a win, which the front ends show.  A move with fewer than
   :data:`MIN_VISITS` visits is ``none`` (not searched): too few playouts to say anything.

Guarantees (tests/test_analyst.py checks them on every position of the 2/3 and 3/4
databases and on proven positions of larger boards): a decided position is never
reported as an estimate; no move's value contradicts the position's (in a lost position
every move loses for the player who plays it, in a won one at least one wins); the best
move of a won position is a proven winning move, and of a lost one the move that resists
longest (the database's longest proof when it holds every move, else the engine's choice
among the losing moves), never the first point in board order.

The top lines (multi-PV, ``lines=3``): a line for each of the best moves, best first in
the order the best move is chosen by (proven wins, then the moves the engine searched
most, losses last, the most resisting first), each from where the move's value came from:
the database's line (:func:`~solver.app.openings.database.database_line`), a proof's
line, or the engine tree's principal line through the move; the first is ``line``.

Values are for the player to move (the position's) and for the player who plays the move
(each move's).  ``seconds`` counts the search only: loading the compiled kernels (a
compile on a board's first use) is ``load_seconds``, outside every budget.

>>> from solver import Position
>>> a = analyse(Position.start("2/3"), Limit(seconds=1))
>>> a.value, a.source, a.best, a.moves[a.best].value
(<Value.WIN: 'win'>, 'database', 'c2', <Value.WIN: 'win'>)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Callable

from solver.util.errors import Interrupted, MeridiansError
from solver.rules.position import Position
from solver.search.limit import Limit, check_limit
from solver.search.values import Value

__all__ = ["analyse", "known", "calibrate", "Analysis", "MoveValue", "Line", "Estimate", "AnalysisError", "SOURCES",
           "DEFAULT_LIMIT", "LINES", "MAX_LINES", "PROOF_SHARE", "PROOF_MOVES", "OPEN_PROOF_SHARE", "PROOF_NODES",
           "MIN_VISITS", "RESIST_SECONDS"]

#: where a value came from, most trusted first; ``none``: not searched
SOURCES = ("rules", "database", "proof", "engine", "none")
#: the budget when a caller gives none: what a person waits for
DEFAULT_LIMIT = Limit(seconds=1.0)
#: the top moves whose lines an analysis gives (multi-PV), and the most it may be asked for
LINES = 3
MAX_LINES = 100
#: the longest line, in plies (as the engine's and the database's)
LINE_PLIES = 60
#: the share of a time budget the proofs get before the engine has the rest
PROOF_SHARE = 0.5
#: positions with more legal moves get no proof of each move: each would get too few
#: milliseconds to prove anything (the openings of 5/6 and larger boards)
PROOF_MOVES = 40
#: the share of a time budget the position's proof gets on a position of more than
#: PROOF_MOVES moves (as the engine's df-pn before its tree), where a proof is rarely found
OPEN_PROOF_SHARE = 0.25
#: the proofs' node budget, all of them together, when the limit gives playouts and
#: neither time nor nodes, so that the answer depends only on the position, the limit and
#: the seed (as the engine's df-pn)
PROOF_NODES = 20_000
#: df-pn's table for one proof, in MiB: a fresh table costs a few milliseconds, the
#: whole cost of a proof on the smallest boards, whose proofs fit in SMALL_TT_MB
PROOF_TT_MB = 16
SMALL_TT_MB = 1
#: the boards of at most this many points whose proofs get SMALL_TT_MB (2/3 and smaller)
SMALL_BOARD = 14
#: df-pn's chunk of nodes between looks at the clock, small enough for budgets of a
#: fraction of a second on the largest boards
PROOF_CHUNK = 2_000
#: the fewest visits for which a move's win rate is reported (judgement: below it the
#: 95% interval of a rate near one half is wider than +-0.22)
MIN_VISITS = 16
#: the longest the engine looks for the most resisting move of a lost position
RESIST_SECONDS = 0.5
#: the z of a 95% interval
_Z = 1.959964


class AnalysisError(MeridiansError):
    """An analysis asked for with an option out of range."""


@dataclass(frozen=True)
class Estimate:
    """The engine's win rate for a player over ``visits`` playouts (draws count half),
    with its 95% Wilson interval ``low .. high``: an estimate, never a proof.
    ``calibrated``: the probability that the player wins, the win rate through the
    board's calibration map (:func:`calibrate`), None where the board has none."""

    win_rate: float
    visits: int
    calibrated: float | None = None

    @property
    def probability(self) -> float:
        """The estimate to show: the calibrated probability where there is one, else the win rate."""
        return self.win_rate if self.calibrated is None else self.calibrated

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson score interval of the win rate."""
        n, p = self.visits, self.win_rate
        if n <= 0:
            return 0.0, 1.0
        d = 1 + _Z * _Z / n
        centre = (p + _Z * _Z / (2 * n)) / d
        half = _Z * math.sqrt(p * (1 - p) / n + _Z * _Z / (4 * n * n)) / d
        # at a rate of 0 or 1 the bound is exactly 0 or 1, which rounding would miss
        low = 0.0 if p <= 0 else max(0.0, centre - half)
        high = 1.0 if p >= 1 else min(1.0, centre + half)
        return low, high

    def negated(self) -> Estimate:
        """The same estimate for the other player."""
        return Estimate(1.0 - self.win_rate, self.visits, None if self.calibrated is None else 1.0 - self.calibrated)

    def as_dict(self) -> dict:
        low, high = self.interval
        return {"win_rate": round(self.win_rate, 4), "visits": self.visits, "low": round(low, 4),
                "high": round(high, 4), "calibrated": None if self.calibrated is None else round(self.calibrated, 4)}

    def __str__(self) -> str:
        low, high = self.interval
        if self.calibrated is not None:
            return (f"{self.calibrated:.0%} calibrated (win rate {self.win_rate:.0%}, {low:.0%}-{high:.0%}, "
                    f"{self.visits:,} visits)")
        return f"{self.win_rate:.0%} ({low:.0%}-{high:.0%}, {self.visits:,} visits)"


@dataclass
class MoveValue:
    """One legal move: ``value`` for the player who plays it, ``source`` one of
    :data:`SOURCES`; ``estimate`` the engine's when the value is not proven and the move
    had :data:`MIN_VISITS` visits; ``nodes`` the effort of the proof that gave the value
    (the database's proof of record, a live proof's), 0 when unknown."""

    move: str
    value: Value = Value.UNKNOWN
    source: str = "none"
    estimate: Estimate | None = None
    visits: int = 0
    nodes: int = 0

    @property
    def proven(self) -> bool:
        return self.value.decided

    def shown(self, brief: bool = False) -> str:
        """``'win (database)'``, ``'estimate 62% (51%-72%, 80 visits)'`` or ``'not searched'``;
        ``brief``: an estimate as ``'62% (estimate)'`` (the probability shown, calibrated where
        the board has a map), for a table that gives the visits beside it."""
        if self.proven:
            return f"{self.value} ({self.source})"
        if self.estimate is not None:
            return f"{self.estimate.probability:.0%} (estimate)" if brief else f"estimate {self.estimate}"
        return "not searched"

    def as_dict(self) -> dict:
        return {"move": self.move, "value": self.value.value, "source": self.source,
                "estimate": None if self.estimate is None else self.estimate.as_dict(),
                "visits": self.visits, "nodes": self.nodes}


@dataclass
class Line:
    """One of an analysis's top lines: ``moves`` from the position, starting with the
    move whose value is ``move``, taken from where that value came from (the database's
    line, a proof's, the engine tree's principal line through the move; the move alone
    if none)."""

    move: MoveValue
    moves: list[str]

    def as_dict(self) -> dict:
        return {**self.move.as_dict(), "line": list(self.moves)}


@dataclass
class Analysis:
    """What :func:`analyse` found.  ``value`` is for the player to move, proven unless
    ``source`` is ``'engine'`` (then ``UNKNOWN`` with ``estimate``) or ``'none'``;
    ``moves`` (board order) for the players who play them; ``best`` the move to play
    (None when the game is over, or when the limit gave the engine neither seconds nor
    playouts and no proof named a move: a note says so); ``line`` a principal line starting with ``best``;
    ``lines`` the top moves' lines (multi-PV), best first (``lines[0].moves == line``),
    then as the moves rank: proven wins, the rest by the engine's visits, losses last
    (the most resisting first); empty when there is no best move."""

    position: str
    to_move: str
    value: Value = Value.UNKNOWN
    source: str = "none"
    estimate: Estimate | None = None
    best: str | None = None
    line: list[str] = field(default_factory=list)
    moves: dict[str, MoveValue] = field(default_factory=dict)
    lines: list[Line] = field(default_factory=list)
    nodes: int = 0
    playouts: int = 0
    seconds: float = 0.0
    load_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def proven(self) -> bool:
        """Whether the position's value is exact (rules, database or proof)."""
        return self.value.decided

    @property
    def decided(self) -> bool:
        """Whether the position and every move have exact values."""
        return self.proven and all(m.proven for m in self.moves.values())

    def shown(self) -> str:
        """The value in words: ``'win (database)'``, ``'estimate 55% (...) (engine)'``."""
        if self.proven:
            return f"{self.value} ({self.source})"
        if self.estimate is not None:
            return f"estimate {self.estimate} (engine)"
        return "unknown"

    def as_dict(self) -> dict:
        return {"position": self.position, "to_move": self.to_move, "value": self.value.value,
                "source": self.source, "proven": self.proven,
                "estimate": None if self.estimate is None else self.estimate.as_dict(),
                "best": self.best, "line": list(self.line),
                "moves": [m.as_dict() for m in self.moves.values()],
                "lines": [ln.as_dict() for ln in self.lines],
                "nodes": self.nodes, "playouts": self.playouts, "seconds": round(self.seconds, 4),
                "load_seconds": round(self.load_seconds, 4), "notes": list(self.notes)}


def calibrate(position: Position, playouts: int, load: Callable[[Callable[[], None]], None] | None = None
              ) -> Callable[[float], float] | None:
    """The calibration map of ``position``'s board (:mod:`solver.search.value`) as a
    function from the engine's win rate in this position, after a search of ``playouts``,
    to the probability of a win, or None where the board has none (it was fitted on one
    board's self-play).  ``load``
    runs the map's one-off work (the value model's features; a compile on a board's first
    use), so that the analyst keeps it outside the budget.  A map measured on another
    engine than today's default (:func:`~solver.search.mcts.estimate_identity`) is not used."""
    from solver.search import mcts
    from solver.search.value import shipped_calibration, shipped_model, value_features

    board = position.board
    cal = shipped_calibration(board.name)
    # a map fitted on another engine's win rates (before a new move model or selection
    # rule) would misstate this one's: the raw rate is shown until the map is measured again
    if cal is None or cal.meta.get("engine") != mcts.estimate_identity():
        return None
    empty = 1 - (len(position.stones("L")) + len(position.stones("D"))) / board.size
    value = [0.0]
    if cal.needs_value:
        model = shipped_model(board.name)
        if model is None:
            return None

        def features() -> None:
            value[0] = float(model.logit(value_features(position)))

        (load or (lambda f: f()))(features)
    return lambda w: float(cal(w, empty, value[0], playouts))


def known(position: Position) -> Analysis:
    """What the rules and the opening database know of ``position`` and its moves, with
    no search: :func:`analyse`'s first steps, at once (a lost position's best move is
    the database's longest proof when it holds every move, else None)."""
    return _Run(position, Limit(), 1, True, None, None, search=False).analysis()


def analyse(position: Position, limit: Limit | None = None, *, seed: int = 1, database: bool = True,
            engine=None, progress: Callable[[dict], None] | None = None,
            stop: Callable[[], bool] | None = None, lines: int = LINES) -> Analysis:
    """The value of ``position`` and of each legal move within ``limit`` (None:
    :data:`DEFAULT_LIMIT`), by the module's policy.  ``limit.seconds`` bounds the whole
    search, ``limit.nodes`` the proofs' nodes all together (:data:`PROOF_NODES` with
    playouts alone), ``limit.playouts`` the engine; with playouts and no time the answer
    depends only on the position, the limit and ``seed``.
    ``database=False``: search what the database knows.  ``engine``: a
    :class:`~solver.search.mcts.Engine` to search with (a game keeps one, so that its
    tree carries over from move to move); else a fresh one seeded with ``seed``.
    ``progress`` gets the engine's reports.  Ctrl-C during the engine's search answers
    with what was found so far (a note says so); so does ``stop`` returning True, which
    the searches ask between chunks of work (the web board stops an analysis the user
    has moved away from).  ``lines``: how many top moves get a line (0 to
    :data:`MAX_LINES`; else :class:`AnalysisError`)."""
    limit = check_limit(limit, DEFAULT_LIMIT)
    if isinstance(lines, bool) or not isinstance(lines, int) or not 0 <= lines <= MAX_LINES:
        raise AnalysisError(f"lines is a whole number from 0 to {MAX_LINES}, not {lines!r}")
    run = _Run(position, limit, seed, database, engine, progress, stop=stop, lines=lines)
    return run.analysis()


class _Run:
    """One analysis: the steps of the policy over one shared state."""

    def __init__(self, position: Position, limit: Limit, seed: int, database: bool, engine, progress,
                 search: bool = True, stop: Callable[[], bool] | None = None, lines: int = LINES):
        self.pos, self.limit, self.seed, self.database, self.search = position, limit, seed, database, search
        self.top = lines
        self.engine, self.stop = engine, stop
        self.progress = progress if stop is None else self._watching(progress)
        self.a = Analysis(str(position), position.to_move)
        self.load = 0.0
        self.t0 = time.perf_counter()
        self.proof_line: list[str] = []
        self.proof_lines: dict[str, list[str]] = {}  # a proof's line from a move, by its first move
        self.tried_own = False
        self.held: set[str] = set()  # moves whose position the database holds or the rules decide
        self.engine_best: str | None = None
        self.engine_line: list[str] = []
        self.engine_lines: dict[str, list[str]] = {}  # the tree's principal line through each root move
        self.resist: str | None = None
        # the proofs' nodes left, all proofs together (None: no node bound)
        self.nodes_left: int | None = limit.nodes or (PROOF_NODES if limit.seconds is None else None)

    # -- the clock: search time only, kernel loads set aside ---------------------------
    def elapsed(self) -> float:
        return time.perf_counter() - self.t0 - self.load

    def left(self) -> float | None:
        return None if self.limit.seconds is None else self.limit.seconds - self.elapsed()

    def _loaded(self, load: Callable[[], None]) -> None:
        t = time.perf_counter()
        load()
        self.load += time.perf_counter() - t

    # -- the steps ---------------------------------------------------------------------
    def analysis(self) -> Analysis:
        a, pos = self.a, self.pos
        if pos.outcome is not None:
            a.value, a.source = Value.from_outcome(pos.outcome, pos.to_move), "rules"
            a.notes.append(f"the game is over: {pos.outcome_reason}")
            return self._done()
        # the rules' kernels load (a compile on the board's first use) outside the clock
        self._loaded(pos.legal_moves)
        self.children = {m: pos.play(m) for m in pos.legal_moves()}
        a.moves = {m: MoveValue(m) for m in self.children}
        for m, child in self.children.items():
            if child.outcome is not None:
                a.moves[m].value = Value.from_outcome(child.outcome, child.to_move).negated()
                a.moves[m].source = "rules"
        if self.database:
            self._database()
        self._infer()
        if self.search:
            try:
                if not a.decided or a.value is Value.WIN and not self._winning():
                    self._proofs()
                    self._infer()
                self._engine()
            except Interrupted:
                a.notes.append("stopped: the answer so far")
            self._infer()
            self._calibrate()
        self._choose()
        return self._done()

    def _done(self) -> Analysis:
        self.a.seconds = max(self.elapsed(), 0.0)
        self.a.load_seconds = self.load
        return self.a

    def _database(self) -> None:
        from .openings.database import database_for, lookup_entry

        self._loaded(lambda: database_for(self.pos.board))  # read once: start-up, not search

        own = lookup_entry(self.pos)
        if own is not None:
            self.a.value, self.a.source = own.value, "database"
        for m, child in self.children.items():
            mv = self.a.moves[m]
            if mv.proven:
                self.held.add(m)
                continue
            e = lookup_entry(child)
            if e is not None:
                mv.value, mv.source, mv.nodes = e.value.negated(), "database", e.nodes
                self.held.add(m)

    def _infer(self) -> None:
        """What the values found so far imply: a winning move makes the position won, a
        position whose moves all lose is lost, and every move of a lost position loses."""
        a = self.a
        moves = list(a.moves.values())
        if not a.proven:
            wins = [mv for mv in moves if mv.value is Value.WIN]
            if wins:
                a.value, a.source = Value.WIN, min(wins, key=lambda mv: SOURCES.index(mv.source)).source
            elif moves and all(mv.value is Value.LOSS for mv in moves):
                a.value, a.source = Value.LOSS, max(moves, key=lambda mv: SOURCES.index(mv.source)).source
        if a.value is Value.LOSS:
            for mv in moves:
                if not mv.proven:
                    mv.value, mv.source, mv.estimate = Value.LOSS, a.source, None
        if a.proven:
            a.estimate = None

    def _winning(self) -> list[MoveValue]:
        return [mv for mv in self.a.moves.values() if mv.value is Value.WIN]

    def _watching(self, progress: Callable[[dict], None] | None) -> Callable[[dict], None]:
        """``progress`` that first raises :class:`Interrupted` once ``stop`` says so."""
        def watch(info: dict) -> None:
            if self.stop():
                raise Interrupted("the analysis was stopped")
            if progress is not None:
                progress(info)

        return watch

    def _prove(self, position: Position, seconds: float | None, nodes: int | None):
        """df-pn's proof of ``position`` within ``seconds`` and ``nodes`` (None: no bound)
        of the analysis's budget; None when nothing is left of it."""
        from solver.search.prove import prove

        if (seconds is not None and seconds <= 0.005) or (nodes is not None and nodes < 1):
            return None
        if self.stop is not None and self.stop():
            raise Interrupted("the analysis was stopped")
        tt_mb = SMALL_TT_MB if position.board.size <= SMALL_BOARD else PROOF_TT_MB
        r = prove(position, Limit(seconds=seconds, nodes=nodes or 0, tt_mb=tt_mb), method="dfpn",
                  chunk_nodes=PROOF_CHUNK, progress=self.progress if self.stop is not None else None)
        self.a.nodes += int(r.nodes)
        if self.nodes_left is not None:
            self.nodes_left -= int(r.nodes)
        return r

    def _proofs(self) -> None:
        from solver.search.prove import load_kernels

        a = self.a
        if not self.limit.bounded:
            return
        self._loaded(lambda: load_kernels(self.pos.board, "dfpn"))
        left = self.left()
        share = PROOF_SHARE if len(self.children) <= PROOF_MOVES else OPEN_PROOF_SHARE
        budget = None if left is None else left * share
        deadline = None if budget is None else self.elapsed() + budget
        undecided = [m for m, mv in a.moves.items() if not mv.proven]
        per_child = len(self.children) <= PROOF_MOVES and len(undecided) > 0
        if not a.proven or not self._winning():
            # the position first, with all the proofs' time it needs: a loss decides every
            # move at once, a win names a winning move; the moves get what it leaves
            r = self._prove(self.pos, budget, self.nodes_left)
            self.tried_own = True
            if r is not None and r.value in (Value.WIN, Value.LOSS):
                value = Value(r.value)
                if not a.proven:
                    a.value, a.source = value, "proof"
                if value is Value.WIN and r.line and r.line[0] in a.moves:
                    mv = a.moves[r.line[0]]
                    mv.value, mv.source, mv.nodes = Value.WIN, mv.source if mv.proven else "proof", int(r.nodes)
                    self.proof_line = list(r.line)
                elif value is Value.LOSS and r.line and r.line[0] in a.moves:
                    self.proof_lines[r.line[0]] = list(r.line)  # the reply the proof saw resist longest
                self._infer()
        if not per_child:
            return
        from .openings.database import position_key

        classes: dict[object, list[str]] = {}
        for m, mv in a.moves.items():
            if not mv.proven:
                child = self.children[m]
                k = position_key(child)
                classes.setdefault(k if k is not None else int(child.zobrist_symmetric().min()), []).append(m)
        runs = len(classes)
        for members in classes.values():
            share = None if deadline is None else (deadline - self.elapsed()) / max(runs, 1)
            nodes = None if self.nodes_left is None else self.nodes_left // max(runs, 1)
            runs -= 1
            r = self._prove(self.children[members[0]], share, nodes)
            if r is None or r.value not in (Value.WIN, Value.LOSS):
                continue
            for m in members:
                mv = a.moves[m]
                mv.value, mv.source, mv.nodes = Value(r.value).negated(), "proof", int(r.nodes)
                line = self._mapped(r.line, members[0], m)
                if line is not None:
                    self.proof_lines[m] = self._legal([m] + line)

    def _engine(self) -> None:
        """The engine with what is left, for what is still undecided; in a lost position,
        the losing move that resists longest."""
        from solver.search import mcts

        a = self.a
        lost_choice = a.value is Value.LOSS and self._resisting() is None
        if a.decided and not lost_choice:
            return
        left = self.left()
        seconds = None if left is None else max(left, 0.05)
        playouts = self.limit.playouts
        if seconds is None and playouts is None:
            # nothing bounds an engine search: the undecided moves stay not searched, and
            # what the proofs left open has no best move; the note says why
            a.notes.append("the limit gives neither seconds nor playouts: the engine did not search")
            return
        self._loaded(lambda: mcts.load_kernels(self.pos.board))
        if lost_choice:
            # every move loses: the one a search without the solver prefers keeps the most
            # chances against an opponent who may miss the win (the proof is not redone)
            seconds = None if seconds is None else min(seconds, RESIST_SECONDS)
            # with the given engine's options (its selection rule), else the default engine's
            opts = {**(self.engine.options() if self.engine is not None else {}),
                    "seed": self.seed, "dfpn_nodes": 0, "solver": False}
            r = mcts.search(self.pos, Limit(seconds=seconds, playouts=playouts), progress=self.progress, **opts)
            self.resist = r.best
            a.playouts += r.playouts
            self.engine_lines = {mi.move: list(mi.line) for mi in r.moves if mi.line}
            self._visits(r, estimates=False)
            return
        # the tree holds what is proven as proven nodes: no playouts spent on them
        proven = {m: mv.value for m, mv in a.moves.items() if mv.value in (Value.WIN, Value.LOSS)}
        engine = self.engine if self.engine is not None else mcts.Engine(seed=self.seed)
        # a df-pn of the position just tried here is not the engine's to try again
        r = engine.search(self.pos, Limit(seconds=seconds, playouts=playouts), progress=self.progress,
                          known=proven, dfpn=not self.tried_own)
        a.playouts += r.playouts
        a.nodes += r.stats["dfpn_nodes"]
        a.notes += [n for n in r.notes if n.startswith(("interrupted", "the tree is full"))]
        self.engine_best, self.engine_line = r.best, list(r.line)
        self.engine_lines = {mi.move: list(mi.line) for mi in r.moves if mi.line}
        if r.proven and not a.proven and r.source in ("tree", "dfpn"):
            a.value, a.source = r.value, "proof"
            if r.value is Value.WIN and r.source == "dfpn" and r.line:
                self.proof_line = list(r.line)
        for mi in r.moves:
            mv = a.moves.get(mi.move)
            if mv is None or mv.proven:
                continue
            if mi.value is Value.DRAW:
                mv.value, mv.source = Value.DRAW, "rules"  # the move repeats a position of the game
            elif mi.value.decided:
                mv.value, mv.source = mi.value, "proof"
        self._visits(r, estimates=True)
        self._infer()
        if not a.proven:
            best = a.moves.get(r.best) if r.best else None
            a.estimate = best.estimate if best is not None else None
            a.source = "engine" if a.estimate is not None else "none"

    def _calibrate(self) -> None:
        """Each estimate's calibrated probability, where the board has a calibration map."""
        a = self.a
        rated = [mv for mv in a.moves.values() if mv.estimate is not None and not mv.proven]
        if not rated:
            return
        probability = calibrate(self.pos, a.playouts, self._loaded)
        if probability is None:
            return
        for mv in rated:
            mv.estimate = replace(mv.estimate, calibrated=probability(mv.estimate.win_rate))
        if a.estimate is not None and not a.proven:
            a.estimate = replace(a.estimate, calibrated=probability(a.estimate.win_rate))

    def _visits(self, r, estimates: bool) -> None:
        for mi in r.moves:
            mv = self.a.moves.get(mi.move)
            if mv is None:
                continue
            mv.visits = mi.visits
            if estimates and not mv.proven and mi.win_rate is not None and mi.visits >= MIN_VISITS:
                mv.estimate, mv.source = Estimate(mi.win_rate, mi.visits), "engine"

    def _resisting(self) -> str | None:
        """In a lost position whose every move the database holds or the rules decide,
        the move of the longest proof of record; else None."""
        moves = list(self.a.moves)
        if moves and self.held.issuperset(moves):
            return max(moves, key=lambda m: (self.a.moves[m].nodes, m))
        return None

    def _choose(self) -> None:
        a = self.a
        if a.value is Value.WIN:
            wins = self._winning()
            rank = {"rules": 0, "database": 1, "proof": 2}
            first = self.proof_line[0] if self.proof_line else None
            if wins:
                best = min(wins, key=lambda mv: (rank.get(mv.source, 3), mv.move != first, mv.nodes, mv.move))
                a.best = best.move
            else:
                a.best = self.engine_best
                a.notes.append("proven won, but no winning move was proven within the budget")
        elif a.value is Value.LOSS:
            a.best = self._resisting() or self.resist or self.engine_best
        else:
            a.best = self.engine_best
            if a.best is None:
                rated = [mv for mv in a.moves.values() if mv.estimate is not None]
                drawn = [mv for mv in a.moves.values() if mv.value is Value.DRAW]
                if rated:
                    a.best = max(rated, key=lambda mv: (mv.estimate.win_rate, mv.visits)).move
                elif drawn:
                    a.best = drawn[0].move
        a.line = self._line()
        a.lines = self._lines()

    def _line(self) -> list[str]:
        return [] if self.a.best is None else self._move_line(self.a.best)

    def _move_line(self, m: str) -> list[str]:
        """The line from the position that starts with ``m``, from where ``m``'s value came
        from: a proof's line, the database's, else the engine tree's through ``m``; else
        ``[m]`` (each made by playing its moves, legal throughout)."""
        a = self.a
        mv = a.moves[m]
        line = None
        if self.proof_line and self.proof_line[0] == m:
            line = self.proof_line
        elif mv.source == "proof" and m in self.proof_lines:
            line = self.proof_lines[m]
        elif a.source == "database" or mv.source == "database":
            from .openings.database import database_line

            after = database_line(self.children[m], LINE_PLIES - 1)
            if after or mv.source == "database":
                line = [m] + after
        if line is None:
            if self.engine_line and self.engine_line[0] == m:
                line = self.engine_line
            else:
                line = self.engine_lines.get(m) or self.proof_lines.get(m) or [m]
        return list(line[:LINE_PLIES])

    def _legal(self, line: list[str]) -> list[str]:
        """The longest start of ``line`` that plays from the position (to the game's end):
        a line mapped by a symmetry meets another game history (a repetition may differ)."""
        from solver.rules.position import IllegalMoveError

        pos, out = self.pos, []
        for m in line[:LINE_PLIES]:
            if pos.outcome is not None:
                break
            try:
                pos = pos.play(m)
            except IllegalMoveError:
                break
            out.append(m)
        return out

    def _mapped(self, line: list[str], source: str, target: str) -> list[str] | None:
        """``line``, played from the position after ``source``, mapped to the position
        after ``target`` by a symmetry of the board that takes the one to the other
        (moves equal up to symmetry share one proof); None when no symmetry does."""
        if source == target:
            return list(line)
        board = self.pos.board
        one, two = self.children[source], self.children[target]
        want = [sorted(board.index(x) for x in two.stones(c)) for c in "LD"]
        for perm in board.symmetries:
            if [sorted(perm[board.index(x)] for x in one.stones(c)) for c in "LD"] == want:
                return [board.name_of(perm[board.index(x)]) for x in line]
        return None

    def _ranked(self) -> list[str]:
        """The moves best first: ``best``, then proven wins (as :meth:`_choose` ranks
        them), the rest by the engine's visits (then win rate), losses last (most
        visits of the resisting search, then the longest proof of record first)."""
        a = self.a
        rank = {"rules": 0, "database": 1, "proof": 2}
        first = self.proof_line[0] if self.proof_line else None

        def key(mv: MoveValue) -> tuple:
            if mv.value is Value.WIN:
                return 0, rank.get(mv.source, 3), mv.move != first, mv.nodes, mv.move
            if mv.value is Value.LOSS:
                return 2, -mv.visits, -mv.nodes, mv.move
            rate = mv.estimate.win_rate if mv.estimate is not None else 0.5 if mv.value is Value.DRAW else 0.0
            return 1, -mv.visits, -rate, mv.move

        return [a.best] + [mv.move for mv in sorted(a.moves.values(), key=key) if mv.move != a.best]

    def _lines(self) -> list[Line]:
        a = self.a
        if a.best is None or self.top == 0:
            return []
        out = [Line(a.moves[a.best], list(a.line))]
        for m in self._ranked()[1:self.top]:
            out.append(Line(a.moves[m], self._move_line(m)))
        return out
