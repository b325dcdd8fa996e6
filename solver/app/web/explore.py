"""The opening explorer's answer: each move of a position with its proven value and length.

The values are :func:`solver.app.analyst.known`'s (the rules and the opening database,
no search: the step every front end shares), the lengths
:func:`solver.app.openings.lengths.database_length`'s.  A position is reached from a start
(a position, or a board name for its empty board) by a list of moves, so that a
repetition along the way is the rules' draw, as on the analysis board.

>>> d = explore("2/3")
>>> d["value"], d["source"], d["in_database"], d["moves"][0]["value"]
('win', 'database', True, 'win')
"""

from __future__ import annotations

import re
import time
from functools import lru_cache
from importlib import resources

from solver.search.values import Value
from .work import _info, parse

__all__ = ["explore", "explorer_boards", "UNKNOWN_LENGTH", "MAX_MOVES"]

#: the length of a game the database and the rules do not tell
UNKNOWN_LENGTH = "unknown"
#: the most moves a path may have (a 3/4 game is far shorter)
MAX_MOVES = 200
_DB_FILE = re.compile(r"^openings-(\d+)-(\d+)\.npz$")


@lru_cache(maxsize=1)
def explorer_boards() -> tuple[str, ...]:
    """The boards the package ships an opening database for, smallest first."""
    names = []
    for f in resources.files("solver.data").iterdir():
        m = _DB_FILE.match(f.name)
        if m and f.is_file():
            names.append((int(m.group(1)), f"{m.group(1)}/{m.group(2)}"))
    return tuple(name for _, name in sorted(names))


def _moves(moves: object) -> list[str]:
    """A path's moves: a list of point names, or one text of them separated by commas
    or spaces; a ValueError for anything else."""
    if moves is None or moves == "":
        return []
    if isinstance(moves, str):
        if len(moves) > 8 * MAX_MOVES:
            raise ValueError(f"moves of {len(moves):,} characters: give at most {MAX_MOVES} moves")
        moves = [m for m in re.split(r"[\s,]+", moves) if m]
    if not isinstance(moves, list) or not all(isinstance(m, str) and 0 < len(m) <= 8 for m in moves):
        raise ValueError("give the moves as point names separated by commas, such as c2,d3")
    if len(moves) > MAX_MOVES:
        raise ValueError(f"{len(moves)} moves: give at most {MAX_MOVES}")
    return moves


def _length(n: int | None) -> int | str:
    return UNKNOWN_LENGTH if n is None else n


def _rank(mv: dict) -> tuple:
    """Best first for the player to move: wins, shortest first (a known length before an
    unknown one); draws; moves of unknown value; losses, longest first (an unknown length
    first: it goes past the database's plies)."""
    v, n = mv["value"], mv["length"]
    known = n != UNKNOWN_LENGTH
    if v == "win":
        return (0, not known, n if known else 0)
    if v == "draw":
        return (1, False, 0)
    if v == "unknown":
        return (2, False, 0)
    return (3, known, -n if known else 0)


def explore(start: object, moves: object = None) -> dict:
    """The explorer's answer for the position reached from ``start`` by ``moves``:
    :func:`~solver.app.web.work.position_info`'s fields, with ``start``, ``path`` (each
    move and the position after it), ``boards`` (those with a database), ``database``
    (whether this board has one), ``value``/``source``/``in_database``/``length`` of the
    position (for the player to move; ``inferred``: the value is the last move's, the
    position itself having none, as after a move of a lost position), ``best`` and ``moves`` sorted best first, each
    ``{move, value, source, length, in_database, nodes}`` (value and length for the
    player who plays it; length in plies, counting the move, or ``"unknown"``), and
    ``ends``: whether the database's knowledge ends here (the position, or one of its
    moves, has no value from it or the rules)."""
    from ..analyst import known
    from ..openings.database import database_for, lookup_entry
    from ..openings.lengths import database_length

    t0 = time.perf_counter()
    pos = parse(start)
    first = pos
    path, before = [], None
    for m in _moves(moves):
        before, pos = pos, pos.play(m)  # an illegal move is an IllegalMoveError naming its rule: a 400
        path.append({"move": m, "position": str(pos)})
    has_db = database_for(pos.board) is not None
    a = known(pos)
    value, source, inferred = a.value, a.source, False
    if not value.decided and before is not None:
        # the move played into a position the database lacks has a value where the position
        # before is in it (every move of a lost position loses): the same answer, one ply on
        last = known(before).moves[path[-1]["move"]]
        if last.value.decided:
            value, source, inferred = last.value.negated(), last.source, True
    rows = []
    for m, mv in a.moves.items():
        child = pos.play(m)
        in_db = lookup_entry(child) is not None
        n = database_length(child) if mv.value.decided and mv.value != Value.DRAW else None
        rows.append({"move": m, "value": mv.value.value, "source": mv.source,
                     "length": _length(None if n is None else n + 1), "in_database": in_db, "nodes": mv.nodes})
    rows.sort(key=_rank)  # a stable sort: equal moves stay in board order
    if pos.outcome is not None:
        own = 0
    else:
        own = database_length(pos) if value.decided and value != Value.DRAW else None
    ends = pos.outcome is None and (not value.decided or any(r["value"] == "unknown" for r in rows))
    return {**_info(pos), "start": str(first), "path": path, "boards": list(explorer_boards()),
            "database": has_db, "value": value.value, "source": source, "inferred": inferred,
            "in_database": lookup_entry(pos) is not None, "length": _length(own), "best": a.best,
            "moves": rows, "ends": ends, "seconds": round(time.perf_counter() - t0, 4)}
