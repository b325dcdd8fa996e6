"""Playing the engine: ``meridians play --engine`` / ``--engine-vs-engine`` and the loop of
:mod:`solver.app.interactive`, over io.StringIO and through a pseudo-terminal.

Playout budgets make the engine's moves depend only on the positions and the seed, so the
games the tests expect are derived by playing :class:`~solver.search.mcts.Engine` directly,
not written down."""

from __future__ import annotations

import fcntl
import io
import json
import os
import re
import select
import signal
import subprocess
import sys
import termios
import time

import pytest

from solver.app.analyst import analyse
from solver.app.interactive import (HumanVsEngine, engine_limit, engine_vs_engine, label, players, result_line,
                                   value_text)
from solver.rules.position import Game, Position
from solver.rules.record import GameRecord, parse_record
from solver.search.limit import Limit
from solver.search.mcts import Engine

PLAYOUTS = 200


def _expected_game(board: str, human: str, playouts: int, seed: int = 1):
    """The game of a person who plays the first legal move each time against the engine,
    played with the engine alone: its moves, and the engine's results."""
    game, engine, results = Game(board), Engine(seed=seed), []
    while game.outcome is None:
        pos = game.position
        if pos.to_move == human:
            game.play(pos.legal_moves()[0])
        else:
            r = analyse(pos, Limit(playouts=playouts), engine=engine)
            results.append(r)
            game.play(r.best)
    return game, results


# -- the loop over StringIO ------------------------------------------------------------------------


@pytest.mark.parametrize("board, human", [("3/4", "L"), ("3/4", "D"), ("2/3", "L")])
def test_a_whole_game_against_the_engine(board, human, tmp_path, run_cli):
    # on 2/3 the engine proves its values (df-pn decides every position there)
    expected, results = _expected_game(board, human, PLAYOUTS)
    mine = [m for m, p in zip(expected.moves, expected.positions) if p.to_move == human]
    out = io.StringIO()
    ending = HumanVsEngine(Game(board), human, engine_limit(playouts=PLAYOUTS), inp=io.StringIO("\n".join(mine) + "\n"),
                           out=out).run()
    text = out.getvalue()
    assert ending.how == "over"
    assert ending.game.moves == expected.moves
    assert ending.game.outcome == expected.outcome is not None
    last = text.rstrip("\n").splitlines()[-1]
    assert last.startswith(result_line(expected))
    assert last.endswith("(you win)" if expected.outcome == human else "(the engine wins)")
    # each engine move is printed with its value, labelled proven or estimated
    engine_lines = [line for line in text.splitlines() if "(engine) plays" in line]
    assert len(engine_lines) == len(results)
    for line, r in zip(engine_lines, results):
        assert f" plays {r.best}" in line and f"{value_text(r)} for the engine" in line
        assert re.search(r"\d+\.\d\d s$", line)
    # a proven value is announced when it first appears and when it changes (the person
    # may throw away a win the engine proved them to have)
    announced, last = [], None
    for r in results:
        if r.proven and str(r.value) != last:
            last = str(r.value)
            announced.append(last)
    assert re.findall(r"the engine has proven a (\w+)", text) == announced
    assert announced or board != "2/3"
    # the board is drawn after every move: its status line each time, and at the start
    assert text.count("columns count from 1") == len(expected.moves) + 1
    # the record reads back with the same moves and result, and verify agrees
    record = GameRecord.from_game(ending.game, players(human, engine_limit(playouts=PLAYOUTS)))
    path = tmp_path / "game.txt"
    path.write_text(record.text())
    back = parse_record(path.read_text())
    assert back.moves == expected.moves and back.result == expected.outcome
    assert back.headers["Light" if human == "L" else "Dark"] == "human"
    assert back.headers["Dark" if human == "L" else "Light"] == f"engine ({PLAYOUTS} playouts a move)"
    proc = run_cli("verify", "--game", str(path), code=0)
    assert "verdict: proven" in proc.stdout


