"""The ``meridians`` command: thin; it parses arguments and calls the library.

Every error the user can cause (a malformed position, an unknown board or point, an
illegal move, an absurd option value, an unreadable or malformed file) ends in one line
on stderr naming the option or the file, and exit code 2, never a traceback.  Output
options (``--svg``, ``--map``, ``--certificate``, ``--checkpoint``) create the missing
folders of their path.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from solver import RULES_VERSION, __version__
from solver.rules.board import Board
from solver.util.errors import Interrupted, MeridiansError
from solver.util.files import FileFormatError, write_atomic
from solver.app.schema import tagged
from solver.search.limit import Limit, LimitError, check_seconds
from solver.search.methods import DEFAULT_METHOD, METHODS
from solver.search.values import Value
from solver.jobs.workers import SchedulerAddressError, check_scheduler_address

if TYPE_CHECKING:
    from solver.rules.position import Position

EXIT_USAGE = 2
#: exit code of ``solve`` and ``verify`` when the asked value is not decided
EXIT_UNKNOWN = 3
#: the longest ``bench``: a benchmark, not a run
MAX_BENCH_SECONDS = 3600


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


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="meridians", message=f"%(prog)s %(version)s (rules {RULES_VERSION})")
def cli() -> None:
    """Meridians: rules engine, exact solver and puzzle generator.

    Bad input gives one line on stderr and exit code 2; see each command's --help.

    \b
    Examples:
      meridians show 6/7
      meridians solve 2/3
    """


@cli.command(short_help="Draw a position or an empty board, with its legal moves.")
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


@cli.command(short_help="Play a game: random moves, you against the engine, or the engine against itself.")
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
    """``play``'s engine options checked: ``(human colour or None, Budget)`` for
    --engine / --engine-vs-engine, None for random play; one line and exit 2 for a
    conflict or a bad value."""
    from solver.app.interactive import Budget, parse_playouts

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
        budget = Budget(seconds, None if playouts is None else parse_playouts(playouts))
    except LimitError as e:
        _fail(str(e))
    return colour, budget


def _play_engine(game, mode, seed: int, max_plies: int | None, quiet: bool, svg_file: str | None,
                 record_file: str | None) -> None:
    """``play --engine`` (``mode[0]`` the person's colour) or ``--engine-vs-engine``
    (``mode[0]`` None) from ``game``; the record and the picture are written however the
    game stopped, then exit 130 if Ctrl-C stopped it."""
    from solver.app.interactive import HumanVsEngine, engine_vs_engine, players

    human, budget = mode
    if human is None:
        ending = engine_vs_engine(game, budget, out=sys.stdout, seed=seed, max_plies=max_plies, quiet=quiet)
    else:
        ending = HumanVsEngine(game, human, budget, inp=sys.stdin, out=sys.stdout, seed=seed).run()
    pos = ending.game.position
    if svg_file:
        write_atomic(svg_file, pos.svg(title=f"after {len(ending.game.moves)} moves"))
    if record_file:
        _write_game_record(record_file, ending.game, {**players(human, budget), "Source": _command_line()},
                           ending.comments)
    if ending.how == "interrupted":
        click.echo("interrupted", err=True)
        sys.exit(130)


@cli.command(short_help="Count the leaves of the move tree below a position.")
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


@cli.command("move", short_help="The best move for a position: the database, a proof, or the engine's estimate.")
@click.argument("position")
@click.option("--time", "seconds", type=float, default=None,
              help="Seconds to think (more than 0, at most 30 days); default 1 unless --playouts is given.")
@click.option("--playouts", default=None,
              help="Iterations of the engine's tree search (each ends in one random playout); with a --seed and "
                   "no --time the answer is reproducible.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the playouts.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-database", "no_database", is_flag=True,
              help="Search even when the opening database holds the position.")
def move(position: str, seconds: float | None, playouts: str | None, seed: int, as_json: bool,
         no_database: bool) -> None:
    """The best move for POSITION (or the empty BOARD), with its value for the player to
    move and a principal line, as every front end answers it (solver.app.analyst): the
    opening database, else a df-pn proof, else the engine's estimate, each labelled.

    A won position's move is a proven winning move; a lost one's, the move that resists
    longest.  An estimate is a playout win rate with its visits and 95% interval, never
    a win or a loss; a move searched too little is 'not searched'.  Ctrl-C stops the
    search with the answer so far.

    \b
    Examples:
      meridians move 6/7 --time 5
      meridians move '2/1D1/4/L2/2 D' --playouts 2000 --json
    """
    limit = _engine_limit(seconds, playouts)
    pos = _position_arg(position)
    a = _analysed(pos, limit, seed=seed, database=not no_database)
    if as_json:
        click.echo(json.dumps(tagged("move", a.as_dict())))
        return
    click.echo(f"{pos}: {_COLOUR[pos.to_move]} to move")
    if a.best is None:
        click.echo(f"  no move: {'; '.join(a.notes) or 'the game is over'}")
        click.echo(f"  value: {a.shown()}")
        return
    click.echo(f"  best move: {a.best}")
    click.echo(f"  value: {a.shown()}")
    if a.line:
        click.echo(f"  line: {' '.join(a.line)}")
    _echo_moves(a, most=10)
    _echo_effort(a)


def _engine_limit(seconds: float | None, playouts: str | None) -> Limit:
    """The Limit of ``--time`` and ``--playouts`` (1 s when neither is given)."""
    try:
        if playouts is not None:
            # read here, not by click: its message repeats a value of thousands of digits
            from solver.app.interactive import parse_playouts

            playouts = parse_playouts(playouts)
        seconds = check_seconds(seconds, "--time")
    except LimitError as e:
        _fail(str(e))
    if seconds is None and playouts is None:
        seconds = 1.0
    return _limit(seconds=seconds, playouts=playouts)


def _analysed(pos: Position, limit: Limit, **options):
    """:func:`solver.app.analyst.analyse` with a live status line of the engine's search on a
    terminal."""
    from solver.app.analyst import analyse
    from solver.jobs.progress import StatusLine, progress_mode

    live = progress_mode(True, sys.stderr) == "live"
    status = StatusLine(sys.stderr)

    def progress(info: dict) -> None:
        rate = f", best {info['best']} {info['win_rate']:.2f}" if info["win_rate"] is not None else ""
        status.show(f"{info['playouts']:,} playouts, {info['nodes']:,} nodes, {info['seconds']:.1f} s"
                    f"{rate}  (Ctrl-C: stop and answer)")

    try:
        return analyse(pos, limit, progress=progress if live else None, **options)
    finally:
        status.close()


def _echo_moves(a, most: int | None = None) -> None:
    """The moves of an analysis: the proven ones grouped by value, then the estimates
    (most visited first, at most ``most`` of them), then those not searched."""
    sign = {"database": "", "rules": "", "proof": "*"}
    for value, label in ((Value.WIN, "winning"), (Value.DRAW, "drawing"), (Value.LOSS, "losing")):
        ms = [m for m in a.moves.values() if m.value is value]
        if ms:
            click.echo(f"  {label} moves ({len(ms)}): {' '.join(m.move + sign[m.source] for m in ms)}")
    rated = sorted((m for m in a.moves.values() if not m.proven and m.estimate is not None),
                   key=lambda m: -m.visits)
    if rated:
        shown = rated if most is None else rated[:most]
        rows = [(m.move, f"{m.visits:,}", f"{m.estimate.win_rate:.0%}",
                 "{:.0%}-{:.0%}".format(*m.estimate.interval)) for m in shown]
        click.echo(f"  estimated moves ({len(rated)}, the engine's playout win rate for the player who plays it):")
        _echo_table([("move", "left"), ("visits", "right"), ("win rate", "right"), ("95% interval", "left")],
                    rows, indent="    ")
        if len(rated) > len(shown):
            click.echo(f"    ... {len(rated) - len(shown)} more")
    from solver.app.analyst import MIN_VISITS

    unseen = [m.move for m in a.moves.values() if not m.proven and m.estimate is None]
    if unseen:
        click.echo(f"  not searched ({len(unseen)}, fewer than {MIN_VISITS} visits): {' '.join(unseen)}")
    if any(m.source == "proof" for m in a.moves.values()):
        click.echo("  * by a live proof (df-pn or the engine's tree), not from the database")


def _echo_effort(a) -> None:
    """The work an analysis did and its notes."""
    load = f" (+ {a.load_seconds:.1f} s loading the compiled kernels)" if a.load_seconds >= 0.05 else ""
    click.echo(f"  {a.nodes:,} proof nodes, {a.playouts:,} playouts, {a.seconds:.2f} s{load}")
    for note in a.notes:
        click.echo(f"  note: {note}")


@cli.command("match", short_help="Play a match between two players: the engine, flat Monte Carlo or random.")
@click.argument("player_a")
@click.argument("player_b")
@click.option("--board", "board_name", default="6/7", show_default=True, help="Board, such as 6/7.")
@click.option("--games", type=click.IntRange(min=1, max=100_000), default=10, show_default=True,
              help="Games, colours alternating (A is Light in the first).")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the games.")
@click.option("--jobs", "jobs_n", type=int, default=1, show_default=True,
              help="Games at once, in worker processes (1 to 256); the results do not depend on it.")
@click.option("--state", "state_file", type=click.Path(dir_okay=False), default=None,
              help="State file of the finished games (default match-<board>-<hash>.json in the user state folder, "
                   "$MERIDIANS_STATE_DIR or platformdirs' user_state_dir, removed once every game is played); "
                   "the same command resumes from it.")
@click.option("--records", "records_dir", type=click.Path(file_okay=False), default=None,
              help="Write every game as a game record here, game-0001.txt ... (missing folders are created).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def match(player_a: str, player_b: str, board_name: str, games: int, seed: int, jobs_n: int,
          state_file: str | None, records_dir: str | None, as_json: bool) -> None:
    """Play GAMES games of PLAYER_A against PLAYER_B from the empty board, colours
    alternating, and print the wins, draws and losses of A (as Light and as Dark), its
    score and the Elo difference with its 95% interval.

    A player is 'engine' (MCTS-Solver, df-pn first), 'mcts' (the same tree search
    without the solver and df-pn), 'mcts-flat' (flat Monte Carlo: the same playouts
    spread evenly over the moves), each with ':time=S' (seconds a
    move, default 1) or ':playouts=N' (the engine also ',dfpn=N': df-pn's nodes before
    its tree, default 20,000), or 'random'.  Each game's seed is fixed by --seed and
    its number, so with playout budgets a match replays exactly, whatever --jobs.

    Every finished game goes to the state file at once: after Ctrl-C or a kill the same
    command plays only the missing games.  Exit code 0, 2 bad input, 1 a game failed,
    130 interrupted.

    \b
    Examples:
      meridians match engine:time=1 random --board 6/7 --games 20
      meridians match engine:playouts=2000 mcts-flat:playouts=2000 --board 5/6 --jobs 2 --json
      meridians match engine:playouts=500 random --board 4/5 --games 10 --records games/
    """
    from solver.app.match import MAX_JOBS, MatchError, default_state, parse_player, run_match
    from solver.jobs.progress import progress_mode

    board = Board.parse(board_name)
    a, b = parse_player(player_a), parse_player(player_b)
    if not 1 <= jobs_n <= MAX_JOBS:
        _fail(f"--jobs {jobs_n}: give a whole number from 1 to {MAX_JOBS}")
    if records_dir is not None and os.path.exists(records_dir) and not os.path.isdir(records_dir):
        _fail(f"--records {records_dir}: not a folder")
    path = state_file or default_state(a, b, board.name, seed)
    bar = _MatchBar(progress_mode(sys.stderr.isatty() or not as_json, sys.stderr), games)
    try:
        r = run_match(a, b, board.name, games, seed, progress=bar.update, jobs=jobs_n, state=path,
                      remove_state=state_file is None, records=records_dir)
    except Interrupted as e:
        bar.close()
        click.echo(f"meridians: {e}", err=True)
        sys.exit(130)
    except MatchError as e:
        bar.close()
        click.echo(f"meridians: error: {e}", err=True)
        sys.exit(1)
    finally:
        bar.close()
    if as_json:
        click.echo(json.dumps(tagged("match", r.as_dict())))
        return

    def signed(x: float | None, none: str) -> str:
        return none if x is None else f"{x:+.0f}"

    resumed = f", {r.resumed} resumed from {path}" if r.resumed else ""
    click.echo(f"match on {board.name}: {r.games} games, seed {seed} (A is Light in odd-numbered games){resumed}")
    click.echo(f"  A: {r.a}")
    click.echo(f"  B: {r.b}")
    light_losses = r.a_light_games - r.a_light_wins - r.a_light_draws
    dark = (r.games - r.a_light_games, r.a_wins - r.a_light_wins, r.draws - r.a_light_draws, r.b_light_wins)
    rows = []
    for label, (n, w, d, lost) in (("as Light", (r.a_light_games, r.a_light_wins, r.a_light_draws, light_losses)),
                                   ("as Dark", dark), ("in all", (r.games, r.a_wins, r.draws, r.b_wins))):
        rows.append((label, n, w, d, lost, f"{(w + d / 2) / n:.3f}" if n else "-"))
    _echo_table([("A", "left")] + [(h, "right") for h in ("games", "wins", "draws", "losses", "score")], rows)
    click.echo(f"  Elo difference A - B {signed(r.elo, '+inf' if r.score >= 1 else '-inf')} "
               f"(95%: {signed(r.elo_low, '-inf')} to {signed(r.elo_high, '+inf')})")
    if r.state:
        click.echo(f"  state: {r.state}")
    if records_dir is not None:
        click.echo(f"  records: {records_dir}")


class _MatchBar:
    """The progress of a match on stderr: ``'live'`` a bar redrawn in place (a terminal),
    ``'lines'`` a line per finished game (at most one a second, and the last), ``'off'``
    nothing.  The ETA is from this run's games (resumed ones took no time)."""

    def __init__(self, mode: str, games: int):
        self.mode, self.games = mode, games
        self.t0 = time.monotonic()
        self.first: int | None = None  # games done when this run started
        self.shown = 0.0
        self.status = None  # a StatusLine on stderr, in mode 'live'

    def update(self, done: int, r) -> None:
        if self.mode == "off":
            return
        now = time.monotonic()
        if self.first is None:
            self.first, self.t0 = done, now
            if r.resumed:
                click.echo(f"meridians: resumed {r.resumed} finished games of {self.games} from {r.state}", err=True)
        played = done - self.first
        eta = ""
        if played and done < self.games:
            left = (now - self.t0) / played * (self.games - done)
            eta = f", ETA {int(left) // 60}:{int(left) % 60:02d}"
        text = (f"{done}/{self.games} games: A {r.a_wins}, B {r.b_wins}, draws {r.draws}, "
                f"score of A {r.score:.3f}{eta}" if done else f"0/{self.games} games")
        if self.mode == "live":
            from solver.jobs.progress import StatusLine

            if self.status is None:
                self.status = StatusLine(sys.stderr)
            self.status.show(text, done, self.games)
        elif played and (now - self.shown >= 1.0 or done == self.games):
            self.shown = now
            click.echo(f"meridians: {text}", err=True)

    def close(self) -> None:
        if self.status is not None:
            self.status.close()
            self.status = None


def _check_scheduler(address: str) -> None:
    """A Dask scheduler address, checked by the rule :class:`Pool` applies, before any
    connection is tried."""
    try:
        check_scheduler_address(address)
    except SchedulerAddressError as e:
        _fail(f"--scheduler: {e}")


@cli.command(short_help="Solve a position or an empty board: its value and every move's, in parallel.")
@click.argument("position")
@click.option("--pie", is_flag=True, help="The pie variant: who wins after every pair of first stones (Light, Dark).")
@click.option("--method", type=click.Choice(list(METHODS)), default=DEFAULT_METHOD, show_default=True,
              help="Search of each job: " + "; ".join(f"{k}: {v}" for k, v in METHODS.items()) + ".")
@click.option("--time", "seconds", type=float, default=None,
              help="Wall-time budget in seconds (at most 30 days), shared fairly by the jobs; unproven classes "
                   "are 'unknown' with their effort.")
@click.option("--jobs", "jobs_n", type=click.IntRange(min=1, max=4096), default=None,
              help="Jobs at once (default 1; with --backend dask, the cluster's threads).")
@click.option("--tt-mb", type=float, default=None,
              help="Transposition table size of each job in MiB (default 16 on boards up to 2/3, 1024 on larger "
                   "ones); the tables of all --jobs must fit in the available memory.")
@click.option("--max-nodes", type=int, default=0, show_default=True,
              help="Node budget of each job (0: none); beyond it values are 'unknown', never guessed.")
@click.option("--checkpoint", "checkpoint", type=click.Path(dir_okay=False), default=None,
              help="Checkpoint file (default solve-<board>...json in the user state folder, $MERIDIANS_STATE_DIR "
                   "or platformdirs' user_state_dir, removed once every job is decided).")
@click.option("--backend", type=click.Choice(["loky", "dask"]), default="loky", show_default=True,
              help="loky: worker processes here; dask: the cluster at --scheduler.")
@click.option("--scheduler", default=None, help="Dask scheduler address scheme://host:port, such as tcp://10.0.0.5:8786.")
@click.option("--map", "map_file", type=click.Path(dir_okay=False),
              help="Write an SVG map of the value of every move (or pie pair); missing folders are created.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-database", "no_database", is_flag=True,
              help="Search even when the opening database holds the answer (it is used only when no search "
                   "option (--method, --jobs, --tt-mb, --max-nodes, --checkpoint, --backend) is given).")
@click.pass_context
def solve(ctx: click.Context, position: str, pie: bool, method: str, seconds: float | None,
          jobs_n: int | None, tt_mb: float | None, max_nodes: int, checkpoint: str | None, backend: str,
          scheduler: str | None, map_file: str | None, as_json: bool, no_database: bool) -> None:
    """Solve POSITION (or the empty BOARD): its value and the value of every move.

    One job per class of moves up to symmetry (per class of pairs with --pie), run in
    parallel with --jobs; every finished job goes to a checkpoint at once, so that after
    Ctrl-C or a kill the same command resumes where it stopped.

    Exit code 0 when the value is decided, 3 when it is not (a budget ran out: the value
    is 'unknown'), 2 bad input, 1 a job failed, 130 interrupted.

    \b
    Examples:
      meridians solve 2/3
      meridians solve 3/4 --jobs 2 --time 600 --map 3-4.svg
    """
    from solver.app.openings import default_checkpoint, pie_map_svg, solve_openings
    from solver.jobs.runner import JobError
    from solver.app.svg import map_svg

    if scheduler and backend != "dask":
        _fail("--scheduler needs --backend dask")
    if backend == "dask":
        if not scheduler:
            _fail("--backend dask needs --scheduler ADDRESS (a Dask scheduler, such as tcp://10.0.0.5:8786)")
        _check_scheduler(scheduler)
    copies = (jobs_n or 1) if backend == "loky" else 1  # dask workers are on their own machines
    limit = _limit(seconds=seconds, nodes=max_nodes, tt_mb=tt_mb, copies=copies)
    pos = _position_arg(position)
    if limit.tt_mb is None:
        # a big table costs its allocation time on a board solved in a fraction of a second
        limit = _limit(seconds=limit.seconds, nodes=limit.nodes,
                       tt_mb=16 if len(pos.board.names) <= 14 else 1024, copies=copies)
    keep = checkpoint is not None
    path = checkpoint or default_checkpoint(pos, pie=pie, method=method)
    params = {k: v for k, v in ctx.params.items() if k not in ("map_file", "as_json", "no_database")}
    params["method"] = method
    mode = sys.stderr.isatty() or not as_json  # JSON on a pipe: no progress lines
    try:
        r = None if pie or no_database else _solve_from_database(ctx, pos, path)
        if r is None:
            r = solve_openings(pos, pie=pie, method=method, limit=limit, jobs_n=jobs_n, checkpoint=path,
                               keep_checkpoint=keep, backend=backend, scheduler=scheduler, progress_ui=mode,
                               params=params)
    except Interrupted as e:
        click.echo(f"meridians: {e}", err=True)
        sys.exit(130)
    except JobError as e:
        click.echo(f"meridians: error: {e}", err=True)
        sys.exit(1)
    side = "Light" if pos.to_move == "L" else "Dark"
    if map_file:
        if pie:
            write_atomic(map_file, pie_map_svg(pos, r.pairs))
        else:
            title = f"{pos.board.name}: {side} to move {r.value}s"
            values = {pos.board.index(m): v for m, v in r.moves.items()}
            light = [pos.board.index(x) for x in pos.stones("L")]
            dark = [pos.board.index(x) for x in pos.stones("D")]
            write_atomic(map_file, map_svg(pos.board, values, title=title, light=light, dark=dark))
    code = EXIT_UNKNOWN if r.value == "unknown" else 0
    if as_json:
        click.echo(json.dumps(tagged("solve", r.as_dict())))
        sys.exit(code)
    if pie:
        counts = r.summary()
        wins = ", ".join(f"{label} {counts[v]}" for v, label in
                         (("L", "Light wins"), ("D", "Dark wins"), ("draw", "draw"), ("unknown", "unknown"))
                         if v in counts)
        click.echo(f"{pos.board.name} pie, pairs of first stones (Light point-Dark point): {wins}")
        click.echo(f"  the first player (who places both stones, the other chooses a colour): {r.value}")
        for v, label in (("L", "Light wins"), ("D", "Dark wins"), ("draw", "draw"), ("unknown", "unknown")):
            ps = [p for p, w in r.pairs.items() if w == v]
            if ps and len(ps) <= 40:
                click.echo(f"  {label} ({len(ps)}): {' '.join(ps)}")
    else:
        click.echo(f"{pos}: {side} to move: {r.value}")
        for value, label in (("win", "winning"), ("draw", "drawing"), ("loss", "losing"), ("unknown", "unknown")):
            ms = [m for m, v in r.moves.items() if v == value]
            if ms:
                click.echo(f"  {label} moves ({len(ms)}): {' '.join(ms)}")
    if r.line:
        click.echo(f"  line: {' '.join(r.line)}")
    if not r.classes:
        click.echo(f"  the game is over: {pos.outcome_reason or 'a draw by repetition'}")
        sys.exit(code)
    resumed_any = any(c.resumed for c in r.classes)  # a column saying which, when some were
    _echo_table([("class", "left"), ("members", "left", 30), ("value", "left"), ("nodes", "right"),
                 ("seconds", "right"), ("runs", "right")] + [("", "left")] * resumed_any,
                [(c.key, " ".join(c.members), c.shown, f"{c.nodes:,}", f"{c.seconds:.2f}", c.runs)
                 + ("(resumed)" if c.resumed else "",) * resumed_any for c in r.classes])
    # the checkpoint read: a default one is removed once every class is decided, so
    # r.checkpoint is then None, but the classes were still read from it
    resumed = f", {r.resumed} resumed from {r.checkpoint or path}" if r.resumed else ""
    click.echo(f"  {len(r.classes)} classes by {r.method}: {r.nodes:,} nodes, {r.seconds:.2f} s of search, "
               f"{r.wall_seconds:.2f} s wall{resumed}")
    if r.checkpoint:
        click.echo(f"  checkpoint: {r.checkpoint}")
    for note in r.notes:
        click.echo(f"  note: {note}")
    if code:
        click.echo("  the value is not decided (exit code 3): give more --time or --max-nodes, or run again "
                   "to resume", err=True)
    sys.exit(code)


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


# -- the opening database: lookup, and solve's first look -------------------------------
#: the options of ``solve`` that ask for a search: given, the database is not consulted
_SEARCH_OPTIONS = ("method", "jobs_n", "tt_mb", "max_nodes", "checkpoint", "backend", "scheduler")


def _solve_from_database(ctx: click.Context, pos: Position, checkpoint):
    """``solve``'s answer from the shipped opening database when it holds the position
    and every move's position, else None (then ``solve`` searches).  Not consulted when
    an option asks for a search or a checkpoint of an earlier search is there to resume."""
    from pathlib import Path

    from solver.app.openings.database import database_solution

    if any(ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)
           for name in _SEARCH_OPTIONS) or Path(checkpoint).exists():
        return None
    return database_solution(pos)


