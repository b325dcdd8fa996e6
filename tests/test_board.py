"""Board geometry (solver/rules/board.py) against RULES.md and against networkx.

Expected values are derived by hand from RULES.md:

* board ``m/m+1`` has ``3m^2 + m`` points in ``2m + 1`` rows of widths, top to bottom
  (and so bottom to top), ``m, m+1, ..., 2m, ..., m+1, m``;
* in axial coordinates it is ``{-m <= r <= m, 0 <= q <= 2m-1, 0 <= q+r <= 2m-1}``.  The
  lines of constant ``q`` (and, by the mirror symmetry, of constant ``q + r``) have
  lengths ``m+1, m+2, ..., 2m, 2m, ..., m+1``; with the rows that makes ``6m + 1`` lines
  of two or more points (on 1/2 the rows of width 1 are not lines: 5 lines);
* a line of ``k`` points holds ``k - 1`` adjacent pairs, so the adjacency graph has
  ``3n - (number of lines of each axis, counting 1-point rows)`` = ``3n - 6m - 1`` edges;
* the four symmetries, by name: identity; the left-right mirror (column ``x`` of a row
  of width ``w`` to ``w + 1 - x``); the top-bottom mirror (row ``i`` to row ``2m - i``,
  same column: the rows are centred); the half turn (both).
"""

from __future__ import annotations

import networkx as nx
import pytest

from solver.rules.board import DIRECTIONS, MAX_M, MIN_M, Board, BoardError

MS = list(range(MIN_M, MAX_M + 1))
BOARD_IDS = [f"{m}/{m + 1}" for m in MS]


def letter(i: int) -> str:
    return chr(ord("a") + i)


@pytest.fixture(params=MS, ids=BOARD_IDS)
def board(request) -> Board:
    return Board.get(request.param)


# -- sizes, rows, names -----------------------------------------------------------------


@pytest.mark.parametrize(
    "m,size,widths",
    [
        (1, 4, (1, 2, 1)),
        (2, 14, (2, 3, 4, 3, 2)),
        (3, 30, (3, 4, 5, 6, 5, 4, 3)),
        (4, 52, (4, 5, 6, 7, 8, 7, 6, 5, 4)),
        (5, 80, (5, 6, 7, 8, 9, 10, 9, 8, 7, 6, 5)),
        (6, 114, (6, 7, 8, 9, 10, 11, 12, 11, 10, 9, 8, 7, 6)),
        (7, 154, (7, 8, 9, 10, 11, 12, 13, 14, 13, 12, 11, 10, 9, 8, 7)),
    ],
)
def test_size_and_row_widths(m, size, widths):
    b = Board(m)
    assert size == 3 * m * m + m
    assert (b.m, b.name, b.size, len(b.names), len(b.coords)) == (m, f"{m}/{m + 1}", size, size, size)
    assert b.row_widths == widths
    assert sum(widths) == size


def test_regular_board_names():
    # RULES.md: the 6/7 board runs a1..a6, g1..g12, m1..m6
    b = Board.get(6)
    assert b.names[:6] == ("a1", "a2", "a3", "a4", "a5", "a6")
    assert b.names[6] == "b1"
    g = [n for n in b.names if n[0] == "g"]
    assert g == [f"g{i}" for i in range(1, 13)]
    assert b.names[-6:] == tuple(f"m{i}" for i in range(1, 7))
    assert b.names[-1] == "m6"


def test_names_in_notation_order(board):
    m = board.m
    expected = []
    for i in range(2 * m + 1):  # row a is the bottom row
        width = board.row_widths[2 * m - i]  # row_widths runs from the top
        expected += [f"{letter(i)}{x}" for x in range(1, width + 1)]
    assert list(board.names) == expected
    assert len(set(board.names)) == board.size
    for p, name in enumerate(board.names):
        assert board.index(name) == p
        assert board.name_of(p) == name


