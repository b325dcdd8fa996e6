"""The puzzle trainer of ``meridians serve`` in headless Chromium: the player's Glicko-2
rating, the streak and timed runs, the hints, the keys.

The page's Glicko-2 update (trainer.js) is checked against :func:`glicko2` below, a
Python twin written from Glickman's "Example of the Glicko-2 system" and checked first on
its worked example; the hint's paths against the networkx reference rules; the puzzles
the page shows against their committed records.  Skipped without Debian's chromium, as
tests/test_web.py and tests/test_book.py are.
"""

from __future__ import annotations

import json
import math
import time
from functools import lru_cache

import pytest

from test_web import click, client, drawn, no_console_errors, server, text  # noqa: F401  (the same server)
from test_book import driver, wait_for  # noqa: F401  (the same headless Chromium)

from puzzles import glicko as G
from puzzles.record import default_search_files, load_jsonl
from solver import Position
from solver.reference import rules as reference
from solver.app.web.app import _board_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SCALE, TAU = G.SCALE, G.TAU
PUZZLE_RD, START = 100.0, (1500.0, 350.0, 0.06)  # as trainer.js has them (and TAU)


def glicko2(r: float, rd: float, vol: float, games: list[tuple[float, float, float]], tau: float = TAU):
    """The page's twin: the package's Glicko-2 (puzzles/glicko.py, checked against the paper
    and a bisection twin in tests/test_attempts.py), as (r, RD, volatility)."""
    return tuple(G.glicko2(G.Rating(r, rd, vol), games, tau))


def puzzle_rating(n: int, difficulty: int | None, measured: int | None = None) -> float:
    if measured is not None:  # the record's rating from attempts
        return measured
    return 1000 + 200 * n + 60 * ((3 if difficulty is None else difficulty) - 3)


def strength(p) -> float:
    """A committed puzzle's rating as the page's opponent."""
    return puzzle_rating(p.n, p.difficulty, p.rating)


def test_the_twin_gives_glickmans_worked_example():
    r, rd, vol = glicko2(1500, 200, 0.06, [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)])
    # the paper rounds its intermediate values: unrounded, r is 1464.0507 and the volatility 0.059996
    assert r == pytest.approx(1464.06, abs=0.015) and rd == pytest.approx(151.52, abs=0.005)
    assert vol == pytest.approx(0.05999, abs=1e-5)


CASES = [
    ((1500, 200, 0.06), [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)]),  # Glickman's example
    ((1500, 350, 0.06), [(1320, 100, 1)]),  # a new player solves a puzzle
    ((1500, 350, 0.06), [(1320, 100, 0)]),
    ((1650, 80, 0.059), [(1700, 100, 0.5)]),  # solved after a hint
    ((1500, 60, 0.06), [(2200, 100, 1)]),  # an upset: the other branch of the volatility's bracket
    ((1800, 120, 0.07), []),  # no game: only the deviation grows
]


def first_branch(r: float, rd: float, games) -> bool:
    """Whether the volatility's bracket starts at log(delta^2 - phi^2 - v) (Glickman's step 5.2)."""
    mu, phi = (r - 1500) / SCALE, rd / SCALE
    g = [1 / math.sqrt(1 + 3 * (rdj / SCALE) ** 2 / math.pi ** 2) for _, rdj, _ in games]
    e = [1 / (1 + math.exp(-gj * (mu - (rj - 1500) / SCALE))) for gj, (rj, _, _) in zip(g, games)]
    v = 1 / sum(gj ** 2 * ej * (1 - ej) for gj, ej in zip(g, e))
    delta = v * sum(gj * (s - ej) for gj, ej, (_, _, s) in zip(g, e, games))
    return delta ** 2 > phi ** 2 + v


