"""The verifier's cut and table change no answer: on random 4/5 and 6/7 positions, with
every group of the defender as the target, ``verify`` with the cut and the table gives
the same keys and shorter solutions as the plain exhaustive search (no cut, no table),
which the reference twin checks on small positions (tests/test_capture.py)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzles.verdict import verify
from solver import Board, Position
from solver.search.limit import Limit

from refplay import random_position


def _targets(pos: Position) -> list[str]:
    y = "D" if pos.to_move == "L" else "L"
    return [min(g, key=pos.board.index) for g in pos.groups(y)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=st.sampled_from(["4/5", "6/7"]), frac=st.floats(0.45, 0.9), seed=st.integers(0, 10**6),
       n=st.integers(1, 3))
def test_cut_and_table_agree_with_plain_search(board, frac, seed, n):
    b = Board.parse(board)
    pos = random_position(b, int(frac * b.size), seed)
    if pos.outcome is not None:
        return
    empty = b.size - len(pos.stones("L")) - len(pos.stones("D"))
    if n == 3 and empty > 26:
        n = 2  # the plain search of a capture in 3 with many points left is slow
    for target in _targets(pos)[:4]:
        fast = verify(pos, target, n, line=False)
        plain = verify(pos, target, n, limit=Limit(nodes=3_000_000), line=False, use_cut=False, use_table=False)
        if not plain.complete:
            continue
        assert fast.complete
        assert (fast.keys, fast.shorter) == (plain.keys, plain.shorter), (str(pos), target, n)
        assert fast.nodes <= plain.nodes
