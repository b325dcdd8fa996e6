"""The value model and the calibration of the engine's estimate: features against their
reference twin, training, the map, and the analyst showing the calibrated probability."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from solver import Board
from solver.app import analyst, calibration, value_training
from solver.app.svg import reliability_svg
from solver.app.value_training import Source
from solver.rules.randomgame import endgames, random_game
from solver.search.limit import Limit
from solver.search.value import (
    Calibration, ValueModel, ValueModelError, raw_counts, reference_raw_counts, reference_value_features,
    shipped_calibration, value_features,
)

BOARD = Board.parse("3/4")


def test_value_features_match_the_reference_twin():
    # every position of seeded random games on two boards, over (counts) and after, finished ones too
    checked = 0
    for board, games in (("3/4", 8), ("4/5", 5)):
        for seed in range(games):
            for pos in random_game(board, seed):
                assert raw_counts(pos) == reference_raw_counts(pos), str(pos)
                assert np.array_equal(value_features(pos), reference_value_features(pos)), str(pos)
                checked += 1
    assert checked >= 250


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """40 self-play games of 3/4 at 40 playouts a move (a few seconds once compiled)."""
    return str(tmp_path_factory.mktemp("value") / "games.json")


@pytest.fixture(scope="module")
def trained(games):
    logged: list[str] = []
    model, record = value_training.train(BOARD, [Source(40, 40, games)], seed=3, log=logged.append)
    return model, record, logged


def test_training_learns_something_measurable(trained):
    model, record, logged = trained
    held = record["held_out"]
    assert record["data"]["train_games"] == 24 and record["data"]["test_games"] == 8 and held["positions"] >= 100
    # on games never trained on, better than the training positions' mean result
    assert held["log_loss"] < held["constant_log_loss"] and held["brier"] < held["constant_brier"]
    assert "held out" in logged[-1]


def test_a_value_model_file_round_trips_and_a_foreign_one_is_refused(trained, tmp_path):
    model = trained[0]
    model.save(tmp_path / "v.npz")
    again = ValueModel.load(tmp_path / "v.npz")
    assert np.array_equal(again.weights, model.weights) and again.meta["held_out"] == model.meta["held_out"]
    pos = list(random_game("3/4", 4))[6]
    assert 0 < again.probability(pos) < 1
    (tmp_path / "x.npz").write_bytes(b"not a model")
    with pytest.raises(ValueModelError):
        ValueModel.load(tmp_path / "x.npz")
    np.savez(tmp_path / "y.npz", weights=np.zeros(3), features=np.array('["bias"]'), meta=np.array("{}"))
    with pytest.raises(ValueModelError):
        ValueModel.load(tmp_path / "y.npz")


def _monotone_into_unit(c: Calibration) -> None:
    w = np.linspace(0, 1, 201)
    for empty in (0.0, 0.3, 0.7, 1.0):
        for value in (-4.0, 0.0, 4.0):
            for playouts in (1, c.budgets[0], 3000, c.budgets[1], 10**6):
                p = c(w, empty, value, playouts)
                assert np.all((p >= 0) & (p <= 1)) and np.all(np.diff(p) >= 0), (c.inputs, empty, value, playouts)


def test_calibration_maps_are_monotone_and_map_into_the_unit_interval():
    rng = np.random.default_rng(5)
    n = 4000
    w = rng.uniform(0, 1, n)
    empty = rng.uniform(0, 1, n)
    value = rng.normal(0, 1, n)
    playouts = rng.choice([800, 6400], n)
    # outcomes more extreme than the win rate says, as random playouts make them
    truth = 1 / (1 + np.exp(-(1.8 * np.log(np.clip(w, 1e-3, 1 - 1e-3) / np.clip(1 - w, 1e-3, 1))
                              + 0.3 * value - 0.1 * (playouts == 800))))
    y = (rng.uniform(0, 1, n) < truth).astype(float)
    for inputs in calibration.CANDIDATES + calibration.JOINT:
        c = Calibration.fit(inputs, w[:3000], empty[:3000], value[:3000], playouts[:3000], y[:3000])
        assert c.monotone() and c.budgets == (800, 6400)
        _monotone_into_unit(c)
        # better than the raw win rate on fresh data
        p = c(w[3000:], empty[3000:], value[3000:], playouts[3000:])
        assert np.mean((p - y[3000:]) ** 2) < np.mean((w[3000:] - y[3000:]) ** 2)
    shipped = shipped_calibration("5/6")
    assert shipped is not None
    _monotone_into_unit(shipped)
    # a map that falls as the win rate rises is refused
    with pytest.raises(ValueModelError):
        Calibration.from_dict({"inputs": ["bias", "logit"], "coef": [0.0, -1.0]})


def test_measuring_calibration_keeps_proven_positions_out_and_resumes(games, trained, tmp_path):
    state = tmp_path / "cal.json"
    logged: list[str] = []
    kw = dict(budgets=[400], seed=3, state=state, stride=4, log=logged.append)
    records = calibration.measure(BOARD, [Source(40, 40, games)], **kw)
    assert records and {r["fold"] for r in records} == {value_training.CALIBRATE, value_training.TEST}
    for r in records:
        assert (r["proven"] is None) == ("400" in r["rates"])  # a proven position has no estimate
        if r["proven"] is None:
            assert 0 <= r["rates"]["400"][0] <= 1
    unproven = [r for r in records if r["proven"] is None]
    assert len(unproven) >= 20
    again = calibration.measure(BOARD, [Source(40, 40, games)], **kw)
    assert again == records and any(line.startswith(f"resuming: {len(records)} of") for line in logged)
    rec, chosen = calibration.report(BOARD, records, [400], trained[0])
    res = rec["budgets"]["400"]
    assert res["raw"]["positions"] == sum(r["fold"] == value_training.TEST for r in unproven)
    assert sum(b["count"] for b in res["raw"]["reliability"]) == res["raw"]["positions"]
    # 3/4's win rates at 400 playouts say little on so few positions: a map is fitted only if it rises
    assert (chosen is None) == (rec["joint"]["chosen"] is None) and (chosen is None or chosen.monotone())
    assert reliability_svg(rec).count('class="bin raw"') == len(res["raw"]["reliability"])


def test_the_report_fits_a_map_that_beats_the_raw_win_rate():
    # positions whose results are more certain than the playouts' win rate says
    rng = random.Random(8)
    records = []
    for game in range(400):
        for ply in range(10):
            w = rng.uniform(0.05, 0.95)
            p = 1 / (1 + ((1 - w) / w) ** 2.0)
            w2 = 1 / (1 + ((1 - w) / w) ** 1.5)  # the larger budget's rate, nearer the truth
            records.append({"source": 0, "game": game, "ply": ply, "fold": 3 + game % 2, "empty": rng.random(),
                            "label": float(rng.random() < p), "proven": None,
                            "rates": {"800": [w, 100], "6400": [w2, 800]}})
    rec, chosen = calibration.report(BOARD, records, [800, 6400], None)
    assert chosen.monotone() and chosen.budgets == (800, 6400) and "budget" in chosen.inputs
    for budget, slope in (("800", 2.0), ("6400", 2.0 / 1.5)):
        res = rec["budgets"][budget]
        mapped = res["calibrated"]
        assert mapped["brier"] < res["raw"]["brier"] and mapped["max_gap"] < res["raw"]["max_gap"]
        top = float(chosen.budget(int(budget)))
        assert chosen.slope(0.5, top) == pytest.approx(slope, abs=0.25)
        svg = reliability_svg(rec, budget)
        assert svg.count('class="bin raw"') == len(res["raw"]["reliability"])
        assert svg.count('class="bin calibrated"') == len(mapped["reliability"])


def test_the_analyst_shows_the_calibrated_probability():
    pos = list(random_game("5/6", 2))[20]
    a = analyst.analyse(pos, Limit(playouts=600))
    assert not a.proven and a.estimate is not None
    probability = analyst.calibrate(pos, a.playouts)
    assert a.estimate.calibrated == pytest.approx(probability(a.estimate.win_rate))
    assert "calibrated" in a.shown() and a.as_dict()["estimate"]["calibrated"] == round(a.estimate.calibrated, 4)
    rated = [mv for mv in a.moves.values() if mv.estimate is not None]
    assert rated
    for mv in rated:
        assert 0 <= mv.estimate.calibrated <= 1
        assert mv.estimate.calibrated == pytest.approx(probability(mv.estimate.win_rate))
        assert mv.estimate.negated().calibrated == pytest.approx(1 - mv.estimate.calibrated)
    # the order of the moves by their estimates is the order by win rate
    by_rate = sorted(rated, key=lambda mv: mv.estimate.win_rate)
    assert [mv.estimate.calibrated for mv in by_rate] == sorted(mv.estimate.calibrated for mv in by_rate)
    # a board without a map shows the win rate alone
    b = analyst.analyse(list(random_game("4/5", 2))[6], Limit(playouts=300))
    assert all(mv.estimate.calibrated is None for mv in b.moves.values() if mv.estimate is not None)


def test_a_map_measured_on_another_engine_is_not_applied(monkeypatch):
    import solver.search.value as V
    from solver.search import mcts

    pos = list(random_game("5/6", 3))[20]
    shipped = shipped_calibration("5/6")
    assert shipped.meta["engine"] == mcts.estimate_identity()  # the map shipped is today's engine's
    assert analyst.calibrate(pos, 800) is not None
    # the same map, measured (say) on the engine before the move model's priors
    other = Calibration.from_dict({**shipped.as_dict(), "meta": {**shipped.meta, "engine": {
        **mcts.estimate_identity(), "select": "uct"}}})
    monkeypatch.setattr(V, "shipped_calibration", lambda name: other)
    assert analyst.calibrate(pos, 800) is None
    a = analyst.analyse(pos, Limit(playouts=300))
    assert a.estimate is not None and a.estimate.calibrated is None and "calibrated" not in a.shown()


def test_proven_values_are_never_replaced_by_estimates(monkeypatch):
    import solver.search.value as V

    proven = 0
    for p in endgames("5/6", 6, 6, seed=7):
        a = analyst.analyse(p, Limit(playouts=400))
        monkeypatch.setattr(V, "shipped_calibration", lambda name: None)
        b = analyst.analyse(p, Limit(playouts=400))
        monkeypatch.undo()
        assert (a.value, a.source, a.best) == (b.value, b.source, b.best)
        assert {m: (mv.value, mv.source) for m, mv in a.moves.items()} == \
            {m: (mv.value, mv.source) for m, mv in b.moves.items()}
        if a.proven:
            proven += 1
            assert a.estimate is None and "calibrated" not in a.shown()
        for mv in a.moves.values():
            assert mv.estimate is None or not mv.proven
    assert proven >= 2


def test_the_cli_shows_the_calibrated_column(run_cli):
    pos = list(random_game("5/6", 2))[20]
    r = run_cli("move", str(pos), "--playouts", "600")
    assert "calibrated" in r.stdout and "value: estimate" in r.stdout
    d = json.loads(run_cli("move", str(pos), "--playouts", "600", "--json").stdout)
    assert d["estimate"]["calibrated"] is not None
