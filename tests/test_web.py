"""``meridians serve`` (solver/app/web/): the JSON API through Starlette's TestClient, and the
pages in headless Chromium against a real uvicorn server on a loopback port.

What the API answers is checked against independent sources: legal moves and moves
played against the networkx reference rules (solver.reference), the analysis of the
empty 3/4 board against the committed solution (results/solutions/3-4.json, proven
class by class by df-pn), a puzzle's line against its record.  The browser tests need
Debian's chromium and chromium-driver and skip without them, as tests/test_book.py
does (they fail instead under CI or MERIDIANS_REQUIRE_BROWSER).
"""

from __future__ import annotations

import json
import socket
import threading
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette 1.x: "install httpx2" (httpx works all the same)
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from puzzles.record import COMMITTED, load_jsonl  # noqa: E402
from solver import Position  # noqa: E402
from solver.reference import rules as reference  # noqa: E402
from solver.app.analyst import MIN_VISITS  # noqa: E402
from solver.app.web.app import MAX_SECONDS, create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parent.parent
SOLUTION_34 = json.loads((ROOT / "results" / "solutions" / "3-4.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def client():
    # requests wait for a board's kernels (a compile on a cold cache) instead of a 503
    with TestClient(create_app(workers=1, compile_wait=600), raise_server_exceptions=False) as c:
        yield c


def ref_state(pos: Position):
    b = pos.board
    return b, frozenset(map(b.index, pos.stones("L"))), frozenset(map(b.index, pos.stones("D"))), pos.to_move


def ref_legal(pos: Position) -> list[str]:
    b, light, dark, side = ref_state(pos)
    return sorted(b.name_of(i) for i in reference.legal_moves(b, light, dark, side))


def one_line_error(r, status: int = 400) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert list(body) == ["error"] and isinstance(body["error"], str) and body["error"]
    assert "\n" not in body["error"] and "Traceback" not in body["error"]
    return body["error"]


# -- the API -----------------------------------------------------------------------------
POSITIONS = ["2/3", "3/4", "2/3/L3/3/2 D", "2/1D1/4/L2/2 D", "3/4/5/6/5/4/L2 D"]


@pytest.mark.parametrize("text", POSITIONS)
def test_position_agrees_with_the_reference_rules(client, text):
    r = client.get("/api/position", params={"position": text})
    assert r.status_code == 200, r.text
    d = r.json()
    pos = Position.parse(d["position"])
    assert {"position", "to_move", "legal_moves", "outcome", "dead"} <= set(d)
    assert d["to_move"] == pos.to_move and d["outcome"] is None
    assert sorted(d["legal_moves"]) == ref_legal(pos)
    assert d["dead"] == sorted(pos.marked_dead())


def ref_threatened(pos: Position) -> list[str]:
    """The opponent's stones that some legal move leaves in a dead group, by the reference."""
    b, light, dark, side = ref_state(pos)
    other = "D" if side == "L" else "L"
    if len(light if other == "L" else dark) < 2:
        return []
    out: set[int] = set()
    for p in reference.legal_moves(b, light, dark, side):
        l2, d2, _ = reference.play(b, light, dark, side, p)
        own, opp = (l2, d2) if other == "L" else (d2, l2)
        for g in reference.dead_groups(b, own, opp):
            out |= set(g)
    return sorted(b.name_of(i) for i in out)


def test_threatened_stones_agree_with_the_reference(client):
    import random

    seen = 0
    for seed in range(6):
        board = ("2/3", "3/4")[seed % 2]
        rng = random.Random(seed)
        pos = Position.start(board)
        while pos.outcome is None:
            d = client.get("/api/position", params={"position": str(pos)}).json()
            assert d["threatened"] == ref_threatened(pos), str(pos)
            seen += bool(d["threatened"])
            pos = pos.play(rng.choice(pos.legal_moves()))
    assert seen >= 5  # the positions tried do threaten stones


def test_play_agrees_with_the_reference_rules(client):
    import random

    rng = random.Random(5)
    pos = Position.parse("3/4/5/6/5/4/3 L")
    for _ in range(16):
        legal = ref_legal(pos)
        if not legal:
            break
        move = rng.choice(legal)
        r = client.post("/api/play", json={"position": str(pos), "move": move})
        assert r.status_code == 200, r.text
        d = r.json()
        b, light, dark, side = ref_state(pos)
        new_light, new_dark, new_side = reference.play(b, light, dark, side, b.index(move))
        assert sorted(d["light"]) == sorted(b.name_of(i) for i in new_light)
        assert sorted(d["dark"]) == sorted(b.name_of(i) for i in new_dark)
        assert d["to_move"] == new_side and d["last_move"] == move
        pos = Position.parse(d["position"])
        assert sorted(d["legal_moves"]) == ref_legal(pos)


def test_a_captured_group_and_the_end_of_a_game(client):
    # Light's c2 leaves its own stones without a path: they are removed, and Light, left
    # with none, has lost
    r = client.post("/api/play", json={"position": "2/LD1/4/1LD/2 L", "move": "c2"})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["outcome"] == "D" and d["legal_moves"] == [] and d["light"] == [] and d["removed"]
    err = one_line_error(client.post("/api/play", json={"position": d["position"], "move": "a2"}))
    assert "the game is over" in err


@pytest.mark.parametrize("position, move, words", [
    ("2/3/L3/3/2 D", "c1", "occupied"),
    ("2/3/L3/2D/2 L", "c2", "rule 2"),
    ("3/4", "z9", "unknown point"),
    ("3/4", "", "point name"),
    ("3/4", 7, "point name"),
    ("3/4", None, "point name"),
])
def test_illegal_moves_are_400_with_one_line(client, position, move, words):
    err = one_line_error(client.post("/api/play", json={"position": position, "move": move}))
    assert words in err
    if isinstance(move, str) and move in ("c1", "c2"):
        r = client.get("/api/explain", params={"position": position, "move": move})
        assert r.status_code == 200 and r.json() == {"move": move, "legal": False, "reason": err}


@pytest.mark.parametrize("position", [
    "", " ", "hello", "2/3/4/3/2", "2/3/4/3/2 X", "2/3/4/3 L", "9/10", "0/1", "2/3/4/3/2 L extra",
    "2/3/5/3/2 L", "L" * 5000, "2/3/" + "9" * 60 + "/3/2 L", "2/3/4/3/2\x00 L", "LL/3/4/3/2 D", "\u00e9/3",
])
def test_malformed_positions_are_400_with_one_line(client, position):
    one_line_error(client.get("/api/position", params={"position": position}))
    one_line_error(client.post("/api/play", json={"position": position, "move": "a1"}))
    one_line_error(client.get("/api/analyse", params={"position": position, "time": "0.1"}))
    one_line_error(client.get("/api/move", params={"position": position, "time": "0.1"}))


@pytest.mark.parametrize("body", [b"", b"{", b"[]", b"\"3/4\"", b"{\"position\": \"3/4\"}", b"\xff\xfe", b"[" * 5000,
                                  b"{\"move\": \"a1\"}"])
def test_malformed_bodies_are_400(client, body):
    one_line_error(client.post("/api/play", content=body, headers={"content-type": "application/json"}))


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "0", "1e309", str(MAX_SECONDS + 1), "1e9", "abc",
                                   "9" * 400, "0x10", " "])
