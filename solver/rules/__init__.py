"""Layer 1, the rules: the board's geometry (:mod:`.board`), the bitboard intrinsics
(:mod:`.bits`) and the compiled rules core (:mod:`.core`), positions and games
(:mod:`.position`), the notation (:mod:`.notation`), game records (:mod:`.record`) and
random games (:mod:`.randomgame`).

Nothing here imports a layer above it (the reference and the checker, the searches, the
job runner, the applications); :mod:`solver.util` is the one other part of the package it
uses.  Nothing is imported here: ``import solver.rules.board`` loads no numba.
"""
