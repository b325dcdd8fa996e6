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

import contextlib
import json
import re
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
    r = client.get("/api/analyse", params={"position": "3/4", "time": "2"})
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


def test_analysis_gives_the_top_lines(client):
    # 2/3: the database's lines, best first, the first the principal line, each legal
    from solver.app.openings.database import database_line

    d = client.get("/api/analyse", params={"position": "2/3", "time": "1"}).json()
    assert len(d["lines"]) == 3 and d["lines"][0]["line"] == d["line"] and d["lines"][0]["move"] == d["best"]
    firsts = [ln["line"][0] for ln in d["lines"]]
    assert firsts == [ln["move"] for ln in d["lines"]] and len(set(firsts)) == 3
    pos = Position.parse(d["position"])
    moves = {mv["move"]: mv for mv in d["moves"]}
    for ln in d["lines"]:
        assert {k: v for k, v in ln.items() if k != "line"} == moves[ln["move"]]
        assert ln["value"] == "win" and ln["source"] == "database" and len(ln["line"]) > 4
        assert ln["line"] == [ln["move"]] + database_line(pos.play(ln["move"]))


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


def _rule_overloads() -> int:
    """The machine codes the rules' kernels have loaded in this process (one a board)."""
    from numba.core.registry import CPUDispatcher

    from solver.rules import core

    return sum(len(k.overloads) for k in vars(core).values() if isinstance(k, CPUDispatcher))