def _session(lines: str, human: str = "L", board: str = "2/3") -> tuple:
    out = io.StringIO()
    ending = HumanVsEngine(Game(board), human, engine_limit(playouts=PLAYOUTS), inp=io.StringIO(lines), out=out).run()
    return ending, out.getvalue()


def test_commands_and_bad_input_never_end_the_game():
    ending, text = _session("\n   \nc2 c3\nzz\nthisisnotamoveatall\nundo\nmoves\nboard\nhelp\nHINT\n")
    assert ending.how == "quit" and ending.game.moves == []  # the input ended
    start = Position.start("2/3")
    assert "type one move or one command" in text
    assert "unknown point 'zz' on board 2/3" in text
    assert "not a move or a command" in text and "thisisnotamoveatall" not in text
    assert "nothing to undo: you have not moved yet" in text
    assert f"legal moves ({len(start.legal_moves())}): {' '.join(start.legal_moves())}" in text
    assert "  undo   take back your last move and the engine's reply" in text
    hint = analyse(start, Limit(playouts=PLAYOUTS), engine=Engine(seed=1))
    assert f"hint: {hint.best} ({value_text(hint)} for you," in text
    assert text.rstrip().endswith("end of input: the game is stopped")
    # asked again after each line that was not a move: 10 lines, then the end of the input
    assert text.count("your move (Light; 14 legal moves;") == 11


def test_an_illegal_move_says_why_and_asks_again():
    # c1 then the engine's reply; then c2 does not see c1 through an empty point (rule 2)
    reply = analyse(Position.start("2/3").play("c1"), Limit(playouts=PLAYOUTS), engine=Engine(seed=1)).best
    pos = Position.start("2/3").play("c1").play(reply)
    bad = next(m for m in ("c2", "b1", "b2", "d1") if m not in pos.legal_moves() and m != reply)
    ending, text = _session(f"c1\n{bad}\nquit\n")
    assert ending.how == "quit" and ending.game.moves == ["c1", reply]
    with pytest.raises(ValueError) as e:
        pos.play(bad)
    assert str(e.value) in text and "Traceback" not in text
    assert text.rstrip().endswith("the game is stopped")


def test_undo_takes_back_the_move_pair():
    engine = Engine(seed=1)
    reply = analyse(Position.start("2/3").play("c2"), Limit(playouts=PLAYOUTS), engine=engine).best
    ending, text = _session("c2\nundo\nquit\n")
    assert ending.game.moves == [] and len(ending.game.positions) == 1
    assert ending.comments == {}  # the engine's note on its reply went with it
    kept, _ = _session("c2\nquit\n")
    assert list(kept.comments) == [2] and kept.comments[2].startswith("engine: ")
    assert f"took back c2 {reply}" in text
    # the last board drawn is the empty one again, with Light (you) to move
    grid = text[text.index("took back"):].split("\n", 1)[1].split("L Light")[0]
    assert grid.count(".") == 14 and not re.search("[LD]", grid)
    assert text.endswith("14 legal moves for Light (you)\nyour move (Light; 14 legal moves; 'help' for commands): "
                         "the game is stopped\n")


def test_playing_dark_the_engine_moves_first():
    first = analyse(Position.start("2/3"), Limit(playouts=PLAYOUTS), engine=Engine(seed=1)).best
    ending, text = _session("undo\nquit\n", human="D")
    assert ending.game.moves == [first]
    assert f"Light (engine) plays {first}:" in text and "nothing to undo" in text


def test_ctrl_c_while_waiting_stops_the_game():
    class Interrupting(io.StringIO):
        def readline(self, *args):
            raise KeyboardInterrupt

    out = io.StringIO()
    ending = HumanVsEngine(Game("2/3"), "L", engine_limit(playouts=PLAYOUTS), inp=Interrupting(), out=out).run()
    assert ending.how == "interrupted" and out.getvalue().rstrip().endswith("interrupted: the game is stopped")


