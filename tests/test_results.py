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
    assert (data["value"], data["moves"]) == (r.value, r.moves)
    assert data["verified"] and r.verified
    assert data["command"].startswith("python scripts/solve_boards.py")
    assert (SOLUTIONS / f"{stem}-map.svg").read_text().startswith("<svg")
