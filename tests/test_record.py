"""Game records (solver.rules.record): round trips, the old format, every error naming its line,
the pie choice, repetition, and the commands that read and write records."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Board, Position
from solver.rules.randomgame import random_game
from solver.rules.record import GameRecord, RecordError, Variation, parse_record, variations_of
from solver.app.verify import parse_game

EMPTY_23 = "2/3/4/3/2 L"


def _game(board: str, seed: int, plies: int | None = None) -> list[Position]:
    return list(random_game(board, seed, plies=plies))


def _moves(game: list[Position]) -> list[str]:
    return [p.last_move for p in game[1:]]


# -- round trips -----------------------------------------------------------------------------------

_WORDS = st.text(alphabet="abcXYZ 019.,!?'\"#[]\\/-*\t\n", min_size=1, max_size=30)
_COMMENT = _WORDS.map(lambda s: " ".join(s.split())).filter(bool)
_VALUE = _WORDS.map(lambda s: " ".join(s.split()))
_KEY = st.from_regex(r"[A-Z][A-Za-z0-9_]{0,8}", fullmatch=True).filter(
    lambda k: k not in ("Board", "Start", "Result", "Variant", "Date"))


@st.composite
def records(draw, board: str, max_plies: int | None = None) -> GameRecord:
    """A record of a seeded random game (cut short or to its end), with headers and
    comments drawn; the result stated is the game's end (or a win, as a resignation)."""
    seed = draw(st.integers(0, 10_000))
    game = _game(board, seed, draw(st.one_of(st.none(), st.integers(0, max_plies or 200))))
    moves = _moves(game)
    headers = {"Light": draw(_VALUE), "Dark": draw(_VALUE)}
    if draw(st.booleans()):
        headers["Date"] = draw(st.sampled_from(["2026.12.02", "2026.??.??", "????.??.??", "1999.01.31"]))
    for key in draw(st.lists(_KEY, max_size=3, unique=True)):
        headers[key] = draw(_VALUE)
    comments = draw(st.dictionaries(st.integers(0, len(moves)), _COMMENT, max_size=4))
    end = game[-1].outcome
    result = end if end is not None else draw(st.sampled_from([None, "L", "D"]))
    return GameRecord(headers, game[0], moves, comments, result)


@settings(max_examples=40)
@given(records("2/3"))
def test_round_trip_on_2_3(record):
    text = record.text()
    again = parse_record(text)
    assert again == record
    assert again.text() == text
    assert [str(p) for p in again.positions()] == [str(p) for p in record.positions()]


@settings(max_examples=15)
@given(records("3/4"))
def test_round_trip_on_3_4(record):
    assert parse_record(record.text()) == record


@settings(max_examples=4)
@given(records("6/7", max_plies=120))
def test_round_trip_on_6_7(record):
    again = parse_record(record.text())
    assert again == record and again.position() == record.position()


def test_round_trip_from_a_start_position_with_dark_to_move():
    start = _game("3/4", 5, 7)[-1]
    assert start.to_move == "D"
    moves = _moves(list(random_game("3/4", 6, start=start)))
    record = GameRecord({"Source": "a puzzle"}, Position.parse(str(start)), moves, {1: "the first reply"})
    text = record.text()
    assert f'[Start "{start}"]' in text and "\n1... " in "\n" + text.split("\n\n", 1)[1]
    assert parse_record(text) == record


def test_from_game_is_the_game():
    from solver import Game

    game = Game(Position.start("2/3"))
    for m in _moves(_game("2/3", 8)):
        game.play(m)
    record = GameRecord.from_game(game, {"Light": "x"}, {1: "one"})
    assert record.moves == game.moves and record.result == game.outcome is not None
    assert record.position() == game.position and parse_record(record.text()) == record


def test_the_headers_keep_their_order_and_escapes():
    text = ('[Board "2/3"]\n[Zeta "z"]\n[Light "A \\"quoted\\" \\\\ name"]\n[Alpha "a"]\n'
            '[Result "*"]\n\n1. c1 e2 *\n')
    record = parse_record(text)
    assert list(record.headers) == ["Zeta", "Light", "Alpha"]
    assert record.headers["Light"] == 'A "quoted" \\ name'
    assert record.text() == text


