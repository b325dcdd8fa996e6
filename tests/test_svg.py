"""Tests for solver/app/svg.py: well-formed SVG, the right elements, and the lattice layout."""

import math
import xml.etree.ElementTree as ET

import pytest

from solver.rules.board import MAX_M, MIN_M, Board, BoardError
from solver.app.svg import SPACING, map_svg, point_xy, position_svg

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
def shape_of(mark: ET.Element) -> tuple[str, str]:
    """A value mark's shape, read from its geometry (not its class or data-shape), and its
    colour: ``('polygon3', '#0072b2')`` for a triangle."""
    shape = next(e for e in mark if "shape" in e.get("class", "").split())
    tag = shape.tag.removeprefix(NS)
    if tag == "polygon":
        key = f"polygon{len(shape.get('points').split())}"
        if key in ("polygon3", "polygon4"):  # which way the first corner points
            ys = [float(p.split(",")[1]) for p in shape.get("points").split()]
            xs = [float(p.split(",")[0]) for p in shape.get("points").split()]
            key += "up" if ys[0] < sum(ys) / len(ys) and abs(xs[0] - sum(xs) / len(xs)) < 0.05 else "down"
    elif tag == "path":
        d = shape.get("d").replace("M", " ").replace("L", " ").split()
        (x1, y1), (x2, y2) = (tuple(map(float, d[i].split(","))) for i in (0, 1))
        key = "cross" if x1 != x2 and y1 != y2 else "plus"
    elif tag == "circle":
        key = "ring" if shape.get("fill") == "none" else "disc-" + "".join(t.text for t in mark.iter(NS + "text"))
    else:
        key = tag
    return key, shape.get("fill") if shape.get("fill") not in (None, "none") else shape.get("stroke")


def test_map_value_classes_have_distinct_shapes_not_only_colours():
    """Each value in a map is told apart by its shape as well as its colour (colour
    blindness, grey print): the web board's vocabulary for win, loss, draw, unknown,
    and a shape of its own for every other value; the legend shows the same marks."""
    b = Board.get(3)
    values = ["win", "loss", "draw", "unknown"] + [f"v{i}" for i in range(9)]
    root = parse(map_svg(b, dict(enumerate(values)), best=0))
    looks = {}
    for v in values:
        marks = with_class(root, "value", v)
        assert len(marks) == 1 and marks[0].get("data-value") == v
        looks[v] = shape_of(marks[0])
    assert looks["win"] == ("polygon3up", "#0072b2")
    assert looks["loss"] == ("cross", "#d55e00")
    assert looks["draw"][0] == "rect"
    assert looks["unknown"][0] == "ring"
    shapes = [shape for shape, _ in looks.values()]
    assert len(set(shapes)) == len(values), looks
    # the legend draws each value with the mark of the board
    for v in values:
        swatch = with_class(root, "swatch", v)
        assert len(swatch) == 1 and shape_of(swatch[0]) == looks[v]
    assert [e.get("data-point") for e in with_class(root, "best")] == ["a1"]
    assert "best move" in [g.find(NS + "text").text for g in with_class(root, "legend")]


#: Vienot, Brettel & Mollon (1999) dichromat simulation, in linear RGB
DICHROMATS = {
    "protanopia": [[0.11238, 0.88762, 0.0], [0.11238, 0.88762, 0.0], [0.00401, -0.00401, 1.0]],
    "deuteranopia": [[0.29275, 0.70725, 0.0], [0.29275, 0.70725, 0.0], [-0.02234, 0.02234, 1.0]],
}


def seen(colour: str, matrix) -> list[float]:
    """``colour`` as a dichromat sees it, in sRGB 0-255."""
    def lin(x):
        return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4

    def gamma(x):
        x = min(1.0, max(0.0, x))
        return 12.92 * x if x <= 0.0031308 else 1.055 * x ** (1 / 2.4) - 0.055

    v = [lin(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5)]
    return [255 * gamma(sum(row[k] * v[k] for k in range(3))) for row in matrix]


@pytest.mark.parametrize("eyes", sorted(DICHROMATS))
def test_map_win_and_loss_colours_stay_apart_for_colour_blind_eyes(eyes):
    """Win and loss stay far apart as protanopes and deuteranopes see them (the old
    green and red did not: the second check shows the measure can fail), and neither
    comes close to the draw's grey."""
    from solver.app.svg import VALUE_COLORS

    m = DICHROMATS[eyes]

    def apart(a, b):
        return math.dist(seen(a, m), seen(b, m))

    assert apart(VALUE_COLORS["win"], VALUE_COLORS["loss"]) > 150
    assert apart("#3aa655", "#d9463b") < 90  # the palette before: green and red
    assert min(apart(VALUE_COLORS[v], VALUE_COLORS["draw"]) for v in ("win", "loss")) > 60


def test_position_svg_marks_values_and_best():
    b = Board.get(2)
    root = parse(position_svg(b, ["a1"], ["b1"], values={"c2": "win"}, best="c2", title="win: c2"))
    assert [e.get("data-point") for e in with_class(root, "value", "win")] == ["c2"]
    assert shape_of(with_class(root, "value", "win")[0])[0] == "polygon3up"
    assert [e.get("data-point") for e in with_class(root, "best")] == ["c2"]
    assert len(with_class(root, "legend")) == 2
    assert not with_class(parse(position_svg(b, ["a1"])), "legend")