@pytest.mark.parametrize("board", ["1/2", "2/3", "3/4"])
def test_load_rules_loads_every_kernel_a_rules_answer_runs(board):
    # what the server's thread loads is all that the rules' answers then run: positions of
    # random games, their moves (legal or not) and their explanations compile nothing more
    from solver.app.web import work
    from solver.rules.randomgame import random_game

    # an earlier test's server may still be loading a board (it stops between boards): its
    # loads are not this board's answers'
    for thread in threading.enumerate():
        if thread.name == "meridians-rules":
            thread.join()
    work.load_rules(board)
    loaded = _rule_overloads()
    for seed in range(20):
        for pos in random_game(board, seed, plies=30):
            work.position_info(str(pos))
            for point in pos.board.names[:: max(1, pos.board.size // 6)]:
                work.explain_move(str(pos), point)
                with contextlib.suppress(ValueError):
                    work.play_move(str(pos), point)
    assert _rule_overloads() == loaded


def test_the_server_loads_every_boards_rules_from_its_start(monkeypatch):
    from solver.app.web import app as web_app
    from solver.app.web import work
    from solver.rules.board import MAX_M, MIN_M

    assert sorted(web_app.RULES_BOARDS) == sorted(f"{m}/{m + 1}" for m in range(MIN_M, MAX_M + 1))
    assert web_app.RULES_BOARDS[0] == web_app.FIRST_BOARD
    loaded = []
    monkeypatch.setattr(work, "load_rules", lambda b: loaded.append(b) if b != "2/3" else 1 / 0)
    with TestClient(create_app(workers=1, rules=("4/5", "2/3", "1/2"))) as c:
        deadline = time.monotonic() + 60
        while len(loaded) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert c.get("/api/position", params={"position": "2/3"}).status_code == 200
    assert loaded == ["4/5", "1/2"]  # in order; one that fails is left to its first request


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
    # the difficulty band and the rating from attempts, as the records have them
    assert [(r["rating"], r["puzzle_rating"]) for r in d["puzzles"]] == [(p.difficulty, p.rating) for p in want]
    assert {"4/5", "5/6", "6/7"} <= set(d["options"]["board"])
    p = want[0]
    one = client.get("/api/puzzle", params={"id": p.id}).json()
    names = Position.parse(p.position).board.names
    assert one["task"] == p.task() and names[one["data"]["k"]] == p.key
    assert [names[mv[0]] for mv in one["data"]["line"]][:len(p.line) - 1] == list(p.line[:-1])
    themed = client.get("/api/puzzles", params={"theme": "fork", "rating": "3"}).json()
    assert themed["puzzles"] and all("fork" in r["themes"] and r["rating"] == 3 for r in themed["puzzles"])


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


def test_record_text_reads_back_as_the_same_game(client):
    from solver.rules.record import parse_record

    start = Position.parse("3/4/5/6/5/4/L2 D")
    moves = ["d3", start.play("d3").legal_moves()[0]]
    r = client.post("/api/record-text", json={"start": str(start), "moves": moves,
                                              "headers": {"Light": "Ann", "Dark": "Bob"}})
    assert r.status_code == 200, r.text
    rec = parse_record(r.json()["text"])
    assert rec.start == start and rec.moves == moves and rec.result is None and r.json()["result"] is None
    assert rec.headers == {"Light": "Ann", "Dark": "Bob"} and r.json()["filename"].endswith(".txt")
    # a game that is over carries its result; without headers, its source
    r = client.post("/api/record-text", json={"start": "2/LD1/4/1LD/2 L", "moves": ["c2"]})
    rec = parse_record(r.json()["text"])
    assert rec.result == "D" == Position.parse("2/LD1/4/1LD/2 L").play("c2").outcome
    assert rec.headers["Source"] == "meridians serve"
    # what /api/record reads of it, it writes back
    back = client.post("/api/record", json={"text": r.json()["text"], "board": "2/3"}).json()
    assert back["moves"] == ["c2"] and back["result"] == "D" and back["headers"] == rec.headers
    # variations: whole lines in, the record's variations out, and /api/record gives them back
    lines = [["c1", "e2", "c3"], ["c1", "d3"], ["c1", "e2", "c4"]]
    r = client.post("/api/record-text", json={"start": "3/4", "moves": lines[0], "variations": lines[1:]})
    rec = parse_record(r.json()["text"])
    assert rec.lines() == lines and "1. c1 e2 (1... d3) 2. c3 (2. c4)" in r.json()["text"]
    back = client.post("/api/record", json={"text": r.json()["text"]}).json()
    assert back["moves"] == lines[0] and [v["moves"] for v in back["variations"]] == lines[1:]
    assert back["variations"][0]["positions"] == [str(p) for p in (Position.start("3/4"), Position.start("3/4").play("c1"),
                                                                   Position.start("3/4").play("c1").play("d3"))]
    for body, words in (({"start": "3/4", "moves": ["c1"], "variations": [["c1", "c1"]]}, "variation 1, move 2 (c1)"),
                        ({"start": "3/4", "moves": ["c1"], "variations": [["c1", "e2"]]}, "goes on after the main line"),
                        ({"start": "3/4", "moves": ["c1"], "variations": ["c1"]}, "variations: give a list of lines"),
                        ({"start": "3/4", "moves": ["c1", "c1"]}, "occupied"),
                        ({"start": "3/4", "moves": "c1"}, "list of point names"),
                        ({"start": "3/4", "moves": [], "headers": {"Board": "3/4"}}, "header key"),
                        ({"start": "3/4", "moves": [], "result": "Light"}, "result"),
                        ({"moves": []}, "give a position")):
        assert words in one_line_error(client.post("/api/record-text", json=body)), body


def test_records_with_many_variations_are_read_in_time_or_refused():
    # the positions of every line, whole from the start, used to be replayed line by line:
    # 200 one-move variations at the end of a 100-move 6/7 game took 3 s, and a pasted
    # record of 100,000 characters holds 20,000 of them (minutes, and 200 MB of JSON)
    from solver.app.web import work
    from solver.rules.randomgame import random_game
    from solver.rules.record import GameRecord, RecordError, parse_record

    game = list(random_game("6/7", 3, plies=100))
    moves = [p.last_move for p in game[1:]]
    head = GameRecord({}, game[0], moves).text().rstrip().rstrip("*")

    def with_variations(n: int) -> str:
        return head + " ".join(f"({moves[-1]})" for _ in range(n)) + " *\n"

    t = time.perf_counter()
    d = work.read_record(with_variations(work.MAX_LINES - 1))
    assert time.perf_counter() - t < 3.0  # was ~14 s
    assert len(d["variations"]) == work.MAX_LINES - 1 and d["variations"][-1]["positions"] == d["positions"]
    t = time.perf_counter()
    with pytest.raises(RecordError, match=f"at most {work.MAX_LINES:,} lines"):
        work.read_record(with_variations(work.MAX_LINES))
    assert time.perf_counter() - t < 3.0
    # the positions of nested lines are those of each line replayed alone, with its history
    text = '[Board "3/4"]\n1. c1 e2 (1... d3 2. c3 (2. a1 b1) d1) 2. c3 (2. c4 e4) *\n'
    d = work.read_record(text)
    lines = parse_record(text).lines()
    assert [d["moves"]] + [v["moves"] for v in d["variations"]] == lines
    for v, line in zip([d] + d["variations"], lines):
        pos = Position.start("3/4")
        want = [str(pos)]
        for m in line:
            pos = pos.play(m)
            want.append(str(pos))
        assert v["positions"] == want


def test_record_text_takes_point_names_as_the_rules_read_them():
    # names the rules read (any case, spaces around) used to fail the read-back check with a
    # plain ValueError, "the record does not read back as the same game"
    from solver.app.web import work
    from solver.rules.record import parse_record

    d = work.write_record("3/4", ["C1", " e2", "c3"], variations=[["C1", "D3 "], [" c1", "E2", "c4"]])
    assert parse_record(d["text"]).lines() == [["c1", "e2", "c3"], ["c1", "d3"], ["c1", "e2", "c4"]]
    assert "1. c1 e2 (1... d3) 2. c3 (2. c4)" in d["text"]


def test_record_text_and_record_round_trip_random_trees():
    # the export of a game with variations (whole lines in) reads back, through /api/record's
    # function, as the same lines with the positions of each line replayed alone
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from solver.app.web import work
    from solver.rules.randomgame import random_game

    def moves_of(game):
        return [p.last_move for p in list(game)[1:]]

    @settings(max_examples=25, deadline=None)
    @given(st.integers(0, 10_000), st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99)), max_size=5))
    def check(seed, branches):
        start = Position.start("3/4")
        lines = [moves_of(random_game("3/4", seed))]
        for n, (which, at) in enumerate(branches):
            base = lines[which % len(lines)]
            k = at % len(base)
            pos = start
            for m in base[:k]:
                pos = pos.play(m)
            others = [m for m in pos.legal_moves() if m != base[k]]
            if others:
                first = others[(seed + n) % len(others)]
                lines.append(base[:k] + [first] + moves_of(random_game("3/4", seed + n + 1, start=pos.play(first), plies=4)))
        lines = [x for x in lines[1:] if not (len(x) > len(lines[0]) and x[:len(lines[0])] == lines[0])]
        main = moves_of(random_game("3/4", seed))
        text = work.write_record("3/4", [m.upper() for m in main], variations=lines)["text"]
        d = work.read_record(text)
        got = [d["moves"]] + [v["moves"] for v in d["variations"]]
        held = {tuple(x) for x in [main, *lines]}
        leaves = {t for t in held if not any(len(u) > len(t) and u[:len(t)] == t for u in held)}
        assert got[0] == main and len(set(map(tuple, got))) == len(got) and set(map(tuple, got)) == leaves | {tuple(main)}
        for line, v in zip(got, [d] + d["variations"]):
            pos, want = start, [str(start)]
            for m in line:
                pos = pos.play(m)
                want.append(str(pos))
            assert v["positions"] == want

    check()


