"""The public API: Position and Game (solver/rules/position.py).

The 2/3 board, as drawn in RULES.md (notation rows run from e at the top to a)::

          e1  e2
        d1  d2  d3
      c1  c2  c3  c4
        b1  b2  b3
          a1  a2

Its lines: the five rows; ``c1 b1 a1``, ``d1 c2 b2 a2``, ``e1 d2 c3 b3``, ``e2 d3 c4``;
and ``c1 d1 e1``, ``b1 c2 d2 e2``, ``a1 b2 c3 d3``, ``a2 b3 c4``.  Expected values below
are worked out by hand on these lines, or computed by solver.reference.
"""

from __future__ import annotations

import numpy as np
import pytest

from solver import Board, BoardError, Game, IllegalMoveError, InvalidPositionError, Position
from solver.reference import rules as R
from solver.rules.board import MAX_M, MIN_M

MS = list(range(MIN_M, MAX_M + 1))

#: a position that recurs (found by a search over positions built around four lone
#: stones; confirmed by the reference below).  Light to move; Light's lone d4 is dead
#: (Dark f3 cut it off).  f5 (Light) lives and cuts Dark's lone f3, so d4 goes; d6 (Dark)
#: lives and cuts f5, so f3 goes; d4 (Light) lives and cuts d6, so f5 goes; f3 (Dark)
#: lives and cuts d4, so d6 goes: the board is as it was, Light to move.
CYCLE_START = "4/5/1L3L/2D2D1/4D3/2DL3/L4L/2D1D/4 L"
CYCLE_MOVES = ["f5", "d6", "d4", "f3"]
CYCLE_REMOVED = [{"d4"}, {"f3"}, {"f5"}, {"d6"}]


def reference_of(pos: Position):
    b = pos.board
    return (frozenset(b.index(n) for n in pos.stones("L")), frozenset(b.index(n) for n in pos.stones("D")), pos.to_move)


# -- construction and reading -------------------------------------------------------------


@pytest.mark.parametrize("m", MS, ids=lambda m: f"{m}/{m + 1}")
def test_start(m):
    board = Board.get(m)
    pos = Position.start(board)
    assert pos == Position.start(m) == Position.start(board.name) == Position(board)
    assert pos.board is board
    assert pos.to_move == "L" and pos.phase == "first"
    assert pos.stones("L") == pos.stones("D") == frozenset()
    assert pos.groups("L") == pos.groups("D") == []
    assert pos.dead_groups("L") == pos.dead_groups("D") == []
    assert pos.legal_moves() == list(board.names)
    assert pos.outcome is None and pos.outcome_reason is None
    assert pos.last_move is None and pos.removed == frozenset()
    assert str(pos) == "/".join(map(str, board.row_widths)) + " L"
    assert repr(pos) == f"Position({str(pos)!r})"


def test_constructor():
    pos = Position(Board.get(2), light=["c1", "c3"], dark=["e2", 6], to_move="L")
    assert pos.stones("L") == {"c1", "c3"} and pos.stones("D") == {"e2", "c2"}  # point 6 is c2
    assert str(pos) == "1D/3/LDL1/3/2 L"
    # the same with Dark to move: Light, not to move, would have dead stones
    with pytest.raises(InvalidPositionError, match="c1, c3"):
        Position(Board.get(2), light=["c1", "c3"], dark=["e2", 6], to_move="D")
    with pytest.raises(ValueError, match="colour"):
        Position(2, to_move="X")
    with pytest.raises(BoardError):
        Position(2, light=[14])
    with pytest.raises(BoardError):
        Position(2, light=["f1"])
    with pytest.raises(InvalidPositionError, match="both"):
        Position(2, light=["c1"], dark=["c1"])
    with pytest.raises(ValueError, match="colour"):
        Position.start(2).stones("X")


def test_phases_through_the_opening():
    pos = Position.start(2)
    assert (pos.to_move, pos.phase) == ("L", "first")
    pos = pos.play("c1")
    assert (pos.to_move, pos.phase) == ("D", "first")
    assert pos.legal_moves() == [n for n in Board.get(2).names if n != "c1"]  # anywhere empty
    pos = pos.play("e2")
    assert (pos.to_move, pos.phase) == ("L", "second")
    # Light's second stone sees c1 across an empty point: c3, c4 (row c), a1 (past b1),
    # e1 (past d1)
    assert pos.legal_moves() == ["a1", "c3", "c4", "e1"]
    pos = pos.play("c3")
    assert (pos.to_move, pos.phase) == ("D", "second")
    # Dark's second stone sees e2: c4 past d3; c2 and b1 past d2
    assert pos.legal_moves() == ["b1", "c2", "c4"]
    pos = pos.play("c2")
    assert (pos.to_move, pos.phase) == ("L", "normal")
    # Dark c2 cut Light c1 from c3: both dead, to be removed after Light's move unless
    # rescued; e1 sees c1 past d1 and c3 past d2, and rescues both
    assert pos.dead_groups("L") == [frozenset({"c1"}), frozenset({"c3"})]
    after = pos.play("e1")
    assert after.removed == frozenset() and after.stones("L") == {"c1", "c3", "e1"}
    # the player with no stones against two or more has lost
    lost = Position.parse("2/3/D1D1/3/2 L")
    assert lost.phase == "lost" and lost.outcome == "D" and lost.legal_moves() == []


