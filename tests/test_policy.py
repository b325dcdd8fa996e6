"""The move model: its features against their reference twin, its training, its inference."""

from __future__ import annotations

from solver.rules.randomgame import random_game
from solver.search.features import N_FEATURES, position_features, recent_moves, reference_features


def test_features_match_the_reference_twin():
    # every position of seeded random games on two boards, each legal move's feature row
    checked = 0
    for board, games in (("3/4", 8), ("4/5", 6)):
        for seed in range(games):
            for pos in random_game(board, seed):
                names, feats = position_features(pos)
                assert sorted(names) == (sorted(pos.legal_moves()) if pos.outcome is None else [])
                assert feats.min(initial=0) >= 0 and feats.max(initial=0) < N_FEATURES
                got = {m: tuple(int(x) for x in row) for m, row in zip(names, feats)}
                assert got == reference_features(pos, *recent_moves(pos)), str(pos)
                checked += 1
    assert checked >= 300


def test_recent_moves_are_the_last_two_placements():
    pos = None
    for pos in random_game("3/4", 5, plies=6):
        pass
    last, prev = recent_moves(pos)
    assert last == pos.last_move and prev is not None and prev in pos.earlier()[-1].stones(pos.earlier()[-2].to_move)