def test_record_refusals_are_typed():
    # the record functions' own refusals were plain ValueErrors: each is now the project's
    # typed error (a RecordError, under MeridiansError)
    from solver.app.web import work
    from solver.rules.record import RecordError

    for call in (lambda: work.read_record(""), lambda: work.read_record("x" * 100_001),
                 lambda: work.write_record("3/4", "c1"), lambda: work.write_record("3/4", ["c1"], variations=["c1"]),
                 lambda: work.write_record("3/4", [], headers=["x"]), lambda: work.write_record("3/4", [], result="W")):
        with pytest.raises(RecordError):
            call()


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
    assert text(driver, "top-moves").startswith("d3 win (database)")

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
    # the server may still be analysing the last position: 5 s ran out once on a loaded CI run
    wait_for(driver, lambda: drawn(driver)["stones"] == [] and text(driver, "moves") == "", timeout=60)
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


def stones_of(pos: Position) -> list[str]:
    return sorted([f"L {n}" for n in pos.stones("L")] + [f"D {n}" for n in pos.stones("D")])


def move_list(driver) -> list[str]:
    return text(driver, "moves").split()


def current_ply(driver) -> int:
    """The move the move list marks as shown (0: the start, none marked)."""
    return driver.execute_script("var c = document.querySelector('#moves .current');"
                                 "return c ? parseInt(c.getAttribute('data-ply'), 10) : 0;")


def open_board(driver, url: str, moves: int = 0) -> None:
    driver.get(url)
    wait_for(driver, lambda: len(drawn(driver)["hits"]) > 0 and len(move_list(driver)) == moves, timeout=60)


@pytest.mark.browser
def test_board_link_restores_the_game(server, driver):
    from urllib.parse import parse_qs, urlsplit

    open_board(driver, server + "/?position=3/4")
    game = [Position.start("3/4")]
    for m in ("c1", "e2", "c3"):
        click(driver, m)
        game.append(game[-1].play(m))
        wait_for(driver, lambda: drawn(driver)["stones"] == stones_of(game[-1]))
    query = parse_qs(urlsplit(driver.current_url).query)
    assert query["position"] == ["3/4"] and query["moves"] == ["c1,e2,c3"] and "ply" not in query
    driver.find_element("id", "undo").click()  # the move shown is in the link too
    wait_for(driver, lambda: "ply=2" in driver.current_url)
    link = driver.current_url
    driver.get("about:blank")
    open_board(driver, link, moves=3)
    assert move_list(driver) == ["c1", "e2", "c3"] and current_ply(driver) == 2
    assert drawn(driver)["stones"] == stones_of(game[2]) and drawn(driver)["last"] == ["e2"]
    assert driver.current_url == link
    # a start that is not the empty board, written as the page writes it
    start = Position.parse("3/4/5/6/5/4/L2 D")
    after = start.play("d3").play("a3")
    open_board(driver, server + "/?position=3/4/5/6/5/4/L2+D&moves=d3,a3", moves=2)
    assert drawn(driver)["stones"] == stones_of(after) and text(driver, "current-position") == str(after)
    assert parse_qs(urlsplit(driver.current_url).query)["position"] == [str(start)]
    no_console_errors(driver)
    # a link whose moves do not replay: said, and the board starts from its start (the
    # browser logs the server's 400, and nothing else)
    open_board(driver, server + "/?position=3/4&moves=c1,c1")
    wait_for(driver, lambda: "c1 is occupied" in text(driver, "status"))
    assert text(driver, "status").startswith("The link was not loaded") and drawn(driver)["stones"] == []
    severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert len(severe) == 1 and "/api/record - Failed to load resource" in severe[0] and "400" in severe[0]


