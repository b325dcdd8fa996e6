"""SVG pictures of Meridians boards, in the manner of python-chess's ``chess/svg.py``.

Pure functions that return SVG documents as strings; nothing beyond the standard library
and :mod:`solver.rules.board` is used.

* :func:`position_svg` draws a position: the lattice, the stones, dead groups, the last
  move and marked points (legal moves, say).
* :func:`map_svg` marks every point by a value string (``'win'``, ``'loss'``, ``'draw'``,
  ``'unknown'``, ...), for instance the value of each opening move, with a legend: a
  colour-blind-safe colour and a shape per value, the web board's (triangle win, cross
  loss, square draw, ring unknown).
* :func:`point_xy` is the layout: where a point lies on screen.

The board is drawn with its rows horizontal, the two short sides at the top and bottom,
row ``a`` at the bottom.  The point in column ``x`` (0-based) of row ``y`` (0 = top row)
lies at ``px = (maxw - w) * spacing / 2 + x * spacing`` and
``py = y * spacing * sqrt(3) / 2``, ``w`` the width of that row and ``maxw`` the widest
row; adjacent points are exactly ``spacing`` apart.

Elements carry ``class`` attributes so that they can be found and counted:
``point``, ``line``, ``coord row``/``coord col``, ``stone light``/``stone dark``,
``mark``, ``dead``, ``last``, ``value <value>`` (a group: ``cell`` disc and ``shape``),
``best``, ``legend``, ``title``.  Stones, marks,
dead marks and values also carry ``data-point="c2"``.

>>> from solver.rules.board import Board
>>> svg = position_svg(Board.get(2), light=[0], dark=[5], last=5)
>>> svg.startswith("<svg") and svg.count('class="stone ') == 2
True
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping
from xml.sax.saxutils import escape, quoteattr

from solver.rules.board import Board, BoardError

__all__ = ["position_svg", "map_svg", "growth_svg", "frontier_svg", "analysis_svg", "reliability_svg", "point_xy",
           "SPACING",
           "VALUE_COLORS", "VALUE_SHAPES", "value_mark"]

#: distance between adjacent points, in SVG user units (1 unit = 1 px at the default size)
SPACING = 44.0

_H = math.sqrt(3) / 2  # row pitch as a fraction of the spacing

# -- colours ---------------------------------------------------------------------------
_PAGE = "#fbf8f1"
_WOOD = "#e6c68c"
_INK = "#5a4630"
_LIGHT_FILL = "#fbfaf6"
_LIGHT_STROKE = "#202020"
_DARK_FILL = "#242424"
_DARK_STROKE = "#000000"
_RED = "#e0201b"
_VIOLET = "#8a2be2"
_TEXT = "#3b2f20"

#: colour per value for :func:`map_svg`; ``None`` means white with a dashed outline.  The
#: Okabe-Ito palette (blue, vermillion; grey for a draw), told apart under deuteranopia and
#: protanopia, the colours of the web board's value marks (solver/app/web/static/common.js)
VALUE_COLORS: dict[str, str | None] = {
    "win": "#0072b2",
    "draw": "#6b6b6b",
    "loss": "#d55e00",
    "unknown": None,
}
#: shape per value, so that a value is read without its colour (greyscale print, colour
#: blindness): the web board's vocabulary, learnt once: a triangle for a win, a cross for a
#: loss, a square for a draw, a hollow ring for unknown
VALUE_SHAPES: dict[str, str] = {"win": "triangle", "loss": "cross", "draw": "square", "unknown": "ring"}
#: colours and shapes for value strings outside :data:`VALUE_COLORS`, in sorted order of
#: the values (the rest of Okabe-Ito); past the last shape a value gets a numbered disc
_EXTRA_COLORS = ("#e69f00", "#56b4e9", "#009e73", "#cc79a7", "#000000", "#f0e442")
_EXTRA_SHAPES = ("diamond", "triangle-down", "hexagon", "star", "plus", "pentagon")
_BEST = "#222222"  # the dashed ring round a best move, as on the web board

# -- geometry (fractions of the spacing) -----------------------------------------------
_STONE_R = 0.43
_POINT_R = 0.07
_MARK_R = 0.19
_LAST_R = 0.12
_VALUE_R = 0.40
_DEAD_R = 0.52  # halo around a dead stone
_CROSS = 0.22  # half-length of the arms of the cross on a dead stone
_ROW_FONT = 0.34
_COL_FONT = 0.21
_COL_DY = 0.56  # column numbers: centre this far below their point
_TITLE_FONT = 0.42
_LEGEND_FONT = 0.32


# -- small helpers ---------------------------------------------------------------------
def _board(board) -> Board:
    if isinstance(board, Board):
        return board
    if isinstance(board, int) and not isinstance(board, bool):
        return Board.get(board)
    return Board.parse(board)


def _point(board: Board, p) -> int:
    """A point index from an index or a name; raises :class:`BoardError`."""
    if isinstance(p, str):
        return board.index(p)
    if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < board.size:
        raise BoardError(f"no point {p!r} on board {board.name}")
    return p


def _points(board: Board, ps: Iterable | None) -> list[int]:
    if ps is None:
        return []
    return sorted({_point(board, p) for p in ps})


def _num(v: float) -> str:
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _attrs(attrs: dict) -> str:
    out = []
    for k, v in attrs.items():
        if v is None:
            continue
        name = k.rstrip("_").replace("_", "-")
        if isinstance(v, float):
            v = _num(v)
        out.append(f" {name}={quoteattr(str(v))}")
    return "".join(out)


def _el(tag: str, text: str | None = None, **attrs) -> str:
    if text is None:
        return f"<{tag}{_attrs(attrs)}/>"
    return f"<{tag}{_attrs(attrs)}>{escape(text)}</{tag}>"


def _text_width(text: str, font: float) -> float:
    """A rough width estimate for sans-serif text (used only for margins and wrapping)."""
    return 0.6 * font * len(text)


def point_xy(board, p, spacing: float = SPACING) -> tuple[float, float]:
    """Screen position of point ``p`` relative to the lattice's top-left corner.

    ``x`` grows to the right and ``y`` downwards (row ``a``, the bottom row, has the largest
    ``y``).  Rows are centred on the widest row; neighbours are ``spacing`` apart.

    >>> from solver.rules.board import Board
    >>> b = Board.get(2)
    >>> x, y = point_xy(b, b.index("c1"), 10)  # the middle row starts at the left edge
    >>> x, round(y, 3)
    (0.0, 17.321)
    """
    b = _board(board)
    y, x = b.row_col(_point(b, p))
    w = b.row_widths[y]
    return ((2 * b.m - w) * spacing / 2 + x * spacing, y * spacing * _H)


class _Frame:
    """Page layout: lattice offset, page size, and where the title and legend go."""

    def __init__(self, board: Board, *, coordinates, title: str | None, legend_entries=()):
        s = SPACING
        self.board = board
        self.rows_labelled = bool(coordinates)
        self.cols_labelled = bool(coordinates) and coordinates != "rows"
        # the wooden hexagon extends this far beyond the outermost points
        self.pad = (0.78 if self.cols_labelled else 0.62) * s
        side = self.pad + 0.25 * s
        if self.rows_labelled:
            side = max(side, 1.55 * s)
        top = bottom = self.pad + 0.25 * s
        lattice_w = (2 * board.m - 1) * s
        lattice_h = 2 * board.m * s * _H
        width = lattice_w + 2 * side

        self.title = title
        self.title_h = 1.0 * s if title else 0.0
        if title:
            width = max(width, _text_width(title, _TITLE_FONT * s) + 0.8 * s)

        # legend: entries (swatch attributes, label) flowed left to right in rows
        self.legend_rows: list[list[tuple[dict, str, float]]] = []
        entries = [(sw, label, 0.55 * s + _text_width(label, _LEGEND_FONT * s)) for sw, label in legend_entries]
        if entries:
            width = max(width, max(w for _, _, w in entries) + 0.8 * s)
            row: list = []
            used = 0.0
            gap = 0.45 * s
            for e in entries:
                if row and used + gap + e[2] > width - 0.8 * s:
                    self.legend_rows.append(row)
                    row, used = [], 0.0
                used += (gap if row else 0.0) + e[2]
                row.append(e)
            self.legend_rows.append(row)
        self.legend_h = (0.62 * s * len(self.legend_rows) + 0.15 * s) if entries else 0.0

        self.width = width
        self.ox = (width - lattice_w) / 2
        self.oy = self.title_h + top
        self.height = self.title_h + top + lattice_h + bottom + self.legend_h
        self.legend_top = self.title_h + top + lattice_h + bottom

    def xy(self, p: int) -> tuple[float, float]:
        x, y = point_xy(self.board, p, SPACING)
        return self.ox + x, self.oy + y

    # -- document ------------------------------------------------------------------------
    def open(self, size: float | None, cls: str) -> list[str]:
        if size is None:
            size = self.width  # 1 unit = 1 px; 6/7 is about 600 px wide
        if size <= 0:
            raise ValueError(f"size must be positive, not {size!r}")
        height = size * self.height / self.width
        return [
            "<svg"
            + _attrs(
                {
                    "xmlns": "http://www.w3.org/2000/svg",
                    "version": "1.1",
                    "class": cls,
                    "viewBox": f"0 0 {_num(self.width)} {_num(self.height)}",
                    "width": _num(size),
                    "height": _num(height),
                    "font_family": "Helvetica, Arial, sans-serif",
                }
            )
            + ">",
            _el("rect", x=0, y=0, width=_num(self.width), height=_num(self.height), fill=_PAGE),
        ]

    def header(self) -> list[str]:
        if not self.title:
            return []
        s = SPACING
        return [
            _el(
                "text",
                self.title,
                class_="title",
                x=self.width / 2,
                y=0.3 * s + _TITLE_FONT * s * 0.85,
                text_anchor="middle",
                font_size=_TITLE_FONT * s,
                font_weight="bold",
                fill=_TEXT,
            )
        ]

    def lattice(self) -> list[str]:
        """The wooden hexagon, the lines, the point dots and the coordinates."""
        b, s = self.board, SPACING
        out = []
        by_row: dict[int, list[int]] = {}
        for p in range(b.size):
            by_row.setdefault(b.row_col(p)[0], []).append(p)
        rows = [sorted(by_row[y], key=lambda p: b.row_col(p)[1]) for y in range(2 * b.m + 1)]
        # clockwise from the top-left corner
        corners = [rows[0][0], rows[0][-1], rows[b.m][-1], rows[-1][-1], rows[-1][0], rows[b.m][0]]
        pts = []
        for p in corners:
            xy = self.xy(p)
            if not pts or pts[-1] != xy:
                pts.append(xy)
        out.append(
            _el(
                "polygon",
                class_="board",
                points=" ".join(f"{_num(x)},{_num(y)}" for x, y in pts),
                fill=_WOOD,
                stroke=_WOOD,
                stroke_width=2 * self.pad,
                stroke_linejoin="round",
            )
        )
        out.append(f'<g class="lines" stroke="{_INK}" stroke-width="{_num(0.03 * s)}" stroke-opacity="0.5">')
        for line in b.lines:
            (x1, y1), (x2, y2) = self.xy(line[0]), self.xy(line[-1])
            out.append(_el("line", class_="line", x1=x1, y1=y1, x2=x2, y2=y2))
        out.append("</g>")
        out.append(f'<g class="points" fill="{_INK}">')
        for p in range(b.size):
            x, y = self.xy(p)
            out.append(_el("circle", class_="point", cx=x, cy=y, r=_POINT_R * s))
        out.append("</g>")

        if self.rows_labelled or self.cols_labelled:
            out.append(f'<g class="coordinates" fill="{_TEXT}" text-anchor="middle">')
            if self.rows_labelled:
                f = _ROW_FONT * s
                for row in rows:
                    letter = b.names[row[0]][0]
                    for p, dx in ((row[0], -1.15 * s), (row[-1], 1.15 * s)):
                        x, y = self.xy(p)
                        out.append(
                            _el("text", letter, class_="coord row", x=x + dx, y=y + 0.36 * f,
                                font_size=f, font_weight="bold")
                        )
            if self.cols_labelled:
                f = _COL_FONT * s
                for p in range(b.size):
                    x, y = self.xy(p)
                    out.append(
                        _el("text", b.names[p][1:], class_="coord col", x=x, y=y + _COL_DY * s + 0.36 * f,
                            font_size=f, fill_opacity=0.8)
                    )
            out.append("</g>")
        return out

    def stones(self, light: list[int], dark: list[int]) -> list[str]:
        s = SPACING
        out = []
        for cls, ps, fill, stroke, sw in (
            ("stone light", light, _LIGHT_FILL, _LIGHT_STROKE, 0.06 * s),
            ("stone dark", dark, _DARK_FILL, _DARK_STROKE, 0.04 * s),
        ):
            for p in ps:
                x, y = self.xy(p)
                out.append(
                    _el("circle", class_=cls, data_point=self.board.names[p], cx=x, cy=y,
                        r=_STONE_R * s - sw / 2, fill=fill, stroke=stroke, stroke_width=sw)
                )
        return out

    def legend(self) -> list[str]:
        s = SPACING
        out = []
        f = _LEGEND_FONT * s
        gap = 0.45 * s
        widest = max((sum(w for _, _, w in row) + gap * (len(row) - 1) for row in self.legend_rows), default=0.0)
        for i, row in enumerate(self.legend_rows):
            x = (self.width - widest) / 2  # rows share a left edge
            cy = self.legend_top + 0.31 * s + i * 0.62 * s
            for swatch, label, w in row:
                out.append('<g class="legend">')
                if callable(swatch):  # a value mark, drawn as on the board, smaller
                    out.append(swatch(x + 0.2 * s, cy, 0.24 * s))
                else:
                    out.append(_el("circle", cx=x + 0.2 * s, cy=cy, r=0.2 * s, **swatch))
                out.append(_el("text", label, x=x + 0.55 * s, y=cy + 0.36 * f, font_size=f, fill=_TEXT))
                out.append("</g>")
                x += w + gap
        return out


def position_svg(
    board,
    light: Iterable = (),
    dark: Iterable = (),
    *,
    dead: Iterable = (),
    last=None,
    marks: Iterable = (),
    size: float | None = None,
    coordinates=True,
    title: str | None = None,
    values: Mapping | None = None,
    best=None,
    legend=None,
) -> str:
    """An SVG picture of a position.

    :param board: a :class:`~solver.rules.board.Board` (or ``6``, ``"6/7"``).
    :param light: points (indices or names) holding Light stones.
    :param dark: points holding Dark stones.
    :param dead: points to mark as dead (a red halo and cross), typically whole groups.
    :param last: the point of the last move, marked with a small red dot, or ``None``.
    :param marks: points to mark with a small violet disc, e.g. the legal moves.
    :param size: width of the picture in px; by default it scales with the board
        (6/7 is about 600 px).  The aspect ratio is kept.
    :param coordinates: ``True`` writes the row letter at both ends of every row and the
        column number small under every point; ``"rows"`` writes only the row letters;
        ``False`` writes none.
    :param title: text written above the board.
    :param values: point -> value string, marked as :func:`map_svg` marks them (a win
        move's triangle, say), with their legend; ``best``: a point ringed as the best
        move; ``legend``: as in :func:`map_svg` (only drawn for ``values`` or ``best``).
    :raises BoardError: for a point not on the board, or a point with both colours.
    """
    b = _board(board)
    light_ps, dark_ps = _points(b, light), _points(b, dark)
    both = set(light_ps) & set(dark_ps)
    if both:
        raise BoardError("points with both a Light and a Dark stone: " + ", ".join(b.names[p] for p in sorted(both)))
    dead_ps, mark_ps = _points(b, dead), _points(b, marks)
    last_p = None if last is None else _point(b, last)

    vals = _values_of(b, values or {})
    best_p = None if best is None else _point(b, best)
    look = _Look(_present(vals))
    entries = _legend_entries(vals, look, legend, best_p)

    fr = _Frame(b, coordinates=coordinates, title=title, legend_entries=entries)
    s = SPACING
    out = fr.open(size, "meridians position")
    out += fr.header()
    out += fr.lattice()
    out += _cells(fr, vals, look)
    out += fr.stones(light_ps, dark_ps)
    for p in mark_ps:
        x, y = fr.xy(p)
        out.append(
            _el("circle", class_="mark", data_point=b.names[p], cx=x, cy=y, r=_MARK_R * s,
                fill=_VIOLET, fill_opacity=0.45, stroke=_VIOLET, stroke_width=0.03 * s)
        )
    for p in dead_ps:
        x, y = fr.xy(p)
        a = _CROSS * s
        out.append(
            f'<g class="dead" data-point="{b.names[p]}" fill="none" stroke="{_RED}" stroke-linecap="round">'
            + _el("circle", cx=x, cy=y, r=_DEAD_R * s, stroke_width=0.07 * s, stroke_opacity=0.85)
            + _el("path", d=f"M{_num(x - a)},{_num(y - a)} L{_num(x + a)},{_num(y + a)} "
                  f"M{_num(x - a)},{_num(y + a)} L{_num(x + a)},{_num(y - a)}", stroke_width=0.08 * s)
            + "</g>"
        )
    if last_p is not None:
        x, y = fr.xy(last_p)
        out.append(_el("circle", class_="last", data_point=b.names[last_p], cx=x, cy=y, r=_LAST_R * s, fill=_RED))
    if best_p is not None:
        out.append(_best_ring(*fr.xy(best_p), 0.5 * s, b.names[best_p]))
    out += fr.legend()
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _shape(shape: str, x: float, y: float, r: float, colour: str, number: int = 0) -> str:
    """One value's shape, centred on (x, y), within radius ``r``, in ``colour``."""
    cls = f"shape {shape}"

    def poly(k: int, turn: float, scale: float = 1.0, inner: float | None = None) -> str:
        pts = []
        n = 2 * k if inner else k
        for i in range(n):
            a = turn + 2 * math.pi * i / n
            rr = r * scale * (inner if inner and i % 2 else 1.0)
            pts.append(f"{_num(x + rr * math.sin(a))},{_num(y - rr * math.cos(a))}")
        return _el("polygon", class_=cls, points=" ".join(pts), fill=colour, stroke="#ffffff",
                   stroke_width=0.12 * r)

    if shape == "triangle":  # pointing up; its centroid on the point
        return poly(3, 0.0, 1.05)
    if shape == "triangle-down":
        return poly(3, math.pi, 1.05)
    if shape == "square":
        a = 0.72 * r
        return _el("rect", class_=cls, x=x - a, y=y - a, width=2 * a, height=2 * a, fill=colour,
                   stroke="#ffffff", stroke_width=0.12 * r)
    if shape == "diamond":
        return poly(4, 0.0, 1.0)
    if shape == "hexagon":
        return poly(6, math.pi / 6, 0.95)
    if shape == "pentagon":
        return poly(5, 0.0, 0.98)
    if shape == "star":
        return poly(5, 0.0, 1.1, 0.45)
    if shape in ("cross", "plus"):
        a = 0.7 * r
        if shape == "cross":
            d = f"M{_num(x - a)},{_num(y - a)} L{_num(x + a)},{_num(y + a)} M{_num(x - a)},{_num(y + a)} L{_num(x + a)},{_num(y - a)}"
        else:
            d = f"M{_num(x - a)},{_num(y)} L{_num(x + a)},{_num(y)} M{_num(x)},{_num(y - a)} L{_num(x)},{_num(y + a)}"
        return _el("path", class_=cls, d=d, fill="none", stroke=colour, stroke_width=0.38 * r,
                   stroke_linecap="round")
    if shape == "ring":  # unknown: hollow
        return _el("circle", class_=cls, cx=x, cy=y, r=0.45 * r, fill="none", stroke=colour,
                   stroke_width=0.2 * r)
    # "number": a disc with the value's number, for values past the last shape
    return (_el("circle", class_=f"shape number-{number}", cx=x, cy=y, r=0.8 * r, fill=colour)
            + _el("text", str(number), x=x, y=y + 0.36 * r, text_anchor="middle", font_size=r,
                  font_weight="bold", fill="#ffffff"))


def _tint(colour: str, share: float = 0.25) -> str:
    """``colour`` mixed with white (opaque, so the wood does not muddy it)."""
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - share * (255 - c)):02x}" for c in rgb)


