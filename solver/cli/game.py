"""The ``meridians`` commands on positions and game records: ``show``, ``play``,
``perft``, ``import`` and ``analyse``."""

from __future__ import annotations

import json
import random
import sys
import time
from typing import TYPE_CHECKING

import click

from solver.rules.board import Board
from solver.util.files import FileFormatError, write_atomic
from solver.app.schema import tagged
from solver.search.limit import Limit, LimitError, check_seconds

from .common import _COLOUR, _command_line, _echo_table, _fail, _position_arg, _read_game_record

if TYPE_CHECKING:
    from solver.rules.position import Position


@click.command(short_help="Draw a position or an empty board, with its legal moves.")
@click.argument("position", required=False)
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False),
              help="Also write an SVG picture here (missing folders are created).")
@click.option("--game", "game_file", type=click.Path(dir_okay=False), default=None,
              help="Draw the position of this game record (with its headers) instead of POSITION.")
@click.option("--ply", type=click.IntRange(min=0), default=None,
              help="With --game: the position after this many moves (default: the end).")
def show(position: str | None, svg_file: str | None, game_file: str | None, ply: int | None) -> None:
    """Draw POSITION (notation such as '2/3/4/3/2 L', or a board such as 6/7) as ASCII
    with coordinates, and list its legal moves.

    \b
    Examples:
      meridians show '2/1D1/4/L2/2 D' --svg pos.svg
      meridians show --game game.txt --ply 12
    """
    if game_file is not None or ply is not None:
        pos = _record_position(position, game_file, ply)
    elif position is None:
        _fail("give a POSITION or --game")
    else:
        pos = _position_arg(position)
    click.echo(pos.diagram())
    moves = pos.legal_moves()
    if moves:
        click.echo(f"legal moves ({len(moves)}): {' '.join(moves)}")
    if svg_file:
        write_atomic(svg_file, pos.svg(title=str(pos)))
        click.echo(f"wrote {svg_file}")


@click.command(short_help="Play a game: random moves, you against the engine, or the engine against itself.")
@click.option("--board", "board_name", default="6/7", show_default=True, help="Board, such as 6/7.")
@click.option("--seed", type=int, default=None,
              help="Seed of the random moves (default: random); with --engine or --engine-vs-engine, of the engine "
                   "(default 1).")
@click.option("--moves", default=None, help="Moves to play first, comma-separated: c1,e2,c3.")
@click.option("--start", default=None, help="Start from this position instead of the empty board.")
@click.option("--max-plies", type=click.IntRange(min=0), default=None, help="Stop after this many moves.")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False),
              help="Write the final position as SVG (missing folders are created).")
@click.option("--quiet", is_flag=True, help="Print only the result line.")
@click.option("--record", "record_file", type=click.Path(dir_okay=False), default=None,
              help="Write the game as a game record here (missing folders are created).")
@click.option("--engine", "vs_engine", is_flag=True,
              help="Play against the engine in the terminal, after the given --moves (see 'help' in the game).")
@click.option("--engine-vs-engine", "engine_pair", is_flag=True,
              help="The engine plays both sides (one engine a side), after the given --moves.")
@click.option("--as", "human", default=None, help="With --engine: the colour you play, L (default) or D.")
@click.option("--time", "seconds", type=float, default=None,
              help="With --engine or --engine-vs-engine: the engine's seconds a move (more than 0, at most 30 days); "
                   "default 1 unless --playouts is given.")
@click.option("--playouts", default=None,
              help="With --engine or --engine-vs-engine: the engine's playouts a move; without --time its moves "
                   "are reproducible (with --seed, default 1 there).")
