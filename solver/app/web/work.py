"""What the web application computes, as plain functions of JSON-ready values.

Nothing here knows of HTTP: :mod:`solver.app.web.app` checks a request's parameters, calls
these (the rules' ones in a thread, the searches in a worker process) and sends back
what they return.  Every error the user can cause is a :class:`ValueError` (the
project's typed errors: :class:`~solver.rules.notation.NotationError`,
:class:`~solver.rules.position.InvalidPositionError`,
:class:`~solver.rules.position.IllegalMoveError`, ...), whose message the app sends as the one
line of a 400 answer.

An analysis is the CLI's (``meridians lookup --json``): ``value`` for the player to move,
each of ``moves`` for the player who plays it, each labelled with its ``source``;
``'win'``, ``'loss'`` and ``'draw'`` are proven, an ``estimate`` (the engine's playout win
rate with its visits and interval) is not.

>>> info = position_info("2/3")
>>> info["position"], info["to_move"], len(info["legal_moves"]), info["outcome"], info["dead"]
('2/3/4/3/2 L', 'L', 14, None, [])
>>> play_move("2/3/4/3/2 L", "c1")["position"]
'2/3/L3/3/2 D'
"""

from __future__ import annotations


from solver.rules.position import Position
from ..verify import start_position

__all__ = ["parse", "position_info", "threatened", "play_move", "explain_move", "analyse", "engine_move", "read_record",
           "write_record", "listen", "load_rules", "PLAYERS"]

#: the longest position text accepted (a 7/8 position is under 200 characters)
MAX_TEXT = 1000
#: the most lines (the game's and its variations') of a record read or written here, and the
#: most moves of those lines counted whole from the start: the page is sent, and loads,
#: every position of every line
MAX_LINES = 1000
MAX_LINE_MOVES = 100_000


