"""Game records: a text record in the manner of PGN, read, checked and written.

>>> from solver import Position
>>> record = GameRecord({"Light": "Ann"}, Position.start("2/3"), ["c2", "c3"], {2: "the best reply"})
>>> print(record.text(), end="")
[Board "2/3"]
[Light "Ann"]
[Result "*"]
<BLANKLINE>
1. c2 c3 {the best reply} *
>>> parse_record(record.text()) == record, str(record.position())
(True, '2/3/1LD1/3/2 L')

A record is header lines, then the moves::

    [Board "2/3"]
    [Light "Ann"]
    [Dark "Bob"]
    [Date "2026.12.02"]
    [Result "L"]
    {a comment before the first move}
    1. c2 c3 {Dark's reply} 2. e2 e1 3. b2 L

Headers are ``[Key "value"]``, one a line (``\\"`` and ``\\\\`` escape a quote and a
backslash in a value).  Known keys and the values they take:

- ``Board``: the board, such as ``6/7`` (default: the board of ``Start``, else the
  reader's default board);
- ``Variant``: ``standard`` or ``pie`` (optional);
- ``Light``, ``Dark``: the players' names (with the pie variant: who played each colour
  *after* the colour choice);
- ``Date``: ``YYYY.MM.DD``, unknown parts as ``??`` (``2026.??.??``);
- ``Result``: ``L`` or ``D`` (the winner), ``draw``, or ``*`` (not stated);
- ``Source``: where the game comes from (free text);
- ``Start``: a start position in notation (only for a non-empty start).

Any other key is kept, in order.  After the headers come the moves, by point name,
separated by spaces, commas or newlines; move numbers (``12.``, ``12...``) are skipped;
``{...}`` is a comment, kept and attached to the ply before it (before any move: to the
game); ``#`` starts a line comment, not kept.  The last token may be the result (``L``,
``D``, ``draw``, ``*``), which must agree with the ``Result`` header when both are given.

**Variations**, as in PGN: ``(...)`` right after a move holds another line played instead
of that move, from the position before it; a variation may hold comments and variations of
its own (``1. c1 e2 (1... d3 2. c3 (2. a1)) 2. c3``).  Each is replayed and checked as the
main line is; the result, ``swap`` and the end's checks are the main line's.  In a
:class:`GameRecord` they are :attr:`~GameRecord.variations`; :meth:`GameRecord.lines` lists
every line whole, and :func:`variations_of` makes the variations of a set of whole lines.

**The pie variant** (RULES.md): the first player places Light's first stone and Dark's
first stone, then the second player chooses a colour.  The stones are the plies of an
ordinary game (the positions are the same); only who plays which colour changes.  The
record writes the choice as the token ``swap`` right after the first two stones when the
second player took **Light** (the first player then plays Dark from Light's second stone
on); without ``swap`` the second player kept Dark.  ``swap`` is allowed only with
``[Variant "pie"]``, from the empty board, after exactly two plies.

**Checks.**  :func:`parse_record` replays every move from the start with the position
history kept, so a repeated position ends the game in a draw (RULES.md) exactly as
:class:`~solver.rules.position.Position` rules it; a move after the game ended, an illegal move
and a stated result that contradicts the replayed end are errors.  A stated win when the
game is not over is accepted (a resignation); a stated draw then is not (the rules know
no other draw than a repetition).  Every error is a :class:`RecordError` whose message
starts with the line of the first bad thing: ``line 7: move 9 (c4) is illegal ...``.

**The old simple format** (``meridians verify --game`` before headers existed): moves
separated by commas, spaces or newlines, an optional first line that is a start position
(or a board name), ``result: L`` (``D``, ``draw``, ``Light``, ``Dark``), ``#`` comments.  Its result is a claim that
``meridians verify`` proves or refutes, so it is not checked against the end here.
A text whose first line that is not blank or a ``#`` comment starts with ``[`` is the new
format, any other the old one; both give a :class:`GameRecord`.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field

from .board import Board
from solver.util.errors import MeridiansError
from .position import Game, IllegalMoveError, Position

__all__ = ["GameRecord", "Variation", "RecordError", "parse_record", "variations_of", "replay", "replay_lines",
           "old_format_items", "is_date", "RESULTS", "SWAP", "VARIANTS", "MAX_DEPTH"]

#: the results a record states: the winner, a draw, or None (not stated, ``*``)
RESULTS = ("L", "D", "draw")
#: the pie variant's colour choice: the second player takes Light
SWAP = "swap"
VARIANTS = ("standard", "pie")
#: the deepest variations nest (a variation within a variation ... of the main line):
#: reading, writing, listing and comparing records recurse once a level, and Python's
#: stack holds about 1,000 frames; PGN's collections nest a handful deep
MAX_DEPTH = 64
_FIELDS = ("Board", "Start", "Result")  # headers held as GameRecord's own fields
_NAME = {"L": "Light", "D": "Dark"}
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_HEADER = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]\Z')
# a header cut short: its value never closes, or closes where the line ends without "]"
_HEADER_CUT = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"(?:[^"\\]|\\.)*(?:"\s*)?\\?\Z')
_DATE = re.compile(r"(\d{4}|\?{4})\.(\d{2}|\?\?)\.(\d{2}|\?\?)\Z")
_NUMBER = re.compile(r"\d+\.(\.\.)?\Z")
_OLD_NUMBER = re.compile(r"^\d+\.+$")
# a move number is its own token also when glued to its move (``12.c3``, ``12...c3``)
_TOKEN = re.compile(r"(?P<space>[\s,]+)|(?P<note>#[^\n]*)|(?P<open>\{)|(?P<close>\})|(?P<header>\[)"
                    r"|(?P<lpar>\()|(?P<rpar>\))|(?P<number>\d+\.(?:\.\.)?(?=[^.]))|(?P<word>[^\s,{}\[#()]+)")
_KNOWN = ("Board", "Variant", "Light", "Dark", "Date", "Result", "Source", "Start")


class RecordError(MeridiansError):
    """A game record that cannot be read or does not replay; the message starts with the
    line of the first problem (``line 7: ...``) when there is one."""


def _check_comments(comments: dict, plies: int) -> None:
    for ply, text in comments.items():
        if not isinstance(ply, int) or not 0 <= ply <= plies:
            raise RecordError(f"a comment is attached to a ply from 0 to {plies}, not {ply!r}")
        if not isinstance(text, str) or "{" in text or "}" in text or text != " ".join(text.split()) or not text:
            raise RecordError(f"a comment is non-empty text on one line, spaces single, no braces, not {text!r}")


def _case_twin(key: str) -> str | None:
    """The known key that ``key`` spells with other cases (the reader refuses it as a
    likely typo), else None."""
    return next((k for k in _KNOWN if k.lower() == key.lower() and k != key), None)


def _depth(variations: dict) -> int:
    """How deep ``variations`` nest (0: none), without recursion: a tree made in code may
    nest deeper than the stack."""
    deepest, todo = 0, [(variations, 1)]
    while todo:
        vs, level = todo.pop()
        for line in vs.values():
            for v in line:
                deepest = max(deepest, level)
                todo.append((v.variations, level + 1))
    return deepest


def _check_variations(variations: dict, moves: list[str]) -> None:
    for ply, vs in variations.items():
        if not isinstance(ply, int) or not 0 <= ply < len(moves):
            raise RecordError(f"a variation replaces a move of its line, ply 0 to {len(moves) - 1}, not {ply!r}")
        if not isinstance(vs, list) or not vs or not all(isinstance(v, Variation) for v in vs):
            raise RecordError(f"the variations at ply {ply}: a non-empty list of Variation")


@dataclass
class Variation:
    """Another line played instead of a move: its ``moves`` from the position before that
    move, its ``comments`` (ply count within it -> comment) and its own ``variations``
    (as :attr:`GameRecord.variations`, for its moves)."""

    moves: list[str]
    comments: dict[int, str] = field(default_factory=dict)
    variations: dict[int, list["Variation"]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.moves, list) or not self.moves or not all(isinstance(m, str) for m in self.moves):
            raise RecordError("a variation holds at least one move, each a point name")
        _check_comments(self.comments, len(self.moves))
        _check_variations(self.variations, self.moves)


@dataclass
class GameRecord:
    """A game: its headers, start position, moves, comments and stated result.

    ``headers``: every header but ``Board``, ``Start`` and ``Result`` (those are
    ``start`` and ``result``), in order.  ``start``: the start position (the empty board
    unless the record gives ``Start``).  ``moves``: the plies, by point name.
    ``comments``: ply count -> comment, the comment after that many plies (0: before the
    first move).  ``result``: ``'L'``, ``'D'``, ``'draw'``, or None when not stated.
    ``swap``: the pie variant's second player took Light (see the module's text).
    ``variations``: ply -> the :class:`Variation` s played instead of ``moves[ply]``, in order.

    Records compare equal when all of these are equal (positions by stones and side).
    Making one checks what the text can hold (header keys and values, comments, the
    variant); the moves and the result are checked when the text is read back, or by
    :meth:`game` (the moves).
    """

    headers: dict[str, str]
    start: Position
    moves: list[str]
    comments: dict[int, str] = field(default_factory=dict)
    result: str | None = None
    swap: bool = False
    variations: dict[int, list[Variation]] = field(default_factory=dict)
    #: whether the text named its board or start (the old format may not); not compared
    named_start: bool = field(default=True, compare=False, repr=False)

    def __post_init__(self) -> None:
        for key, value in self.headers.items():
            if not isinstance(key, str) or not _KEY.match(key) or key in _FIELDS:
                raise RecordError(f"header key {key!r}: a word of letters, digits and _, not Board, Start or Result")
            if _case_twin(key):
                raise RecordError(f"header key {key!r}: {_case_twin(key)} in other cases (keys are case-sensitive)")
            if not isinstance(value, str) or "\n" in value or "\r" in value:
                raise RecordError(f"header {key}: a value is one line of text, not {value!r}")
        if self.result not in (None, *RESULTS):
            raise RecordError(f"result must be one of {', '.join(RESULTS)} or None, not {self.result!r}")
        _check_comments(self.comments, len(self.moves))
        _check_variations(self.variations, self.moves)
        if _depth(self.variations) > MAX_DEPTH:
            raise RecordError(f"variations nested deeper than {MAX_DEPTH}")
        if not is_date(self.headers.get("Date", "????.??.??")):
            raise RecordError(f"Date is YYYY.MM.DD with ?? for unknown parts, not {self.headers['Date']!r}")
        if self.headers.get("Variant", "standard") not in VARIANTS:
            raise RecordError(f"Variant is one of {', '.join(VARIANTS)}, not {self.headers['Variant']!r}")
        if self.swap and not self.pie:
            raise RecordError("swap (the colour choice) is only in the pie variant")
        if self.swap and len(self.moves) < 2:
            raise RecordError("swap (the colour choice) comes after the first two stones")
        if self.pie and self.start != Position.start(self.start.board):
            raise RecordError("the pie variant starts from the empty board")

    @classmethod
    def from_game(cls, game: Game, headers: dict[str, str] | None = None,
                  comments: dict[int, str] | None = None) -> "GameRecord":
        """The record of a played :class:`~solver.rules.position.Game` (its start, moves and
        result, None while it goes on), with ``headers`` and ``comments`` as given."""
        return cls(dict(headers or {}), game.positions[0], list(game.moves), dict(comments or {}), game.outcome)

    # -- reading ----------------------------------------------------------------------
    @property
    def board(self) -> Board:
        return self.start.board

    @property
    def pie(self) -> bool:
        """Whether the game is played with the pie variant."""
        return self.headers.get("Variant") == "pie"

    def players(self) -> dict[str, str | None]:
        """The names of who played Light and Dark (None when not given)."""
        return {"L": self.headers.get("Light"), "D": self.headers.get("Dark")}

    def game(self) -> Game:
        """The game replayed from :attr:`start` with the position history kept, so that
        a repeated position is a draw.  :class:`RecordError` names the first illegal move."""
        return replay(self.start, self.moves)

    def positions(self) -> list[Position]:
        """The start and the position after each move (the last one knows the history)."""
        return self.game().positions

    def position(self, ply: int | None = None) -> Position:
        """The position after ``ply`` moves (default: all of them)."""
        positions = self.positions()
        if ply is None:
            return positions[-1]
        if not 0 <= ply < len(positions):
            raise ValueError(f"ply {ply} is not in this game: it has {len(self.moves)} moves")
        return positions[ply]

    def lines(self) -> list[list[str]]:
        """Every line of the record whole, from the start: the main line first, then each
        variation's (its moves after those of the line it leaves), depth first."""
        out: list[list[str]] = []

        def walk(before: list[str], moves: list[str], variations: dict) -> None:
            out.append(before + moves)
            for ply in sorted(variations):
                for v in variations[ply]:
                    walk(before + moves[:ply], v.moves, v.variations)

        walk([], list(self.moves), self.variations)
        return out

    # -- writing ----------------------------------------------------------------------
    def text(self) -> str:
        """The record as text; :func:`parse_record` of it gives an equal record."""
        lines = [_header("Board", self.board.name)]
        lines += [_header(k, v) for k, v in self.headers.items()]
        lines.append(_header("Result", self.result or "*"))
        if self.start != Position.start(self.board):
            lines.append(_header("Start", str(self.start)))
        lines.append("")
        words = _line_words(self.moves, self.comments, self.variations, 0, self.start.to_move == "D", self.swap)
        words.append(self.result or "*")
        lines += _wrap(words)
        return "\n".join(lines) + "\n"


