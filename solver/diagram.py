"""ASCII diagrams of positions, for terminals and logs.

The rows are drawn as the lattice is: each row centred, points two characters apart, so
that the six neighbours of a point are the two beside it and the two above and below it.

>>> from solver import Position
>>> print(ascii_diagram(Position.parse("2/1D1/4/L2/2 D")))
      1 2
  e    . .    e
  d   . D .   d
  c  . . . .  c
  b   L . .   b
  a    . .    a
      1 2
Dark to move
"""

from __future__ import annotations

__all__ = ["ascii_diagram"]


def ascii_diagram(position, coordinates: bool = True) -> str:
    """``L``/``D`` stones, ``.`` empty points, ``x``/``X`` stones of dead groups that will
    be removed unless the owner's next placement rescues them (see
    :meth:`Position.marked_dead`); columns are numbered from 1 at the left of each row."""
    board = position.board
    light, dark = position.stones("L"), position.stones("D")
    dead = position.marked_dead()
    maxw = max(board.row_widths)
    lines = []
    for y, width in enumerate(board.row_widths):
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
        pad = " " * (maxw - width)
        row = pad + " ".join(cells) + pad
        lines.append(f"  {letter}  {row}  {letter}" if coordinates else row)
    if coordinates:
        top = " " * (4 + maxw - board.row_widths[0]) + " ".join(
            str(i + 1)[-1] for i in range(board.row_widths[0])
        )
        lines = [top.rstrip()] + lines + [top.rstrip()]
    side = "Light" if position.to_move == "L" else "Dark"
    result = position.outcome
    if result is None:
        lines.append(f"{side} to move")
    elif result == "draw":
        lines.append("draw by repetition")
    else:
        lines.append(f"{'Light' if result == 'L' else 'Dark'} wins ({position.outcome_reason})")
    return "\n".join(line.rstrip() for line in lines)
