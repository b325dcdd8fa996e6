"""Position notation (solver/rules/notation.py through Position.parse / str(Position)).

docs/formats.md ("Position notation"): ``<rows> <side>``, the rows from the top row to the bottom row separated by
``/``; within a row, left to right, ``L``, ``D`` or a number ``k`` of empty points;
``<side>`` is ``L`` or ``D``.  The board is inferred from the row widths.
"""

from __future__ import annotations


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Board, InvalidPositionError, NotationError, Position
from solver.rules.board import MAX_M, MIN_M
from solver.rules.notation import format_position, parse_position
from solver.rules.randomgame import random_game

MS = list(range(MIN_M, MAX_M + 1))


def encode(board: Board, light, dark, side: str) -> str:
    """The notation, written independently of solver.rules.notation: from the row letters."""
    rows = []
    for i in reversed(range(2 * board.m + 1)):  # top row first
        row_letter = chr(ord("a") + i)
        width = sum(1 for n in board.names if n[0] == row_letter)
        text, run = "", 0
        for x in range(1, width + 1):
            name = f"{row_letter}{x}"
            stone = "L" if name in light else "D" if name in dark else None
            if stone is None:
                run += 1
                continue
            text += (str(run) if run else "") + stone
            run = 0
        rows.append(text + (str(run) if run else ""))
    return "/".join(rows) + " " + side


# -- round trips -------------------------------------------------------------------------


@pytest.mark.parametrize("m", MS, ids=lambda m: f"{m}/{m + 1}")
def test_round_trip_on_random_games(m):
    count = 0
    for seed in range(6):
        for pos in random_game(Board.get(m), seed):
            s = str(pos)
            assert s == encode(pos.board, pos.stones("L"), pos.stones("D"), pos.to_move)
            again = Position.parse(s)
            assert str(again) == s
            assert again == pos and hash(again) == hash(pos)
            assert again.stones("L") == pos.stones("L") and again.stones("D") == pos.stones("D")
            assert again.to_move == pos.to_move
            count += 1
    assert count > 6


@pytest.mark.parametrize(
    "m,start",
    [
        (1, "1/2/1 L"),
        (2, "2/3/4/3/2 L"),
        (3, "3/4/5/6/5/4/3 L"),
        (4, "4/5/6/7/8/7/6/5/4 L"),
        (5, "5/6/7/8/9/10/9/8/7/6/5 L"),
        (6, "6/7/8/9/10/11/12/11/10/9/8/7/6 L"),
        (7, "7/8/9/10/11/12/13/14/13/12/11/10/9/8/7 L"),
    ],
)
def test_start_positions(m, start):
    assert str(Position.start(Board.get(m))) == start
    pos = Position.parse(start)
    assert pos.board == Board.get(m) and pos == Position.start(m)
    assert pos.stones("L") == pos.stones("D") == frozenset()
    dark = start[:-1] + "D"
    assert Position.parse(dark).to_move == "D" and str(Position.parse(dark)) == dark


# -- hand-written positions ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text,light,dark,side",
    [
        # 2/3 rows top to bottom: e1 e2 / d1 d2 d3 / c1 c2 c3 c4 / b1 b2 b3 / a1 a2
        ("2/1D1/4/L2/2 D", "b1", "d2", "D"),
        ("1D/3/L3/3/2 L", "c1", "e2", "L"),
        ("D1/3/3L/3/2 L", "c4", "e1", "L"),
        ("2/3/L1L1/1D1/DD D", "c1 c3", "b2 a1 a2", "D"),
        ("D1/D2/L1L1/1D1/D1 L", "c1 c3", "e1 d1 b2 a1", "L"),  # Dark d1-b2 across c2
        ("1/2/1 L", "", "", "L"),
        ("L/2/1 D", "c1", "", "D"),
        ("1/L1/D L", "b1", "a1", "L"),
        # 3/4: rows g (3) f (4) e (5) d (6) c (5) b (4) a (3)
        ("3/4/5/2L3/5/4/3 D", "d3", "", "D"),
        ("L2/4/5/6/5/4/2D L", "g1", "a3", "L"),
        ("3/3D/5/L5/5/4/3 L", "d1", "f4", "L"),
        # 6/7: g is the middle row of 12, m the top row, a the bottom row
        ("6/7/8/9/10/11/L10D/11/10/9/8/7/6 L", "g1", "g12", "L"),
        ("5L/7/8/9/10/11/12/11/10/9/8/7/D5 D", "m6", "a1", "D"),
        ("6/7/8/9/10/11/12/11/10/9/8/7/6 D", "", "", "D"),
        # 7/8: 15 rows, the middle row h has 14 points
        ("7/8/9/10/11/12/13/6LD6/13/12/11/10/9/8/7 L", "h7", "h8", "L"),
    ],
)
def test_parse_hand_written(text, light, dark, side):
    pos = Position.parse(text)
    assert pos.stones("L") == frozenset(light.split())
    assert pos.stones("D") == frozenset(dark.split())
    assert pos.to_move == side
    assert str(pos) == text
    board, lt, dk, sd = parse_position(text)
    assert board == pos.board and sd == side
    assert {board.name_of(p) for p in lt} == set(light.split())
    assert {board.name_of(p) for p in dk} == set(dark.split())
    assert format_position(board, lt, dk, sd) == text


