"""``meridians puzzles``: the capture-in-N puzzle commands.

The group is added to the ``meridians`` command through the entry-point group
``meridians.commands`` (see pyproject.toml), so that :mod:`solver` never imports this
package.  Like the rest of ``meridians``, every error the user can cause (a bad record,
an unknown id, an unreadable file, an option out of range) ends in one line
``meridians: error: ...`` on stderr and exit code 2, never a traceback; ``generate``
exits 3 when it finds nothing within its budget.

To add a command, append a function decorated with ``@puzzles.command()`` below the
others; use :func:`fail` for user errors and :func:`load_ref` / :func:`load_files` to
read puzzles.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, NoReturn

import click

from solver import Interrupted, MeridiansError
from solver.util.files import interrupt_on_sigterm, write_atomic
from solver.search.limit import MAX_CAPTURE_N as MAX_N

# light modules only: the group is loaded to list its commands (meridians --help), and the
# records, generators and searches (numpy, numba) are imported by the commands that run them
from .options import (GIVE_UP_AFTER, MAX_COUNT, MAX_JOBS, MAX_PLAYOUTS, METHODS, PARENT_ORDERS, SELFPLAY_PLAYOUTS,
                      SOURCE_KINDS)

if TYPE_CHECKING:
    from .record import Puzzle

#: the format and version of ``audit --json``'s lines (their ``"schema"`` key); its JSON Schema is
#: puzzles/schema/audit.schema.json (see solver/app/schema/__init__.py for the other commands)
AUDIT_SCHEMA = "meridians.puzzles-audit/1"

EXIT_USAGE = 2
#: ``puzzles generate`` found nothing within its budget
EXIT_NOTHING_FOUND = 3


def fail(message: str) -> NoReturn:
    """One line on stderr and exit code 2 (the same form as ``solver.cli``)."""
    click.echo(f"meridians: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def load_ref(ref: str, files: tuple[str, ...] = ()) -> Puzzle:
    """The puzzle given on the command line: an EPD line, a JSON object, or an id looked
    up in ``files`` (default the committed sets beside the installed package)."""
    from .record import default_search_files, parse_puzzle_ref

    try:
        return parse_puzzle_ref(ref, list(files) if files else default_search_files())
    except (ValueError, OSError) as e:  # PuzzleFormatError is a ValueError
        fail(str(e))


def load_files(files: tuple[str, ...]) -> list[Puzzle]:
    """Every puzzle of the JSON-lines files, validated; ids must be unique across them."""
    from .record import PuzzleFormatError, load_jsonl

    out: list[Puzzle] = []
    seen: dict[str, str] = {}
    for f in files:
        try:
            ps = load_jsonl(f)
        except PuzzleFormatError as e:  # it names the file (and the line)
            fail(str(e))
        if not ps:
            fail(f"{f}: no puzzles in the file")
        for p in ps:
            if p.id in seen:
                fail(f"id {p.id} is in both {seen[p.id]} and {f}")
            seen[p.id] = f
        out.extend(ps)
    return out


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def puzzles() -> None:
    """Capture-in-N puzzles: generate, audit, show, book."""


@puzzles.command(short_help="A puzzle: diagram and task; key, line, last moves and themes with --solution.")
@click.argument("ref", metavar="ID|LINE")
@click.option("--file", "-f", "files", multiple=True, type=click.Path(dir_okay=False),
              help="Look ids up in this JSON-lines file (repeatable; default the committed sets, "
                   "results/puzzles/*.jsonl of the installed package).")
@click.option("--solution", is_flag=True, help="Also print the key, the line, the last moves that capture and the "
                                               "themes (when recorded).")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False), help="Also write an SVG picture here.")
def show(ref: str, files: tuple[str, ...], solution: bool, svg_file: str | None) -> None:
    """Show a puzzle: ID (looked up in the committed sets, or in -f FILE), an EPD line
    such as '2/1D1/4/L2/2 L cm 1; tg d2; bm b3; id "x";', or a JSON record.

    \b
    Examples:
      meridians puzzles show m67-c2-0001 --solution
      meridians puzzles show m45-c1-0003 -f mine.jsonl --svg p.svg"""
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
        if p.last_moves is not None:  # issue 36: any move that captures counts at the last turn
            many = len(p.last_moves) > 1
            click.echo(f"last move: {'any that captures: ' if many else ''}{' '.join(p.last_moves) or 'none'}"
                       f"{'' if many else ' (the only move that captures)'}")
            click.echo("dual-free: one winning move at every turn before the last" if p.dual_free
                       else "with duals: another move also wins at some turn before the last")
        if p.themes is not None:
            click.echo(f"themes: {', '.join(p.themes) or 'none'}")
    if svg_file:
        try:
            write_atomic(svg_file, pos.svg(marks=[p.target], title=p.task()))
        except OSError as e:
            fail(f"cannot write {svg_file}: {e.strerror or e}")
        click.echo(f"wrote {svg_file}")


@puzzles.command(short_help="An HTML puzzle book of the files.")
@click.argument("files", metavar="FILE...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder of the book; index.html is written there.")
@click.option("--title", default=None, help="Title of the page.")
def book(files: tuple[str, ...], out_dir: str, title: str | None) -> None:
    """Write a puzzle book: one self-contained index.html (inline CSS and script, no
    network) with every puzzle of the JSON-lines FILEs, 20 a page, filters by N, theme
    and rating; solve by clicking points (right / wrong, the defender answers) and step
    through the whole line.

    \b
    Examples:
      meridians puzzles book results/puzzles/6-7-c2.jsonl --out book/"""
    from .book import DEFAULT_TITLE, write_book

    ps = load_files(files)
    if not ps:
        fail(f"no puzzles in {', '.join(files)}")
    try:
        path = write_book(ps, out_dir, title=title or DEFAULT_TITLE)
    except OSError as e:
        fail(f"cannot write the book in {out_dir}: {e.strerror or e}")
    click.echo(f"wrote {path} ({len(ps)} puzzle{'' if len(ps) == 1 else 's'})")


@puzzles.command(short_help="Sound capture-in-N puzzles, proven by the verifier.", epilog="""\b
Exit status: 0 when OUT holds COUNT puzzles; 2 for bad input (an option out of range,
an OUT that is not this run's, an unreadable state file); 3 when nothing was found
within the budget (--give-up-after seed positions in a row without a new puzzle: what
was found is kept, and the same command resumes); 130 when interrupted.

\b
Examples:
  meridians puzzles generate --board 4/5 --n 2 --count 10
  meridians puzzles generate --board 6/7 --n 3 --count 50 --jobs 2 --out mine-c3.jsonl
  meridians puzzles generate --board 6/7 --n 2 --count 20 --source selfplay --playouts 500
  meridians puzzles generate --board 4/5 --n 1 --count 5 --source records games/
  meridians puzzles generate --board 7/8 --n 5 --method extend --source parents 7-8-c4.jsonl
  meridians puzzles generate --board 7/8 --n 6 --method extend --source parents 7-8-c5.jsonl --order nodes""")
@click.option("--board", "board_name", default="6/7", show_default=True, help="Board, such as 6/7.")
@click.option("--n", "n", type=click.IntRange(1, MAX_N), required=True, help="Capture in this many moves.")
@click.option("--count", type=click.IntRange(1, MAX_COUNT), default=100, show_default=True,
              help="Puzzles the file should hold.")
@click.option("--method", type=click.Choice(METHODS), default="sat", show_default=True,
              help="sat: reshape game positions with MaxSAT; baseline: game positions as they are; "
                   "extend: change sat's (n-1)-movers (or those of --source parents) in one point.")
@click.option("--jobs", type=click.IntRange(1, MAX_JOBS), default=1, show_default=True, help="Worker processes.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True,
              help="Seed of the games (a run is reproducible).")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
              help="JSON-lines file (default <board>-c<n>.jsonl in the current folder); resumes "
                   "from OUT.state.json.")
@click.option("--force", is_flag=True,
              help="Write over OUT even if it is not this run's (another file, or another run's).")
@click.option("--grow", is_flag=True,
              help="Grow OUT though another run of its board and n made it (another method, seed or "
                   "source): its puzzles are kept, and its state records that run as an earlier one.")
@click.option("--give-up-after", type=click.IntRange(1, MAX_COUNT), default=GIVE_UP_AFTER, show_default=True,
              help="Stop (exit 3) after this many seed games in a row without a new puzzle.")
@click.option("--source", "source", nargs=1, default="random", show_default=True,
              metavar="|".join(SOURCE_KINDS),
              help="Seed games: random (seeded random games, one position each), selfplay (the engine "
                   "against itself, --playouts a move), records (the game records *.txt of the folder DIR, "
                   "given after the word: --source records DIR); or, for --method extend, parents (the "
                   "(n-1)-movers of the puzzle file FILE: --source parents FILE).")
@click.option("--playouts", type=click.IntRange(1, MAX_PLAYOUTS), default=SELFPLAY_PLAYOUTS, show_default=True,
              help="The engine's playouts a move in self-play seed games.")
@click.option("--order", type=click.Choice(PARENT_ORDERS), default="file", show_default=True,
              help="With --source parents: take the parents in file order, or those whose proof took "
                   "the fewest verifier nodes first (nodes: they give more puzzles).")
@click.argument("place", metavar="[DIR|FILE]", required=False, default=None)
def generate(board_name: str, n: int, count: int, method: str, jobs: int, seed: int, out: str | None,
             force: bool, grow: bool, give_up_after: int, source: str, playouts: int, order: str,
             place: str | None) -> None:
    """Generate sound capture-in-N puzzles (every one proven by the exact verifier);
    DIR is the folder of game records of --source records, FILE the puzzles of --source
    parents."""
    import time

    from solver import Board
    from solver.jobs.progress import counter_line

    from .generate import NothingFound
    from .generate import generate as run

    try:
        board = Board.parse(board_name)
    except ValueError as e:
        fail(str(e))
    if source not in SOURCE_KINDS:
        fail(f"--source must be random, selfplay, records DIR or parents FILE, not {source!r}")
    if source == "records" and place is None:
        fail("--source records needs the folder of game records: --source records DIR")
    if source == "parents" and place is None:
        fail("--source parents needs the file of (n-1)-movers: --source parents FILE")
    if source not in ("records", "parents") and place is not None:
        fail(f"unexpected argument {place!r} (a folder or file is given only with --source records "
             "or parents)")
    out = out or f"{board.name.replace('/', '-')}-c{n}.jsonl"
    units = "parents" if source == "parents" else "seed games"  # what a unit is
    t0 = time.monotonic()
    tty = sys.stderr.isatty()

    def progress(st: dict) -> None:
        # the dual-free ones: only they are kept
        rate = st["found_dual_free"] / st["cpu_seconds"] * 60 if st["cpu_seconds"] else 0.0
        line = (f"{st['kept']}/{count} kept, {st['found']} found ({st['found_dual_free']} dual-free) "
                f"from {st['candidates']} candidates in {st['units']} {units} "
                f"({st['near_duplicates']} near-duplicates refused); "
                f"{rate:.2f} dual-free a CPU-minute, {time.monotonic() - t0:.0f} s")
        counter_line(line)

    interrupt_on_sigterm()  # a kill stops the workers too, as Ctrl-C does
    try:
        st = run(board.name, n, count, out, method=method, jobs=jobs, seed=seed, progress=progress,
                 force=force, grow=grow, give_up_after=give_up_after, source=source, playouts=playouts,
                 records=place if source == "records" else None,
                 parents=place if source == "parents" else None, order=order)
    except KeyboardInterrupt:
        kept = (f"what was found is in {out}; the same command resumes" if os.path.exists(out) else
                f"stopped before its first batch of {units} was done: nothing was kept")
        click.echo(f"\ninterrupted: {kept}", err=True)
        sys.exit(130)
    except Interrupted as e:
        click.echo(("\n" if tty else "") + f"meridians: stopped: {e}", err=True)
        sys.exit(130)
    except NothingFound as e:
        if tty:
            click.echo("", err=True)
        click.echo(f"meridians: stopped: {e}", err=True)
        sys.exit(EXIT_NOTHING_FOUND)
    except (ValueError, OSError) as e:
        fail(str(e))
    if tty and st["added"]:
        click.echo("", err=True)
    if st["added"] == 0:
        click.echo(f"{out} already holds {st['kept']} puzzles (asked {count}): none added")
    else:
        click.echo(f"wrote {out}: {st['kept']} puzzles, {st['added']} added ({st['found']} found in all, "
                   f"{st['cpu_seconds']:.1f} CPU seconds)")


@puzzles.command(short_help="Re-verify every puzzle: cooks, shorter solutions, keys.")
@click.argument("files", metavar="FILE...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per puzzle.")
@click.option("--max-nodes", type=click.IntRange(0, 2**62), default=0, show_default=True,
              help="Node budget of each verification (0: none).")
def audit(files: tuple[str, ...], as_json: bool, max_nodes: int) -> None:
    """Re-verify every puzzle: list cooks (more than one key), shorter solutions, wrong
    or missing keys and duals, and recompute the themes of a record that lists them.
    The recorded line (else the verifier's main line) must give the attacker only
    moves: at every turn but the last exactly one move keeps the capture within the
    moves left (a second one is a dual, named with its turn), at the last turn the
    recorded last_moves are every move that captures, and each defender move is a
    longest defence.  A line whose last reply is written "any" must lose the target
    after every legal reply there.  Exit 0 when every puzzle is sound with its
    recorded key and dual-free (and themes, last moves and "any" hold), 1 otherwise,
    2 for a file that cannot be read or holds a bad record.

    \b
    Examples:
      meridians puzzles audit results/puzzles/4-5-c2.jsonl
      meridians puzzles audit --json --max-nodes 1000000 mine-c3.jsonl"""
    import json

    from solver.search.limit import Limit

    from .record import ANY
    from .themes import ThemeError, themes
    from .verdict import CaptureError, any_escapes, check_line, turn_name, verify

    ps = load_files(files)
    limit = Limit(nodes=max_nodes)  # checked by the option's range already
    bad = 0
    for p in ps:
        pos = p.to_position()
        try:
            # the recorded line is checked as it is; without one, the verifier's main line
            v = verify(pos, p.target, p.n, limit=limit, line=not p.line)
            lc = check_line(pos, p.target, p.n, p.line, limit=limit) if p.line else None
        except CaptureError as e:  # a validated record poses its question: a guard only
            fail(f"puzzle {p.id}: {e}")
        line = list(p.line) if p.line else list(v.line)
        duals, last = (lc.duals, lc.last_moves) if lc is not None else (v.duals, v.last_moves)
        complete = v.complete and (lc is None or lc.complete)
        nodes = v.nodes + (lc.nodes if lc is not None else 0)
        free = complete and bool(line) and not duals
        problems = []
        if not v.complete:
            problems.append("undecided within the node budget")
        else:
            if not v.keys:
                problems.append(f"no first move captures within {p.n}")
            if len(v.keys) > 1:
                problems.append(f"cooked: {len(v.keys)} keys ({' '.join(v.keys)})")
            if v.shorter:
                problems.append(f"shorter solution within {p.n - 1}: {' '.join(v.shorter)}")
            if p.key is None:
                problems.append("no key recorded")
            elif v.keys and p.key not in v.keys:
                problems.append(f"recorded key {p.key} does not work")
        if lc is not None and not lc.complete:
            problems.append("the line undecided within the node budget")
        elif lc is not None:
            problems.extend(lc.problems)
        for ply, moves in duals if v.complete else ():
            other = next(m for m in moves if m != line[ply])
            left = p.n - ply // 2
            problems.append(f"a dual at {turn_name(pos, ply)}: {other} also captures within {left} "
                            f"(the line plays {line[ply]})")
        if p.last_moves is not None and len(line) >= 2 * p.n - 1 and v.complete and tuple(p.last_moves) != tuple(last):
            problems.append(f"last_moves recorded {' '.join(p.last_moves) or 'none'}, but the moves that capture "
                            f"at the last turn are {' '.join(last) or 'none'}")
        if p.line and p.line[-1] == ANY:
            escapes = any_escapes(p.to_position(), p.target, p.line)  # a validated line is legal
            if escapes:
                more = f" and {len(escapes) - 3} more" if len(escapes) > 3 else ""
                problems.append(f"the last reply is written {ANY}, but {' '.join(escapes[:3])}{more} "
                                f"leave{'s' if len(escapes) == 1 else ''} the target on the board")
        computed = None
        if p.themes is not None and p.key is not None:
            try:
                computed = themes(p, limit=limit)
            except ThemeError as e:
                problems.append(f"themes not recomputed: {e}")
            else:
                if computed != p.themes:
                    problems.append(f"themes recorded {', '.join(p.themes) or 'none'}, "
                                    f"computed {', '.join(computed) or 'none'}")
        bad += bool(problems)
        if as_json:
            click.echo(json.dumps({
                "schema": AUDIT_SCHEMA,
                "id": p.id, "sound": v.complete and v.sound, "keys": v.keys, "shorter": bool(v.shorter),
                "shorter_keys": v.shorter, "key": p.key, "key_ok": p.key in v.keys if p.key else False,
                "dual_free": free,
                "duals": [[i, m] for i, m in duals], "last_moves": list(last),
                "nodes": nodes, "complete": complete, "problems": problems,
                "themes": None if computed is None else list(computed),
            }))
        else:
            click.echo(f"{p.id}: {'ok' if not problems else '; '.join(problems)}"
                       f"{' (dual-free)' if free else ''}, {nodes} nodes")
    if not as_json:
        click.echo(f"{len(ps) - bad} of {len(ps)} puzzles sound with their recorded key and dual-free")
    sys.exit(1 if bad else 0)


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
    except Interrupted as e:  # a long run stopped after saving what it finished
        click.echo(f"meridians: {' '.join(str(e).splitlines())}", err=True)
        sys.exit(130)
    except MeridiansError as e:  # every error the user can cause that no command caught
        fail(" ".join(str(e).splitlines()))
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