def play(board_name, seed, moves, start, max_plies, svg_file, quiet, record_file, vs_engine, engine_pair, human,
         seconds, playouts) -> None:
    """Play a game: the given --moves (each checked), then random moves until the game
    ends; with --engine, you against the engine; with --engine-vs-engine, the engine
    against itself.

    With --engine the board is drawn after every move; type a move (c3), or hint, undo
    (your last move and the engine's reply), moves, board, quit (Ctrl-D too), help.
    Ctrl-C stops the game (exit 130); --record is written in every case, with the
    result '*' when the game did not end.

    \b
    Examples:
      meridians play --board 6/7 --moves c1,e2 --quiet --svg end.svg
      meridians play --board 6/7 --engine --as D --time 2 --record game.txt
    """
    from solver.rules.position import Game, Position

    engine_mode = _play_engine_options(vs_engine, engine_pair, human, seconds, playouts, max_plies, quiet)
    game = Game(Position.parse(start) if start is not None else Position.start(Board.parse(board_name)))
    given = [m.strip() for m in moves.split(",") if m.strip()] if moves else []
    if engine_mode is not None:
        for i, m in enumerate(given):
            try:
                game.play(m)
            except ValueError as e:
                _fail(f"move {i + 1} ({m}): {e}")
        _play_engine(game, engine_mode, 1 if seed is None else seed, max_plies, quiet, svg_file, record_file)
        return
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    if not quiet:
        click.echo(f"board {game.position.board.name}, seed {seed}")

    def show_move(pos: Position) -> None:
        if quiet:
            return
        ply = len(game.moves)
        mover = "L" if pos.to_move == "D" else "D"
        gone = f"  removes {' '.join(sorted(pos.removed))}" if pos.removed else ""
        click.echo(f"{ply:4d}. {mover} {pos.last_move}{gone}")

    for i, m in enumerate(given):
        try:
            show_move(game.play(m))
        except ValueError as e:
            _fail(f"move {i + 1} ({m}): {e}")
    while game.outcome is None and (max_plies is None or len(game.moves) < max_plies):
        show_move(game.play(rng.choice(game.position.legal_moves())))
    pos = game.position
    if not quiet:
        click.echo(pos.diagram())
        click.echo(f"final position: {pos}")
    result = pos.outcome
    if result is None:
        click.echo(f"stopped after {len(game.moves)} moves, no result yet")
    elif result == "draw":
        click.echo(f"draw by repetition after {len(game.moves)} moves")
    else:
        click.echo(f"{'Light' if result == 'L' else 'Dark'} wins after {len(game.moves)} moves: {pos.outcome_reason}")
    if svg_file:
        write_atomic(svg_file, pos.svg(title=f"after {len(game.moves)} moves"))
    if record_file:
        _write_game_record(record_file, game, {"Light": "random", "Dark": "random",
                                               "Source": f"meridians play --seed {seed}"})


def _play_engine_options(vs_engine: bool, engine_pair: bool, human: str | None, seconds: float | None,
                         playouts: str | None, max_plies: int | None, quiet: bool):
    """``play``'s engine options checked: ``(human colour or None, Limit)`` for
    --engine / --engine-vs-engine, None for random play; one line and exit 2 for a
    conflict or a bad value."""
    from solver.app.interactive import engine_limit, parse_playouts

    if vs_engine and engine_pair:
        _fail("give either --engine or --engine-vs-engine, not both")
    if not (vs_engine or engine_pair):
        for name, value in (("--as", human), ("--time", seconds), ("--playouts", playouts)):
            if value is not None:
                _fail(f"{name} is for --engine or --engine-vs-engine")
        return None
    if engine_pair and human is not None:
        _fail("--as is for --engine (the engine plays both sides with --engine-vs-engine)")
    if vs_engine:
        for name, used in (("--max-plies", max_plies is not None), ("--quiet", quiet)):
            if used:
                _fail(f"{name} is not for --engine (an interactive game)")
    colour = None
    if vs_engine:
        given = "L" if human is None else human
        colour = {"l": "L", "light": "L", "d": "D", "dark": "D"}.get(given.strip().lower())
        if colour is None:
            shown = repr(human) if len(human) <= 30 else f"of {len(human)} characters"
            _fail(f"--as {shown}: give L (Light) or D (Dark)")
    try:
        limit = engine_limit(seconds, None if playouts is None else parse_playouts(playouts))
    except LimitError as e:
        _fail(str(e))
    return colour, limit


