"""docs/puzzles.md's tables of results say what the committed results say: the themes per
set and board (results/puzzles/themes.json) and the ratings per set
(results/puzzles/ratings-attempts.json), as ``make_puzzles.py --doc-tables`` writes them."""

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _script(monkeypatch, tmp_path=None):
    spec = importlib.util.spec_from_file_location("make_puzzles", ROOT / "scripts" / "make_puzzles.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if tmp_path is not None:  # a copy of the page and the results, to be rewritten
        for name in ("THEMES_TABLE", "RATINGS_TABLE", "DOC"):
            copy = tmp_path / getattr(mod, name).name
            copy.write_text(getattr(mod, name).read_text())
            monkeypatch.setattr(mod, name, copy)
    monkeypatch.setattr(sys, "argv", ["make_puzzles.py", "--doc-tables"])
    return mod


def test_the_pages_tables_are_the_committed_results(monkeypatch):
    mod = _script(monkeypatch)
    page = (ROOT / "docs" / "puzzles.md").read_text().split("\n")
    themes, ratings = mod.doc_tables()
    sets = json.loads((ROOT / "results" / "puzzles" / "themes.json").read_text())["sets"]
    assert len(themes) == 2 + len(sets) + len({row["board"] for row in sets.values()})
    for table in (themes, ratings):
        start = page.index(table[0])
        assert page[start:start + len(table)] == table, "run python scripts/make_puzzles.py --doc-tables"
        assert not page[start + len(table)].startswith("|")  # and no row the results lack


def test_doc_tables_rewrites_only_the_tables(monkeypatch, tmp_path):
    mod = _script(monkeypatch, tmp_path)
    ratings = json.loads(mod.RATINGS_TABLE.read_text())
    first = next(iter(ratings["sets"]))
    ratings["sets"][first]["max"] = 2750  # as a new run would change it
    mod.RATINGS_TABLE.write_text(json.dumps(ratings))
    before = mod.DOC.read_text().split("\n")
    assert mod.main() == 0
    after = mod.DOC.read_text().split("\n")
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(before) == len(after) and len(changed) == 1
    assert changed[0][1].endswith(" | 2,750 |") and changed[0][1].split(" | ")[:2] == changed[0][0].split(" | ")[:2]


def test_what_the_readme_says_of_the_themes_holds():
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert ("none is on more than half of any committed set, and each is on at least 20 puzzles of each board"
            in readme)
    th = json.loads((ROOT / "results" / "puzzles" / "themes.json").read_text())
    assert th["largest_share"] <= 0.5 and min(th["fewest_per_board"].values()) >= 20
    assert set(th["boards"]) == {"4/5", "5/6", "6/7", "7/8"}


def test_the_pages_largest_theme_share_is_the_results():
    page = " ".join((ROOT / "docs" / "puzzles.md").read_text().split())
    th = json.loads((ROOT / "results" / "puzzles" / "themes.json").read_text())
    share, theme, name = max((s, t, name) for name, row in th["sets"].items() for t, s in row["shares"].items())
    board, n = name[:-len(".jsonl")].rsplit("-c", 1)
    assert f"The largest share is {100 * share:.0f}% (`{theme}`, {board.replace('-', '/')} c{n})" in page
