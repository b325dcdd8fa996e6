"""scripts/bench_strength.py: its table of matches, written with its provenance, replays exactly."""

from __future__ import annotations

import json

import pytest

from conftest import load_script, run_script


@pytest.fixture()
def script(tmp_path, monkeypatch):
    return load_script("bench_strength", monkeypatch, tmp_path)


def test_the_table_is_written_and_replays_exactly(script, tmp_path, monkeypatch, capsys):
    args = ("--boards", "2/3", "--games", "3", "--playouts", "30", "--seed", "4")
    run_script(script, monkeypatch, *args)
    first = json.loads((tmp_path / "strength.json").read_text())
    assert first["command"] == "python scripts/bench_strength.py " + " ".join(args)
    assert first["revision"] and first["rules"]
    rows = first["rows"]
    assert [(r["a"], r["b"]) for r in rows] == [("engine:playouts=30", "random"),
                                                ("engine:playouts=30", "mcts-flat:playouts=30"),
                                                ("engine:playouts=30", "mcts:playouts=30")]
    for r in rows:
        assert r["board"] == "2/3" and r["games"] == 3 and r["a_wins"] + r["b_wins"] + r["draws"] == 3
        assert r["score"] == pytest.approx((r["a_wins"] + r["draws"] / 2) / 3)
    assert "engine:playouts=30" in capsys.readouterr().out
    run_script(script, monkeypatch, *args)
    again = json.loads((tmp_path / "strength.json").read_text())["rows"]
    assert [dict(r, seconds=0) for r in again] == [dict(r, seconds=0) for r in rows]


def test_bad_options_are_one_line_and_exit_2(script, capsys):
    for argv in (["--boards", "9/9"], ["--games", "0"], ["--playouts", "0"]):
        assert script.main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("bench_strength: ") and err.count("\n") == 1
