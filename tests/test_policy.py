"""The move model: its features against their reference twin, its training, its inference."""

from __future__ import annotations

import json

import numpy as np
import pytest

from solver import Board
from solver.app import policy_training
from solver.rules.randomgame import random_game
from solver.search.features import FAMILIES, N_FEATURES, OFFSETS, feature_names, position_features, recent_moves, reference_features
from solver.search.policy import PolicyError, PolicyModel, Samples, _log_softmax, _loss, evaluate, fit, policy
from solver.util.errors import Interrupted


def test_features_match_the_reference_twin():
    # every position of seeded random games on two boards, each legal move's feature row
    checked = 0
    seen = np.zeros(N_FEATURES, bool)
    for board, games in (("3/4", 8), ("4/5", 6), ("6/7", 1)):
        for seed in range(games):
            for pos in random_game(board, seed):
                names, feats = position_features(pos)
                assert sorted(names) == (sorted(pos.legal_moves()) if pos.outcome is None else [])
                assert feats.min(initial=0) >= 0 and feats.max(initial=0) < N_FEATURES
                got = {m: tuple(int(x) for x in row) for m, row in zip(names, feats)}
                assert got == reference_features(pos, *recent_moves(pos)), str(pos)
                seen[feats.ravel()] = True
                checked += 1
    assert checked >= 300
    # the comparison reaches every bucket of the families that are not patterns, but one
    # that no game reaches: a point that blocks three enemy paths sees no stone of its own,
    # so it is no legal move once each player has a stone
    names = feature_names()
    missing = [names[i] for i in range(OFFSETS[1], N_FEATURES) if not seen[i]]
    assert missing == ["blocks=3"], missing


def test_recent_moves_are_the_last_two_placements():
    pos = None
    for pos in random_game("3/4", 5, plies=6):
        pass
    last, prev = recent_moves(pos)
    assert last == pos.last_move and prev is not None and prev in pos.earlier()[-1].stones(pos.earlier()[-2].to_move)