def test_axial_coordinates(board):
    m = board.m
    expected = {
        (q, r)
        for r in range(-m, m + 1)
        for q in range(0, 2 * m)
        if 0 <= q + r <= 2 * m - 1
    }
    assert set(board.coords) == expected
    for p, (q, r) in enumerate(board.coords):
        y, x = board.row_col(p)
        # RULES.md: y = 0 on the top row, x the 0-based column; r = y - m, q = x - min(r, 0)
        assert r == y - m and q == x - min(r, 0)
        assert board.names[p] == f"{letter(2 * m - y)}{x + 1}"
        assert board.index_of_coords(q, r) == p
    assert board.index_of_coords(-1, 0) == -1
    assert board.index_of_coords(2 * m, 0) == -1


@pytest.mark.parametrize(
    "m,name,qr",
    [
        (2, "a1", (0, 2)), (2, "a2", (1, 2)), (2, "c1", (0, 0)), (2, "c4", (3, 0)),
        (2, "e1", (2, -2)), (2, "e2", (3, -2)), (6, "g1", (0, 0)), (6, "m1", (6, -6)),
        (6, "a1", (0, 6)), (6, "m6", (11, -6)), (1, "b2", (1, 0)), (1, "c1", (1, -1)),
    ],
)
def test_coordinates_of_named_points(m, name, qr):
    assert Board.get(m).coords[Board.get(m).index(name)] == qr


# -- parsing ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,m",
    [("6/7", 6), ("1/2", 1), ("7/8", 7), ("2/3", 2), (" 3/4 ", 3), ("3 / 4", 3), ("6-7", 6), ("5", 5), ("4", 4)],
)
def test_parse_forms(text, m):
    b = Board.parse(text)
    assert b == Board(m) and b.m == m
    assert b is Board.get(m)  # shared instances
    assert Board.parse(b) is b


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("6/8", "second number"), ("7/6", "second number"), ("9/10", "unsupported"), ("8/9", "unsupported"),
        ("0/1", "unsupported"), ("0", "unsupported"), ("8", "unsupported"), ("", "unknown board"),
        ("six", "unknown board"), ("6/7/8", "unknown board"), ("6.7", "unknown board"), ("/7", "unknown board"),
        ("6x7", "unknown board"),
    ],
)
def test_parse_errors(text, fragment):
    with pytest.raises(BoardError, match=fragment) as e:
        Board.parse(text)
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("m", [0, 8, -1, 100, True, 3.0, "3", None])
def test_constructor_rejects(m):
    with pytest.raises(BoardError):
        Board(m)


@pytest.mark.parametrize(
    "m,name", [(6, "a7"), (6, "g13"), (6, "n1"), (6, "a0"), (6, "z1"), (6, ""), (6, "g"), (6, "1g"), (2, "c5"), (2, "f1"), (1, "b3")]
)
def test_unknown_points(m, name):
    b = Board.get(m)
    with pytest.raises(BoardError, match="unknown point") as e:
        b.index(name)
    assert b.name in str(e.value)


@pytest.mark.parametrize(
    "widths,fragment",
    [
        ([2, 3, 4, 3], "rows"), ([1], "rows"), ([2, 3, 4, 4, 2], "do not match"),
        ([3, 3, 4, 3, 2], "do not match"), ([2, 3, 4, 3, 2] + [1] * 14, "unsupported"),
    ],
)
def test_from_row_widths_errors(widths, fragment):
    with pytest.raises(BoardError, match=fragment):
        Board.from_row_widths(widths)


def test_from_row_widths(board):
    assert Board.from_row_widths(list(board.row_widths)) is board


def test_equality_hash_pickle(board):
    import pickle

    assert board == Board(board.m) and hash(board) == hash(Board(board.m))
    assert board != Board.get(board.m % MAX_M + 1)
    assert pickle.loads(pickle.dumps(board)) is board
    assert repr(board) == f"Board({board.m})"


# -- neighbours, rays, lines ----------------------------------------------------------------


