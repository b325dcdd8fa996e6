"""Helpers the search tests share: positions from seeded random games (the package's
:func:`solver.rules.randomgame.random_position`, imported from here by the tests), a position in
the networkx reference's terms, plain minimax on the reference rules, and replaying a line.

The minimax shares nothing with the searches but the board geometry: it plays the moves
of solver.reference, counts a repetition of a position on the current path as a draw
(RULES.md), and has no table, no symmetry and no pruning beyond stopping at a win.
"""

from __future__ import annotations

from solver import Position
from solver.reference import rules as R
from solver.rules.randomgame import random_position

__all__ = ["random_position", "reference_of", "minimax", "replay_line", "VALUE"]

VALUE = {1: "win", 0: "draw", -1: "loss"}


def reference_of(pos: Position):
    """(light, dark, side) of ``pos`` as solver.reference takes them."""
    b = pos.board
    return (frozenset(b.index(x) for x in pos.stones("L")),
            frozenset(b.index(x) for x in pos.stones("D")), pos.to_move)


def minimax(board, light, dark, side, path=()) -> int:
    """Value for the player to move: 1 win, 0 draw, -1 loss."""
    key = (light, dark, side)
    if key in path:
        return 0
    result = R.outcome(board, light, dark, side)
    if result is not None:
        return 1 if result == side else -1
    best = -1
    for p in R.legal_moves(board, light, dark, side):
        best = max(best, -minimax(board, *R.play(board, light, dark, side, p), path + (key,)))
        if best == 1:
            break
    return best


def replay_line(pos: Position, line: list[str]) -> str | None:
    """Play ``line`` from ``pos`` with the reference rules, every move checked legal;
    return the result at its end (None while the game goes on)."""
    board = pos.board
    light, dark, side = reference_of(pos)
    for m in line:
        assert R.outcome(board, light, dark, side) is None, (str(pos), line, m)
        assert board.index(m) in R.legal_moves(board, light, dark, side), (str(pos), line, m)
        light, dark, side = R.play(board, light, dark, side, board.index(m))
    return R.outcome(board, light, dark, side)
