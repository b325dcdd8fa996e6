#!/usr/bin/env python3
"""Page-load and first-answer times of ``meridians serve``, cold and warm.

Usage: python scripts/bench_web_pages.py [--repeat 3] [--time 1] [--out results/web/pages.json]

Each measure starts a fresh server (``python -m solver.cli serve --workers 1`` on a free
loopback port, this interpreter; the numba kernels are cached on disk, so "cold" is a new
process loading them, not a compile):

- first answer: as soon as the server answers (the seconds from its process's start to its
  first answer are recorded too), ``GET /api/analyse`` on the empty 3/4 board
  (the opening database) and on the empty 5/6 board (the engine, ``--time`` seconds), the
  client's latency of each (cold); then ``--repeat`` more of each on the same server (warm,
  the median);
- page load: in headless Chromium (Debian's chromium and chromium-driver), the time from
  the navigation's start to the first frame painted after the page's board is drawn, for
  ``/``, ``/trainer``, ``/explorer`` and ``/play``, each first on a fresh server (cold), then
  ``--repeat`` times more (warm, the median; the browser's cache cleared before each).

Printed and written (``--out``, atomically, with the command and the code version).  A
benchmark, not a test: the times depend on the machine and its load (recorded).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from solver.app.web.process import ServerStartError, alive, children, free_port, wait_until_up
from solver.util.files import write_atomic
from solver.util.provenance import provenance

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "web" / "pages.json"
PAGES = ("/", "/trainer", "/explorer", "/play")
ANSWERS = {"3/4": "3/4/5/6/5/4/3 L", "5/6": "5/6"}

# Resolves with the milliseconds from the navigation's start to the first frame painted
# after the board (an <svg> with its click targets) is in the page.
PAINTED = """
var done = arguments[arguments.length - 1];
(function poll() {
  if (document.querySelector('#board svg .hit')) {
    requestAnimationFrame(function () { requestAnimationFrame(function () { done(performance.now()); }); });
  } else { setTimeout(poll, 5); }
})();"""


class Server:
    """A fresh ``meridians serve`` process; stopped (its workers with it) on exit."""

    def __enter__(self) -> str:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "serve", "--port", str(port),
                                      "--workers", "1"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.started = time.perf_counter()
        try:
            wait_until_up(self.url, self.proc)
        except ServerStartError as e:
            raise SystemExit(f"bench_web_pages: {e}") from None
        self.up = time.perf_counter() - self.started
        return self.url

    def __exit__(self, *exc) -> None:
        workers = children(self.proc.pid)
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        time.sleep(0.5)
        for p in workers:
            if alive(p):
                os.kill(p, 15)


def answer(c: httpx.Client, url: str, board: str, seconds: float) -> float:
    t = time.perf_counter()
    # a board whose kernels are loading is a 503 that says 'compiling': asked again, the wait counted
    while (r := c.get(url + "/api/analyse", params={"position": ANSWERS[board], "time": seconds})).status_code == 503:
        time.sleep(0.2)
    if r.status_code != 200 or "value" not in r.json():
        raise SystemExit(f"bench_web_pages: /api/analyse on {board} answered {r.status_code}: {r.text[:200]}")
    return time.perf_counter() - t


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    profile = tempfile.TemporaryDirectory(prefix="meridians-bench-")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--window-size=1400,900", f"--user-data-dir={profile.name}"):
        options.add_argument(flag)
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    d.set_script_timeout(120)
    return d, profile


def page_load(d, url: str) -> float:
    d.execute_cdp_cmd("Network.clearBrowserCache", {})
    d.get("about:blank")
    d.get(url)
    return d.execute_async_script(PAINTED) / 1000.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="warm measures of each, their median reported")
    ap.add_argument("--time", type=float, default=1.0, help="the 5/6 analysis's time parameter, seconds")
    ap.add_argument("--out", default=None, help="the JSON file (default results/web/pages.json)")
    args = ap.parse_args()
    if not (1 <= args.repeat <= 50 and 0 < args.time <= 60):
        ap.error("--repeat 1..50, --time in (0, 60]")
    out = Path(args.out) if args.out else OUT
    command = "python scripts/bench_web_pages.py " + " ".join(sys.argv[1:])
    stamp = provenance(command.strip())
    load_before = [round(x, 2) for x in os.getloadavg()]
    answers: dict[str, dict] = {}
    srv = Server()
    with srv as url, httpx.Client(timeout=600) as c:
        up = round(srv.up, 3)
        for board in ANSWERS:  # cold: the server's first analyses
            answers[board] = {"cold_seconds": round(answer(c, url, board, args.time), 3)}
        for board in ANSWERS:
            warm = [answer(c, url, board, args.time) for _ in range(args.repeat)]
            answers[board]["warm_seconds"] = round(statistics.median(warm), 3)
    pages: dict[str, dict] = {}
    d, profile = browser()
    try:
        for page in PAGES:
            srv = Server()
            with srv as url:
                cold = page_load(d, url + page)
                warm = [page_load(d, url + page) for _ in range(args.repeat)]
            pages[page] = {"server_up_seconds": round(srv.up, 3), "cold_seconds": round(cold, 3),
                           "warm_seconds": round(statistics.median(warm), 3)}
    finally:
        d.quit()
        profile.cleanup()
    result = {**stamp, "repeat": args.repeat, "time": args.time, "workers": 1, "server_up_seconds": up, "answers": answers,
              "positions": ANSWERS, "page_to_board_painted": pages, "cpus": os.cpu_count(),
              "load_average_before": load_before, "load_average_after": [round(x, 2) for x in os.getloadavg()]}
    write_atomic(out, json.dumps(result, indent=2) + "\n")
    print(f"a fresh server answered (GET /api/position) {up:.3f} s after its process started")
    for board, a in answers.items():
        print(f"first /api/analyse on the empty {board} board: cold {a['cold_seconds']:.3f} s, "
              f"warm {a['warm_seconds']:.3f} s (median of {args.repeat})")
    for page, p in pages.items():
        print(f"{page}: board painted {p['cold_seconds']:.3f} s after navigation (fresh server), "
              f"warm {p['warm_seconds']:.3f} s")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
