#!/usr/bin/env python3
"""Screenshots of the opening explorer (``/explorer``) in headless Chromium (Debian's
chromium and chromium-driver): ``results/screens/explorer-3-4.png`` (the empty 3/4 board,
every first move with its value from the database), ``explorer-live.png`` (past the
database after c2 a1, with a live proof's answer) and ``explorer-phone.png`` (2/3 after six
moves, where most lengths are known, 390 px wide).

Usage: python scripts/explorer_screens.py [--out results/screens] [--time 2]

The server runs in this process (uvicorn in a thread, one worker process) on a free
loopback port (:func:`solver.app.web.screens.served_browser`); the page is driven by
clicks, as a user would.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from solver.app.web.screens import served_browser

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "screens"
NAMES = ("explorer-3-4.png", "explorer-live.png", "explorer-phone.png")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--time", default="2", help="the live proof's time chosen on the page: 1, 2, 5, 10 or 30")
    args = ap.parse_args()
    out = Path(args.out) if args.out else OUT
    out.mkdir(parents=True, exist_ok=True)
    with served_browser(compile_wait=600) as (d, base):
        url = base + "/explorer"
        wait = WebDriverWait(d, 180, poll_frequency=0.1)

        def text(i: str) -> str:
            return d.find_element(By.ID, i).text

        def rows() -> int:
            return len(d.find_elements(By.CSS_SELECTOR, "#ex-moves tbody tr[data-move]"))

        d.get(url + "?board=3/4")
        wait.until(lambda _: rows() == 30)
        d.save_screenshot(str(out / NAMES[0]))

        d.find_element(By.CSS_SELECTOR, '#ex-moves tr[data-move="c2"] td.value').click()
        wait.until(lambda _: rows() == 29)
        d.find_element(By.CSS_SELECTOR, '#board .hit[data-point="a1"]').click()
        wait.until(lambda _: not d.find_element(By.ID, "ex-ends").get_attribute("hidden"))
        Select(d.find_element(By.ID, "ex-time")).select_by_value(args.time)
        d.find_element(By.ID, "ex-prove").click()
        wait.until(lambda _: text("ex-live").startswith("Live"))
        d.save_screenshot(str(out / NAMES[1]))

        d.set_window_size(390, 1400)  # the table under the board too
        d.get(url + "?board=2/3&moves=b2,c3,d1,e1,b3,d3")
        wait.until(lambda _: rows() == 7)
        d.save_screenshot(str(out / NAMES[2]))
    print(f"written: {', '.join(str(out / n) for n in NAMES)}")


if __name__ == "__main__":
    main()