def _line_words(moves: list[str], comments: dict[int, str], variations: dict[int, list[Variation]],
                base: int, dark_first: bool, swap: bool = False) -> list[str]:
    """The words of a line whose first move is ply ``base`` of the game: its moves with
    their numbers, comments and variations (each in parentheses after the move it replaces)."""
    words: list[str] = []
    if 0 in comments:
        words.append("{" + comments[0] + "}")
    restart = True  # Dark's move is numbered ("3... c4") at a line's start and after a variation
    for i, m in enumerate(moves):
        a = base + i
        n = (a + dark_first) // 2 + 1
        # a move number stays on the line of its move
        if (a + dark_first) % 2 == 0:
            words.append(f"{n}. {m}")
        elif restart:
            words.append(f"{n}... {m}")
        else:
            words.append(m)
        restart = False
        if i == 1 and swap:
            words.append(SWAP)
        if i + 1 in comments:
            words.append("{" + comments[i + 1] + "}")
        for v in variations.get(i, ()):
            inner = _line_words(v.moves, v.comments, v.variations, a, dark_first)
            inner[0] = "(" + inner[0]
            inner[-1] += ")"  # (the same word when the variation is one move)
            words += inner
            restart = True
    return words


def variations_of(main: list[str], lines: list[list[str]]) -> dict[int, list[Variation]]:
    """The variations of the line ``main`` that hold every line of ``lines`` (each whole, from
    the start): a line that another holds (a beginning of it) adds nothing; a line that
    branches from another branches from it in the variations too (the first line to reach a
    position continues it).  A line that goes on where ``main`` ends is a :class:`RecordError`:
    no variation can hold it; so are variations nested deeper than :data:`MAX_DEPTH`.  :meth:`GameRecord.lines` is the inverse (the set of lines)."""
    root: dict = {}
    for line in [main, *lines]:
        node = root
        for m in line:
            node = node.setdefault(m, {})

    def first_path(node: dict) -> list[str]:
        path = []
        while node:
            m = next(iter(node))
            path.append(m)
            node = node[m]
        return path

    def branch(node: dict, path: list[str], offset: int, depth: int = 0) -> tuple[dict, dict]:
        variations: dict[int, list[Variation]] = {}
        for i, m in enumerate(path):
            for other, child in node.items():
                if other != m:
                    if depth == MAX_DEPTH:  # checked here: the recursion below is as deep
                        raise RecordError(f"variations nested deeper than {MAX_DEPTH}")
                    rest = first_path(child)
                    v = Variation([other, *rest], {}, branch(child, rest, 1, depth + 1)[0])
                    variations.setdefault(i + offset, []).append(v)
            node = node[m]
        return variations, node

    variations, end = branch(root, list(main), 0)
    if end:
        raise RecordError(f"a line goes on after the main line's last move ({' '.join(main[-1:]) or 'the start'}): "
                         f"make it the main line, or the main line a variation")
    return variations


