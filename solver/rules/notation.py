"""Position notation: parse and format, with errors that say what is wrong.

``<rows> <side>``: the rows from the TOP row to the bottom row, separated by ``/``; within
a row, points left to right: ``L`` a Light stone, ``D`` a Dark stone, a decimal number
``k`` for ``k`` empty points.  ``<side>`` is ``L`` or ``D``, the player to move.  The board
is inferred from the row widths.  The rows and the side are separated by whitespace: a
space, or any other (a tab, a no-break space, a newline), which is read as one space.

>>> board, light, dark, side = parse_position("2/3/4/3/2 L")
>>> board.name, len(light), len(dark), side
('2/3', 0, 0, 'L')
>>> b, light, dark, side = parse_position("2/1D1/4/L2/2 D")
>>> sorted(b.name_of(p) for p in light), sorted(b.name_of(p) for p in dark), side
(['b1'], ['d2'], 'D')
>>> format_position(b, light, dark, side)
'2/1D1/4/L2/2 D'
"""

from __future__ import annotations

import re
from typing import Iterable

from .board import MAX_M, Board, BoardError, _shown
from solver.util.errors import MeridiansError

__all__ = ["NotationError", "parse_position", "format_position", "points_in_text_order"]

_TOKEN_RE = re.compile(r"L|D|[1-9][0-9]*")
#: counts of more digits are refused at once (a row has at most 2 * MAX_M points)
_MAX_COUNT_DIGITS = 4


class NotationError(MeridiansError):
    """A position string that does not follow the notation."""


def parse_position(text: str) -> tuple[Board, frozenset[int], frozenset[int], str]:
    """Parse ``text`` into ``(board, light, dark, side)`` (stones as point indices).

    Only the syntax and the board shape are checked here; whether the position can arise
    is :class:`solver.Position`'s business.
    """
    if not isinstance(text, str):
        raise NotationError(f"a position must be a string, not {type(text).__name__}")
    parts = text.split()  # any whitespace, Unicode's too (a tab, a no-break space)
    if len(parts) == 1 and "/" in parts[0] and re.fullmatch(r"[0-9LD/]+", parts[0]):
        raise NotationError(
            f"position {_shown(text)} has no side to move: '<rows> <side>', such as '2/3/4/3/2 L'"
        )
    if len(parts) != 2:
        raise NotationError(
            f"position {_shown(text)} must be '<rows> <side>', such as '2/3/4/3/2 L'"
        )
    rows_text, side = parts
    if side not in ("L", "D"):
        raise NotationError(f"side to move must be L or D, not {_shown(side)}")
    rows = rows_text.split("/")
    tokens_of: list[list[str]] = []
    for i, row in enumerate(rows):
        if row == "":
            raise NotationError(f"row {i + 1} from the top is empty in {rows_text!r}")
        tokens = _TOKEN_RE.findall(row)
        if "".join(tokens) != row:
            bad = _first_bad_char(row)
            raise NotationError(
                f"row {i + 1} from the top, {_shown(row)}, has {bad!r}: expected L, D or a number"
            )
        for tok in tokens:
            # a count longer than any row, refused before int() meets Python's limit on
            # the digits of an integer (and before a row of a billion points is built)
            if len(tok) > _MAX_COUNT_DIGITS:
                raise NotationError(
                    f"row {i + 1} from the top counts {_shown(tok, 24)} empty points ({len(tok)} digits): "
                    f"no board has a row of more than {2 * MAX_M} points"
                )
        tokens_of.append(tokens)
    # the board first, from the widths alone: a count such as 10**9 is rejected here
    # without building a row of a billion points
    widths = [sum(1 if t in ("L", "D") else int(t) for t in tokens) for tokens in tokens_of]
    try:
        board = Board.from_row_widths(widths)
    except BoardError as e:
        raise NotationError(str(e)) from None
    parsed: list[list[str | None]] = []
    for tokens in tokens_of:
        cells: list[str | None] = []
        for tok in tokens:
            if tok in ("L", "D"):
                cells.append(tok)
            else:
                cells.extend([None] * int(tok))
        parsed.append(cells)
    light: set[int] = set()
    dark: set[int] = set()
    cells_in_order = (c for cells in parsed for c in cells)
    for p, c in zip(points_in_text_order(board), cells_in_order):
        if c is not None:
            (light if c == "L" else dark).add(p)
    return board, frozenset(light), frozenset(dark), side


def points_in_text_order(board: Board) -> list[int]:
    """The points of ``board`` in the order the notation writes them: rows from the top,
    each from its first point."""
    return [board.index(f"{chr(ord('a') + 2 * board.m - y)}{x + 1}")
            for y, width in enumerate(board.row_widths) for x in range(width)]


def _first_bad_char(row: str) -> str:
    i = 0
    while i < len(row):
        m = _TOKEN_RE.match(row, i)
        if not m:
            return row[i]
        i = m.end()
    return row


def format_position(board: Board, light: Iterable[int], dark: Iterable[int], side: str) -> str:
    """The notation of a position (the inverse of :func:`parse_position`)."""
    light, dark = set(light), set(dark)
    points = iter(points_in_text_order(board))
    rows = []
    for width in board.row_widths:
        out = []
        empty = 0
        for _ in range(width):
            p = next(points)
            c = "L" if p in light else "D" if p in dark else None
            if c is None:
                empty += 1
                continue
            if empty:
                out.append(str(empty))
                empty = 0
            out.append(c)
        if empty:
            out.append(str(empty))
        rows.append("".join(out))
    return "/".join(rows) + " " + side
