"""What the ``meridians`` commands share: the command group's class, the one-line
errors, the checked position and budget arguments, tables, game records read, the
command line for provenance stamps.  Light imports only: ``meridians --help`` imports
this module and every family module of commands.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from solver.rules.board import Board
from solver.util.files import FileFormatError
from solver.search.limit import Limit, LimitError

if TYPE_CHECKING:
    from solver.rules.position import Position

EXIT_USAGE = 2
#: exit code of ``solve`` and ``verify`` when the asked value is not decided
EXIT_UNKNOWN = 3


def _fail(message: str) -> None:
    click.echo(f"meridians: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def _position_arg(text: str) -> Position:
    """A position in notation, or a board name for its empty start position."""
    from solver.app.verify import start_position

    return start_position(text, None)


def _limit(**values) -> Limit:
    """The checked budget of a command's options; one line and exit 2 when one is bad."""
    try:
        return Limit(**values)
    except LimitError as e:
        _fail(str(e))


class _Group(click.Group):
    """The command group, listing each command's whole first sentence (click cuts it at
    the terminal width less the names, mid-sentence), wrapped over lines if need be."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=200)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    # Commands that installed packages register in the entry-point group
    # ``meridians.commands`` (``puzzles = "puzzles.cli:puzzles"``) extend this group
    # without this package ever importing them; each is loaded only when it is named
    # (or the command list is shown), so that ``meridians check`` never loads the
    # compiled core that ``puzzles`` needs.
    def _plugins(self) -> dict:
        from importlib.metadata import entry_points

        if self._entry_points is None:  # read once: a scan of every installed package (30-40 ms)
            self._entry_points = list(entry_points(group="meridians.commands"))
        return {ep.name: ep for ep in self._entry_points if ep.name not in self.commands}

    _entry_points: list | None = None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._plugins()))

    def get_command(self, ctx: click.Context, name: str):
        command = super().get_command(ctx, name)  # a built-in command wins over a plugin
        if command is not None:
            return command
        ep = self._plugins().get(name)
        if ep is None:
            return None
        try:
            command = ep.load()
        except Exception as e:  # a broken plugin must not take the solver's commands down with it
            click.echo(f"meridians: warning: command {ep.name!r} ({ep.value}) not loaded: {e}", err=True)
            return None
        self.add_command(command, name)
        return command

    def invoke(self, ctx: click.Context):
        # click turns an EOFError into Abort, "interrupted" and exit 130, after an empty
        # line; here it comes from truncated compressed data (a last resort: the readers
        # of solver.util.files name the file)
        try:
            return super().invoke(ctx)
        except EOFError as e:
            raise ValueError(f"truncated compressed data ({e})") from None


_COLOUR = {"L": "Light", "D": "Dark"}


def _echo_table(columns: list[tuple], rows: list[tuple], indent: str = "  ") -> None:
    """A table on stdout, its columns sized by rich to their widest cell.  ``columns``:
    ``(header, justify)`` or ``(header, justify, max_width)`` (a longer cell is cut with
    an ellipsis).  On a terminal: its width (the last column wraps when it must), the
    header bold (NO_COLOR, which rich reads, keeps colour out); elsewhere plain text, never wrapped and without trailing
    spaces, one row a line, as scripts and tests read it."""
    import io
    import shutil

    from rich.console import Console
    from rich.table import Table

    tty = sys.stdout.isatty()
    buf = io.StringIO()
    width = shutil.get_terminal_size((80, 24)).columns if tty else 100_000
    console = Console(file=buf, width=max(20, width - len(indent)), force_terminal=tty,
                      color_system="auto" if tty else None, highlight=False, soft_wrap=False)
    t = Table(box=None, pad_edge=False, show_edge=False, padding=(0, 1, 0, 0),
              header_style="bold" if tty else None)
    for i, (header, justify, *most) in enumerate(columns):
        last = i == len(columns) - 1  # on a narrow terminal the last column wraps, not the others
        t.add_column(header, justify=justify, no_wrap=not last, overflow="fold" if last else "ellipsis",
                     max_width=most[0] if most else None)
    for row in rows:
        t.add_row(*(str(c) for c in row))
    console.print(t, markup=False)
    for line in buf.getvalue().splitlines():
        click.echo(indent + line.rstrip())


# -- game records: read by show, verify and analyse ------------------------------------


def _read_game_record(path: str, position: str | None = None, board_name: str | None = None):
    """The :class:`~solver.rules.record.GameRecord` in ``path`` (new or old format, gzip too);
    a record naming no start starts from ``position`` (else the empty ``board_name``,
    default 6/7).  One line and exit 2 for anything wrong, naming the file and line."""
    from solver.util.files import read_text
    from solver.rules.record import RecordError, parse_record

    try:
        text = read_text(path, "game record")
    except FileFormatError as e:
        _fail(str(e))
    default = None
    if position is not None:
        try:
            default = _position_arg(position)
        except ValueError as e:
            _fail(str(e))
    try:
        record = parse_record(text, default_board=board_name or "6/7", default_start=default)
    except (RecordError, ValueError) as e:
        _fail(f"{path}: {e}")
    if position is not None and record.named_start:
        _fail(f"{path} gives its start position; give no POSITION")
    if board_name is not None and record.named_start and record.board != Board.parse(board_name):
        _fail(f"{path} is a game on board {record.board.name}, not --board {board_name}")
    return record


#: the arguments :func:`solver.cli.main` was called with, for the provenance stamp of what a
#: command writes (None: the command group was invoked another way, as by a test)
_ARGV: list[str] | None = None


def _command_line() -> str:
    """The command being run, as the provenance stamp of a file it writes names it."""
    import shlex

    if _ARGV is not None:
        return shlex.join(["meridians", *_ARGV])
    ctx = click.get_current_context(silent=True)
    return ctx.command_path if ctx is not None else "meridians"
