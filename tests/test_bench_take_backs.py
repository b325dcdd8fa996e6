"""scripts/bench_take_backs.py: both sides measured on the same parents, the one-point side
being the extend generator without take-backs, or (``--budget``) today's node budget
against a larger one; bad options refused in one line."""
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from puzzles.generate import extend_unit
from puzzles.record import load_jsonl

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_take_backs.py"
SETS = Path(__file__).resolve().parent.parent / "results" / "puzzles"


@pytest.fixture()
def bench(monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_take_backs", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def run(*argv):
        monkeypatch.setattr(sys, "argv", ["bench_take_backs.py", *argv])
        return mod.main()
    return run


def test_both_sides_run_the_same_parents_and_only_the_take_backs_differ(bench, tmp_path, capsys):
    out = tmp_path / "tb.json"
    # 4/5 c2's first 56 puzzles: some of them can be taken back (the 53rd: five pairs)
    assert bench("--set", "4-5-c2", "--parents", "56", "--jobs", "1", "--out", str(out)) == 0
    d = json.loads(out.read_text())
    assert d["command"].startswith("python scripts/bench_take_backs.py --set 4-5-c2") and d["set"] == "4-5-c2"
    parents = load_jsonl(SETS / "4-5-c2.jsonl")[:56]
    plain = [extend_unit(p.to_position().board, 3, 0, "t", source=("parents", p), fast=True, take_back=False)
             for p in parents]
    assert d["one_point"]["parents"] == d["take_backs"]["parents"] == 56
    assert d["one_point"]["candidates"] == sum(r.candidates for r in plain)
    assert d["one_point"]["dual_free"] == sum(len(r.puzzles) for r in plain)
    assert d["take_backs"]["candidates"] != d["one_point"]["candidates"], "take-backs were tried"
    assert "take_backs/one_point:" in capsys.readouterr().out


def test_the_budget_sides_differ_only_in_the_budget(bench, tmp_path, capsys, monkeypatch):
    from puzzles import generate as G

    # today's budget made tiny, so that some children of 4/5 c2's puzzles run out of it
    monkeypatch.setitem(G.BUDGET, 3, 3_000)
    out = tmp_path / "b.json"
    assert bench("--set", "4-5-c2", "--parents", "20", "--jobs", "1", "--budget", "600000", "--out", str(out)) == 0
    d = json.loads(out.read_text())
    assert d["budget"] == 600_000 and d["budget_today"] == 3_000
    parents = load_jsonl(SETS / "4-5-c2.jsonl")[:20]
    for side, budget in (("today", None), ("larger", 600_000)):
        runs = [extend_unit(p.to_position().board, 3, 0, "t", source=("parents", p), fast=True, budget=budget)
                for p in parents]
        assert d[side]["candidates"] == sum(r.candidates for r in runs)
        assert d[side]["dual_free"] == sum(len(r.puzzles) for r in runs)
    assert d["today"]["verdicts"].get("budget", 0) > d["larger"]["verdicts"].get("budget", 0)
    assert "larger/today:" in capsys.readouterr().out
    assert bench("--set", "4-5-c2", "--parents", "2", "--budget", "3000") == 2
    assert capsys.readouterr().err == "bench_take_backs: --budget 3,000 is not larger than today's 3,000\n"


@pytest.mark.parametrize("argv,message", [
    (["--parents", "0"], "--parents must be a whole number from 1 to 10,000, not 0"),
    (["--jobs", "9"], "--jobs must be a whole number from 1 to 8, not 9"),
    (["--set", "9-9-c1"], "--set 9-9-c1: no such committed set (results/puzzles/9-9-c1.jsonl)"),
    (["--set", "4-5-c1"], "--set 4-5-c1: take-backs need parents of 2 moves or more"),
    (["--budget", "10"], "--budget must be a whole number from 1,000 to 1,000,000,000, not 10"),
])
def test_a_bad_option_is_refused_in_one_line_with_exit_code_2(bench, tmp_path, capsys, argv, message):
    out = tmp_path / "tb.json"
    assert bench(*argv, "--out", str(out)) == 2
    assert capsys.readouterr().err == f"bench_take_backs: {message}\n" and not out.exists()
