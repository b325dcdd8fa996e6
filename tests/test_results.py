"""The committed results agree with a fresh solve by the current code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solver import Board, Position
from solver.search.solve import solve

SOLUTIONS = Path(__file__).resolve().parent.parent / "results" / "solutions"


@pytest.mark.parametrize("stem", ["1-2", "2-3"])
def test_committed_solution_is_reproduced(stem):
    data = json.loads((SOLUTIONS / f"{stem}.json").read_text())
    board = Board.parse(data["board"])
    r = solve(Position.start(board))
    assert (data["value"], data["moves"]) == (r.value, r.move_values)
    assert data["verified"] and r.verified
    assert data["command"].startswith("python scripts/solve_boards.py")
    assert (SOLUTIONS / f"{stem}-map.svg").read_text().startswith("<svg")


def test_committed_maps_are_drawn_from_their_files(tmp_path, monkeypatch):
    """Each committed map is the picture of its JSON file in today's drawing: redrawn from
    a copy of the file (``solve_boards.py --redraw``, no search), it is the committed SVG."""
    import shutil

    from conftest import load_script, run_script

    stems = ["1-2", "2-3", "2-3-pie", "3-4-pie"]  # 3-4-map.svg is solve_openings.py's
    for stem in stems:
        shutil.copy(SOLUTIONS / f"{stem}.json", tmp_path)
    mod = load_script("solve_boards", monkeypatch, tmp_path)
    run_script(mod, monkeypatch, "--redraw", "--boards", "1/2,2/3", "--pie", "2/3,3/4")
    for stem in stems:
        assert (tmp_path / f"{stem}-map.svg").read_text() == (SOLUTIONS / f"{stem}-map.svg").read_text(), stem


def test_redraw_of_a_missing_or_corrupt_file_is_one_line(tmp_path, monkeypatch):
    from conftest import load_script, run_script

    mod = load_script("solve_boards", monkeypatch, tmp_path)
    with pytest.raises(SystemExit, match="cannot redraw .*2-3-map.svg"):
        run_script(mod, monkeypatch, "--redraw", "--boards", "2/3", "--pie", "")
    (tmp_path / "2-3.json").write_text('{"moves": [1, 2]}')
    with pytest.raises(SystemExit, match="cannot redraw"):
        run_script(mod, monkeypatch, "--redraw", "--boards", "2/3", "--pie", "")