@cli.command(short_help="The value of a position and of every move: the database, a proof, or an estimate.")
@click.argument("position")
@click.option("--time", "seconds", type=float, default=10.0, show_default=True,
              help="Budget in seconds: proofs of what the database does not hold, then the engine.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-database", "no_database", is_flag=True,
              help="Search even when the opening database holds the position.")
def lookup(position: str, seconds: float, as_json: bool, no_database: bool) -> None:
    """The value of POSITION (or the empty BOARD) for the player to move, and of every
    legal move for the player who plays it, as every front end answers it
    (solver.app.analyst): the opening database of the board (2/3, 3/4) when it holds it,
    else a df-pn proof within --time, else the engine's estimate, each labelled.

    Exit code 0 when every value is decided, 3 when one is not, 2 bad input.

    \b
    Examples:
      meridians lookup 3/4
      meridians lookup "3/4/5/6/5/4/L2 D" --json
    """
    limit = _limit(seconds=seconds)
    pos = _position_arg(position)
    a = _analysed(pos, limit, database=not no_database)
    code = 0 if a.decided else EXIT_UNKNOWN
    if as_json:
        click.echo(json.dumps(tagged("lookup", a.as_dict())))
        sys.exit(code)
    click.echo(f"{pos}: {_COLOUR[pos.to_move]} to move: {a.shown()}")
    if a.best is not None:
        click.echo(f"  best move: {a.best}" + (f", line {' '.join(a.line)}" if len(a.line) > 1 else ""))
    _echo_moves(a)
    _echo_effort(a)
    sys.exit(code)


