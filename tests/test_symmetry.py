"""The board's symmetries commute with the rules, and the Zobrist keys respect them.

On random reachable positions of every board, for each of the four symmetries ``s``
(``Board.symmetries[s]``, a permutation of the points):

* ``Position.transform(s)`` moves every stone by the permutation and keeps the side;
* the legal moves of the transformed position are the transformed legal moves;
* playing the transformed move gives the transformed child, with the transformed
  removals; groups, dead groups and the outcome carry over;
* ``position.zobrist_symmetric()[s] == position.transform(s).zobrist()``, and the
  minimum over the symmetries is the same for all four transforms.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Board, Position
from solver.rules.board import MAX_M, MIN_M
from solver.rules.randomgame import random_game

COLOURS = ("L", "D")


def mapped(board: Board, perm, point_names) -> frozenset[str]:
    return frozenset(board.name_of(perm[board.index(n)]) for n in point_names)


def check_symmetries(pos: Position, rng: random.Random, moves_per_position: int) -> None:
    board = pos.board
    keys = pos.zobrist_symmetric()
    assert len(keys) == len(board.symmetries) == 4
    assert int(keys[0]) == pos.zobrist()
    legal = pos.legal_moves()
    sample = rng.sample(legal, min(len(legal), moves_per_position))
    children = {m: pos.play(m) for m in sample}
    for s, perm in enumerate(board.symmetries):
        t = pos.transform(s)
        assert t.to_move == pos.to_move
        for c in COLOURS:
            assert t.stones(c) == mapped(board, perm, pos.stones(c))
            assert {mapped(board, perm, g) for g in pos.groups(c)} == set(t.groups(c))
            assert {mapped(board, perm, g) for g in pos.dead_groups(c)} == set(t.dead_groups(c))
        assert t.phase == pos.phase
        assert t.outcome == pos.outcome
        assert set(t.legal_moves()) == mapped(board, perm, legal)
        assert t.transform(s) == pos  # every symmetry of the board is an involution
        # Zobrist: the key under s is the key of the transformed position, and the
        # minimum is shared by the whole symmetry class
        assert int(keys[s]) == t.zobrist()
        assert t.zobrist_symmetric().min() == keys.min()
        assert sorted(int(k) for k in t.zobrist_symmetric()) == sorted(int(k) for k in keys)
        for m, child in children.items():
            tm = board.name_of(perm[board.index(m)])
            t_child = t.play(tm)
            assert t_child == child.transform(s), (s, m)
            assert t_child.removed == mapped(board, perm, child.removed)
            assert t_child.outcome == child.outcome
            assert t_child.zobrist() == int(child.zobrist_symmetric()[s])


@settings(max_examples=120)
@given(m=st.integers(MIN_M, MAX_M), seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 200))
def test_symmetries_commute_with_the_rules(m, seed, plies):
    rng = random.Random(seed ^ 0x5EED)
    moves_per_position = 6 if m <= 3 else 2
    for ply, pos in enumerate(random_game(Board.get(m), seed, plies=plies)):
        # every position on the small boards; every fifth ply and the end on the big ones
        if m <= 4 or ply % 5 == 0 or pos.outcome is not None:
            check_symmetries(pos, rng, moves_per_position)


@pytest.mark.parametrize("m", range(MIN_M, MAX_M + 1), ids=lambda m: f"{m}/{m + 1}")
def test_zobrist_keys_identify_positions(m):
    # along random games: equal positions have equal keys whatever history led to them
    # (the key is recomputed from the notation), different positions different keys,
    # and the side to move is part of the key
    seen: dict[int, str] = {}
    for seed in range(4):
        for pos in random_game(Board.get(m), seed, plies=400):
            again = Position.parse(str(pos))
            assert again.zobrist() == pos.zobrist()
            assert list(again.zobrist_symmetric()) == list(pos.zobrist_symmetric())
            assert seen.setdefault(pos.zobrist(), str(pos)) == str(pos)
    assert Position.start(m).zobrist() != Position(m, to_move="D").zobrist()
    assert len(seen) > 5


def test_transform_examples():
    # 2/3 board, by hand: the four images of Light c1, Dark e2 (Light to move)
    pos = Position.parse("1D/3/L3/3/2 L")
    assert pos.stones("L") == {"c1"} and pos.stones("D") == {"e2"}
    images = {(min(t.stones("L")), min(t.stones("D"))) for t in (pos.transform(s) for s in range(4))}
    # identity; left-right mirror c1->c4, e2->e1; top-bottom mirror c1->c1, e2->a2; half turn c4, a1
    assert images == {("c1", "e2"), ("c4", "e1"), ("c1", "a2"), ("c4", "a1")}
    assert {str(pos.transform(s)) for s in range(4)} == {"1D/3/L3/3/2 L", "D1/3/3L/3/2 L", "2/3/L3/3/1D L", "2/3/3L/3/D1 L"}
    # Light's second stone must see c1 across an empty point: a1, c3, c4, e1.  Mirrored
    # left-right (Light c4, Dark e1): c2 and c1 along row c, a2 past b3, e2 past d3.
    assert pos.legal_moves() == ["a1", "c3", "c4", "e1"]
    assert Position.parse("D1/3/3L/3/2 L").legal_moves() == ["a2", "c1", "c2", "e2"]
