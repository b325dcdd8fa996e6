"""Layer 2, the reference and the checker, runnable without numba: the reference rules on
networkx (:mod:`.rules`, written straight from RULES.md), the settled rule's reference
(:mod:`.settled`) and the certificate checker (:mod:`.certificate`).

They use only the board's geometry and the notation of :mod:`solver.rules` (which load no
numba), :mod:`solver.util`, numpy and networkx, so that a certificate's verdict does not
depend on the fast core or its install.

The reference rules' public names are here too, as they were when this was one module:

>>> from solver import reference
>>> from solver.rules.board import Board
>>> reference.legal_moves(Board.parse("2/3"), frozenset(), frozenset(), "L")[:4]
[0, 1, 2, 3]
"""

from __future__ import annotations

from solver.reference.rules import (
    dead_groups, groups, is_valid, legal_moves, normal_moves, outcome, paths, perft, phase, play, removed,
    stone_graph,
)

__all__ = [
    "stone_graph", "groups", "paths", "dead_groups", "phase", "legal_moves", "normal_moves", "play",
    "removed", "outcome", "is_valid", "perft",
]