def test_budget_labels_and_checks():
    assert engine_limit() == Limit(seconds=1.0) and engine_limit().playouts is None
    assert engine_limit(playouts=200) == Limit(playouts=200)  # playouts alone: no time
    assert label(engine_limit(0.5)) == "0.5 s a move"
    for bad in ({"seconds": -1}, {"seconds": float("nan")}, {"playouts": 0}, {"playouts": True}):
        with pytest.raises(ValueError):
            engine_limit(**bad)


def test_engine_vs_engine_loop_matches_two_engines():
    # one engine a side, seeded seed and seed + 1, each keeping its tree
    game, engines = Game("2/3"), {"L": Engine(seed=7), "D": Engine(seed=8)}
    while game.outcome is None:
        game.play(analyse(game.position, Limit(playouts=PLAYOUTS), engine=engines[game.position.to_move]).best)
    out = io.StringIO()
    ending = engine_vs_engine(Game("2/3"), engine_limit(playouts=PLAYOUTS), out=out, seed=7)
    assert ending.how == "over" and ending.game.moves == game.moves
    assert out.getvalue().splitlines()[-1] == result_line(game)
    stopped = engine_vs_engine(Game("2/3"), engine_limit(playouts=PLAYOUTS), out=io.StringIO(), seed=7, max_plies=3)
    assert stopped.how == "stopped" and stopped.game.moves == game.moves[:3]


# -- the command ------------------------------------------------------------------------------------


def test_engine_vs_engine_command_writes_its_record(tmp_path, run_cli):
    path = tmp_path / "out" / "game.txt"
    out = run_cli("play", "--board", "2/3", "--engine-vs-engine", "--playouts", PLAYOUTS, "--seed", 3,
                  "--record", path, code=0).stdout
    record = parse_record(path.read_text())
    game = record.game()
    assert game.outcome is not None and record.result == game.outcome
    printed = re.findall(r"^\s+\d+\. [LD] (\w+)", out, re.M)
    assert printed == record.moves
    assert result_line(game) in out
    assert record.headers["Light"] == record.headers["Dark"] == f"engine ({PLAYOUTS} playouts a move)"
    # every move carries the engine's value as the line printed it, so a record keeps what it knew
    values = re.findall(r"^\s+\d+\. [LD] \w+(?:, removing [a-z0-9 ]+)?  \((.+?) for (?:Light|Dark), ", out, re.M)
    assert len(values) == len(record.moves)
    assert [record.comments.get(ply) for ply in range(1, len(record.moves) + 1)] == [
        f"engine: {v}, {s}" for v, s in zip(values, re.findall(r"for (?:Light|Dark), ([\d.]+ s)\)$", out, re.M))]
    # reproducible with a playout budget
    again = tmp_path / "again.txt"
    run_cli("play", "--board", "2/3", "--engine-vs-engine", "--playouts", PLAYOUTS, "--seed", 3,
            "--record", again, code=0)
    assert parse_record(again.read_text()).moves == record.moves


def test_engine_game_from_a_pipe_ends_at_the_end_of_input(tmp_path, run_cli):
    path = tmp_path / "g.txt"
    proc = run_cli("play", "--board", "2/3", "--engine", "--as", "dark", "--playouts", PLAYOUTS, "--moves", "c2",
                   "--record", path, input="", code=0)
    assert "end of input" in proc.stdout
    record = parse_record(path.read_text())
    assert record.result is None and record.moves[0] == "c2" and len(record.moves) == 1  # Dark (you) to move
    assert record.headers["Dark"] == "human"


def test_a_repeated_position_is_a_draw(tmp_path, run_cli):
    # tests/test_position.py's recurring position: four lone stones cut one another, and
    # the fourth move (yours, Dark) repeats the start
    start = "4/5/1L3L/2D2D1/4D3/2DL3/L4L/2D1D/4 L"
    path = tmp_path / "draw.txt"
    proc = run_cli("play", "--start", start, "--moves", "f5,d6,d4", "--engine", "--as", "D", "--playouts", PLAYOUTS,
                   "--record", path, input="f3\n", code=0)
    assert "draw by repetition after 4 moves\n" in proc.stdout
    record = parse_record(path.read_text())
    assert record.result == "draw" and record.moves == ["f5", "d6", "d4", "f3"] and str(record.start) == start