def parse(text: object) -> Position:
    """A position in notation, or a board name (``3/4``) for its empty board; a
    ValueError naming the problem for anything else."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("give a position, such as '2/3/4/3/2 L', or a board, such as 3/4")
    if len(text) > MAX_TEXT:
        raise ValueError(f"a position of {len(text):,} characters: a position has at most {MAX_TEXT}")
    return start_position(text.strip(), None)


def position_info(text: object) -> dict:
    """``{position, board, to_move, legal_moves, outcome, reason, dead, threatened, light,
    dark, last_move, removed}`` of a position (notation or a board name).  ``outcome``:
    ``'L'``/``'D'`` (the winner) or None; ``dead``: the stones of dead groups, as
    pictures mark them (:meth:`~solver.rules.position.Position.marked_dead`); ``threatened``:
    :func:`threatened`."""
    return _info(parse(text))


def _info(pos: Position) -> dict:
    legal = pos.legal_moves()
    return {"position": str(pos), "board": pos.board.name, "to_move": pos.to_move,
            "legal_moves": legal, "outcome": pos.outcome, "reason": pos.outcome_reason,
            "dead": sorted(pos.marked_dead()), "threatened": threatened(pos, legal),
            "light": sorted(pos.stones("L")), "dark": sorted(pos.stones("D")),
            "last_move": pos.last_move, "removed": sorted(pos.removed)}


def threatened(pos: Position, legal: list[str] | None = None) -> list[str]:
    """The stones of the player *not* to move that some legal move of the player to move
    leaves in a dead group (no path), so that they are removed unless their owner's next
    placement rescues them: the union over the legal moves of the opponent's dead stones
    after the move (none while the opponent has fewer than two stones: a lone first
    stone is never removed).

    >>> threatened(Position.parse("2/LD1/4/1LD/2 L"))
    ['b3', 'd2']
    """
    other = "D" if pos.to_move == "L" else "L"
    if len(pos.stones(other)) < 2:
        return []
    out: set[str] = set()
    for m in pos.legal_moves() if legal is None else legal:
        child = pos.play(m)
        out |= child.marked_dead() & child.stones(other)
    return sorted(out)


def _move_text(move: object) -> str:
    """``move`` as a point name to look up; a ValueError for anything that cannot be one."""
    if not isinstance(move, str) or not move.strip() or len(move) > 8:
        raise ValueError("give a move as a point name, such as 'c2'")
    return move.strip()


def play_move(text: object, move: object) -> dict:
    """:func:`position_info` of the position after ``move``, with ``last_move`` and the
    ``removed`` stones; :class:`~solver.rules.position.IllegalMoveError` names the rule an
    illegal move breaks."""
    pos = parse(text)
    return _info(pos.play(_move_text(move)))


def explain_move(text: object, move: object) -> dict:
    """``{move, legal, reason}``: whether ``move`` is legal in the position and, when it
    is not, the rule it breaks (the message of
    :class:`~solver.rules.position.IllegalMoveError`), so that a page can say why a click is
    refused without an error answer.  A point not on the board is a ValueError."""
    from solver.rules.position import IllegalMoveError

    pos = parse(text)
    name = pos.board.name_of(pos.board.index(_move_text(move)))
    try:
        pos.play(name)
    except IllegalMoveError as e:
        return {"move": name, "legal": False, "reason": str(e)}
    return {"move": name, "legal": True, "reason": None}


def read_record(text: object, board: object = None) -> dict:
    """A pasted game record (:func:`solver.rules.record.parse_record`, both formats, or
    Abstract Play's JSON, :func:`solver.app.importers.import_abstractplay`; every move
    checked): ``{start, moves, positions, result, headers, swap, variations}``, the positions
    after 0, 1, ... moves; ``variations``: the record's other lines
    (:meth:`~solver.rules.record.GameRecord.lines`), each ``{moves, positions}`` whole from the start;
    at most :data:`MAX_LINES` lines of :data:`MAX_LINE_MOVES` moves in all."""
    from solver.rules.record import RecordError, parse_record, replay_lines

    if not isinstance(text, str) or not text.strip():
        raise RecordError("give a game record: a start position or board, then the moves")
    if len(text) > 100_000:
        raise RecordError(f"a record of {len(text):,} characters: at most 100,000")
    if text.lstrip().startswith("{"):  # Abstract Play's exported record (JSON)
        from ..importers import RecordImportError, import_abstractplay

        try:
            rec = import_abstractplay(text)
        except RecordImportError as e:
            raise RecordImportError(f"an Abstract Play record (JSON): {e}") from None
    else:
        default = board if isinstance(board, str) and board.strip() else "6/7"
        rec = parse_record(text, default_board=parse(default).board)

    lines = rec.lines()
    _check_size(lines)
    # the lines' shared beginnings played and written once: a line replayed whole from the
    # start for each variation cost (variations x plies) moves, minutes for a pasted record
    shown: dict[int, str] = {}  # by id: the positions are shared between lines, and live on

    def text_of(p: Position) -> str:
        if id(p) not in shown:
            shown[id(p)] = str(p)
        return shown[id(p)]

    positions = [[text_of(p) for p in ps] for ps in replay_lines(rec.start, lines)]
    return {"start": str(rec.start), "moves": list(rec.moves), "positions": positions[0], "result": rec.result,
            "headers": dict(rec.headers), "swap": rec.swap,
            "variations": [{"moves": line, "positions": ps} for line, ps in zip(lines[1:], positions[1:])]}


def _check_size(lines: list[list[str]]) -> None:
    """A :class:`~solver.rules.record.RecordError` for more lines than :data:`MAX_LINES` or
    more moves in them than :data:`MAX_LINE_MOVES`."""
    from solver.rules.record import RecordError

    if len(lines) > MAX_LINES:
        raise RecordError(f"a record of {len(lines):,} lines (the game's and its variations'): "
                          f"at most {MAX_LINES:,} lines")
    total = sum(len(x) for x in lines)
    if total > MAX_LINE_MOVES:
        raise RecordError(f"a record whose lines, each counted from the start, hold {total:,} moves: "
                          f"at most {MAX_LINE_MOVES:,}")


def write_record(start: object, moves: object, headers: object = None, result: object = None,
                 swap: object = False, variations: object = None) -> dict:
    """A game as a record in our format (:meth:`solver.rules.record.GameRecord.text`):
    ``{text, result, filename}``.  The moves are replayed from ``start``; the result is the
    game's end when it is over, else ``result`` as given (a resignation kept from a loaded
    record) or none; the text is read back and must give the same record.  Without
    headers, ``Source`` and ``Date`` are set.  ``variations``: the game's other lines, each a
    list of moves whole from the start, replayed, then written as the record's variations
    (:func:`~solver.rules.record.variations_of`); at most :data:`MAX_LINES` lines of
    :data:`MAX_LINE_MOVES` moves in all.  Point names are taken as the rules read them
    (any case) and written as they write them."""
    import datetime

    from solver.rules.record import RESULTS, GameRecord, RecordError, parse_record, replay, replay_lines, variations_of

    pos = parse(start)
    if not isinstance(moves, list) or len(moves) > 10_000 or not all(isinstance(m, str) for m in moves):
        raise RecordError("moves: give a list of point names")
    lines = [] if variations is None else variations
    if (not isinstance(lines, list) or not all(isinstance(x, list) for x in lines)
            or not all(isinstance(m, str) for x in lines for m in x)):
        raise RecordError("variations: give a list of lines, each a list of point names from the start")
    _check_size([moves, *lines])
    game = replay(pos, [_move_text(m) for m in moves])  # RecordError names the first illegal move
    lines = [[p.last_move for p in ps[1:]]
             for ps in replay_lines(pos, [[_move_text(m) for m in x] for x in lines], "variation")]
    if headers is None or headers == {}:
        headers = {"Source": "meridians serve", "Date": datetime.date.today().strftime("%Y.%m.%d")}
    if not isinstance(headers, dict) or len(headers) > 50:
        raise RecordError("headers: give an object of at most 50 names and values")
    if result is not None and result not in RESULTS:
        raise RecordError(f"result: one of {', '.join(RESULTS)} or null")
    # a line that goes on past the game's end: a RecordError
    rec = GameRecord(dict(headers), pos, list(game.moves), swap=bool(swap), variations=variations_of(game.moves, lines))
    rec.result = game.outcome if game.outcome is not None else result
    text = rec.text()
    if parse_record(text) != rec:  # a result the end contradicts is refused here, with its line
        raise RecordError("the record does not read back as the same game")
    board = rec.board.name.replace("/", "-")
    return {"text": text, "result": rec.result, "filename": f"meridians-{board}-{len(rec.moves)}-moves.txt"}


#: set in a worker process by the server (:func:`listen`): one flag a slot, raised when
#: the request of the search in that slot has gone (the user moved on)
_CANCELLED = None


def listen(flags) -> None:
    """Make this worker stop a search whose slot's flag in ``flags`` (a shared array of
    the server's) is raised."""
    global _CANCELLED
    _CANCELLED = flags