def replay(start: Position, moves: list[str]) -> Game:
    """The game of ``moves`` from ``start``, with the position history kept (a repeated
    position is a draw); :class:`RecordError` names the first illegal move (its number
    from 1, the point, who was to move where, the rule)."""
    game = Game(start)
    for i, m in enumerate(moves):
        try:
            game.play(m)
        except IllegalMoveError as e:
            raise RecordError(_illegal(i, m, game.position, e)) from None
    return game


def replay_lines(start: Position, lines: list[list[str]], label: str = "line") -> list[list[Position]]:
    """Each line's positions from ``start`` (each line whole, as :func:`replay` gives them,
    with the history), the moves that lines begin with alike played once, so that many
    lines of a tree cost what the tree's moves cost; :class:`RecordError` names the line
    (``label`` and its number from 1) and its first illegal move."""
    root: dict = {}  # move -> (the position after it, its own node)
    out = []
    for n, line in enumerate(lines, 1):
        node, positions = root, [start]
        for i, m in enumerate(line):
            if m not in node:
                try:
                    node[m] = (positions[-1].play(m), {})
                except IllegalMoveError as e:
                    raise RecordError(f"{label} {n}, {_illegal(i, m, positions[-1], e)}") from None
            pos, node = node[m]
            positions.append(pos)
        out.append(positions)
    return out