def test_parse_position_board_inference():
    for m in MS:
        board = Board.get(m)
        text = "/".join(map(str, board.row_widths)) + " L"
        assert parse_position(text)[0] is board


# -- rejections ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,fragment",
    [
        # wrong number of rows
        ("2/3/4/3 L", "rows"),
        ("2 L", "rows"),
        ("2/3/4/3/2/1/1 L", "do not match"),
        ("9/10/11/12/13/14/15/16/17/18/17/16/15/14/13/12/11/10/9 L", "unsupported"),
        ("8/9/10/11/12/13/14/15/16/15/14/13/12/11/10/9/8 L", "unsupported"),
        # wrong row width
        ("2/3/5/3/2 L", "do not match"),
        ("2/3/3/3/2 L", "do not match"),
        ("2/3/L4/3/2 L", "do not match"),
        ("2/3/4/3/LLL L", "do not match"),
        ("3/3/4/3/2 L", "do not match"),
        ("2/3/1111/3/2 L", "do not match"),  # digits run together: one number, 1111
        ("1/3/1 L", "do not match"),
        # bad characters
        ("2/3/4/3/x2 L", "'x'"),
        ("2/3/4/3/2. L", "'.'"),
        ("2/3/-4/3/2 L", "'-'"),
        ("2/3/4/3/+2 L", "'\\+'"),
        ("2/3/O3/3/2 L", "'O'"),
        ("2/3/4/3/2\\ L", "expected L, D or a number"),
        ("2;3;4;3;2 L", "';'"),
        # lowercase stones
        ("2/3/l3/3/2 L", "'l'"),
        ("2/3/d3/3/2 L", "'d'"),
        # "0" counts and leading zeros
        ("2/3/04/3/2 L", "'0'"),
        ("2/3/0/3/2 L", "'0'"),
        ("2/3/L0D2/3/2 L", "'0'"),
        # empty rows
        ("2/3//3/2 L", "empty"),
        ("/3/4/3/2 L", "empty"),
        ("2/3/4/3/ L", "empty"),
        ("2/3/4/3/2/ L", "empty"),
        # missing, bad or extra side fields
        ("2/3/4/3/2", "<rows> <side>"),
        ("", "<rows> <side>"),
        ("   ", "<rows> <side>"),
        ("2/3/4/3/2 X", "side to move"),
        ("2/3/4/3/2 l", "side to move"),
        ("2/3/4/3/2 d", "side to move"),
        ("2/3/4/3/2 LD", "side to move"),
        ("2/3/4/3/2 -", "side to move"),
        ("2/3/4/3/2 L 0", "<rows> <side>"),
        ("2/3/4/3/2 L D", "<rows> <side>"),
        ("2/3/4/3/2 L extra", "<rows> <side>"),
        ("2/3 /4/3/2 L", "<rows> <side>"),
    ],
)
def test_malformed_positions_rejected(text, fragment):
    with pytest.raises(NotationError, match=fragment) as e:
        Position.parse(text)
    assert isinstance(e.value, ValueError)
    message = str(e.value)
    assert message and "\n" not in message
    with pytest.raises(NotationError):
        parse_position(text)


def test_huge_count_is_a_notation_error():
    # BUG (solver/rules/notation.py): the run of empty points is expanded into a list before
    # the row width is checked, so a count too big for a list raises OverflowError (not
    # a ValueError: the command then prints a traceback and exits 1)
    with pytest.raises(NotationError, match="row"):
        Position.parse("2/3/99999999999999999999/3/2 L")


def test_long_count_is_rejected_without_building_the_row():
    # BUG (solver/rules/notation.py), the same cause: "2/3/100000000/3/2 L" takes 1.6 GB before
    # it is rejected, and a count of 10**9 exhausts memory.  A wrong row width should be
    # rejected from the counts alone.
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(NotationError, match="row 3 from the top counts '10000000'"):
            Position.parse("2/3/10000000/3/2 L")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8_000_000, f"parsing a 10**7 run allocated {peak / 1e6:.0f} MB"


@pytest.mark.parametrize("value", [None, 42, b"2/3/4/3/2 L", ["2/3/4/3/2", "L"]])
def test_non_strings_rejected(value):
    with pytest.raises(NotationError, match="string"):
        Position.parse(value)


