"""scripts/bench_frontier.py and solver/app/frontier.py under it: the positions, the summary,
the record, its chart and its resumption, bad input."""

from __future__ import annotations

import json

import pytest

from conftest import load_script, run_script
from solver import Board, Position
from solver.app import frontier
from solver.rules.randomgame import empty_points


@pytest.fixture()
def script(tmp_path, monkeypatch):
    return load_script("bench_frontier", monkeypatch, tmp_path)


def test_positions_have_the_counts_asked_for_one_a_game():
    board = Board.parse("3/4")
    got = frontier.frontier_positions(board, [12, 18], 3, seed=5)
    assert [e for _, e, _ in got] == [12, 12, 12, 18, 18, 18]
    for e in (12, 18):
        seeds = [s for s, f, _ in got if f == e]
        assert len(set(seeds)) == len(seeds)  # one position a game
    for _, e, text in got:
        pos = Position.parse(text)
        assert empty_points(pos) == e and pos.outcome is None
    assert got == frontier.frontier_positions(board, [12, 18], 3, seed=5)  # seeded


def test_the_summary_counts_an_undecided_run_as_over_the_budget():
    runs = [{"board": "6/7", "empty": 30, "mode": "plain", "value": v, "seconds": t, "expansions": 10}
            for v, t in (("win", 1.0), ("unknown", 60.0), ("unknown", 60.0))]
    runs += [{"board": "6/7", "empty": 30, "mode": "knowledge", "value": v, "seconds": t, "expansions": 5}
             for v, t in (("win", 1.0), ("loss", 3.0), ("unknown", 60.0))]
    rows = {r["mode"]: r for r in frontier.summarize(runs, 60.0)}
    assert rows["plain"]["decided"] == 1 and rows["plain"]["median_seconds"] is None
    assert rows["knowledge"]["decided"] == 2 and rows["knowledge"]["median_seconds"] == 3.0
    assert rows["knowledge"]["share"] == pytest.approx(2 / 3, abs=1e-3)


def test_3_4_is_measured_in_both_modes_recorded_and_resumed(script, tmp_path, monkeypatch, capsys):
    args = ("--boards", "3/4", "--empty", "10,14", "--per-count", "2", "--seconds", "20", "--tt-mb", "8")
    run_script(script, monkeypatch, *args)
    out = tmp_path / "3-4.json"
    rec = json.loads(out.read_text())
    assert rec["command"].startswith("python scripts/bench_frontier.py --boards 3/4")
    assert rec["version"] and rec["revision"]
    assert len(rec["runs"]) == 8 and {r["mode"] for r in rec["runs"]} == set(frontier.MODES)
    # both modes verify the same positions, and where both decide they agree
    by = {}
    for r in rec["runs"]:
        by.setdefault(r["position"], {})[r["mode"]] = r["value"]
    for values in by.values():
        decided = {v for v in values.values() if v in ("win", "loss")}
        assert len(decided) <= 1
    assert (tmp_path / "3-4.svg").read_text().count('class="series') == 2
    assert "decided" in capsys.readouterr().out
    # the same command goes on: nothing is run again
    run_script(script, monkeypatch, *args)
    assert json.loads(out.read_text())["runs"] == rec["runs"]


def test_the_focused_mode_is_measured_beside_plain(script, tmp_path, monkeypatch):
    args = ("--boards", "3/4", "--empty", "10", "--per-count", "2", "--seconds", "20", "--tt-mb", "8",
            "--modes", "plain,focused", "--focus", "2")
    run_script(script, monkeypatch, *args)
    rec = json.loads((tmp_path / "3-4.json").read_text())
    assert rec["command"].endswith("--modes plain,focused --focus 2")
    assert rec["focus"] == 2 and rec["model"] and rec["compare"]
    by = {}
    for r in rec["runs"]:
        by.setdefault(r["position"], {})[r["mode"]] = r["value"]
    assert len(by) == 2 and all(set(v) == {"plain", "focused"} for v in by.values())
    assert all(v["plain"] == v["focused"] for v in by.values() if "unknown" not in v.values())
    assert "dash-dotted" in (tmp_path / "3-4.svg").read_text()


@pytest.mark.parametrize("argv, message", [
    (("--modes", "plain,focused", "--focus", "0"), "focus"),
    (("--empty", "x"), "--empty"),
    (("--empty", "0-4"), "--empty"),
    (("--seconds", "nan"), "--seconds"),
    (("--seconds", "0"), "--seconds"),
    (("--per-count", "0"), "--per-count"),
    (("--boards", "9/9"), "board"),
])
def test_bad_options_are_one_line(script, monkeypatch, argv, message):
    with pytest.raises(SystemExit) as e:
        run_script(script, monkeypatch, *argv)
    assert message in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("text", ["[]", "{}", '{"runs": 3}', '{"runs": [{"board": 1}]}', "{", "\x00"])
def test_a_file_that_is_not_a_frontier_file_is_refused(script, tmp_path, monkeypatch, text):
    (tmp_path / "3-4.json").write_text(text)
    with pytest.raises(SystemExit) as e:
        run_script(script, monkeypatch, "--boards", "3/4", "--empty", "10", "--per-count", "1")
    assert "not a frontier file" in str(e.value)