def test_absurd_times_are_400(client, value):
    err = one_line_error(client.get("/api/analyse", params={"position": "3/4", "time": value}))
    assert "time" in err and len(err) < 200
    one_line_error(client.get("/api/move", params={"position": "3/4", "time": value}))


def test_missing_parameters_and_unknown_routes(client):
    assert "position" in one_line_error(client.get("/api/position"))
    assert "position" in one_line_error(client.get("/api/analyse"))
    one_line_error(client.get("/api/nothing"), 404)
    one_line_error(client.get("/static/../app.py"), 404)
    one_line_error(client.get("/api/play"), 405)
    one_line_error(client.get("/api/puzzle", params={"id": "no-such-puzzle"}), 404)


def values(d: dict) -> dict:
    """An analysis's move values, move -> value."""
    return {mv["move"]: mv["value"] for mv in d["moves"]}


def sources(d: dict) -> dict:
    return {mv["move"]: mv["source"] for mv in d["moves"]}


def test_analysis_of_the_empty_3_4_board_comes_from_the_database(client):
    t = time.perf_counter()
    r = client.get("/api/analyse", params={"position": "3/4", "time": "2"})
    took = time.perf_counter() - t
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["value"] == SOLUTION_34["value"] == "win" and d["source"] == "database"
    # every first move's value as the committed solution has it, class by class from df-pn
    assert values(d) == SOLUTION_34["moves"]
    assert set(sources(d).values()) == {"database"}
    # the line starts with a winning move, and is legal throughout
    assert d["line"] and values(d)[d["line"][0]] == "win" and d["best"] == d["line"][0]
    pos = Position.parse(d["position"])
    for m in d["line"]:
        pos = pos.play(m)
    assert took < 20


