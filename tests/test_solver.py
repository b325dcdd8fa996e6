"""The alpha-beta solver against plain minimax written on the networkx reference rules
(tests/refplay.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Board, Position
from solver.rules import core
from solver.reference import rules as R
from solver.search import alphabeta as ab
from solver.rules.randomgame import random_game
from solver.search.solve import solve, solve_value
from solver.search.limit import Limit

from refplay import VALUE, minimax, random_position, reference_of


def check_against_minimax(pos: Position) -> None:
    board = pos.board
    r = solve(pos)
    light, dark, side = reference_of(pos)
    assert r.value == VALUE[minimax(board, light, dark, side)], str(pos)
    for move, value in r.move_values.items():
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


def test_solve_command_json_matches_the_library(run_cli):
    data = json.loads(run_cli("solve", "2/3", "--json", code=0).stdout)
    r = solve(Position.start(Board.parse("2/3")))
    assert data["value"] == r.value and data["moves"] == r.move_values
    assert set(data) >= {"value", "moves", "nodes", "seconds", "line"}


def test_solve_command_writes_a_map(tmp_path, run_cli):
    import xml.etree.ElementTree as ET

    f = tmp_path / "map.svg"
    run_cli("solve", "2/3", "--map", f, code=0)
    root = ET.fromstring(f.read_text())
    classes = [el.get("class", "") for el in root.iter()]
    assert sum(c.startswith("value ") for c in classes) == 14


def test_node_budget_gives_unknown_not_a_guess():
    r = solve(Position.start(Board.parse("3/4")), Limit(nodes=200), verify=False)
    assert r.value == "unknown"
    assert "unknown" in r.move_values.values()


def test_the_effort_is_the_move_searches_not_the_line():
    # the results files' nodes and tt_hits count the searches of the moves; the line's
    # walk through the table after them is not in them
    start = Position.start(Board.parse("2/3"))
    r, bare = solve(start), solve(start, line_plies=0)
    assert r.line and not bare.line and r.value == bare.value == "win"
    assert (r.nodes, r.stats) == (bare.nodes, bare.stats)


# --- move ordering -------------------------------------------------------------------------
def test_inverse_symmetries_undo_the_cell_maps():
    for board in (Board.parse("2/3"), Board.parse("3/4"), Board.parse("6/7")):
        t = core.tables(board)
        unsym = ab.inverse_symmetries(t)
        for s in range(t.sym.shape[0]):
            cells = t.cell_of
            assert (unsym[s, t.sym[s, cells]] == cells).all()
            assert (t.sym[s, unsym[s, cells]] == cells).all()


def _canonical_sym(pos: Position) -> tuple[int, int]:
    keys = pos.zobrist_symmetric()
    return int(keys.min()), int(keys.argmin())


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 12), s1=st.integers(0, 3))
def test_table_moves_map_back_through_the_symmetry(seed, plies, s1):
    # a move stored in canonical orientation from one position, read back in a
    # symmetric position, is the same move up to the symmetry
    board = Board.parse("3/4")
    pos = random_position(board, plies, seed)
    if pos.outcome is not None:
        return
    t = core.tables(board)
    unsym = ab.inverse_symmetries(t)
    image = pos.transform(s1)
    canon, s = _canonical_sym(pos)
    canon2, s2 = _canonical_sym(image)
    assert canon == canon2
    for m in pos.legal_moves():
        stored = t.sym[s, t.cell_of[board.index(m)]]     # as negamax stores it
        back = board.name_of(int(t.point_of[unsym[s2, stored]]))  # as negamax reads it
        assert back in image.legal_moves()
        assert _canonical_sym(image.play(back))[0] == _canonical_sym(pos.play(m))[0]


def check_tactical_moves(pos: Position) -> int:
    """tactical_moves against its definition on the Position API; returns how many."""
    t = core.tables(pos.board)
    me, opp = pos.to_move, "D" if pos.to_move == "L" else "L"
    legal = tuple(np.uint64(x) for x in core.legal_bb(t, pos.bitboards, pos.side_index))
    bb = ab.tactical_moves(t, pos.bitboards, pos.side_index, legal, core.new_position(t))
    cells = [64 * i + b for i, word in enumerate(bb) for b in range(64) if int(word) >> b & 1]
    got = {pos.board.name_of(int(t.point_of[x])) for x in cells}
    want = set()
    if len(pos.stones(me)) >= 2:
        dead = set().union(*pos.dead_groups(me))
        for m in pos.legal_moves():
            child = pos.play(m)
            if not child.stones(me):
                continue  # the mover lost
            killed = len(pos.stones(opp)) >= 2 and child.dead_groups(opp)
            if killed or dead & child.stones(me):
                want.add(m)
    assert got == want, str(pos)
    return len(got)


@settings(max_examples=6)
@given(seed=st.integers(0, 2**32), board=st.sampled_from(["2/3", "3/4", "4/5"]))
def test_tactical_moves_kill_or_save_groups(seed, board):
    found = 0
    for pos in random_game(Board.parse(board), seed):
        if pos.outcome is None:
            found += check_tactical_moves(pos)
    assert found > 0 or board == "2/3"


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 10))
def test_move_ordering_never_changes_a_value(seed, plies):
    board = Board.parse("2/3")
    pos = random_position(board, plies, seed)
    if pos.outcome is not None:
        return
    t = core.tables(board)
    values = set()
    for ordering in (0, ab.ORDER_TABLE, ab.ORDER_TACTICAL, ab.ORDER_KILLERS, ab.ORDER_HISTORY, ab.ORDER_ALL,
                     ab.ORDER_ALL | ab.ORDER_ETC, ab.ORDER_ETC):
        for table in (True, False):
            S = ab.new_search(t, 4, use_table=table, use_ordering=ordering)
            values.add(solve_value(S, t, [pos])[0])
    assert len(values) == 1, str(pos)


def test_move_ordering_searches_fewer_nodes():
    board = Board.parse("2/3")
    t = core.tables(board)
    nodes = {}
    for ordering in (False, True):
        S = ab.new_search(t, 16, use_ordering=ordering)
        assert solve_value(S, t, [Position.start(board)])[0] == ab.WIN
        nodes[ordering] = int(S.stats[ab.NODES])
    assert nodes[True] * 2 < nodes[False]


def test_enhanced_transposition_cutoffs_save_nodes_and_keep_values():
    board = Board.parse("2/3")
    t = core.tables(board)
    nodes = {}
    for ordering in (0, ab.ORDER_ETC):
        S = ab.new_search(t, 16, use_ordering=ordering)
        assert solve_value(S, t, [Position.start(board)])[0] == ab.WIN
        nodes[ordering] = int(S.stats[ab.NODES])
    assert nodes[ab.ORDER_ETC] < nodes[0]
