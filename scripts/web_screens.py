#!/usr/bin/env python3
"""Screenshots of ``meridians serve``'s pages in headless Chromium (Debian's chromium and
chromium-driver): ``results/screens/board-3-4.png`` (the analysis board on the empty 3/4
board, every move valued from the opening database), ``board-5-6.png`` (a 5/6
position: the engine's labelled estimates), ``board-graph.png`` (the whole page after six
moves on 5/6, each analysed: the value graph along the game, the bar and the top three lines),
``board-phone.png`` (the same game on a 390 px phone), ``trainer.png`` (mid-session: a
capture in 1 solved, the rating moved, then a 4/5 capture-in-2 puzzle after the key and the
defender's answer) and ``play.png`` (a game against the engine on 5/6 at the page's default
level, after four moves of each side).

Usage: python scripts/web_screens.py [--out results/screens] [--time 2] [--only board trainer play]

The server runs in this process (:func:`solver.app.web.screens.served_browser`: uvicorn in
a thread, one worker process) on a free loopback port; the pages are driven by clicks, as
a user would.  Each screenshot is written atomically (never half a picture).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from solver.app.web.screens import served_browser
from solver.rules.board import Board
from solver.rules.position import Position
from solver.util.files import write_atomic

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "screens"
#: the screenshots of each part
SCREENS = {"board": ("board-3-4.png", "board-5-6.png", "board-graph.png", "board-phone.png"),
           "trainer": ("trainer.png",), "play": ("play.png",)}


def shot(d, path: Path) -> None:
    """The browser ``d``'s screenshot (PNG) written to ``path`` atomically: never half a
    picture; a file that cannot be written is one line (selenium's save_screenshot said
    nothing)."""
    try:
        write_atomic(path, d.get_screenshot_as_png())
    except OSError as e:
        sys.exit(f"web_screens: cannot write {path}: {e.strerror or e}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--time", default="2", help="the analysis time chosen on the page: 0.5, 1, 2, 5 or 10")
    ap.add_argument("--only", nargs="+", choices=list(SCREENS), default=list(SCREENS),
                    help="only these pages' screenshots (default: all)")
    args = ap.parse_args()
    only = args.only
    out = Path(args.out) if args.out else OUT
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        sys.exit(f"web_screens: cannot create {out}: {e.strerror or e}")
    with served_browser() as (d, url):
        wait = WebDriverWait(d, 120, poll_frequency=0.1)

        def text(i: str) -> str:
            return d.find_element(By.ID, i).text

        def click(point: str) -> None:
            d.find_element(By.CSS_SELECTOR, f'#board .hit[data-point="{point}"]').click()

        if "board" in only:
            d.get(url + "/?position=3/4")
            Select(d.find_element(By.ID, "time")).select_by_value(args.time)
            wait.until(lambda _: "(database)" in text("value"))
            shot(d, out / "board-3-4.png")

            d.get(url + "/?position=" + "5/6/7/8/9/10/9/8/7/6/5 L")
            Select(d.find_element(By.ID, "time")).select_by_value(args.time)
            for m, n in (("f5", 1), ("f7", 2), ("d3", 3), ("h5", 4)):
                wait.until(lambda _: "to move" in text("to-move"))
                click(m)
                wait.until(lambda _: len(text("moves").split()) == n)
            wait.until(lambda _: "to move:" in text("value"))
            shot(d, out / "board-5-6.png")

            # six moves on 5/6, each position analysed in turn: the graph fills as the game goes
            game = ("f5", "f7", "d3", "h5", "e5", "h7")
            d.set_window_size(1400, 1250)
            d.get(url + "/?position=5/6")
            Select(d.find_element(By.ID, "time")).select_by_value(args.time)
            for n, m in enumerate(game, 1):
                wait.until(lambda _: "to move:" in text("value") and "to move" in text("to-move"))
                click(m)
                wait.until(lambda _: len(text("moves").split()) == n)
            wait.until(lambda _: len(d.find_elements(By.CSS_SELECTOR, "#graph .gp")) >= len(game)
                       and len(d.find_elements(By.CSS_SELECTOR, "#top-moves li")) > 0)
            shot(d, out / "board-graph.png")
            d.set_window_size(1280, 900)

            # a phone: the same game from its link
            d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
            d.get(url + "/?position=5/6&moves=" + ",".join(game))
            wait.until(lambda _: len(d.find_elements(By.CSS_SELECTOR, "#board .hit")) > 0 and "to move:" in text("value"))
            shot(d, out / "board-phone.png")
            d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

        if "trainer" in only:
            def play_key() -> None:
                with urllib.request.urlopen(f"{url}/api/puzzle?id={text('puzzle-id')}") as r:
                    data = json.load(r)
                click(Board.parse(data["board"]).names[data["data"]["k"]])

            d.get(url + "/trainer")
            wait.until(lambda _: len(Select(d.find_element(By.ID, "filter-board")).options) > 1)
            Select(d.find_element(By.ID, "filter-board")).select_by_value("4/5")
            wait.until(lambda _: text("puzzle-id").startswith("m45"))
            Select(d.find_element(By.ID, "filter-n")).select_by_value("1")  # one solved: the rating moves
            wait.until(lambda _: text("puzzle-id").startswith("m45-c1") and text("status") == "Click the key.")
            play_key()
            wait.until(lambda _: "Solved" in text("status") and text("rating-change"))
            Select(d.find_element(By.ID, "filter-n")).select_by_value("2")
            wait.until(lambda _: text("puzzle-id").startswith("m45-c2") and text("status") == "Click the key.")
            play_key()
            wait.until(lambda _: "Your move" in text("status"))
            shot(d, out / "trainer.png")

        if "play" in only:
            # play the engine: 5/6, Light, the page's default level; four moves each, ours the first
            # of a fixed list that leaves none of ours dead (the engine's replies decide which)
            d.get(url + "/play")
            d.execute_script("localStorage.clear();")
            d.get(url + "/play")
            wait.until(lambda _: len(Select(d.find_element(By.ID, "pl-level")).options) > 0)
            Select(d.find_element(By.ID, "pl-board")).select_by_value("5/6")
            Select(d.find_element(By.ID, "pl-colour")).select_by_value("L")
            d.find_element(By.ID, "pl-new").click()

            def played() -> list[str]:
                return d.execute_script("return Array.from(document.querySelectorAll('#moves li'))"
                                        ".map(function (e) { return e.textContent.split(' ')[0]; });")

            wait.until(lambda _: text("status") == "A new game: your move." and played() == [])
            pos = Position.start("5/6")
            for n in range(4):
                # (a move after which the game goes on and none of ours is dead: a stone left without a
                # path is removed, and some moves lose at once)
                ok = [m for m in pos.legal_moves() if pos.play(m).outcome is None
                      and not pos.play(m).marked_dead() & pos.play(m).stones("L")]
                choice = next((m for m in ("f5", "d3", "h5", "g6", "e4", "f7") if m in ok),
                              (ok or pos.legal_moves())[0])
                click(choice)
                # (the engine's first move may wait for its kernels' compile: minutes on a fresh checkout)
                WebDriverWait(d, 600, poll_frequency=0.1).until(lambda _: len(played()) == 2 * n + 2)
                for m in played()[2 * n:]:
                    pos = pos.play(m)
            wait.until(lambda _: "Your move" in text("pl-turn"))
            shot(d, out / "play.png")
    names = [n for part in only for n in SCREENS[part]]
    print(f"written: {', '.join(str(out / n) for n in names)}")


if __name__ == "__main__":
    main()
