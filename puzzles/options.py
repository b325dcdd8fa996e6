"""The limits and choices of ``meridians puzzles generate`` (:mod:`puzzles.generate` uses
them): here, in a module that imports nothing, so that the command line (and
``meridians --help``, which lists the ``puzzles`` group) reads them without loading the
compiled searches.
"""

from __future__ import annotations

__all__ = ["METHODS", "SOURCE_KINDS", "PARENT_ORDERS", "SELFPLAY_PLAYOUTS", "MAX_PLAYOUTS", "MAX_COUNT", "MAX_JOBS", "GIVE_UP_AFTER"]

#: the generators (see the module docstring)
METHODS = ("sat", "baseline", "extend")
#: where seed positions come from (see :mod:`puzzles.generate`); ``parents`` is extend's only
SOURCE_KINDS = ("random", "selfplay", "records", "parents")
#: the orders the parents of source ``parents`` are taken in: as the file lists them, or
#: those whose proof took the fewest verifier nodes first (see :mod:`puzzles.generate`)
PARENT_ORDERS = ("file", "nodes")

#: the engine's playouts a move in self-play games: a 6/7 game of 108 plies took 5.8 CPU
#: seconds at 1,000 and one of 114 plies 1.8 s at 200 (one core, df-pn off); the engine
#: at 1,000 beat random 20-0 on 5/6 (results/engine/strength.json)
SELFPLAY_PLAYOUTS = 500
#: the most playouts a move a run may ask for
MAX_PLAYOUTS = 1_000_000

#: the most puzzles one set may ask for
MAX_COUNT = 1_000_000
#: the most worker processes
MAX_JOBS = 256
#: a run stops after this many seed positions in a row without a new puzzle (the
#: committed sets needed 1 to 4 positions a puzzle; a request no position can meet,
#: such as a capture in 8 on 2/3, would run forever)
GIVE_UP_AFTER = 256
