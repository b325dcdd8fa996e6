"""Perft of the compiled core against counts computed by the reference.

tests/data/perft.json is written by ``python scripts/make_test_data.py`` with
:func:`solver.reference.perft` only.  Perft counts the leaves of the move tree; a
finished position counts 0 at depth >= 1 and repetition is ignored.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from solver import Position
from solver.rules import core
from solver.reference import rules as R

DATA = json.loads((Path(__file__).parent / "data" / "perft.json").read_text(encoding="utf-8"))
ENTRIES = DATA["perft"]
#: the installed ``meridians`` command (beside this Python), else the module
_SCRIPT = shutil.which("meridians", path=str(Path(sys.executable).parent))
MERIDIANS = [_SCRIPT] if _SCRIPT else [sys.executable, "-m", "solver.cli"]
CASES = [(e, d) for e in ENTRIES for d in range(len(e["counts"]))]


def case_id(case) -> str:
    entry, depth = case
    return f"{entry['board']}-{entry['source'].replace(' ', '_')}-d{depth}"


def test_data_file():
    assert DATA["computed_with"] == "solver.reference"
    boards = {e["board"] for e in ENTRIES}
    assert {"1/2", "2/3", "3/4", "4/5", "5/6", "6/7"} <= boards
    starts = {e["board"]: e["counts"] for e in ENTRIES if e["source"] == "start"}
    assert set(starts) == {"1/2", "2/3", "3/4", "4/5"}
    # hand-checked values: 14 first stones, 14 * 13 replies, and (test_reference.py) 452;
    # on 1/2 no second stone ever has a path, so the game ends after two plies
    assert starts["2/3"][:4] == [1, 14, 182, 452]
    assert starts["1/2"][:4] == [1, 4, 12, 0]
    assert starts["3/4"][:3] == [1, 30, 30 * 29]
    assert starts["4/5"][:3] == [1, 52, 52 * 51]
    for e in ENTRIES:
        assert e["counts"][0] == 1


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_core_perft(case):
    entry, depth = case
    pos = Position.parse(entry["position"])
    assert pos.board.name == entry["board"]
    assert str(pos) == entry["position"]
    assert core.run_perft(pos.board, pos.bitboards, pos.side_index, depth) == entry["counts"][depth]


def api_perft(pos: Position, depth: int) -> int:
    """Perft through the public API.  Repetition cannot happen within three plies (a
    player cannot restore their own stones in one move, and odd plies change the side),
    so Position's repetition rule does not interfere at these depths."""
    if depth == 0:
        return 1
    return sum(api_perft(pos.play(m), depth - 1) for m in pos.legal_moves())


SMALL = [(e, d) for e, d in CASES if d <= 3 and e["counts"][d] <= 6000]


@pytest.mark.parametrize("case", SMALL, ids=[case_id(c) for c in SMALL])
def test_api_perft(case):
    entry, depth = case
    assert api_perft(Position.parse(entry["position"]), depth) == entry["counts"][depth]


def test_perft_of_finished_positions():
    # Dark's second stone has no point seeing d2 across an empty point: Light has won
    pos = Position.parse("2/1D1/4/L1L/2 D")
    assert pos.outcome == "L"
    assert [core.run_perft(pos.board, pos.bitboards, pos.side_index, d) for d in range(3)] == [1, 0, 0]
    ref = (frozenset(pos.board.index(n) for n in pos.stones("L")), frozenset(pos.board.index(n) for n in pos.stones("D")), "D")
    assert [R.perft(pos.board, *ref, d) for d in range(3)] == [1, 0, 0]


# -- the command ---------------------------------------------------------------------------


def test_cli_perft_prints_the_count(run_cli):
    result = run_cli("perft", "2/3", "3", code=0)
    assert result.stdout.strip().splitlines()[-1] == "452"


def test_cli_perft_on_a_position(run_cli):
    entry = next(e for e in ENTRIES if e["board"] == "3/4" and e["source"] != "start")
    result = run_cli("perft", entry["position"], "2", code=0)
    assert result.stdout.strip() == str(entry["counts"][2])


def test_cli_perft_divide(run_cli):
    # the count below each first move, against the reference's perft of each child
    result = run_cli("perft", "2/3", "3", "--divide", code=0)
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "452"
    pos = Position.parse("2/3/4/3/2 L")
    divide = dict(line.split(": ") for line in lines[:-1])
    assert list(divide) == pos.legal_moves()
    e = frozenset()
    for move, count in divide.items():
        child = R.play(pos.board, e, e, "L", pos.board.index(move))
        assert int(count) == R.perft(pos.board, *child, 2), move
    assert sum(int(c) for c in divide.values()) == 452


@pytest.mark.subprocess
def test_meridians_perft_command(tree_env):
    # the installed entry point, in a fresh process: count on stdout, timing on stderr
    proc = subprocess.run([*MERIDIANS, "perft", "1/2/1 L", "2"], capture_output=True, text=True, timeout=300,
                          env=tree_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "12\n"
    assert "perft(2) = 12" in proc.stderr