def _play_engine(game, mode, seed: int, max_plies: int | None, quiet: bool, svg_file: str | None,
                 record_file: str | None) -> None:
    """``play --engine`` (``mode[0]`` the person's colour) or ``--engine-vs-engine``
    (``mode[0]`` None) from ``game``; the record and the picture are written however the
    game stopped, then exit 130 if Ctrl-C stopped it."""
    from solver.app.interactive import HumanVsEngine, engine_vs_engine, players

    human, limit = mode
    if human is None:
        ending = engine_vs_engine(game, limit, out=sys.stdout, seed=seed, max_plies=max_plies, quiet=quiet)
    else:
        ending = HumanVsEngine(game, human, limit, inp=sys.stdin, out=sys.stdout, seed=seed).run()
    pos = ending.game.position
    if svg_file:
        write_atomic(svg_file, pos.svg(title=f"after {len(ending.game.moves)} moves"))
    if record_file:
        _write_game_record(record_file, ending.game, {**players(human, limit), "Source": _command_line()},
                           ending.comments)
    if ending.how == "interrupted":
        click.echo("interrupted", err=True)
        sys.exit(130)


@click.command(short_help="Count the leaves of the move tree below a position.")
@click.argument("position")
@click.argument("depth", type=click.IntRange(min=0, max=64))
@click.option("--divide", is_flag=True, help="Also print the count below each first move.")
def perft(position: str, depth: int, divide: bool) -> None:
    """Count the leaves of the move tree DEPTH plies below POSITION (a position or a
    board).  The count goes to stdout, the time to stderr.

    \b
    Examples:
      meridians perft 2/3 2
      meridians perft '2/3/4/3/2 L' 3 --divide
    """
    from solver.rules import core

    pos = _position_arg(position)
    t0 = time.perf_counter()
    if divide and depth >= 1:
        total = 0
        for m in pos.legal_moves():
            child = pos.play(m)
            n = core.run_perft(pos.board, child.bitboards, child.side_index, depth - 1)
            click.echo(f"{m}: {n}")
            total += n
    else:
        total = core.run_perft(pos.board, pos.bitboards, pos.side_index, depth) if pos.outcome is None or depth == 0 else 0
    dt = time.perf_counter() - t0
    click.echo(f"{total}")
    click.echo(f"perft({depth}) = {total} in {dt:.3f} s", err=True)


# -- game records: showing, writing, importing (solver.rules.record, solver.app.importers); common reads them -----


def _record_position(position: str | None, game_file: str | None, ply: int | None) -> "Position":
    """``show --game``: the headers of the record, then its position at ``ply``."""
    if game_file is None:
        _fail("--ply needs --game")
    if position is not None:
        _fail("give either POSITION or --game, not both")
    record = _read_game_record(game_file)
    if ply is not None and ply > len(record.moves):
        _fail(f"--ply {ply}: {game_file} has {len(record.moves)} moves")
    click.echo(f"Board: {record.board.name}")
    for key, value in record.headers.items():
        click.echo(f"{key}: {value}")
    click.echo(f"Result: {record.result or '*'}")
    positions = record.positions()
    n = len(record.moves) if ply is None else ply
    pos = positions[n]
    last = f", last move {pos.last_move}" if pos.last_move else ""
    click.echo(f"after {n} of {len(record.moves)} moves{last}: {pos}")
    comment = record.comments.get(n)
    if comment:
        click.echo(f"{{{comment}}}")
    if pos.outcome is not None:
        click.echo(f"the game is over: {pos.outcome_reason}")
    return pos