@pytest.mark.parametrize("args, message", [
    (["--engine", "--engine-vs-engine"], "give either --engine or --engine-vs-engine, not both"),
    (["--engine", "--as", "X"], "--as 'X': give L (Light) or D (Dark)"),
    (["--engine", "--time", "-1"], "--time -1"),
    (["--engine-vs-engine", "--time", "nan"], "--time nan"),
    (["--engine", "--playouts", "0"], "--playouts '0': give a whole number from 1 to 10**12"),
    (["--engine-vs-engine", "--as", "L"], "--as is for --engine"),
    (["--as", "L"], "--as is for --engine or --engine-vs-engine"),
    (["--time", "1"], "--time is for --engine or --engine-vs-engine"),
    (["--engine", "--quiet"], "--quiet is not for --engine"),
    (["--engine", "--moves", "c1,c1"], "move 2 (c1): c1 is occupied"),
])
def test_engine_option_errors(args, message, run_cli):
    proc = run_cli("play", "--board", "2/3", *args, input="quit\n")
    assert proc.code == 2 and proc.exception is None and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("meridians: error: ") and message in proc.stderr


@pytest.mark.parametrize("option", ["--time", "--playouts", "--as"])
@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "", " ", "1e12", "9" * 5000, "x", "1.5"],
                         ids=lambda v: v[:12] or "empty")
def test_bad_engine_values_are_one_line(option, value, run_cli):
    if (option, value) == ("--time", "1.5"):
        value = "-1.5"
    proc = run_cli("play", "--board", "2/3", "--engine", option, value, input="quit\n")
    assert proc.code == 2 and proc.exception is None and proc.stdout == "", proc
    assert proc.stderr.count("\n") == 1 and option in proc.stderr and len(proc.stderr) < 200


# -- through a pseudo-terminal -----------------------------------------------------------------------


class Terminal:
    """The ``meridians`` command run on a pseudo-terminal (its controlling terminal, so
    that Ctrl-C typed there interrupts it), read until an expected text appears."""

    def __init__(self, args: list[str], env: dict, cwd):
        self.master, slave = os.openpty()

        def child() -> None:
            # Ctrl-C as from a terminal, even where the tests run with SIGINT ignored
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen([sys.executable, "-m", "solver.cli", *args], stdin=slave, stdout=slave,
                                     stderr=slave, env=env, cwd=cwd, start_new_session=True, preexec_fn=child)
        os.close(slave)
        self.text = ""

    def expect(self, pattern: str, timeout: float = 60) -> re.Match:
        """Read until ``pattern`` (a regex) matches the output since the last match."""
        deadline = time.monotonic() + timeout
        while True:
            m = re.search(pattern, self.text)
            if m:
                self.text = self.text[m.end():]
                return m
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in {self.text[-2000:]!r}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    data = b""
                assert data, f"the command ended before {pattern!r}: {self.text[-2000:]!r}"
                self.text += data.decode().replace("\r", "")

    def type(self, line: str) -> None:
        os.write(self.master, line.encode())

    def end(self, timeout: float = 30) -> tuple[int, str]:
        """The exit code and the rest of the output.

        The terminal is read without waiting on it (no ``select``): while a reader waits on
        the pseudo-terminal, the kernel's release of the child's end of it, at the child's
        exit, backs off and waits again, for seconds and more on a loaded machine."""
        rest = []
        os.set_blocking(self.master, False)

        def drain() -> None:
            while True:
                try:
                    data = os.read(self.master, 65536)
                except OSError:  # nothing more for now (BlockingIOError), or the child's end is closed
                    return
                if not data:
                    return
                rest.append(data.decode().replace("\r", ""))

        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            drain()
            time.sleep(0.05)
        drain()
        code = self.proc.wait(timeout=max(deadline - time.monotonic(), 1))
        os.close(self.master)
        return code, self.text + "".join(rest)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


PROMPT = r"your move \(Light; (\d+) legal moves; 'help' for commands\): "