@cli.command(short_help="Prove or refute a claim about a position (or a game record's end).")
@click.argument("position", required=False)
@click.option("--claim", type=click.Choice(["win", "loss", "draw"]), default=None,
              help="The claimed value for the player to move (of the final position with --game).")
@click.option("--time", "seconds", type=float, default=None,
              help="Wall-time budget in seconds (at most 30 days); beyond it the verdict is 'unknown', never a "
                   "guess.  Default: none on boards up to 3/4, 60 s on larger boards.")
@click.option("--max-plies", type=click.IntRange(min=0, max=1000), default=None,
              help="If df-pn does not decide: look for the shortest win within this many plies (horizon search).")
@click.option("--certificate", "cert_file", type=click.Path(dir_okay=False), default=None,
              help="Write the proof as a certificate that 'meridians check' verifies (missing folders are created).")
@click.option("--game", "game_file", type=click.Path(dir_okay=False), default=None,
              help="Replay a game record (docs/records.md: headers and moves, or the old simple "
                   "format of moves with an optional first line a start position; gzip too).")
@click.option("--moves", default=None, help="Moves from POSITION (or the empty --board), comma-separated: c1,e2,c3.")
@click.option("--board", "board_name", default=None, help="Board of --moves or --game without a start (default 6/7).")
@click.option("--tt-mb", type=float, default=256, show_default=True,
              help="df-pn table size in MiB; it must fit in the available memory.")