def test_move_numbers_glued_to_their_moves():
    record = parse_record('[Board "2/3"]\n1.c1 e2 2.c3 2...c4\n')
    assert record.moves == ["c1", "e2", "c3", "c4"]
    assert parse_record('[Start "2/3/L3/3/2 D"]\n1...e2 2.c3\n').moves == ["e2", "c3"]


def test_comments_attach_to_the_ply_before_them():
    text = ('[Board "2/3"]\n{before the game} 1. c1 {after c1} e2 {after e2,\nover two lines}\n'
            '{and more} 2. c3 # not kept\n{at the end} *\n')
    record = parse_record(text)
    assert record.moves == ["c1", "e2", "c3"]
    assert record.comments == {0: "before the game", 1: "after c1", 2: "after e2, over two lines and more",
                               3: "at the end"}
    assert parse_record(record.text()) == record


# -- variations -----------------------------------------------------------------------------------


@st.composite
def trees(draw, board: str = "2/3"):
    """A main line and other whole lines from the start, each leaving the main line or an
    earlier line at a random ply with another legal move, then going on at random."""
    seed = draw(st.integers(0, 10_000))
    lines = [_moves(_game(board, seed, draw(st.integers(1, 12))))]
    for n in range(draw(st.integers(0, 5))):
        base = lines[draw(st.integers(0, len(lines) - 1))]
        k = draw(st.integers(0, len(base) - 1))
        pos = Position.start(board)
        for m in base[:k]:
            pos = pos.play(m)
        others = [m for m in pos.legal_moves() if m != base[k]]
        if not others:
            continue
        other = draw(st.sampled_from(others))
        rest = _moves(list(random_game(board, seed + n + 1, start=pos.play(other), plies=draw(st.integers(0, 6)))))
        lines.append(base[:k] + [other] + rest)
    return lines


def _leaves(lines: list[list[str]]) -> set[tuple[str, ...]]:
    """The lines no other line holds (as a beginning)."""
    ts = {tuple(x) for x in lines}
    return {t for t in ts if not any(len(u) > len(t) and u[:len(t)] == t for u in ts)}


@settings(max_examples=40)
@given(trees())
def test_variations_round_trip(lines):
    main, others = lines[0], lines[1:]
    if any(len(x) > len(main) and x[:len(main)] == main for x in others):
        with pytest.raises(ValueError, match="goes on after the main line"):
            variations_of(main, others)
        return
    record = GameRecord({"Light": "Ann"}, Position.start("2/3"), main, variations=variations_of(main, others))
    text = record.text()
    again = parse_record(text)
    assert again == record and again.text() == text
    # the same tree: the same main line and the same set of lines, each replaying
    got = [tuple(x) for x in again.lines()]
    assert got[0] == tuple(main) and len(got) == len(set(got)) and set(got) == _leaves(lines)
    assert variations_of(main, again.lines()[1:]) == record.variations


def test_variations_in_the_text():
    text = ('[Board "2/3"]\n\n1. c1 e2 (1... d3 {x} 2. c3 (2. a1 {y}) 2... d1) {after e2} (1... e1)\n'
            '2. c3 {z} *\n')
    record = parse_record(text)
    assert record.moves == ["c1", "e2", "c3"] and record.comments == {2: "after e2", 3: "z"}
    assert record.variations == {1: [Variation(["d3", "c3", "d1"], {1: "x"}, {1: [Variation(["a1"], {1: "y"})]}),
                                     Variation(["e1"])]}
    assert record.lines() == [["c1", "e2", "c3"], ["c1", "d3", "c3", "d1"], ["c1", "d3", "a1"], ["c1", "e1"]]
    again = parse_record(record.text())
    assert again == record
    assert "1... d3 {x} 2. c3 (2. a1 {y}) 2... d1)" in record.text()
    # a variation is replayed from the position before the move it replaces, with the game's history
    with pytest.raises(RecordError, match=r"line 2: move 2 \(c1\) is illegal"):
        parse_record('[Board "2/3"]\n1. c1 e2 (1... c1)\n')
    for bad in (dict(variations={3: [Variation(["c1"])]}), dict(variations={0: []}), dict(variations={0: ["c3"]})):
        with pytest.raises(ValueError):
            GameRecord(headers={}, start=Position.start("2/3"), moves=["c1", "e2"], **bad)
    for bad in (dict(moves=[]), dict(moves=["c1"], comments={2: "x"}), dict(moves=["c1"], variations={1: []})):
        with pytest.raises(ValueError):
            Variation(**bad)


