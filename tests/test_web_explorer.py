"""The opening explorer (``/explorer``, ``/api/explore``): each move's proven value and length.

The values are checked against the committed solutions (results/solutions/2-3.json by
alpha-beta, 3-4.json class by class by df-pn), the lengths against their slow twin, a
plain minimax over the rules alone (:func:`solver.app.openings.lengths.rules_length`);
the page in headless Chromium, with the fixtures of tests/test_web.py and test_book.py.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from solver import Position
from solver.app.openings.database import database_for, lookup_entry, position_of_key
from solver.app.openings.lengths import database_length, rules_length
from solver.search.values import Value

pytest.importorskip("starlette")

from test_book import driver, wait_for  # noqa: E402,F401  (the same headless Chromium)
from test_web import client, click, drawn, no_console_errors, one_line_error, server, text  # noqa: E402,F401

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parent.parent
SOLUTION_34 = json.loads((ROOT / "results" / "solutions" / "3-4.json").read_text(encoding="utf-8"))
SOLUTION_23 = json.loads((ROOT / "results" / "solutions" / "2-3.json").read_text(encoding="utf-8"))
RANK = {"win": 0, "draw": 1, "unknown": 2, "loss": 3}


def explore(client, position: str, moves: str | None = None) -> dict:
    params = {"position": position} if moves is None else {"position": position, "moves": moves}
    r = client.get("/api/explore", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def move_values(d: dict) -> dict:
    return {mv["move"]: mv["value"] for mv in d["moves"]}


def best_first(d: dict) -> None:
    """The moves are sorted: wins, draws, unknown, losses; shorter wins and longer losses first."""
    ranks = [RANK[mv["value"]] for mv in d["moves"]]
    assert ranks == sorted(ranks)
    wins = [mv["length"] for mv in d["moves"] if mv["value"] == "win" and mv["length"] != "unknown"]
    losses = [mv["length"] for mv in d["moves"] if mv["value"] == "loss" and mv["length"] != "unknown"]
    assert wins == sorted(wins) and losses == sorted(losses, reverse=True)


# -- the API -----------------------------------------------------------------------------
@pytest.mark.parametrize("board, solution", [("3/4", SOLUTION_34), ("2/3", SOLUTION_23)])
def test_the_first_moves_are_the_committed_solutions(client, board, solution):
    d = explore(client, board)
    assert d["board"] == board and d["database"] and d["in_database"] and board in d["boards"]
    assert d["value"] == solution["value"] and d["source"] == "database"
    assert move_values(d) == solution["moves"]
    assert sorted(move_values(d)) == sorted(Position.start(board).legal_moves())
    assert {mv["source"] for mv in d["moves"]} == {"database"} and all(mv["in_database"] for mv in d["moves"])
    assert d["best"] is not None and move_values(d)[d["best"]] == "win" and not d["ends"]
    best_first(d)


def past_the_database(first: str) -> str:
    """Dark's first reply to Light's ``first`` on 3/4 after which nothing knows the value."""
    from solver.app.analyst import known

    start = Position.start("3/4").play(first)
    for reply in start.legal_moves():
        after = start.play(reply)
        if lookup_entry(after) is None and not known(after).value.decided:
            return reply
    raise AssertionError(f"a value is known after every reply to {first}: take another example")


def test_a_path_of_moves_and_where_the_database_ends(client):
    # Light's winning c2 leaves Dark lost: every move loses, though the database holds
    # none of their positions; after a reply of Dark's the database knows nothing
    assert SOLUTION_34["moves"]["c2"] == "win"
    d = explore(client, "3/4", "c2")
    assert d["path"] == [{"move": "c2", "position": str(Position.start("3/4").play("c2"))}]
    assert d["to_move"] == "D" and d["value"] == "loss" and d["in_database"]
    assert set(move_values(d).values()) == {"loss"} and not d["ends"]
    reply = past_the_database("c2")
    deeper = explore(client, "3/4", "c2," + reply)
    pos = Position.start("3/4").play("c2").play(reply)
    assert deeper["position"] == str(pos) and [p["move"] for p in deeper["path"]] == ["c2", reply]
    assert not deeper["in_database"] and deeper["ends"] and deeper["length"] == "unknown"
    # its value is the move's into it (Dark's reply loses): Light wins, though no move is known
    assert (deeper["value"], deeper["source"], deeper["inferred"]) == ("win", "database", True)
    assert set(move_values(deeper).values()) == {"unknown"} and deeper["best"] is None
    assert not explore(client, "3/4", "c2")["inferred"]
    # past a move of unknown value, nothing is inferred (after a pie pair Light wins, the
    # database holds the position after the winning move only)
    won = explore(client, "3/4", "a1,b2")
    assert won["in_database"] and won["value"] == "win"
    unknown = sorted(m for m, v in move_values(won).items() if v == "unknown")
    assert unknown, "the database holds every move after a1-b2 now: take another example"
    after = explore(client, "3/4", "a1,b2," + unknown[0])
    assert (after["value"], after["inferred"], after["ends"]) == ("unknown", False, True)
    assert sorted(move_values(deeper)) == sorted(pos.legal_moves())
    # the same position from its text, and moves separated by spaces
    assert explore(client, str(pos))["moves"] == deeper["moves"] == explore(client, "3/4", "c2 " + reply)["moves"]


def test_a_finished_game(client):
    d = explore(client, "2/LD1/4/1LD/2 L", "c2")  # Light's c2 leaves Light without stones
    assert d["outcome"] == "D" and d["moves"] == [] and d["length"] == 0 and not d["ends"]
    assert d["value"] == "win" and d["source"] == "rules"


def test_lengths_on_the_api_agree_with_the_rules(client):
    # random 2/3 games: wherever a move's length is known, a plain minimax over the rules
    # finds the same value and length; the sort puts shorter wins and longer losses first
    rng = random.Random(7)
    checked = set()
    for _ in range(12):
        moves: list[str] = []
        pos = Position.start("2/3")
        while pos.outcome is None:
            d = explore(client, "2/3", ",".join(moves))
            best_first(d)
            for mv in d["moves"]:
                if mv["length"] != "unknown":
                    v, n = rules_length(pos.play(mv["move"]), mv["length"] - 1)
                    assert (v.negated().value, n + 1) == (mv["value"], mv["length"]), (str(pos), mv)
                    checked.add((str(pos), mv["move"]))
            m = rng.choice(pos.legal_moves())
            moves.append(m)
            pos = pos.play(m)
    assert len(checked) >= 10


def test_database_lengths_agree_with_their_slow_twin():
    db = database_for(Position.start("2/3").board)
    keys = np.random.default_rng(3).choice(db.keys, 300, replace=False)
    found = []
    for k in keys:
        p = position_of_key(db.board, int(k))
        n = database_length(p)
        if n is None:
            continue
        v, m = rules_length(p, n)
        assert m == n, str(p)
        assert n == 0 or v == db.get(p).value, str(p)
        assert n == 0 or rules_length(p, n - 1)[0] == Value.UNKNOWN  # not shorter: the bound is exact
        found.append(n)
    assert max(found) >= 2  # lengths beyond a move that ends the game are read too


@pytest.mark.parametrize("position, moves, words", [
    ("3/4", "c2,c2", "occupied"),
    ("3/4", "z9", "unknown point"),
    ("3/4", "c1,e2,c2", "rule 2"),
    ("3/4", "a1," * 201, "at most 200"),
    ("3/4", "[]", "unknown point"),
    ("hello", None, ""),
    ("", None, "give a position"),
    ("9/10", None, ""),
])
def test_bad_input_is_400_with_one_line(client, position, moves, words):
    params = {"position": position} if moves is None else {"position": position, "moves": moves}
    assert words in one_line_error(client.get("/api/explore", params=params))


def test_missing_position_and_the_page(client):
    assert "position" in one_line_error(client.get("/api/explore"))
    r = client.get("/explorer")
    assert r.status_code == 200 and "opening explorer" in r.text and "default-src 'self'" in \
        r.headers["content-security-policy"]
    for name in ("explorer.js", "explorer.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert 'href="/explorer"' in client.get("/").text  # linked from the board's header


# -- the page in a browser -----------------------------------------------------------------
def rows(driver) -> list[list[str]]:
    return driver.execute_script("""return Array.from(document.querySelectorAll('#ex-moves tbody tr[data-move]')).map(
        function (r) { return [r.getAttribute('data-move'), r.getAttribute('data-value'), r.getAttribute('data-length')]; });""")


def crumbs(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#ex-crumbs button')).map(function (b) { return b.textContent; });")


def no_overflow(driver) -> None:
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.browser
def test_explorer_in_browser(server, driver):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.get(server + "/explorer?board=3/4")
    assert driver.title == "Meridians: opening explorer"
    wait_for(driver, lambda: len(rows(driver)) == 30, timeout=60)
    # the table and the board's marks: the committed solution, best first
    assert {m: v for m, v, _ in rows(driver)} == SOLUTION_34["moves"]
    assert [RANK[v] for _, v, _ in rows(driver)] == sorted(RANK[v] for _, v, _ in rows(driver))
    assert {p: v for p, v, _ in drawn(driver)["values"]} == SOLUTION_34["moves"]
    assert text(driver, "ex-value").startswith("Light to move: win (database)")
    assert crumbs(driver) == ["Start"] and driver.find_element(By.ID, "ex-back").get_attribute("disabled")
    assert driver.find_element(By.ID, "ex-ends").get_attribute("hidden")

    # a click on a row goes deeper: Dark is lost after a winning first move
    first = rows(driver)[0][0]
    assert SOLUTION_34["moves"][first] == "win"
    driver.find_element(By.CSS_SELECTOR, f'#ex-moves tr[data-move="{first}"] td.value').click()
    wait_for(driver, lambda: crumbs(driver) == ["Start", first])
    wait_for(driver, lambda: len(rows(driver)) == 29)
    assert {v for _, v, _ in rows(driver)} == {"loss"} and drawn(driver)["stones"] == [f"L {first}"]
    assert f"moves={first}" in driver.current_url
    # a click on a point goes deeper still, past the database: the page says so
    reply = past_the_database(first)
    click(driver, reply)
    wait_for(driver, lambda: crumbs(driver) == ["Start", first, reply])
    wait_for(driver, lambda: not driver.find_element(By.ID, "ex-ends").get_attribute("hidden"))
    assert "database ends here" in text(driver, "ex-ends-text")
    assert text(driver, "ex-value").startswith("Light to move: win (database: the move into it loses)")
    url = driver.current_url
    # Back returns, and the values are the solution's again at the start
    driver.find_element(By.ID, "ex-back").click()
    wait_for(driver, lambda: crumbs(driver) == ["Start", first])
    driver.find_element(By.ID, "ex-back").click()
    wait_for(driver, lambda: crumbs(driver) == ["Start"])
    assert {m: v for m, v, _ in rows(driver)} == SOLUTION_34["moves"]
    # the address restores the position; the browser's own Back walks the same steps
    driver.get(url)
    wait_for(driver, lambda: crumbs(driver) == ["Start", first, reply])
    assert drawn(driver)["stones"] == sorted([f"L {first}", f"D {reply}"])
    driver.find_element(By.CSS_SELECTOR, '#ex-crumbs button[data-ply="1"]').click()
    wait_for(driver, lambda: crumbs(driver) == ["Start", first])
    driver.back()
    wait_for(driver, lambda: crumbs(driver) == ["Start", first, reply])

    # the live proof where the database ends: labelled proven or estimate, as the answer says
    driver.find_element(By.ID, "ex-time").send_keys("1")
    driver.find_element(By.ID, "ex-prove").click()
    wait_for(driver, lambda: text(driver, "ex-live").startswith("Live"), timeout=180)
    proven = driver.find_element(By.ID, "ex-live").get_attribute("data-proven") == "true"
    assert ("(proven)" in text(driver, "ex-live")) == proven
    assert ("(an estimate, not a proof)" in text(driver, "ex-live")) != proven

    # the keyboard: Tab reaches a move's button, Enter plays it, the left arrow goes back
    driver.get(server + "/explorer?board=3/4")
    wait_for(driver, lambda: len(rows(driver)) == 30)
    button = driver.find_element(By.CSS_SELECTOR, "#ex-moves button.go")
    assert button.get_attribute("aria-label").startswith("play ")
    for control in ("ex-board", "ex-back", "ex-start", "ex-prove", "ex-time"):
        assert driver.find_element(By.ID, control).get_attribute("aria-label")
    button.send_keys(Keys.ENTER)
    wait_for(driver, lambda: len(crumbs(driver)) == 2)
    # the focus stays in the table, on the new position's first move: Enter goes on deeper
    wait_for(driver, lambda: driver.execute_script("return document.activeElement.classList.contains('go')"))
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_for(driver, lambda: len(crumbs(driver)) == 3)
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    wait_for(driver, lambda: len(crumbs(driver)) == 2)
    outline = driver.execute_script("""var b = document.querySelector('#ex-crumbs button'); b.focus();
        return getComputedStyle(b).outlineStyle;""")
    assert outline != "none"  # a focus that shows
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    wait_for(driver, lambda: crumbs(driver) == ["Start"])
    # another board from the picker: the boards with a database
    from selenium.webdriver.support.ui import Select

    picker = Select(driver.find_element(By.ID, "ex-board"))
    assert [o.get_attribute("value") for o in picker.options] == ["2/3", "3/4"]
    picker.select_by_value("2/3")
    wait_for(driver, lambda: len(rows(driver)) == 14)
    assert {m: v for m, v, _ in rows(driver)} == SOLUTION_23["moves"]

    # a phone: no horizontal overflow at 390 px, deep in a game too
    try:
        driver.set_window_size(390, 844)
        driver.get(server + "/explorer?board=3/4&moves=" + first + "," + reply)
        wait_for(driver, lambda: len(crumbs(driver)) == 3)
        no_overflow(driver)
        assert drawn(driver)["width"] <= 390
    finally:
        driver.set_window_size(1200, 900)
    no_console_errors(driver)
    # a link with an illegal move shows its start and says why (the 400 is logged: drained)
    driver.get(server + "/explorer?board=2/3&moves=c1,c1")
    wait_for(driver, lambda: "occupied" in text(driver, "status"))
    assert len(rows(driver)) == 14 and crumbs(driver) == ["Start"]
    driver.get_log("browser")
