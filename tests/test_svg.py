"""Tests for solver/svg.py: well-formed SVG, the right elements, and the lattice layout."""

import math
import xml.etree.ElementTree as ET

import pytest

from solver.board import MAX_M, MIN_M, Board, BoardError
from solver.svg import SPACING, map_svg, point_xy, position_svg

NS = "{http://www.w3.org/2000/svg}"
BOARDS = [Board.get(m) for m in range(MIN_M, MAX_M + 1)]


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def with_class(root: ET.Element, *classes: str) -> list[ET.Element]:
    """Elements whose class attribute contains all the given class names."""
    return [e for e in root.iter() if set(classes) <= set(e.get("class", "").split())]


def texts(root: ET.Element, cls: str) -> list[str]:
    return [e.text for e in with_class(root, cls)]


# -- layout ---------------------------------------------------------------------------
@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.name)
@pytest.mark.parametrize("spacing", [1.0, SPACING, 37.5])
def test_neighbours_are_one_spacing_apart(board, spacing):
    xy = [point_xy(board, p, spacing) for p in range(board.size)]
    for p in range(board.size):
        for q in range(p + 1, board.size):
            d = math.dist(xy[p], xy[q])
            if q in board.neighbours[p]:
                assert d == pytest.approx(spacing)
            else:  # the embedding is the lattice: no other pair is as close
                assert d > spacing * 1.5


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.name)
def test_layout_rows(board):
    s = 10.0
    rows: dict[int, list[tuple[float, float]]] = {}
    for p in range(board.size):
        y, x = board.row_col(p)
        px, py = point_xy(board, p, s)
        assert py == pytest.approx(y * s * math.sqrt(3) / 2)
        assert px == pytest.approx((2 * board.m - board.row_widths[y]) * s / 2 + x * s)
        rows.setdefault(y, []).append((px, py))
    centre = (2 * board.m - 1) * s / 2
    for y, pts in rows.items():  # rows are centred
        assert sum(px for px, _ in pts) / len(pts) == pytest.approx(centre)
    # row a is the bottom row, column 1 is at the left
    a1, a2 = point_xy(board, "a1", s), point_xy(board, board.index("a1") + 1, s)
    assert a1[1] == max(py for _, py in rows[2 * board.m])
    assert a1[1] > point_xy(board, "b1", s)[1]
    if board.m > 1:
        assert a2[0] > a1[0]


def test_hexagon_shape():
    b = Board.get(2)
    widths = {}
    for p in range(b.size):
        widths.setdefault(round(point_xy(b, p)[1], 6), []).append(p)
    counts = [len(v) for _, v in sorted(widths.items())]
    assert counts == [2, 3, 4, 3, 2]


# -- position_svg ---------------------------------------------------------------------
@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.name)
def test_every_board_renders(board):
    root = parse(position_svg(board))
    assert root.get("viewBox")
    assert len(with_class(root, "point")) == board.size
    assert len(with_class(root, "line")) == len(board.lines)
    assert texts(root, "row").count("a") == 2
    assert len(with_class(root, "col")) == board.size
    assert not with_class(root, "stone")
    root = parse(map_svg(board, {p: "win" for p in range(board.size)}))
    assert len(with_class(root, "value", "win")) == board.size


def test_stones_dead_last_marks():
    b = Board.get(3)
    light = ["a1", "c2", "d5"]
    dark = [b.index("b2"), b.index("e3")]
    svg = position_svg(b, light, dark, dead=["b2"], last="e3", marks=["a3", "f1", "g1"])
    root = parse(svg)
    assert len(with_class(root, "stone")) == 5
    lights = with_class(root, "stone", "light")
    darks = with_class(root, "stone", "dark")
    assert sorted(e.get("data-point") for e in lights) == sorted(light)
    assert sorted(e.get("data-point") for e in darks) == ["b2", "e3"]
    assert [e.get("data-point") for e in with_class(root, "dead")] == ["b2"]
    assert [e.get("data-point") for e in with_class(root, "last")] == ["e3"]
    assert sorted(e.get("data-point") for e in with_class(root, "mark")) == ["a3", "f1", "g1"]
    # stones sit on their points
    dots = {(e.get("cx"), e.get("cy")) for e in with_class(root, "point")}
    for e in lights + darks:
        assert (e.get("cx"), e.get("cy")) in dots
    # stones are distinct visually: light and dark fills differ, both outlined
    assert lights[0].get("fill") != darks[0].get("fill")
    assert lights[0].get("stroke") and darks[0].get("stroke")


def test_no_marks_by_default_and_duplicates():
    b = Board.get(2)
    root = parse(position_svg(b, [0, 0, 1], [5]))
    assert len(with_class(root, "stone", "light")) == 2
    assert not with_class(root, "dead") and not with_class(root, "last") and not with_class(root, "mark")


