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


def test_a_match_played_in_parts_combines_into_the_match_of_all_its_games(script, tmp_path, monkeypatch, capsys):
    """Two seeds of the same pairing, then --combine: the counts add up, the Elo is that
    of the total (as match.elo computes it for one match of as many games)."""
    from solver.app.match import elo

    pair = ("--pair", "engine:playouts=20", "random", "--boards", "2/3", "--games", "2")
    run_script(script, monkeypatch, *pair, "--seed", "1", "--out", str(tmp_path / "p1.json"))
    run_script(script, monkeypatch, *pair, "--seed", "2", "--out", str(tmp_path / "p2.json"))
    parts = [json.loads((tmp_path / f"p{i}.json").read_text())["rows"][0] for i in (1, 2)]
    run_script(script, monkeypatch, "--combine", str(tmp_path / "p1.json"), str(tmp_path / "p2.json"),
               "--out", str(tmp_path / "all.json"))
    out = json.loads((tmp_path / "all.json").read_text())
    assert out["command"].startswith("python scripts/bench_strength.py --combine") and len(out["parts"]) == 2
    (row,) = out["rows"]
    assert row["games"] == 4 and row["seeds"] == [1, 2]
    for k in ("a_wins", "b_wins", "draws", "a_light_games"):
        assert row[k] == parts[0][k] + parts[1][k], k
    assert (row["elo"], row["elo_low"], row["elo_high"]) == elo(row["score"], 4)
    capsys.readouterr()
    # the same part twice is not two parts; a missing file is one line
    assert script.main(["--combine", str(tmp_path / "p1.json"), str(tmp_path / "p1.json"), "--out",
                        str(tmp_path / "x.json")]) == 2
    assert "own seed" in capsys.readouterr().err
    assert script.main(["--combine", str(tmp_path / "nope.json"), "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bench_strength: cannot combine") and err.count("\n") == 1
