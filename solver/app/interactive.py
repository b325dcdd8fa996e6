"""Playing the engine in a terminal: ``meridians play --engine`` and ``--engine-vs-engine``.

:class:`HumanVsEngine` is the loop of a game between a person and the engine
(:class:`solver.search.mcts.Engine`, which keeps its tree from move to move): it reads
lines from one stream and writes to another, so that it runs the same on a terminal,
through a pipe and in a test over :class:`io.StringIO`.  :func:`engine_vs_engine` plays
both sides by the engine, one :class:`~solver.search.mcts.Engine` a side.  Both play a
:class:`~solver.rules.position.Game`, so a repeated position ends the game in a draw exactly as
the rules say, and both return an :class:`Ending` (the game and how it stopped); writing
the record is the caller's (``meridians play --record``).

The engine's values are labelled as what they are: ``proven win`` / ``proven loss``
(df-pn or the tree's back-up: exact) or ``estimate 62%`` (the best move's playout win
rate: a guess).

>>> import io
>>> from solver.rules.position import Game
>>> out = io.StringIO()
>>> end = HumanVsEngine(Game("2/3"), "L", engine_limit(playouts=50), inp=io.StringIO("zz\\nquit\\n"), out=out).run()
>>> end.how, end.game.moves
('quit', [])
>>> [line for line in out.getvalue().splitlines() if "zz" in line]
["your move (Light; 14 legal moves; 'help' for commands): unknown point 'zz' on board 2/3"]
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TextIO

from solver.rules.position import Game, IllegalMoveError, Position
from solver.search.limit import MAX_PLAYOUTS, Limit, LimitError
from solver.search.values import Value
from solver.search.mcts import Engine
from .analyst import Analysis, analyse

__all__ = ["engine_limit", "label", "Ending", "HumanVsEngine", "engine_vs_engine", "parse_playouts", "value_text", "result_line",
           "players", "engine_note", "proven_from", "DEFAULT_SECONDS", "COMMANDS"]

#: the engine's thinking time a move when neither seconds nor playouts are given
DEFAULT_SECONDS = 1.0
_NAME = {"L": "Light", "D": "Dark"}
#: what the person may type besides a move, with what it does (``help`` prints them)
COMMANDS = (
    ("c3", "play the point c3 (row letter, column number)"),
    ("hint", "the engine's suggestion for you, with its value"),
    ("undo", "take back your last move and the engine's reply"),
    ("moves", "list the legal moves"),
    ("board", "draw the board again"),
    ("quit", "stop the game (Ctrl-D too); the record, if asked for, gets the result '*'"),
    ("help", "this list"),
)
# the longest word echoed back in a message (a pasted paragraph is not repeated)
_ECHO = 12


def parse_playouts(text: str, option: str = "--playouts") -> int:
    """``text`` as a playout budget, a whole number from 1 to 10**12; else
    :class:`~solver.search.limit.LimitError` naming ``option`` (without repeating a
    value of thousands of digits).

    >>> parse_playouts(" 200 ")
    200
    """
    digits = text.strip()
    if not (digits.isdigit() and digits.isascii() and len(digits) <= 13 and 1 <= int(digits) <= MAX_PLAYOUTS):
        shown = repr(text) if len(text) <= 30 else f"of {len(text)} characters"
        raise LimitError(f"{option} {shown}: give a whole number from 1 to 10**12")
    return int(digits)


def engine_limit(seconds: float | None = None, playouts: int | None = None) -> Limit:
    """The engine's budget a move: ``seconds`` and/or ``playouts``, whichever ends first
    (with playouts alone the engine's moves depend only on the positions and the seed);
    neither given: :data:`DEFAULT_SECONDS`.  Bad values raise
    :class:`~solver.search.limit.LimitError`."""
    if seconds is None and playouts is None:
        seconds = DEFAULT_SECONDS
    return Limit(seconds=seconds, playouts=playouts)


def label(limit: Limit) -> str:
    """The engine's budget in words, as the record's player header names it.

    >>> label(engine_limit()), label(engine_limit(playouts=200)), label(engine_limit(2, 500))
    ('1 s a move', '200 playouts a move', '2 s or 500 playouts a move')
    """
    parts = []
    if limit.seconds is not None:
        parts.append(f"{limit.seconds:g} s")
    if limit.playouts is not None:
        parts.append(f"{limit.playouts} playouts")
    return " or ".join(parts) + " a move"


def players(human: str | None, limit: Limit) -> dict[str, str]:
    """The record's ``Light`` and ``Dark`` headers: ``human`` (``'L'``, ``'D'``, or None
    when the engine plays both) is ``"human"``, the engine ``"engine (1 s a move)"``.

    >>> players("D", engine_limit(playouts=200))
    {'Light': 'engine (200 playouts a move)', 'Dark': 'human'}
    """
    engine = f"engine ({label(limit)})"
    return {"Light": "human" if human == "L" else engine, "Dark": "human" if human == "D" else engine}


def value_text(a: Analysis) -> str:
    """An analysis's value for the player to move: ``'proven win'``, ``'proven loss'``
    (exact: the database, a proof or the rules), ``'estimate 62%'`` (the engine's
    playout win rate; ``'estimate 58% calibrated'`` where the board has a calibration
    map), or ``'no estimate'``."""
    if a.proven:
        return f"proven {a.value}"
    if a.estimate is None:
        return "no estimate"
    return f"estimate {a.estimate.probability:.0%}" + (" calibrated" if a.estimate.calibrated is not None else "")


def result_line(game: Game) -> str:
    """How the game ended, in one line: ``'Light wins after 23 moves: Dark has no legal
    placement'``, ``'draw by repetition after 40 moves'``, or that it has not ended."""
    n = len(game.moves)
    result = game.outcome
    if result is None:
        return f"stopped after {n} moves, no result"
    if result == "draw":
        return f"draw by repetition after {n} moves"
    return f"{_NAME[result]} wins after {n} moves: {game.position.outcome_reason}"