class _Look:
    """How each value is drawn: a colour and a shape (distinct for every value present)."""

    def __init__(self, present: list[str]):
        others = [v for v in present if v not in VALUE_COLORS]
        self.colour = {v: c for v, c in VALUE_COLORS.items()}
        self.shape = dict(VALUE_SHAPES)
        self.number: dict[str, int] = {}
        for i, v in enumerate(others):
            self.colour[v] = _EXTRA_COLORS[i % len(_EXTRA_COLORS)]
            if i < len(_EXTRA_SHAPES):
                self.shape[v] = _EXTRA_SHAPES[i]
            else:
                self.shape[v], self.number[v] = "number", i + 1

    def cell(self, value: str, x: float, y: float, r: float, cls: str = "value", **attrs) -> str:
        """The point's mark: a tinted disc (dashed white for unknown) and the shape."""
        colour = self.colour[value]
        if colour is None:
            disc = _el("circle", class_="cell", cx=x, cy=y, r=r, fill="#ffffff", stroke="#555555",
                       stroke_width=0.12 * r, stroke_dasharray=f"{_num(0.25 * r)},{_num(0.18 * r)}")
            shape = _shape("ring", x, y, r * 0.65, "#555555")
        else:
            disc = _el("circle", class_="cell", cx=x, cy=y, r=r, fill=_tint(colour), stroke=colour,
                       stroke_width=0.08 * r)
            shape = _shape(self.shape[value], x, y, r * 0.65, colour, self.number.get(value, 0))
        head = "<g" + _attrs({"class": f"{cls} {_class_token(value)}", "data_shape": self.shape[value], **attrs}) + ">"
        return head + disc + shape + "</g>"

    def swatch(self, value: str):
        return lambda x, y, r: self.cell(value, x, y, r, "swatch")