@pytest.mark.browser
def test_the_page_updates_ratings_as_the_twin_does(server, driver):
    # both ways of bracketing the new volatility are exercised
    assert {first_branch(r, rd, games) for (r, rd, _), games in CASES if games} == {False, True}
    driver.get(server + "/trainer")
    wait_for(driver, lambda: driver.execute_script("return !!window.MeridiansTrainer;"))
    for (r, rd, vol), games in CASES:
        got = driver.execute_script("return MeridiansTrainer.glicko2({r: arguments[0], rd: arguments[1], vol: arguments[2]},"
                                    " arguments[3].map(function (g) { return {r: g[0], rd: g[1], s: g[2]}; }), 0.5);",
                                    r, rd, vol, [list(g) for g in games])
        want = glicko2(r, rd, vol, games)
        assert got["r"] == pytest.approx(want[0], abs=1e-6)
        assert got["rd"] == pytest.approx(want[1], abs=1e-6)
        assert got["vol"] == pytest.approx(want[2], abs=1e-9)
    for n, d, m in [(1, 1, None), (2, 5, None), (4, None, None), (6, 3, None), (2, 5, 1234), (1, None, 2600)]:
        assert driver.execute_script("return MeridiansTrainer.puzzleRating(arguments[0], arguments[1], arguments[2]);",
                                     n, d, m) == puzzle_rating(n, d, m)


# -- sessions ------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def committed() -> dict:
    return {p.id: p for f in default_search_files(None) for p in load_jsonl(f, check=False)}


def stored(driver, key: str):
    return json.loads(driver.execute_script("return localStorage.getItem(arguments[0]) || 'null';", key))


def fresh_page(driver, server, query: str = "") -> None:
    driver.get(server + "/trainer")
    driver.execute_script("localStorage.clear();")
    driver.get(server + "/trainer" + query)
    wait_for(driver, lambda: text(driver, "puzzle-id") != "", timeout=20)


def choose(driver, select_id: str, value: str, matches: int | None = None) -> None:
    """Choose ``value`` in a list; for a filter, wait for its ``matches`` puzzles."""
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", select_id)).select_by_value(value)
    driver.execute_script("document.activeElement.blur();")  # keys go to the page, not the list
    if matches is not None:
        wait_for(driver, lambda: f" of {matches};" in text(driver, "progress"))


def only_4_5(driver, n: int = 1) -> None:
    """The filters: 4/5, capture in ``n``."""
    ps = [p for p in committed().values() if _board_of(p.position) == "4/5"]
    choose(driver, "filter-board", "4/5", len(ps))
    choose(driver, "filter-n", str(n), sum(p.n == n for p in ps))


def shown(driver):
    """The puzzle on the page, once it is drawn."""
    wait_for(driver, lambda: text(driver, "status") == "Click the key." and text(driver, "puzzle-id") in committed())
    return committed()[text(driver, "puzzle-id")]