@click.option("--jobs", "jobs_n", type=click.IntRange(min=1, max=64), default=1, show_default=True,
              help="df-pn worker processes on this one position, sharing one table of --tt-mb (and the budget).")
@click.option("--knowledge/--no-knowledge", "knowledge", default=None,
              help="df-pn with or without the settled rule (an enclosure whose moves outlast the other "
                   "player's); default: without (solver.search.prove.DEFAULT_KNOWLEDGE).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-database", "no_database", is_flag=True,
              help="Search even when the opening database holds the position (it is used only when no "
                   "--certificate and no search option (--jobs, --tt-mb, --knowledge) is given).")
@click.pass_context
def verify(ctx, position, claim, seconds, max_plies, cert_file, game_file, moves, board_name, tt_mb, jobs_n,
           knowledge, as_json, no_database) -> None:
    """Prove or refute a claim about POSITION: its exact value for the player to move.

    Exit code 0 proven, 1 refuted, 3 unknown (the budget ran out), 2 bad input.  Without
    --claim the value found is 'proven' when it is known.  A position that the opening
    database holds is answered from it at once (method 'database').  Without --time a verify on a
    board larger than 3/4 gets a budget of 60 s (a proof of an opening there cannot
    finish); the output says which budget was used.  --jobs N runs df-pn in N processes
    on this one position with one shared table; the proof is re-walked in one process
    before it is reported.

    \b
    Examples:
      meridians verify '2/3/4/3/2 L' --claim win --jobs 2
      meridians verify --game game.txt --time 30 --certificate proof.json.gz
    """
    from solver.app.verify import EXIT, default_seconds, replay, start_position, verdict_of, verify_position

    limit = _limit(seconds=seconds, tt_mb=tt_mb)
    record_result = None
    move_list: list[str] = []
    if game_file is not None:
        if moves:
            _fail("give either --game or --moves, not both")
        record = _read_game_record(game_file, position, board_name)
        pos0, move_list, record_result, game = record.start, record.moves, record.result, record.game()
    elif moves is not None:
        move_list = [m.strip() for m in moves.split(",") if m.strip()]
    elif position is None:
        _fail("give a POSITION, --moves or --game")
    if game_file is None:
        try:
            pos0 = start_position(position, board_name)
            game = replay(pos0, move_list)
        except ValueError as e:
            _fail(str(e))
    pos = game.position
    side = _COLOUR[pos.to_move]
    budget = limit.seconds
    budget_note = None
    if budget is None and default_seconds(pos) is not None:
        budget = default_seconds(pos)
        budget_note = (f"no --time: a budget of {budget:g} s, the default on boards larger than 3/4 "
                       f"(give --time for another)")
    if claim is None and record_result is not None:
        claim = Value.from_outcome(record_result, pos.to_move).value
    if pos.outcome is not None:
        value = Value.from_outcome(pos.outcome, pos.to_move).value
        from solver.app.verify import Verdict

        v = Verdict(str(pos), value, verdict_of(value, claim), claim, method="rules")
        v.notes.append(f"the game is over: {pos.outcome_reason}")
    else:
        v = None
        searched = any(ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)
                       for name in ("jobs_n", "tt_mb", "knowledge"))
        if not (no_database or cert_file or searched):
            from solver.app.verify import database_verdict

            v = database_verdict(pos, claim)
            if v is not None:
                budget, budget_note = None, None  # no search: no budget used
        if v is None:
            v = verify_position(pos, claim=claim, limit=replace(limit, seconds=budget), max_plies=max_plies,
                                jobs=jobs_n, knowledge=knowledge)
    if budget_note:
        v.notes.insert(0, budget_note)
    out = v.as_dict()
    out["to_move"] = pos.to_move
    out["budget_seconds"] = budget
    from solver.app.verify import territory

    out["territory"] = territory(pos)
    if move_list:
        out["game"] = {"start": str(pos0), "moves": len(move_list), "claimed_result": record_result}
    if cert_file:
        # imported only here: it loads the certificate checker and its networkx rules
        from solver.search.certificate import CertificateError, write_certificate

        try:
            if v.value in ("win", "loss") and (v.method == "dfpn" or pos.outcome is not None):
                cert = write_certificate(cert_file, pos, v.proof if pos.outcome is None else None, tt_mb=limit.tt_mb,
                                         command=_command_line())
                out["certificate"] = {"file": cert_file, "positions": cert["node_count"]}
            else:
                raise CertificateError(f"no df-pn proof (value {v.value}, by {v.method})")
        except CertificateError as e:
            out["certificate"] = {"file": None, "error": str(e)}
            click.echo(f"meridians: no certificate written: {e}", err=True)
    if as_json:
        click.echo(json.dumps(tagged("verify", out)))
    else:
        if move_list:
            click.echo(f"replayed {len(move_list)} moves from {pos0}: every move legal")
        click.echo(f"{pos}: {side} to move: {v.value}")
        claimed = f" (claim: {claim})" if claim else ""
        why = " (the budget ran out)" if v.verdict == "unknown" else ""
        click.echo(f"  verdict: {v.verdict}{claimed}{why}")
        if v.line:
            click.echo(f"  line: {' '.join(v.line)}")
        horizon = f", horizon {v.horizon} plies" if v.method == "horizon" else ""
        spent = f" of a budget of {budget:g} s" if budget is not None else ""
        if v.method == "database":
            click.echo(f"  database: the opening database of {pos.board.name}, {v.seconds:.3f} s")
        else:
            click.echo(f"  {v.method}: {v.nodes:,} nodes, {v.seconds:.2f} s{spent}{horizon}")
        for note in v.notes:
            click.echo(f"  note: {note}")
        if out["territory"]:
            safe = out["territory"]["safe_points"]
            click.echo(f"  territory (heuristic, not proven; filling stage): safe points Light {safe['L']}, "
                       f"Dark {safe['D']}")
        if out.get("certificate", {}).get("file"):
            click.echo(f"  certificate: {cert_file} ({out['certificate']['positions']} positions)")
    sys.exit(EXIT[v.verdict])


