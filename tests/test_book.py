"""The puzzle book (puzzles/book.py) in a real browser: headless Chromium under Selenium.

What the page shows is checked against the networkx reference rules (solver.reference),
not against the rules the book was computed with: the target's group, the stones after
each move of the line, and whether the defender's last reply is "any".

It needs Debian's ``chromium`` and ``chromium-driver`` (/usr/bin/chromium,
/usr/bin/chromedriver), which ``.ci/run`` installs; Selenium is pointed at them so that
Selenium Manager never downloads a browser or a driver.  Under CI (env ``CI`` or
``MERIDIANS_REQUIRE_BROWSER``, which ``.ci/run`` sets) a missing browser FAILS the test;
elsewhere it is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from puzzles.book import ANY, PER_PAGE, book_data, book_html, write_book
from puzzles.record import COMMITTED, Puzzle, load_jsonl, write_jsonl
from solver.reference import rules as reference
from solver.rules.board import Board
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



@dataclass(frozen=True)
class Themed(Puzzle):
    """A record with themes, whether or not puzzles/record.py has the field yet."""

    themes: tuple = ()


def committed(name: str) -> list[Puzzle]:
    return load_jsonl(COMMITTED / f"{name}.jsonl")


# -- what the reference rules say ----------------------------------------------------------
def ref_start(p: Puzzle):
    pos = p.to_position()
    b = pos.board
    return (b, frozenset(map(b.index, pos.stones("L"))), frozenset(map(b.index, pos.stones("D"))), pos.to_move)


def ref_play(state, move: str):
    b, light, dark, side = state
    return (b, *reference.play(b, light, dark, side, b.index(move)))


def ref_stones(state) -> set[str]:
    """``{"L c2", "D d4", ...}``: what the page's ``.stone`` elements must say."""
    b, light, dark, _ = state
    return {f"L {b.name_of(i)}" for i in light} | {f"D {b.name_of(i)}" for i in dark}


def ref_group(state, target: str) -> set[str]:
    b, light, dark, side = state
    stones = dark if side == "L" else light
    i = b.index(target)
    return {b.name_of(q) for g in reference.groups(b, stones) if i in g for q in g}


# -- what the page shows ---------------------------------------------------------------
def board_of(driver, card) -> dict:
    """The stones (``"L c2"``), marks, dead points and last move drawn on a card's board."""
    return driver.execute_script("""
        var v = arguments[0].querySelector('.board-view');
        function pts(sel) { return Array.from(v.querySelectorAll(sel)).map(function (e) { return e.getAttribute('data-point'); }); }
        return { stones: Array.from(v.querySelectorAll('.stone')).map(function (e) {
                   return (e.classList.contains('light') ? 'L ' : 'D ') + e.getAttribute('data-point'); }),
                 marks: pts('.mark'), dead: pts('.dead'), last: pts('.last'), hits: pts('.hit'),
                 svgs: v.querySelectorAll('svg').length, width: v.getBoundingClientRect().width };""", card)


def shown_ids(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('article.card')).filter(function (c) { return !c.hidden; })"
        ".map(function (c) { return c.getAttribute('data-id'); });")


def status(card) -> str:
    from selenium.webdriver.common.by import By

    return card.find_element(By.CSS_SELECTOR, ".status").text


def click_point(card, point: str) -> None:
    from selenium.webdriver.common.by import By

    card.find_element(By.CSS_SELECTOR, f'.hit[data-point="{point}"]').click()


def wait_for(driver, what, timeout: float = 5.0):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda _: what())


def no_errors_nothing_fetched(driver) -> None:
    assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
    severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []


def test_book_cli(tmp_path: Path, run_cli) -> None:
    ps = book_puzzles()
    f = tmp_path / "p.jsonl"
    write_jsonl(f, ps)
    r = run_cli("puzzles", "book", f, "--out", tmp_path / "book", "--title", "T <1>", code=0)
    assert "(4 puzzles)" in r.stdout
    page = (tmp_path / "book" / "index.html").read_text(encoding="utf-8")
    assert "<title>T &lt;1&gt;</title>" in page and page.count('<article class="card"') == 4
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page
    # one drawing per board size, not one picture per puzzle
    assert page.count('<g id="lattice-') == 2 and page.count("<svg") == 1 + page.count("'<svg")


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
        assert card.get_attribute("data-key") == p.key and card.get_attribute("data-n") == str(p.n)
        drawn = board_of(driver, card)
        start = ref_start(p)
        assert drawn["svgs"] == 1 and drawn["width"] > 100
        assert sorted(drawn["stones"]) == sorted(ref_stones(start))
        assert set(drawn["marks"]) == ref_group(start, p.target) and p.target in drawn["marks"]
        assert sorted(drawn["hits"]) == sorted(start[0].names) and drawn["last"] == []
        # the solution is in the page but hidden
        solution = card.find_element(By.CSS_SELECTOR, ".solution")
        assert solution.get_attribute("hidden") is not None and not solution.is_displayed()
        assert "Key:" not in card.text and "Line:" not in card.text

    # the button reveals the key and the line and steps through the line; again hides them
    first, p = cards[0], ps[0]
    button = first.find_element(By.CSS_SELECTOR, "button.reveal")
    assert button.text == "Show solution" and button.get_attribute("aria-expanded") == "false"
    assert not first.find_element(By.CSS_SELECTOR, ".stepper").is_displayed()
    button.click()
    solution = first.find_element(By.CSS_SELECTOR, ".solution")
    assert solution.is_displayed()
    assert first.find_element(By.CSS_SELECTOR, ".solution-key").text == f"Key: {p.key}"
    assert first.find_element(By.CSS_SELECTOR, ".solution-line").text.startswith(f"Line: 1. {p.key}")
    assert board_of(driver, first)["last"] == [p.key]  # the board after the key
    assert button.text == "Hide solution" and button.get_attribute("aria-expanded") == "true"
    first.find_element(By.CSS_SELECTOR, '[data-step="first"]').click()
    assert sorted(board_of(driver, first)["stones"]) == sorted(ref_stones(ref_start(p)))
    button.click()
    assert not solution.is_displayed() and button.text == "Show solution"

    # a puzzle without a key says so; show all, then hide all
    assert "No key recorded" in status(cards[3])
    cards[3].find_element(By.CSS_SELECTOR, "button.reveal").click()
    assert "Key: not recorded" in cards[3].text
    assert not cards[2].find_element(By.CSS_SELECTOR, ".solution").is_displayed()
    toggle = driver.find_element(By.ID, "toggle-all")
    toggle.click()
    assert all(c.find_element(By.CSS_SELECTOR, ".solution").is_displayed() for c in cards)
    toggle.click()
    assert not any(c.find_element(By.CSS_SELECTOR, ".solution").is_displayed() for c in cards)
    no_errors_nothing_fetched(driver)


