"""Hand-checked facts about the reference rules (solver/reference/rules.py), from RULES.md.

The 2/3 board, as drawn in RULES.md (short sides at top and bottom)::

          e1  e2
        d1  d2  d3
      c1  c2  c3  c4
        b1  b2  b3
          a1  a2

Its lines: the five rows; ``c1 b1 a1``, ``d1 c2 b2 a2``, ``e1 d2 c3 b3``, ``e2 d3 c4``;
and ``c1 d1 e1``, ``b1 c2 d2 e2``, ``a1 b2 c3 d3``, ``a2 b3 c4``.

The 1/2 board is the four points ``a1``, ``b1 b2``, ``c1``; no line has more than two
points, so no two stones can ever have a path.
"""

from __future__ import annotations

import random

import pytest

from solver.rules.board import Board
from solver.reference.rules import (
    dead_groups,
    groups,
    is_valid,
    legal_moves,
    outcome,
    paths,
    perft,
    phase,
    play,
    removed,
    stone_graph,
)

E = frozenset()


@pytest.fixture(scope="module")
def b2() -> Board:
    return Board.get(2)


def pts(board: Board, text: str) -> frozenset[int]:
    """A set of points from space-separated names."""
    return frozenset(board.index(n) for n in text.split())


def names(board: Board, points) -> list[str]:
    return sorted(board.name_of(p) for p in points)


# -- groups and paths ---------------------------------------------------------------------


def test_stone_graph_and_groups(b2):
    stones = pts(b2, "a1 a2 b2 c4 e1")
    g = stone_graph(b2, stones)
    assert set(g.nodes) == set(stones)
    # a1-a2, a1-b2, a2-b2 are adjacent; c4 and e1 are alone
    assert g.number_of_edges() == 3
    assert [names(b2, grp) for grp in groups(b2, stones)] == [["a1", "a2", "b2"], ["c4"], ["e1"]]
    assert groups(b2, E) == []


def test_path_needs_an_empty_point_between(b2):
    # c1 and c3 see each other across the empty c2
    assert paths(b2, pts(b2, "c1 c3"), E) == {(b2.index("c1"), b2.index("c3"))}
    # adjacent stones never have a path
    assert paths(b2, pts(b2, "c1 c2"), E) == set()
    # an opponent stone between blocks it
    assert paths(b2, pts(b2, "c1 c3"), pts(b2, "c2")) == set()
    # only the first stone along a ray is seen: c1 sees c3 but not c4 behind it
    assert paths(b2, pts(b2, "c1 c3 c4"), E) == {(b2.index("c1"), b2.index("c3"))}
    # points not on a common line never have a path (a1 and e2)
    assert paths(b2, pts(b2, "a1 e2"), E) == set()


def test_no_path_inside_one_group(b2):
    # c1 sees c3 across c2, but c1-b1-b2-c3 joins them into one group
    own = pts(b2, "c1 b1 b2 c3")
    assert len(groups(b2, own)) == 1
    assert paths(b2, own, E) == set()
    assert dead_groups(b2, own, E) == [own]


def test_dead_and_alive_groups(b2):
    # a lone stone is dead; so is any single group
    assert dead_groups(b2, pts(b2, "c2"), E) == [pts(b2, "c2")]
    assert dead_groups(b2, pts(b2, "a1 a2 b2"), E) == [pts(b2, "a1 a2 b2")]
    # two stones with a path: both alive
    assert dead_groups(b2, pts(b2, "c1 c3"), E) == []
    # the same, blocked at c2 by the opponent: both dead
    assert dead_groups(b2, pts(b2, "c1 c3"), pts(b2, "c2")) == [pts(b2, "c1"), pts(b2, "c3")]
    # a1 and c3 have a path across b2; c1 is cut off by opponent stones b1 and c2 and
    # sees nothing along c1-d1-e1
    own, other = pts(b2, "a1 a2 c1 c3"), pts(b2, "b1 b3 c2")
    assert dead_groups(b2, own, other) == [pts(b2, "c1")]


# -- phases and legal moves -----------------------------------------------------------------


def test_opening_phases(b2):
    c1, e2 = pts(b2, "c1"), pts(b2, "e2")
    assert phase(b2, E, E, "L") == "first"
    assert phase(b2, c1, E, "D") == "first"
    assert phase(b2, c1, e2, "L") == "second"
    assert phase(b2, pts(b2, "c1 c3"), e2, "D") == "second"
    assert phase(b2, pts(b2, "c1 c3"), pts(b2, "e2 e1"), "L") == "normal"
    assert phase(b2, E, pts(b2, "c1 c3"), "L") == "lost"