# -- the old simple format ------------------------------------------------------------------------

OLD = [
    "# a game\n2/3\n1. c2, c3\n2. e2 e1\nb2\nresult: Light\n",
    "c1,e2\n",
    "2/3/L3/3/2 D\ne2\nresult draw",
    "3/4\n c1 e2 c3\n\n e4 # a comment\nresult=D\n",
]


@pytest.mark.parametrize("text", OLD)
def test_the_old_format_reads_as_the_old_reader_does(text):
    # the old reader (solver.app.verify.parse_game) is the twin: same start, moves and claim
    start, moves, result = parse_game(text)
    board = "2/3"
    record = parse_record(text, default_board=board)
    expected = Position.start(board) if start is None else (
        Position.parse(start) if " " in start.strip() else Position.start(start))
    assert (record.start, record.moves, record.result) == (expected, moves, result)
    assert record.named_start == (start is not None) and record.headers == {}
    # and the new format keeps the game (the claim aside: the new format checks results)
    again = parse_record(replace(record, result=None).text())
    assert (again.start, again.moves) == (record.start, moves)


def test_the_old_format_result_is_a_claim_not_checked():
    # verify --game proves or refutes it (exit 1), as it always did
    game = _game("2/3", 3)
    loser = "D" if game[-1].outcome == "L" else "L"
    record = parse_record("2/3\n" + ",".join(_moves(game)) + f"\nresult: {loser}\n")
    assert record.result == loser
    with pytest.raises(RecordError, match="^line 4: the result L contradicts|^line 4: the result D contradicts"):
        parse_record('[Board "2/3"]\n\n' + " ".join(_moves(game)) + f"\n{loser}\n")


def test_the_old_format_from_a_default_start():
    start = Position.parse("2/3/L3/3/2 D")
    record = parse_record("e2 c3\n", default_start=start)
    assert record.start == start and not record.named_start


# -- errors name their line ------------------------------------------------------------------------

FINISHED = _moves(_game("2/3", 3))
WINNER = _game("2/3", 3)[-1].outcome

