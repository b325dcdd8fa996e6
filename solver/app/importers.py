"""Importers: other sites' game records turned into :class:`~solver.rules.record.GameRecord`.

**Abstract Play** exports a game as an *AP Game Record*, a JSON object whose schema is
published (``https://www.abstractplay.com/schemas/gamerecord/1-0-0.json``, in the
``AbstractPlay/recranks`` repository, ``src/schemas/gamerecord.json`` and
``docs/game-records.md``).  What the schema documents, and how it is read here:

- ``header.game.name``: the game (``Meridians``, any case); ``header.game.variants``: the
  variants, of which ``size-6``, ``size-7`` and ``size-8`` are our boards 5/6, 6/7 and 7/8
  (issue 20; without one, 6/7, the designer's board) and ``pie`` the pie variant;
- ``header.players``: the players in seating order (first player first), each with a
  ``name`` and a ``result`` (an integer: higher is better, equal is a draw);
- ``header.site`` (``name``, ``gameid``), ``date-start``, ``date-end``, ``event``,
  ``round``: kept as our ``Source``, ``SiteGameId``, ``Date`` (of the end), ``Event``,
  ``Round`` headers;
- ``moves``: a list of rounds, each a list with one entry per seat in seating order:
  ``null`` (that seat did not play that round), a string (the move), or an object whose
  ``move`` is the move (its ``sequence`` orders the round's moves when given).

**What is not documented** (the schema leaves a game's move notation to the game), and
what this importer assumes instead, each kept in one small function:

- *Point names* (:func:`abstractplay_point`): RULES.md's notation is stated there to be
  Abstract Play's (``<row letter><column>``, row ``a`` at the bottom, columns from 1 at the
  left within each row); no Abstract Play document we could find states it, so the
  mapping is the identity on names (case and spaces aside), checked against the board.
- *Turn order*: the moves are read in the order the rounds give them, each stone the next
  ply of the game (Light, Dark, Light, ...), whoever's seat it is under; a string entry
  holding several moves separated by commas or spaces gives them in order.
- *The pie opening*: a move ``pie`` or ``swap`` (any case) after the first stone or the
  first two stones is the second player's colour choice: they take Light (see
  :mod:`solver.rules.record` for how our record writes it).  Without it the first seat plays
  Light.
- *Passing*: a move ``pass`` by a player with no legal placement.  RULES.md scores that
  player as having lost, so the game ends there: the record ends at the pass, moves after
  it are dropped (a comment says how many), and Abstract Play's stated result, when it
  differs from ours, is kept in the ``SiteResult`` header with a comment.  A pass by a
  player who has a legal placement is an error.

Every problem raises :class:`RecordImportError`, whose message names the place in the
JSON (``moves[3][1]: ...``) or the header field.
"""

from __future__ import annotations

import json
import re
from typing import Any

from solver.rules.board import Board
from solver.util.errors import MeridiansError
from solver.rules.position import IllegalMoveError, Position
from solver.rules.record import GameRecord, RecordError, is_date

__all__ = ["RecordImportError", "import_abstractplay", "abstractplay_board", "abstractplay_point", "SOURCES"]

#: Abstract Play's board option -> our board (issue 20)
ABSTRACTPLAY_BOARDS = {"size-6": "5/6", "size-7": "6/7", "size-8": "7/8"}
ABSTRACTPLAY_DEFAULT_BOARD = "6/7"
_CHOICE = {"pie", "swap"}
_PASS = "pass"
_NAME = {"L": "Light", "D": "Dark"}


class RecordImportError(MeridiansError):
    """A record of another site that cannot be read or does not replay under RULES.md;
    the message names the place in the record."""


def abstractplay_board(variants: list[str]) -> Board:
    """Our board for Abstract Play's variants: ``size-6/7/8`` -> 5/6, 6/7, 7/8; none of
    them -> 6/7.  Two size options, or another ``size-`` option, are an error."""
    sizes = [v for v in variants if v.lower().startswith("size-")]
    if len(sizes) > 1:
        raise RecordImportError(f"header.game.variants: two board sizes {sizes}")
    if not sizes:
        return Board.parse(ABSTRACTPLAY_DEFAULT_BOARD)
    name = ABSTRACTPLAY_BOARDS.get(sizes[0].lower())
    if name is None:
        raise RecordImportError(f"header.game.variants: unknown board size {sizes[0]!r} "
                                f"(known: {', '.join(ABSTRACTPLAY_BOARDS)})")
    return Board.parse(name)