def _write_game_record(path: str, game, headers: dict[str, str], comments: dict[int, str] | None = None) -> None:
    """Write ``game`` (a :class:`~solver.rules.position.Game`) as a game record, dated today,
    with ``comments`` (ply count -> text) after the moves they follow."""
    import datetime

    from solver.rules.record import GameRecord

    headers = {**headers, "Date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y.%m.%d")}
    record = GameRecord.from_game(game, headers, comments)
    write_atomic(path, record.text())
    click.echo(f"wrote {path}")


@click.command("import", short_help="Turn another site's game record into a Meridians game record.")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--from", "source", type=click.Choice(["abstractplay"]), required=True,
              help="The site the record comes from: abstractplay (its JSON game record).")
@click.option("-o", "--output", "out_file", type=click.Path(dir_okay=False), default=None,
              help="Write the record here (missing folders are created); default: print it.")
def import_record(file: str, source: str, out_file: str | None) -> None:
    """Read FILE, a game record exported by another site, replay every move under
    RULES.md, and write it in this package's game record format (see docs/records.md "Game
    records").  Exit 2, one line, for a record that cannot be read or does not replay.

    \b
    Example:
      meridians import game.json --from abstractplay -o game.txt
    """
    from solver.util.files import read_json
    from solver.app.importers import SOURCES, RecordImportError

    try:
        data = read_json(file, "Abstract Play game record", dict)
        record = SOURCES[source](data)
    except FileFormatError as e:
        _fail(str(e))
    except (RecordImportError, ValueError) as e:
        _fail(f"{file}: {e}")
    if out_file:
        write_atomic(out_file, record.text())
        click.echo(f"wrote {out_file}: {len(record.moves)} moves, result {record.result or '*'}")
    else:
        click.echo(record.text(), nl=False)


#: the longest budget of one position of ``analyse`` (a day): beyond it a typo, not a wish
MAX_SECONDS_PER_MOVE = 24 * 3600


@click.command(short_help="Analyse a game record: every position's value, the blunders, where the result was forced.")
@click.option("--game", "game_file", type=click.Path(dir_okay=False), required=True,
              help="The game record (docs/records.md; the old simple format too; gzip too).")
@click.option("--board", "board_name", default=None, help="Board of a record that names no start (default 6/7).")
@click.option("--time-per-move", "seconds", type=float, default=1.0, show_default=True,
              help="Seconds for each position not in the opening database: half for a df-pn proof, the rest "
                   f"for the engine's estimate (more than 0, at most {MAX_SECONDS_PER_MOVE}).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--svg", "svg_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Write a chart of the value along the game to DIR/analysis.svg (missing folders are created).")
