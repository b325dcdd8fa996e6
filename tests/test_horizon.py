"""The horizon search against the alpha-beta solver and a brute-force minimax on the
networkx reference rules.

The brute force shares nothing with the search but the board geometry: it plays the
moves of solver.reference with a bound on the plies, a repetition of a position on the
current line counting as a failure of the prover (RULES.md: a draw).
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Board, Position
from solver.rules import core
from solver.reference import rules as R
from solver.rules.randomgame import random_game
from solver.search import horizon as hz
from solver.search.horizon import LOSS, UNKNOWN, VALUE_NAMES, WIN, shortest_win, solve_horizon
from solver.search.solve import solve

from refplay import random_position, reference_of, replay_line

B12, B23 = Board.parse("1/2"), Board.parse("2/3")
DEEP = 60  # more than any shortest win or loss of a 2/3 position needs


# --- the brute force -----------------------------------------------------------------------
@cache
def _moves(m, light, dark, side):
    return tuple(R.legal_moves(Board.get(m), light, dark, side))


@cache
def _play(m, light, dark, side, p):
    return R.play(Board.get(m), light, dark, side, p)


@cache
def _outcome(m, light, dark, side):
    return R.outcome(Board.get(m), light, dark, side)


def ref_win_within(m, light, dark, side, prover, depth, path=()) -> bool:
    """Can ``prover`` ('L'/'D') force a win within ``depth`` plies?  Plain minimax."""
    key = (light, dark, side)
    if key in path:
        return False
    result = _outcome(m, light, dark, side)
    if result is not None:
        return result == prover
    if depth == 0:
        return False
    path = path + (key,)
    children = (
        ref_win_within(m, *_play(m, light, dark, side, p), prover, depth - 1, path)
        for p in _moves(m, light, dark, side)
    )
    return any(children) if side == prover else all(children)


def other(c: str) -> str:
    return "D" if c == "L" else "L"


def check_line(pos: Position, r: hz.HorizonResult) -> None:
    """The principal line replayed on the reference ends in the claimed result after
    exactly the claimed number of plies, and not before."""
    winner = pos.to_move if r.value == WIN else other(pos.to_move)
    assert len(r.line) == r.plies, (str(pos), r)
    assert replay_line(pos, r.line) == winner, (str(pos), r.line)


# --- agreement with alpha-beta -------------------------------------------------------------
@pytest.mark.parametrize("board", [B12, B23], ids=["1/2", "2/3"])
def test_every_first_move_agrees_with_alphabeta(board):
    root = Position.start(board)
    values = solve(root).move_values  # for the player who made the move
    for move, value in values.items():
        child = root.play(move)
        r = solve_horizon(child, DEEP, path=[root])
        assert r.value != UNKNOWN, move
        # the child's value is for its own player to move
        assert VALUE_NAMES[-r.value] == value, move
        check_line(child, r)


def test_empty_boards():
    r = solve_horizon(Position.start(B12), 10)
    assert (r.value, r.plies, r.line) == (LOSS, 2, ["a1", "b1"])
    r = solve_horizon(Position.start(B23), DEEP)
    assert (r.value, r.plies) == (WIN, 14)
    check_line(Position.start(B23), r)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32), plies=st.integers(1, 14))
def test_random_2_3_positions_agree_with_alphabeta(seed, plies):
    pos = random_position(B23, plies, seed)
    r = solve_horizon(pos, DEEP)
    if pos.outcome is not None:
        assert r.plies == 0 and r.value == (WIN if pos.outcome == pos.to_move else LOSS)
        return
    v = solve(pos, verify=False).value
    if v in ("win", "loss"):
        assert VALUE_NAMES[r.value] == v, str(pos)  # a 2/3 position is always decided
        check_line(pos, r)
    else:
        assert r.value == UNKNOWN, str(pos)  # a draw is never a forced win or loss


# --- shortest wins are shortest ------------------------------------------------------------
def check_minimal(pos: Position, horizon: int) -> hz.HorizonResult:
    r = solve_horizon(pos, horizon)
    light, dark, side = reference_of(pos)
    brute = lambda prover, d: ref_win_within(pos.board.m, light, dark, side, prover, d)
    if r.value == UNKNOWN:
        assert r.depth == horizon
        # neither side forces a result within the horizon
        assert not brute(side, horizon) and not brute(other(side), horizon), str(pos)
        return r
    winner = side if r.value == WIN else other(side)
    assert brute(winner, r.plies), str(pos)
    if r.plies > 0:
        assert not brute(winner, r.plies - 1), str(pos)
        # the other side has no faster win (a win is looked for before a loss)
        assert not brute(other(winner), r.plies - (r.value == WIN)), str(pos)
    check_line(pos, r)
    return r


@settings(max_examples=12)
@given(seed=st.integers(0, 2**32))
def test_shortest_wins_are_minimal(seed):
    # the last positions of a random game, where forced results are short
    game = list(random_game(B23, seed))
    for pos in game[-8:]:
        check_minimal(pos, 6)


def test_shortest_wins_are_minimal_on_1_2():
    for seed in range(5):
        for pos in random_game(B12, seed):
            r = check_minimal(pos, 4)
            assert r.value != UNKNOWN


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32), back=st.integers(1, 10), prover=st.sampled_from("LD"))
def test_shortest_win_of_either_prover_against_brute_force(seed, back, prover):
    game = list(random_game(B23, seed))
    pos = game[max(0, len(game) - 1 - back)]
    r = shortest_win(pos, 6, prover=prover)
    light, dark, side = reference_of(pos)
    if r.plies is None:
        assert r.depth == 6 and not ref_win_within(2, light, dark, side, prover, 6), str(pos)
    else:
        assert r.depth == r.plies
        assert ref_win_within(2, light, dark, side, prover, r.plies), str(pos)
        assert r.plies == 0 or not ref_win_within(2, light, dark, side, prover, r.plies - 1), str(pos)


# --- the table and the budget --------------------------------------------------------------
@pytest.mark.parametrize(
    "tt_mb, options",
    [(0, {}), (64, {"use_table": False}), (64, {"use_symmetry": False}), (64, {"use_ordering": False})],
    ids=["one bucket", "no table", "no symmetry", "no ordering"],
)
def test_table_size_and_options_do_not_change_results(tt_mb, options):
    t = core.tables(B23)
    for seed in range(20):
        pos = random_position(B23, 3 + seed % 9, seed)
        if pos.outcome is not None:
            continue
        H = hz.new_horizon(t, tt_mb, **options)
        assert H.tt_key.shape[0] >= 4
        for prover in ("L", "D"):
            want = shortest_win(pos, 9, prover=prover)
            assert shortest_win(pos, 9, prover=prover, H=H).plies == want.plies, str(pos)


def test_node_budget_gives_unknown_not_a_guess():
    pos = Position.start(B23)
    r = solve_horizon(pos, DEEP, max_nodes=500)
    assert r.value == UNKNOWN and r.depth < 14 and r.line == []
    s = shortest_win(pos, DEEP, max_nodes=500)
    assert s.plies is None and s.depth < 14


def test_repetition_of_the_game_history_is_not_a_win():
    root = Position.start(B23)
    r = solve_horizon(root, DEEP)
    game = [root]
    for m in r.line[:4]:
        game.append(game[-1].play(m))
    pos = game[-1]
    # both sides played their best: the win is 4 plies closer
    assert shortest_win(pos, DEEP, path=game[:-1]).plies == r.plies - 4
    # a position that repeats one of the game is a draw: no win at any horizon
    t = core.tables(B23)
    H = hz.new_horizon(t)
    other_side = pos.play(pos.legal_moves()[0])
    assert hz.search(H, t, [pos, other_side, pos], pos.side_index, 30) == hz.FAIL
    assert shortest_win(pos, 30, path=[pos, other_side]).plies is None


def test_finished_positions():
    pos = Position.start(B12).play("a1").play("b1")  # Light has no point for a second stone
    assert pos.outcome == "D"
    r = solve_horizon(pos, 3)
    assert (r.value, r.plies, r.line) == (LOSS, 0, [])
    assert shortest_win(pos, 3, prover="D").plies == 0
    s = shortest_win(pos, 3, prover="L")
    assert s.plies is None and s.depth == 3