def abstractplay_point(name: str, board: Board) -> str:
    """Our point name for Abstract Play's name of a point of ``board``.

    The identity (lower case, spaces stripped), because RULES.md states that its notation
    is Abstract Play's; Abstract Play's published documents do not state it (see the
    module's text).  A name that is not a point of ``board`` is an error."""
    ours = name.strip().lower()
    if ours not in board.names:
        raise RecordImportError(f"{name!r} is not a point of board {board.name}")
    return ours


def import_abstractplay(source: str | dict) -> GameRecord:
    """The :class:`GameRecord` of an Abstract Play game record (its JSON text, or the
    object already parsed), every move replayed under RULES.md."""
    data = _load(source)
    header = _field(data, "header", dict, "")
    moves = _field(data, "moves", list, "")
    game = _field(header, "game", dict, "header.")
    name = _field(game, "name", str, "header.game.")
    if name.strip().lower() != "meridians":
        raise RecordImportError(f"header.game.name: a record of {name!r}, not of Meridians")
    variants = game.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise RecordImportError("header.game.variants: a list of strings")
    board = abstractplay_board(variants)
    pie = any(v.lower() == "pie" for v in variants)
    players = _players(header)
    tokens = _tokens(moves)
    return _replay(header, board, pie, players, tokens)


