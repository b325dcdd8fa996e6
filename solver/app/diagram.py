"""ASCII diagrams of positions, for terminals and logs.

The rows are drawn as the lattice is: each row centred, points two characters apart, so
that the six neighbours of a point are the two beside it and the two above and below it.
Rows are lettered on both sides; columns are numbered from 1 at the left of each row,
and a column runs along a diagonal (up and to the right in the upper half, down and to
the right in the lower half).  The numbers of the top and bottom rows stand above and
below them; the columns beyond (7 to 12 on 6/7) are numbered where their diagonal leaves
the board, beside the right-hand ends of the rows.  A legend line names the marks.

>>> from solver import Position
>>> print(ascii_diagram(Position.parse("2/1D1/4/L2/2 D")))
      1 2
  e    . . 3    e
  d   . D . 4   d
  c  . . . .    c
  b   L . . 4   b
  a    . . 3    a
      1 2
L Light, D Dark, . empty; columns count from 1 at the left of each row
Dark to move
"""

from __future__ import annotations

__all__ = ["ascii_diagram", "LEGEND"]

#: the marks of a diagram and what they stand for, in the order the legend lists them
LEGEND = (("L", "Light"), ("D", "Dark"), (".", "empty"),
          ("x", "dead Light stone"), ("X", "dead Dark stone"))
_DEAD_NOTE = "(dead: removed unless its owner's next placement rescues it)"
_COLUMNS_NOTE = "; columns count from 1 at the left of each row"


def ascii_diagram(position, coordinates: bool = True) -> str:
    """``L``/``D`` stones, ``.`` empty points, ``x``/``X`` stones of dead groups that will
    be removed unless the owner's next placement rescues them (see
    :meth:`Position.marked_dead`).  With ``coordinates``: row letters, column numbers
    (see the module's docstring) and a legend line of the marks used."""
    board = position.board
    light, dark = position.stones("L"), position.stones("D")
    dead = position.marked_dead()
    widths = board.row_widths
    maxw = max(widths)
    used = {".", "L", "D"}
    rows = []
    for y, width in enumerate(widths):
        letter = chr(ord("a") + 2 * board.m - y)
        cells = []
        for x in range(width):
            name = f"{letter}{x + 1}"
            if name in light:
                cells.append("x" if name in dead else "L")
            elif name in dark:
                cells.append("X" if name in dead else "D")
            else:
                cells.append(".")
        used.update(cells)
        rows.append((letter, " " * (maxw - width) + " ".join(cells)))
    if not coordinates:
        return "\n".join(row.rstrip() for _, row in rows) + "\n" + _status(position)
    # the number of the column that leaves the board beside each row's right end: the
    # last column of the row below it (upper half) or above it (lower half), when that
    # row is the wider one; both for the middle row's last column
    mid = board.m
    labels = [""] * len(widths)
    for y in range(len(widths)):
        for other in (y + 1, y - 1):
            toward_middle = (other > y) if y < mid else (other < y)
            if 0 <= other < len(widths) and toward_middle and widths[other] > widths[y]:
                labels[y] = str(widths[other])
    lines = []
    for (letter, row), label in zip(rows, labels):
        if label:
            # at the place of the point that would come after the row's last point
            row = row + " " + label
        lines.append(f"  {letter}  {row:<{2 * maxw + 2}} {letter}")
    top = " " * (4 + maxw - widths[0]) + " ".join(str(i + 1)[-1] for i in range(widths[0]))
    bottom = " " * (4 + maxw - widths[-1]) + " ".join(str(i + 1)[-1] for i in range(widths[-1]))
    lines = [top] + lines + [bottom]
    marks = [f"{mark} {meaning}" for mark, meaning in LEGEND if mark in used]
    legend = ", ".join(marks) + (f" {_DEAD_NOTE}" if used & {"x", "X"} else "") + _COLUMNS_NOTE
    return "\n".join(line.rstrip() for line in lines) + "\n" + legend + "\n" + _status(position)


def _status(position) -> str:
    """Who is to move, or how the game ended."""
    result = position.outcome
    if result is None:
        return f"{'Light' if position.to_move == 'L' else 'Dark'} to move"
    if result == "draw":
        return "draw by repetition"
    return f"{'Light' if result == 'L' else 'Dark'} wins ({position.outcome_reason})"
