"""The puzzle book (puzzles/book.py) in a real browser: headless Chromium under Selenium.

It needs Debian's ``chromium`` and ``chromium-driver`` (/usr/bin/chromium,
/usr/bin/chromedriver), which ``.ci/run`` installs; Selenium is pointed at them so that
Selenium Manager never downloads a browser or a driver.  Under CI (env ``CI`` or
``MERIDIANS_REQUIRE_BROWSER``, which ``.ci/run`` sets) a missing browser FAILS the test;
elsewhere it is skipped with the reason.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from puzzles.book import write_book
from puzzles.record import write_jsonl
from test_puzzle_record import random_puzzle

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
REQUIRED = bool(os.environ.get("CI") or os.environ.get("MERIDIANS_REQUIRE_BROWSER"))
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1200,900"]


def book_puzzles():
    """A few records on 2/3 and 3/4 (not sound puzzles: the page is what is tested),
    one without a key and one whose id needs HTML escaping."""
    ps = [random_puzzle(1, "2/3", n=1), random_puzzle(2, "3/4", n=2, difficulty=3, dual_free=True),
          random_puzzle(3, "3/4", n=3, pid="m34-c3-<&>"), random_puzzle(4, "2/3", n=2, key=False)]
    assert ps[0].key and ps[1].key and ps[2].key and ps[3].key is None
    return ps


@pytest.fixture(scope="module")
def driver():
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        missing.append(f"the selenium package ({e})")
    if missing:
        why = (f"browser test needs {', '.join(missing)}: apt-get install chromium chromium-driver; "
               "pip install -e '.[test]' (.ci/run does both)")
        if REQUIRED:
            pytest.fail(why)
        pytest.skip(why)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.TemporaryDirectory(prefix="meridians-chromium-")
    options.add_argument(f"--user-data-dir={profile.name}")  # a fresh profile: no state between runs
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    d.set_page_load_timeout(30)
    try:
        yield d
    finally:
        d.quit()
        profile.cleanup()


def test_book_cli(tmp_path: Path, run_cli) -> None:
    ps = book_puzzles()
    f = tmp_path / "p.jsonl"
    write_jsonl(f, ps)
    r = run_cli("puzzles", "book", f, "--out", tmp_path / "book", "--title", "T <1>", code=0)
    assert "(4 puzzles)" in r.stdout
    page = (tmp_path / "book" / "index.html").read_text(encoding="utf-8")
    assert "<title>T &lt;1&gt;</title>" in page and page.count('<article class="card"') == 4
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page


@pytest.mark.browser
def test_book_in_browser(tmp_path: Path, driver) -> None:
    from selenium.webdriver.common.by import By

    ps = book_puzzles()
    path = write_book(ps, tmp_path / "book", title="Test book")
    driver.get(path.as_uri())
    assert driver.title == "Test book"
    cards = driver.find_elements(By.CSS_SELECTOR, "article.card")
    assert [c.get_attribute("data-id") for c in cards] == [p.id for p in ps]
    for card, p in zip(cards, ps):
        assert card.find_element(By.TAG_NAME, "h2").text == p.id
        assert card.find_element(By.CSS_SELECTOR, ".task").text == p.task()
        board = card.find_element(By.CSS_SELECTOR, ".board-view svg")
        assert board.is_displayed() and board.size["width"] > 100
        n_stones = len(p.to_position().stones("L") | p.to_position().stones("D"))
        assert len(board.find_elements(By.CSS_SELECTOR, ".stone")) == n_stones
        assert board.find_elements(By.CSS_SELECTOR, f'.mark[data-point="{p.target}"]')
        # the solution is in the page but hidden
        solution = card.find_element(By.CSS_SELECTOR, ".solution")
        assert solution.get_attribute("hidden") is not None and not solution.is_displayed()
        assert "Key:" not in card.text and "Line:" not in card.text
        assert card.get_attribute("data-key") == p.key

    # the button reveals the key, the line and the board after the key; again hides them
    first, p = cards[0], ps[0]
    button = first.find_element(By.CSS_SELECTOR, "button.reveal")
    assert button.text == "Show solution" and button.get_attribute("aria-expanded") == "false"
    button.click()
    solution = first.find_element(By.CSS_SELECTOR, ".solution")
    assert solution.is_displayed()
    assert first.find_element(By.CSS_SELECTOR, ".solution-key").text == f"Key: {p.key}"
    assert first.find_element(By.CSS_SELECTOR, ".solution-line").text == f"Line: {p.solution_text()}"
    after = first.find_element(By.CSS_SELECTOR, ".after-key svg")
    assert after.is_displayed() and after.find_elements(By.CSS_SELECTOR, '.last')
    assert button.text == "Hide solution" and button.get_attribute("aria-expanded") == "true"
    button.click()
    assert not solution.is_displayed() and button.text == "Show solution"

    # a click on the board reveals too; a puzzle without a key says so
    cards[1].find_element(By.CSS_SELECTOR, ".board-view").click()
    assert cards[1].find_element(By.CSS_SELECTOR, ".solution").is_displayed()
    assert f"Key: {ps[1].key}" in cards[1].text and "dual-free" in cards[1].text
    cards[3].find_element(By.CSS_SELECTOR, "button.reveal").click()
    assert "Key: not recorded" in cards[3].text
    assert not cards[2].find_element(By.CSS_SELECTOR, ".solution").is_displayed()

    # show all, then hide all
    toggle = driver.find_element(By.ID, "toggle-all")
    toggle.click()
    assert all(c.find_element(By.CSS_SELECTOR, ".solution").is_displayed() for c in cards)
    toggle.click()
    assert not any(c.find_element(By.CSS_SELECTOR, ".solution").is_displayed() for c in cards)

    # nothing was fetched and nothing went wrong
    assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
    severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []


def test_book_is_rewritten_whole(tmp_path: Path) -> None:
    # a second book in the same folder replaces the page; no temporary file is left
    ps = book_puzzles()
    out = tmp_path / "book"
    write_book(ps, out)
    write_book([replace(ps[0], id="only-one")], out, title="Again")
    page = (out / "index.html").read_text(encoding="utf-8")
    assert page.count('<article class="card"') == 1 and "only-one" in page
    assert [f.name for f in out.iterdir()] == ["index.html"]