@pytest.mark.browser
def test_solving_by_clicking(tmp_path: Path, driver) -> None:
    from selenium.webdriver.common.by import By

    # a dual-free capture in 2 from the committed sets, and a capture in 3 flagged as having
    # duals (what the page says depends on the flag only)
    two = next(p for p in committed("4-5-c2") if p.dual_free and len(p.line) == 4)
    duals = replace(next(p for p in committed("4-5-c3") if len(p.line) == 6), dual_free=False)
    # and one whose last turn has several moves that capture (issue 36: each is right)
    many = next(p for p in committed("4-5-c2") if len(p.last_moves) > 1 and len(p.line) == 4 and p.id != two.id)
    path = write_book([two, duals, many], tmp_path / "book")
    driver.get(path.as_uri())
    card, card2, card3 = driver.find_elements(By.CSS_SELECTOR, "article.card")
    start = ref_start(two)
    b = start[0]
    assert status(card) == "Click the key."

    # an occupied point and an illegal empty point are refused; a legal wrong point is wrong
    taken = sorted(ref_stones(start))[0].split()[1]
    click_point(card, taken)
    assert "taken" in status(card)
    legal = {b.name_of(i) for i in reference.legal_moves(*start)}
    illegal = [n for n in b.names if n not in legal and f"L {n}" not in ref_stones(start)
               and f"D {n}" not in ref_stones(start)]
    if illegal:
        click_point(card, illegal[0])
        assert "not a legal move" in status(card)
    wrong = next(n for n in sorted(legal) if n != two.key)
    click_point(card, wrong)
    assert status(card) == f"Wrong: {wrong} is not the key." and "wrong" in card.find_element(
        By.CSS_SELECTOR, ".status").get_attribute("class")
    assert board_of(driver, card)["last"] == []  # nothing was played

    # the key: right, played, and the defender answers with the line's next move
    click_point(card, two.key)
    assert status(card).startswith(f"Right: {two.key} is the key.")
    wait_for(driver, lambda: "Your move" in status(card))
    after = ref_play(ref_play(start, two.line[0]), two.line[1])
    drawn = board_of(driver, card)
    assert drawn["last"] == [two.line[1]] and sorted(drawn["stones"]) == sorted(ref_stones(after))
    assert set(drawn["marks"]) == ref_group(after, two.target)
    # dual-free: any other legal point that does not capture is wrong at this turn too
    legal = sorted(b.name_of(i) for i in reference.legal_moves(*after))
    wrong = next(n for n in legal if n not in two.last_moves)
    click_point(card, wrong)
    assert status(card).startswith(f"Wrong: {wrong}")

    # the last move: the defender's reply removes the target's group, the puzzle is solved
    click_point(card, two.line[2])
    wait_for(driver, lambda: "Solved" in status(card))
    drawn = board_of(driver, card)
    before_reply = ref_play(after, two.line[2])
    reply = drawn["last"][0]
    final = ref_play(before_reply, reply)
    assert sorted(drawn["stones"]) == sorted(ref_stones(final)) and drawn["marks"] == []
    assert not any(s.endswith(f" {two.target}") for s in drawn["stones"])
    bb, light, dark, side = before_reply
    every_reply_captures = all(b.index(two.target) in reference.removed(bb, light, dark, side, m)
                               for m in reference.legal_moves(bb, light, dark, side))
    assert ("any move" in status(card)) == every_reply_captures
    assert f"the group at {two.target} is captured" in status(card)

    # step through the whole line: back, forward, first, last
    stepper = card.find_element(By.CSS_SELECTOR, ".stepper")
    assert stepper.is_displayed()
    ply = stepper.find_element(By.CSS_SELECTOR, ".ply")
    assert ply.text.endswith("(4 of 4)")
    stepper.find_element(By.CSS_SELECTOR, '[data-step="back"]').click()
    assert ply.text.endswith("(3 of 4)") and sorted(board_of(driver, card)["stones"]) == sorted(ref_stones(before_reply))
    assert board_of(driver, card)["last"] == [two.line[2]]
    stepper.find_element(By.CSS_SELECTOR, '[data-step="first"]').click()
    assert ply.text.startswith("start") and sorted(board_of(driver, card)["stones"]) == sorted(ref_stones(start))
    stepper.find_element(By.CSS_SELECTOR, '[data-step="fwd"]').click()
    assert board_of(driver, card)["last"] == [two.key]
    stepper.find_element(By.CSS_SELECTOR, '[data-step="last"]').click()
    assert sorted(board_of(driver, card)["stones"]) == sorted(ref_stones(final))

    # with duals: a point off the recorded line after the key is not called wrong outright
    click_point(card2, duals.key)
    wait_for(driver, lambda: "Your move" in status(card2))
    after = ref_play(ref_play(ref_start(duals), duals.line[0]), duals.line[1])
    other = next(n for n in sorted(b.name_of(i) for i in reference.legal_moves(*after)) if n != duals.line[2])
    click_point(card2, other)
    assert status(card2).startswith(f"Not the recorded line: {other} may win too")
    click_point(card2, duals.line[2])
    wait_for(driver, lambda: "Your move" in status(card2))
    assert board_of(driver, card2)["last"] == [duals.line[3]]

    # the last turn: another move that captures is right, played, and a reply takes the group
    click_point(card3, many.key)
    wait_for(driver, lambda: "Your move" in status(card3))
    other = next(m for m in many.last_moves if m != many.line[2])
    click_point(card3, other)
    wait_for(driver, lambda: "Solved" in status(card3))
    assert status(card3).startswith(f"Right: {other} captures too") and f"the line plays {many.line[2]}" in status(card3)
    drawn = board_of(driver, card3)
    after = ref_play(ref_play(ref_play(ref_start(many), many.line[0]), many.line[1]), other)
    final = ref_play(after, drawn["last"][0])
    assert sorted(drawn["stones"]) == sorted(ref_stones(final)) and drawn["marks"] == []
    card3.find_element(By.CSS_SELECTOR, "button.reveal").click()
    assert f"last move: any that captures ({', '.join(many.last_moves)})" in card3.text
    no_errors_nothing_fetched(driver)