def test_a_position_lost_in_the_database_has_every_move_lost(client):
    # after Light's d3, a winning first move (the committed solution), Dark is lost
    assert SOLUTION_34["moves"]["d3"] == "win"
    d = client.get("/api/analyse", params={"position": "3/4/5/2L3/5/4/3 D", "time": "0.5"}).json()
    assert d["value"] == "loss" and d["source"] == "database"
    assert set(values(d).values()) == {"loss"} and set(sources(d).values()) == {"database"}
    assert sorted(values(d)) == sorted(Position.parse(d["position"]).legal_moves())


def test_analysis_labels_the_engine_estimates(client):
    # a 4/5 opening: no database; every value is proven (a word) or an estimate in [0, 1]
    r = client.get("/api/analyse", params={"position": "4/5/6/7/8/7/6/5/L3 D", "time": "0.3"})
    assert r.status_code == 200, r.text
    d = r.json()
    pos = Position.parse(d["position"])
    assert sorted(values(d)) == sorted(pos.legal_moves())
    for mv in d["moves"]:
        if mv["value"] != "unknown":  # proven: no estimate
            assert mv["source"] in ("proof", "database", "rules") and mv["estimate"] is None
        elif mv["estimate"] is not None:  # an estimate with its visits and interval
            e = mv["estimate"]
            assert mv["source"] == "engine" and e["visits"] == mv["visits"] >= MIN_VISITS
            assert 0.0 <= e["low"] <= e["win_rate"] <= e["high"] <= 1.0
        else:  # searched too little to say anything
            assert mv["source"] == "none" and mv["visits"] < MIN_VISITS
    assert (d["source"] == "engine" and d["value"] == "unknown" and d["estimate"]) or \
        (d["source"] == "proof" and d["value"] in ("win", "loss"))
    assert d["best"] in values(d)


def test_analysis_of_a_finished_game(client):
    end = client.post("/api/play", json={"position": "2/LD1/4/1LD/2 L", "move": "c2"}).json()["position"]
    d = client.get("/api/analyse", params={"position": end, "time": "0.1"}).json()
    assert d["to_move"] == "D" and d["value"] == "win" and d["source"] == "rules" and d["moves"] == []
    assert "over" in d["notes"][0]
    # the position before: c2 is a losing move for Light (the rules say so at once)
    d = client.get("/api/analyse", params={"position": "2/LD1/4/1LD/2 L", "time": "0.2"}).json()
    assert values(d)["c2"] == "loss" and sources(d)["c2"] == "rules"


def test_a_long_analysis_does_not_block_the_server(client):
    # a 3 s analysis runs in the worker process; meanwhile the server answers others
    result = {}
    long = threading.Thread(target=lambda: result.update(
        r=client.get("/api/analyse", params={"position": "5/6/7/8/9/10/9/8/7/6/5 L", "time": "3"})))
    long.start()
    time.sleep(0.3)
    for _ in range(3):
        r = client.get("/api/position", params={"position": "3/4"})
        assert r.status_code == 200
        assert client.post("/api/play", json={"position": "3/4", "move": "d3"}).status_code == 200
    assert long.is_alive()  # answered while the analysis was still running
    long.join()
    assert result["r"].status_code == 200 and result["r"].json()["seconds"] >= 2.5


def test_a_worker_that_dies_is_replaced():
    import os
    import signal

    app = create_app(workers=1, compile_wait=600)
    with TestClient(app, raise_server_exceptions=False) as c:
        params = {"position": "3/4", "time": "0.1"}
        assert c.get("/api/analyse", params=params).status_code == 200
        (pid,) = list(app.state.pool.executor()._processes)  # the worker this test started
        os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)
        err = one_line_error(c.get("/api/analyse", params=params), 503)
        assert "worker process stopped" in err
        r = c.get("/api/analyse", params=params)  # a new pool
        assert r.status_code == 200 and r.json()["source"] == "database"


