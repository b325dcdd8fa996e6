"""scripts/measure_growth.py and solver/app/openings/growth.py under it: the fitted growth, the
record and its resumption, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import load_script, run_script
from solver import Board, Position
from solver.app.openings import growth
from solver.rules.randomgame import empty_points
from solver.search import prove as prove_module

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@pytest.fixture()
def script(tmp_path, monkeypatch):
    return load_script("measure_growth", monkeypatch, tmp_path)


def run(mod, monkeypatch, *argv):
    run_script(mod, monkeypatch, *argv)


def test_an_exact_exponential_is_fitted_exactly():
    board = Board.parse("3/4")
    runs = [{"empty": e, "value": "win", "expansions": 10 * 3 ** e, "seed": s}
            for e in (10, 12, 14) for s in range(3)]
    fit = growth.summarize(board, runs, 10**12)["fit"]
    assert fit["factor_per_point"] == pytest.approx(3.0)
    assert fit["first_move_expansions"] == pytest.approx(10 * 3 ** 29)


def test_an_undecided_median_is_over_the_cap_and_left_out_of_the_fit():
    board = Board.parse("3/4")
    runs = [{"empty": 20, "value": "unknown", "expansions": 100, "seed": s} for s in range(2)]
    runs.append({"empty": 20, "value": "win", "expansions": 5, "seed": 2})
    row = growth.summarize(board, runs, 100)["by_empty"][0]
    assert row["median_over_cap"] and row["median_expansions"] is None and row["decided"] == 1


def test_positions_have_the_empty_points_asked_for():
    board = Board.parse("3/4")
    got = growth.growth_positions(board, [12, 20], 4, 1)
    assert got and {e for _, e, _ in got} <= {12, 20}
    for _, e, text in got:
        pos = Position.parse(text)
        assert empty_points(pos) == e and pos.outcome is None


def test_2_3_is_measured_recorded_and_resumed(script, tmp_path, monkeypatch, capsys):
    args = ("--board", "2/3", "--empty", "6-12:2", "--games", "3", "--max-nodes", "100000", "--tt-mb", "4")
    run(script, monkeypatch, *args)
    rec = json.loads((tmp_path / "2-3-growth.json").read_text())
    assert rec["runs"] and all(r["value"] in ("win", "loss") for r in rec["runs"])
    assert rec["command"].startswith("python scripts/measure_growth.py --board 2/3")
    assert (tmp_path / "2-3-growth.svg").read_text().count('class="run decided"') == len(rec["runs"])
    capsys.readouterr()
    run(script, monkeypatch, *args)
    assert "0 to prove" in capsys.readouterr().err
    assert json.loads((tmp_path / "2-3-growth.json").read_text())["runs"] == rec["runs"]


def test_a_knowledge_run_is_set_beside_the_plain_run_of_the_same_positions(script, tmp_path, monkeypatch, capsys):
    args = ("--board", "3/4", "--empty", "12-14:2", "--games", "3", "--max-nodes", "200000", "--tt-mb", "8")
    run(script, monkeypatch, *args)
    run(script, monkeypatch, *args, "--knowledge")
    plain = json.loads((tmp_path / "3-4-growth.json").read_text())
    rec = json.loads((tmp_path / "3-4-growth-knowledge.json").read_text())
    assert rec["knowledge"] is True and plain["knowledge"] is False
    assert rec["command"].endswith(" --knowledge")
    assert [(r["position"], r["value"]) for r in rec["runs"]] == [(r["position"], r["value"]) for r in plain["runs"]]
    vs = rec["against"]
    assert vs["baseline"] == "3-4-growth.json" and vs["positions"] == vs["both_decided"] == len(plain["runs"])
    assert vs["expansions"] == sum(r["expansions"] for r in rec["runs"])
    assert vs["expansions_baseline"] == sum(r["expansions"] for r in plain["runs"])
    assert "against 3-4-growth.json on the same" in capsys.readouterr().err


def test_a_focused_run_is_set_beside_the_plain_run_of_the_same_positions(script, tmp_path, monkeypatch):
    args = ("--board", "2/3", "--empty", "8-10:2", "--games", "2", "--max-nodes", "100000", "--tt-mb", "4")
    run(script, monkeypatch, *args)
    run(script, monkeypatch, *args, "--model", "--focus", "2")
    plain = json.loads((tmp_path / "2-3-growth.json").read_text())
    rec = json.loads((tmp_path / "2-3-growth-focused.json").read_text())
    assert rec["guided"] is True and rec["focus"] == 2 and rec["command"].endswith(" --model --focus 2")
    assert [(r["position"], r["value"]) for r in rec["runs"]] == [(r["position"], r["value"]) for r in plain["runs"]]
    assert rec["against"]["both_decided"] == len(plain["runs"])


def test_a_baseline_that_disagrees_is_an_error(tmp_path):
    board = Board.parse("3/4")
    runs = [{"seed": 1, "empty": 12, "position": "p", "value": "win", "expansions": 5, "seconds": 1.0}]
    base = tmp_path / "3-4-growth.json"
    base.write_text(json.dumps({"cap": 10, "runs": [dict(runs[0], value="loss")]}))
    with pytest.raises(growth.GrowthError, match="p: win here, loss in 3-4-growth.json"):
        growth.against(board, runs, base)
    base.write_text("[1")
    with pytest.raises(growth.GrowthError, match="not a growth file"):
        growth.against(board, runs, base)
    assert growth.against(board, runs, tmp_path / "none.json") is None


def test_bad_input_is_one_line(script, tmp_path, monkeypatch):
    with pytest.raises(SystemExit, match="--empty"):
        run(script, monkeypatch, "--board", "2/3", "--empty", "x-y")
    with pytest.raises(SystemExit, match="measure_growth"):
        run(script, monkeypatch, "--board", "9/1")
    with pytest.raises(SystemExit, match="--focus"):
        run(script, monkeypatch, "--board", "2/3", "--focus", "2")
    (tmp_path / "2-3-growth.json").write_text("{")
    with pytest.raises(SystemExit, match="not a growth file"):
        run(script, monkeypatch, "--board", "2/3", "--empty", "6")


@pytest.mark.subprocess
def test_a_board_another_live_process_measures_is_refused(script, tmp_path, monkeypatch):
    import subprocess
    import sys

    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / "2-3-growth.running").write_text(str(holder.pid))
        with pytest.raises(SystemExit, match="another process"):
            run(script, monkeypatch, "--board", "2/3", "--empty", "6")
    finally:
        holder.kill()
        holder.wait()
    run(script, monkeypatch, "--board", "2/3", "--empty", "6", "--tt-mb", "4")  # its holder is gone
    assert not (tmp_path / "2-3-growth.running").exists()


def test_sigterm_stops_a_run_keeping_the_positions_measured(script, tmp_path, monkeypatch):
    """(a run in the background ignores Ctrl-C: it is stopped with SIGTERM)"""
    import os
    import signal

    real, calls = prove_module.prove, []

    def prove(*a, **k):
        calls.append(1)
        if len(calls) == 2:  # the second position: stopped part-way
            os.kill(os.getpid(), signal.SIGTERM)
        return real(*a, **k)

    monkeypatch.setattr(prove_module, "prove", prove)
    before = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(SystemExit, match="interrupted; 1 positions kept"):
            run(script, monkeypatch, "--board", "2/3", "--empty", "6-12:2", "--games", "2", "--tt-mb", "4")
    finally:
        signal.signal(signal.SIGTERM, before)
    assert len(json.loads((tmp_path / "2-3-growth.json").read_text())["runs"]) == 1
    assert not (tmp_path / "2-3-growth.running").exists()


SOLUTIONS = Path(__file__).resolve().parent.parent / "results" / "solutions"


@pytest.mark.parametrize("path", sorted(SOLUTIONS.glob("*-growth.json")), ids=lambda p: p.name)
def test_the_committed_positions_are_the_ones_their_seeds_give(path):
    """(solver.rules.randomgame draws the same games as the loop that chose them)"""
    rec = json.loads(path.read_text())
    seeds = {r["seed"] for r in rec["runs"]}
    counts = sorted({r["empty"] for r in rec["runs"]})
    got = set(growth.growth_positions(Board.parse(rec["board"]), counts, max(seeds) - min(seeds) + 1, min(seeds)))
    assert {(r["seed"], r["empty"], r["position"]) for r in rec["runs"]} <= got