def press(driver, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def point_place(driver, point: str) -> tuple[float, float]:
    """Where a point's centre is on the drawn board, as fractions of its width and height."""
    return tuple(driver.execute_script("""
        var s = document.querySelector('#board svg').getBoundingClientRect();
        var r = document.querySelector('#board .hit[data-point="' + arguments[0] + '"]').getBoundingClientRect();
        return [(r.left + r.width / 2 - s.left) / s.width, (r.top + r.height / 2 - s.top) / s.height];""", point))


@pytest.mark.browser
def test_board_arrow_keys_and_flip(server, driver):
    from selenium.webdriver.common.keys import Keys

    moves = ["c1", "e2", "c3"]
    game = [Position.start("3/4")]
    for m in moves:
        game.append(game[-1].play(m))
    open_board(driver, server + "/?position=3/4&moves=" + ",".join(moves), moves=3)
    assert current_ply(driver) == 3

    def shows(ply: int) -> bool:
        return current_ply(driver) == ply and drawn(driver)["stones"] == stones_of(game[ply])

    for key, ply in ((Keys.ARROW_LEFT, 2), (Keys.ARROW_LEFT, 1), (Keys.HOME, 0), (Keys.ARROW_LEFT, 0),
                     (Keys.ARROW_RIGHT, 1), (Keys.END, 3), (Keys.ARROW_RIGHT, 3), (Keys.ARROW_LEFT, 2)):
        press(driver, key)
        wait_for(driver, lambda: shows(ply))
    # not while typing in a field
    driver.find_element("id", "paste").click()
    press(driver, Keys.HOME)
    press(driver, "f")
    time.sleep(0.3)
    assert shows(2) and driver.find_element("id", "paste").get_attribute("value") == "f"
    driver.find_element("id", "paste").clear()
    driver.execute_script("document.activeElement.blur();")
    # the keys are listed on the page
    listed = text(driver, "keys")
    assert all(k in listed for k in ("Home", "End", "flip the board", "back one move", "forward one move"))

    # flip: the board turned half a turn, the stones with it; the lattice's labels kept upright
    a1, e2 = point_place(driver, "a1"), point_place(driver, "e2")
    assert a1[1] > 0.5  # a1's row is drawn at the bottom
    stone = "#board .stone[data-point='e2']"
    before = driver.execute_script(f"return document.querySelector(\"{stone}\").getBoundingClientRect().top;")
    press(driver, "f")
    wait_for(driver, lambda: "flip=1" in driver.current_url)
    flipped_a1, flipped_e2 = point_place(driver, "a1"), point_place(driver, "e2")
    assert flipped_a1[1] < 0.5
    for was, now in ((a1, flipped_a1), (e2, flipped_e2)):
        assert abs(was[0] + now[0] - 1) < 0.02 and abs(was[1] + now[1] - 1) < 0.02
    after = driver.execute_script(f"return document.querySelector(\"{stone}\").getBoundingClientRect().top;")
    assert after != before and drawn(driver)["stones"] == stones_of(game[2])
    labels = driver.execute_script("""var t = document.querySelectorAll('#board .coords text');
        return [t.length, Array.from(t).every(function (e) { return !e.getAttribute('transform'); })];""")
    assert labels[0] > 0 and labels[1]  # the coordinates, drawn at the turned points, stay upright
    assert driver.find_element("id", "flip").get_attribute("aria-pressed") == "true"
    # the link keeps the orientation; the button turns it back
    driver.get(driver.current_url)
    wait_for(driver, lambda: len(move_list(driver)) == 3 and current_ply(driver) == 2)
    assert point_place(driver, "a1")[1] < 0.5
    driver.find_element("id", "flip").click()
    wait_for(driver, lambda: point_place(driver, "a1")[1] > 0.5)
    assert "flip=1" not in driver.current_url
    no_console_errors(driver)


def downloaded(folder: Path, suffix: str, timeout: float = 10.0) -> Path:
    """The one file with ``suffix`` the browser has finished downloading into ``folder``."""
    deadline = time.monotonic() + timeout
    while True:
        done = [f for f in folder.iterdir() if f.name.endswith(suffix)]
        partial = [f for f in folder.iterdir() if f.name.endswith(".crdownload")]
        if len(done) == 1 and not partial and done[0].stat().st_size > 0:
            return done[0]
        assert time.monotonic() < deadline, f"no {suffix} download: {list(folder.iterdir())}"
        time.sleep(0.05)


def download_to(driver, folder: Path) -> Path:
    """Let the browser download into ``folder`` (made here), without asking."""
    folder.mkdir(exist_ok=True)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)})
    return folder