def test_groups_and_dead_groups():
    pos = Position.parse("1D/3/LDL1/3/2 L")
    assert pos.groups("L") == [frozenset({"c1"}), frozenset({"c3"})]
    assert pos.dead_groups("L") == [frozenset({"c1"}), frozenset({"c3"})]
    # Dark c2 and e2 see each other across d2
    assert pos.groups("D") == [frozenset({"c2"}), frozenset({"e2"})]
    assert pos.dead_groups("D") == []
    assert pos.marked_dead() == {"c1", "c3"}
    # one group is always dead; groups are ordered by their lowest point (a1 first)
    pos = Position.parse("2/3/L1L1/1D1/DD D")
    assert pos.groups("D") == [frozenset({"a1", "a2", "b2"})]
    assert pos.dead_groups("D") == [frozenset({"a1", "a2", "b2"})]
    assert pos.dead_groups("L") == []
    pos = Position.parse("D1/D2/L1L1/1D1/D1 L")
    assert pos.groups("D") == [frozenset({"a1", "b2"}), frozenset({"d1", "e1"})]
    assert pos.dead_groups("D") == []  # b2 and d1 see each other across c2
    # a lone opening stone is a dead group, but it is not marked (never removed)
    pos = Position.parse("2/3/L3/3/2 D")
    assert pos.dead_groups("L") == [frozenset({"c1"})] and pos.marked_dead() == frozenset()


def test_play_returns_a_new_position():
    pos = Position.parse("1D/3/LDL1/3/2 L")
    before = (str(pos), pos.stones("L"), pos.stones("D"), pos.legal_moves(), pos.to_move, hash(pos))
    # b1 joins c1 and sees nothing new: b1 c1 and c3 are all dead, and Light has lost
    child = pos.play("b1")
    assert child is not pos and child != pos
    assert (str(pos), pos.stones("L"), pos.stones("D"), pos.legal_moves(), pos.to_move, hash(pos)) == before
    assert child.last_move == "b1"
    assert child.removed == {"b1", "c1", "c3"}
    assert child.stones("L") == frozenset() and child.stones("D") == {"c2", "e2"}
    assert child.to_move == "D" and child.outcome == "D"
    assert child.outcome_reason == "Light has no stones left"
    # the reference agrees
    ref = R.play(pos.board, *reference_of(pos), pos.board.index("b1"))
    assert reference_of(child) == ref
    # e1 rescues both (it sees c1 past d1 and c3 past d2)
    child = pos.play("e1")
    assert child.removed == frozenset() and child.outcome is None and pos.play("e1") == child


@pytest.mark.parametrize(
    "position,move,fragment",
    [
        ("1D/3/L3/3/2 L", "c1", "c1 is occupied"),
        ("1D/3/L3/3/2 L", "e2", "e2 is occupied"),
        ("1D/3/L3/3/2 L", "c2", "c2 does not see Light's first stone c1 through an empty point (rule 2"),
        ("1D/3/L3/3/2 L", "b1", "rule 2"),
        ("1D/3/L3/3/2 L", "a2", "rule 2"),
        ("1D/3/L1L1/3/2 D", "d3", "d3 does not see Dark's first stone e2"),
        # Light c1 c3, Dark c2 e2: a2 sees only Dark c2 (past b2) and nothing else
        ("1D/3/LDL1/3/2 L", "a2", "a2 is on no line with a Light stone without an opponent's stone between (rule 3b)"),
        ("2/1D1/4/L1L/2 D", "c1", "the game is over (Dark has no legal placement)"),
        ("2/3/D1D1/3/2 L", "a1", "the game is over (Light has no stones left)"),
        ("2/3/L1L1/3/2 L", "a1", "the game is over (Dark has no stones left)"),
        ("2/3/4/3/2 L", "z9", "unknown point 'z9'"),
        ("2/3/4/3/2 L", "c5", "unknown point 'c5' on board 2/3"),
        ("2/3/4/3/2 L", "", "unknown point"),
        ("2/3/4/3/2 L", 5, "point name"),
        ("2/3/4/3/2 L", None, "point name"),
    ],
)
def test_illegal_moves_name_the_rule(position, move, fragment):
    pos = Position.parse(position)
    with pytest.raises(IllegalMoveError) as e:
        pos.play(move)
    assert fragment in str(e.value)
    assert isinstance(e.value, ValueError)
    if isinstance(move, str) and move in pos.board.names:
        assert move not in pos.legal_moves()


