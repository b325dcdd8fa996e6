"""How long a proven game lasts, where the opening database and the rules alone tell.

The database stores each position's value, not how far the end is.  The length of a
won or lost position (plies to the end of the game when the winner ends it as soon as
possible and the loser holds out as long as possible) follows from the database where
every position on the way is in it or ended by the rules: a won position lasts one
ply more than the shortest of its winning moves' positions, a lost one one ply more than
the longest of its moves' positions.  Where a move's position is missing (past the
database's plies) the length is unknown: a missing move could win sooner or hold out
longer.  Nothing here decides a value: the values are the database's.

:func:`database_length` reads it; :func:`rules_length` is its slow twin, a plain
minimax over the rules alone (no database, no table), which the tests compare it with
on positions near the end of a 2/3 game.

>>> from solver import Position
>>> database_length(Position.parse("2/LD1/4/1LD/2 L").play("c2"))
0
"""

from __future__ import annotations

import threading

from solver.rules.position import Position
from solver.search.values import Value
from .database import database_for, position_key

__all__ = ["database_length", "rules_length", "LENGTH_BUDGET"]

#: the most database positions one :func:`database_length` call expands before it gives
#: up (unknown): a bound on a request's time, far above what a known length needs on the
#: shipped databases (a known length lies within a few plies of the database's last ply)
LENGTH_BUDGET = 20_000
#: lengths found, by (board, canonical key): clean results only (see :func:`_length`)
_FOUND: dict[tuple[str, int], int | None] = {}
_MAX_FOUND = 500_000
_LOCK = threading.Lock()


class _OutOfBudget(Exception):
    """Ends a length search that ran past its budget; turned into None (unknown)."""


def database_length(position: Position, budget: int = LENGTH_BUDGET) -> int | None:
    """The length in plies of ``position``'s proven game (0: the game is over), read from
    the shipped database and the rules; None where they do not tell it (no database, a
    position on the way missing from it, or more than ``budget`` positions to read)."""
    if position.outcome is not None:
        return 0
    db = database_for(position.board)
    if db is None:
        return None
    with _LOCK:  # the web app answers requests in threads: one table, filled by one at a time
        if len(_FOUND) > _MAX_FOUND:
            _FOUND.clear()
        try:
            return _length(position, db, [budget])[0]
        except _OutOfBudget:
            return None


def _length(pos: Position, db, left: list[int]) -> tuple[int | None, bool]:
    """``(length or None, clean)``: ``clean`` is False when a repetition on the way cut
    the answer short (then it holds for this path only and is not kept)."""
    outcome = pos.outcome
    if outcome == "draw":  # a repetition of the path: not a line either side needs
        return None, False
    if outcome is not None:
        return 0, True
    key = position_key(pos)
    memo = (db.board.name, key)
    if memo in _FOUND:
        return _FOUND[memo], True
    entry = db.entry_of_key(key)
    if entry is None:
        _FOUND[memo] = None
        return None, True
    left[0] -= 1
    if left[0] < 0:
        raise _OutOfBudget
    # the moves' positions and their values first: a missing one ends the search at once
    children = []
    for m in pos.legal_moves():
        child = pos.play(m)
        outcome = child.outcome
        if outcome is not None:
            if outcome == "draw":
                return None, False
            v = Value.from_outcome(outcome, child.to_move)
            if v == Value.LOSS and entry.value == Value.WIN:  # a move that wins at once: the shortest
                _FOUND[memo] = 1
                return 1, True
            children.append((child, v))
            continue
        e = db.entry_of_key(position_key(child))
        if e is None:
            _FOUND[memo] = None
            return None, True
        children.append((child, e.value))
    clean = True
    lengths = []
    for child, v in children:
        if entry.value == Value.WIN and v != Value.LOSS:
            continue  # not a winning move: the winner does not play it
        if entry.value == Value.LOSS and v != Value.WIN:
            _FOUND[memo] = None  # a lost position with a move that does not lose: not ours to mend
            return None, True
        n, c = _length(child, db, left)
        clean &= c
        if n is None:
            if clean:
                _FOUND[memo] = None
            return None, clean
        lengths.append(n)
    if not lengths:  # a won position without a winning move in the database: no length
        result = None
    else:
        result = 1 + (min(lengths) if entry.value == Value.WIN else max(lengths))
    if clean:
        _FOUND[memo] = result
    return result, clean


def rules_length(position: Position, depth: int) -> tuple[Value, int | None]:
    """The slow twin: ``(value, length)`` of ``position`` for the player to move by plain
    minimax over the rules (a repetition is a draw, length None), the winner taking the
    shortest win and the loser the longest loss, where the game ends within ``depth``
    plies; ``(UNKNOWN, None)`` where it does not.  Exponential in ``depth``."""
    outcome = position.outcome
    if outcome is not None:
        v = Value.from_outcome(outcome, position.to_move)
        return v, (None if v == Value.DRAW else 0)
    if depth <= 0:
        return Value.UNKNOWN, None
    wins, losses, draw, unknown = [], [], False, False
    for m in position.legal_moves():
        v, n = rules_length(position.play(m), depth - 1)
        if v == Value.LOSS:
            wins.append(n)
        elif v == Value.WIN:
            losses.append(n)
        elif v == Value.DRAW:
            draw = True
        else:
            unknown = True
    if wins:  # a win found within depth - 1 is shorter than any the bound hid
        return Value.WIN, 1 + min(wins)
    if unknown:
        return Value.UNKNOWN, None
    if draw:
        return Value.DRAW, None
    return Value.LOSS, 1 + max(losses)
