"""Play the engine (``/play``, ``/api/levels``, ``/api/move?player=``).

The levels' names are checked against the strength ladder's files read here directly
(results/engine/*.json) and against a folder of made-up matches, so that a name cannot
be typed by hand; the moves of the weaker players against the rules and the committed
3/4 solution; the page in headless Chromium with the fixtures of tests/test_web.py and
test_book.py: a whole game on 3/4, a takeback, a reload that continues the game, the
result screen, the record downloaded and read back.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from solver import Position
from solver.app.web.levels import LEVELS, levels

pytest.importorskip("starlette")

from test_book import driver, wait_for  # noqa: E402,F401  (the same headless Chromium)
from test_web import (client, click, download_to, downloaded, drawn, no_console_errors, one_line_error,  # noqa: E402,F401
                      move_list, server, stones_of, text)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parent.parent
SOLUTION_34 = json.loads((ROOT / "results" / "solutions" / "3-4.json").read_text(encoding="utf-8"))


def row(name: str) -> dict:
    (r,) = json.loads((ROOT / "results" / "engine" / name).read_text(encoding="utf-8"))["rows"]
    return r


# -- the levels ---------------------------------------------------------------------------
def test_levels_are_named_by_the_measured_elo():
    ls = {lv["spec"]: lv for lv in levels("5/6")}
    assert list(ls) == list(LEVELS)
    uct, flat, ladder = row("engine2-5-6-uct.json"), row("engine2-5-6-flat.json"), row("ladder-5-6-0.25-0.5.json")
    assert (uct["a"], uct["b"], flat["a"], flat["b"]) == ("engine:time=0.2", "uct:time=0.2",
                                                          "engine:time=0.2", "mcts-flat:time=0.2")
    # the engine at 0.2 s over the first engine, measured directly, with its interval
    e = ls["engine:time=0.2"]
    assert (e["elo"], e["low"], e["high"], e["base"]) == (round(uct["elo"]), round(uct["elo_low"]),
                                                          round(uct["elo_high"]), 1)
    assert f"Elo {round(uct['elo']):+d} [{round(uct['elo_low']):+d}, {round(uct['elo_high']):+d}] over level 1" in e["name"]
    # flat Monte Carlo is tied to the first engine through the engine: chained, no interval
    f = ls["mcts-flat:time=0.2"]
    assert f["elo"] == round(uct["elo"] - flat["elo"]) and f["low"] is None and len(f["measured"]) == 2
    assert "chained" in f["name"] and ls["uct:time=0.2"]["elo"] == 0
    # the time ladder: each rung over the one below by its match (chained beyond one)
    for low, high, name in (("engine:time=0.25", "engine:time=0.5", "ladder-5-6-0.25-0.5.json"),
                            ("engine:time=0.5", "engine:time=1", "ladder-5-6-0.5-1.json")):
        r = row(name)
        assert (r["a"], r["b"]) == (high, low) and ls[high]["group"] == ls[low]["group"]
        assert abs(ls[high]["elo"] - ls[low]["elo"] - r["elo"]) <= 1
    assert "chained" in ls["engine:time=1"]["name"]
    # the ladder joins the players at 0.2 s where a match of the engine at 0.25 s and 0.2 s
    # was played; else it is a group of its own, rated from its weaker rung, and says so
    if (ROOT / "results" / "engine" / "ladder-5-6-0.2-0.25.json").exists():
        assert ls["engine:time=0.25"]["group"] == ls["uct:time=0.2"]["group"] == [1, 2, 3, 4, 5, 6]
    else:
        assert ls["engine:time=0.25"]["elo"] == 0 and ls["engine:time=0.25"]["group"] == [4, 5, 6]
        assert ls["engine:time=0.5"]["low"] == round(ladder["elo_low"])
        assert "not measured against levels 1-3" in ls["engine:time=0.25"]["name"]


def test_levels_follow_the_files(tmp_path):
    def match(a, b, elo, board="5/6"):
        return {"a": a, "b": b, "board": board, "games": 10, "elo": elo, "elo_low": elo - 50, "elo_high": elo + 50}

    (tmp_path / "one.json").write_text(json.dumps({"rows": [match("engine:time=1", "engine:time=0.5", 40.4),
                                                            match("engine:time=0.5", "uct:time=0.2", 300.0)]}))
    (tmp_path / "other.json").write_text(json.dumps({"rows": [match("engine:time=1", "uct:time=0.2", 7.0, "4/5")]}))
    (tmp_path / "weak.json").write_text(json.dumps({"rows": [match("uct:time=0.2", "mcts-flat:time=0.2", 25.0, "6/7"),
                                                             match("engine:time=0.2", "uct:time=0.2", 75.0, "6/7")]}))
    (tmp_path / "broken.json").write_text("{not json")
    ls = levels("5/6", tmp_path)
    assert [lv["elo"] for lv in ls] == [0, None, None, None, 300, 340]
    assert ls[5]["name"].startswith("Level 6: Elo +340 over level 1, chained through 2 matches")
    assert [lv["elo"] for lv in levels("4/5", tmp_path)] == [0, None, None, None, None, 7]  # its own board's match
    assert [lv["board"] for lv in levels("3/4", tmp_path)] == ["5/6"] * 6  # none on 3/4: the ladder's board
    # the group's weakest is its base, whatever its number; a chained level lists the matches on its way
    six = levels("6/7", tmp_path)
    assert [lv["elo"] for lv in six] == [25, 0, 100, None, None, None] and {lv["base"] for lv in six[:3]} == {2}
    assert (six[0]["low"], six[0]["high"], six[2]["low"]) == (-25, 75, None)
    assert [m["file"] for m in six[2]["measured"]] == ["results/engine/weak.json"] * 2
    assert all(lv["elo"] is None for lv in levels("5/6", tmp_path / "none"))


def test_api_levels_and_the_weaker_players(client):
    d = client.get("/api/levels", params={"board": "3/4"}).json()
    assert d["board"] == "3/4" and [lv["name"] for lv in d["levels"]] == [lv["name"] for lv in levels("3/4")]
    assert "board" in one_line_error(client.get("/api/levels", params={"board": "9"}))
    pos = Position.start("3/4").play("c2")
    for player in ("uct", "mcts-flat", "random"):
        r = client.get("/api/move", params={"position": str(pos), "time": "0.1", "player": player})
        assert r.status_code == 200, r.text
        m = r.json()
        assert m["player"].split(":")[0] == player and m["move"] in pos.legal_moves()
        assert m["after"]["position"] == str(pos.play(m["move"])) and "value" not in m
    # the first engine answers through the analysis too: from the database, a winning move
    m = client.get("/api/move", params={"position": "3/4", "time": "0.1", "player": "uct"}).json()
    assert SOLUTION_34["moves"][m["move"]] == "win"
    default = client.get("/api/move", params={"position": "3/4", "time": "0.1"}).json()
    assert "player" not in default and default["source"] == "database"  # one position, one answer: the analysis
    assert "player 'best'" in one_line_error(client.get("/api/move", params={"position": "3/4", "player": "best"}))


# -- the page ------------------------------------------------------------------------------
def page_moves(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#moves li')).map(function (e) { return e.textContent.split(' ')[0]; });")


def level_options(driver) -> list[str]:
    # read in one script: the page rebuilds the options when the board changes
    return driver.execute_script("return Array.from(document.querySelectorAll('#pl-level option'))"
                                 ".map(function (o) { return o.textContent; });")


def result_shown(driver) -> bool:
    return driver.execute_script("return !document.getElementById('pl-result').hidden;")


def after(moves: list[str]) -> Position:
    pos = Position.start("3/4")
    for m in moves:
        pos = pos.play(m)
    return pos


@pytest.mark.browser
def test_a_game_against_the_engine(server, driver, tmp_path):
    from selenium.webdriver.support.ui import Select

    from solver.rules.record import parse_record

    driver.get(server + "/play")
    driver.execute_script("localStorage.clear();")
    driver.get(server + "/play")
    wait_for(driver, lambda: len(level_options(driver)) == len(LEVELS), timeout=30)
    # the level names are the ones the results files give, on the board chosen
    Select(driver.find_element("id", "pl-board")).select_by_value("3/4")
    names = [lv["name"] for lv in levels("3/4")]
    wait_for(driver, lambda: level_options(driver) == names)
    assert names[0] in text(driver, "pl-levels")
    Select(driver.find_element("id", "pl-colour")).select_by_value("D")
    Select(driver.find_element("id", "pl-level")).select_by_value("1")
    driver.find_element("id", "pl-new").click()
    # the engine (Light) moves first
    wait_for(driver, lambda: len(page_moves(driver)) == 1, timeout=120)

    rng = random.Random(5)
    took_back = reloaded = False
    while not result_shown(driver):
        moves = page_moves(driver)
        pos = after(moves)
        assert drawn(driver)["stones"] == stones_of(pos) and pos.to_move == "D"
        if len(moves) == 5 and not took_back:  # take back: your move and the engine's reply
            driver.find_element("id", "pl-takeback").click()
            wait_for(driver, lambda: len(page_moves(driver)) == 3)
            assert page_moves(driver) == moves[:3] and drawn(driver)["stones"] == stones_of(after(moves[:3]))
            took_back = True
            continue
        if len(moves) == 7 and not reloaded:  # a reload continues the game
            driver.refresh()
            wait_for(driver, lambda: page_moves(driver) == moves and len(drawn(driver)["hits"]) > 0, timeout=30)
            assert "goes on" in text(driver, "status")
            reloaded = True
        click(driver, rng.choice(pos.legal_moves()))
        wait_for(driver, lambda: len(page_moves(driver)) == len(moves) + 2 or result_shown(driver), timeout=120)
    assert took_back and reloaded

    # the result screen: the winner, the moves, a link that opens the game on the board
    moves = page_moves(driver)
    end = after(moves)
    assert end.outcome is not None
    winner = "You won" if end.outcome == "D" else "The engine won"
    assert text(driver, "pl-winner").startswith(winner) and f"{len(moves)} moves on 3/4" in text(driver, "pl-summary")
    href = driver.find_element("id", "pl-analyse").get_attribute("href")
    assert href == server + "/?position=3%2F4&moves=" + "%2C".join(moves)

    # the record: downloaded, read back as the same game with its players
    download_to(driver, tmp_path / "record")
    driver.find_element("id", "pl-record").click()
    rec = parse_record(downloaded(tmp_path / "record", ".txt").read_text(encoding="utf-8"))
    assert rec.start == Position.start("3/4") and rec.moves == moves and rec.result == end.outcome
    assert rec.headers["Dark"] == "You" and rec.headers["Light"].startswith("meridians uct:time=0.2")

    # the analysis board opens the game from the link
    driver.get(href)
    wait_for(driver, lambda: move_list(driver) == moves, timeout=60)
    no_console_errors(driver)


@pytest.mark.browser
def test_play_page_by_keyboard_and_on_a_phone(server, driver):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 800, "deviceScaleFactor": 1, "mobile": True})
    try:
        driver.get(server + "/play")
        driver.execute_script("localStorage.clear();")
        driver.get(server + "/play")
        wait_for(driver, lambda: len(drawn(driver)["hits"]) > 0, timeout=60)
        assert driver.execute_script("var d = document.documentElement; return d.scrollWidth - d.clientWidth;") == 0
        # every control has a label and is reached by Tab, with a visible focus ring
        controls = driver.execute_script("""return Array.from(document.querySelectorAll('button, select, input, a'))
            .filter(function (e) { return e.offsetParent !== null; })
            .map(function (e) { return [e.id || e.textContent, e.getAttribute('aria-label') || e.textContent.trim()]; });""")
        assert controls and all(label for _, label in controls)
        reached = set()
        for _ in range(len(controls) + 3):
            ActionChains(driver).send_keys(Keys.TAB).perform()
            el = driver.switch_to.active_element
            if el.tag_name == "body":  # past the last control, before the first again
                continue
            reached.add(el.get_attribute("id") or el.text)
            outline = driver.execute_script("return getComputedStyle(arguments[0]).outlineStyle;", el)
            assert outline != "none", (el.tag_name, el.get_attribute("id"), el.text, len(reached))
        assert {"pl-board", "pl-colour", "pl-level", "pl-new", "pl-move", "pl-record"} <= reached
        no_console_errors(driver)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