def test_engine_move(client):
    r = client.get("/api/move", params={"position": "3/4", "time": "0.2"})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["source"] == "database" and d["value"] == "win"
    assert SOLUTION_34["moves"][d["move"]] == "win" and d["after"]["last_move"] == d["move"] == d["best"]


def test_record(client):
    d = client.post("/api/record", json={"text": "3/4\nc1 c3\n", "board": "3/4"}).json()
    assert d["moves"] == ["c1", "c3"] and len(d["positions"]) == 3
    assert d["positions"][-1] == str(Position.start("3/4").play("c1").play("c3"))
    err = one_line_error(client.post("/api/record", json={"text": "3/4\nc1 c1"}))
    assert "c1" in err


def test_puzzles_and_a_puzzle_line(client):
    d = client.get("/api/puzzles", params={"board": "4/5", "n": "2"}).json()
    want = [p for name in ("4-5-c1", "4-5-c2", "4-5-c3", "4-5-c4") for p in load_jsonl(COMMITTED / f"{name}.jsonl")
            if p.n == 2]
    assert d["count"] == len(want) == len(d["puzzles"]) > 0
    assert [r["id"] for r in d["puzzles"]] == [p.id for p in want]
    assert {"4/5", "5/6", "6/7"} <= set(d["options"]["board"])
    p = want[0]
    one = client.get("/api/puzzle", params={"id": p.id}).json()
    names = Position.parse(p.position).board.names
    assert one["task"] == p.task() and names[one["data"]["k"]] == p.key
    assert [names[mv[0]] for mv in one["data"]["line"]][:len(p.line) - 1] == list(p.line[:-1])
    themed = client.get("/api/puzzles", params={"theme": "sacrifice", "rating": "3"}).json()
    assert all("sacrifice" in r["themes"] and r["rating"] == 3 for r in themed["puzzles"])


@pytest.mark.parametrize("params,words", [
    ({"n": "abc"}, "n 'abc'"),
    ({"n": "2.5"}, "n '2.5'"),
    ({"n": "0"}, "n '0'"),
    ({"rating": "high"}, "rating 'high'"),
    ({"board": "9/10"}, "unsupported board 9/10"),
    ({"board": "abc", "n": "2"}, "unknown board 'abc'"),
])
def test_puzzles_refuses_bad_filters_in_one_line(client, params, words):
    assert words in one_line_error(client.get("/api/puzzles", params=params))


def test_puzzles_says_when_none_matches(client):
    # a valid board with no committed puzzles: an empty list, and a note saying so
    d = client.get("/api/puzzles", params={"board": "1/2", "n": "2"}).json()
    assert d["count"] == 0 and d["puzzles"] == [] and d["note"] == "no puzzle matches board 1/2, n 2"
    assert "4/5" in d["options"]["board"]
    assert "note" not in client.get("/api/puzzles", params={"board": "4/5"}).json()


def test_nothing_is_a_500(client):
    # odd values in every parameter of every route: each a 2xx or a 4xx, never a 500
    odd = ["", "\x00", "%", "3/4\n", "a" * 3000, "[]", "{}", "NaN", "-0", "\ud7ff", "6/7 L L"]
    for v in odd:
        for path, params in (("/api/position", {"position": v}), ("/api/explain", {"position": "3/4", "move": v}),
                             ("/api/board", {"board": v}), ("/api/puzzle", {"id": v}),
                             ("/api/puzzles", {"board": v, "n": v, "theme": v, "rating": v}),
                             ("/api/analyse", {"position": "3/4", "time": v})):
            r = client.get(path, params=params)
            assert r.status_code < 500, (path, v, r.text)
        r = client.post("/api/record", json={"text": v})
        assert r.status_code < 500, (v, r.text)


