"""The ``meridians`` command (solver/cli/).

Every command runs in this process through the ``run_cli`` fixture (tests/conftest.py),
which calls ``solver.cli.main``: the exit codes and the one-line errors a user gets.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from solver import Board, Game

NS = "{http://www.w3.org/2000/svg}"
RESULT_LINE = re.compile(
    r"^((Light|Dark) wins after (\d+) moves: (Light|Dark) has (no stones left|no legal placement)"
    r"|draw by repetition after (\d+) moves)$"
)


# -- show -------------------------------------------------------------------------------------


def test_show_prints_the_diagram_and_legal_moves(run_cli):
    # Light b1, Dark d2, Dark to move: Dark's second stone must see d2 across an empty
    # point; only b3 does (across c3); c2 leads to Light b1, every other line is adjacent
    out = run_cli("show", "2/1D1/4/L2/2 D", code=0).stdout
    assert out == (
        "      1 2\n"
        "  e    . . 3    e\n"
        "  d   . D . 4   d\n"
        "  c  . . . .    c\n"
        "  b   L . . 4   b\n"
        "  a    . . 3    a\n"
        "      1 2\n"
        "L Light, D Dark, . empty; columns count from 1 at the left of each row\n"
        "Dark to move\n"
        "legal moves (1): b3\n"
    )


def test_show_board_name_and_finished_position(run_cli):
    out = run_cli("show", "2/3", code=0).stdout.splitlines()
    assert out[-2] == "Light to move"
    assert out[-1] == "legal moves (14): a1 a2 b1 b2 b3 c1 c2 c3 c4 d1 d2 d3 e1 e2"
    # Light b1 b3, Dark d2 to move: no point sees d2 across an empty point
    out = run_cli("show", "2/1D1/4/L1L/2 D", code=0).stdout.splitlines()
    assert out[-1] == "Light wins (Dark has no legal placement)"
    # dead stones of the player to move are drawn x / X
    out = run_cli("show", "1D/3/LDL1/3/2 L", code=0).stdout.splitlines()
    assert out[3] == "  c  x D x .    c"
    assert out[7].startswith("L Light, D Dark, . empty, x dead Light stone (dead: removed unless")


def test_show_writes_svg(tmp_path, run_cli):
    path = tmp_path / "pos.svg"
    text = "1D/3/LDL1/3/2 L"
    out = run_cli("show", text, "--svg", str(path), code=0).stdout
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


def test_play_ends_with_a_result_and_is_reproducible(run_cli):
    first = run_cli("play", "--board", "2/3", "--seed", "1", code=0).stdout
    assert run_cli("play", "--board", "2/3", "--seed", "1", code=0).stdout == first
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
def test_play_on_other_boards(board, run_cli):
    seeded = [run_cli("play", "--board", board, "--seed", str(s), "--quiet", code=0).stdout for s in (5, 5, 6)]
    assert seeded[0] == seeded[1]
    for out in seeded:
        assert len(out.splitlines()) == 1 and RESULT_LINE.match(out.strip()), out


def test_play_given_moves_then_max_plies(run_cli):
    out = run_cli("play", "--board", "2/3", "--moves", "c1, e2 ,c3", "--max-plies", "3", code=0).stdout
    lines = out.strip().splitlines()
    assert lines[1:4] == ["   1. L c1", "   2. D e2", "   3. L c3"]
    assert "final position: 1D/3/L1L1/3/2 D" in lines
    assert lines[-1] == "stopped after 3 moves, no result yet"


def test_play_svg_and_start(tmp_path, run_cli):
    path = tmp_path / "final.svg"
    out = run_cli("play", "--start", "1D/3/L1L1/3/2 D", "--seed", "3", "--quiet", "--svg", str(path), code=0).stdout
    assert RESULT_LINE.match(out.strip())
    assert ET.parse(path).getroot().tag == NS + "svg"


def test_play_validates_moves(run_cli):
    proc = run_cli("play", "--board", "2/3", "--moves", "c1,e2,c2")
    assert proc.code == 2
    assert proc.stderr.splitlines() == [
        "meridians: error: move 3 (c2): c2 does not see Light's first stone c1 through an empty point "
        "(rule 2: the second stone must have a path to the first)"
    ]
    assert "Traceback" not in proc.stdout + proc.stderr
    # the legal moves before it were played and shown
    assert proc.stdout.splitlines()[1:] == ["   1. L c1", "   2. D e2"]


# -- perft and bench ----------------------------------------------------------------------------


def test_perft_prints_the_count(run_cli):
    # 2/3: 14 first stones, 14 * 13 replies (hand count; see test_reference.py)
    assert run_cli("perft", "2/3", "1", code=0).stdout == "14\n"
    assert run_cli("perft", "2/3/4/3/2 L", "2", code=0).stdout == "182\n"
    assert run_cli("perft", "2/3", "0", code=0).stdout == "1\n"
    assert run_cli("perft", "2/1D1/4/L1L/2 D", "2", code=0).stdout == "0\n"  # game over


def test_bench_json(run_cli):
    out = run_cli("bench", "--board", "2/3", "--seconds", "0.2", "--json", code=0).stdout
    assert len(out.strip().splitlines()) == 1
    data = json.loads(out)
    assert isinstance(data, dict)
    assert data["board"] == "2/3"
    assert data["playouts_per_s"] > 0 and data["plies_per_s"] > data["playouts_per_s"]
    # a 2/3 game lasts at least 3 plies (two first stones, a second stone)
    assert data["plies_per_s"] >= 3 * data["playouts_per_s"]


def test_bench_text(run_cli):
    out = run_cli("bench", "--board", "1/2", "--seconds", "0.05", code=0).stdout
    assert out.startswith("1/2: ") and "playouts/s" in out
    # on 1/2 every game is two first stones, then Light has no second stone: Dark wins
    assert "Light won 0" in out and "2.0 plies per game" in out


def test_version_and_help(run_cli):
    assert run_cli("--version", code=0).stdout.startswith("meridians ")
    assert "perft" in run_cli("--help", code=0).stdout


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
def test_bad_input(args, fragment, run_cli):
    proc = run_cli(*args)
    assert proc.code == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("meridians: error: ")
    assert fragment in lines[0]
    assert "Traceback" not in proc.stdout + proc.stderr


def test_play_reports_a_repetition(run_cli):
    # tests/test_position.py's recurring position: four lone stones cut one another
    start = "4/5/1L3L/2D2D1/4D3/2DL3/L4L/2D1D/4 L"
    out = run_cli("play", "--start", start, "--moves", "f5,d6,d4,f3", "--seed", "1", code=0).stdout
    lines = out.strip().splitlines()
    assert "   1. L f5  removes d4" in lines and "   4. D f3  removes d6" in lines
    assert f"final position: {start}" in lines
    assert lines[-1] == "draw by repetition after 4 moves"


@pytest.mark.parametrize("sep", ["\t", "\u00a0", "\n"])
def test_show_takes_any_whitespace_between_rows_and_side(sep, run_cli):
    out = run_cli("show", f"2/1D1/4/L2/2{sep}D", code=0).stdout
    assert out.splitlines()[-1] == "legal moves (1): b3"


# -- output files: missing folders are created, the umask is kept, errors name the path ----------


def test_output_options_create_missing_folders(tmp_path, run_cli):
    svg = tmp_path / "new" / "deeper" / "pos.svg"
    run_cli("show", "2/3", "--svg", str(svg), code=0)
    assert ET.parse(svg).getroot().tag == NS + "svg"
    final = tmp_path / "other" / "end.svg"
    run_cli("play", "--board", "1/2", "--seed", "1", "--quiet", "--svg", str(final), code=0)
    assert final.exists()


def test_output_file_keeps_the_umask(tmp_path, run_cli):
    import os

    old = os.umask(0o027)
    try:
        run_cli("show", "2/3", "--svg", str(tmp_path / "a.svg"), code=0)
        os.umask(0o002)
        run_cli("show", "2/3", "--svg", str(tmp_path / "b.svg"), code=0)
    finally:
        os.umask(old)
    assert (tmp_path / "a.svg").stat().st_mode & 0o777 == 0o640  # mkstemp alone gives 0o600
    assert (tmp_path / "b.svg").stat().st_mode & 0o777 == 0o664


def test_output_error_names_the_users_path(tmp_path, run_cli):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    target = blocker / "pos.svg"
    proc = run_cli("show", "2/3", "--svg", str(target))
    assert proc.code == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and str(target) in lines[0], proc.stderr
    assert ".part" not in lines[0] and ".tmp-" not in lines[0]


# -- help: full summaries and examples ---------------------------------------------------------

SOLVER_COMMANDS = ["show", "play", "perft", "solve", "verify", "bench"]


def test_help_lists_whole_sentences(run_cli):
    listing = run_cli("--help", code=0).stdout.split("Commands:", 1)[1]
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
def test_help_ends_with_examples(command, run_cli):
    text = run_cli(command, "--help", code=0).stdout
    body = text.split("Options:", 1)[0].rstrip().splitlines()
    at = max(i for i, line in enumerate(body) if line.strip() == "Examples:")
    examples = [line.strip() for line in body[at + 1:]]
    assert 1 <= len(examples) <= 2
    for example in examples:
        assert example.startswith(f"meridians {command} ")  # as written, one a line (click's \b)


# -- solve: exit codes, resuming, the scheduler address -----------------------------------------


def test_solve_exits_3_when_the_value_is_not_decided(tmp_path, run_cli):
    ck = tmp_path / "ck.json"
    result = run_cli("solve", "2/3", "--max-nodes", "20", "--checkpoint", ck, code=3)
    assert result.stdout.splitlines()[0] == "2/3/4/3/2 L: Light to move: unknown"
    assert "exit code 3" in result.stderr
    result = run_cli("solve", "2/3", "--max-nodes", "20", "--checkpoint", ck, "--json", code=3)
    assert json.loads(result.stdout)["value"] == "unknown"
    # decided: exit 0, the unknown classes run again from the checkpoint
    result = run_cli("solve", "2/3", "--checkpoint", ck, "--json", code=0)
    assert json.loads(result.stdout)["value"] == "win"


def test_solve_help_documents_exit_code_3(run_cli):
    text = " ".join(run_cli("solve", "--help", code=0).stdout.split())
    assert "3 when it is not" in text


def test_solve_summary_names_the_checkpoint_it_resumed_from(tmp_path, monkeypatch, run_cli, state_folder):
    monkeypatch.chdir(tmp_path)
    kept = tmp_path / "kept.json"
    run_cli("solve", "2/3", "--checkpoint", str(kept), code=0)
    data = json.loads(kept.read_text())
    first = sorted(data["results"])[0]
    data["results"][first]["value"] = "unknown"  # one class to run again, four to resume
    default = state_folder / "solve-2-3-dfpn.json"  # the default checkpoint: in the state folder
    default.parent.mkdir(parents=True, exist_ok=True)
    default.write_text(json.dumps(data))
    out = run_cli("solve", "2/3", code=0).stdout
    summary = next(line for line in out.splitlines() if " classes by dfpn: " in line)
    assert summary.endswith(f", 4 resumed from {default}"), summary
    assert not (tmp_path / ".meridians").exists()  # nothing in the current folder any more
    assert "None" not in out
    assert not default.exists()  # every class decided: the default checkpoint is removed


@pytest.mark.parametrize("address", ["garbage", "tcp://", "tcp://host", "host:99999", "tcp://host:port",
                                     "http://x:1", "tcp://a b:8786", "", "tcp://host:8786/path"])
def test_solve_refuses_a_malformed_scheduler_at_once(address, run_cli):
    import time

    t0 = time.perf_counter()
    proc = run_cli("solve", "2/3", "--backend", "dask", "--scheduler", address)
    assert time.perf_counter() - t0 < 15  # distributed took 20 s to time out, then a traceback
    assert proc.code == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "--scheduler" in lines[0], proc.stderr


def test_scheduler_address_forms():
    from solver.jobs.workers import SCHEDULER_ADDRESS as _SCHEDULER  # the one rule, which the CLI uses

    for good in ["tcp://10.0.0.5:8786", "10.0.0.5:8786", "tls://sched.example.org:8786", "tcp://[::1]:8786",
                 "ws://localhost:8787"]:
        assert _SCHEDULER.match(good), good
    for bad in ["garbage", "tcp://host", ":8786", "tcp://host:", "tcp//host:8786"]:
        assert not _SCHEDULER.match(bad), bad


@pytest.mark.parametrize("args,fragment", [
    (["--time", "nan"], "--time nan"),        # every class silently unknown, exit 0
    (["--time", "inf"], "--time inf"),
    (["--time", "-1"], "--time -1"),
    (["--tt-mb", "nan"], "--tt-mb nan"),      # cannot convert float NaN to integer
    (["--tt-mb", "inf"], "--tt-mb inf"),
    (["--tt-mb", "1e9"], "does not fit"),     # MemoryError late, exit 1
    (["--max-nodes", "-1"], "--max-nodes -1"),
    (["--max-nodes", "9" * 40], "--max-nodes of 40 digits"),
])
def test_solve_bad_budgets(args, fragment, tmp_path, run_cli):
    proc = run_cli("solve", "2/3", "--checkpoint", str(tmp_path / "ck.json"), *args)
    assert proc.code == 2 and proc.stdout == "", proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and fragment in lines[0], proc.stderr
    assert not (tmp_path / "ck.json").exists()


def test_solve_tables_of_all_jobs_must_fit(monkeypatch, tmp_path, run_cli):
    import solver.search.limit

    monkeypatch.setattr(solver.search.limit, "available_memory_mb", lambda: 1000.0)
    result = run_cli("solve", "2/3", "--tt-mb", "600", "--jobs", "2", "--checkpoint", tmp_path / "ck.json", code=2)
    assert "--tt-mb 600: a table of 600 MiB each for 2 processes does not fit in the 1,000 MiB" in result.stderr
    # the default table (16 MiB on 2/3) is checked too
    monkeypatch.setattr(solver.search.limit, "available_memory_mb", lambda: 10.0)
    result = run_cli("solve", "2/3", "--checkpoint", tmp_path / "ck.json", code=2)
    assert "--tt-mb 16: " in result.stderr


def test_diagram_labels_every_column_on_6_7(run_cli):
    lines = run_cli("show", "6/7", code=0).stdout.splitlines()
    rows = {line[2]: line for line in lines[1:14]}
    assert lines[0].split() == ["1", "2", "3", "4", "5", "6"] == lines[14].split()
    # the columns beyond the top and bottom rows' six: where their diagonals leave the board
    right = {letter: line.split()[-2] for letter, line in rows.items() if line.split()[-2].isdigit()}
    assert right == {"m": "7", "l": "8", "k": "9", "j": "10", "i": "11", "h": "12",
                     "f": "12", "e": "11", "d": "10", "c": "9", "b": "8", "a": "7"}
    assert set().union(*(range(1, 7), map(int, right.values()))) == set(range(1, 13))
    # each number stands where the next point of its column's diagonal would be
    # (up and right of g12 on h's line, down and right of it on f's; up and right of l7
    # on m's line)
    g12 = rows["g"].rindex(".")
    assert rows["h"].index(" 12 ") + 1 == g12 + 1 == rows["f"].index(" 12 ") + 1
    assert rows["m"].index(" 7 ") + 1 == rows["l"].rindex(".") + 1
    assert lines[15].startswith("L Light, D Dark, . empty;")
    assert lines[16] == "Light to move"


@pytest.mark.parametrize("error,fragment", [
    (RecursionError("maximum recursion depth exceeded"), "nested too deeply"),
    (MemoryError(), "out of memory"),
    (EOFError("Compressed file ended before the end-of-stream marker was reached"), "truncated"),
    (__import__("zlib").error("invalid distance too far back"), "invalid distance too far back"),
    (OSError(13, "Permission denied", "/some/where.svg"), "/some/where.svg: Permission denied"),
    (ValueError("first line\nsecond line"), "first line second line"),
])
def test_main_turns_the_last_resort_errors_into_one_line(monkeypatch, run_cli, error, fragment):
    import solver.app.verify

    def broken(text, board):
        raise error

    monkeypatch.setattr(solver.app.verify, "start_position", broken)
    lines = run_cli("show", "2/3", code=2).stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("meridians: error: ") and fragment in lines[0], lines


@pytest.mark.slow  # 11 s: distributed's connect timeout
def test_solve_with_an_unreachable_scheduler_is_one_line(tmp_path, run_cli):
    pytest.importorskip("distributed")
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = run_cli("solve", "2/3", "--backend", "dask", "--scheduler", f"tcp://127.0.0.1:{port}",
               "--checkpoint", str(tmp_path / "ck.json"))
    assert proc.code == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}" in lines[0], proc.stderr