def png_pixels(data: bytes):
    """A PNG's width, height and a function (x, y) -> (r, g, b, a): 8-bit RGB(A), not
    interlaced, as the browser's canvas writes them (the standard library's zlib only)."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunks.setdefault(kind, []).append(data[pos + 8:pos + 8 + n])
        pos += 12 + n
    w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"][0])
    assert depth == 8 and colour in (2, 6) and interlace == 0
    bpp = 4 if colour == 6 else 3
    raw, stride = zlib.decompress(b"".join(chunks[b"IDAT"])), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, lambda x, y: tuple(rows[y][x * bpp:(x + 1) * bpp])


@pytest.mark.browser
def test_board_exports_record_svg_and_png(server, driver, tmp_path):
    import xml.etree.ElementTree as ET

    from solver.rules.record import parse_record

    moves = ["c1", "e2", "c3", "e4"]
    pos = Position.start("3/4")
    for m in moves:
        pos = pos.play(m)
    open_board(driver, server + "/?position=3/4&moves=" + ",".join(moves), moves=4)
    link = driver.current_url

    # the record, in our format: it reads back as the game, and the page loads it again
    download_to(driver, tmp_path / "record")
    driver.find_element("id", "export-record").click()
    record = downloaded(tmp_path / "record", ".txt").read_text(encoding="utf-8")
    rec = parse_record(record)
    assert rec.start == Position.start("3/4") and rec.moves == moves and rec.result is None
    assert record.startswith('[Board "3/4"]') and rec.headers["Source"] == "meridians serve"
    driver.find_element("id", "paste").send_keys(record)
    driver.find_element("id", "load").click()
    wait_for(driver, lambda: text(driver, "status") == "Loaded a game of 4 moves.")
    assert move_list(driver) == moves and drawn(driver)["stones"] == stones_of(pos) and driver.current_url == link

    # the board as SVG: one document, its drawings inside it, the stones of the position
    download_to(driver, tmp_path / "svg")
    driver.find_element("id", "export-svg").click()
    svg = ET.parse(downloaded(tmp_path / "svg", ".svg")).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert svg.tag == ns + "svg" and float(svg.get("width")) > 100 and float(svg.get("height")) > 100
    ids = {e.get("id") for e in svg.iter() if e.get("id")}
    uses = [e for e in svg.iter(ns + "use")]
    assert uses and all(u.get("href")[1:] in ids for u in uses)
    stones = sorted(("L " if "light" in u.get("class") else "D ") + u.get("data-point")
                    for u in uses if "stone" in (u.get("class") or ""))
    assert stones == stones_of(pos) and not [e for e in svg.iter() if "hit" in (e.get("class") or "")]

    # the board as PNG: a picture of the board, a Light stone light and a Dark stone dark
    download_to(driver, tmp_path / "png")
    driver.find_element("id", "export-png").click()
    w, h, pixel = png_pixels(downloaded(tmp_path / "png", ".png").read_bytes())
    assert w == 1200 and abs(h / w - float(svg.get("height")) / float(svg.get("width"))) < 0.01
    geometry = driver.execute_script("""var u = document.querySelectorAll('#board .stone');
        return Array.from(u).map(function (e) { return [e.getAttribute('data-point'), parseFloat(e.getAttribute('x')),
          parseFloat(e.getAttribute('y')), e.classList.contains('light')]; });""")
    scale = w / float(svg.get("width"))
    hit = driver.execute_script("return parseFloat(document.querySelector('#board .hit').getAttribute('r'));")
    assert len(geometry) == 4
    for point, x, y, light in geometry:
        # beside the centre (the last move's dot is there)
        r, g, b, *_ = pixel(round((x + 0.45 * hit) * scale), round(y * scale))
        assert (r + g + b > 600) if light else (r + g + b < 150), (point, (r, g, b))
    no_console_errors(driver)


def graph_points(driver) -> dict:
    """The graph's points: ply -> (kind, Light's chance, filled)."""
    rows = driver.execute_script("""return Array.from(document.querySelectorAll('#graph .gp')).map(function (e) {
        return [parseInt(e.getAttribute('data-ply'), 10), e.classList.contains('proven') ? 'proven' : 'estimate',
                parseFloat(e.getAttribute('data-value')), getComputedStyle(e).fill]; });""")
    page = driver.execute_script("return getComputedStyle(document.querySelector('#graph rect')).fill;")
    return {ply: (kind, value, fill != page) for ply, kind, value, fill in rows}


@pytest.mark.browser
def test_board_value_graph_and_bar(server, driver):
    from selenium.webdriver.support.ui import Select

    # 3/4 from the database: proven points, filled; the bar full for the winner
    open_board(driver, server + "/?position=3/4")
    Select(driver.find_element("id", "time")).select_by_value("0.5")
    wait_for(driver, lambda: 0 in graph_points(driver), timeout=120)
    game = [Position.start("3/4")]
    for m in ("c1", "e2"):
        click(driver, m)
        game.append(game[-1].play(m))
        wait_for(driver, lambda: len(game) - 1 in graph_points(driver), timeout=120)
    points = graph_points(driver)
    # the database's values (the empty board and after c1 are in it), as Light's chances
    light = {"win": 1.0, "loss": 0.0}
    after_c1 = light[SOLUTION_34["moves"]["c1"]]  # a move's value is for Light, who plays it
    assert points[0] == ("proven", light[SOLUTION_34["value"]], True) and points[1] == ("proven", after_c1, True)
    def bar():  # the bar's kind and Light's part of its height, as drawn
        return driver.execute_script("""var b = document.getElementById('eval-bar'), l = document.getElementById('eval-light');
            return [b.className, l.getBoundingClientRect().height / b.clientHeight];""")

    kind, value, filled = points[2]
    wait_for(driver, lambda: bar()[0] == kind and abs(bar()[1] - value) < 0.02)  # (after its transition)
    assert filled == (kind == "proven")
    # a click on a point of the graph goes to that move
    driver.find_element("css selector", '#graph .gp[data-ply="1"]').click()
    wait_for(driver, lambda: current_ply(driver) == 1 and drawn(driver)["stones"] == stones_of(game[1]))
    winner = "Light" if after_c1 else "Dark"
    assert "ply=1" in driver.current_url and text(driver, "eval-text") == f"{winner} wins (proven: database)"
    assert driver.find_element("id", "eval-bar").get_attribute("class") == "proven"
    driver.find_element("css selector", '#graph .gp[data-ply="0"]').click()
    wait_for(driver, lambda: current_ply(driver) == 0 and drawn(driver)["stones"] == [])

    # 5/6, beyond the databases: the engine's estimate, a hollow point, the bar at its rate
    open_board(driver, server + "/?position=5/6")
    Select(driver.find_element("id", "time")).select_by_value("0.5")
    wait_for(driver, lambda: 0 in graph_points(driver), timeout=300)
    kind, value, filled = graph_points(driver)[0]
    analysis = driver.execute_script("return document.getElementById('value').textContent;")
    assert kind == "estimate" and not filled and 0 < value < 1 and "estimate" in analysis
    assert driver.find_element("id", "eval-bar").get_attribute("class") == "estimate"
    # the bar's percentage is the page's Math.round of the rate, the point's data-value the
    # rate to 3 decimals: 0.485 may show 49% (it did), where Python's round gives 48
    shown = re.fullmatch(r"Light (\d+)% \(engine estimate, not proven\)", text(driver, "eval-text"))
    assert shown and abs(int(shown[1]) - 100 * value) <= 0.5 + 0.05, (shown, value)

    # marks: the best move and the three most searched estimates; every one with All marks (key m)
    def marks() -> dict:
        return driver.execute_script("""var out = {}; document.querySelectorAll('#board .mv').forEach(function (e) {
            out[e.getAttribute('data-point')] = [parseInt(e.getAttribute('data-visits'), 10), e.classList.contains('best')]; });
            return out;""")

    few = marks()
    driver.execute_script("document.activeElement.blur();")  # (the time list had the focus: keys go to it)
    press(driver, "m")
    wait_for(driver, lambda: len(marks()) > len(few))
    every = marks()
    best = [p for p, (_, b) in every.items() if b]
    by_visits = sorted(every, key=lambda p: -every[p][0])
    assert len(best) == 1 and set(few) == set(by_visits[:3]) | set(best) and 3 <= len(few) <= 4
    assert len(every) > 20 and driver.find_element("id", "all-marks").is_selected()
    # the best moves listed with their values and visits, the best first; a click plays one
    top = driver.execute_script("""return Array.from(document.querySelectorAll('#top-moves li')).map(function (e) {
        return e.textContent; });""")
    assert len(top) == 3 and top[0].startswith(best[0] + " ") and all("visits)" in t for t in top)
    driver.find_element("css selector", f'#top-moves [data-move="{best[0]}"]').click()
    wait_for(driver, lambda: move_list(driver) == [best[0]])
    no_console_errors(driver)


@pytest.mark.browser
def test_top_lines_play_up_to_a_move(server, driver):
    from selenium.webdriver.common.keys import Keys

    open_board(driver, server + "/?position=2/3")
    wait_for(driver, lambda: len(driver.find_elements("css selector", "#top-moves li")) == 3, timeout=120)
    shown = driver.execute_script("""return Array.from(document.querySelectorAll('#top-moves li')).map(function (li) {
        return [li.textContent, Array.from(li.querySelectorAll('button')).map(function (b) { return b.textContent; })]; });""")
    lines = [moves for _, moves in shown]
    assert [t.split()[0] for t, _ in shown] == [m[0] for m in lines] and all("win (database" in t for t, _ in shown)
    assert len(set(m[0] for m in lines)) == 3 and all(len(m) > 4 for m in lines)
    # each line plays: the second line up to its fourth move, by keyboard
    button = driver.find_element("css selector", '#top-moves [data-pv="1"][data-pv-ply="4"]')
    assert button.text == lines[1][3] and lines[1][3].lower() in button.get_attribute("aria-label").lower()
    button.send_keys(Keys.ENTER)
    wait_for(driver, lambda: move_list(driver) == lines[1][:4])
    pos = Position.start("2/3")
    for m in lines[1][:4]:
        pos = pos.play(m)
    assert drawn(driver)["stones"] == stones_of(pos) and "moves=" + ",".join(lines[1][:4]) in driver.current_url
    # the first move of a line plays that move alone
    press(driver, Keys.HOME)
    wait_for(driver, lambda: current_ply(driver) == 0)
    wait_for(driver, lambda: len(driver.find_elements("css selector", "#top-moves li")) == 3, timeout=60)
    driver.find_element("css selector", f'#top-moves [data-move="{lines[0][0]}"]').click()
    wait_for(driver, lambda: move_list(driver)[:1] == lines[0][:1] and current_ply(driver) == 1)
    no_console_errors(driver)


@pytest.mark.browser
def test_board_controls_by_keyboard(server, driver):
    from selenium.webdriver.common.keys import Keys

    open_board(driver, server + "/?position=3/4&moves=c1,e2", moves=2)
    wait_for(driver, lambda: "to move:" in text(driver, "value"), timeout=120)  # the page drawn anew for the last time
    # every control (not a disabled one) has a label for screen readers that holds its visible words
    controls = driver.execute_script("""return Array.from(document.querySelectorAll(
          'button, select, input, textarea, [tabindex]')).filter(function (e) { return e.offsetParent !== null && !e.disabled; })
        .map(function (e) { return [e.id || e.getAttribute('data-ply') || e.getAttribute('data-move'),
                                    e.getAttribute('aria-label') || '',
                                    (e.tagName === 'BUTTON' ? e.textContent : '').trim(), e.tabIndex]; });""")
    assert len(controls) >= 18
    for name, label, words, tab in controls:
        assert label and words.lower() in label.lower() and tab >= 0, (name, label, words, tab)
    # Tab reaches every one of them, each with a visible focus ring
    driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0);")
    reached = {}
    for _ in range(3 * len(controls)):
        press(driver, Keys.TAB)
        el = driver.execute_script("""var e = document.activeElement, s = getComputedStyle(e);
            return [e.id || e.getAttribute('data-ply') || e.getAttribute('data-move'),
                    s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2];""")
        reached[el[0]] = el[1]
    assert {name for name, *_ in controls} <= set(reached) and all(reached.values()), reached
    # a point is played by its name
    driver.find_element("id", "move-input").send_keys("c3" + Keys.ENTER)
    wait_for(driver, lambda: move_list(driver) == ["c1", "e2", "c3"])
    driver.find_element("id", "move-input").send_keys("z9" + Keys.ENTER)
    wait_for(driver, lambda: text(driver, "status") == "z9 is not a point of the 3/4 board.")
    no_console_errors(driver)


@pytest.mark.browser
def test_board_keeps_variations(server, driver):
    from selenium.webdriver.common.keys import Keys

    game = [Position.start("3/4")]
    for m in ("c1", "e2", "c3"):
        game.append(game[-1].play(m))
    other = next(m for m in game[2].legal_moves() if m != "c3")
    open_board(driver, server + "/?position=3/4&moves=c1,e2,c3", moves=3)
    assert not driver.find_element("id", "variations-head").is_displayed()
    press(driver, Keys.ARROW_LEFT)
    wait_for(driver, lambda: current_ply(driver) == 2)
    click(driver, other)  # another move: a new line, the old one kept
    wait_for(driver, lambda: move_list(driver) == ["c1", "e2", other])
    assert text(driver, "variations") == "after 2 (e2): c3" and "moves=c1,e2," + other in driver.current_url
    press(driver, Keys.ARROW_LEFT)
    wait_for(driver, lambda: current_ply(driver) == 2)
    click(driver, other)  # the game's own next move again: a step forward, nothing new
    wait_for(driver, lambda: current_ply(driver) == 3)
    assert move_list(driver) == ["c1", "e2", other] and text(driver, "variations") == "after 2 (e2): c3"
    # a click on the variation makes it the game's line; the line left becomes the variation
    driver.find_element("css selector", '#variations [data-line-ply="3"]').click()
    wait_for(driver, lambda: move_list(driver) == ["c1", "e2", "c3"])
    assert drawn(driver)["stones"] == stones_of(game[3]) and current_ply(driver) == 3
    assert text(driver, "variations") == f"after 2 (e2): {other}" and "moves=c1,e2,c3" in driver.current_url
    no_console_errors(driver)


@pytest.mark.browser
def test_board_link_and_record_keep_the_variations(server, driver, tmp_path):
    from urllib.parse import parse_qs, urlsplit

    from selenium.webdriver.common.keys import Keys

    from solver.rules.record import parse_record

    game = [Position.start("3/4")]
    for m in ("c1", "e2", "c3"):
        game.append(game[-1].play(m))
    other2 = next(m for m in game[2].legal_moves() if m != "c3")
    other1 = next(m for m in game[1].legal_moves() if m != "e2")
    open_board(driver, server + "/?position=3/4&moves=c1,e2,c3", moves=3)
    press(driver, Keys.ARROW_LEFT)
    wait_for(driver, lambda: current_ply(driver) == 2)
    click(driver, other2)  # c1 e2 c3 becomes a variation
    wait_for(driver, lambda: move_list(driver) == ["c1", "e2", other2])
    press(driver, Keys.HOME)
    press(driver, Keys.ARROW_RIGHT)
    wait_for(driver, lambda: current_ply(driver) == 1)
    click(driver, other1)  # and c1 e2 <other2> too
    wait_for(driver, lambda: move_list(driver) == ["c1", other1])
    press(driver, Keys.ARROW_LEFT)
    wait_for(driver, lambda: current_ply(driver) == 1 and "ply=1" in driver.current_url)
    shown = (move_list(driver), text(driver, "variations"), current_ply(driver))
    lines = {("c1", "e2", "c3"), ("c1", "e2", other2), ("c1", other1)}
    query = parse_qs(urlsplit(driver.current_url).query)
    assert query["moves"] == [f"c1,{other1}"] and sorted(query["var"]) == sorted([f"1:e2,{other2}", "1:e2,c3"])
    # the link restores the tree and the move shown
    link = driver.current_url
    driver.get("about:blank")
    open_board(driver, link, moves=2)
    wait_for(driver, lambda: (move_list(driver), text(driver, "variations"), current_ply(driver)) == shown)
    assert driver.current_url == link and drawn(driver)["stones"] == stones_of(game[1])
    # the record carries them as variations: read back, the same lines; loaded, the same tree
    download_to(driver, tmp_path / "record")
    driver.find_element("id", "export-record").click()
    record = downloaded(tmp_path / "record", ".txt").read_text(encoding="utf-8")
    rec = parse_record(record)
    assert rec.moves == ["c1", other1] and set(map(tuple, rec.lines())) == lines and "(" in record
    open_board(driver, server + "/?position=3/4")
    driver.find_element("id", "paste").send_keys(record)
    driver.find_element("id", "load").click()
    wait_for(driver, lambda: text(driver, "status") == "Loaded a game of 2 moves and 2 variations.")
    assert move_list(driver) == shown[0] and sorted(text(driver, "variations").split("\n")) == sorted(shown[1].split("\n"))
    # an old link (no variations) still opens; a variation that does not replay is said, the rest kept
    open_board(driver, server + f"/?position=3/4&moves=c1,e2&var=1:{other1}&var=1:c1", moves=2)
    wait_for(driver, lambda: "Not all of the link was loaded" in text(driver, "status"))
    assert text(driver, "variations") == f"after 1 (c1): {other1}" and "c1 is occupied" in text(driver, "status")
    severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert len(severe) == 1 and "/api/record" in severe[0] and "400" in severe[0]


RECORD = """[Board "3/4"]
[Light "Ann"]
[Dark "Bob"]
[Date "2026.12.02"]
[Result "D"]