def value_mark(value: str, x: float, y: float, r: float, values: Iterable[str] = ()) -> str:
    """The mark :func:`map_svg` draws for ``value`` (as a legend's ``<g class="swatch ...">``), centred
    on (x, y) with radius ``r``, for legends drawn elsewhere (the pie map's); ``values``:
    every value of that picture, which sets the colours and shapes of values outside
    :data:`VALUE_COLORS` as :func:`map_svg` sets them."""
    return _Look(_present({i: v for i, v in enumerate({*values, value})})).cell(value, x, y, r, "swatch")


def _present(vals: Mapping[int, str]) -> list[str]:
    order = {v: i for i, v in enumerate(VALUE_COLORS)}
    return sorted(set(vals.values()), key=lambda v: (order.get(v, len(order)), v))


def _values_of(b: Board, values: Mapping) -> dict[int, str]:
    vals: dict[int, str] = {}
    for p, v in values.items():
        q = _point(b, p)
        if v is None:
            continue
        if not isinstance(v, str):
            raise TypeError(f"value for {b.names[q]} must be a string or None, not {v!r}")
        vals[q] = v
    return vals


def _legend_entries(vals: Mapping[int, str], look: _Look, legend, best: int | None) -> list:
    entries: list = []
    if legend is False:
        return entries
    labels = legend if isinstance(legend, Mapping) else {}
    present = _present(vals)
    for v in present:
        n = sum(1 for x in vals.values() if x == v)
        entries.append((look.swatch(v), f"{labels.get(v, v)} ({n})"))
    if best is not None:
        entries.append((lambda x, y, r: _best_ring(x, y, r), labels.get("best", "best move")))
    return entries