def _load(source: str | dict) -> dict:
    if isinstance(source, dict):
        return source
    if not isinstance(source, str):
        raise RecordImportError(f"an Abstract Play record is JSON text or an object, not {type(source).__name__}")
    try:
        data = json.loads(source, parse_constant=_refuse)
    except RecursionError:
        raise RecordImportError("the JSON is nested too deeply") from None
    except ValueError as e:
        raise RecordImportError(f"not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise RecordImportError(f"an Abstract Play record is a JSON object, not {type(data).__name__}")
    return data


def _refuse(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _field(obj: dict, key: str, kind: type, where: str) -> Any:
    if key not in obj:
        raise RecordImportError(f"{where}{key}: missing")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RecordImportError(f"{where}{key}: {_KIND[kind]}, not {type(value).__name__} {value!r:.40}")
    return value


_KIND = {dict: "an object", list: "a list", str: "a string", int: "an integer"}


def _players(header: dict) -> list[tuple[str, int]]:
    players = _field(header, "players", list, "header.")
    if len(players) != 2:
        raise RecordImportError(f"header.players: two players, not {len(players)}")
    out = []
    for i, p in enumerate(players):
        where = f"header.players[{i}]."
        if not isinstance(p, dict):
            raise RecordImportError(f"header.players[{i}]: an object, not {type(p).__name__}")
        out.append((_field(p, "name", str, where), _field(p, "result", int, where)))
    return out


def _tokens(moves: list) -> list[tuple[str, str]]:
    """``(place, move)`` for every move of the rounds, in order (see the module's text)."""
    out: list[tuple[str, str]] = []
    for r, rnd in enumerate(moves):
        if not isinstance(rnd, list):
            raise RecordImportError(f"moves[{r}]: a round is a list, not {type(rnd).__name__}")
        entries = []
        for s, entry in enumerate(rnd):
            where = f"moves[{r}][{s}]"
            if entry is None:
                continue
            order = s
            if isinstance(entry, dict):
                extra = set(entry) - {"move", "sequence", "result"}
                if extra:
                    raise RecordImportError(f"{where}: unknown fields {sorted(extra)}")
                order = entry.get("sequence", s)
                if not isinstance(order, int) or isinstance(order, bool):
                    raise RecordImportError(f"{where}.sequence: an integer, not {order!r:.40}")
                entry = _field(entry, "move", str, where + ".")
            elif not isinstance(entry, str):
                raise RecordImportError(f"{where}: a move is null, a string or an object, not "
                                        f"{type(entry).__name__}")
            entries.append((order, s, where, entry))
        for _, _, where, entry in sorted(entries, key=lambda e: (e[0], e[1])):
            words = [w for w in re.split(r"[,\s]+", entry) if w]
            if not words:
                raise RecordImportError(f"{where}: an empty move")
            out += [(where, w) for w in words]
    return out


def _replay(header: dict, board: Board, pie: bool, players: list[tuple[str, int]],
            tokens: list[tuple[str, str]]) -> GameRecord:
    pos = Position.start(board)
    moves: list[str] = []
    comments: dict[int, str] = {}
    swap = False
    ended_by_pass = None
    for k, (where, word) in enumerate(tokens):
        low = word.lower()
        if low in _CHOICE:
            if len(moves) not in (1, 2) or swap:
                raise RecordImportError(f"{where}: the pie choice {word!r} comes after the first stone or the "
                                        f"first two, not after {len(moves)} stones")
            pie = swap = True
            if len(moves) == 1:
                _comment(comments, 1, "Abstract Play: the second player took Light after Light's first stone")
            continue
        if low == _PASS:
            if pos.outcome is None:
                raise RecordImportError(f"{where}: {_NAME[pos.to_move]} passes but has legal placements "
                                        f"({len(pos.legal_moves())}) in {pos}")
            dropped = sum(1 for _, w in tokens[k + 1:] if w.lower() != _PASS)
            ended_by_pass = (where, dropped)
            break
        if pos.outcome is not None:
            raise RecordImportError(f"{where}: the move {word!r} comes after the game ended under RULES.md "
                                    f"({pos.outcome_reason}) in {pos}")
        try:
            point = abstractplay_point(word, board)
            pos = pos.play(point)
        except RecordImportError as e:
            raise RecordImportError(f"{where}: {e}") from None
        except IllegalMoveError as e:
            raise RecordImportError(f"{where}: {word} is illegal for {_NAME[pos.to_move]} in {pos}: {e}") from None
        moves.append(pos.last_move)
    seat_of = {"L": 1, "D": 0} if swap else {"L": 0, "D": 1}
    headers: dict[str, str] = {}
    if pie:
        headers["Variant"] = "pie"
    headers["Light"] = " ".join(players[seat_of["L"]][0].split())
    headers["Dark"] = " ".join(players[seat_of["D"]][0].split())
    date = header.get("date-end", header.get("date-start"))
    if isinstance(date, str) and re.match(r"\d{4}-\d{2}-\d{2}", date) and is_date(date[:10].replace("-", ".")):
        headers["Date"] = date[:10].replace("-", ".")  # a date-time that is no day is left out
    site = header.get("site")
    if isinstance(site, dict):
        if isinstance(site.get("name"), str) and site["name"].strip():
            headers["Source"] = " ".join(site["name"].split())
        gid = site.get("gameid")
        if isinstance(gid, (str, int)) and not isinstance(gid, bool) and str(gid).strip():
            headers["SiteGameId"] = " ".join(str(gid).split())
    for key, tag in (("event", "Event"), ("round", "Round")):
        if isinstance(header.get(key), str) and header[key].strip():
            headers[tag] = " ".join(header[key].split())
    # Abstract Play's result: the higher number wins, equal is a draw
    (_, r0), (_, r1) = players
    stated = "draw" if r0 == r1 else ("L" if (r0 > r1) == (seat_of["L"] == 0) else "D")
    result = pos.outcome
    if result is None and stated != "draw":
        result = stated  # a resignation or a timeout: the game had not ended on the board
    if ended_by_pass is not None:
        where, dropped = ended_by_pass
        note = (f"Abstract Play: {_NAME[pos.to_move]} passed ({where}), having no legal placement; "
                f"RULES.md scores that as a loss")
        if dropped:
            note += f"; the {dropped} moves played after the pass are not in this record"
        _comment(comments, len(moves), note)
    if stated != result:
        headers["SiteResult"] = stated
        note = f"Abstract Play's stated result is {stated}, RULES.md's is {result or 'none (the game is not over)'}"
        _comment(comments, len(moves), note)
    if swap and len(moves) < 2:
        # a choice made before Dark's first stone in a game that ended there: our record
        # writes the choice after two stones; the players' colours above say it
        _comment(comments, len(moves), "Abstract Play: the second player took Light")
        swap = False
    try:
        return GameRecord(headers, Position.start(board), moves, comments, result, swap)
    except (RecordError, ValueError) as e:  # a header value our record cannot hold
        raise RecordImportError(str(e)) from None


def _comment(comments: dict[int, str], ply: int, text: str) -> None:
    text = " ".join(text.replace("{", "(").replace("}", ")").split())
    comments[ply] = f"{comments[ply]}; {text}" if ply in comments else text


#: the importers by the name ``meridians import --from`` takes
SOURCES = {"abstractplay": import_abstractplay}