def test_outcomes():
    # Light b1 b3, Dark d2 to move: no point sees d2 across an empty point
    pos = Position.parse("2/1D1/4/L1L/2 D")
    assert pos.outcome == "L" and pos.outcome_reason == "Dark has no legal placement"
    assert pos.legal_moves() == []
    # the player to move has two stones, the opponent none: already won
    pos = Position.parse("2/3/L1L1/3/2 L")
    assert pos.outcome == "L" and pos.outcome_reason == "Dark has no stones left"
    # the 1/2 board: no second stone ever has a path
    pos = Position.start(1).play("a1").play("c1")
    assert pos.outcome == "D" and pos.legal_moves() == []
    for p in (Position.parse("2/1D1/4/L1L/2 D"), Position.parse("2/3/D1D1/3/2 L"), pos):
        r = R.outcome(p.board, *reference_of(p))
        assert p.outcome == r


# -- Game --------------------------------------------------------------------------------------


def test_game():
    g = Game(Board.parse("2/3"))
    assert g.moves == [] and len(g.positions) == 1 and g.outcome is None
    p = g.play("c1")
    assert p is g.position and g.moves == ["c1"] and len(g.positions) == 2
    g.play("e2")
    with pytest.raises(IllegalMoveError, match="rule 2"):
        g.play("c2")
    assert g.moves == ["c1", "e2"] and len(g.positions) == 3  # an illegal move changes nothing
    assert g.position == Position.parse("1D/3/L3/3/2 L")
    assert Game(2).position == Position.start(2)
    assert Game("3/4").position == Position.start(3)
    assert Game("1D/3/L3/3/2 L").position == g.position
    assert Game(g.position).position is g.position
    assert Game(4).position.board.name == "4/5"


def test_repetition_is_a_draw():
    g = Game(CYCLE_START)
    start = g.position
    assert start.outcome is None
    for move, gone in zip(CYCLE_MOVES, CYCLE_REMOVED):
        assert g.outcome is None
        assert g.play(move).removed == gone
    assert g.position == start and str(g.position) == CYCLE_START
    assert g.outcome == "draw" and g.position.outcome == "draw"
    assert g.position.outcome_reason == "the position repeated"
    assert g.position.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="the game is over"):
        g.play("f5")
    # the same without Game: positions made by play remember their game
    pos = start
    for move in CYCLE_MOVES:
        pos = pos.play(move)
    assert pos.outcome == "draw"
    # equality and hashing ignore the history
    assert pos == start and hash(pos) == hash(start) and len({pos, start}) == 1
    assert start.outcome is None and Position.parse(str(pos)).outcome is None
    # the reference, which knows nothing of histories, confirms that the position recurs
    board = start.board
    ref = reference_of(start)
    for move, gone in zip(CYCLE_MOVES, CYCLE_REMOVED):
        assert {board.name_of(p) for p in R.removed(board, *ref, board.index(move))} == gone
        ref = R.play(board, *ref, board.index(move))
        assert R.outcome(board, *ref) is None
    assert ref == reference_of(start)


def test_equality_and_hash_ignore_history():
    # the same stones by two move orders
    a = Position.start(2).play("c1").play("e2").play("c3")
    b = Position.start(2).play("c3").play("e2").play("c1")
    assert a == b and hash(a) == hash(b) and a.key == b.key
    assert a.last_move == "c3" and b.last_move == "c1"
    assert a == Position.parse(str(a)) and hash(a) == hash(Position.parse(str(a)))
    assert {a, b, Position.parse(str(a))} == {a}
    # the side to move and the board are part of the position
    assert Position(2, ["c1"], [], "L") != Position(2, ["c1"], [], "D")
    assert Position.start(2) != Position.start(3)
    assert Position.start(2) != "2/3/4/3/2 L"


def test_diagram_and_svg():
    pos = Position.parse("1D/3/LDL1/3/2 L")
    assert pos.diagram().splitlines()[-1] == "Light to move"
    assert pos.diagram(coordinates=False).splitlines()[:5] == ["  . D", " . . .", "x D x .", " . . .", "  . ."]
    assert pos.svg().startswith("<svg") and pos._repr_svg_() == pos.svg()


