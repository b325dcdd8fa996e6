"""What the web application computes, as plain functions of JSON-ready values.

Nothing here knows of HTTP: :mod:`solver.web.app` checks a request's parameters, calls
these (the rules' ones in a thread, the searches in a worker process) and sends back
what they return.  Every error the user can cause is a :class:`ValueError` (the
project's typed errors: :class:`~solver.notation.NotationError`,
:class:`~solver.position.InvalidPositionError`,
:class:`~solver.position.IllegalMoveError`, ...), whose message the app sends as the one
line of a 400 answer.

Values follow the CLI's conventions: ``value`` is for the player to move, ``moves[m]``
for the player who plays ``m``; ``'win'``, ``'loss'`` and ``'draw'`` are proven (the
opening database, a df-pn proof or the engine's tree back-up; ``source`` says which),
a number in [0, 1] is the engine's playout win rate (an estimate, ``source``
``'engine'``), ``'unknown'`` is neither.

>>> info = position_info("2/3")
>>> info["position"], info["to_move"], len(info["legal_moves"]), info["outcome"], info["dead"]
('2/3/4/3/2 L', 'L', 14, None, [])
>>> play_move("2/3/4/3/2 L", "c1")["position"]
'2/3/L3/3/2 D'
"""

from __future__ import annotations

import time

from ..position import Position
from ..search.values import Value
from ..verify import start_position

__all__ = ["parse", "position_info", "threatened", "play_move", "explain_move", "analyse", "engine_move", "read_record", "PROOF_SHARE",
           "LOOKUP_MOVES", "SOURCES"]

