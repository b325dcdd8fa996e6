"""The importer of Abstract Play's game records (solver.app.importers) and ``meridians import``.

The fixtures in tests/data/abstractplay/ follow Abstract Play's published game record
schema (AbstractPlay/recranks, src/schemas/gamerecord.json); their moves are seeded random
games of this package (``random_game``), which the tests replay to check the import:

- ``meridians-size6-pass.json``: board option size-6 (our 5/6), ``random_game("5/6", 321)``,
  whose Light ends with stones but no legal placement; Light then passes twice and Dark
  plays on (as a site that lets a stuck player pass would record it); round 4 as objects,
  one move in capitals;
- ``meridians-size7-pie.json``: size-7 (6/7) with the pie variant, ``random_game("6/7", 7)``:
  the first seat places both first stones, the second seat answers ``pie`` (takes Light),
  so from round 3 on the seats' moves come Dark (seat 1) then Light (seat 2).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Board
from solver.app.importers import RecordImportError, abstractplay_board, abstractplay_point, import_abstractplay
from solver.rules.randomgame import random_game
from solver.rules.record import parse_record

DATA = Path(__file__).parent / "data" / "abstractplay"
PASS = DATA / "meridians-size6-pass.json"
PIE = DATA / "meridians-size7-pie.json"


def _moves(board: str, seed: int) -> list[str]:
    return [p.last_move for p in list(random_game(board, seed))[1:]]


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


def test_board_options_are_our_boards():
    assert abstractplay_board(["size-6"]).name == "5/6"
    assert abstractplay_board(["pie", "size-7"]).name == "6/7"
    assert abstractplay_board(["Size-8"]).name == "7/8"
    assert abstractplay_board([]).name == "6/7"
    for bad in (["size-9"], ["size-6", "size-8"]):
        with pytest.raises(RecordImportError, match="header.game.variants"):
            abstractplay_board(bad)


def test_point_names_are_ours_checked_against_the_board():
    board = Board.parse("5/6")
    assert [abstractplay_point(n, board) for n in ("a1", " K5 ", "f10", "A5")] == ["a1", "k5", "f10", "a5"]
    for bad in ("a6", "l1", "f11", "", "1a"):
        with pytest.raises(RecordImportError, match="not a point of board 5/6"):
            abstractplay_point(bad, board)
    # every one of our names is one of theirs, on each of the three boards
    for name in ("5/6", "6/7", "7/8"):
        b = Board.parse(name)
        assert [abstractplay_point(n, b) for n in b.names] == list(b.names)


def test_a_stuck_players_pass_ends_the_game_as_a_loss():
    record = import_abstractplay(PASS.read_text())
    assert record.board.name == "5/6"
    assert record.moves == _moves("5/6", 321)
    end = record.position()
    assert end.outcome == "D" and end.outcome_reason == "Light has no legal placement"
    assert record.result == "D" and "SiteResult" not in record.headers
    assert record.headers["Light"] == "light player" and record.headers["Dark"] == "dark player"
    assert record.headers["Date"] == "2026.12.01" and record.headers["Source"] == "Abstract Play"
    assert record.headers["SiteGameId"] == "fixture-321"
    note = record.comments[len(record.moves)]
    assert "Light passed (moves[37][0])" in note and "the 2 moves played after the pass" in note
    assert parse_record(record.text()) == record


def test_the_pie_choice_gives_the_second_seat_light():
    record = import_abstractplay(_load(PIE))
    assert record.pie and record.swap and record.board.name == "6/7"
    assert record.moves == _moves("6/7", 7)
    assert record.players() == {"L": "bob", "D": "alice"}
    assert record.result == record.position().outcome == "D"
    assert record.headers["SiteGameId"] == "4711" and record.headers["Date"] == "2026.10.03"
    assert parse_record(record.text()) == record


def test_a_pie_choice_after_the_first_stone():
    data = _load(PIE)
    rounds = data["moves"]
    first, second = rounds[0][0], rounds[1][0]
    # the choice before Dark's first stone: the same stones in the same order
    data["moves"] = [[first, "pie"], [second, None]] + rounds[2:]
    record = import_abstractplay(data)
    assert record.swap and record.moves == _moves("6/7", 7)
    assert "after Light's first stone" in record.comments[1]


def test_a_pie_choice_in_a_game_resigned_at_once():
    data = _load(PIE)
    data["moves"] = [[data["moves"][0][0], "pie"]]
    record = import_abstractplay(data)
    assert not record.swap and record.players()["L"] == "bob" and len(record.moves) == 1
    assert "took Light" in record.comments[1] and parse_record(record.text()) == record


def test_sequence_orders_a_round():
    data = _load(PASS)
    moves = _moves("5/6", 321)
    data["moves"][0] = [{"move": moves[1], "sequence": 2}, {"move": moves[0], "sequence": 1}]
    assert import_abstractplay(data).moves == moves


def test_a_stated_result_that_differs_is_kept_beside_ours():
    data = _load(PASS)
    data["header"]["players"][0]["result"] = 1  # the site says Light won (or drew: equal numbers)
    record = import_abstractplay(data)
    assert record.result == "D" and record.headers["SiteResult"] == "draw"
    assert "Abstract Play's stated result is draw, RULES.md's is D" in record.comments[len(record.moves)]
    assert parse_record(record.text()) == record


def test_a_resignation_before_the_end():
    data = _load(PIE)
    data["moves"] = data["moves"][:6]
    record = import_abstractplay(data)
    assert record.position().outcome is None
    winner_seat = 0 if data["header"]["players"][0]["result"] == 1 else 1
    assert record.result == ("D" if winner_seat == 0 else "L")  # alice (seat 1) plays Dark


def test_a_date_that_is_no_day_is_left_out():
    data = _load(PIE)
    data["header"]["date-end"] = "2026-02-30T10:00:00Z"
    record = import_abstractplay(data)
    assert "Date" not in record.headers and parse_record(record.text()) == record


def _edit(path: Path, change) -> dict:
    data = copy.deepcopy(_load(path))
    change(data)
    return data


BAD = [
    (lambda d: d.__setitem__("moves", 3), "moves: a list"),
    (lambda d: d.pop("header"), "header: missing"),
    (lambda d: d["header"]["game"].__setitem__("name", "Hex"), "not of Meridians"),
    (lambda d: d["header"]["game"].__setitem__("variants", "size-6"), "header.game.variants: a list"),
    (lambda d: d["header"]["players"].pop(), "two players, not 1"),
    (lambda d: d["header"]["players"][1].__setitem__("result", "1"), "header.players[1].result: an integer"),
    (lambda d: d["header"]["players"][1].__setitem__("result", True), "header.players[1].result: an integer"),
    (lambda d: d["header"]["players"][0].pop("name"), "header.players[0].name: missing"),
    (lambda d: d["moves"].__setitem__(2, "c3"), "moves[2]: a round is a list"),
    (lambda d: d["moves"][2].__setitem__(0, 7), "moves[2][0]: a move is null, a string or an object"),
    (lambda d: d["moves"][2].__setitem__(0, {"mov": "c3"}), "moves[2][0]: unknown fields"),
    (lambda d: d["moves"][2].__setitem__(0, {"move": 3}), "moves[2][0].move: a string"),
    (lambda d: d["moves"][2].__setitem__(0, {"move": "c3", "sequence": "1"}), "moves[2][0].sequence"),
    (lambda d: d["moves"][2].__setitem__(0, ""), "moves[2][0]: an empty move"),
    (lambda d: d["moves"][2].__setitem__(0, "zz"), "moves[2][0]: 'zz' is not a point of board 5/6"),
    (lambda d: d["moves"][2].__setitem__(0, d["moves"][0][0]), "moves[2][0]: "),  # occupied
    (lambda d: d["moves"][2].__setitem__(0, "pass"), "moves[2][0]: Light passes but has legal placements"),
    (lambda d: d["moves"][2].__setitem__(0, "pie"), "moves[2][0]: the pie choice 'pie' comes after the first"),
    (lambda d: d["moves"].__setitem__(37, ["a2", "b2"]), "moves[37][0]: the move 'a2' comes after the game ended"),
]


@pytest.mark.parametrize("change, fragment", BAD)
def test_a_bad_record_is_named_where_it_is_bad(change, fragment):
    with pytest.raises(RecordImportError) as e:
        import_abstractplay(_edit(PASS, change))
    assert fragment in str(e.value), str(e.value)


@pytest.mark.parametrize("text, fragment", [
    ("[1, 2]", "a JSON object, not list"),
    ('{"header": ', "not valid JSON"),
    ('{"a": NaN}', "not valid JSON"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    (b"bytes", "JSON text or an object"),
])
def test_text_that_is_no_record(text, fragment):
    with pytest.raises(RecordImportError, match=fragment):
        import_abstractplay(text)


# -- meridians import --------------------------------------------------------------------------------


def test_cli_import_writes_our_record(tmp_path, run_cli):
    out = tmp_path / "new" / "game.txt"
    stdout = run_cli("import", PIE, "--from", "abstractplay", "-o", out, code=0).stdout
    assert f"wrote {out}" in stdout
    record = parse_record(out.read_text())
    assert record == import_abstractplay(PIE.read_text())
    printed = run_cli("import", PASS, "--from", "abstractplay", code=0).stdout
    assert parse_record(printed).moves == _moves("5/6", 321)
    # and the other commands read it
    assert "Result: D" in run_cli("show", "--game", out, "--ply", "3", code=0).stdout
    assert "verdict: proven" in run_cli("verify", "--game", out, code=0).stdout


@pytest.mark.parametrize("content, fragment", [
    (b'{"header": {"game"', "not valid JSON"),                     # truncated
    (b"\x1f\x8b\x08\x00corrupt", "gzip"),                         # corrupt
    (b"[" * 50_000 + b"]" * 50_000, "nested too deeply"),         # deeply nested
    (b'{"header": {}, "moves": []}', "header.game: missing"),     # wrongly typed
    (b'{"header": {"game": {"name": "Meridians"}, "players": [{"name": "a", "result": 1.5}, '
     b'{"name": "b", "result": 0}]}, "moves": []}', "result: an integer"),
    (b"[]", "expected a JSON object"),
    (b"", "empty"),
])
def test_cli_import_bad_input_exits_2_with_one_line(tmp_path, run_cli, content, fragment):
    path = tmp_path / "ap.json"
    path.write_bytes(content)
    out = tmp_path / "out.txt"
    proc = run_cli("import", path, "--from", "abstractplay", "-o", out)
    assert proc.code == 2 and proc.exception is None and proc.stdout == "", proc
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and fragment in lines[0], proc.stderr
    assert not out.exists()


def test_cli_import_needs_a_source(tmp_path, run_cli):
    proc = run_cli("import", PASS)
    assert proc.code == 2 and "--from" in proc.stderr


# -- no input escapes as anything but a RecordImportError ------------------------------------------

_JSON = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False)
                     | st.sampled_from(["", "pie", "pass", "c3", "a1", "size-7", "Meridians", "swap c3"]),
                     lambda children: st.lists(children, max_size=3) | st.dictionaries(
                         st.sampled_from(["move", "sequence", "name", "result", "game", "variants", "x"]), children,
                         max_size=3), max_leaves=8)


@settings(max_examples=100)
@given(st.data())
def test_a_changed_record_fails_only_with_an_import_error(data):
    record = _load(PASS)
    for _ in range(data.draw(st.integers(1, 3))):
        # replace one value somewhere in the record by a random JSON value
        node, path = record, []
        while isinstance(node, (dict, list)) and node and data.draw(st.booleans()):
            key = data.draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
            path.append((node, key))
            node = node[key]
        if path:
            parent, key = path[-1]
            parent[key] = data.draw(_JSON)
    try:
        imported = import_abstractplay(record)
    except RecordImportError as e:
        assert str(e) and "\n" not in str(e)
    else:
        assert parse_record(imported.text()) == imported