def test_stone_positions_match_layout():
    b = Board.get(6)
    root = parse(position_svg(b, light=range(b.size)))
    stones = with_class(root, "stone")
    assert len(stones) == b.size
    by_name = {e.get("data-point"): (float(e.get("cx")), float(e.get("cy"))) for e in stones}
    for p in range(b.size):
        for q in b.neighbours[p]:
            assert math.dist(by_name[b.names[p]], by_name[b.names[q]]) == pytest.approx(SPACING, abs=0.02)


def test_invalid_points():
    b = Board.get(2)
    with pytest.raises(BoardError):
        position_svg(b, light=[b.size])
    with pytest.raises(BoardError):
        position_svg(b, light=["z9"])
    with pytest.raises(BoardError):
        position_svg(b, light=[3], dark=[3])
    with pytest.raises(BoardError):
        position_svg(b, last=-1)


def test_board_argument_forms():
    assert position_svg("2/3", [0]) == position_svg(Board.get(2), [0]) == position_svg(2, [0])


def test_coordinates_options():
    b = Board.get(4)
    root = parse(position_svg(b, coordinates=False))
    assert not with_class(root, "coord")
    root = parse(position_svg(b, coordinates="rows"))
    assert sorted(set(texts(root, "row"))) == [chr(ord("a") + i) for i in range(2 * b.m + 1)]
    assert not with_class(root, "col")
    root = parse(position_svg(b))
    assert sorted(texts(root, "col")) == sorted(n[1:] for n in b.names)


def test_title_escaped():
    title = 'Light <to> move & "win"'
    svg = position_svg(Board.get(2), title=title)
    root = parse(svg)
    assert texts(root, "title") == [title]
    assert "<to>" not in svg


def test_size():
    b = Board.get(6)
    default = parse(position_svg(b))
    assert 550 <= float(default.get("width")) <= 650
    small = parse(position_svg(Board.get(2)))
    assert float(small.get("width")) < float(default.get("width"))
    root = parse(position_svg(b, size=300))
    vb = [float(v) for v in root.get("viewBox").split()]
    assert float(root.get("width")) == 300
    assert float(root.get("height")) == pytest.approx(300 * vb[3] / vb[2], abs=0.01)
    with pytest.raises(ValueError):
        position_svg(b, size=0)


# -- map_svg --------------------------------------------------------------------------
def test_map_values_and_legend():
    b = Board.get(2)
    values = {0: "win", 1: "win", 2: "loss", 3: "draw", 4: "unknown", 5: None, "e2": "loss"}
    root = parse(map_svg(b, values, title="First moves"))
    assert len(with_class(root, "value")) == 6
    assert len(with_class(root, "value", "win")) == 2
    assert len(with_class(root, "value", "loss")) == 2
    assert {e.get("data-point") for e in with_class(root, "value", "loss")} == {"b1", "e2"}
    unknown = with_class(root, "value", "unknown")
    assert len(unknown) == 1 and unknown[0].get("stroke-dasharray")
    assert unknown[0].get("fill") == "#ffffff"
    fills = {v: with_class(root, "value", v)[0].get("fill") for v in ("win", "loss", "draw")}
    assert len(set(fills.values())) == 3
    legend = [g.find(NS + "text").text for g in with_class(root, "legend")]
    assert legend == ["win (2)", "draw (1)", "loss (2)", "unknown (1)"]
    assert texts(root, "title") == ["First moves"]


def test_map_legend_only_present_and_options():
    b = Board.get(3)
    root = parse(map_svg(b, {p: "draw" for p in range(4)}))
    assert [g.find(NS + "text").text for g in with_class(root, "legend")] == ["draw (4)"]
    root = parse(map_svg(b, {0: "win"}, legend=False))
    assert not with_class(root, "legend")
    root = parse(map_svg(b, {0: "win", 1: "loss"}, legend={"win": "Light wins"}))
    assert [g.find(NS + "text").text for g in with_class(root, "legend")] == ["Light wins (1)", "loss (1)"]
    root = parse(map_svg(b, {}))
    assert not with_class(root, "legend") and not with_class(root, "value")


def test_map_other_values_and_stones():
    b = Board.get(2)
    root = parse(map_svg(b, {0: "odd value", 1: "x<y"}, light=[5], dark=[6], size=200))
    assert float(root.get("width")) == 200
    assert len(with_class(root, "value")) == 2
    assert len(with_class(root, "stone")) == 2
    fills = [e.get("fill") for e in with_class(root, "value")]
    assert len(set(fills)) == 2 and None not in fills
    assert sorted(e.get("data-value") for e in with_class(root, "value")) == ["odd value", "x<y"]
    with pytest.raises(TypeError):
        map_svg(b, {0: 1})
