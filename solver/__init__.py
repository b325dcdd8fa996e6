"""Meridians: the rules engine (``Board``, ``Position``, ``Game``), the networkx reference
rules and the certificate checker, and exact search (:mod:`solver.search`).

>>> from solver import Board, Position
>>> Position.start(Board.parse("2/3")).legal_moves()[:4]
['a1', 'a2', 'b1', 'b2']

The names below are imported on first use (a module-level ``__getattr__``), not when the
package is: ``import solver.reference`` (the reference rules and the certificate checker
:mod:`solver.reference.certificate`) must not load ``Position``, whose compiled core needs
numba; the checker's verdict does not depend on the fast core or its install.

Every error a user can cause is a :class:`MeridiansError` (a ``ValueError``), each
module's typed one under it; a long run stopped by Ctrl-C raises :class:`Interrupted`
(:mod:`solver.util.errors`).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"
#: the version of RULES.md this engine implements; results record it with __version__
RULES_VERSION = "2026-11-30"

#: public name -> the module (in this package) that defines it
_LAZY = {
    "Board": "rules.board", "BoardError": "rules.board",
    "NotationError": "rules.notation",
    "Position": "rules.position", "Game": "rules.position", "IllegalMoveError": "rules.position",
    "InvalidPositionError": "rules.position", "COLORS": "rules.position",
    "MeridiansError": "util.errors", "Interrupted": "util.errors",
}

__all__ = [
    "Board", "BoardError", "NotationError", "Position", "Game", "IllegalMoveError",
    "InvalidPositionError", "COLORS", "MeridiansError", "Interrupted", "__version__", "RULES_VERSION",
]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'solver' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups find it without coming here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