@pytest.mark.subprocess
def test_a_game_in_a_terminal(tmp_path, tree_env):
    start = Position.start("3/4")
    first = start.legal_moves()[0]
    reply = analyse(start.play(first), Limit(playouts=PLAYOUTS), engine=Engine(seed=1)).best
    term = Terminal(["play", "--board", "3/4", "--engine", "--playouts", str(PLAYOUTS), "--record", "game.txt"],
                    tree_env, tmp_path)
    try:
        board = term.expect(r"(?s)  g .*Light to move\n30 legal moves for Light \(you\)\n")
        assert "L Light, D Dark, . empty" in board.group(0)
        assert term.expect(PROMPT).group(1) == "30"
        term.type("z9\n")  # not a point: one line, and the question again
        term.expect(r"z9\nunknown point 'z9' on board 3/4\n")
        term.expect(PROMPT)
        term.type(f"{first}\n")
        term.expect(f"Light \\(you\\) plays {first}\n")
        term.expect(f"Dark \\(engine\\) plays {reply}: (proven (win|loss)|estimate \\d+%) for the engine, "
                    r"\d+\.\d\d s\n")
        n = len(start.play(first).play(reply).legal_moves())
        assert term.expect(PROMPT).group(1) == str(n)
        term.type("hint\n")
        term.expect(r"hint: [a-g]\d \((proven (win|loss)|estimate \d+%) for you, ")
        term.expect(PROMPT)
        term.type("undo\n")
        term.expect(f"took back {first} {reply}\n")
        board = term.expect(r"(?s)^.*?30 legal moves for Light \(you\)\n")
        assert re.search(r"[LD]", board.group(0).split("L Light")[0]) is None  # the empty board again
        assert term.expect(PROMPT).group(1) == "30"
        term.type(f"{first}\n")
        term.expect(f"Dark \\(engine\\) plays {reply}:")
        term.expect(PROMPT)
        term.type("quit\n")
        code, rest = term.end()
    finally:
        term.kill()
    assert code == 0, rest
    assert "the game is stopped" in rest and "wrote game.txt" in rest and "Traceback" not in rest
    record = parse_record((tmp_path / "game.txt").read_text())
    assert record.moves == [first, reply] and record.result is None
    assert '[Result "*"]' in (tmp_path / "game.txt").read_text()


@pytest.mark.subprocess
def test_ctrl_c_in_a_terminal_ends_cleanly(tmp_path, tree_env):
    term = Terminal(["play", "--board", "2/3", "--engine", "--playouts", str(PLAYOUTS), "--record", "g.txt"],
                    tree_env, tmp_path)
    try:
        term.expect(PROMPT)
        term.type("\x03")  # Ctrl-C typed on the terminal
        code, rest = term.end()
    finally:
        term.kill()
    assert code == 130, rest
    assert "interrupted" in rest and "Traceback" not in rest
    assert parse_record((tmp_path / "g.txt").read_text()).result is None


def test_bench_engine_proof_reports_from_where_the_engine_proved(tmp_path, monkeypatch):
    from conftest import load_script, run_script

    from solver.rules.randomgame import empty_points

    script = load_script("bench_engine_proof", monkeypatch, tmp_path)
    run_script(script, monkeypatch, "--board", "2/3", "--games", "1", "--playouts", "300")
    data = json.loads((tmp_path / "proven-from-2-3.json").read_text())
    assert data["command"].endswith("--board 2/3 --games 1 --playouts 300") and data["revision"]
    (row,) = data["games"]
    record = parse_record((tmp_path / row["record"]).read_text())
    game = record.game()
    assert row["moves"] == len(record.moves) and row["outcome"] == game.outcome == record.result
    # the same ply from the record's comments: the first from which every engine note says proven
    proven = [record.comments[ply].startswith("engine: proven") for ply in range(1, len(record.moves) + 1)]
    first = next(p for p in range(len(proven) + 1) if all(proven[p:]))
    assert row["proven_from_ply"] == first
    assert row["empty_at_proven_from"] == empty_points(game.positions[first])