def press(driver, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def solve(driver, p) -> None:
    """Play the attacker's moves of the line; the page answers with the defender's."""
    for j in range(0, len(p.line), 2):
        click(driver, p.line[j])
        if j + 2 < len(p.line):
            wait_for(driver, lambda: "Your move" in text(driver, "status"))
    wait_for(driver, lambda: "Solved" in text(driver, "status"))


def a_wrong_move(p) -> str:
    return next(m for m in Position.parse(p.position).legal_moves() if m != p.key)


def nearest(driver, board: str, n: int, rating: float, done: tuple[str, ...] = ()) -> set[str]:
    """The ids of the committed puzzles of ``board`` and ``n``, but ``done``, whose puzzle
    rating is nearest ``rating``."""
    ps = [p for p in committed().values() if p.n == n and _board_of(p.position) == board and p.id not in done]
    best = min(abs(strength(p) - rating) for p in ps)
    return {p.id for p in ps if abs(strength(p) - rating) == best}


@pytest.mark.browser
def test_rating_goes_up_after_a_solve_and_down_after_a_miss(server, driver):
    fresh_page(driver, server)
    assert text(driver, "rating") == "1500?"
    only_4_5(driver)
    p = shown(driver)
    assert p.n == 1 and p.id in nearest(driver, "4/5", 1, 1500)  # chosen near the new player's 1500
    solve(driver, p)
    r1 = stored(driver, "meridians-trainer-rating")
    want = glicko2(*START, [(strength(p), PUZZLE_RD, 1)])
    assert (r1["r"], r1["rd"], r1["vol"]) == pytest.approx(want, abs=1e-6) and r1["games"] == 1
    assert r1["r"] > 1500 and text(driver, "rating") == f"{round(r1['r'])}?"
    assert text(driver, "rating-change") == f"+{round(r1['r'] - 1500)}"

    press(driver, "n")  # the next puzzle, near the new rating
    wait_for(driver, lambda: text(driver, "puzzle-id") != p.id)
    q = shown(driver)
    assert q.n == 1 and q.id in nearest(driver, "4/5", 1, r1["r"], (p.id,))
    wrong = a_wrong_move(q)
    click(driver, wrong)
    assert text(driver, "status") == f"Wrong: {wrong} is not the key."
    r2 = stored(driver, "meridians-trainer-rating")
    want = glicko2(r1["r"], r1["rd"], r1["vol"], [(strength(q), PUZZLE_RD, 0)])
    assert (r2["r"], r2["rd"], r2["vol"]) == pytest.approx(want, abs=1e-6) and r2["games"] == 2
    assert r2["r"] < r1["r"] and text(driver, "rating-change").startswith("-")
    # a puzzle is rated once: another miss, then the solve, change nothing
    click(driver, wrong)
    solve(driver, q)
    assert stored(driver, "meridians-trainer-rating") == r2
    # the rating stays with the browser
    driver.refresh()
    wait_for(driver, lambda: text(driver, "rating") == f"{round(r2['r'])}?")
    no_console_errors(driver)


@pytest.mark.browser
def test_a_streak_ends_at_the_first_miss(server, driver):
    fresh_page(driver, server)
    only_4_5(driver)
    shown(driver)
    choose(driver, "mode", "streak")
    run = driver.find_element("id", "run")
    wait_for(driver, lambda: text(driver, "run").startswith("Streak: 0 solved"))
    seen = []
    for k in (1, 2):  # two solved: the count goes up and the next puzzle comes by itself
        p = shown(driver)
        seen.append(p.id)
        assert driver.find_element("id", "hint").get_attribute("disabled")  # no hint in a run
        solve(driver, p)
        wait_for(driver, lambda: run.get_attribute("data-count") == str(k))
        wait_for(driver, lambda: text(driver, "puzzle-id") not in seen)
    p = shown(driver)
    click(driver, a_wrong_move(p))
    wait_for(driver, lambda: run.get_attribute("data-over") == "1")
    assert text(driver, "run").startswith("Streak over: 2 solved (best 2, a new best)")
    assert run.get_attribute("data-count") == "2"
    time.sleep(1.5)  # no next puzzle comes: the run is over
    assert text(driver, "puzzle-id") == p.id
    solve(driver, p)  # solving the missed puzzle afterwards does not count
    assert run.get_attribute("data-count") == "2"
    assert stored(driver, "meridians-trainer-rating") is None  # runs are not rated
    assert stored(driver, "meridians-trainer-best") == {"streak": 2}
    no_console_errors(driver)


@pytest.mark.browser
def test_a_timed_run_counts_the_solved_until_time_is_up(server, driver):
    fresh_page(driver, server)
    only_4_5(driver)
    shown(driver)
    driver.execute_script("MeridiansTrainer.setup.seconds = 8;")
    choose(driver, "mode", "timed")
    wait_for(driver, lambda: text(driver, "run").startswith("Time left 0:0"))
    p = shown(driver)
    solve(driver, p)
    wait_for(driver, lambda: text(driver, "puzzle-id") != p.id)
    q = shown(driver)
    click(driver, a_wrong_move(q))  # a miss moves on too
    wait_for(driver, lambda: text(driver, "puzzle-id") not in (p.id, q.id))
    wait_for(driver, lambda: text(driver, "run").startswith("Time is up: 1 solved, 1 missed"), timeout=15)
    last, said = committed()[text(driver, "puzzle-id")], text(driver, "status")
    click(driver, last.key)  # the board no longer answers
    time.sleep(0.5)
    assert text(driver, "status") == said and text(driver, "puzzle-id") == last.id
    no_console_errors(driver)


# -- hints, the solution's status, marks, keys ---------------------------------------------
def ref_path_points(pos: Position, target: str, defender: str) -> list[str]:
    """The empty points on the paths of the defender's group at ``target``, by the reference rules."""
    b = pos.board
    own = frozenset(map(b.index, pos.stones(defender)))
    other = frozenset(map(b.index, pos.stones("L" if defender == "D" else "D")))
    group = next((g for g in reference.groups(b, own) if b.index(target) in g), frozenset())
    out = set()
    for a, c in reference.paths(b, own, other):
        if a in group or c in group:
            ray = next(r for r in b.rays[a] if c in r)
            out |= set(ray[:ray.index(c)])
    return sorted(b.name_of(i) for i in out)


def test_the_hint_paths_agree_with_the_reference_rules(client):
    # puzzles of every board and N, at every step of the line the trainer shows
    import random

    ps = sorted(committed().values(), key=lambda p: p.id)
    chosen = random.Random(7).sample(ps, 40)
    assert {_board_of(p.position) for p in chosen} == {_board_of(p.position) for p in ps}  # every board with a set
    nonempty = 0
    for p in chosen:
        d = client.get("/api/puzzle", params={"id": p.id}).json()
        pos = Position.parse(p.position)
        names = pos.board.names
        assert len(d["paths"]) == len(d["data"]["line"]) + 1
        for j, got in enumerate(d["paths"]):
            if j:
                pos = pos.play(names[d["data"]["line"][j - 1][0]])
            assert sorted(names[i] for i in got) == ref_path_points(pos, p.target, p.defender), (p.id, j)
            nonempty += bool(got)
    assert nonempty >= 40


def marked(driver, cls: str) -> list[str]:
    return sorted(driver.execute_script(
        "return Array.from(document.querySelectorAll('#board .' + arguments[0])).map(function (e) {"
        " return e.getAttribute('data-point'); });", cls))


@pytest.mark.browser
def test_hints_solution_status_marks_and_keys(server, driver):
    p = next(p for p in committed().values() if p.n == 3 and p.dual_free and len(p.line) == 6 and p.id.startswith("m45"))
    fresh_page(driver, server, "?id=no-such-puzzle")  # a bad link: another puzzle, and a word on why
    wait_for(driver, lambda: text(driver, "status").startswith("No puzzle with id no-such-puzzle"))
    driver.get(server + "/trainer?id=" + p.id)
    wait_for(driver, lambda: text(driver, "puzzle-id") == p.id)
    shown(driver)
    driver.find_element("id", "play-point").click()  # keys typed in a field are the field's; Esc leaves it
    press(driver, "h")
    assert marked(driver, "hint-path") == []
    press(driver, "\ue00c")  # Esc
    start = Position.parse(p.position)
    press(driver, "h")  # first hint: the target's paths
    wait_for(driver, lambda: marked(driver, "hint-path") != [])
    assert marked(driver, "hint-path") == ref_path_points(start, p.target, p.defender) and marked(driver, "hint-key") == []
    assert "paths" in text(driver, "status")
    press(driver, "h")  # second: the key's point
    wait_for(driver, lambda: marked(driver, "hint-key") == [p.key])
    assert text(driver, "status") == f"Hint: play the ringed point, {p.key}."
    click(driver, p.key)
    wait_for(driver, lambda: "Your move" in text(driver, "status"))
    assert marked(driver, "hint-path") == [] and marked(driver, "hint-key") == []  # a hint is for one move
    press(driver, "h")  # a hint at the next move: the paths as they are now
    after = start.play(p.key).play(drawn(driver)["last"][0])
    wait_for(driver, lambda: marked(driver, "hint-path") != [])
    assert marked(driver, "hint-path") == ref_path_points(after, p.target, p.defender)
    click(driver, p.line[2])
    wait_for(driver, lambda: "Your move" in text(driver, "status"))
    field = driver.find_element("id", "play-point")  # the last move typed: the board by keyboard
    field.clear()
    field.send_keys(p.line[4] + "\n")
    wait_for(driver, lambda: "Solved" in text(driver, "status"))
    driver.execute_script("document.activeElement.blur();")
    r = stored(driver, "meridians-trainer-rating")  # solved after a hint: half a point
    assert (r["r"], r["rd"], r["vol"]) == pytest.approx(
        glicko2(*START, [(strength(p), PUZZLE_RD, 0.5)]), abs=1e-6)

    # the next puzzle by key; "Show solution" by key says so, and the arrows step through it
    press(driver, "n")
    wait_for(driver, lambda: text(driver, "puzzle-id") != p.id)
    q = shown(driver)
    press(driver, "s")
    wait_for(driver, lambda: text(driver, "status").startswith("Solution shown"))
    assert text(driver, "status") != "Click the key." and text(driver, "ply").startswith("1. ")
    assert driver.find_element("id", "reveal").text == "Hide solution"
    press(driver, "\ue014")  # the right arrow
    wait_for(driver, lambda: "(2 of" in text(driver, "ply"))
    press(driver, "\ue012")  # the left arrow
    wait_for(driver, lambda: "(1 of" in text(driver, "ply"))
    assert stored(driver, "meridians-trainer-progress")[q.id] == "failed"

    # the marks are explained, with the board's own pictures; the keys are listed
    legend = text(driver, "legend")
    for words in ("the target", "dead group", "last move", "paths", "the move to play"):
        assert words in legend
    assert driver.execute_script("return document.querySelectorAll('#legend svg').length;") == 5
    keys = driver.find_element("css selector", ".keys").text
    for k in ("n", "h", "s", "←", "→"):
        assert k in keys.split()
    # every control has a name for screen readers, and the focus is visible
    unnamed = driver.execute_script("""return Array.from(document.querySelectorAll('button, select, input'))
        .filter(function (e) { return !(e.getAttribute('aria-label') || e.textContent.trim() ||
                                        (e.labels && e.labels.length)); }).map(function (e) { return e.outerHTML; });""")
    assert unnamed == []
    driver.execute_script("document.getElementById('next-puzzle').focus();")
    press(driver, "\ue004")  # Tab: keyboard focus, so :focus-visible applies
    style = driver.execute_script("var e = document.activeElement, s = getComputedStyle(e);"
                                  " return [e.tagName, s.outlineStyle, s.outlineWidth];")
    assert style[0] == "BUTTON" and style[1] != "none" and style[2] != "0px"
    no_console_errors(driver)


@pytest.mark.browser
def test_any_move_that_captures_is_right_at_the_last_turn(server, driver):
    # issue 36: the last turn accepts every move of the record's last_moves, and says so
    p = next(p for p in sorted(committed().values(), key=lambda p: p.id)
             if p.n == 2 and p.last_moves and len(p.last_moves) > 1 and len(p.line) == 4)
    other = next(m for m in p.last_moves if m != p.line[2])
    driver.get(server + "/trainer?id=" + p.id)
    wait_for(driver, lambda: text(driver, "puzzle-id") == p.id and text(driver, "status") == "Click the key.")
    assert f"last move: any that captures ({', '.join(p.last_moves)})" in text(driver, "facts")
    click(driver, p.key)
    wait_for(driver, lambda: "Your move" in text(driver, "status"))
    click(driver, other)
    wait_for(driver, lambda: "Solved" in text(driver, "status"))
    assert text(driver, "status").startswith(f"Right: {other} captures too")
    pos = Position.parse(p.position).play(p.line[0]).play(p.line[1]).play(other)
    board = drawn(driver)
    final = pos.play(board["last"][0])
    assert p.target not in final.stones(p.defender)
    assert board["stones"] == sorted([f"L {x}" for x in final.stones("L")] + [f"D {x}" for x in final.stones("D")])
    assert stored(driver, "meridians-trainer-progress")[p.id] == "solved"


@pytest.mark.browser
def test_the_trainer_fits_a_phone_and_a_wide_screen(server, driver):
    p = next(p for p in committed().values() if p.id.startswith("m67"))  # the largest board
    try:
        for width in (390, 1400):
            driver.set_window_size(width, 900)
            driver.get(server + "/trainer?id=" + p.id)
            wait_for(driver, lambda: text(driver, "puzzle-id") == p.id and text(driver, "legend") != "", timeout=20)
            over = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth;")
            assert over <= 0, f"{over} px of horizontal overflow at {width} px"
    finally:
        driver.set_window_size(1200, 900)
    no_console_errors(driver)
