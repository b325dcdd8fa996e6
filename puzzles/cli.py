"""``meridians puzzles``: the capture-in-N puzzle commands.

The group is added to the ``meridians`` command through the entry-point group
``meridians.commands`` (see pyproject.toml), so that :mod:`solver` never imports this
package.  Like the rest of ``meridians``, every error the user can cause (a bad record,
an unknown id, an unreadable file) ends in one line ``meridians: error: ...`` on stderr
and exit code 2, never a traceback.

To add a command, append a function decorated with ``@puzzles.command()`` below the
others; use :func:`fail` for user errors and :func:`load_ref` / :func:`load_files` to
read puzzles.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from solver.files import write_atomic

from .record import Puzzle, PuzzleFormatError, default_search_files, load_jsonl, parse_puzzle_ref

EXIT_USAGE = 2


def fail(message: str) -> NoReturn:
    """One line on stderr and exit code 2 (the same form as ``solver.cli``)."""
    click.echo(f"meridians: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def load_ref(ref: str, files: tuple[str, ...] = ()) -> Puzzle:
    """The puzzle given on the command line: an EPD line, a JSON object, or an id looked
    up in ``files`` (default ``results/puzzles/*.jsonl``)."""
    try:
        return parse_puzzle_ref(ref, list(files) if files else default_search_files())
    except (ValueError, OSError) as e:  # PuzzleFormatError is a ValueError
        fail(str(e))


def load_files(files: tuple[str, ...]) -> list[Puzzle]:
    """Every puzzle of the JSON-lines files, validated; ids must be unique across them."""
    out: list[Puzzle] = []
    seen: dict[str, str] = {}
    for f in files:
        try:
            ps = load_jsonl(f)
        except PuzzleFormatError as e:
            fail(str(e))
        except OSError as e:
            fail(f"cannot read {f}: {e.strerror or e}")
        for p in ps:
            if p.id in seen:
                fail(f"id {p.id} is in both {seen[p.id]} and {f}")
            seen[p.id] = f
        out.extend(ps)
    return out


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def puzzles() -> None:
    """Capture-in-N puzzles: generate, audit, show, book."""


@puzzles.command()
@click.argument("ref", metavar="ID|LINE")
@click.option("--file", "-f", "files", multiple=True, type=click.Path(dir_okay=False),
              help="Look ids up in this JSON-lines file (repeatable; default results/puzzles/*.jsonl).")
@click.option("--solution", is_flag=True, help="Also print the key and the line.")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False), help="Also write an SVG picture here.")
def show(ref: str, files: tuple[str, ...], solution: bool, svg_file: str | None) -> None:
    """Show a puzzle: ID (looked up in the puzzle files), an EPD line such as
    '2/1D1/4/L2/2 L cm 1; tg d2; bm b3; id "x";', or a JSON record."""
    p = load_ref(ref, files)
    pos = p.to_position()
    click.echo(f"{p.id}: {p.task()}")
    click.echo(pos.diagram())
    group = sorted(p.target_group())
    click.echo(f"target group ({len(group)}): {' '.join(group)}")
    if solution:
        click.echo(f"key: {p.key if p.key is not None else 'not recorded'}")
        if p.line:
            click.echo(f"line: {p.solution_text()}")
    if svg_file:
        try:
            write_atomic(svg_file, pos.svg(marks=[p.target], title=p.task()))
        except OSError as e:
            fail(f"cannot write {svg_file}: {e.strerror or e}")
        click.echo(f"wrote {svg_file}")


@puzzles.command()
@click.argument("files", metavar="FILE...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder of the book; index.html is written there.")
@click.option("--title", default=None, help="Title of the page.")
def book(files: tuple[str, ...], out_dir: str, title: str | None) -> None:
    """Write a puzzle book: one self-contained index.html (inline SVG, CSS and script)
    with every puzzle of the JSON-lines FILEs and each solution behind a button."""
    from .book import DEFAULT_TITLE, write_book

    ps = load_files(files)
    if not ps:
        fail(f"no puzzles in {', '.join(files)}")
    try:
        path = write_book(ps, out_dir, title=title or DEFAULT_TITLE)
    except OSError as e:
        fail(f"cannot write the book in {out_dir}: {e.strerror or e}")
    click.echo(f"wrote {path} ({len(ps)} puzzle{'' if len(ps) == 1 else 's'})")


def main(argv: list[str] | None = None) -> None:
    """Run the group on its own (``python -m puzzles.cli``); ``meridians puzzles`` is the
    usual way in."""
    try:
        code = puzzles.main(args=argv, prog_name="meridians puzzles", standalone_mode=False)
    except click.ClickException as e:
        fail(e.format_message())
    except click.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