def press(driver, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


@pytest.mark.browser
def test_book_keys(tmp_path: Path, driver) -> None:
    """The trainer's keys: h hint (the row, then the point), s solution, arrows and
    Home/End through the line, n the next puzzle and the next page; listed on the page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    two = next(p for p in committed("4-5-c2") if p.dual_free and len(p.line) == 4)
    ps = [two] + [p for p in committed("4-5-c1") if p.key][:PER_PAGE]
    path = write_book(ps, tmp_path / "book")
    driver.get(path.as_uri())
    cards = driver.find_elements(By.CSS_SELECTOR, "article.card")
    card, card2 = cards[0], cards[1]
    start = ref_start(two)
    ply = card.find_element(By.CSS_SELECTOR, ".ply")
    listed = driver.find_element(By.ID, "keys").get_attribute("textContent")
    assert all(w in listed for w in ("hint", "show or hide the solution", "the next puzzle", "Home"))

    # before solving: arrows do nothing, h hints the key's row, then the key
    press(driver, Keys.ARROW_RIGHT)
    assert not card.find_element(By.CSS_SELECTOR, ".stepper").is_displayed()
    press(driver, "h")
    assert status(card) == f"Hint: the move is on row {two.key[0]}."
    press(driver, "h")
    assert status(card) == f"Hint: play {two.key}."
    assert board_of(driver, card)["last"] == []  # a hint plays nothing
    # s shows the solution; the arrows, Home and End step through its line
    press(driver, "s")
    assert card.find_element(By.CSS_SELECTOR, "button.reveal").get_attribute("aria-expanded") == "true"
    assert ply.text.endswith("(1 of 4)")
    states = [start]
    for m in two.line[:3]:  # the last reply may be "any"
        states.append(ref_play(states[-1], m))
    for key, j in ((Keys.ARROW_RIGHT, 2), (Keys.END, 4), (Keys.ARROW_RIGHT, 4), (Keys.ARROW_LEFT, 3),
                   (Keys.HOME, 0), (Keys.ARROW_LEFT, 0)):
        press(driver, key)
        assert ply.text.endswith(f"({j} of 4)"), (key, j)
        if j < 4:
            assert sorted(board_of(driver, card)["stones"]) == sorted(ref_stones(states[j])), (key, j)
    press(driver, "s")
    assert not card.find_element(By.CSS_SELECTOR, ".solution").is_displayed() and status(card) == "Click the key."
    # n: the next card becomes the one the keys act on
    press(driver, "n")
    assert "current" in card2.get_attribute("class") and "current" not in card.get_attribute("class")
    press(driver, "h")
    assert status(card2) == f"Hint: the move is on row {ps[1].key[0]}." and status(card) == "Click the key."
    # a click makes its card the current one; n on the page's last card turns the page
    click_point(cards[PER_PAGE - 1], ps[PER_PAGE - 1].key)
    press(driver, "n")
    wait_for(driver, lambda: shown_ids(driver) == [ps[PER_PAGE].id])
    assert "current" in cards[PER_PAGE].get_attribute("class")
    # not while a list has the focus
    driver.find_element(By.ID, "filter-n").click()
    press(driver, "s")
    assert not cards[PER_PAGE].find_element(By.CSS_SELECTOR, ".solution").is_displayed()
    no_errors_nothing_fetched(driver)


@pytest.mark.browser
def test_filters_and_paging(tmp_path: Path, driver) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    names = ("several-paths", "quiet-key", "fork")  # in the order records list them
    ps = [Themed(**{f: getattr(p, f) for f in p.__dataclass_fields__ if f != "themes"},
                 themes=tuple(names[j] for j in range(3) if (i >> j) & 1))
          for i, p in enumerate(committed("4-5-c1")[:27] + committed("4-5-c2")[:12] + committed("4-5-c3")[:6])]
    path = write_book(ps, tmp_path / "book")
    driver.get(path.as_uri())
    ids = [p.id for p in ps]
    assert shown_ids(driver) == ids[:PER_PAGE]
    info = driver.find_element(By.ID, "page-info")
    assert info.text == f"puzzles 1\u2013{PER_PAGE} of {len(ps)}, page 1 of 3"
    prev, nxt = driver.find_element(By.ID, "prev"), driver.find_element(By.ID, "next")
    assert not prev.is_enabled()
    nxt.click()
    assert shown_ids(driver) == ids[PER_PAGE:2 * PER_PAGE]
    # boards are drawn for the cards shown
    assert all(board_of(driver, c)["svgs"] == 1 for c in driver.find_elements(By.CSS_SELECTOR, "article.card")
               if c.is_displayed())
    nxt.click()
    assert shown_ids(driver) == ids[2 * PER_PAGE:] and not nxt.is_enabled()
    prev.click()
    assert shown_ids(driver) == ids[PER_PAGE:2 * PER_PAGE]

    def check(select_id: str, value: str, keep) -> None:
        Select(driver.find_element(By.ID, select_id)).select_by_value(value)
        want = [p.id for p in ps if keep(p)]
        assert want and shown_ids(driver) == want[:PER_PAGE]
        assert info.text.endswith(f"of {len(want)}, page 1 of {-(-len(want) // PER_PAGE)}")

    # each filter offers what the book holds
    assert [o.get_attribute("value") for o in Select(driver.find_element(By.ID, "filter-n")).options] == ["", "1", "2", "3"]
    theme_options = [o.get_attribute("value") for o in Select(driver.find_element(By.ID, "filter-theme")).options]
    assert theme_options == [""] + sorted(names)
    check("filter-n", "2", lambda p: p.n == 2)
    check("filter-n", "", lambda p: True)
    check("filter-theme", "fork", lambda p: "fork" in p.themes)
    def rated(p: Puzzle) -> str:
        return "none" if p.difficulty is None else str(p.difficulty)

    rating = rated(next(p for p in reversed(ps) if "fork" in p.themes))
    check("filter-rating", rating, lambda p: "fork" in p.themes and rated(p) == rating)
    check("filter-theme", "", lambda p: rated(p) == rating)
    no_errors_nothing_fetched(driver)


# every card's coordinate labels as rendered: text, size in pixels, and what is drawn after them
LABELS = """return Array.from(document.querySelectorAll('article.card:not([hidden]) .board-view svg')).map(function (svg) {
    var g = svg.querySelector('.coords'), after = [], n = g;
    while (n && (n = n.nextElementSibling)) { after.push(n.getAttribute('class')); }
    return { id: svg.closest('article').getAttribute('data-id'), after: after,
             halo: g && [g.getAttribute('fill'), g.getAttribute('stroke'), g.getAttribute('paint-order')],
             inLattice: document.querySelectorAll('defs .coordinates').length,
             labels: Array.from(svg.querySelectorAll('.coords text')).map(function (t) {
               return [t.textContent, parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a]; }) }; });"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [390, 1200])
def test_book_coordinates_are_readable_at_any_size(tmp_path: Path, driver, width) -> None:
    # a 2/3, a 3/4 and a 6/7 board: on a phone the 6/7 drawing is about a third of its size
    ps = book_puzzles()[:2] + committed("6-7-c1")[:1]
    path = write_book(ps, tmp_path / "book")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})
    try:
        driver.get(path.as_uri())
        cards = driver.execute_script(LABELS)
        assert [c["id"] for c in cards] == [p.id for p in ps]
        for c, p in zip(cards, ps):
            names = p.to_position().board.names
            rows = {n[0] for n in names}
            texts = sorted(t for t, _ in c["labels"])
            assert texts == sorted([r for r in rows for _ in (0, 1)] + [n[1:] for n in names]), p.id
            # readable, over the stones on a halo of the page's colour, only the click targets above
            assert min(px for _, px in c["labels"]) >= 11, (width, p.id, min(c["labels"], key=lambda t: t[1]))
            assert set(c["after"]) == {"hit"} and c["halo"] == ["#3b2f20", "#fbf8f1", "stroke"]
            assert c["inLattice"] == 0  # the picture's own small labels are gone
        assert driver.execute_script("var d = document.documentElement; return d.scrollWidth - d.clientWidth;") == 0
        no_errors_nothing_fetched(driver)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.browser