@cli.command(short_help="Serve the analysis board, the puzzle trainer and their JSON API on a local web server.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(min=1, max=65535), default=8765, show_default=True,
              help="Port to listen on.")
@click.option("--workers", type=click.IntRange(min=1, max=64), default=None,
              help="Worker processes for analyses and engine moves (default: the cores, at most 4).")
@click.option("--puzzles", "puzzles_dir", type=click.Path(file_okay=False), default=None,
              help="A folder of *.jsonl puzzle sets for the trainer (default: the committed sets).")
def serve(host: str, port: int, workers: int | None, puzzles_dir: str | None) -> None:
    """A local web application: an analysis board (any board 2/3 to 7/8 or a pasted
    position or game record; click to play; each move's value from the opening
    database, a proof or the engine, labelled; play against the engine), a puzzle
    trainer, and the JSON API they use (see docs/web.md).  Ctrl-C
    stops it.  Needs the optional extra: pip install -e '.[web]'.

    \b
    Examples:
      meridians serve
      meridians serve --port 9000 --workers 2
    """
    import socket

    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        click.echo(f"meridians: error: serve needs starlette and uvicorn ({e.name} is missing): "
                   "pip install -e '.[web]'", err=True)
        sys.exit(EXIT_USAGE)
    # the port is tried first, so that a port in use is one line and exit 2
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
    except OSError as e:
        _fail(f"cannot listen on {host}:{port}: {e.strerror or e}")
    from solver.app.web import serve as run

    click.echo(f"meridians: serving on http://{host}:{port}/ (trainer: /trainer; Ctrl-C stops)", err=True)
    run(host, port, workers=workers, puzzles=puzzles_dir)