@dataclass
class Ending:
    """How a game stopped: ``how`` is ``'over'`` (the rules ended it: see
    ``game.outcome``), ``'quit'`` (the person typed quit or the input ended),
    ``'interrupted'`` (Ctrl-C) or ``'stopped'`` (a ply limit)."""

    game: Game
    how: str
    #: ply count -> the engine's value of the move that reached it, as a record comment
    #: ("engine: proven win, 0.52 s"), so that a record keeps what the engine knew
    comments: dict[int, str] = field(default_factory=dict)
    #: ply count -> the engine's search result for the move that reached it
    results: dict[int, Analysis] = field(default_factory=dict)


def proven_from(ending: Ending) -> int | None:
    """The first ply (position of the game, 0 the start) from which every search the
    engine made in the game answered with a proven value: from there on the engine knew
    the result.  None if its last search did not prove one (or it made none).

    >>> from solver.rules.position import Game
    >>> end = engine_vs_engine(Game("2/3"), engine_limit(playouts=300), out=io.StringIO(), quiet=True)
    >>> proven_from(end)
    0
    """
    searched = sorted(ply - 1 for ply in ending.results)  # a result is keyed by the ply its move reached
    first = None
    for ply in reversed(searched):
        if not ending.results[ply + 1].proven:
            break
        first = ply
    return first


def engine_note(r: Analysis) -> str:
    """The record comment after an engine move: its value for the engine and its time."""
    return f"engine: {value_text(r)}, {r.seconds:.2f} s"


def _interrupted(r: Analysis) -> bool:
    # the engine catches Ctrl-C in its tree search and answers with what it has: here
    # that answer is not played, the game stops
    return any(note.startswith("interrupted") for note in r.notes)


def _search(engine: Engine, pos: Position, limit: Limit, out: TextIO) -> Analysis:
    """The analysis of ``pos`` within ``limit`` (:func:`solver.app.analyst.analyse`: the
    database, a proof, else ``engine``'s search, which keeps its tree through the game);
    on a terminal a live line of the engine's progress, rubbed out when it ends."""
    from solver.jobs.progress import StatusLine

    isatty = getattr(out, "isatty", None)
    live = bool(isatty and isatty())
    status = StatusLine(out)

    def show(info: dict) -> None:
        rate = f", best {info['best']} {info['win_rate']:.0%}" if info["win_rate"] is not None else ""
        status.show(f"  thinking: {info['playouts']:,} playouts, {info['seconds']:.1f} s{rate}")

    try:
        return analyse(pos, limit, engine=engine, progress=show if live else None)
    finally:
        status.close()