BAD = [
    ('[Board "2/3"]\n[Light Ann]\n', 2, "unknown header syntax"),
    ('[Board "2/3"]\nLight "Ann"]\n', 2, "'Light'"),  # no '[': the moves begin, Light is no point
    ('[Board "2/3"]\n[Light "Ann', 2, "truncated header"),
    ('[Board "2/3"]\n[Light "Ann"\n', 2, "truncated header"),
    ('[Board "2/3"]\n[Light "Ann\\"]\n', 2, "truncated header"),  # the quote is escaped
    ('[Board "2/3"]\n[Light "Ann"] x\n', 2, "unknown header syntax"),
    ('[Board "2/3"]\n[Light "Ann" "Bob"]\n', 2, "unknown header syntax"),
    ('[Board "2/3"]\n[Light "A"]\n[Light "B"]\n', 3, "given twice (first on line 2)"),
    ('[Board "2/x"]\n', 1, "header Board"),
    ('[Board "2/3"]\n[Variant "chess960"]\n', 2, "header Variant"),
    ('[Board "2/3"]\n[Date "2026-12-02"]\n', 2, "header Date"),
    ('[Board "2/3"]\n[Date "2026.02.30"]\n', 2, "header Date"),
    ('[Board "2/3"]\n[Date "2026.??.05"]\n', 2, "header Date"),
    ('[Board "2/3"]\n[Result "1-0"]\n', 2, "header Result"),
    ('[Board "2/3"]\n[Result "light"]\n', 2, "header Result"),
    ('[Start "2/3/4/3/2 X"]\n', 1, "header Start"),
    ('[Board "3/4"]\n[Start "2/3/4/3/2 L"]\n', 2, "the Board header says 3/4"),
    ('[Board "2/3"]\n[Variant "pie"]\n[Start "2/3/L3/3/2 D"]\n', 2, "pie variant starts from the empty board"),
    ('[Board "2/3"]\n\n1. c1 e2\n2. c2\n', 4, "move 3 (c2) is illegal for Light to move in 1D/3/L3/3/2 L"),
    ('[Board "2/3"]\n1. c1 zz9\n', 2, "move 2 (zz9) is illegal for Dark"),
    ('[Board "2/3"]\n' + " ".join(FINISHED) + "\n\nc1\n", 4, f"move {len(FINISHED) + 1} (c1) comes after the game ended"),
    ('[Board "2/3"]\n[Result "' + ("D" if WINNER == "L" else "L") + '"]\n' + " ".join(FINISHED) + "\n", 2,
     "contradicts the position"),
    ('[Board "2/3"]\n1. c1 e2\ndraw\n', 3, "the result draw contradicts the position: the game is not over"),
    ('[Board "2/3"]\n[Result "L"]\n1. c1 e2\n\nD\n', 5, "contradicts the Result header L (line 2)"),
    ('[Board "2/3"]\n1. c1 e2 L\nc3\n', 3, "'c3' after the result token"),
    ('[Board "2/3"]\n1. c1 e2\n[Light "late"]\n', 3, "a header after the moves"),
    ('[Board "2/3"]\n1. c1 {open\ncomment e2\n', 2, "without its closing '}'"),
    ('[Board "2/3"]\n1. c1 {a {nested} one} e2\n', 2, "without its closing '}'"),
    ('[Board "2/3"]\n1. c1\n e2 } c3\n', 3, "a '}' without its opening '{'"),
    ('[Board "2/3"]\n1. c1 e2 swap\n', 2, "without [Variant \"pie\"]"),
    ('[Board "2/3"]\n[Variant "pie"]\n1. c1 swap e2\n', 3, "not after 1 moves"),
    ('[Board "2/3"]\n[Variant "pie"]\n1. c1 e2 swap swap\n', 3, "swap comes once"),
    ('[board "2/3"]\n', 1, "header board: did you mean Board?"),
    ('[Board "2/3"]\n1. c1 e2 2.. c3\n', 2, "move 3 (2..) is illegal"),
    ("2/3\nc1 e2\nresult: nobody\n", 3, "result must be L, D or draw"),
    ("2/3\nc1 e2\nc2\n", 3, "move 3 (c2) is illegal"),
    ("2/9\nc1\n", 1, "the start position"),
    ('[Board "2/3"]\n(c1)\n', 2, "a variation '(' before any move"),
    ('[Board "2/3"]\n1. c1\n()\n', 3, "an empty variation"),
    ('[Board "2/3"]\n1. c1 (d3\n\n', 2, "a variation '(' without its closing ')'"),
    ('[Board "2/3"]\n1. c1 e2\n)\n', 3, "a ')' without its opening '('"),
    ('[Board "2/3"]\n1. c1 (d3\nL)\n', 3, "the result L inside a variation (opened on line 2)"),
    ('[Board "2/3"]\n[Variant "pie"]\n1. c1 e2 (e1 swap)\n', 3, "swap inside a variation"),
    ('[Board "2/3"]\n1. c1 e2 * (d3)\n', 2, "after the result token"),
]


@pytest.mark.parametrize("text, line, fragment", BAD)
def test_a_bad_record_names_its_first_bad_line(text, line, fragment):
    with pytest.raises(RecordError) as e:
        parse_record(text)
    message = str(e.value)
    assert message.startswith(f"line {line}: "), message
    assert fragment in message, message
    assert "\n" not in message


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "result: L\n"])
def test_an_empty_record(text):
    with pytest.raises(RecordError, match="the record is empty"):
        parse_record(text)


def test_records_are_built_only_with_values_they_can_write():
    start = Position.start("2/3")
    for bad in [dict(headers={"Board": "2/3"}), dict(headers={"bad key": "x"}), dict(headers={"K": "two\nlines"}),
                dict(comments={0: "a } brace"}), dict(comments={0: " padded"}), dict(comments={5: "too far"}),
                dict(result="light"), dict(swap=True), dict(headers={"Date": "2026.02.30"}), dict(headers={"Variant": "pie"}, swap=True), dict(headers={"Variant": "pi"}),
                dict(headers={"Variant": "pie"}, start=Position.parse("2/3/L3/3/2 D"))]:
        kwargs = dict(headers={}, start=start, moves=["c1"]) | bad
        with pytest.raises(ValueError):
            GameRecord(**kwargs)