@cli.command("check")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--jobs", "jobs_n", type=click.IntRange(min=1), default=None,
              help="Processes checking positions at once (default: every core).")
def check_certificate(file: str, jobs_n: int | None) -> None:
    """Check a proof certificate (FILE, or FILE.gz) with the networkx reference rules only
    (no search code, no compiled core).

    Prints the number of positions checked.  Exit code 0 accepted; 1 rejected (a
    certificate that does not prove its claim: one line naming the first problem); 2 not
    a certificate file (missing, unreadable, not JSON, another format).  Large
    certificates show their progress on stderr.

    \b
    Example:
      meridians check results/certificates/2-3.json
    """
    import os

    from solver.reference.certificate import CertificateError, CertificateFileError, CheckerProcessError, check_file, summary

    def progress(stage: str, done: int, total: int) -> None:
        click.echo(f"  {stage} {done:,} of {total:,} positions ({time.perf_counter() - t0:.0f} s)", err=True)

    t0 = time.perf_counter()
    try:
        head, n = check_file(file, progress, jobs=jobs_n or os.cpu_count() or 1)
    except (CertificateFileError, CheckerProcessError) as e:
        _fail(str(e))
    except CertificateError as e:
        click.echo(f"meridians: certificate rejected: {e}", err=True)
        sys.exit(1)
    click.echo(summary(head, n, time.perf_counter() - t0))