def test_book_of_500_is_small_and_loads_fast(tmp_path: Path, driver) -> None:
    # issue 21: the book of 500 puzzles was 30.8 MB and took 7 s to load
    ps = committed("6-7-c1")[:500]
    assert len(ps) == 500
    t = time.perf_counter()
    path = write_book(ps, tmp_path / "book")
    built = time.perf_counter() - t
    size = path.stat().st_size
    assert size <= 2_000_000
    driver.get(path.as_uri())
    # read once the load has ended: on a loaded machine get() can return before the
    # navigation entry has its end times (both were still 0)
    def ended():
        t = driver.execute_script("var n = performance.getEntriesByType('navigation')[0];"
                                  "return n ? [n.domContentLoadedEventEnd, n.loadEventEnd] : [0, 0];")
        return t if t[1] > 0 else None

    timing = wait_for(driver, ended, timeout=30)
    # the issue asks under 1 s (0.26-0.60 s measured on 2 cores under load); a test with
    # a timed bound that tight would fail on a busy machine, so it guards against the old
    # 7 s and the figure is printed
    assert 0 < timing[1] < 4000, timing
    assert len(shown_ids(driver)) == PER_PAGE
    no_errors_nothing_fetched(driver)
    print(json.dumps({"puzzles": len(ps), "bytes": size, "built_seconds": round(built, 2),
                      "dom_content_loaded_ms": round(timing[0]), "load_ms": round(timing[1])}))