# -- the pie variant -------------------------------------------------------------------------------


def test_pie_swap_round_trip_and_meaning():
    game = _game("3/4", 11)
    moves = _moves(game)
    record = GameRecord({"Variant": "pie", "Light": "second player", "Dark": "first player"}, game[0], moves,
                        {2: "Light's second stone is the second player's"}, game[-1].outcome, swap=True)
    text = record.text()
    assert f"1. {moves[0]} {moves[1]} swap {{" in text
    again = parse_record(text)
    assert again == record and again.swap and again.pie
    # the positions are those of the game without the choice: only the players change
    assert again.positions()[-1] == game[-1]
    assert again.players() == {"L": "second player", "D": "first player"}
    kept = GameRecord({"Variant": "pie"}, game[0], moves, result=game[-1].outcome)
    assert "swap" not in kept.text() and parse_record(kept.text()) == kept and kept != record


# -- repetition ------------------------------------------------------------------------------------


# A position of 4/5 from which four plies repeat it: each of the four stones played blocks
# the only path of the opponent's stone played before, which its owner's next placement
# then removes (found by a random search over small structures of that shape: random games
# on 2/3, 3/4 and 5/6 showed no repetition in thousands of games)
CYCLE_START = "4/1L1LL/1D3D/4L1D/DL6/1D3D1/6/1L3/D3 L"
CYCLE = ["d5", "e5", "e2", "d2"]


def test_the_cycle_repeats_under_the_reference_rules():
    # the slow twin: the networkx rules play the same four moves back to the start
    from solver.reference import rules as reference

    start = Position.parse(CYCLE_START)
    board = start.board
    light = frozenset(board.index(n) for n in start.stones("L"))
    dark = frozenset(board.index(n) for n in start.stones("D"))
    state = (light, dark, "L")
    for m in CYCLE:
        assert board.index(m) in reference.legal_moves(board, *state)
        state = reference.play(board, *state, board.index(m))
    assert state == (light, dark, "L")


def test_a_repetition_draw_is_recognised_from_a_record():
    text = f'[Board "4/5"]\n[Start "{CYCLE_START}"]\n[Result "draw"]\n\n1. d5 e5 2. e2 d2 draw\n'
    record = parse_record(text)
    end = record.position()
    assert end == record.start and end.outcome == "draw" and end.outcome_reason == "the position repeated"
    assert [p.outcome for p in record.positions()[:-1]] == [None] * 4
    assert parse_record(record.text()) == record
    # the replay ends the game there: a fifth move is refused, and so is another result
    with pytest.raises(RecordError, match=r"^line 6: move 5 \(d5\) comes after the game ended \(the position "
                                          r"repeated\)"):
        parse_record(text.replace("d2 draw", "d2\nd5"))
    with pytest.raises(RecordError, match="^line 3: the result L contradicts the position: a draw"):
        parse_record(text.replace('"draw"', '"L"').replace(" draw\n", "\n"))
    # the old format's record is a claim: verify proves the draw from the rules
    assert parse_record(f"{CYCLE_START}\n" + ",".join(CYCLE)).position().outcome == "draw"


def test_cli_verify_proves_a_repetition_draw(tmp_path, run_cli):
    path = _write(tmp_path, f'[Start "{CYCLE_START}"]\n[Result "draw"]\n1. d5 e5 2. e2 d2\n')
    out = run_cli("verify", "--game", path, code=0).stdout
    assert "verdict: proven (claim: draw)" in out and "the position repeated" in out


def test_the_replay_keeps_the_history():
    # what a repetition draw needs: the last position knows every earlier one
    record = parse_record('[Board "3/4"]\n' + " ".join(_moves(_game("3/4", 2))))
    positions = record.positions()
    assert positions[-1].earlier() == positions[:-1]


# -- the commands ----------------------------------------------------------------------------------


