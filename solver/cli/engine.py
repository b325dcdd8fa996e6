"""The ``meridians`` commands of the engine and the analyst: ``move``, ``lookup``,
``match`` and ``bench``."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import TYPE_CHECKING

import click

from solver.rules.board import Board
from solver.util.errors import Interrupted
from solver.app.schema import tagged
from solver.search.limit import Limit, LimitError, check_seconds
from solver.search.values import Value

from .common import EXIT_UNKNOWN, _COLOUR, _echo_table, _fail, _limit, _position_arg

if TYPE_CHECKING:
    from solver.rules.position import Position

#: the longest ``bench``: a benchmark, not a run
MAX_BENCH_SECONDS = 3600


@click.command("move", short_help="The best move for a position: the database, a proof, or the engine's estimate.")
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
        columns = [("move", "left"), ("visits", "right"), ("win rate", "right"), ("95% interval", "left")]
        what = "the engine's playout win rate for the player who plays it"
        if any(m.estimate.calibrated is not None for m in shown):
            # the probability of a win the rate stands for, by the board's calibration map
            rows = [(*row, "-" if m.estimate.calibrated is None else f"{m.estimate.calibrated:.0%}")
                    for row, m in zip(rows, shown)]
            columns.append(("calibrated", "right"))
            what += "; calibrated: the chance of a win it stands for in self-play games"
        click.echo(f"  estimated moves ({len(rated)}, {what}):")
        _echo_table(columns, rows, indent="    ")
        if len(rated) > len(shown):
            click.echo(f"    ... {len(rated) - len(shown)} more")
    from solver.app.analyst import MIN_VISITS

    unseen = [m.move for m in a.moves.values() if not m.proven and m.estimate is None]
    if unseen:
        click.echo(f"  not searched ({len(unseen)}, fewer than {MIN_VISITS} visits): {' '.join(unseen)}")
    if any(m.source == "proof" for m in a.moves.values()):
        click.echo("  * by a live proof (df-pn or the engine's tree), not from the database")


def _echo_lines(a) -> None:
    """An analysis's top lines, best first: each move's value, its visits, the line."""
    if not a.lines:
        return
    rows = [(f"{i}.", ln.move.shown(brief=True), f"{ln.move.visits:,}" if ln.move.visits else "-", " ".join(ln.moves))
            for i, ln in enumerate(a.lines, 1)]
    click.echo(f"  top lines ({len(a.lines)}; visits: the engine's):")
    _echo_table([("", "right"), ("value", "left"), ("visits", "right"), ("line", "left")], rows, indent="    ")


def _echo_effort(a) -> None:
    """The work an analysis did and its notes."""
    load = f" (+ {a.load_seconds:.1f} s loading the compiled kernels)" if a.load_seconds >= 0.05 else ""
    click.echo(f"  {a.nodes:,} proof nodes, {a.playouts:,} playouts, {a.seconds:.2f} s{load}")
    for note in a.notes:
        click.echo(f"  note: {note}")


@click.command("match", short_help="Play a match between two players: the engine, the engine before its move model, flat Monte Carlo or random.")
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

    A player is 'engine' (MCTS-Solver with the move model's priors, df-pn first),
    'uct' (the engine before the move model: plain UCT), 'mcts' (the engine's tree
    search without the solver and df-pn), 'mcts-flat' (flat Monte Carlo: the same
    playouts spread evenly over the moves), each with ':time=S' (seconds a move,
    default 1) or ':playouts=N' (engine and uct also ',dfpn=N': df-pn's nodes before
    its tree, default 20,000; the engine also its knobs ',select=puct|bias|uct',
    ',cp=X' the prior's weight, ',fpu=X', ',c=X', ',expand=N', ',model=FILE' a move
    model in place of the shipped one), or 'random'.  Each game's seed is fixed by --seed
    and its number, so with playout budgets a match replays exactly, whatever --jobs.

    Every finished game goes to the state file at once: after Ctrl-C or a kill the same
    command plays only the missing games.  Exit code 0, 2 bad input, 1 a game failed,
    130 interrupted.

    \b
    Examples:
      meridians match engine:time=1 random --board 6/7 --games 20
      meridians match engine:playouts=2000 mcts-flat:playouts=2000 --board 5/6 --jobs 2 --json
      meridians match engine:time=0.2 uct:time=0.2 --board 5/6 --games 200 --jobs 2
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


@click.command(short_help="The value of a position and of every move: the database, a proof, or an estimate.")
@click.argument("position")
@click.option("--time", "seconds", type=float, default=10.0, show_default=True,
              help="Budget in seconds: proofs of what the database does not hold, then the engine.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-database", "no_database", is_flag=True,
              help="Search even when the opening database holds the position.")
@click.option("--lines", "n_lines", type=click.IntRange(0, 100), default=3, show_default=True,
              help="The top moves whose lines are shown (multi-PV), best first.")
def lookup(position: str, seconds: float, as_json: bool, no_database: bool, n_lines: int) -> None:
    """The value of POSITION (or the empty BOARD) for the player to move, and of every
    legal move for the player who plays it, as every front end answers it
    (solver.app.analyst): the opening database of the board (2/3, 3/4) when it holds it,
    else a df-pn proof within --time, else the engine's estimate, each labelled; and the
    lines of the --lines best moves, each from where its value came from.

    Exit code 0 when every value is decided, 3 when one is not, 2 bad input.

    \b
    Examples:
      meridians lookup 3/4
      meridians lookup "3/4/5/6/5/4/L2 D" --json
      meridians lookup 5/6 --time 5 --lines 5
    """
    limit = _limit(seconds=seconds)
    pos = _position_arg(position)
    a = _analysed(pos, limit, database=not no_database, lines=n_lines)
    code = 0 if a.decided else EXIT_UNKNOWN
    if as_json:
        click.echo(json.dumps(tagged("lookup", a.as_dict())))
        sys.exit(code)
    click.echo(f"{pos}: {_COLOUR[pos.to_move]} to move: {a.shown()}")
    if a.best is not None:
        click.echo(f"  best move: {a.best}" + (f", line {' '.join(a.line)}" if len(a.line) > 1 and not a.lines else ""))
    _echo_lines(a)
    _echo_moves(a)
    _echo_effort(a)
    sys.exit(code)


@click.command(short_help="Measure random playouts of the compiled core on one core.")
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
