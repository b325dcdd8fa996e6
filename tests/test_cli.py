"""The ``meridians`` command (solver/cli.py).

Normal use goes through click's CliRunner on ``solver.cli.cli``; the exit codes and the
one-line errors come from ``solver.cli.main``, so bad input is run through the installed
``meridians`` command in a subprocess.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver import Board, Game
from solver.cli import cli

_SCRIPT = shutil.which("meridians", path=str(Path(sys.executable).parent))
MERIDIANS = [_SCRIPT] if _SCRIPT else [sys.executable, "-m", "solver.cli"]
NS = "{http://www.w3.org/2000/svg}"
RESULT_LINE = re.compile(
    r"^((Light|Dark) wins after (\d+) moves: (Light|Dark) has (no stones left|no legal placement)"
    r"|draw by repetition after (\d+) moves)$"
)


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*MERIDIANS, *args], capture_output=True, text=True, timeout=300)


# -- show -------------------------------------------------------------------------------------


def test_show_prints_the_diagram_and_legal_moves():
    # Light b1, Dark d2, Dark to move: Dark's second stone must see d2 across an empty
    # point; only b3 does (across c3); c2 leads to Light b1, every other line is adjacent
    out = invoke("show", "2/1D1/4/L2/2 D").stdout
    assert out == (
        "      1 2\n"
        "  e    . .    e\n"
        "  d   . D .   d\n"
        "  c  . . . .  c\n"
        "  b   L . .   b\n"
        "  a    . .    a\n"
        "      1 2\n"
        "Dark to move\n"
        "legal moves (1): b3\n"
    )


def test_show_board_name_and_finished_position():
    out = invoke("show", "2/3").stdout.splitlines()
    assert out[-2] == "Light to move"
    assert out[-1] == "legal moves (14): a1 a2 b1 b2 b3 c1 c2 c3 c4 d1 d2 d3 e1 e2"
    # Light b1 b3, Dark d2 to move: no point sees d2 across an empty point
    out = invoke("show", "2/1D1/4/L1L/2 D").stdout.splitlines()
    assert out[-1] == "Light wins (Dark has no legal placement)"
    # dead stones of the player to move are drawn x / X
    out = invoke("show", "1D/3/LDL1/3/2 L").stdout.splitlines()
    assert out[3] == "  c  x D x .  c"


def test_show_writes_svg(tmp_path):
    path = tmp_path / "pos.svg"
    text = "1D/3/LDL1/3/2 L"
    out = invoke("show", text, "--svg", str(path)).stdout
    assert out.splitlines()[-1] == f"wrote {path}"
    root = ET.parse(path).getroot()  # well-formed XML
    assert root.tag == NS + "svg"
    elements = list(root.iter())
    classes = [e.get("class", "") for e in elements]
    assert sum(c == "point" for c in classes) == Board.get(2).size
    stones = {(e.get("class"), e.get("data-point")) for e in elements if e.get("class", "").startswith("stone ")}
    assert stones == {("stone light", "c1"), ("stone light", "c3"), ("stone dark", "c2"), ("stone dark", "e2")}
    assert {e.get("data-point") for e in elements if e.get("class") == "dead"} == {"c1", "c3"}
    titles = ["".join(e.itertext()) for e in elements if e.get("class") == "title"]
    assert titles == [text]
    assert not list(tmp_path.glob(".tmp-*"))  # the atomic write left no temporary file


# -- play ---------------------------------------------------------------------------------------


def test_play_ends_with_a_result_and_is_reproducible():
    first = invoke("play", "--board", "2/3", "--seed", "1").stdout
    assert invoke("play", "--board", "2/3", "--seed", "1").stdout == first
    lines = first.strip().splitlines()
    assert lines[0] == "board 2/3, seed 1"
    assert RESULT_LINE.match(lines[-1]), lines[-1]
    # the printed moves replay to the printed final position and result
    moves = [m.group(2) for line in lines if (m := re.match(r"^\s*(\d+)\. [LD] ([a-z]\d+)", line))]
    game = Game(Board.parse("2/3"))
    for move in moves:
        game.play(move)
    assert f"final position: {game.position}" in lines
    n = len(moves)
    winner = {"L": "Light", "D": "Dark"}.get(game.outcome)
    assert lines[-1].startswith(f"{winner} wins after {n} moves" if winner else f"draw by repetition after {n} moves")


@pytest.mark.parametrize("board", ["1/2", "3/4", "6/7", "7/8"])
def test_play_on_other_boards(board):
    seeded = [invoke("play", "--board", board, "--seed", str(s), "--quiet").stdout for s in (5, 5, 6)]
    assert seeded[0] == seeded[1]
    for out in seeded:
        assert len(out.splitlines()) == 1 and RESULT_LINE.match(out.strip()), out


def test_play_given_moves_then_max_plies():
    out = invoke("play", "--board", "2/3", "--moves", "c1, e2 ,c3", "--max-plies", "3").stdout
    lines = out.strip().splitlines()
    assert lines[1:4] == ["   1. L c1", "   2. D e2", "   3. L c3"]
    assert "final position: 1D/3/L1L1/3/2 D" in lines
    assert lines[-1] == "stopped after 3 moves, no result yet"


def test_play_svg_and_start(tmp_path):
    path = tmp_path / "final.svg"
    out = invoke("play", "--start", "1D/3/L1L1/3/2 D", "--seed", "3", "--quiet", "--svg", str(path)).stdout
    assert RESULT_LINE.match(out.strip())
    assert ET.parse(path).getroot().tag == NS + "svg"


def test_play_validates_moves():
    proc = run("play", "--board", "2/3", "--moves", "c1,e2,c2")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "meridians: error: move 3 (c2): c2 does not see Light's first stone c1 through an empty point "
        "(rule 2: the second stone must have a path to the first)"
    ]
    assert "Traceback" not in proc.stdout + proc.stderr
    # the legal moves before it were played and shown
    assert proc.stdout.splitlines()[1:] == ["   1. L c1", "   2. D e2"]


# -- perft and bench ----------------------------------------------------------------------------


def test_perft_prints_the_count():
    # 2/3: 14 first stones, 14 * 13 replies (hand count; see test_reference.py)
    assert invoke("perft", "2/3", "1").stdout == "14\n"
    assert invoke("perft", "2/3/4/3/2 L", "2").stdout == "182\n"
    assert invoke("perft", "2/3", "0").stdout == "1\n"
    assert invoke("perft", "2/1D1/4/L1L/2 D", "2").stdout == "0\n"  # game over


def test_bench_json():
    out = invoke("bench", "--board", "2/3", "--seconds", "0.2", "--json").stdout
    assert len(out.strip().splitlines()) == 1
    data = json.loads(out)
    assert isinstance(data, dict)
    assert data["board"] == "2/3"
    assert data["playouts_per_s"] > 0 and data["plies_per_s"] > data["playouts_per_s"]
    # a 2/3 game lasts at least 3 plies (two first stones, a second stone)
    assert data["plies_per_s"] >= 3 * data["playouts_per_s"]


def test_bench_text():
    out = invoke("bench", "--board", "1/2", "--seconds", "0.05").stdout
    assert out.startswith("1/2: ") and "playouts/s" in out
    # on 1/2 every game is two first stones, then Light has no second stone: Dark wins
    assert "Light won 0" in out and "2.0 plies per game" in out


def test_version_and_help():
    assert invoke("--version").stdout.startswith("meridians ")
    assert "perft" in invoke("--help").stdout


# -- bad input: one line on stderr, exit code 2, no traceback -------------------------------------


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["show", "2/3/4/3/x2 L"], "'x'"),  # malformed position
        (["show", "2/3/5/3/2 L"], "row widths"),  # wrong row width
        (["show", "2/3/99999999999999999999/3/2 L"], "row"),  # wrong row width (BUG: traceback)
        (["show", "2/3/4/3/2"], "has no side to move"),  # rows without the side letter
        (["show", "2/3/4/3/2X"], "unknown board"),
        (["show", "²"], "unknown board '²'"),  # int() took str.isdigit()'s '²' with its own message
        (["show", "9" * 5000], "unsupported board"),  # Python's int digit limit
        (["show", "2/3/" + "9" * 5000 + "/3/2 L"], "5000 digits"),
        (["perft", "2/3/4/3/2 X", "1"], "side to move"),
        (["show", "1D/3/LDL1/3/2 D"], "not to move"),  # Light, not to move, is dead
        (["play", "--board", "2/3", "--moves", "c1,e2,z9"], "z9"),  # unknown point
        (["play", "--board", "2/3", "--moves", "c1,c1"], "occupied"),  # illegal move
        (["play", "--board", "2/3", "--moves", "c1,e2,c2"], "rule 2"),  # illegal move
        (["play", "--board", "1/2", "--moves", "a1,c1,b1"], "the game is over"),
        (["play", "--board", "9/10"], "9/10"),  # unsupported board
        (["show", "9/10"], "9/10"),
        (["bench", "--board", "9/10", "--seconds", "0.1"], "9/10"),
        (["show", "6/8"], "6/8"),
        (["frobnicate"], "frobnicate"),  # unknown command
        (["perft", "2/3", "-1"], "-1"),  # bad depth
        (["perft", "2/3"], "DEPTH"),  # missing argument
        (["bench", "--seconds", "nan"], "--seconds nan"),  # ZeroDivisionError
        (["bench", "--seconds", "inf"], "--seconds inf"),  # ran forever
        (["bench", "--seconds", "3601"], "--seconds 3601"),
        (["perft", "2/3", "1", "--divide", "--bogus"], "--bogus"),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 40 else " ".join(x[:20] for x in v),
)
def test_bad_input(args, fragment):
    proc = run(*args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("meridians: error: ")
    assert fragment in lines[0]
    assert "Traceback" not in proc.stdout + proc.stderr


def test_play_reports_a_repetition():
    # tests/test_position.py's recurring position: four lone stones cut one another
    start = "4/5/1L3L/2D2D1/4D3/2DL3/L4L/2D1D/4 L"
    out = invoke("play", "--start", start, "--moves", "f5,d6,d4,f3", "--seed", "1").stdout
    lines = out.strip().splitlines()
    assert "   1. L f5  removes d4" in lines and "   4. D f3  removes d6" in lines
    assert f"final position: {start}" in lines
    assert lines[-1] == "draw by repetition after 4 moves"


@pytest.mark.parametrize("sep", ["\t", "\u00a0", "\n"])
def test_show_takes_any_whitespace_between_rows_and_side(sep):
    out = invoke("show", f"2/1D1/4/L2/2{sep}D").stdout
    assert out.splitlines()[-1] == "legal moves (1): b3"


# -- output files: missing folders are created, the umask is kept, errors name the path ----------


def test_output_options_create_missing_folders(tmp_path):
    svg = tmp_path / "new" / "deeper" / "pos.svg"
    invoke("show", "2/3", "--svg", str(svg))
    assert ET.parse(svg).getroot().tag == NS + "svg"
    final = tmp_path / "other" / "end.svg"
    invoke("play", "--board", "1/2", "--seed", "1", "--quiet", "--svg", str(final))
    assert final.exists()


def test_output_file_keeps_the_umask(tmp_path):
    import os

    old = os.umask(0o027)
    try:
        invoke("show", "2/3", "--svg", str(tmp_path / "a.svg"))
        os.umask(0o002)
        invoke("show", "2/3", "--svg", str(tmp_path / "b.svg"))
    finally:
        os.umask(old)
    assert (tmp_path / "a.svg").stat().st_mode & 0o777 == 0o640  # mkstemp alone gives 0o600
    assert (tmp_path / "b.svg").stat().st_mode & 0o777 == 0o664


def test_output_error_names_the_users_path(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    target = blocker / "pos.svg"
    proc = run("show", "2/3", "--svg", str(target))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and str(target) in lines[0], proc.stderr
    assert ".part" not in lines[0] and ".tmp-" not in lines[0]


# -- help: full summaries and examples ---------------------------------------------------------

SOLVER_COMMANDS = ["show", "play", "perft", "solve", "verify", "bench"]


def test_help_lists_whole_sentences():
    listing = invoke("--help").stdout.split("Commands:", 1)[1]
    # each command's summary, joined over its wrapped lines
    entries: dict[str, str] = {}
    name = None
    for line in listing.splitlines():
        m = re.match(r"^  (\S+)\s+(.*)$", line)
        if m:
            name = m.group(1)
            entries[name] = m.group(2)
        elif name and line.strip():
            entries[name] += " " + line.strip()
    for command in SOLVER_COMMANDS + ["check"]:
        assert not entries[command].endswith("..."), entries[command]
        assert entries[command].endswith("."), entries[command]


@pytest.mark.parametrize("command", SOLVER_COMMANDS)
def test_help_ends_with_examples(command):
    text = invoke(command, "--help").stdout
    body = text.split("Options:", 1)[0].rstrip().splitlines()
    at = max(i for i, line in enumerate(body) if line.strip() == "Examples:")
    examples = [line.strip() for line in body[at + 1:]]
    assert 1 <= len(examples) <= 2
    for example in examples:
        assert example.startswith(f"meridians {command} ")  # as written, one a line (click's \b)
