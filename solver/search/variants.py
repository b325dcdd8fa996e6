"""df-pn with its techniques chosen one by one: the bare search the benchmarks compare.

:func:`dfpn_variant` runs one df-pn search from a position, the player to move as the
prover, with :func:`solver.search.dfpn.new_dfpn`'s options (``eps``, ``dead_shift``,
``dedup``, ``lookahead``, ``abandon``, ``mobility``, ``use_symmetry``) and a budget of
expansions: no staging, no re-walk, no line, so that its expansions measure the search
itself (``scripts/bench_proof.py``, ``scripts/bench_dfpn.py``).  To prove a position,
use :func:`solver.search.prove.prove`.
"""

from __future__ import annotations

import time

from solver.rules import core
from solver.rules.position import Position
from . import dfpn as F

__all__ = ["PLAIN", "dfpn_variant"]

#: The options of plain df-pn: all initial numbers 1, no 1+epsilon, none of the knowledge
#: (dead groups, deduplication, lookahead, abandoned stones, mobility) -- the baseline
#: every technique is measured against and the twin the tests compare the search with.
PLAIN = dict(eps=0.0, dead_shift=-1, dedup=False, lookahead=F.LOOK_OFF, abandon=False, mobility=False)


def dfpn_variant(position: Position, expansions: int, tt_mb: float, **options) -> tuple[str, int, float]:
    """(value for the player to move, expansions, seconds) of one df-pn search within
    ``expansions``: ``'win'``, ``'loss'`` (not resting on a repetition) or ``'unknown'``."""
    t = core.tables(position.board)
    D = F.new_dfpn(t, position.side_index, tt_mb, **options)
    ply = F.load_root(D, t, [(position.bitboards, position.side_index)])
    D.limits[F.MAX_EXPANSIONS] = expansions
    t0 = time.perf_counter()
    pn, dn, tainted = F.mid(t, D, ply, position.side_index, F.INF - 1, F.INF - 1)
    secs = time.perf_counter() - t0
    if D.stats[F.ABORTED]:
        result = "unknown"
    elif pn == 0:
        result = "win"
    elif dn == 0 and not tainted:
        result = "loss"
    else:
        result = "unknown"
    return result, int(min(D.stats[F.EXPANSIONS], expansions)), secs