def is_date(value: str) -> bool:
    """Whether ``value`` is a Date header's value: ``YYYY.MM.DD``, a real day, with
    ``????``, ``??`` for unknown parts (a day only with its month)."""
    m = _DATE.match(value)
    if not m or ("?" in m.group(2) and "?" not in m.group(3)):
        return False
    if "?" in value:
        return True
    try:
        datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return False
    return True


def _header(key: str, value: str) -> str:
    return f'[{key} "' + value.replace("\\", "\\\\").replace('"', '\\"') + '"]'


def _wrap(words: list[str], width: int = 78) -> list[str]:
    """Words joined into lines of at most ``width`` characters (a longer word alone);
    comments may hold newlines, which the reader keeps."""
    lines, line = [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    if line:
        lines.append(line)
    return lines


def _illegal(i: int, move: str, pos: Position, e: Exception) -> str:
    if pos.outcome is not None:
        why = pos.outcome_reason or "a draw"
        return f"move {i + 1} ({move}) comes after the game ended ({why})"
    return f"move {i + 1} ({move}) is illegal for {_NAME[pos.to_move]} to move in {pos}: {e}"


# -- reading --------------------------------------------------------------------------------


def parse_record(text: str, *, default_board: Board | str = "6/7", default_start: Position | None = None) -> GameRecord:
    """The :class:`GameRecord` of ``text``, in the new format or the old simple one,
    every move replayed and checked (see the module's text for both formats).

    A record that names neither a board nor a start starts from ``default_start``, else
    the empty ``default_board``.  Raises :class:`RecordError` naming the first bad line.
    """
    if not isinstance(text, str):
        raise RecordError(f"a game record is text, not {type(text).__name__}")
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            if line.startswith("["):
                return _Reader(text, default_board, default_start).read()
            break
    return _parse_old(text, default_board, default_start)


def _default(default_board: Board | str, default_start: Position | None) -> Position:
    if default_start is not None:
        return default_start
    try:
        return Position.start(default_board)
    except ValueError as e:
        raise RecordError(f"the default board: {e}") from None


def _play(pos: Position, move: str, i: int, lineno: int) -> Position:
    try:
        return pos.play(move)
    except IllegalMoveError as e:
        raise RecordError(f"line {lineno}: {_illegal(i, move, pos, e)}") from None


def _check_result(result: str | None, end: Position, lineno: int) -> None:
    """A stated result against the replayed end: equal when the game is over; a win
    (a resignation) but not a draw while it goes on."""
    if result is None:
        return
    if end.outcome is not None:
        if result != end.outcome:
            said = "a draw" if end.outcome == "draw" else f"{_NAME[end.outcome]} won"
            raise RecordError(f"line {lineno}: the result {result} contradicts the position: {said} "
                              f"({end.outcome_reason}) in {end}")
    elif result == "draw":
        raise RecordError(f"line {lineno}: the result draw contradicts the position: the game is not over "
                          f"and no position repeated ({end})")


class _Open:
    """A line being read: its moves, comments and variations (a :class:`Variation`, filled as
    the text goes on), the positions from its start, the game's ply at its start and the
    text line where it opened."""

    def __init__(self, positions: list[Position], base: int, opened: int):
        self.line = Variation.__new__(Variation)  # filled as read; checked whole by GameRecord
        self.line.moves, self.line.comments, self.line.variations = [], {}, {}
        self.positions, self.base, self.opened = positions, base, opened


class _Reader:
    """The new format, read top to bottom."""

    def __init__(self, text: str, default_board: Board | str, default_start: Position | None):
        self.text = text
        self.default_board, self.default_start = default_board, default_start

    def fail(self, lineno: int, message: str) -> RecordError:
        return RecordError(f"line {lineno}: {message}")

    def read(self) -> GameRecord:
        headers: dict[str, str] = {}
        seen: dict[str, int] = {}
        # lines end at "\n" only, as the moves' line count below does
        lines = self.text.split("\n")
        offset = 0
        body_line = len(lines) + 1
        for lineno, raw in enumerate(lines, 1):
            line = raw.strip()
            if line and not line.startswith("#") and not line.startswith("["):
                body_line = lineno
                break
            offset += len(raw) + 1
            if not line or line.startswith("#"):
                continue
            key, value = self.header(line, lineno)
            if _case_twin(key):
                raise self.fail(lineno, f"header {key}: did you mean {_case_twin(key)}? (keys are case-sensitive)")
            if "\r" in value:  # another system's line break inside the line: a value is one line
                raise self.fail(lineno, f"header {key}: a value is one line of text, not {value!r}")
            if key in seen:
                raise self.fail(lineno, f"header {key} given twice (first on line {seen[key]})")
            seen[key] = lineno
            headers[key] = value
        start, named = self.start(headers, seen)
        result = self.result_header(headers, seen)
        variant = headers.get("Variant")
        if variant is not None and variant not in VARIANTS:
            raise self.fail(seen["Variant"], f"header Variant: one of {', '.join(VARIANTS)}, not {variant!r}")
        if variant == "pie" and start != Position.start(start.board):
            raise self.fail(seen["Variant"], "the pie variant starts from the empty board, not a Start position")
        if "Date" in headers:
            self.date(headers["Date"], seen["Date"])
        for k in _FIELDS:
            headers.pop(k, None)
        return self.moves(offset, body_line, headers, start, named, result, seen.get("Result"))

    def header(self, line: str, lineno: int) -> tuple[str, str]:
        m = _HEADER.match(line)
        if m:
            return m.group(1), re.sub(r"\\(.)", r"\1", m.group(2))
        if _HEADER_CUT.match(line):
            raise self.fail(lineno, f"truncated header {line!r}: it ends before its closing '\"]'")
        raise self.fail(lineno, f"unknown header syntax {line!r}: a header is [Key \"value\"]")

    def start(self, headers: dict[str, str], seen: dict[str, int]) -> tuple[Position, bool]:
        board = None
        if "Board" in headers:
            try:
                board = Board.parse(headers["Board"])
            except ValueError as e:
                raise self.fail(seen["Board"], f"header Board: {e}") from None
        if "Start" in headers:
            try:
                start = Position.parse(headers["Start"])
            except ValueError as e:
                raise self.fail(seen["Start"], f"header Start: {e}") from None
            if board is not None and start.board != board:
                raise self.fail(seen["Start"], f"header Start: a position on board {start.board.name}, "
                                               f"but the Board header says {board.name}")
            return start, True
        if board is not None:
            return Position.start(board), True
        return _default(self.default_board, self.default_start), False

    def result_header(self, headers: dict[str, str], seen: dict[str, int]) -> str | None:
        value = headers.get("Result")
        if value is None or value == "*":
            return None
        if value not in RESULTS:
            raise self.fail(seen["Result"], f"header Result: L, D, draw or *, not {value!r}")
        return value

    def date(self, value: str, lineno: int) -> None:
        if not is_date(value):
            raise self.fail(lineno, f"header Date: YYYY.MM.DD with ?? for unknown parts, not {value!r}")

    def moves(self, offset: int, lineno: int, headers: dict[str, str], start: Position, named: bool,
              header_result: str | None, result_line: int | None) -> GameRecord:
        text = self.text
        pie = headers.get("Variant") == "pie"
        main = _Open([start], 0, 0)
        stack = [main]  # the main line, then each variation open within the one before
        swap = token_seen = False
        token_result: str | None = None
        line = lineno
        i = offset
        while i < len(text):
            m = _TOKEN.match(text, i)
            tok = m.group()
            i = m.end()
            kind = m.lastgroup
            cur = stack[-1]
            if kind in ("space", "note"):
                line += tok.count("\n")
                continue
            if kind == "open":
                end = text.find("}", i)
                nested = text.find("{", i)
                if end < 0 or 0 <= nested < end:
                    raise self.fail(line, "a comment '{' without its closing '}'")
                body = " ".join(text[i:end].split())
                if body:
                    ply, comments = len(cur.line.moves), cur.line.comments
                    comments[ply] = f"{comments[ply]} {body}" if ply in comments else body
                line += text.count("\n", i, end)
                i = end + 1
                continue
            if kind == "close":
                raise self.fail(line, "a '}' without its opening '{'")
            if kind == "header":
                raise self.fail(line, "a header after the moves: headers come first")
            if token_seen:
                raise self.fail(line, f"{tok!r} after the result token: the result ends the record")
            if kind == "lpar":
                if not cur.line.moves:
                    raise self.fail(line, "a variation '(' before any move of its line: a variation is played "
                                          "instead of the move before it")
                if len(stack) > MAX_DEPTH:
                    raise self.fail(line, f"variations nested deeper than {MAX_DEPTH}")
                k = len(cur.line.moves) - 1
                var = _Open([cur.positions[k]], cur.base + k, line)
                cur.line.variations.setdefault(k, []).append(var.line)
                stack.append(var)
                continue
            if kind == "rpar":
                if len(stack) == 1:
                    raise self.fail(line, "a ')' without its opening '('")
                if not cur.line.moves:
                    raise self.fail(line, "an empty variation '()': a variation holds at least one move")
                stack.pop()
                continue
            if _NUMBER.match(tok):
                continue
            if tok in ("L", "D", "draw", "*"):
                if len(stack) > 1:
                    raise self.fail(line, f"the result {tok} inside a variation (opened on line {cur.opened}): "
                                          "the result ends the main line")
                token_seen = True
                token_result = None if tok == "*" else tok
                if header_result is not None and token_result is not None and token_result != header_result:
                    raise self.fail(line, f"the result token {tok} contradicts the Result header "
                                          f"{header_result} (line {result_line})")
                if token_result is not None and header_result is None:
                    result_line = line
                continue
            if tok.lower() == SWAP:
                if not pie:
                    raise self.fail(line, "swap (the pie variant's colour choice) without [Variant \"pie\"]")
                if len(stack) > 1:
                    raise self.fail(line, "swap inside a variation: the colour choice is the main line's")
                if len(main.line.moves) != 2 or swap:
                    raise self.fail(line, f"swap comes once, right after the first two stones, not after "
                                          f"{len(main.line.moves)} moves")
                swap = True
                continue
            pos = _play(cur.positions[-1], tok, cur.base + len(cur.line.moves), line)
            cur.line.moves.append(pos.last_move)
            cur.positions.append(pos)
        if len(stack) > 1:
            raise self.fail(stack[-1].opened, "a variation '(' without its closing ')'")
        result = header_result if header_result is not None else token_result
        _check_result(result, main.positions[-1], result_line or line)
        moves, comments = main.line.moves, main.line.comments
        return GameRecord(headers, start, moves, comments, result, swap, main.line.variations, named_start=named)


def old_format_items(text: str):
    """The items of a record in the old simple format, in order, as
    ``(kind, value, line number)``: ``("start", text, n)`` for a first line holding a
    start position (notation or a board name, not yet parsed), ``("result", "L" | "D" |
    "draw", n)`` and ``("move", name, n)`` (not yet checked); move numbers such as ``12.``
    and ``#`` comments are skipped.  A result word other than those is a
    :class:`RecordError` naming its line.  (:func:`solver.app.verify.parse_game` lists the
    same items without replaying them.)"""
    first = True
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if first and "/" in line:
            first = False
            yield "start", line, lineno
            continue
        first = False
        m = re.match(r"^result\s*[:=]?\s*(\S+)$", line, re.IGNORECASE)
        if m:
            result = {"l": "L", "light": "L", "d": "D", "dark": "D", "draw": "draw"}.get(m.group(1).lower())
            if result is None:
                raise RecordError(f"line {lineno}: result must be L, D or draw, not {m.group(1)!r}")
            yield "result", result, lineno
            continue
        for tok in re.split(r"[,\s]+", line):
            if tok and not _OLD_NUMBER.match(tok):
                yield "move", tok, lineno


def _parse_old(text: str, default_board: Board | str, default_start: Position | None) -> GameRecord:
    """The old simple format (see the module's text), replayed and checked."""
    start: Position | None = None
    result = None
    pos: Position | None = None
    moves: list[str] = []
    for kind, value, lineno in old_format_items(text):
        if kind == "start":
            try:
                start = Position.parse(value) if len(value.split()) > 1 else Position.start(Board.parse(value))
            except ValueError as e:
                raise RecordError(f"line {lineno}: the start position: {e}") from None
            pos = start
        elif kind == "result":
            result = value
        else:
            if pos is None:
                pos = _default(default_board, default_start)
            pos = _play(pos, value, len(moves), lineno)
            moves.append(pos.last_move)
    if start is None and not moves:
        raise RecordError("the record is empty: it has no start position and no moves")
    named = start is not None
    if start is None:
        start = _default(default_board, default_start)
    # the old format's result is a claim that ``verify`` proves or refutes (exit 1), as
    # it always was: it is not checked against the end here
    return GameRecord({}, start, moves, {}, result, named_start=named)