def test_first_stones(b2):
    assert legal_moves(b2, E, E, "L") == list(range(14))
    # Dark's first stone: anywhere empty, even next to Light's
    assert legal_moves(b2, pts(b2, "c2"), E, "D") == sorted(set(range(14)) - pts(b2, "c2"))


def test_second_stone_sees_the_first_across_an_empty_point(b2):
    c1 = pts(b2, "c1")
    # lines through c1: c1 c2 c3 c4, c1 b1 a1, c1 d1 e1; adjacent points do not count
    assert names(b2, legal_moves(b2, c1, pts(b2, "e2"), "L")) == ["a1", "c3", "c4", "e1"]
    # Dark on c2 blocks the row
    assert names(b2, legal_moves(b2, c1, pts(b2, "c2"), "L")) == ["a1", "e1"]
    # Dark on c3 takes c3 and hides c4; c2 stays illegal (adjacent)
    assert names(b2, legal_moves(b2, c1, pts(b2, "c3"), "L")) == ["a1", "e1"]
    # Dark on a1 removes one end
    assert names(b2, legal_moves(b2, c1, pts(b2, "a1"), "L")) == ["c3", "c4", "e1"]


def test_normal_moves_see_a_friendly_stone(b2):
    light, dark = pts(b2, "c1 c3"), pts(b2, "c2 e2")
    # from c1: b1 a1, d1 e1 (row blocked by c2); from c3: c4, b3, d3, d2 e1, b2 a1;
    # a2 sees only Dark c2 (via b2) and nothing along a1-a2 or a2-b3-c4
    expected = ["a1", "b1", "b2", "b3", "c4", "d1", "d2", "d3", "e1"]
    assert names(b2, legal_moves(b2, light, dark, "L")) == expected
    # an opponent stone between hides the friendly stone
    assert b2.index("a2") not in legal_moves(b2, light, dark, "L")


# -- moves and removals ---------------------------------------------------------------------


def test_first_stone_is_not_removed(b2):
    # a lone first stone is "dead" but nothing is removed before the second stone
    light, dark, to_move = play(b2, E, E, "L", b2.index("c2"))
    assert (light, dark, to_move) == (pts(b2, "c2"), E, "D")
    light, dark, to_move = play(b2, light, dark, "D", b2.index("c3"))
    assert (light, dark, to_move) == (pts(b2, "c2"), pts(b2, "c3"), "L")


def test_illegal_move_raises(b2):
    with pytest.raises(ValueError):
        play(b2, pts(b2, "c1"), pts(b2, "e2"), "L", b2.index("c2"))  # adjacent second stone
    with pytest.raises(ValueError):
        play(b2, pts(b2, "c1"), pts(b2, "e2"), "L", b2.index("e2"))  # occupied


def test_capture_of_the_movers_own_dead_group(b2):
    # Light a1 a2 | c1; Dark b1 c2 | b3 alive across b2.  Light c3 sees a1 across b2,
    # so a1-a2 and c3 live; c1 is boxed in by b1 and c2 and sees nothing towards e1.
    light, dark = pts(b2, "a1 a2 c1"), pts(b2, "b1 b3 c2")
    assert is_valid(b2, light, dark, "L") is None
    assert removed(b2, light, dark, "L", b2.index("c3")) == pts(b2, "c1")
    new_light, new_dark, to_move = play(b2, light, dark, "L", b2.index("c3"))
    assert (new_light, new_dark, to_move) == (pts(b2, "a1 a2 c3"), dark, "D")
    assert outcome(b2, new_light, new_dark, "D") is None


def test_stone_that_sees_a_friend_is_not_dead(b2):
    # Light c1 and c3 are cut apart by Dark c2 and both dead.  e1 sees c1 (across d1)
    # and c3 (across d2): everything lives.  So does a1 (across b1 to c1, across b2 to c3).
    light, dark = pts(b2, "c1 c3"), pts(b2, "c2 e2")
    assert dead_groups(b2, light, dark) == [pts(b2, "c1"), pts(b2, "c3")]
    for p in ("e1", "a1"):
        assert removed(b2, light, dark, "L", b2.index(p)) == E
    # b1 joins c1 and sees nothing new: every Light stone goes, and Light has lost
    assert removed(b2, light, dark, "L", b2.index("b1")) == pts(b2, "b1 c1 c3")
    new_light, new_dark, to_move = play(b2, light, dark, "L", b2.index("b1"))
    assert new_light == E and new_dark == dark
    assert outcome(b2, new_light, new_dark, to_move) == "D"