#: the sources of a value: the shipped opening database, a proof (df-pn, the engine's
#: tree, or the rules when the game is over), the engine's estimate
SOURCES = ("database", "proof", "engine")
#: the share of an analysis's time that :func:`~solver.openings.database.lookup`'s
#: df-pn proofs of the moves get; the engine has the rest
PROOF_SHARE = 0.5
#: positions with at most this many legal moves get a proof of every move; with more
#: (the opening of 5/6, 6/7, 7/8) each would get a few milliseconds, too little to
#: prove anything, so the engine has the whole time
LOOKUP_MOVES = 40
#: the longest position text accepted (a 7/8 position is under 200 characters)
MAX_TEXT = 1000


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
    pictures mark them (:meth:`~solver.position.Position.marked_dead`); ``threatened``:
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
    ``removed`` stones; :class:`~solver.position.IllegalMoveError` names the rule an
    illegal move breaks."""
    pos = parse(text)
    return _info(pos.play(_move_text(move)))


def explain_move(text: object, move: object) -> dict:
    """``{move, legal, reason}``: whether ``move`` is legal in the position and, when it
    is not, the rule it breaks (the message of
    :class:`~solver.position.IllegalMoveError`), so that a page can say why a click is
    refused without an error answer.  A point not on the board is a ValueError."""
    from ..position import IllegalMoveError

    pos = parse(text)
    name = pos.board.name_of(pos.board.index(_move_text(move)))
    try:
        pos.play(name)
    except IllegalMoveError as e:
        return {"move": name, "legal": False, "reason": str(e)}
    return {"move": name, "legal": True, "reason": None}


def read_record(text: object, board: object = None) -> dict:
    """A pasted game record (:func:`solver.record.parse_record`, both formats; every
    move checked): ``{start, moves, positions}``, the positions after 0, 1, ... moves."""
    from ..record import parse_record

    if not isinstance(text, str) or not text.strip():
        raise ValueError("give a game record: a start position or board, then the moves")
    if len(text) > 100_000:
        raise ValueError(f"a record of {len(text):,} characters: at most 100,000")
    default = board if isinstance(board, str) and board.strip() else "6/7"
    rec = parse_record(text, default_board=parse(default).board)
    pos = rec.start
    positions = [str(pos)]
    for m in rec.moves:
        pos = pos.play(m)
        positions.append(str(pos))
    return {"start": str(rec.start), "moves": list(rec.moves), "positions": positions, "result": rec.result}


def analyse(text: str, seconds: float, seed: int = 1) -> dict:
    """The value of a position and of each legal move within about ``seconds``.

    1. The game is over: the rules' value (source ``'proof'``), no moves.
    2. :func:`solver.openings.database.lookup` with :data:`PROOF_SHARE` of the time (when
       the position has at most :data:`LOOKUP_MOVES` moves): each move's value from the
       opening database, else a df-pn proof within its share.
    3. A position proven lost: every move is lost too (a move that did not lose would
       make the position not lost), from the same source.
    4. What is still undecided, the engine (:func:`solver.search.mcts.search`) with the
       time left: a move it proves (its tree's back-up) is ``'proof'``, else its playout
       win rate for the player who plays it (source ``'engine'``).

    ``value``: the position's own (the lookup's when decided, else the engine's proof,
    else the win rate of the engine's best move, an estimate); ``line``: the database's
    line (:func:`~solver.openings.database.database_line`) when the value is the
    database's, else the engine's principal line.  ``sources[m]`` labels each move's
    value.  Runs in a worker process: the compiled kernels hold the interpreter lock.
    """
    from ..openings.database import database_line, lookup
    from ..search.mcts import search

    t0 = time.perf_counter()
    pos = parse(text)
    out = {"position": str(pos), "to_move": pos.to_move, "value": "unknown", "source": "engine", "moves": {},
           "sources": {}, "line": [], "best": None, "seconds": 0.0, "notes": []}
    if pos.outcome is not None:
        out.update(value=Value.from_outcome(pos.outcome, pos.to_move).value, source="proof",
                   notes=[f"the game is over: {pos.outcome_reason}"])
        out["seconds"] = round(time.perf_counter() - t0, 3)
        return out
    moves = pos.legal_moves()
    values: dict[str, str | float] = {m: "unknown" for m in moves}
    sources: dict[str, str] = {m: "engine" for m in moves}
    value: str | float = "unknown"
    source = "engine"
    if len(moves) <= LOOKUP_MOVES:
        lk = lookup(pos, seconds=seconds * PROOF_SHARE)
        for m, a in lk.moves.items():
            if a.value.decided:
                values[m], sources[m] = a.value.value, a.source
        if lk.value.value.decided:
            value, source = lk.value.value.value, lk.value.source
    if value == "loss":
        # a proven loss: every move loses (else one would win), with the same proof
        for m in moves:
            if values[m] == "unknown":
                values[m], sources[m] = "loss", source
    undecided = [m for m in moves if not isinstance(values[m], str) or values[m] == "unknown"]
    line: list[str] = []
    if source == "database":
        line = database_line(pos)
    left = seconds - (time.perf_counter() - t0)
    if undecided or (source != "database" and not line):
        r = search(pos, seconds=max(left, 0.05), seed=seed)
        for mi in r.moves:
            if mi.move not in values or mi.move not in undecided:
                continue
            if mi.value.decided:
                values[mi.move], sources[mi.move] = mi.value.value, "proof"
            elif mi.win_rate is not None:
                values[mi.move], sources[mi.move] = round(mi.win_rate, 4), "engine"
        if value == "unknown":
            if r.proven:
                value, source = r.value.value, "proof"
            elif r.win_rate is not None:
                value, source = round(r.win_rate, 4), "engine"
        if not line:
            line = list(r.line)
        out["notes"] = list(r.notes)
        out["best"] = r.best
    if out["best"] is None or value in ("win", "loss"):
        out["best"] = _best(values) or out["best"]
    if line and values.get(line[0]) == "win":
        out["best"] = line[0]  # the line's winning move, so that the board and the line agree
    out.update(value=value, source=source, moves=values, sources=sources, line=line)
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out


def _best(values: dict[str, str | float]) -> str | None:
    """A proven winning move, else the move of the highest estimate, else the first
    move not proven lost (board order)."""
    wins = [m for m, v in values.items() if v == "win"]
    if wins:
        return wins[0]
    rated = [(v, m) for m, v in values.items() if isinstance(v, float)]
    if rated:
        return max(rated)[1]
    return next((m for m, v in values.items() if v != "loss"), next(iter(values), None))


def engine_move(text: str, seconds: float, seed: int = 1) -> dict:
    """The engine's move as ``meridians move`` chooses it (the opening database when it
    holds the position, else the engine within ``seconds``), with the position after
    it: ``{move, value, source, win_rate, line, after}`` (``after``:
    :func:`position_info` of the new position; None when the game is over)."""
    from ..openings.database import database_move
    from ..search.mcts import search

    pos = parse(text)
    if pos.outcome is not None:
        raise ValueError(f"the game is over ({pos.outcome_reason}): there is no move to play")
    r = database_move(pos, seed=seed) or search(pos, seconds=seconds, seed=seed)
    source = {"database": "database", "estimate": "engine"}.get(r.source, "proof")
    return {"move": r.best, "value": r.value.value if r.proven else r.win_rate, "source": source,
            "win_rate": r.win_rate, "line": list(r.line), "after": _info(pos.play(r.best))}


def warm(boards: tuple[str, ...] = ()) -> int:
    """Load the rules' and the engine's kernels of ``boards`` in this (worker) process,
    so that the first request for them is not a compile; returns the process id."""
    import os

    for b in boards:
        analyse(b, 0.05)
    return os.getpid()