@cli.command(short_help="Measure random playouts of the compiled core on one core.")
@click.option("--board", "board_name", default="6/7", show_default=True, help="Board, such as 6/7.")
@click.option("--seconds", type=float, default=3.0, show_default=True,
              help=f"How long to play, in seconds (more than 0, at most {MAX_BENCH_SECONDS}).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench(board_name: str, seconds: float, seed: int, as_json: bool) -> None:
    """Random playouts of the compiled core from the empty board, on one core: games
    and plies per second.

    \b
    Examples:
      meridians bench --board 6/7
      meridians bench --board 3/4 --seconds 10 --json
    """
    from solver.app.bench import playout_rate

    try:
        seconds = check_seconds(seconds, "--seconds", maximum=MAX_BENCH_SECONDS)
    except LimitError as e:
        _fail(str(e))
    board = Board.parse(board_name)
    r = playout_rate(board, seconds, seed & (2**64 - 1))
    if as_json:
        click.echo(json.dumps(tagged("bench", r)))
    else:
        click.echo(
            f"{r['board']}: {r['playouts_per_s']:,.0f} playouts/s, {r['plies_per_s']:,.0f} plies/s, "
            f"{r['plies_per_playout']:.1f} plies per game ({r['playouts']} games in {r['seconds']:.2f} s; "
            f"Light won {r['light_wins']}, Dark {r['dark_wins']})"
        )




# -- game records: reading, showing, importing, writing (solver.rules.record, solver.app.importers) --------------


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


@cli.command("import", short_help="Turn another site's game record into a Meridians game record.")
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


@cli.command(short_help="Analyse a game record: every position's value, the blunders, where the result was forced.")
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
        a = analyse_game(record.start, record.moves, record.result, seconds=seconds, progress=progress)
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


#: the arguments :func:`main` was called with, for the provenance stamp of what a
#: command writes (None: the command group was invoked another way, as by a test)
_ARGV: list[str] | None = None


def _command_line() -> str:
    """The command being run, as the provenance stamp of a file it writes names it."""
    import shlex

    if _ARGV is not None:
        return shlex.join(["meridians", *_ARGV])
    ctx = click.get_current_context(silent=True)
    return ctx.command_path if ctx is not None else "meridians"


def _os_message(e: OSError) -> str:
    """``PATH: reason`` for an OSError about a file (``[Errno 13] ...`` otherwise)."""
    if e.filename is not None and e.strerror:
        return f"{e.filename}: {e.strerror}"
    return str(e)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the command group, turning every user error into one line."""
    import zlib

    global _ARGV
    _ARGV = list(sys.argv[1:] if argv is None else argv)
    try:
        code = cli.main(args=argv, prog_name="meridians", standalone_mode=False)
    except click.UsageError as e:
        # command_path names a subcommand of a group too ('meridians puzzles show')
        hint = f" (see '{e.ctx.command_path} --help')" if e.ctx and e.ctx.parent else " (see 'meridians --help')"
        _fail(_one_line(e.format_message()) + hint)
    except click.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        _fail(_one_line(e.format_message()))
    except Interrupted as e:  # a long run stopped after saving what it finished
        click.echo(f"meridians: {_one_line(str(e))}", err=True)
        sys.exit(130)
    except OSError as e:
        _fail(_one_line(_os_message(e)))
    except MeridiansError as e:  # every error the user can cause, typed by its module
        _fail(_one_line(str(e)))
    except ValueError as e:  # a library's own ValueError that no reader typed: one line too
        _fail(_one_line(str(e)))
    # the last resort: each of these has its cause fixed where it is known (the readers
    # of solver.util.files, the checks of solver.search.limit); one line all the same
    except RecursionError:
        _fail("the input is nested too deeply")
    except MemoryError:
        _fail("out of memory: give a smaller --tt-mb or a smaller input")
    except zlib.error as e:
        _fail(f"corrupt compressed data ({e})")
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


def _one_line(message: str) -> str:
    """A message on one line (a value the user typed may hold a newline)."""
    return " ".join(message.split("\n")) if "\n" in message else message


if __name__ == "__main__":  # pragma: no cover
    main()