def test_seeing_a_stone_of_your_own_group_gives_no_path(b2):
    # c3 sees c1 across c2, but c3 touches b2, so c1 b1 b2 c3 is one group: dead.
    light, dark = pts(b2, "c1 b1 b2"), pts(b2, "d1 d3")
    assert is_valid(b2, light, dark, "L") is None
    assert removed(b2, light, dark, "L", b2.index("c3")) == pts(b2, "c1 b1 b2 c3")
    assert outcome(b2, *play(b2, light, dark, "L", b2.index("c3"))) == "D"


def test_suicide_loses(b2):
    # Light b2 joins a1 a2 into one group that sees only Dark stones; c1 is boxed in
    light, dark = pts(b2, "a1 a2 c1"), pts(b2, "b1 b3 c2")
    assert removed(b2, light, dark, "L", b2.index("b2")) == pts(b2, "a1 a2 b2 c1")
    new = play(b2, light, dark, "L", b2.index("b2"))
    assert new == (E, dark, "D")
    assert outcome(b2, *new) == "D"


def test_opponent_dead_groups_wait_for_the_opponent(b2):
    # Dark c1 c3 live across c2.  Light c2 (seeing a2 across b2) cuts them: both Dark
    # stones are now dead, but stay on the board until Dark has moved.
    light, dark = pts(b2, "a1 a2"), pts(b2, "c1 c3")
    assert is_valid(b2, light, dark, "L") is None
    light, dark, to_move = play(b2, light, dark, "L", b2.index("c2"))
    assert (light, dark, to_move) == (pts(b2, "a1 a2 c2"), pts(b2, "c1 c3"), "D")
    assert dead_groups(b2, dark, light) == [pts(b2, "c1"), pts(b2, "c3")]
    assert is_valid(b2, light, dark, to_move) is None  # dead groups of the mover are fine
    assert outcome(b2, light, dark, to_move) is None
    # Dark revives both with e1 (across d1 to c1, across d2 to c3) ...
    assert removed(b2, light, dark, "D", b2.index("e1")) == E
    # ... or loses everything with d1, which touches c1 and sees only Light c2 and e1.
    assert removed(b2, light, dark, "D", b2.index("d1")) == pts(b2, "c1 c3 d1")
    new = play(b2, light, dark, "D", b2.index("d1"))
    assert new == (light, E, "L")
    assert outcome(b2, *new) == "L"


# -- outcome and validity -------------------------------------------------------------------


def test_outcomes(b2):
    two = pts(b2, "c1 c3")
    assert outcome(b2, E, E, "L") is None
    assert outcome(b2, pts(b2, "c1"), E, "D") is None  # Dark's first stone to come
    assert outcome(b2, two, E, "L") == "L"  # the opponent has lost all stones
    assert outcome(b2, two, E, "D") == "L"  # Dark to move with none: lost
    assert outcome(b2, E, two, "D") == "D"
    assert outcome(b2, E, two, "L") == "D"


def test_no_legal_move_loses(b2):
    # Light a1 a2 is walled in by b1 b2 b3; Dark's row b lives by its path to d1.
    light, dark = pts(b2, "a1 a2"), pts(b2, "b1 b2 b3 d1")
    assert is_valid(b2, light, dark, "L") is None
    assert legal_moves(b2, light, dark, "L") == []
    assert outcome(b2, light, dark, "L") == "D"
    assert perft(b2, light, dark, "L", 1) == 0
    assert perft(b2, light, dark, "L", 0) == 1


def test_validity(b2):
    assert is_valid(b2, E, E, "L") is None
    assert "overlap" in is_valid(b2, pts(b2, "c1"), pts(b2, "c1"), "D")
    # Light, not to move, has the dead c1 and c3: this cannot follow Light's move
    assert is_valid(b2, pts(b2, "c1 c3"), pts(b2, "c2 e2"), "D") is not None
    # the same stones with Light to move are fine
    assert is_valid(b2, pts(b2, "c1 c3"), pts(b2, "c2 e2"), "L") is None
    # a lone stone of the player not to move is the opening, not a dead group
    assert is_valid(b2, pts(b2, "c1"), E, "D") is None
    assert is_valid(b2, E, E, "X") is not None
    assert is_valid(b2, frozenset({99}), E, "L") is not None


# -- the 1/2 board ----------------------------------------------------------------------------


def test_board_1_2_second_stone_has_no_point():
    b1 = Board.get(1)
    for lp in range(4):
        for dp in range(4):
            if lp == dp:
                continue
            light, dark = frozenset({lp}), frozenset({dp})
            assert phase(b1, light, dark, "L") == "second"
            assert legal_moves(b1, light, dark, "L") == []
            assert outcome(b1, light, dark, "L") == "D"
    assert [perft(b1, E, E, "L", d) for d in range(4)] == [1, 4, 12, 0]


# -- perft on the 2/3 board -------------------------------------------------------------------