BOARD = Board.parse("3/4")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A model trained on 3/4 self-play (a few seconds once compiled), resumed once."""
    state = tmp_path_factory.mktemp("policy") / "state.json"
    logged: list[str] = []
    kw = dict(playouts=40, seed=3, state=state, log=logged.append)
    policy_training.train(BOARD, games=5, **kw)
    model, record = policy_training.train(BOARD, games=30, ablation=True, **kw)
    return model, record, logged, state


def test_training_learns_more_than_a_uniform_choice(trained):
    model, record, _, _ = trained
    held = record["held_out"]
    assert record["data"]["test_games"] == 6 and held["positions"] >= 50
    # top-1 agreement with the engine's move on games never trained on
    assert held["top1"] > 1.5 * held["uniform_top1"]
    assert held["loglik"] > held["uniform_loglik"]
    # the baseline is what an untrained model (all weights 0) scores: ties are shared
    games = json.loads(trained[3].read_text())["games"][4::5]
    data = policy_training.samples(BOARD, games, 2)
    flat = evaluate(PolicyModel.uniform(), data)
    assert flat["top1"] == pytest.approx(held["uniform_top1"]) and flat["loglik"] == pytest.approx(held["uniform_loglik"])


def test_training_resumes_from_its_state(trained):
    _, _, logged, state = trained
    k = len(FAMILIES)
    assert logged[6].startswith("resuming: 5 of 30 games") and len(logged) == 6 + 1 + 25 + (k - 1) + 1
    assert len(json.loads(state.read_text())["games"]) == 30


def test_the_ablation_fits_without_each_family(trained):
    _, record, _, _ = trained
    ablation = record["ablation"]
    assert sorted(ablation) == sorted([f"without {name}" for name, _ in FAMILIES[1:]] + ["first model's families"])
    for figures in ablation.values():
        assert figures["positions"] == record["held_out"]["positions"]
        assert figures["uniform_top1"] == pytest.approx(record["held_out"]["uniform_top1"])
    # each fit differs: every family changes what the model predicts
    assert len({round(f["loglik"], 9) for f in ablation.values()}) == len(ablation)


def test_the_state_keeps_the_search_shares_of_each_engine_move(trained):
    model, record, _, state = trained
    saved = json.loads(state.read_text())
    assert len(saved["shares"]) == 30 and record["data"]["targets"] == "visits"
    kept = 0
    for moves, shares in zip(saved["games"], saved["shares"]):
        assert len(shares) == len(moves) and shares[0] is None and shares[1] is None  # random openings
        for move, top in zip(moves[2:], shares[2:]):
            if top is not None:
                assert 0 < len(top) <= policy_training.SHARES_KEPT and 0 < sum(top.values()) <= 1.001
                assert move in top and top[move] == max(top.values())  # the engine plays its most visited move
                kept += 1
    assert kept >= 100 and record["data"]["games_with_shares"] >= 25


def test_fit_on_shares_matches_them_and_its_gradient_is_the_loss_slope():
    # one position of two moves that differ in one feature; the search split 0.7 / 0.3
    a = np.array([[0, OFFSETS[1] + 1], [0, OFFSETS[1]]], np.int32)
    data = Samples.build([(a, 0, np.array([0.7, 0.3]))])
    p = np.exp(_log_softmax(fit(data, l2=0.0, steps=2000).scores(a), data.starts))
    assert p[0] == pytest.approx(0.7, abs=0.01)
    # the analytic gradient against central differences, on a mix of both target kinds
    rng = np.random.default_rng(5)
    blocks = [(rng.integers(0, N_FEATURES, (4, 2)).astype(np.int32), 1, rng.random(4)), (a, 1)]
    mixed = Samples.build(blocks)
    w = rng.normal(size=N_FEATURES) * 0.3
    _, g = _loss(w, mixed, 1e-3, mixed.targets())
    for i in {int(x) for x in mixed.feats.ravel()}:
        e = np.zeros(N_FEATURES)
        e[i] = 1e-6
        slope = (_loss(w + e, mixed, 1e-3, mixed.targets())[0] - _loss(w - e, mixed, 1e-3, mixed.targets())[0]) / 2e-6
        assert g[i] == pytest.approx(slope, rel=1e-4, abs=1e-7)


def test_ctrl_c_keeps_the_finished_games(tmp_path, monkeypatch):
    played = []

    def game(*args):
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(args)
        return ["a1"], [None]

    monkeypatch.setattr(policy_training, "selfplay_game", game)
    state = tmp_path / "s.json"
    with pytest.raises(Interrupted) as e:
        policy_training.train(BOARD, games=9, playouts=10, seed=1, state=state, log=lambda s: None)
    assert e.value.finished == 2 and json.loads(state.read_text())["games"] == [["a1"], ["a1"]]


def test_policy_is_a_distribution_over_exactly_the_legal_moves(trained, tmp_path):
    model = trained[0]
    path = tmp_path / "m.npz"
    model.save(path)
    loaded = PolicyModel.load(path)
    assert np.array_equal(loaded.weights, model.weights) and loaded.meta["data"]["board"] == "3/4"
    for pos in list(random_game("3/4", 11))[::3]:
        p = policy(pos, path)
        assert sorted(p) == sorted(pos.legal_moves() if pos.outcome is None else [])
        if p:
            assert abs(sum(p.values()) - 1) < 1e-9 and min(p.values()) > 0
    # a trained model is not uniform
    pos = list(random_game("3/4", 11))[8]
    assert max(policy(pos, model).values()) > 2 / len(pos.legal_moves())


def test_a_file_that_is_no_model_is_refused(tmp_path):
    bad = tmp_path / "bad.npz"
    np.savez(bad, weights=np.zeros(3))
    with pytest.raises(PolicyError):
        PolicyModel.load(bad)


def test_a_model_of_the_first_families_loads_with_the_rest_weighing_nothing(tmp_path):
    k = 10
    n = sum(size for _, size in FAMILIES[:k])
    weights = np.random.default_rng(1).normal(size=n)
    older = tmp_path / "older.npz"
    np.savez(older, weights=weights, families=np.array(json.dumps(FAMILIES[:k])), meta=np.array("{}"))
    loaded = PolicyModel.load(older)
    assert loaded.weights.shape == (N_FEATURES,) and np.array_equal(loaded.weights[:n], weights)
    assert not loaded.weights[n:].any()
    # families in another order are other features
    swapped = [FAMILIES[1], FAMILIES[0], *FAMILIES[2:k]]
    np.savez(older, weights=weights, families=np.array(json.dumps(swapped)), meta=np.array("{}"))
    with pytest.raises(PolicyError):
        PolicyModel.load(older)


def test_evaluate_shares_ties_and_fit_prefers_the_chosen_feature():
    # two positions of two moves; the chosen move always has the "kill=1" feature
    a = np.array([[0, OFFSETS[1] + 1], [0, OFFSETS[1]]], np.int32)
    data = Samples.build([(a, 0), (a[::-1].copy(), 1)])
    flat = evaluate(PolicyModel.uniform(), data)
    assert flat["top1"] == pytest.approx(0.5) and flat["loglik"] == pytest.approx(np.log(0.5))
    fitted = evaluate(fit(data), data)
    assert fitted["top1"] == 1.0 and fitted["loglik"] > -0.1


def test_the_feature_kernel_refuses_a_scratch_smaller_than_its_own():
    # kernels do not check bounds: a caller's older, smaller label array would be overrun
    from solver.rules import core
    from solver.search.features import _CANON, LABEL_ROWS, Scratch, move_features

    T = core.tables(BOARD)
    s = Scratch(T)
    pos = list(random_game("3/4", 2))[6]
    n = move_features(T, pos.bitboards, pos.side_index, -1, -1, _CANON, s.moves, s.feats, s.st, s.label)
    assert n == len(pos.legal_moves())
    small = np.zeros((LABEL_ROWS - 1, s.label.shape[1]), np.int32)
    with pytest.raises(ValueError):
        move_features(T, pos.bitboards, pos.side_index, -1, -1, _CANON, s.moves, s.feats, s.st, small)