def analyse(game_file: str, board_name: str | None, seconds: float, as_json: bool, svg_dir: str | None) -> None:
    """Analyse the game in a record: the value of every position for its player to move
    (from the opening database, else a df-pn proof within --time-per-move, else the
    engine's estimate, a win rate labelled 'estimate', never a proof), the blunders (a
    move that gave up a proven win, with the winning moves), and the ply from which the
    result was forced (every later position proven for the winner).

    The positions are analysed from the end back (a proof of a late position helps the
    one before it); progress on stderr.  Ctrl-C stops with what was analysed printed,
    exit 130.  Exit 0 done, 2 bad input.

    \b
    Examples:
      meridians analyse --game game.txt
      meridians analyse --game game.txt --board 3/4 --time-per-move 5 --svg out/
    """
    from solver.app.analysis import analyse_game
    from solver.jobs.progress import StatusLine, progress_mode

    try:
        seconds = check_seconds(seconds, "--time-per-move", maximum=MAX_SECONDS_PER_MOVE)
    except LimitError as e:
        _fail(str(e))
    limit = Limit(seconds=seconds)
    record = _read_game_record(game_file, None, board_name)
    mode = progress_mode(sys.stderr.isatty() or not as_json, sys.stderr)
    total = len(record.moves) + 1
    t0 = time.perf_counter()
    status = StatusLine(sys.stderr)

    def progress(done: int, n: int, e) -> None:
        text = f"[{done}/{n}] ply {e.ply}: {e.shown()}, {e.seconds:.2f} s"
        if mode == "live":
            status.show(f"analyse {text} ({time.perf_counter() - t0:.0f} s; Ctrl-C: stop and show)")
        elif mode == "lines":
            click.echo(f"analyse {text}", err=True)

    if mode != "off":
        click.echo(f"analysing {total} positions from the end back, at most {seconds:g} s each", err=True)
    try:
        a = analyse_game(record.start, record.moves, limit, record.result, progress=progress)
    finally:
        status.close()
    a.players = record.players()
    if record.pie:
        a.notes.append("the pie variant: the first two stones are both the first player's; the values and "
                       "blunders are by colour")
    if svg_dir is not None:
        import os

        from solver.app.svg import analysis_svg

        path = os.path.join(svg_dir, "analysis.svg")
        write_atomic(path, analysis_svg(a.as_dict()))
        if not as_json:
            click.echo(f"wrote {path}")
    if as_json:
        click.echo(json.dumps(tagged("analyse", a.as_dict())))
    else:
        _show_analysis(a)
    if a.interrupted:
        click.echo(f"meridians: interrupted: {a.analysed} of {total} positions analysed (from the end back)",
                   err=True)
        sys.exit(130)


def _show_analysis(a) -> None:
    """``analyse``'s text: a line a ply, then the summary."""
    blunders = {b.ply: b for b in a.blunders}
    names = {c: (f"{a.players[c]} ({_COLOUR[c]})" if a.players.get(c) else _COLOUR[c]) for c in "LD"}
    per = f"{a.seconds_per_move:g} s a position" if a.seconds_per_move else ""
    click.echo(f"{a.board} game, {len(a.moves)} moves from {a.start}; {per}")
    rows = []
    for e in a.positions:
        chance = e.light_chance
        shown = "-" if chance is None else (f"{chance:.2f}" if e.proven else f"~{chance:.2f}")
        mark = f"  {blunders[e.ply].shown()}" if e.ply in blunders else ""
        if e.ply in blunders and not blunders[e.ply].winning:
            mark += " (no winning move found within the budget)"
        end = f": {e.how}" if e.source == "rules" else ""
        rows.append((e.ply, _COLOUR[e.to_move], e.move or "-", shown, f"{e.shown()}{end}{mark}"))
    _echo_table([("ply", "right"), ("plays", "left"), ("move", "left"), ("Light", "right"),
                 ("value for the player to move (Light: Light's chances, ~ an estimate)", "left")], rows, indent=" ")
    result = {"L": f"{names['L']} won", "D": f"{names['D']} won", "draw": "a draw"}
    click.echo(f"result: {result.get(a.result, 'not stated: the game goes on')}")
    if a.forced_from is not None:
        winner = "the draw" if a.result == "draw" else f"{_COLOUR[a.result]}'s win"
        click.echo(f"forced from ply {a.forced_from}: {winner} is proven from every position from there on")
    else:
        click.echo("forced from: never shown (no proven run of positions to the end agrees with the result)"
                   if a.result else "forced from: no result")
    if a.blunders:
        click.echo(f"blunders ({len(a.blunders)}):")
        for b in a.blunders:
            won = f"; winning was: {' '.join(b.winning)}" if b.winning else "; no winning move found within the budget"
            click.echo(f"  ply {b.ply}: {_COLOUR[b.player]} {b.move} {b.kind}{won}")
    else:
        click.echo("blunders: none")
    n_proven = sum(e.proven for e in a.positions)
    click.echo(f"{n_proven} of {len(a.positions)} positions proven, {a.analysed} analysed, {a.wall_seconds:.1f} s")
    for note in a.notes:
        click.echo(f"note: {note}")