def _write(tmp_path, text: str, name: str = "game.txt"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_cli_show_game_at_a_ply(tmp_path, run_cli):
    game = _game("2/3", 3)
    record = GameRecord({"Light": "Ann", "Dark": "Bob"}, game[0], _moves(game), {2: "a reply"}, game[-1].outcome)
    path = _write(tmp_path, record.text())
    out = run_cli("show", "--game", path, "--ply", "2", code=0).stdout
    assert "Light: Ann" in out and "Dark: Bob" in out and f"Result: {game[-1].outcome}" in out
    assert f"after 2 of {len(game) - 1} moves, last move {game[2].last_move}: {game[2]}" in out
    assert "{a reply}" in out and "legal moves" in out
    end = run_cli("show", "--game", path, code=0).stdout
    assert f": {game[-1]}" in end and "the game is over" in end


@pytest.mark.parametrize("args, fragment", [
    (["--ply", "1"], "--ply needs --game"),
    (["--game", "GAME", "--ply", "99"], "--ply 99: "),
    (["2/3", "--game", "GAME"], "either POSITION or --game"),
    ([], "give a POSITION or --game"),
])
def test_cli_show_game_bad_input(tmp_path, run_cli, args, fragment):
    path = _write(tmp_path, '[Board "2/3"]\n1. c1 e2\n')
    proc = run_cli("show", *[str(path) if a == "GAME" else a for a in args])
    assert proc.code == 2 and proc.exception is None, proc
    assert len(proc.stderr.splitlines()) == 1 and fragment in proc.stderr, proc.stderr


def test_cli_verify_reads_the_new_format(tmp_path, run_cli):
    path = _write(tmp_path, '[Board "2/3"]\n[Light "Ann"]\n\n1. c2 {the best} c3\n')
    out = run_cli("verify", "--game", path, "--claim", "win", code=0).stdout
    assert "replayed 2 moves from 2/3/4/3/2 L" in out and "2/3/1LD1/3/2 L: Light to move: win" in out
    finished = _game("2/3", 3)
    path = _write(tmp_path, GameRecord({}, finished[0], _moves(finished), result=finished[-1].outcome).text())
    assert "verdict: proven" in run_cli("verify", "--game", path, code=0).stdout


@pytest.mark.parametrize("text, fragment", [
    ('[Board "2/3"]\n1. c1 e2 c2\n', "line 2: move 3 (c2) is illegal"),
    ('[Board "2/3"]\n[Light "x', "line 2: truncated header"),
    ('[Board "2/3"]\n[Date "12/02/2026"]\n', "line 2: header Date"),
])
def test_cli_bad_records_exit_2_with_one_line(tmp_path, run_cli, text, fragment):
    path = _write(tmp_path, text)
    for command in (["verify", "--game", path], ["show", "--game", path]):
        proc = run_cli(*command)
        assert proc.code == 2 and proc.exception is None and proc.stdout == "", proc
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and fragment in lines[0], proc.stderr


def test_cli_verify_game_with_its_start_refuses_a_position(tmp_path, run_cli):
    path = _write(tmp_path, '[Board "2/3"]\nc1\n')
    proc = run_cli("verify", EMPTY_23, "--game", path)
    assert proc.code == 2 and "gives its start position" in proc.stderr


def test_cli_verify_game_board_must_agree(tmp_path, run_cli):
    path = _write(tmp_path, '[Board "2/3"]\nc2 c3\n')
    proc = run_cli("verify", "--game", path, "--board", "3/4")
    assert proc.code == 2 and "a game on board 2/3, not --board 3/4" in proc.stderr
    assert "verdict: proven" in run_cli("verify", "--game", path, "--board", "2/3", code=0).stdout


def test_cli_play_writes_a_record(tmp_path, run_cli):
    path = tmp_path / "out" / "game.txt"
    out = run_cli("play", "--board", "2/3", "--seed", "5", "--moves", "c1,e2", "--record", path, code=0).stdout
    assert f"wrote {path}" in out
    record = parse_record(path.read_text())
    game = list(random_game("2/3", random.Random(5), start=Position.start("2/3").play("c1").play("e2")))
    assert record.moves[:2] == ["c1", "e2"] and record.result == record.position().outcome
    assert record.position().outcome is not None and record.board == Board.parse("2/3")
    assert record.headers["Source"] == "meridians play --seed 5"
    assert re.fullmatch(r"\d{4}\.\d{2}\.\d{2}", record.headers["Date"])
    assert record.moves == ["c1", "e2"] + _moves(game)


# -- no input ever escapes as anything but a RecordError -------------------------------------------

_SAMPLE = GameRecord({"Variant": "pie", "Light": 'A "b"', "X": "y"}, Position.start("3/4"),
                     _moves(_game("3/4", 4)), {0: "start", 3: "three"}, None, swap=True,
                     variations={2: [Variation(["c3"])]}).text()


@settings(max_examples=300)
@given(st.data())
def test_mutated_records_fail_only_with_a_record_error(data):
    text = _SAMPLE
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 8))
        glue = data.draw(st.sampled_from(['', '[', ']', '"', '{', '}', '\\', '\n', ' ', '#', 'swap', '*', 'L',
                                          'draw', '1.', '99999999999999999999', '(', ')', '(c1)', 'c3', '/', 'Start "', 'é', '\r', '(c1 ' * 3]))
        text = text[:at] + glue + text[at + cut:]
    try:
        record = parse_record(text, default_board="3/4")
    except RecordError as e:
        assert str(e) and "\n" not in str(e)
    else:
        assert parse_record(record.text()) == record


