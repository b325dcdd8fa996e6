"""Game analysis: the value of every position of a game, its blunders, and from which
ply its result was forced (``meridians analyse``).

Each position of the game (ply 0, the start, to the end) gets a value for its player to
move from the analyst (:func:`solver.app.analyst.analyse`, the answer of every front end)
within the budget of one position, with its source:

- ``rules``: the game is over there (or one of its moves ends it);
- ``database``: the shipped opening database (:mod:`solver.app.openings.database`);
- ``proof``: df-pn or the engine's tree within the budget; or one move away from a
  neighbour's proof (below), with no search of its own;
- ``engine``: the engine's estimate, value ``'unknown'``, never shown as a win or a loss.

The positions are analysed from the end back to the start, because late positions are
the ones a proof reaches and each one helps the position before it: when the position
after a move is proven lost for its player to move, the move wins, so the position before
it is a proven win without a search of its own.  A second pass forward uses the other
direction: after a position proven lost for its mover every move gives a proven win, and
after a proven win's winning move the opponent's position is a proven loss.  (Every
proven value here holds under any repetition rule: df-pn's and the database's wins and
losses are finite forced wins; a draw is only ever the rules'.)

A **blunder** is a move from a position proven won for its mover after which the
position is no longer a proven win for them: *throws away the win* when the position
after it is proven lost (or drawn) for them, *win no longer proven* when it is not
proven either way within the budget.  The winning moves of the position before are
reported (the database's, or the proof's first move; one at least when a proof within
the budget of one position finds it).

The **forced-from ply** is the first ply ``p`` from which every position ``p .. end`` has
a proven value that agrees with the game's result (the winner proven to win from each of
them), or None.

>>> from solver import Position
>>> a = analyse_game(Position.start("2/3"), ["c1", "c2"], Limit(seconds=1.0))
>>> [(e.ply, e.value.value, e.source) for e in a.positions]
[(0, 'win', 'database'), (1, 'win', 'database'), (2, 'loss', 'database')]
>>> [(b.ply, b.move, b.kind) for b in a.blunders], a.forced_from
([(0, 'c1', 'throws away the win')], None)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from .analyst import SOURCES, analyse, known
from .analyst import Analysis as PositionAnswer
from solver.rules.position import Position
from solver.search.limit import Limit, check_limit
from solver.search.values import Value
from .verify import replay

__all__ = ["PositionAnalysis", "Blunder", "Analysis", "analyse_game", "SOURCES", "DEFAULT_SECONDS", "forced_from"]

#: the budget of one position in seconds: something a person waits for
DEFAULT_SECONDS = 1.0


@dataclass
class PositionAnalysis:
    """One position of the game: ``ply`` moves after the start, ``to_move`` to play
    ``move`` (the move the game played from it; None at the end).  ``value`` is for
    ``to_move`` and proven unless ``source`` is ``'engine'`` (then ``'unknown'``, and
    ``win_rate`` is the engine's estimate for ``to_move``, ``calibrated`` the probability
    of a win it stands for where the board has a calibration map) or ``'none'`` (not analysed).
    ``best``: a proven winning move when the position is won, else the proof's or the
    engine's move.  ``winning``: the winning moves known (the database's, or the proof's
    first move).  ``how``: a few words on how the value was found."""

    ply: int
    position: str
    to_move: str
    move: str | None
    value: Value = Value.UNKNOWN
    source: str = "none"
    win_rate: float | None = None
    calibrated: float | None = None
    best: str | None = None
    winning: list[str] = field(default_factory=list)
    how: str = ""
    nodes: int = 0
    seconds: float = 0.0

    @property
    def proven(self) -> bool:
        """Whether the value is exact (rules, database or a proof)."""
        return self.source in ("rules", "database", "proof") and self.value.decided

    @property
    def light_chance(self) -> float | None:
        """Light's winning chances: a proven Light win 1, a proven Dark win 0, a draw 0.5,
        an estimate its calibrated probability (else its win rate) seen from Light; None
        when there is neither."""
        if self.proven:
            if self.value == Value.DRAW:
                return 0.5
            won = self.value == Value.WIN
            return 1.0 if won == (self.to_move == "L") else 0.0
        if self.win_rate is None:
            return None
        p = self.win_rate if self.calibrated is None else self.calibrated
        return p if self.to_move == "L" else 1.0 - p

    def shown(self) -> str:
        """The value in words: ``'win (database)'``, ``'estimate 0.62 (engine)'``."""
        if self.source == "none":
            return "not analysed"
        if self.proven:
            return f"{self.value} ({self.source})"
        if self.win_rate is None:
            return "unknown"
        if self.calibrated is not None:
            return f"estimate {self.calibrated:.2f} calibrated (win rate {self.win_rate:.2f}, engine)"
        return f"estimate {self.win_rate:.2f} (engine)"

    def as_dict(self) -> dict:
        return {"ply": self.ply, "move": self.move, "to_move": self.to_move, "value": self.value.value,
                "source": self.source, "win_rate": None if self.win_rate is None else round(self.win_rate, 4),
                "calibrated": _rounded(self.calibrated),
                "best": self.best, "winning": list(self.winning), "light_chance": _rounded(self.light_chance),
                "position": self.position, "how": self.how, "nodes": self.nodes, "seconds": round(self.seconds, 3)}


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


@dataclass
class Blunder:
    """The move ``move`` of ``player`` from the position of ply ``ply`` (move number
    ``ply + 1``), which was a proven win for them.  ``kind``: ``'throws away the win'``
    (the position after it is proven lost, or drawn, for them) or ``'win no longer
    proven'``.  ``after``: the value of the position after it for ``player``.
    ``winning``: winning moves of the position before (one at least unless none was
    found within the budget)."""

    ply: int
    player: str
    move: str
    kind: str
    after: Value
    winning: list[str]

    def shown(self) -> str:
        won = f"; winning was: {' '.join(self.winning)}" if self.winning else ""
        return f"?? {self.kind}{won}"

    def as_dict(self) -> dict:
        return {"ply": self.ply, "move_number": self.ply + 1, "player": self.player, "move": self.move,
                "kind": self.kind, "after": self.after.value, "winning": list(self.winning)}


@dataclass
class Analysis:
    """What :func:`analyse_game` found.  ``result``: ``'L'``, ``'D'``, ``'draw'``, or None
    while the game goes on and the record states none.  ``interrupted``: Ctrl-C stopped
    the analysis; the positions not reached have source ``'none'``."""

    board: str
    start: str
    moves: list[str]
    result: str | None
    positions: list[PositionAnalysis]
    blunders: list[Blunder] = field(default_factory=list)
    forced_from: int | None = None
    seconds_per_move: float | None = None
    interrupted: bool = False
    wall_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: who played Light and Dark (``'L'``/``'D'`` -> name or None), from a record's headers
    players: dict[str, str | None] = field(default_factory=dict)

    @property
    def analysed(self) -> int:
        return sum(e.source != "none" for e in self.positions)

    def as_dict(self) -> dict:
        return {"board": self.board, "start": self.start, "moves": list(self.moves), "result": self.result,
                "forced_from": self.forced_from, "blunders": [b.as_dict() for b in self.blunders],
                "positions": [e.as_dict() for e in self.positions],
                "seconds_per_move": self.seconds_per_move, "interrupted": self.interrupted,
                "analysed": self.analysed, "wall_seconds": round(self.wall_seconds, 3), "notes": list(self.notes),
                "players": dict(self.players)}


def analyse_game(
    start: Position,
    moves: list[str],
    limit: Limit | None = None,
    result: str | None = None,
    *,
    seed: int = 1,
    progress: Callable[[int, int, PositionAnalysis], None] | None = None,
) -> Analysis:
    """Analyse the game of ``moves`` from ``start`` (see the module's text).

    ``limit``: the budget of one position, as the analyst takes it
    (:func:`solver.app.analyst.analyse`; None: :data:`DEFAULT_SECONDS`): with nodes and
    playouts and no time the analysis depends only on the game and ``seed``; the engine
    needs seconds or playouts (else ValueError).  ``result``: the result the record states (a resignation when the game is
    not over); the rules' result when the game is over.  ``progress(done, total, entry)``
    is called after each position.  Ctrl-C (KeyboardInterrupt) stops the analysis: what
    was analysed is returned with ``interrupted`` set.  An illegal move raises
    :class:`~solver.app.verify.GameRecordError` naming it (a ValueError).
    """
    limit = check_limit(limit, Limit(seconds=DEFAULT_SECONDS))
    if limit.seconds is None and limit.playouts is None:
        raise ValueError("the analysis needs a budget for the engine: seconds or playouts")
    t0 = time.perf_counter()
    game = replay(start, moves)
    positions = game.positions
    final = positions[-1]
    notes: list[str] = []
    if final.outcome is not None:
        if result is not None and result != final.outcome:
            notes.append(f"the record states the result {result}; the rules say {final.outcome}")
        result = final.outcome
    entries = [PositionAnalysis(k, str(p), p.to_move, game.moves[k] if k < len(game.moves) else None)
               for k, p in enumerate(positions)]
    out = Analysis(start.board.name, str(start), list(game.moves), result, entries, seconds_per_move=limit.seconds,
                   notes=notes)
    try:
        for done, k in enumerate(reversed(range(len(positions))), 1):
            after = entries[k + 1] if k + 1 < len(entries) else None
            _analyse_one(positions[k], entries[k], after, limit, seed)
            if progress is not None:
                progress(done, len(positions), entries[k])
    except KeyboardInterrupt:
        out.interrupted = True
    _forward(positions, entries)
    try:
        out.blunders = _blunders(positions, entries, None if out.interrupted else limit, seed)
    except KeyboardInterrupt:
        out.interrupted = True
        out.blunders = _blunders(positions, entries, None, seed)
    out.forced_from = forced_from(entries, result)
    out.wall_seconds = time.perf_counter() - t0
    return out


def _analyse_one(pos: Position, e: PositionAnalysis, after: PositionAnalysis | None, limit: Limit,
                 seed: int) -> None:
    """Fill ``e``, the entry of ``pos``: what the rules and the database know, else the
    game's move to a position proven lost for the opponent (``after``, analysed before),
    else the analyst within the budget."""
    a = known(pos)
    if a.proven:
        _fill(e, a)
        return
    if after is not None and after.proven and after.value == Value.LOSS:
        # the game's move leads to a position lost for the opponent: it wins
        e.value, e.source = Value.WIN, "database" if after.source == "database" else "proof"
        e.winning, e.best = [e.move], e.move
        e.how = f"its move {e.move} leads to a position proven lost for the opponent ({after.source})"
        return
    a = analyse(pos, limit, seed=seed)
    if any(n.startswith("interrupted") for n in a.notes):
        raise KeyboardInterrupt  # the engine stopped on Ctrl-C with an answer: the analysis stops too
    _fill(e, a)


def _fill(e: PositionAnalysis, a: PositionAnswer) -> None:
    e.value, e.source = a.value, a.source
    e.win_rate = a.estimate.win_rate if a.estimate is not None else None
    e.calibrated = a.estimate.calibrated if a.estimate is not None else None
    e.best = a.best
    e.winning = [m for m, mv in a.moves.items() if mv.value is Value.WIN and a.value is Value.WIN]
    e.nodes, e.seconds = a.nodes, a.seconds
    e.how = {"rules": _reason(a), "database": "the opening database",
             "proof": f"a proof, {a.nodes:,} df-pn nodes, {a.playouts:,} playouts",
             "engine": f"the engine's estimate, {a.playouts:,} playouts",
             "none": "not searched"}[a.source]


def _reason(a: PositionAnswer) -> str:
    return a.notes[0].removeprefix("the game is over: ") if a.notes else "the rules"


def _forward(positions: list[Position], entries: list[PositionAnalysis]) -> None:
    """The forward pass: a position after a proven loss for its mover is a proven win for
    its own mover; the position after a proven win's winning move is a proven loss."""
    for k in range(len(entries) - 1):
        e, nxt = entries[k], entries[k + 1]
        if not e.proven or nxt.proven or nxt.source == "rules":
            continue
        src = "database" if e.source == "database" else "proof"
        if e.value == Value.LOSS:
            nxt.value, nxt.source, nxt.win_rate, nxt.calibrated = Value.WIN, src, None, None
            nxt.how = f"every move of the position before loses ({e.source})"
            nxt.winning, nxt.best = [], nxt.best if nxt.best in positions[k + 1].legal_moves() else None
            _winning_from_the_database(positions[k + 1], nxt)
        elif e.value == Value.WIN and e.move in e.winning:
            nxt.value, nxt.source, nxt.win_rate, nxt.calibrated = Value.LOSS, src, None, None
            nxt.how = f"the move before, {e.move}, is a proven winning move ({e.source})"


def _winning_from_the_database(pos: Position, e: PositionAnalysis) -> None:
    a = known(pos)
    wins = [m for m, mv in a.moves.items() if mv.value is Value.WIN]
    if wins:
        e.winning, e.best = wins, a.best if a.best in wins else wins[0]


def _blunders(positions: list[Position], entries: list[PositionAnalysis], limit: Limit | None,
              seed: int) -> list[Blunder]:
    """The blunders of the game; with a ``limit``, a won position whose winning move is
    not known yet (a database win whose moves' positions it does not hold) is proven
    again to name one."""
    out = []
    for k in range(len(entries) - 1):
        e, nxt = entries[k], entries[k + 1]
        if not (e.proven and e.value == Value.WIN):
            continue
        if nxt.proven and nxt.value == Value.LOSS:
            continue
        if nxt.source == "none":
            continue  # not analysed: nothing to say
        after = nxt.value.negated() if nxt.proven else Value.UNKNOWN
        kind = "throws away the win" if nxt.proven else "win no longer proven"
        if not e.winning and limit is not None:
            _name_a_winning_move(positions[k], e, limit, seed)
        out.append(Blunder(k, e.to_move, e.move, kind, after, [m for m in e.winning if m != e.move]))
    return out


def _name_a_winning_move(pos: Position, e: PositionAnalysis, limit: Limit, seed: int) -> None:
    """A winning move of a position known won whose moves' positions the database does
    not hold: the analyst's, within a position's budget."""
    a = analyse(pos, limit, seed=seed)
    if a.value is Value.WIN and a.best is not None and a.moves[a.best].value is Value.WIN:
        e.winning, e.best = [m for m, mv in a.moves.items() if mv.value is Value.WIN], a.best


def forced_from(entries: list[PositionAnalysis], result: str | None) -> int | None:
    """The first ply from which every position to the end has a proven value agreeing
    with ``result`` (the winner proven to win from each; a draw proven a draw), or None.

    >>> e = [PositionAnalysis(0, "", "L", "a1", Value.UNKNOWN, "engine", 0.5),
    ...      PositionAnalysis(1, "", "D", "b1", Value.LOSS, "proof"),
    ...      PositionAnalysis(2, "", "L", None, Value.WIN, "rules")]
    >>> forced_from(e, "L"), forced_from(e, "D"), forced_from(e, None)
    (1, None, None)
    """
    if result is None:
        return None
    first = None
    for e in reversed(entries):
        if not e.proven:
            break
        want = Value.DRAW if result == "draw" else (Value.WIN if e.to_move == result else Value.LOSS)
        if e.value != want:
            break
        first = e.ply
    return first