def test_pages_and_static_files(client):
    for path in ("/", "/trainer"):
        r = client.get(path)
        assert r.status_code == 200 and "<!DOCTYPE html>" in r.text and "default-src 'self'" in \
            r.headers["content-security-policy"]
    for name in ("common.js", "board.js", "trainer.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200


@pytest.mark.subprocess
def test_load_test_script(tmp_path, monkeypatch, capsys):
    from conftest import load_script, run_script

    mod = load_script("bench_web", monkeypatch, tmp_path)
    run_script(mod, monkeypatch, "--requests", "6", "--clients", "2", "--workers", "1")
    d = json.loads((tmp_path / "load.json").read_text(encoding="utf-8"))
    assert d["requests"] == 6 and d["errors"] == 0 and sum(d["sources"].values()) == 6
    assert d["command"] == "python scripts/bench_web.py --requests 6 --clients 2 --workers 1" and d["revision"]
    assert 0 < d["min_seconds"] <= d["median_seconds"] <= d["p95_seconds"] <= d["max_seconds"]
    assert "0 errors" in capsys.readouterr().out
    # the server's workers stopped with it (Linux: /proc lists them)
    assert d["orphans"] == 0 and (d["server_children"] >= 1 or not Path("/proc/self/task").is_dir())


# -- the command -------------------------------------------------------------------------
def test_serve_without_starlette_says_what_to_install(run_cli, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "starlette", None)  # import starlette fails
    r = run_cli("serve", code=2)
    assert r.stderr.count("\n") == 1 and "pip install -e '.[web]'" in r.stderr and r.exception is None


def test_serve_on_a_port_in_use(run_cli):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = run_cli("serve", "--port", port, code=2)
    assert r.stderr.count("\n") == 1 and f"127.0.0.1:{port}" in r.stderr and r.exception is None


# -- the pages in a browser ----------------------------------------------------------------
from test_book import driver, wait_for  # noqa: E402,F401  (the same headless Chromium)


@pytest.fixture(scope="module")
def server():
    """A uvicorn server on a free loopback port, in a thread of this process."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(create_app(workers=1, compile_wait=600), host="127.0.0.1", port=port,
                            log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=30)


def drawn(driver) -> dict:
    return driver.execute_script("""
        var v = document.getElementById('board');
        function pts(sel) { return Array.from(v.querySelectorAll(sel)).map(function (e) { return e.getAttribute('data-point'); }); }
        return { stones: Array.from(v.querySelectorAll('.stone')).map(function (e) {
                   return (e.classList.contains('light') ? 'L ' : 'D ') + e.getAttribute('data-point'); }).sort(),
                 hits: pts('.hit'), dead: pts('.dead'), last: pts('.last'), threats: pts('.threat').sort(),
                 values: Array.from(v.querySelectorAll('.mv')).map(function (e) {
                   return [e.getAttribute('data-point'), e.getAttribute('data-value'), e.getAttribute('data-source')]; }),
                 width: v.getBoundingClientRect().width };""")


def click(driver, point: str) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    for attempt in range(5):
        try:  # the board is drawn anew when an analysis arrives: the point found may go stale
            driver.find_element(By.CSS_SELECTOR, f'#board .hit[data-point="{point}"]').click()
            return
        except StaleElementReferenceException:
            if attempt == 4:
                raise


def text(driver, element_id: str) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id).text


def no_console_errors(driver) -> None:
    severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []


@pytest.mark.browser
def test_analysis_board_in_browser(server, driver):
    driver.get(server + "/?position=3/4")
    assert driver.title == "Meridians: analysis board"
    # the board renders: 30 points, no stones; the database's values appear on every point
    wait_for(driver, lambda: len(drawn(driver)["values"]) == 30, timeout=120)
    d = drawn(driver)
    assert sorted(d["hits"]) == sorted(Position.start("3/4").board.names) and d["stones"] == [] and d["width"] > 200
    assert {p: v for p, v, _ in d["values"]} == SOLUTION_34["moves"]
    assert {s for _, _, s in d["values"]} == {"database"}
    # each value has a shape of its own, not a colour alone: a triangle for a win, a cross for a loss
    shapes = driver.execute_script("""var v = document.getElementById('board');
        return [v.querySelectorAll('.mv.win polygon').length, v.querySelectorAll('.mv.loss path').length,
                v.querySelectorAll('.mv.win').length, v.querySelectorAll('.mv.loss').length];""")
    assert shapes[0] == shapes[2] == 8 and shapes[1] == shapes[3] == 22
    assert text(driver, "value") == "Light to move: win (database)"
    assert text(driver, "line") != "-"

    # a legal click plays the point (the server's rules), and the analysis follows
    click(driver, "c1")
    wait_for(driver, lambda: drawn(driver)["stones"] == ["L c1"])
    assert drawn(driver)["last"] == ["c1"] and text(driver, "to-move").startswith("Dark to move")
    wait_for(driver, lambda: text(driver, "value").startswith("Dark to move: win"), timeout=120)
    # an illegal click is refused with the rule's message, and nothing is played
    click(driver, "c1")
    wait_for(driver, lambda: "Refused" in text(driver, "status"))
    assert text(driver, "status") == "Refused: c1 is occupied" and drawn(driver)["stones"] == ["L c1"]
    assert "error" in driver.find_element("id", "status").get_attribute("class")
    click(driver, "e2")
    wait_for(driver, lambda: drawn(driver)["stones"] == ["D e2", "L c1"])
    click(driver, "c2")  # Light's second stone next to the first: rule 2
    wait_for(driver, lambda: "rule 2" in text(driver, "status"))
    assert drawn(driver)["stones"] == ["D e2", "L c1"]

    # undo and redo; the move list
    driver.find_element("id", "undo").click()
    wait_for(driver, lambda: drawn(driver)["stones"] == ["L c1"])
    driver.find_element("id", "redo").click()
    wait_for(driver, lambda: drawn(driver)["stones"] == ["D e2", "L c1"])
    assert text(driver, "moves").split() == ["c1", "e2"]

    # a pasted game record replaces the game; its moves can be stepped through
    driver.find_element("id", "paste").send_keys("3/4\nd3 b2 f3")
    driver.find_element("id", "load").click()
    wait_for(driver, lambda: text(driver, "moves").split() == ["d3", "b2", "f3"])
    assert drawn(driver)["stones"] == ["D b2", "L d3", "L f3"] and drawn(driver)["last"] == ["f3"]
    driver.find_element("css selector", '#moves [data-ply="1"]').click()
    wait_for(driver, lambda: drawn(driver)["stones"] == ["L d3"])
    # the stones the player to move can kill in one move carry a dotted ring
    driver.find_element("id", "paste").clear()
    driver.find_element("id", "paste").send_keys("2/LD1/4/1LD/2 L")
    driver.find_element("id", "load").click()
    wait_for(driver, lambda: drawn(driver)["threats"] == ref_threatened(Position.parse("2/LD1/4/1LD/2 L")) != [])
    driver.find_element("id", "paste").clear()
    driver.find_element("id", "paste").send_keys("3/4/5/6/5/4/3 L")
    driver.find_element("id", "load").click()
    wait_for(driver, lambda: drawn(driver)["stones"] == [] and text(driver, "moves") == "")
    click(driver, "c1")
    wait_for(driver, lambda: drawn(driver)["stones"] == ["L c1"])
    click(driver, "e2")
    wait_for(driver, lambda: drawn(driver)["stones"] == ["D e2", "L c1"])

    # the engine answers as Dark
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "engine-side")).select_by_value("D")
    click(driver, "c3")
    wait_for(driver, lambda: len(text(driver, "moves").split()) == 4, timeout=120)
    moves = text(driver, "moves").split()
    pos = Position.start("3/4")
    for m in moves:
        pos = pos.play(m)  # every move of the list is legal, in order
    assert "The engine played " + moves[3] in text(driver, "status")
    # undo takes back the engine's reply and your move together
    driver.find_element("id", "undo").click()
    # (the list keeps the moves taken back, for redo; the current one is marked)
    wait_for(driver, lambda: driver.find_element("css selector", "#moves .current").get_attribute("data-ply") == "2")
    assert text(driver, "to-move").startswith("Light to move") and drawn(driver)["stones"] == ["D e2", "L c1"]
    no_console_errors(driver)


@pytest.mark.browser
def test_trainer_in_browser(server, driver):
    from selenium.webdriver.support.ui import Select

    p = next(p for p in load_jsonl(COMMITTED / "4-5-c2.jsonl") if p.dual_free and len(p.line) == 4)
    driver.get(server + "/trainer")
    driver.execute_script("localStorage.clear();")
    driver.get(server + "/trainer")
    wait_for(driver, lambda: len(Select(driver.find_element("id", "filter-board")).options) > 1, timeout=20)
    Select(driver.find_element("id", "filter-board")).select_by_value("4/5")
    wait_for(driver, lambda: text(driver, "puzzle-id").startswith("m45-"))
    Select(driver.find_element("id", "filter-n")).select_by_value("2")
    wait_for(driver, lambda: text(driver, "puzzle-id").startswith("m45-c2"))
    # Next steps through the list; a link opens the chosen puzzle
    current = text(driver, "puzzle-id")
    driver.find_element("id", "next").click()
    wait_for(driver, lambda: text(driver, "puzzle-id") not in ("", current))
    driver.get(server + "/trainer?id=" + p.id)
    wait_for(driver, lambda: text(driver, "puzzle-id") == p.id)
    assert text(driver, "task") == p.task()
    wait_for(driver, lambda: text(driver, "status") == "Click the key.")
    start = Position.parse(p.position)
    assert drawn(driver)["stones"] == sorted([f"L {n}" for n in start.stones("L")] + [f"D {n}" for n in start.stones("D")])

    wrong = next(m for m in start.legal_moves() if m != p.key)
    click(driver, wrong)
    assert text(driver, "status") == f"Wrong: {wrong} is not the key."
    click(driver, p.key)
    assert text(driver, "status").startswith(f"Right: {p.key} is the key.")
    wait_for(driver, lambda: "Your move" in text(driver, "status"))
    after = start.play(p.line[0]).play(p.line[1])
    assert drawn(driver)["last"] == [p.line[1]]
    assert drawn(driver)["stones"] == sorted([f"L {n}" for n in after.stones("L")] + [f"D {n}" for n in after.stones("D")])
    click(driver, p.line[2])
    wait_for(driver, lambda: "Solved" in text(driver, "status"))
    progress = json.loads(driver.execute_script("return localStorage.getItem('meridians-trainer-progress');"))
    assert progress[p.id].startswith("solved")
    # step back through the line
    driver.find_element("css selector", '#stepper [data-step="first"]').click()
    assert drawn(driver)["last"] == [] and text(driver, "ply").startswith("start")
    driver.find_element("css selector", '#stepper [data-step="fwd"]').click()
    assert drawn(driver)["last"] == [p.key]
    no_console_errors(driver)



def test_an_analysis_whose_request_has_gone_is_stopped(server):
    # one worker: a 20 s analysis that went on after its request was dropped would hold it,
    # and the next analysis would wait about 19 s for it
    import http.client
    import urllib.request
    from urllib.parse import quote, urlsplit

    where = urlsplit(server)
    opening = quote(str(Position.start("5/6")))
    assert urllib.request.urlopen(f"{server}/api/analyse?position={opening}&time=0.1", timeout=300).status == 200
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=1.0)
    conn.request("GET", f"/api/analyse?position={opening}&time=20")
    with pytest.raises(OSError):  # a timeout: the request is dropped after a second
        conn.getresponse()
    conn.close()
    t = time.perf_counter()
    r = urllib.request.urlopen(f"{server}/api/analyse?position={opening}&time=0.5", timeout=60)
    took = time.perf_counter() - t
    assert r.status == 200 and json.loads(r.read())["position"] == str(Position.start("5/6"))
    assert took < 10, f"the next analysis waited {took:.1f} s: the dropped one was not stopped"


def test_a_board_whose_kernels_are_loading_is_a_503_that_says_so():
    # no wait at all: the first request for a board starts its kernels' loading in a
    # worker and is told so; once they are loaded the board's analyses are served
    app = create_app(workers=1, compile_wait=0)
    with TestClient(app, raise_server_exceptions=False) as c:
        params = {"position": "4/5", "time": "0.1"}
        r = c.get("/api/analyse", params=params)
        assert r.status_code == 503 and r.json()["compiling"] == "4/5" and r.headers["retry-after"] == "2"
        assert r.json()["error"].startswith("compiling the 4/5 kernels (first use")
        deadline = time.monotonic() + 300
        while (r := c.get("/api/analyse", params=params)).status_code == 503:
            assert r.json()["compiling"] == "4/5" and time.monotonic() < deadline
            time.sleep(0.2)
        assert r.status_code == 200 and r.json()["position"] == str(Position.start("4/5"))
        assert "4/5" in app.state.pool.ready
        # a board already loaded is served at once, with no 503
        assert c.get("/api/analyse", params=params).status_code == 200