def test_perft_2_3(b2):
    # depth 1: 14 first stones; depth 2: 14 * 13.
    # depth 3: Light's second stone.  A pair of points on one line at distance k has
    # k - 1 points between; it is a legal (first, second) pair in both orders, for each
    # Dark first stone on neither point nor between them: 14 - 2 - (k - 1) = 13 - k.
    # The 2/3 board has six lines of 3 (one pair at distance 2 each) and five lines of 4
    # (two pairs at distance 2, one at 3): 16 pairs at distance 2, 5 at distance 3.
    depth3 = 2 * (16 * (13 - 2) + 5 * (13 - 3))
    assert depth3 == 452
    assert [perft(b2, E, E, "L", d) for d in range(4)] == [1, 14, 182, depth3]


def test_line_census_2_3(b2):
    # the census used above: line lengths 2,3,4,3,2 / 3,4,4,3 / 3,4,4,3
    lengths = sorted(len(line) for line in b2.lines)
    assert lengths == [2, 2] + [3] * 6 + [4] * 5


# -- properties over random games -------------------------------------------------------------


def random_positions(board: Board, games: int, seed: int):
    """Every position (with its legal moves) met in some random games from the start,
    the final positions included."""
    rng = random.Random(seed)
    for _ in range(games):
        light, dark, to_move = E, E, "L"
        for _ply in range(60):
            moves = legal_moves(board, light, dark, to_move)
            yield light, dark, to_move, moves
            if outcome(board, light, dark, to_move) is not None:
                break
            light, dark, to_move = play(board, light, dark, to_move, rng.choice(moves))


@pytest.mark.parametrize("m,games", [(2, 60), (3, 8)])
def test_properties_of_moves(m, games):
    board = Board.get(m)
    captures = 0
    for light, dark, to_move, moves in random_positions(board, games, seed=m):
        assert is_valid(board, light, dark, to_move) is None
        own, other = (light, dark) if to_move == "L" else (dark, light)
        kind = phase(board, light, dark, to_move)
        for p in moves:
            new_light, new_dark, new_to_move = play(board, light, dark, to_move, p)
            new_own, new_other = (new_light, new_dark) if to_move == "L" else (new_dark, new_light)
            gone = removed(board, light, dark, to_move, p)
            # the opponent is untouched; the mover only loses stones
            assert new_other == other and new_to_move != to_move
            assert new_own == (own | {p}) - gone
            # the position after a move is always valid ("after removal")
            assert is_valid(board, new_light, new_dark, new_to_move) is None
            placed = own | {p}
            if kind == "first":
                assert gone == E
                continue
            # groups never split: whole groups leave, and exactly the dead ones
            placed_groups = groups(board, placed)
            assert all(g <= gone or not (g & gone) for g in placed_groups)
            assert gone == frozenset().union(*dead_groups(board, placed, other))
            # removing dead groups never takes a path away
            assert paths(board, placed, other) <= paths(board, new_own, other)
            # a stone with a path to a stone of another group is never removed
            group_of = {q: g for g in placed_groups for q in g}
            for a, c in paths(board, placed, other):
                assert group_of[a] is not group_of[c]
                assert a not in gone and c not in gone
            if kind == "second":
                assert gone == E
            # a stone placed with no friendly neighbour that sees a friendly stone
            # across empty points has a path to it, so stays
            if not any(n in own for n in board.neighbours[p]):
                for ray in board.rays[p]:
                    stones_on_ray = [(i, q) for i, q in enumerate(ray) if q in own or q in other]
                    if stones_on_ray and stones_on_ray[0][0] >= 1 and stones_on_ray[0][1] in own:
                        assert p not in gone
            captures += bool(gone)
    assert captures > 0  # the random games do exercise removals


@pytest.mark.parametrize("m", [2, 3])
def test_no_legal_move_means_all_dead(m):
    # RULES.md: with stones but no legal placement, all of a player's groups are dead,
    # since a point between the two ends of a path would be a legal placement.  This
    # holds for any stones, so random (not necessarily reachable) positions are used.
    board = Board.get(m)
    rng = random.Random(m)
    stuck = 0
    for _ in range(3000):
        points = list(range(board.size))
        rng.shuffle(points)
        n_light, n_dark = rng.randint(2, board.size // 2), rng.randint(0, board.size // 2)
        light = frozenset(points[:n_light])
        dark = frozenset(points[n_light:n_light + n_dark])
        assert phase(board, light, dark, "L") == "normal"
        if paths(board, light, dark):
            assert legal_moves(board, light, dark, "L")
        if not legal_moves(board, light, dark, "L"):
            assert dead_groups(board, light, dark) == groups(board, light)
            stuck += 1
    assert stuck > 0  # the sample does reach such positions
