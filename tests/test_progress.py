"""solver/jobs/progress.py: the live displays (drawn by rich) on a terminal, the plain
lines elsewhere, NO_COLOR; and the plain tables of the command's text output."""

from __future__ import annotations

import io
import re

import pytest

from solver.jobs.runner import Job, JobResult
from solver.jobs.progress import Progress, StatusLine, counter_line, progress_mode

#: an SGR sequence that sets a colour (foreground or background, 8, 16, 256 or 24-bit)
COLOUR_SGR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m")
ESC = "\x1b"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


JOBS = [Job("a1", "2/3/4/3/2 L", ("a1", "a2", "e1", "e2"), "move"), Job("c1", "2/3/4/3/2 L", ("c1", "c4"), "move")]


def _run(stream) -> str:
    ui = Progress(progress_mode(True, stream), JOBS, stream, None, "t", None)
    ui.start()
    try:
        ui.message("meridians: a message")
        ui.begin(JOBS[0])
        ui.update("a1", {"nodes": 1234, "seconds": 0.5})
        ui.message("meridians: another")  # redraws the table under it, with the running job
        r = JobResult("a1", JOBS[0].position, JOBS[0].members, value="loss", nodes=1234, seconds=0.5, runs=1,
                      view="move")
        ui.end(r, {"nodes": 1234, "seconds": 0.5})
    finally:
        ui.close()
    return stream.getvalue()


def test_live_table_on_a_terminal_is_drawn_then_rubbed_out(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    text = _run(Terminal())
    assert "meridians: a message\n" in text and "meridians: another\n" in text
    assert "[1/2] job a1 (a1 a2 e1 e2): win, 1,234 nodes in 0.50 s (2.5 k nodes/s)\n" in text
    assert re.search(r"a1 +a1 a2 e1 e2 +(\x1b\[[0-9;]*m)*running", text)  # the running job's row
    assert "0/2 jobs done" in text and "1/2 jobs done (win 1; 0 resumed)" in text
    assert COLOUR_SGR.search(text)  # the control of the NO_COLOR test: colour is used
    # the cursor is hidden while the table is up, shown again, and the table erased at the end
    assert text.startswith(f"{ESC}[?25l") and f"{ESC}[?25h" in text
    assert text.endswith(f"{ESC}[2K") or text.rstrip(f"{ESC}[0m").endswith(f"{ESC}[2K")


def test_no_color_keeps_colour_out_of_the_live_table(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    text = _run(Terminal())
    assert "running" in text and "1/2 jobs done" in text
    assert not COLOUR_SGR.search(text), text


def test_lines_elsewhere_are_the_plain_lines():
    text = _run(io.StringIO())
    assert ESC not in text
    assert text.splitlines() == ["meridians: a message", "meridians: another",
                                 "[1/2] job a1 (a1 a2 e1 e2): win, 1,234 nodes in 0.50 s (2.5 k nodes/s)"]


def test_counter_line_is_rewritten_in_place_on_a_terminal_and_one_line_each_elsewhere():
    term, log = Terminal(), io.StringIO()
    for stream in (term, log):
        counter_line("1/3 done", stream)
        counter_line("2/3 done", stream)
        counter_line("3/3 done", stream, done=True)
    assert term.getvalue() == "\r1/3 done\r2/3 done\r3/3 done\n"
    assert log.getvalue() == "1/3 done\n2/3 done\n3/3 done\n"


def test_status_line_redraws_in_place_cuts_to_the_width_and_rubs_out(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    stream = Terminal()
    s = StatusLine(stream)
    s.show("first")
    s.show("x" * 100)
    s.show("7 of 10 games", 7, 10)
    s.close()
    s.close()  # closing twice is harmless (callers close in finally)
    text = stream.getvalue()
    assert "first" in text and "7 of 10 games" in text
    assert "x" * 100 not in text and "…" in text  # cut to the terminal's 40 columns
    assert "━" in text  # the bar
    assert f"{ESC}[?25h" in text and text.count("\n") <= 4  # no line left behind but the last erase's
    assert StatusLine(io.StringIO()).close() is None  # never shown: nothing written


@pytest.mark.parametrize("tty", [False, True])
def test_cli_tables_are_aligned_never_wrapped_and_plain_off_a_terminal(tty, monkeypatch, capsys):
    import sys

    from solver.cli.common import _echo_table

    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty, raising=False)
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.setenv("NO_COLOR", "1")
    long = "word " * 40
    _echo_table([("class", "left"), ("members", "left", 10), ("nodes", "right"), ("note", "left")],
                [("a1", "a1 a2 e1 e2 b1 b2", "4,690", "short"), ("c1", "c1", "12,345,678", long.strip())])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 or tty and len(lines) > 3  # a terminal wraps the last column
    assert all(line.startswith("  ") for line in lines)
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in lines]
    assert plain[0].split() == ["class", "members", "nodes", "note"]
    # right-justified numbers end in the same column
    assert plain[1].index("4,690") + 5 == plain[2].index("12,345,678") + 10
    assert "a1 a2 e1 …" in plain[1]  # members cut at 10 columns
    if tty:
        assert all(len(line) <= 60 for line in plain)
        assert not any(COLOUR_SGR.search(line) for line in lines)
    else:
        assert ESC not in "".join(lines) and plain[2].endswith(long.strip())  # no wrap, no trailing space


@pytest.mark.subprocess
def test_ctrl_c_on_a_terminal_stops_the_live_table_cleanly(tmp_path, tree_env):
    """``solve`` on a pseudo-terminal draws the live table; Ctrl-C typed there ends it with
    exit 130, the cursor shown again and no traceback."""
    from test_interactive import Terminal

    from test_jobs import LATE_34

    term = Terminal(["solve", LATE_34, "--method", "alphabeta", "--tt-mb", "16", "--checkpoint", "ck.json"],
                    {**tree_env, "COLUMNS": "100"}, tmp_path)
    try:
        term.expect(r"jobs done", timeout=120)  # the live table is up (six classes take ms, d3 seconds)
        term.type("\x03")
        code, rest = term.end()
    finally:
        term.kill()
    assert code == 130, rest
    assert f"{ESC}[?25h" in rest and "Traceback" not in rest and "ck.json" in rest