@pytest.mark.parametrize("content, fragment", [
    (b"\x1f\x8b\x08\x00corrupt", "gzip"),
    (b"[Board \"2/3\"]\n\x00\x01", "binary"),
    (b"\xff\xfe[Board", "UTF-8"),
])
def test_cli_show_game_unreadable_files(tmp_path, run_cli, content, fragment):
    path = tmp_path / "game.txt"
    path.write_bytes(content)
    proc = run_cli("show", "--game", path)
    assert proc.code == 2 and proc.exception is None and proc.stdout == "", proc
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and fragment in lines[0], proc.stderr


# -- review: random trees with comments, headers of any key, deep nesting, the one replay --------


@st.composite
def variation_records(draw, board: str, max_plies: int = 12, depth: int = 3) -> GameRecord:
    """A record of a random game with random variations at every level, nested up to
    ``depth``, each with comments of its own (a variation may begin with the move it replaces:
    the text allows it); from the empty board or, for Dark to move, a position a few moves in."""
    seed = draw(st.integers(0, 10_000))
    start = Position.start(board)
    if draw(st.booleans()):
        start = Position.parse(str(_game(board, seed, 3)[-1]))  # Dark to move, no history

    def line(pos: Position, plies: int, level: int) -> tuple[list[str], dict, dict]:
        game = list(random_game(board, seed + level + plies, start=pos, plies=plies))
        moves = _moves(game)
        comments = draw(st.dictionaries(st.integers(0, len(moves)), _COMMENT, max_size=2))
        variations: dict[int, list[Variation]] = {}
        if level < depth:
            for ply in draw(st.lists(st.integers(0, max(len(moves) - 1, 0)), max_size=3 if moves else 0)):
                before = game[ply]
                first = draw(st.sampled_from(before.legal_moves()))
                rest, c, v = line(before.play(first), draw(st.integers(0, 4)), level + 1)
                c = {k + 1: x for k, x in c.items()} | ({0: draw(_COMMENT)} if draw(st.booleans()) else {})
                v = {k + 1: x for k, x in v.items()}
                variations.setdefault(ply, []).append(Variation([first, *rest], c, v))
        return moves, comments, variations

    moves, comments, variations = line(start, draw(st.integers(1, max_plies)), 0)
    return GameRecord({"Light": "Ann"}, start, moves, comments, None, variations=variations)


@settings(max_examples=40)
@given(variation_records("2/3"))
def test_records_with_variations_round_trip(record):
    text = record.text()
    again = parse_record(text)
    assert again == record and again.text() == text
    # each line read back is the same line, and replays whole from the start
    assert again.lines() == record.lines()
    for moves in again.lines():
        GameRecord({}, record.start, moves).game()


@settings(max_examples=4)
@given(variation_records("6/7", max_plies=80))
def test_records_with_variations_round_trip_on_6_7(record):
    again = parse_record(record.text())
    assert again == record and again.lines() == record.lines()


@settings(max_examples=60)
@given(st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,7}", fullmatch=True), st.sampled_from(["x", "a\rb", "a\x85b", ""]))
def test_a_header_a_record_holds_reads_back(key, value):
    # a record made with a header writes a text that reads back as it; else it cannot be made
    try:
        record = GameRecord({key: value}, Position.start("2/3"), ["c2"])
    except RecordError:
        return
    assert parse_record(record.text()) == record


