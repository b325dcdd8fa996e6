"""The alpha-beta solver against plain minimax written on the networkx reference rules.

The minimax here shares nothing with the solver but the board geometry: it plays the
moves of solver.reference, counts a repetition of a position on the current path as a
draw (RULES.md), and has no table, no symmetry and no pruning beyond stopping at a win.
"""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from solver import Board, Position
from solver import reference as R
from solver.cli import cli
from solver.search.solve import solve

VALUE = {1: "win", 0: "draw", -1: "loss"}


def minimax(board, light, dark, side, path=()) -> int:
    """Value for the player to move: 1 win, 0 draw, -1 loss."""
    key = (light, dark, side)
    if key in path:
        return 0
    result = R.outcome(board, light, dark, side)
    if result is not None:
        return 1 if result == side else -1
    best = -1
    for p in R.legal_moves(board, light, dark, side):
        child = R.play(board, light, dark, side, p)
        best = max(best, -minimax(board, *child, path + (key,)))
        if best == 1:
            break
    return best


def reference_of(pos: Position):
    b = pos.board
    light = frozenset(b.index(x) for x in pos.stones("L"))
    dark = frozenset(b.index(x) for x in pos.stones("D"))
    return light, dark, pos.to_move


def random_position(board: Board, plies: int, seed: int) -> Position:
    rng = random.Random(seed)
    pos = Position.start(board)
    for _ in range(plies):
        if pos.outcome is not None:
            break
        pos = pos.play(rng.choice(pos.legal_moves()))
    return pos


def check_against_minimax(pos: Position) -> None:
    board = pos.board
    r = solve(pos)
    light, dark, side = reference_of(pos)
    assert r.value == VALUE[minimax(board, light, dark, side)], str(pos)
    for move, value in r.moves.items():
        child = R.play(board, light, dark, side, board.index(move))
        # the child's value for its own player to move, with the root on the path
        v = minimax(board, *child, ((light, dark, side),))
        assert value == VALUE[-v], (str(pos), move)
    assert r.verified


def test_every_first_move_of_1_2():
    pos = Position.start(Board.parse("1/2"))
    check_against_minimax(pos)
    assert solve(pos).value == "loss"  # the second stone never has a point on 1/2


@pytest.mark.parametrize("seed", range(12))
def test_2_3_positions_a_few_plies_in(seed):
    pos = random_position(Board.parse("2/3"), 4 + seed % 3, seed)
    if pos.outcome is None:
        check_against_minimax(pos)
    else:
        assert solve(pos).value == ("win" if pos.outcome == pos.to_move else "loss")


def test_principal_line_replays_to_the_claimed_result():
    board = Board.parse("2/3")
    r = solve(Position.start(board))
    assert r.value == "win"
    light, dark, side = frozenset(), frozenset(), "L"
    for m in r.line:
        assert board.index(m) in R.legal_moves(board, light, dark, side)
        light, dark, side = R.play(board, light, dark, side, board.index(m))
    assert R.outcome(board, light, dark, side) == "L"


def test_solve_command_json_matches_the_library():
    out = CliRunner().invoke(cli, ["solve", "2/3", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    r = solve(Position.start(Board.parse("2/3")))
    assert data["value"] == r.value and data["moves"] == r.moves
    assert set(data) >= {"value", "moves", "nodes", "seconds", "line"}


def test_solve_command_writes_a_map(tmp_path):
    import xml.etree.ElementTree as ET

    f = tmp_path / "map.svg"
    out = CliRunner().invoke(cli, ["solve", "2/3", "--map", str(f)])
    assert out.exit_code == 0, out.output
    root = ET.fromstring(f.read_text())
    classes = [el.get("class", "") for el in root.iter()]
    assert sum(c.startswith("value ") for c in classes) == 14


def test_node_budget_gives_unknown_not_a_guess():
    r = solve(Position.start(Board.parse("3/4")), max_nodes=200, verify=False)
    assert r.value == "unknown"
    assert "unknown" in r.moves.values()