def _move_line(pos: Position, who: str) -> str:
    """``'Dark (engine) plays c3, removing b1 b2'`` for the move that led to ``pos``."""
    mover = _NAME["L" if pos.to_move == "D" else "D"]
    gone = f", removing {' '.join(sorted(pos.removed))}" if pos.removed else ""
    return f"{mover} ({who}) plays {pos.last_move}{gone}"


class HumanVsEngine:
    """One game of a person (``human``, ``'L'`` or ``'D'``) against the engine, from
    ``game``'s position, reading the person's lines from ``inp`` and writing to ``out``.

    The board is drawn after every move, with whose turn it is and the number of legal
    moves.  The person types a move by name (``c3``) or a command (:data:`COMMANDS`);
    an illegal or malformed move gets one line saying why, and the question again.  The
    end of the input stops the game as ``quit`` does; Ctrl-C (KeyboardInterrupt, while
    waiting for a line or while the engine thinks) stops it too, as ``'interrupted'``.
    The engine (seeded with ``seed``) plays within ``limit`` a move and keeps its tree
    through the game; each of its moves is printed with its value for the engine and the
    time it took.
    """

    def __init__(self, game: Game, human: str, limit: Limit, *, inp: TextIO, out: TextIO, seed: int = 1,
                 engine: Engine | None = None):
        if human not in _NAME:
            raise ValueError(f"the person plays L or D, not {human!r}")
        self.game, self.human, self.limit = game, human, limit
        self.inp, self.out = inp, out
        self.engine = engine if engine is not None else Engine(seed=seed)
        self._announced: Value | None = None
        self.comments: dict[int, str] = {}  # the engine's notes on its moves, for the record
        self.results: dict[int, Analysis] = {}

    # -- output ----------------------------------------------------------------------
    def say(self, text: str = "", end: str = "\n") -> None:
        self.out.write(text + end)
        self.out.flush()

    def draw(self) -> None:
        """The board, whose turn it is (the diagram's last line) and the legal-move count."""
        pos = self.game.position
        self.say(pos.diagram())
        if pos.outcome is None:
            n = len(pos.legal_moves())
            whose = "you" if pos.to_move == self.human else "the engine"
            self.say(f"{n} legal move{'s' if n != 1 else ''} for {_NAME[pos.to_move]} ({whose})")

    def _search(self) -> Analysis:
        return _search(self.engine, self.game.position, self.limit, self.out)

    # -- the game --------------------------------------------------------------------
    def run(self) -> Ending:
        """Play until the game ends, the person quits or the input ends, or Ctrl-C."""
        engine_side = "D" if self.human == "L" else "L"
        try:
            self.say(f"board {self.game.position.board.name}: you play {_NAME[self.human]}, the engine "
                     f"{_NAME[engine_side]} ({label(self.limit)}); type a move such as c3, or 'help'")
            self.draw()
            while self.game.outcome is None:
                if self.game.position.to_move != self.human:
                    self._engine_move()
                    continue
                how = self._human_turn()
                if how is not None:
                    return Ending(self.game, how, self.comments, self.results)
        except KeyboardInterrupt:
            self.say()
            self.say("interrupted: the game is stopped")
            return Ending(self.game, "interrupted", self.comments, self.results)
        self.say(self._final_line())
        return Ending(self.game, "over", self.comments, self.results)

    def _final_line(self) -> str:
        result = self.game.outcome
        who = "" if result == "draw" else (" (you win)" if result == self.human else " (the engine wins)")
        return result_line(self.game) + who

    def _engine_move(self) -> None:
        """The engine plays; KeyboardInterrupt when Ctrl-C stopped its search (then
        nothing is played)."""
        r = self._search()
        if _interrupted(r):
            raise KeyboardInterrupt
        if r.best is None:  # the search always tries every root move of a game not over
            raise RuntimeError(f"the engine found no move in {self.game.position} ({'; '.join(r.notes)})")
        pos = self.game.play(r.best)
        self.comments[len(self.game.moves)] = engine_note(r)
        self.results[len(self.game.moves)] = r
        self.say(f"{_move_line(pos, 'engine')}: {value_text(r)} for the engine, {r.seconds:.2f} s")
        if r.proven and self._announced != r.value:
            self._announced = r.value
            if r.value is Value.WIN:
                self.say("the engine has proven a win: it wins whatever you play")
            else:
                self.say("the engine has proven a loss: you have a winning line")
        self.draw()

    def _human_turn(self) -> str | None:
        """Read and do one line of the person's; ``'quit'`` when they stop the game."""
        pos = self.game.position
        n = len(pos.legal_moves())
        self.say(f"your move ({_NAME[self.human]}; {n} legal moves; 'help' for commands): ", end="")
        line = self.inp.readline()
        if not line:
            self.say()
            self.say("end of input: the game is stopped")
            return "quit"
        words = line.split()
        if not words:
            return None
        if len(words) > 1:
            self.say("type one move or one command ('help' lists them)")
            return None
        word = words[0].lower()
        if word in ("quit", "exit", "q"):
            self.say("the game is stopped")
            return "quit"
        if word in ("help", "h", "?"):
            for name, what in COMMANDS:
                self.say(f"  {name:6} {what}")
        elif word == "hint":
            self._hint()
        elif word == "undo":
            self._undo()
        elif word == "moves":
            self.say(f"legal moves ({n}): {' '.join(pos.legal_moves())}")
        elif word == "board":
            self.draw()
        elif len(word) > _ECHO:
            self.say("not a move or a command ('help' lists them)")
        else:
            try:
                child = self.game.play(word)
            except IllegalMoveError as e:
                self.say(f"{e}")
                return None
            self.say(_move_line(child, "you"))
            self.draw()
        return None

    def _hint(self) -> None:
        r = self._search()
        if _interrupted(r):
            raise KeyboardInterrupt
        if r.best is None:
            self.say(f"no hint: {'; '.join(r.notes) or 'the engine found no move'}")
            return
        self.say(f"hint: {r.best} ({value_text(r)} for you, {r.seconds:.2f} s)")

    def _undo(self) -> None:
        """Take back the person's last move and the engine's reply to it."""
        if len(self.game.moves) < 2:
            self.say("nothing to undo: you have not moved yet")
            return
        taken = self.game.moves[-2:]
        del self.game.moves[-2:]
        del self.game.positions[-2:]
        for ply in [p for p in self.comments if p > len(self.game.moves)]:
            del self.comments[ply], self.results[ply]
        self.say(f"took back {' '.join(taken)}")
        self.draw()