def test_header_keys_that_differ_from_a_known_one_by_case_are_refused():
    for key in ("LIGHT", "variant", "board", "START", "result", "date"):
        with pytest.raises(RecordError, match="case"):
            GameRecord({key: "x"}, Position.start("2/3"), ["c2"])


@pytest.mark.parametrize("text, line", [('[Board "2/3"]\n[Light "a\rb"]\n1. c2\n', 2), ('[Light "a\rb"]\n1. c2\n', 1)])
def test_a_header_value_holding_a_carriage_return_is_a_record_error(text, line):
    with pytest.raises(RecordError, match=f"^line {line}: header Light"):
        parse_record(text)


def _nested(depth: int) -> str:
    # each variation replaces the one move of the line it is in, with the same move
    return '[Board "2/3"]\n\n1. c2 ' + "(1. c2 " * depth + ")" * depth + " *\n"


def test_variations_nest_as_deep_as_the_limit_and_no_deeper():
    from solver.rules.record import MAX_DEPTH

    record = parse_record(_nested(MAX_DEPTH))
    again = parse_record(record.text())
    assert again == record and len(record.lines()) == MAX_DEPTH + 1 and repr(record)
    assert variations_of(record.moves, record.lines()[1:]) == {}  # every line is the main line
    for text in (_nested(MAX_DEPTH + 1), _nested(20_000)):
        with pytest.raises(RecordError, match=f"^line 3: variations nested deeper than {MAX_DEPTH}"):
            parse_record(text)
    deep = Variation(["c2"])
    for _ in range(MAX_DEPTH):
        deep = Variation(["c2"], variations={0: [deep]})
    with pytest.raises(RecordError, match="nested deeper"):
        GameRecord({}, Position.start("2/3"), ["c2"], variations={0: [deep]})


def test_variations_of_lines_nested_deeper_than_the_limit_is_a_record_error():
    from solver.rules.record import MAX_DEPTH

    # each line leaves the one before one move later: lines nested one level more each
    game = _moves(_game("6/7", 1))
    assert len(game) > MAX_DEPTH + 2
    lines, pos = [], Position.start("6/7")
    for k in range(MAX_DEPTH + 2):
        other = next(m for m in pos.legal_moves() if m != game[k])
        lines.append(game[:k] + [other])
        pos = pos.play(game[k])
    main = lines[0]
    with pytest.raises(RecordError, match="nested deeper"):
        variations_of(main, lines[1:])


@settings(max_examples=30)
@given(trees())
def test_replay_lines_is_each_lines_replay(lines):
    from solver.rules.record import replay, replay_lines

    start = Position.start("2/3")
    got = replay_lines(start, lines)
    assert len(got) == len(lines)
    for positions, moves in zip(got, lines):
        twin = replay(start, moves).positions  # the slow twin: each line whole, alone
        assert positions == twin and [p.last_move for p in positions[1:]] == moves
        assert positions[-1].outcome == twin[-1].outcome


def test_one_replay_names_the_illegal_move_everywhere():
    from solver.app.verify import GameRecordError, replay as verify_replay
    from solver.rules.record import replay, replay_lines

    start = Position.start("2/3")
    want = "move 3 (c2) is illegal for Light to move in 1D/3/L3/3/2 L: c2 does not see"
    for call in (lambda: replay(start, ["c1", "e2", "c2"]),
                 lambda: GameRecord({}, start, ["c1", "e2", "c2"]).game(),
                 lambda: verify_replay(start, ["c1", "e2", "c2"])):
        with pytest.raises(RecordError) as e:
            call()
        assert str(e.value).startswith(want), str(e.value)
    with pytest.raises(GameRecordError):
        verify_replay(start, ["c1", "e2", "c2"])
    with pytest.raises(RecordError, match=r"^variation 2, move 3 \(c2\) is illegal for Light"):
        replay_lines(start, [["c1", "e2", "c3"], ["c1", "e2", "c2"]], "variation")
    # names as the rules read them (any case, spaces) come back as the rules write them
    assert [p.last_move for p in replay_lines(start, [["C1", " e2"]])[0][1:]] == ["c1", "e2"]