def _best_ring(x: float, y: float, r: float, point: str | None = None) -> str:
    attrs = {"data_point": point} if point else {}
    return _el("circle", class_="best" if point else "swatch best-move", cx=x, cy=y, r=r, fill="none", stroke=_BEST,
               stroke_width=0.09 * r, stroke_dasharray=f"{_num(0.3 * r)},{_num(0.2 * r)}", **attrs)


def _class_token(value: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in value) or "_"


def map_svg(
    board,
    values: Mapping,
    *,
    title: str | None = None,
    legend=None,
    size: float | None = None,
    coordinates=True,
    light: Iterable = (),
    dark: Iterable = (),
    best=None,
) -> str:
    """An SVG picture of the board with every point marked by a value.

    :param values: point (index or name) -> value string.  Each value has a colour and a
        shape (colour-blind safe, and readable in grey): ``'win'`` a blue triangle,
        ``'loss'`` a vermillion cross, ``'draw'`` a grey square, ``'unknown'`` a hollow
        ring on a white dashed disc (:data:`VALUE_COLORS`, :data:`VALUE_SHAPES`);
        ``None`` (or a point left out) nothing; any other string gets a colour and a
        shape of its own (a numbered disc past the sixth).  Each mark is a
        ``<g class="value <value>" data-point data-value data-shape>``.
    :param title: text written above the board.
    :param legend: ``None`` or ``True``: a legend below the board for the values present,
        with how many points have each; a mapping value -> label replaces those labels
        (``'best'`` the best move's); ``False``: no legend.
    :param size: width in px, as in :func:`position_svg`.
    :param coordinates: as in :func:`position_svg`.
    :param light, dark: stones already on the board, drawn as in :func:`position_svg`.
    :param best: a point to ring with a dashed circle (the best move, as on the web board).
    """
    b = _board(board)
    vals = _values_of(b, values)
    light_ps, dark_ps = _points(b, light), _points(b, dark)
    best_p = None if best is None else _point(b, best)
    look = _Look(_present(vals))
    entries = _legend_entries(vals, look, legend, best_p)

    fr = _Frame(b, coordinates=coordinates, title=title, legend_entries=entries)
    out = fr.open(size, "meridians map")
    out += fr.header()
    out += fr.lattice()
    out += _cells(fr, vals, look)
    out += fr.stones(light_ps, dark_ps)
    if best_p is not None:
        out.append(_best_ring(*fr.xy(best_p), 0.5 * SPACING, b.names[best_p]))
    out += fr.legend()
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _cells(fr: _Frame, vals: Mapping[int, str], look: _Look) -> list[str]:
    out = []
    for p in sorted(vals):
        x, y = fr.xy(p)
        v = vals[p]
        out.append(look.cell(v, x, y, _VALUE_R * SPACING, data_point=fr.board.names[p], data_value=v))
    return out