def _stop(slot: int | None):
    if slot is None or _CANCELLED is None:
        return None
    return lambda: bool(_CANCELLED[slot])


def analyse(text: str, seconds: float, seed: int = 1, slot: int | None = None) -> dict:
    """The analysis of a position within ``seconds`` (:func:`solver.app.analyst.analyse`,
    the answer of every front end), as JSON-ready values; ``slot``: the server's flag
    that stops it (:func:`listen`).  Runs in a worker process: the compiled kernels hold
    the interpreter lock."""
    from ..analyst import analyse as analyse_position
    from solver.search.limit import Limit

    return analyse_position(parse(text), Limit(seconds=seconds), seed=seed, stop=_stop(slot)).as_dict()


#: the players ``/api/move`` may be asked for (:data:`solver.app.match.KINDS`); ``engine``, the
#: default, is the analysis's best move, the answer of every front end
PLAYERS = ("engine", "uct", "mcts", "mcts-flat", "random")


def engine_move(text: str, seconds: float, seed: int = 1, slot: int | None = None, player: str | None = None) -> dict:
    """The move :func:`analyse` names best, with the analysis and the position after it:
    ``{move, after, ...the analysis}`` (``after``: :func:`position_info` of the new
    position).  ``player``: another of :data:`PLAYERS` (a weaker level of the play page),
    the move :func:`solver.app.match.choose_move` gives with ``seconds`` a move, then
    ``{move, after, player}`` (no analysis)."""
    from ..analyst import analyse as analyse_position
    from solver.search.limit import Limit

    pos = parse(text)
    if pos.outcome is not None:
        raise ValueError(f"the game is over ({pos.outcome_reason}): there is no move to play")
    if player not in (None, "", "engine"):
        import random

        from ..match import choose_move, parse_player

        if player not in PLAYERS:
            raise ValueError(f"player {str(player)[:40]!r}: one of {', '.join(PLAYERS)}")
        p = parse_player("random" if player == "random" else f"{player}:time={seconds:g}")
        move = choose_move(p, pos, random.Random(seed), seed)
        return {"move": move, "after": _info(pos.play(move)), "player": p.spec}
    a = analyse_position(pos, Limit(seconds=seconds), seed=seed, stop=_stop(slot))
    return {"move": a.best, "after": _info(pos.play(a.best)), **a.as_dict()}


def load_rules(board: str) -> None:
    """Load the rules' kernels of ``board`` in this process, compiling them on the board's
    first use: those that :func:`position_info`, :func:`play_move` and
    :func:`explain_move` run, by running them on the empty board and a few moves into a
    game.  The server does this in the background from its start, so that a request for
    a board's first position does not wait for a compile (seconds, on a cold cache)."""
    pos = parse(board)
    for _ in range(5):  # the threats and the dead stones need stones of both colours
        _info(pos)
        for point in pos.board.names:  # the legal moves and the refused ones
            explain_move(str(pos), point)
        legal = pos.legal_moves()
        if not legal or pos.outcome:
            break
        pos = pos.play(legal[len(legal) // 2])


def warm(boards: tuple[str, ...] = ()) -> int:
    """Load the rules', df-pn's and the engine's kernels of ``boards`` in this (worker)
    process, compiling them on a board's first use, so that no request waits for a
    compile; returns the process id."""
    import os

    from solver.search import mcts

    for b in boards:
        load_rules(b)
        mcts.load_kernels(parse(b).board)
    return os.getpid()