def test_a_free_last_reply_is_any() -> None:
    # a recorded last reply where every legal reply captures is written "any"; one
    # recorded as "any" is shown as a legal reply that captures (the reference says so)
    p = committed("4-5-c1")[0]
    state = ref_play(ref_start(p), p.key)
    b, light, dark, side = state
    free = all(b.index(p.target) in reference.removed(b, light, dark, side, m)
               for m in reference.legal_moves(b, light, dark, side))
    assert (f"Line: 1. {p.key} {ANY}<" in book_html([p])) == free
    written = Puzzle(**{**{f: getattr(p, f) for f in ("id", "position", "target", "n", "key")},
                        "line": (p.key, ANY)})  # not validated: the record format may not know "any" yet
    _, data = book_data([written])
    (key, _, _, _, _, _), (reply, anyway, removed, _, group, _) = data["puzzles"][0]["line"]
    assert key == b.index(p.key) and anyway == 1 and b.index(p.target) in removed and group == []
    assert reply in reference.legal_moves(b, light, dark, side)
    assert b.index(p.target) in reference.removed(b, light, dark, side, reply)


def test_book_is_rewritten_whole(tmp_path: Path) -> None:
    # a second book in the same folder replaces the page; no temporary file is left
    ps = book_puzzles()
    out = tmp_path / "book"
    write_book(ps, out)
    write_book([replace(ps[0], id="only-one")], out, title="Again")
    page = (out / "index.html").read_text(encoding="utf-8")
    assert page.count('<article class="card"') == 1 and "only-one" in page
    assert [f.name for f in out.iterdir()] == ["index.html"]
