"""scripts/make_puzzles.py --summary: the per-set figures of issue 36's closing note, from the files."""

import importlib.util
import json
import sys
from pathlib import Path

from puzzles.quality import RATING_BINS, rating_histogram
from puzzles.record import Puzzle
from puzzles.themes import THEMES

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "results" / "puzzles"


def _script():
    spec = importlib.util.spec_from_file_location("make_puzzles", ROOT / "scripts" / "make_puzzles.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _row(out: str, name: str, table: int) -> list[str]:
    """The cells of set ``name``'s row in the ``table``-th table (from 0) of the summary."""
    tables = out.strip().split("\n\n")
    line = next(x for x in tables[table].splitlines() if x.startswith(f"| {name} |"))
    return [c.strip() for c in line.strip("|").split("|")][1:]


def test_summary_counts_yield_ratings_and_themes_of_each_set(tmp_path, monkeypatch, capsys):
    rows = [json.loads(x) for x in (COMMITTED / "5-6-c2.jsonl").read_text().splitlines()[:40]]
    rows[3]["dual_free"] = False
    del rows[5]["rating"]
    (tmp_path / "5-6-c2.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    state = json.loads((COMMITTED / "5-6-c2.jsonl.state.json").read_text())
    (tmp_path / "5-6-c2.jsonl.state.json").write_text(json.dumps(state))
    (tmp_path / "6-7-c1.jsonl").write_text((COMMITTED / "6-7-c1.jsonl").read_text().split("\n", 1)[0] + "\n")
    mod = _script()
    monkeypatch.setattr(mod, "SETS", [("5/6", 2, 500, "selfplay"), ("6/7", 1, 500, "selfplay"),
                                      ("7/8", 1, 500, "selfplay")])
    monkeypatch.setattr(mod, "SETS_DIR", tmp_path)
    monkeypatch.setattr(sys, "argv", ["make_puzzles.py", "--summary"])
    assert mod.main() == 0
    out = capsys.readouterr().out
    assert _row(out, "7/8 c1", 0) == ["0 / 500"] + ["-"] * 5  # asked, no file: a row of its own
    assert out.count("| 7/8 c1 |") == 1  # and no rating histogram or themes
    gen = _row(out, "5/6 c2", 0)
    assert gen[:2] == ["40 / 500", "39 (98%)"]
    assert gen[2] == f"{state['found']} ({state['found_dual_free']})" and gen[3] == str(state["units"])
    assert float(gen[5]) == round(state["found_dual_free"] / state["cpu_seconds"] * 60, 2)
    assert _row(out, "6/7 c1", 0)[2:] == ["-"] * 4  # a set without a state file
    ps = [Puzzle.from_dict(r) for r in rows]
    hist = _row(out, "5/6 c2", 1)
    assert [int(c) for c in hist[:len(RATING_BINS)]] == rating_histogram(ps)[0]
    assert sum(int(c) for c in hist[:len(RATING_BINS) + 1]) == 40 and hist[len(RATING_BINS)] == "1"
    assert _row(out, "5/6 c2", 2) == [str(sum(t in r.get("themes", ()) for r in rows)) for t in THEMES]


def test_summary_sums_the_runs_of_a_set_grown_from_another_source(tmp_path, monkeypatch, capsys):
    (tmp_path / "5-6-c2.jsonl").write_text("".join((COMMITTED / "5-6-c2.jsonl").read_text().splitlines(True)[:5]))
    first = json.loads((COMMITTED / "5-6-c2.jsonl.state.json").read_text())
    now = dict(first, source="parents", method="extend", units=7, candidates=30, cpu_seconds=120.0, found=3,
               found_dual_free=2, near_duplicates=0, earlier=[first])
    del now["playouts"]
    (tmp_path / "5-6-c2.jsonl.state.json").write_text(json.dumps(now))
    mod = _script()
    monkeypatch.setattr(mod, "SETS", [("5/6", 2, 500, "parents")])
    monkeypatch.setattr(mod, "SETS_DIR", tmp_path)
    monkeypatch.setattr(sys, "argv", ["make_puzzles.py", "--summary"])
    assert mod.main() == 0
    gen = _row(capsys.readouterr().out, "5/6 c2", 0)
    assert gen[2] == f"{first['found'] + 3} ({first['found_dual_free'] + 2})"
    assert gen[3] == f"{first['units']} selfplay + 7 parents"
    assert gen[4] == f"{first['cpu_seconds'] + 120:,.0f}"
    assert float(gen[5]) == round((first["found_dual_free"] + 2) / (first["cpu_seconds"] + 120) * 60, 2)