@pytest.mark.parametrize(
    "text,dead",
    [
        # Light c1 and c3, cut apart by Dark c2: both dead, and Light is not to move
        ("1D/3/LDL1/3/2 D", "c1, c3"),
        # Light c1 c2, one group of two stones: dead
        ("1D/3/LL2/3/2 D", "c1, c2"),
        # Dark a1 a2 b2, one group, Dark not to move
        ("L1/3/4/1D1/DD L", "a1, a2, b2"),
        # 3/4: Light g1 g3 cut by Dark g2; Dark's two stones see each other down column
        ("LDL/D3/5/6/5/4/3 D", "g1, g3"),
        # a full board has no empty point, so no path: every group is dead
        ("LD/DLD/LDLD/DLD/LD D", "a1, b2, c1, c3, d2, e1"),
    ],
)
def test_dead_group_of_the_player_not_to_move_is_invalid(text, dead):
    with pytest.raises(InvalidPositionError, match=dead) as e:
        Position.parse(text)
    assert isinstance(e.value, ValueError) and not isinstance(e.value, NotationError)
    assert "not to move" in str(e.value)


@pytest.mark.parametrize(
    "text",
    [
        "1D/3/LDL1/3/2 L",  # the same dead stones, with their owner to move: fine
        "1D/3/L3/3/2 L",  # Dark's lone first stone is the opening, not a dead group
        "2/3/L3/3/2 D",  # Light's lone first stone, Dark to place a first stone
        "1D/3/L1L1/3/2 D",  # Light c1 c3 see each other across c2
    ],
)
def test_valid_positions_accepted(text):
    assert str(Position.parse(text)) == text


def test_overlapping_stones_rejected():
    with pytest.raises(InvalidPositionError, match="c1"):
        Position(Board.get(2), light=["c1", "c3"], dark=["c1"], to_move="L")


# -- fuzzing ---------------------------------------------------------------------------------


@settings(max_examples=400)
@given(st.text(alphabet="LDld0123456789/ x", max_size=40))
def test_parse_raises_only_value_errors(text):
    try:
        pos = Position.parse(text)
    except (NotationError, InvalidPositionError) as e:
        assert str(e)
        return
    # whatever parses is a valid position whose notation parses back to it
    assert Position.parse(str(pos)) == pos


@settings(max_examples=200)
@given(
    m=st.integers(MIN_M, MAX_M),
    seed=st.integers(0, 2**32 - 1),
    cut=st.integers(0, 400),
    edit=st.sampled_from(["drop", "double", "swap"]),
)
def test_corrupted_notation(m, seed, cut, edit):
    # a corrupted notation string either is rejected with a ValueError or, if it still
    # reads as a position, formats back to itself (up to the spaces between the fields)
    positions = list(random_game(Board.get(m), seed))
    text = str(positions[cut % len(positions)])
    i = cut % len(text)
    if edit == "drop":
        bad = text[:i] + text[i + 1:]
    elif edit == "double":
        bad = text[:i] + text[i] + text[i:]
    else:
        bad = text[:i] + text[i + 1:i + 2] + text[i:i + 1] + text[i + 2:]
    try:
        pos = Position.parse(bad)
    except ValueError as e:
        assert isinstance(e, (NotationError, InvalidPositionError)) and str(e)
        return
    assert str(pos) == " ".join(bad.split())


@pytest.mark.parametrize("sep", ["\t", "\u00a0", "\n", "  ", " \t\n ", "\u2003"])
def test_any_whitespace_separates_rows_and_side(sep):
    # the documented rule: any whitespace between the rows and the side reads as one space
    assert str(Position.parse(f"2/1D1/4/L2/2{sep}D")) == "2/1D1/4/L2/2 D"
    assert str(Position.parse(f"{sep}2/3/4/3/2{sep}L{sep}")) == "2/3/4/3/2 L"


@pytest.mark.parametrize("text", ["2/3/4/3/2", "2/1D1/4/L2/2", "1/2/1"])
def test_missing_side_letter_is_reported_as_such(text):
    with pytest.raises(NotationError, match="has no side to move"):
        Position.parse(text)


def test_glued_invisible_character_is_not_a_missing_side():
    with pytest.raises(NotationError, match="must be '<rows> <side>'"):
        Position.parse("2/3/4/3/2\u200bL")


@pytest.mark.parametrize("digits", [4301, 5000, 100_000])
def test_count_beyond_pythons_int_digit_limit(digits):
    with pytest.raises(NotationError, match=f"row 3 from the top counts .*{digits} digits") as e:
        Position.parse(f"2/3/{'9' * digits}/3/2 L")
    message = str(e.value)
    assert "Exceeds the limit" not in message and len(message) < 160
