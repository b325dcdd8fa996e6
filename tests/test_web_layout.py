"""The web pages' layout and legibility in headless Chromium: the board takes the room the
side panel leaves, its coordinates are at least 11 px high and drawn over the stones at a
phone's width and a desktop's, and every visible text passes WCAG 2 AA contrast against the
background it is drawn on (as the browser computes both)."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")

from test_book import driver, wait_for  # noqa: E402,F401  (the same headless Chromium)
from test_web import drawn, no_console_errors, server  # noqa: E402,F401

from solver import Position  # noqa: E402

GAME_56 = "c7,j5,j3,c2,d8,c1"  # six moves on 5/6: stones next to points' numbers


def sized(driver, width: int, height: int = 900) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def open_page(driver, url: str, points: int) -> None:
    driver.get(url)
    wait_for(driver, lambda: len(drawn(driver)["hits"]) == points, timeout=60)


# The board as rendered: the lattice's drawn width, the room left of the side panel, and
# every coordinate label's rendered font size (its font size times the drawing's scale).
MEASURE = """
    var svg = document.querySelector('#board svg'), lat = svg.querySelector('use[href^="#lattice"], .lattice');
    var side = document.querySelector('.side'), col = document.querySelector('.board-col');
    var labels = Array.from(svg.querySelectorAll('.coords text')).map(function (t) {
      return [t.textContent, parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a]; });
    var g = svg.querySelector('.coords'), after = [], n = g;
    while ((n = n.nextElementSibling)) { after.push(n.getAttribute('class')); }
    var before = Array.from(svg.children).slice(0, Array.from(svg.children).indexOf(g)).map(function (e) {
      return e.getAttribute('class') || e.tagName; });
    var d = document.documentElement;
    return { board: lat.getBoundingClientRect().width, room: side.getBoundingClientRect().left - col.getBoundingClientRect().left,
             side_top: side.getBoundingClientRect().top, col_top: col.getBoundingClientRect().top,
             labels: labels, after: after, before: before, halo: [g.getAttribute('stroke'), g.getAttribute('paint-order')],
             overflow: d.scrollWidth - d.clientWidth };"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [390, 1400])
def test_board_fills_its_room_and_its_coordinates_are_readable(server, driver, width):
    sized(driver, width)
    try:
        for board, moves in (("3/4", ""), ("5/6", GAME_56), ("7/8", "")):
            pos = Position.start(board)
            url = f"{server}/?position={board}&moves={moves}" if moves else f"{server}/?position={board}"
            open_page(driver, url, len(pos.board.names))
            m = driver.execute_script(MEASURE)
            assert m["overflow"] == 0, (board, width)
            if width == 1400:  # side by side: the board uses at least 70% of the room left of the panel
                assert m["side_top"] == m["col_top"] and m["board"] >= 0.7 * m["room"], (board, m["board"], m["room"])
            else:  # one column: the board nearly the screen's width
                assert m["board"] >= 0.8 * width, (board, m["board"])
            rows = {n[0] for n in pos.board.names}
            texts = [t for t, _ in m["labels"]]
            assert sorted(set(texts) - {str(i) for i in range(1, 20)}) == sorted(rows)
            assert len(texts) == 2 * len(rows) + len(pos.board.names)
            assert min(px for _, px in m["labels"]) >= 11, (board, width, min(m["labels"], key=lambda t: t[1]))
            # drawn after (over) the stones and the marks, only the transparent click targets above them
            assert set(m["after"]) == {"hit"} and any("stone" in c for c in m["before"]) == bool(moves)
            assert m["halo"] == ["#fbf8f1", "stroke"]
        no_console_errors(driver)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