def _drawn_stones(svg: str) -> tuple[set[str], set[str], list[str]]:
    """The Light and Dark stones (point names) an SVG picture draws, and its last-move marks."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"

    def points(*classes: str) -> list[str]:
        return [e.get("data-point") for e in root.iter() if set(classes) <= set(e.get("class", "").split())]

    light, dark = points("stone", "light"), points("stone", "dark")
    assert len(light) == len(set(light)) and len(dark) == len(set(dark))  # each stone drawn once
    return set(light), set(dark), points("last")


def test_game_repr_svg_draws_the_current_position():
    # seeded random games on 2/3 through captures (the picture must follow the stones, not
    # the moves); at every ply the drawing shows exactly the position's stones
    import random

    captures = 0
    for seed in range(6):
        rng = random.Random(seed)
        g = Game("2/3")
        light, dark, last = _drawn_stones(g._repr_svg_())
        assert (light, dark, last) == (set(), set(), [])
        while g.outcome is None and len(g.moves) < 40:
            before = len(g.position.stones("L")) + len(g.position.stones("D"))
            g.play(rng.choice(g.position.legal_moves()))
            pos = g.position
            captures += len(pos.stones("L")) + len(pos.stones("D")) < before + 1
            light, dark, last = _drawn_stones(g._repr_svg_())
            assert light == set(pos.stones("L")) and dark == set(pos.stones("D"))
            assert last == [g.moves[-1]]
    assert captures > 0  # the games did capture, so the test covers stones taken off


# -- the kernels' layout: from_arrays, bitboards, side_index, earlier ------------------------


def test_from_arrays_rebuilds_a_position_from_its_bitboards():
    pos = Position.start(2).play("c1").play("e2").play("c3")
    again = Position.from_arrays(pos.board, pos.bitboards, pos.side_index)
    assert again == pos and str(again) == str(pos) and again.to_move == "D"
    assert again.legal_moves() == pos.legal_moves() and again.outcome is None
    # read-only, kept as it is; a writable array is copied, so changing it changes nothing
    assert not pos.bitboards.flags.writeable
    assert again.bitboards is pos.bitboards
    mine = pos.array()
    copy = Position.from_arrays("2/3", mine, 1)
    mine[:] = 0
    assert copy == pos and not copy.bitboards.flags.writeable
    assert Position.from_arrays(2, Position.start(2).array(), 0) == Position.start(2)


def test_from_arrays_keeps_a_history_so_a_repetition_is_a_draw():
    start = Position.parse(CYCLE_START)
    pos = start
    for move in CYCLE_MOVES[:-1]:
        pos = pos.play(move)
    last = pos.play(CYCLE_MOVES[-1])
    assert last.outcome == "draw"
    keys = [p.key for p in pos.earlier()] + [pos.key]
    rebuilt = Position.from_arrays(last.board, last.bitboards, last.side_index, history=keys)
    assert rebuilt.outcome == "draw"
    assert Position.from_arrays(last.board, last.bitboards, last.side_index).outcome is None
    # earlier(): the game's positions before this one, oldest first
    assert last.earlier() == [start] + [p for p in _line(start, CYCLE_MOVES[:-1])]
    assert start.earlier() == []


def _line(pos, moves):
    for m in moves:
        pos = pos.play(m)
        yield pos


@pytest.mark.parametrize("make, fragment", [
    (lambda b: np.zeros((2, 2), np.uint64), r"\(2, 1\) uint64 array, not a \(2, 2\) uint64"),
    (lambda b: np.zeros((2, 1), np.int64), "uint64 array"),
    (lambda b: [[0], [0]], "not list"),
    (lambda b: np.array([[1 << 63], [0]], np.uint64), "off the 2/3 board"),
    (lambda b: Position(b, ["c1", "e2"]).array() | Position(b, [], ["c1"]).array(), "both a Light and a Dark stone: c1"),
])
def test_from_arrays_refuses_what_is_not_a_position(make, fragment):
    b = Board.parse("2/3")
    with pytest.raises(InvalidPositionError, match=fragment):
        Position.from_arrays(b, make(b), 0)


def test_from_arrays_refuses_a_side_or_dead_group_the_constructor_refuses():
    pos = Position.start(2)
    with pytest.raises(InvalidPositionError, match="0 \\(Light\\) or 1 \\(Dark\\)"):
        Position.from_arrays(pos.board, pos.bitboards, 2)
    # Dark, not to move, with a dead group (two adjacent stones: one group)
    dead = Position(2, [], ["c1", "c2"], "D")
    with pytest.raises(InvalidPositionError, match="dead stones"):
        Position.from_arrays(dead.board, dead.bitboards, 0)
    # check=False trusts the caller past the shape and type
    assert str(Position.from_arrays(dead.board, dead.bitboards, 0, check=False)) == str(dead).replace(" D", " L")
