"""The pie map: who wins after each pair of first stones, drawn as one small board per
Light point."""

from __future__ import annotations

from solver.rules.position import Position

__all__ = ["pie_map_svg"]


def pie_map_svg(position: Position, pairs: dict[str, str], *, title: str | None = None,
                board_px: float = 150) -> str:
    """An SVG picture of a pie map: one small board per Light point (where the Light
    stone is drawn), laid out like the board's rows, every other point marked by who
    wins when the Dark stone goes there, in :func:`solver.app.svg.map_svg`'s colours and
    shapes (a blue triangle Light, a vermillion cross Dark, a grey square a draw, a
    hollow ring unknown), with a legend of those marks.

    >>> from solver import Board, Position
    >>> svg = pie_map_svg(Position.start(Board.parse("1/2")), {"a1-b1": "D"})
    >>> svg.count('class="meridians map"')
    4
    """
    from xml.sax.saxutils import escape

    from ..svg import map_svg, value_mark

    board = position.board
    names = board.names
    colour = {"L": "win", "D": "loss", "draw": "draw", "unknown": "unknown"}
    counts: dict[str, int] = {}
    for v in pairs.values():
        counts[v] = counts.get(v, 0) + 1
    small: list[tuple[int, str]] = []
    for p in range(board.size):
        values = {}
        for q in range(board.size):
            v = pairs.get(f"{names[p]}-{names[q]}")
            if v is not None:
                values[q] = colour.get(v, v)
        small.append((p, map_svg(board, values, title=f"Light {names[p]}", legend=False,
                                 coordinates=False, light=[p], size=board_px)))
    # the small boards' height from the first one's viewBox
    first = small[0][1]
    vb = first.split('viewBox="', 1)[1].split('"', 1)[0].split()
    board_h = board_px * float(vb[3]) / float(vb[2])
    rows: dict[int, list[int]] = {}
    for p in range(board.size):
        rows.setdefault(board.row_col(p)[0], []).append(p)
    gap = 0.08 * board_px
    cols = max(len(r) for r in rows.values())
    text = title or f"{board.name} pie: who wins after Light's and Dark's first stones"
    names_of = {"L": "Light wins", "D": "Dark wins", "draw": "draw", "unknown": "unknown"}
    lines = [
        (text, 22, "bold"),
        ("Each board: Light's stone (white); each point: the winner when Dark's stone goes there", 14, "normal"),
    ]
    # the legend: the marks themselves (drawn by map_svg, so they are the boards' own)
    # with their meaning and count, for the winners present
    shown = [v for v in ("L", "D", "draw", "unknown") if v in counts] + sorted(set(counts) - set(names_of))
    marks = [colour.get(v, v) for v in counts]
    legend = [(colour.get(v, v), f"{names_of.get(v, v)} ({counts[v]} pairs)") for v in shown]
    legend_w = sum(30 + 0.56 * 14 * len(t) for _, t in legend)
    width = max(cols * (board_px + gap) + gap, max(0.56 * f * len(t) + 20 for t, f, _ in lines), legend_w + 20)
    head = 24 + sum(f * 1.5 for _, f, _ in lines) + (26 if legend else 0)
    height = head + len(rows) * (board_h + gap) + gap
    out = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" class="meridians pie-map" '
         f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" '
         f'font-family="Helvetica, Arial, sans-serif">'),
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#fbf8f1"/>',
    ]
    y = 12.0
    for i, (t, f, weight) in enumerate(lines):
        y += f * 1.5
        cls = "title" if i == 0 else "legend"
        out.append(f'<text class="{cls}" x="{width / 2:.0f}" y="{y:.0f}" text-anchor="middle" font-size="{f}" '
                   f'font-weight="{weight}" fill="#3b2f20">{escape(t)}</text>')
    x = (width - legend_w) / 2
    for v, t in legend:
        out.append(f'<g class="legend">{value_mark(v, x + 9, y + 22, 9, marks)}'
                   f'<text x="{x + 24:.1f}" y="{y + 27:.1f}" font-size="14" fill="#3b2f20">{escape(t)}</text></g>')
        x += 30 + 0.56 * 14 * len(t)
    svgs = dict(small)
    for y in sorted(rows):
        row = sorted(rows[y], key=lambda p: board.row_col(p)[1])
        x0 = (width - len(row) * (board_px + gap) + gap) / 2
        top = head + gap + y * (board_h + gap)
        for i, p in enumerate(row):
            inner = svgs[p].replace("<svg", f'<svg x="{x0 + i * (board_px + gap):.1f}" y="{top:.1f}"', 1)
            out.append(inner.strip())
    out.append("</svg>")
    return "\n".join(out) + "\n"