def _free_spot(text: str, font: float, marks, area, near, fallback) -> tuple[float, float]:
    """Where to write ``text`` (its start and baseline) in ``area`` (x0, y0, x1, y1) so that
    its box holds none of the ``marks`` (x, y): beside the first of the points ``near``
    that leaves room, else anywhere in the area, else at ``fallback`` (outside the area,
    where no mark is)."""
    w, pad = _text_width(text, font), 7.0  # pad: the largest mark's half-size and a pixel

    def free(x: float, y: float) -> bool:
        inside = area[0] <= x and x + w <= area[2] and area[1] <= y - font and y + 0.3 * font <= area[3]
        return inside and not any(x - pad <= mx <= x + w + pad and y - font - pad <= my <= y + 0.3 * font + pad
                                  for mx, my in marks)

    tries = [(x + dx, y + dy) for x, y in near for dy in (-10.0, 22.0) for dx in (0.0, -w / 2, -w)]
    tries += [(float(x), float(y)) for y in range(int(area[1] + font), int(area[3]), 6)
              for x in range(int(area[0]), int(area[2] - w), 10)]
    return next(((x, y) for x, y in tries if free(x, y)), fallback)


def growth_svg(rec: Mapping, *, width: float = 640, height: float = 400) -> str:
    """A chart of proof cost against empty points, from ``scripts/measure_growth.py``'s
    record: every position (filled: decided; hollow, at the cap: not decided), the median
    per count, the fitted line extended to the first-move positions, and the first-move
    classes already searched (``rec['classes']``: diamonds, hollow when undecided).

    >>> rec = {"board": "3/4", "cap": 1000, "fit": None, "classes": [],
    ...        "by_empty": [{"empty": 10, "median_expansions": 50}],
    ...        "runs": [{"empty": 10, "value": "win", "expansions": 50}]}
    >>> growth_svg(rec).count('class="run decided"')
    1
    """
    runs, fit, classes = rec["runs"], rec.get("fit"), rec.get("classes", [])
    cap = rec["cap"]
    first_move = len(_board(rec["board"]).names) - 1  # empty points after the first move
    xs = [r["empty"] for r in runs] + ([first_move] if fit or classes else [])
    ys = [max(r["expansions"], 1) for r in runs] + [c["expansions"] for c in classes]
    ys += [fit["first_move_expansions"]] if fit else []
    x0, x1 = min(xs, default=0) - 1, max(xs, default=1) + 1
    y0 = math.floor(math.log10(min(ys, default=1)))
    y1 = math.ceil(math.log10(max(ys, default=10)))
    y1 = max(y1, y0 + 1)
    undecided_runs = any(r["value"] == "unknown" for r in runs)
    med = [(row["empty"], row["median_expansions"]) for row in rec["by_empty"]
           if row.get("median_expansions")]
    # the legend names only the marks drawn below, each entry tagged with its mark's class
    legend = [(mark, text) for mark, text, drawn in (
        ("run decided", "dots: positions from random games", any(r["value"] != "unknown" for r in runs)),
        ("run undecided", "hollow dots: not decided within the cap", undecided_runs),
        ("cap", "red dashed line: the cap", True),
        ("median", "black: median", len(med) > 1),
        ("fit", "blue: fitted line", bool(fit)),
        ("class", "diamonds: first-move classes", bool(classes)),
        ("class undecided", "hollow diamonds: not decided", any(not c["decided"] for c in classes)),
    ) if drawn]
    left, right, bottom = 70.0, 20.0, 50.0
    legend_lines: list[list[tuple[str, str]]] = [[]]
    for mark, text in legend:
        line = legend_lines[-1]
        if line and _text_width("; ".join(t for _, t in line + [(mark, text)]), 10) > width - left - right:
            legend_lines.append(line := [])
        line.append((mark, text))
    top = 40.0 + 13 * len(legend_lines)

    def px(e: float) -> float:
        return left + (e - x0) / (x1 - x0) * (width - left - right)

    def py(n: float) -> float:
        return top + (y1 - math.log10(max(n, 1))) / (y1 - y0) * (height - top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
           f'viewBox="0 0 {_num(width)} {_num(height)}" font-family="sans-serif" font-size="12">',
           _el("rect", x=0, y=0, width=width, height=height, fill="white"),
           _el("text", f"{rec['board']}: df-pn expansions against empty points", x=left, y=22.0,
               font_size=15, class_="title")]
    for i, line in enumerate(legend_lines):
        spans = "; ".join(f"<tspan{_attrs({'data_mark': mark})}>{escape(text)}</tspan>" for mark, text in line)
        attrs = _attrs({"x": left, "y": 38.0 + 13 * i, "font_size": 10, "fill": "#444", "class_": "legend"})
        out.append(f"<text{attrs}>{spans}</text>")
    for k in range(y0, y1 + 1):
        y = py(10 ** k)
        out.append(_el("line", x1=left, y1=y, x2=width - right, y2=y, stroke="#ddd"))
        out.append(_el("text", f"1e{k}", x=left - 8, y=y + 4, text_anchor="end", class_="axis"))
    for e in range(math.ceil(x0), math.floor(x1) + 1):
        if e % 2 == 0:
            out.append(_el("text", str(e), x=px(e), y=height - bottom + 18, text_anchor="middle", class_="axis"))
    out.append(_el("text", "empty points", x=(left + width - right) / 2, y=height - 12.0,
                   text_anchor="middle"))
    out.append(_el("line", x1=left, y1=py(cap), x2=width - right, y2=py(cap), stroke="#c33",
                   stroke_dasharray="4 3", class_="cap"))
    marks = [(px(r["empty"]), py(r["expansions"] if r["value"] != "unknown" else cap)) for r in runs]
    marks += [(px(e), py(n)) for e, n in med] + [(px(first_move), py(c["expansions"])) for c in classes]
    if fit:
        e_a, e_b = min(fit["counts_used"]), fit["first_move_empty"]
        def line_y(e):
            return 10 ** (fit["intercept"] + fit["log10_per_point"] * e)
        out.append(_el("line", x1=px(e_a), y1=py(line_y(e_a)), x2=px(e_b), y2=py(line_y(e_b)),
                       stroke="#36c", stroke_width=1.5, stroke_dasharray="6 3", class_="fit"))
        label = f"x{fit['factor_per_point']:.2f} per empty point"
        x, y = _free_spot(label, 12, marks, (left, top, width - right, height - bottom),
                          [(px(e_a + (e_b - e_a) * k / 10), py(line_y(e_a + (e_b - e_a) * k / 10)))
                           for k in range(11)], fallback=(width - right - _text_width(label, 12), 22.0))
        out.append(_el("text", label, x=x, y=y, fill="#36c", class_="fit-label"))
    for r in runs:
        decided = r["value"] != "unknown"
        n = r["expansions"] if decided else cap
        out.append(_el("circle", cx=px(r["empty"]), cy=py(n), r=3.0,
                       fill="#555" if decided else "none", stroke="#555",
                       class_="run decided" if decided else "run undecided"))
    if len(med) > 1:
        d = " ".join(f"{'M' if i == 0 else 'L'}{_num(px(e))},{_num(py(n))}" for i, (e, n) in enumerate(med))
        out.append(_el("path", d=d, fill="none", stroke="#000", stroke_width=2.0, class_="median"))
    for c in classes:
        x, y = px(first_move), py(c["expansions"])
        out.append(_el("path", d=f"M{_num(x)},{_num(y - 6)} L{_num(x + 6)},{_num(y)} L{_num(x)},{_num(y + 6)} "
                       f"L{_num(x - 6)},{_num(y)} Z", fill="#2a2" if c["decided"] else "none",
                       stroke="#2a2", class_="class" if c["decided"] else "class undecided"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def frontier_svg(rec: Mapping, *, width: float = 760, height: float = 360) -> str:
    """A chart of ``scripts/bench_frontier.py``'s record: on the left the share of
    positions decided within the budget, on the right the median seconds (drawn at the
    budget, hollow, when half or more were not decided), against empty points; one line
    per board and mode (solid: with knowledge, dashed: plain df-pn, dotted: guided by the
    move model, dash-dotted: guided and focused).

    >>> rec = {"seconds": 60, "summary": [
    ...     {"board": "6/7", "empty": 20, "mode": "knowledge", "share": 1.0, "median_seconds": 2.0},
    ...     {"board": "6/7", "empty": 20, "mode": "plain", "share": 0.5, "median_seconds": None}]}
    >>> frontier_svg(rec).count('class="series')
    2
    """
    rows, budget = rec["summary"], rec["seconds"]
    series: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        series.setdefault((r["board"], r["mode"]), []).append(r)
    boards = sorted({b for b, _ in series})
    colours = dict(zip(boards, ("#36c", "#c63", "#393", "#939", "#555")))
    xs = [r["empty"] for r in rows] or [0, 1]
    x0, x1 = min(xs) - 1, max(xs) + 1
    panel, gap, left, top, bottom = (width - 110) / 2, 50.0, 60.0, 70.0, 46.0
    y_lo, y_hi = math.log10(0.01), math.log10(max(budget, 0.1))

    def px(k: int, e: float) -> float:
        return left + k * (panel + gap) + (e - x0) / max(x1 - x0, 1) * panel

    def py_share(s: float) -> float:
        return top + (1 - s) * (height - top - bottom)

    def py_secs(t: float) -> float:
        t = min(max(t, 0.01), budget)
        return top + (y_hi - math.log10(t)) / max(y_hi - y_lo, 1e-9) * (height - top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
           f'viewBox="0 0 {_num(width)} {_num(height)}" font-family="sans-serif" font-size="12">',
           _el("rect", x=0, y=0, width=width, height=height, fill="white"),
           _el("text", f"The proof frontier: positions from random games, {budget:g} s each", x=left,
               y=22.0, font_size=15, class_="title"),
           _el("text", "solid: df-pn with knowledge; dashed: plain df-pn; "
               + ("dotted: guided; " if any(m == "guided" for _, m in series) else "")
               + ("dash-dotted: focused; " if any(m == "focused" for _, m in series) else "")
               + "hollow: median over the budget", x=left, y=40.0, font_size=10, fill="#444", class_="legend")]
    for i, b in enumerate(boards):
        out.append(_el("text", b, x=left + 420 + 50 * i, y=40.0, font_size=11, fill=colours[b], class_="legend"))
    for k, name in enumerate(("share decided", "median seconds")):
        xa, xb = px(k, x0), px(k, x1)
        out.append(_el("text", name, x=xa, y=top - 10, font_size=12, class_="axis"))
        ticks = [(py_share(s), f"{round(s * 100)}%") for s in (0, 0.25, 0.5, 0.75, 1)] if k == 0 else \
            [(py_secs(t), f"{t:g}") for t in (0.01, 0.1, 1, 10, 100, 1000) if t <= budget] + [(py_secs(budget), f"{budget:g}")]
        for y, label in ticks:
            out.append(_el("line", x1=xa, y1=y, x2=xb, y2=y, stroke="#ddd"))
            out.append(_el("text", label, x=xa - 6, y=y + 4, text_anchor="end", class_="axis"))
        for e in sorted(set(xs)):
            out.append(_el("text", str(e), x=px(k, e), y=height - bottom + 16, text_anchor="middle", class_="axis"))
        out.append(_el("text", "empty points", x=(xa + xb) / 2, y=height - 10.0, text_anchor="middle"))
    for (b, mode), rs in sorted(series.items()):
        rs = sorted(rs, key=lambda r: r["empty"])
        dash = {} if mode == "knowledge" else {
            "stroke_dasharray": {"guided": "2 3", "focused": "8 3 2 3"}.get(mode, "6 4")}
        pts = [(px(0, r["empty"]), py_share(r["share"])) for r in rs]
        d = " ".join(f"{'M' if i == 0 else 'L'}{_num(x)},{_num(y)}" for i, (x, y) in enumerate(pts))
        out.append(_el("path", d=d, fill="none", stroke=colours[b], stroke_width=2.0,
                       class_=f"series {mode}", **dash))
        pts = [(px(1, r["empty"]), py_secs(budget if r["median_seconds"] is None else r["median_seconds"]),
                r["median_seconds"] is None) for r in rs]
        d = " ".join(f"{'M' if i == 0 else 'L'}{_num(x)},{_num(y)}" for i, (x, y, _) in enumerate(pts))
        out.append(_el("path", d=d, fill="none", stroke=colours[b], stroke_width=2.0, **dash))
        for x, y, over in pts:
            out.append(_el("circle", cx=x, cy=y, r=3.0, fill="none" if over else colours[b], stroke=colours[b]))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def analysis_svg(rec: Mapping, *, width: float = 760, height: float = 360) -> str:
    """A chart of a game analysis (:meth:`solver.app.analysis.Analysis.as_dict`): Light's
    winning chances against the ply, a proven Light win 1, a proven Dark win 0, a draw
    0.5, an engine estimate its win rate seen from Light.  Proven points are filled
    (``class="point proven"``), estimates hollow (``class="point estimate"``), blunders
    ringed in red with ``??`` (``class="blunder"``); the plies from the forced-from ply on
    are shaded (``class="forced"``).  Positions not analysed are left out.

    >>> rec = {"board": "2/3", "result": "L", "forced_from": 1, "blunders": [{"ply": 0, "kind": "x"}],
    ...        "positions": [{"ply": 0, "light_chance": 0.0, "source": "database"},
    ...                      {"ply": 1, "light_chance": 0.6, "source": "engine"},
    ...                      {"ply": 2, "light_chance": None, "source": "none"}]}
    >>> svg = analysis_svg(rec)
    >>> svg.count('class="point proven"'), svg.count('class="point estimate"'), svg.count('class="blunder"')
    (1, 1, 1)
    """
    positions = rec["positions"]
    plies = [p["ply"] for p in positions] or [0]
    x0, x1 = min(plies), max(max(plies), min(plies) + 1)
    left, right, top, bottom = 92.0, 24.0, 70.0, 46.0

    def px(ply: float) -> float:
        return left + (ply - x0) / (x1 - x0) * (width - left - right)

    def py(chance: float) -> float:
        return top + (1 - chance) * (height - top - bottom)

    players = rec.get("players") or {}

    def short(name: str, most: int = 40) -> str:  # a long player name must not run off the chart
        return name if len(name) <= most else name[:most - 1] + "\u2026"

    who = (f"Light: {short(players.get('L') or '?')};  Dark: {short(players.get('D') or '?')}"
           if any(players.values()) else "")
    result = {"L": "Light won", "D": "Dark won", "draw": "a draw"}.get(rec.get("result"), "no result")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
           f'viewBox="0 0 {_num(width)} {_num(height)}" font-family="sans-serif" font-size="12">',
           _el("rect", x=0, y=0, width=width, height=height, fill="white"),
           _el("text", f"{rec['board']} game: Light's winning chances by ply; {result}", x=left - 32,
               y=22.0, font_size=15, class_="title"),
           _el("text", who, x=left - 32, y=38.0, font_size=11, fill="#222", class_="players"),
           _el("text", "filled: proven (rules, database, proof); hollow: engine estimate (a win rate, not a proof); "
               "red ??: blunder", x=left - 32, y=53.0, font_size=10, fill="#444", class_="legend")]
    forced = rec.get("forced_from")
    if forced is not None:
        xa = px(forced) - (4.0 if forced == x0 else (px(forced) - px(forced - 1)) / 2)
        out.append(_el("rect", x=xa, y=top, width=max(width - right - xa, 1.0), height=height - top - bottom,
                       fill="#e8f3e8", class_="forced"))
        out.append(_el("text", f"forced from ply {forced}", x=width - right, y=top - 8, text_anchor="end",
                       font_size=10, fill="#3a7a3a", class_="legend"))
    for chance, label in ((1.0, "Light wins"), (0.75, "0.75"), (0.5, "0.5"), (0.25, "0.25"), (0.0, "Dark wins")):
        y = py(chance)
        out.append(_el("line", x1=left, y1=y, x2=width - right, y2=y, stroke="#ddd"))
        out.append(_el("text", label, x=left - 8, y=y + 4, text_anchor="end", class_="axis"))
    step = max(1, math.ceil((x1 - x0) / 16))
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, step) if s >= step)
    for ply in range(x0 - x0 % step, x1 + 1, step):
        if ply >= x0:
            out.append(_el("text", str(ply), x=px(ply), y=height - bottom + 16, text_anchor="middle", class_="axis"))
    out.append(_el("text", "ply", x=(left + width - right) / 2, y=height - 10.0, text_anchor="middle"))
    pts = [(p["ply"], p["light_chance"], p["source"]) for p in positions if p.get("light_chance") is not None]
    if len(pts) > 1:
        d = " ".join(f"{'M' if i == 0 else 'L'}{_num(px(k))},{_num(py(c))}" for i, (k, c, _) in enumerate(pts))
        out.append(_el("path", d=d, fill="none", stroke="#36c", stroke_width=1.5, class_="series"))
    for k, c, source in pts:
        proven = source != "engine"
        out.append(_el("circle", cx=px(k), cy=py(c), r=3.5, fill="#36c" if proven else "white", stroke="#36c",
                       stroke_width=1.5, class_="point proven" if proven else "point estimate", data_ply=str(k)))
    chances = {k: c for k, c, _ in pts}
    for b in rec.get("blunders", []):
        k = b["ply"]
        y = py(chances.get(k, 0.5))
        out.append(_el("circle", cx=px(k), cy=y, r=7.0, fill="none", stroke=_RED, stroke_width=2.0,
                       class_="blunder", data_ply=str(k)))
        out.append(_el("text", "??", x=px(k), y=y - 11 if y > top + 20 else y + 21, text_anchor="middle",
                       font_size=11, font_weight="bold", fill=_RED))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def reliability_svg(rec: Mapping, budget: str | None = None, *, size: float = 420) -> str:
    """The reliability diagram of ``scripts/measure_calibration.py``'s record at ``budget``
    (playouts; None: the first): for each bin of predictions (10 bins), the mean prediction
    against the share of games won, the raw win rate (orange circles, ``class="bin raw"``)
    and the calibrated probability (blue squares, ``class="bin calibrated"``), each mark's
    area by the bin's positions; a perfect estimate lies on the diagonal.

    >>> b = {"count": 30, "predicted": 0.6, "observed": 0.7}
    >>> s = {"brier": 0.2, "max_gap": 0.1, "positions": 30, "reliability": [b]}
    >>> rec = {"board": "5/6", "joint": {"chosen": "bias+logit"}, "budgets": {"800": {"raw": s, "calibrated": s}}}
    >>> svg = reliability_svg(rec)
    >>> svg.count('class="bin raw"'), svg.count('class="bin calibrated"')
    (1, 1)
    """
    budget = next(iter(rec["budgets"])) if budget is None else budget
    res = rec["budgets"][budget]
    series = [("raw", "raw win rate", "#d55e00", res["raw"])]
    if res.get("calibrated"):
        series.append(("calibrated", f"calibrated ({rec['joint']['chosen']})", "#0072b2", res["calibrated"]))
    left, right, top, bottom = 60.0, 20.0, 78.0, 46.0
    width, height = size, size + top - 40
    side = width - left - right

    def px(p: float) -> float:
        return left + p * side

    def py(p: float) -> float:
        return top + (1 - p) * (height - top - bottom)

    most = max((b["count"] for _, _, _, s in series for b in s["reliability"]), default=1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
           f'viewBox="0 0 {_num(width)} {_num(height)}" font-family="sans-serif" font-size="12">',
           _el("rect", x=0, y=0, width=width, height=height, fill="white"),
           _el("text", f"{rec['board']}: the engine's estimate at {int(budget):,} playouts against results",
               x=12.0, y=20.0, font_size=14, class_="title")]
    for i, (cls, name, colour, s) in enumerate(series):
        gap = "-" if s.get("max_gap") is None else f"{s['max_gap']:.3f}"
        mark = "\u25cf" if cls == "raw" else "\u25a0"
        out.append(_el("text", f"{mark} {name}: Brier {s['brier']:.4f}, "
                       f"largest gap {gap}", x=12.0, y=38.0 + 14 * i, font_size=11, fill=colour, class_="legend"))
    out.append(_el("text", f"{res['raw']['positions']:,} held-out positions; mark area: positions in the bin",
                   x=12.0, y=38.0 + 14 * len(series), font_size=10, fill="#444", class_="legend"))
    for k in range(0, 11, 2):
        t = k / 10
        out.append(_el("line", x1=px(0), y1=py(t), x2=px(1), y2=py(t), stroke="#eee"))
        out.append(_el("line", x1=px(t), y1=py(0), x2=px(t), y2=py(1), stroke="#eee"))
        out.append(_el("text", f"{t:.1f}", x=left - 6, y=py(t) + 4, text_anchor="end", class_="axis"))
        out.append(_el("text", f"{t:.1f}", x=px(t), y=py(0) + 16, text_anchor="middle", class_="axis"))
    out.append(_el("line", x1=px(0), y1=py(0), x2=px(1), y2=py(1), stroke="#999", stroke_dasharray="4 3",
                   class_="diagonal"))
    out.append(_el("text", "predicted probability that the player to move wins", x=px(0.5), y=height - 10.0,
                   text_anchor="middle"))
    out.append(_el("text", "share won", x=14.0, y=py(0.5), text_anchor="middle",
                   transform=f"rotate(-90 14 {_num(py(0.5))})"))
    for cls, _, colour, s in series:
        bins = s["reliability"]
        if len(bins) > 1:
            d = " ".join(f"{'M' if i == 0 else 'L'}{_num(px(b['predicted']))},{_num(py(b['observed']))}"
                         for i, b in enumerate(bins))
            out.append(_el("path", d=d, fill="none", stroke=colour, stroke_width=1.2, class_="series"))
        for b in bins:
            r = 2.0 + 7.0 * math.sqrt(b["count"] / most)
            x, y = px(b["predicted"]), py(b["observed"])
            title = f"{b['count']} positions: predicted {b['predicted']:.3f}, won {b['observed']:.3f}"
            shape = (_el("circle", cx=x, cy=y, r=r, fill=colour, fill_opacity="0.6", stroke=colour) if cls == "raw"
                     else _el("rect", x=x - r * 0.89, y=y - r * 0.89, width=r * 1.78, height=r * 1.78, fill=colour,
                              fill_opacity="0.6", stroke=colour))
            out.append(f'<g class="bin {cls}"><title>{escape(title)}</title>{shape}</g>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