def test_neighbours(board):
    edges = set()
    for p, (q, r) in enumerate(board.coords):
        expected = sorted(
            i for i in (board.index_of_coords(q + dq, r + dr) for dq, dr in DIRECTIONS) if i >= 0
        )
        assert list(board.neighbours[p]) == expected
        assert p not in board.neighbours[p]
        for n in board.neighbours[p]:
            assert p in board.neighbours[n]  # symmetric
            edges.add(frozenset((p, n)))
    assert len(edges) == 3 * board.size - 6 * board.m - 1
    # interior points have six neighbours; every point at least two
    assert max(len(ns) for ns in board.neighbours) == (6 if board.m >= 2 else 3)
    assert min(len(ns) for ns in board.neighbours) >= 2


def test_near_is_networkx_distance(board):
    g = nx.Graph((p, q) for p in range(board.size) for q in board.neighbours[p])
    dist = dict(nx.all_pairs_shortest_path_length(g))
    for steps in range(4):
        for points in ([0], [board.size // 2], [0, board.size - 1], list(range(0, board.size, 5))):
            want = {q for q in range(board.size) if min(dist[p][q] for p in points) <= steps}
            assert board.near(points, steps) == want


def test_directions_come_in_opposite_pairs():
    assert len(DIRECTIONS) == 6
    for d in range(6):
        (a, b), (c, e) = DIRECTIONS[d], DIRECTIONS[d ^ 1]
        assert (a + c, b + e) == (0, 0)


def test_rays(board):
    for p, (q, r) in enumerate(board.coords):
        for d, (dq, dr) in enumerate(DIRECTIONS):
            ray = board.rays[p][d]
            expected = []
            k = 1
            while (i := board.index_of_coords(q + k * dq, r + k * dr)) >= 0:
                expected.append(i)
                k += 1
            assert list(ray) == expected
            assert board.step[p][d] == (ray[0] if ray else -1)
            # the point and its two opposite rays form a line
            whole = tuple(reversed(board.rays[p][d ^ 1])) + (p,) + ray
            if len(whole) >= 2:
                assert whole in board.lines or tuple(reversed(whole)) in board.lines


def test_ray_of_named_point():
    b = Board.get(2)
    names = lambda pts: [b.name_of(p) for p in pts]  # noqa: E731
    c1 = b.index("c1")
    assert sorted(names(b.rays[c1][d]) for d in range(6)) == sorted(
        [["c2", "c3", "c4"], [], ["b1", "a1"], ["d1", "e1"], [], []]
    )


def test_lines(board):
    m = board.m
    expected_lengths = sorted(
        [w for w in board.row_widths if w >= 2] + 2 * (list(range(m + 1, 2 * m + 1)) + list(range(2 * m, m, -1)))
    )
    assert sorted(len(line) for line in board.lines) == expected_lengths
    assert len(board.lines) == (6 * m + 1 if m >= 2 else 5)
    assert len({frozenset(line) for line in board.lines}) == len(board.lines)
    on_line = set()
    for line in board.lines:
        # consecutive points are neighbours, all in one direction
        steps = {
            (board.coords[b][0] - board.coords[a][0], board.coords[b][1] - board.coords[a][1])
            for a, b in zip(line, line[1:])
        }
        assert len(steps) == 1 and steps.pop() in DIRECTIONS
        for i, a in enumerate(line):
            for b in line[i + 1:]:
                on_line.add(frozenset((a, b)))
    # two points are on a common line exactly when they share q, r or q + r
    for a in range(board.size):
        for b in range(a + 1, board.size):
            (qa, ra), (qb, rb) = board.coords[a], board.coords[b]
            assert (frozenset((a, b)) in on_line) == (qa == qb or ra == rb or qa + ra == qb + rb)


# -- symmetries ----------------------------------------------------------------------------


def adjacency_graph(board: Board) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(board.size))
    g.add_edges_from((p, n) for p in range(board.size) for n in board.neighbours[p])
    return g


def test_symmetries_are_the_line_preserving_automorphisms(board):
    # every automorphism of the adjacency graph (VF2), then those that map lines to lines
    matcher = nx.algorithms.isomorphism.GraphMatcher(adjacency_graph(board), adjacency_graph(board))
    automorphisms = {tuple(iso[p] for p in range(board.size)) for iso in matcher.isomorphisms_iter()}
    lines = {frozenset(line) for line in board.lines}
    preserving = {a for a in automorphisms if {frozenset(a[p] for p in line) for line in lines} == lines}
    assert len(preserving) == 4
    assert preserving == set(board.symmetries)
    assert len(board.symmetries) == 4
    assert board.symmetries[0] == tuple(range(board.size))  # identity first


def by_name(board: Board, f) -> tuple[int, ...]:
    """A permutation of points given as a map on (row index, column) from the bottom."""
    perm = []
    for name in board.names:
        i, x = ord(name[0]) - ord("a"), int(name[1:])
        j, y = f(i, x, board.row_widths[2 * board.m - i])
        perm.append(board.index(f"{letter(j)}{y}"))
    return tuple(perm)


def test_symmetries_by_name(board):
    top = 2 * board.m
    expected = {
        by_name(board, lambda i, x, w: (i, x)),  # identity
        by_name(board, lambda i, x, w: (i, w + 1 - x)),  # left-right mirror
        by_name(board, lambda i, x, w: (top - i, x)),  # top-bottom mirror
        by_name(board, lambda i, x, w: (top - i, w + 1 - x)),  # half turn
    }
    assert len(expected) == 4
    assert set(board.symmetries) == expected


def test_symmetries_form_a_group(board):
    syms = set(board.symmetries)
    identity = tuple(range(board.size))
    for s in syms:
        assert sorted(s) == list(range(board.size))
        assert tuple(s[s[p]] for p in range(board.size)) == identity  # all involutions
        for t in syms:
            assert tuple(s[t[p]] for p in range(board.size)) in syms
    # fixed points: none for the half turn (there is no centre point); the middle row
    # (2m points) for the top-bottom mirror; the middle point of each odd-width row for
    # the left-right mirror
    fixed = sorted(sum(s[p] == p for p in range(board.size)) for s in syms)
    odd_rows = sum(w % 2 for w in board.row_widths)
    assert fixed == sorted([0, 2 * board.m, odd_rows, board.size])


def test_symmetry_examples():
    b = Board.get(6)
    syms = {tuple(b.name_of(s[b.index(n)]) for n in ("a1", "g1", "m6")) for s in b.symmetries}
    assert syms == {("a1", "g1", "m6"), ("a6", "g12", "m1"), ("m1", "g1", "a6"), ("m6", "g12", "a1")}


@pytest.mark.parametrize("text", ["²", "³/⁴", "٣/٤", "６/７", "6\u00b2"])
def test_parse_takes_only_ascii_digits(text):
    # str.isdigit() and the regex's \d take these; int() then refuses some ('²') with its
    # own message, or reads others ('٣') as a board
    with pytest.raises(BoardError, match="unknown board"):
        Board.parse(text)


@pytest.mark.parametrize("text", ["9" * 5000, "9" * 5000 + "/" + "9" * 5000, "1" * 4301, "0" * 5000 + "12"],
                         ids=["5000 digits", "two of 5000", "4301 digits", "leading zeros"])
def test_parse_long_numbers_without_int_limit_message(text):
    with pytest.raises(BoardError) as e:
        Board.parse(text)
    message = str(e.value)
    assert "unsupported board" in message
    assert "Exceeds the limit" not in message and "sys.set_int_max_str_digits" not in message
    assert len(message) < 120


@pytest.mark.parametrize("text", ["2/3/4/3/2", "1/2/1", "2/1D1/4/L2/2", "6/7/8/9/10/11/12/11/10/9/8/7/6"])
def test_parse_rows_without_side_letter(text):
    with pytest.raises(BoardError, match="has no side to move") as e:
        Board.parse(text)
    assert "unknown board" not in str(e.value)