1. c1 e2 D
"""


@pytest.mark.browser
def test_board_shows_a_records_headers_and_keeps_them(server, driver, tmp_path):
    from solver.rules.record import parse_record

    open_board(driver, server + "/?position=3/4")
    driver.find_element("id", "paste").send_keys("3/4\nc1 e2")  # a record of moves alone: no headers to show
    driver.find_element("id", "load").click()
    wait_for(driver, lambda: move_list(driver) == ["c1", "e2"])
    assert not driver.find_element("id", "game-panel").is_displayed()
    driver.find_element("id", "paste").clear()
    driver.find_element("id", "paste").send_keys(RECORD)
    driver.find_element("id", "load").click()
    wait_for(driver, lambda: driver.find_element("id", "game-panel").is_displayed())
    assert move_list(driver) == ["c1", "e2"]
    shown = driver.execute_script("""return Array.from(document.querySelectorAll('#headers dt')).map(function (e) {
        return [e.textContent, e.nextElementSibling.textContent]; });""")
    assert shown == [["Light", "Ann"], ["Dark", "Bob"], ["Result", "Dark won"], ["Date", "2026.12.02"]]
    # exported as loaded: the same record (a resignation's result kept while the moves stand)
    download_to(driver, tmp_path)
    driver.find_element("id", "export-record").click()
    assert parse_record(downloaded(tmp_path, ".txt").read_text(encoding="utf-8")) == parse_record(RECORD)
    # a move of one's own: the headers stay, said to be the record's
    click(driver, "c3")
    wait_for(driver, lambda: move_list(driver) == ["c1", "e2", "c3"])
    assert "the moves are no longer the record's" in text(driver, "headers")
    driver.find_element("id", "new-game").click()
    wait_for(driver, lambda: move_list(driver) == [] and not driver.find_element("id", "game-panel").is_displayed())
    no_console_errors(driver)


@pytest.mark.browser
def test_board_loads_an_abstract_play_record(server, driver):
    from solver.app.importers import import_abstractplay

    path = ROOT / "tests" / "data" / "abstractplay" / "meridians-size6-pass.json"
    rec = import_abstractplay(path.read_text(encoding="utf-8"))
    open_board(driver, server + "/?position=3/4")
    driver.find_element("id", "analyse-on").click()  # no search: the record is what is tested
    no_console_errors(driver)
    driver.execute_script("document.getElementById('paste').value = arguments[0];", path.read_text(encoding="utf-8"))
    driver.find_element("id", "load").click()
    wait_for(driver, lambda: move_list(driver) == rec.moves, timeout=30)
    assert drawn(driver)["stones"] == stones_of(rec.position()) and text(driver, "to-move").startswith("Game over")
    shown = text(driver, "headers")
    assert "light player" in shown and "Dark won" in shown and "Abstract Play" in shown
    # a JSON that is not such a record is refused with the field at fault
    driver.execute_script("document.getElementById('paste').value = '{\"moves\": []}';")
    driver.find_element("id", "load").click()
    wait_for(driver, lambda: text(driver, "status").startswith("Not loaded: an Abstract Play record (JSON): header"))
    assert move_list(driver) == rec.moves
    severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert len(severe) == 1 and "/api/record - Failed to load resource" in severe[0] and "400" in severe[0]


@pytest.mark.browser
@pytest.mark.parametrize("width", [390, 1400])
def test_board_has_no_horizontal_overflow(server, driver, width):
    moves = "c1,e2,c3,e5,d2,e3,a3,a2,f4,d4,c5,c4,e4,g2,d5,g1,d6,d3,d1,g3,b2,b4,b3,e5,c2"  # a game to its end
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})
    try:
        def overflow() -> int:
            return driver.execute_script("var d = document.documentElement; return d.scrollWidth - d.clientWidth;")

        open_board(driver, server + "/?position=3/4&moves=" + moves + "&ply=20", moves=25)
        wait_for(driver, lambda: driver.execute_script("return document.querySelectorAll('#graph .gp').length") > 0,
                 timeout=120)
        assert driver.execute_script("return window.innerWidth") == width
        assert overflow() == 0
        board = drawn(driver)["width"]
        assert board > (0.6 * width if width < 600 else 400)  # the board takes the room it has
        # the largest board's position, a long word, without an analysis (no search started)
        driver.find_element("id", "analyse-on").click()
        driver.find_element("id", "paste").send_keys("7/8")
        driver.find_element("id", "load").click()
        wait_for(driver, lambda: len(drawn(driver)["hits"]) == len(Position.start("7/8").board.names), timeout=60)
        assert overflow() == 0
        no_console_errors(driver)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


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