def test_map_values_and_legend():
    b = Board.get(2)
    values = {0: "win", 1: "win", 2: "loss", 3: "draw", 4: "unknown", 5: None, "e2": "loss"}
    root = parse(map_svg(b, values, title="First moves"))
    assert len(with_class(root, "value")) == 6
    assert len(with_class(root, "value", "win")) == 2
    assert len(with_class(root, "value", "loss")) == 2
    assert {e.get("data-point") for e in with_class(root, "value", "loss")} == {"b1", "e2"}
    unknown = with_class(root, "value", "unknown")
    cell = unknown[0].find(NS + "circle")
    assert len(unknown) == 1 and cell.get("stroke-dasharray") and cell.get("fill") == "#ffffff"
    colours = {v: shape_of(with_class(root, "value", v)[0])[1] for v in ("win", "loss", "draw")}
    assert len(set(colours.values())) == 3
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
    looks = [shape_of(e) for e in with_class(root, "value")]
    assert len({shape for shape, _ in looks}) == 2 and len({colour for _, colour in looks}) == 2
    assert sorted(e.get("data-value") for e in with_class(root, "value")) == ["odd value", "x<y"]
    with pytest.raises(TypeError):
        map_svg(b, {0: 1})


# -- the pictures of solve results (Jupyter's _repr_svg_) -----------------------------
def test_solve_results_show_as_svg(tmp_path):
    """A real proof (a Result) and OpeningSolution draw as parseable SVG: the value in the title, the
    winning move (the line's first) marked with the win triangle or ringed."""
    from solver.app.openings import solve_openings
    from solver.rules.position import Position
    from solver.search.prove import prove

    pos = Position.start(Board.parse("2/3")).play("c2")  # Dark to move: a loss (results/solutions)
    p = prove(pos.play("b1"))                            # Light to move: a win (df-pn gives a line)
    root = parse(p._repr_svg_())
    assert p.value == "win" and p.line
    assert texts(root, "title") == [f"Light to move: win by {p.line[0]} (dfpn)"]
    assert [e.get("data-point") for e in with_class(root, "value", "win")] == [p.line[0]]
    assert len(with_class(root, "stone")) == 2
    loss = prove(pos, method="alphabeta")
    root = parse(loss._repr_svg_())
    assert loss.value == "loss" and not with_class(root, "value")

    s = solve_openings(pos, method="alphabeta", progress_ui="off", checkpoint=tmp_path / "c.json")
    root = parse(s._repr_svg_())
    assert texts(root, "title") == [f"Dark to move: {s.value}"]
    marks = {e.get("data-point"): e.get("data-value") for e in with_class(root, "value")}
    assert marks == s.moves and set(marks.values()) == {"loss"}
    assert not with_class(root, "best")


# -- the growth chart (scripts/measure_growth.py) ---------------------------------------
def _growth_marks(root: ET.Element) -> list[tuple[float, float]]:
    """The centre of every point drawn: positions, median vertices, class diamonds."""
    import re

    out = [(float(c.get("cx")), float(c.get("cy"))) for c in root.iter(NS + "circle")]
    for p in root.iter(NS + "path"):
        xy = [(float(a), float(b)) for a, b in re.findall(r"[ML](-?[\d.]+),(-?[\d.]+)", p.get("d"))]
        if "median" in p.get("class", "").split():
            out += xy
        else:  # a diamond: its centre
            out.append((sum(x for x, _ in xy) / len(xy), sum(y for _, y in xy) / len(xy)))
    return out


def _growth_records() -> list[dict]:
    import json
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "results" / "solutions"
    recs = [json.loads((folder / f"{name}.json").read_text()) for name in
            ("3-4-growth", "4-5-growth", "4-5-growth-knowledge")]
    # no fit, no classes, nothing undecided: the legend must shrink to what is drawn
    recs.append({"board": "3/4", "cap": 1000, "fit": None, "classes": [],
                 "by_empty": [{"empty": 10, "median_expansions": 50}],
                 "runs": [{"empty": 10, "value": "win", "expansions": 50}]})
    return recs


@pytest.mark.parametrize("rec", _growth_records(), ids=["3-4", "4-5", "4-5-knowledge", "bare"])
def test_growth_chart_label_clear_of_points_and_legend_only_what_is_drawn(rec):
    from solver.app.svg import growth_svg

    root = parse(growth_svg(rec))
    marks = _growth_marks(root)
    labels = [t for t in root.iter(NS + "text") if (t.text or "").endswith("per empty point")]
    assert len(labels) == (1 if rec["fit"] else 0)
    for t in labels:
        size = float(t.get("font-size", 12))
        x, y, w = float(t.get("x")), float(t.get("y")), 0.6 * size * len(t.text)
        assert t.get("text-anchor") in (None, "start")
        inside = [(a, b) for a, b in marks if x <= a <= x + w and y - size <= b <= y + 0.3 * size]
        assert not inside, (t.text, x, y, inside)
    entries = [s for t in with_class(root, "legend") for s in t.iter(NS + "tspan")]
    assert entries and all(s.get("data-mark") for s in entries)
    for s in entries:
        assert with_class(root, *s.get("data-mark").split()), (s.get("data-mark"), s.text)
    kinds = {s.get("data-mark") for s in entries}
    assert ("fit" in kinds) == bool(rec["fit"]) and ("class" in kinds) == bool(rec["classes"])
    assert ("run undecided" in kinds) == any(r["value"] == "unknown" for r in rec["runs"])
