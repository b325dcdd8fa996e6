"""Meridians: the rules engine (``Board``, ``Position``, ``Game``) and, later, exact search.

>>> from solver import Board, Position
>>> Position.start(Board.parse("2/3")).legal_moves()[:4]
['a1', 'a2', 'b1', 'b2']
"""

from .board import Board, BoardError
from .notation import NotationError
from .position import COLORS, Game, IllegalMoveError, InvalidPositionError, Position

__version__ = "0.1.0"
#: the version of RULES.md this engine implements; results record it with __version__
RULES_VERSION = "2026-11-30"

__all__ = [
    "Board", "BoardError", "NotationError", "Position", "Game", "IllegalMoveError",
    "InvalidPositionError", "COLORS", "__version__", "RULES_VERSION",
]