def engine_vs_engine(game: Game, limit: Limit, *, out: TextIO, seed: int = 1, max_plies: int | None = None,
                     quiet: bool = False) -> Ending:
    """Both sides of ``game`` played by the engine (one :class:`Engine` a side, seeded
    ``seed`` and ``seed + 1``, each keeping its tree), each move printed as it is played
    with its value for the mover and its time, then the final board and the result line
    (only the result line with ``quiet``).  Stops after ``max_plies`` moves of the game if
    given (``'stopped'``) and at Ctrl-C (``'interrupted'``, the move being searched not
    played)."""
    engines = {"L": Engine(seed=seed), "D": Engine(seed=seed + 1)}
    comments: dict[int, str] = {}
    results: dict[int, Analysis] = {}

    def say(text: str) -> None:
        if not quiet:
            out.write(text + "\n")
            out.flush()

    how = "over"
    try:
        while game.outcome is None:
            if max_plies is not None and len(game.moves) >= max_plies:
                how = "stopped"
                break
            pos = game.position
            r = _search(engines[pos.to_move], pos, limit, out if not quiet else io.StringIO())
            if _interrupted(r):
                raise KeyboardInterrupt
            if r.best is None:
                raise RuntimeError(f"the engine found no move in {pos} ({'; '.join(r.notes)})")
            child = game.play(r.best)
            comments[len(game.moves)] = engine_note(r)
            results[len(game.moves)] = r
            gone = f", removing {' '.join(sorted(child.removed))}" if child.removed else ""
            say(f"{len(game.moves):4d}. {pos.to_move} {r.best}{gone}  ({value_text(r)} for {_NAME[pos.to_move]}, "
                f"{r.seconds:.2f} s)")
    except KeyboardInterrupt:
        how = "interrupted"
        say("\ninterrupted: the game is stopped")
    say(game.position.diagram())
    out.write(result_line(game) + "\n")
    out.flush()
    return Ending(game, how, comments, results)
