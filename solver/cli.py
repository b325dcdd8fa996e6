"""The ``meridians`` command: thin; it parses arguments and calls the library.

Every error the user can cause (a malformed position, an unknown board or point, an
illegal move) ends in one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import random
import sys
import time

import click

from . import RULES_VERSION, __version__
from .board import Board
from .files import write_atomic
from .position import Game, Position

EXIT_USAGE = 2


def _fail(message: str) -> None:
    click.echo(f"meridians: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def _position_arg(text: str) -> Position:
    """A position in notation, or a board name for its empty start position."""
    if " " in text.strip():
        return Position.parse(text)
    return Position.start(Board.parse(text))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="meridians", message=f"%(prog)s %(version)s (rules {RULES_VERSION})")
def cli() -> None:
    """Meridians: rules engine, exact solver and puzzle generator."""


@cli.command()
@click.argument("position")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False), help="Also write an SVG picture here.")
def show(position: str, svg_file: str | None) -> None:
    """Draw POSITION (notation such as '2/3/4/3/2 L', or a board such as 6/7)."""
    pos = _position_arg(position)
    click.echo(pos.diagram())
    moves = pos.legal_moves()
    if moves:
        click.echo(f"legal moves ({len(moves)}): {' '.join(moves)}")
    if svg_file:
        write_atomic(svg_file, pos.svg(title=str(pos)))
        click.echo(f"wrote {svg_file}")


@cli.command()
@click.option("--board", "board_name", default="6/7", show_default=True, help="Board, such as 6/7.")
@click.option("--seed", type=int, default=None, help="Seed of the random moves (default: random).")
@click.option("--moves", default=None, help="Moves to play first, comma-separated: c1,e2,c3.")
@click.option("--start", default=None, help="Start from this position instead of the empty board.")
@click.option("--max-plies", type=click.IntRange(min=0), default=None, help="Stop after this many moves.")
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False), help="Write the final position as SVG.")
@click.option("--quiet", is_flag=True, help="Print only the result line.")
def play(board_name, seed, moves, start, max_plies, svg_file, quiet) -> None:
    """Play a game: the given --moves, then random moves until the game ends."""
    game = Game(Position.parse(start) if start else Position.start(Board.parse(board_name)))
    given = [m.strip() for m in moves.split(",") if m.strip()] if moves else []
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


@cli.command()
@click.argument("position")
@click.argument("depth", type=click.IntRange(min=0, max=64))
@click.option("--divide", is_flag=True, help="Also print the count below each first move.")
def perft(position: str, depth: int, divide: bool) -> None:
    """Count the leaves of the move tree DEPTH plies below POSITION."""
    from . import core

    pos = _position_arg(position)
    t0 = time.perf_counter()
    if divide and depth >= 1:
        total = 0
        for m in pos.legal_moves():
            child = pos.play(m)
            n = core.run_perft(pos.board, child._st, child._side, depth - 1)
            click.echo(f"{m}: {n}")
            total += n
    else:
        total = core.run_perft(pos.board, pos._st, pos._side, depth) if pos.outcome is None or depth == 0 else 0
    dt = time.perf_counter() - t0
    click.echo(f"{total}")
    click.echo(f"perft({depth}) = {total} in {dt:.3f} s", err=True)


@cli.command()
@click.argument("position")
@click.option("--pie", is_flag=True, help="The pie variant: who wins after every pair of first stones (Light, Dark).")
@click.option("--method", type=click.Choice(["dfpn", "alphabeta", "horizon"]), default="dfpn", show_default=True,
              help="Search of each job (see solver/search/prove.py).")
@click.option("--time", "seconds", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Wall-time budget in seconds, shared fairly by the jobs; unproven classes are 'unknown' with their effort.")
@click.option("--jobs", "jobs_n", type=click.IntRange(min=1), default=None,
              help="Jobs at once (default 1; with --backend dask, the cluster's threads).")
@click.option("--tt-mb", type=click.FloatRange(min=0.001), default=None,
              help="Transposition table size of each job in MiB (default 16 on boards up to 2/3, 1024 on larger ones).")
@click.option("--max-nodes", type=click.IntRange(min=0), default=0, show_default=True,
              help="Node budget of each job (0: none); beyond it values are 'unknown', never guessed.")
@click.option("--checkpoint", "checkpoint", type=click.Path(dir_okay=False), default=None,
              help="Checkpoint file (default .meridians/solve-<board>...json, removed once every job is decided).")
@click.option("--backend", type=click.Choice(["loky", "dask"]), default="loky", show_default=True,
              help="loky: worker processes here; dask: the cluster at --scheduler.")
@click.option("--scheduler", default=None, help="Dask scheduler address, such as tcp://10.0.0.5:8786.")
@click.option("--map", "map_file", type=click.Path(dir_okay=False), help="Write an SVG map of the value of every move (or pie pair).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def solve(ctx: click.Context, position: str, pie: bool, method: str, seconds: float | None,
          jobs_n: int | None, tt_mb: float | None, max_nodes: int, checkpoint: str | None, backend: str,
          scheduler: str | None, map_file: str | None, as_json: bool) -> None:
    """Solve POSITION (or the empty BOARD): its value and the value of every move.

    One job per class of moves up to symmetry (per class of pairs with --pie), run in
    parallel with --jobs; every finished job goes to a checkpoint at once, so that after
    Ctrl-C or a kill the same command resumes where it stopped.
    """
    from .openings import default_checkpoint, pie_map_svg, solve_openings
    from .search.jobs import JobError, JobsInterrupted
    from .svg import map_svg

    pos = _position_arg(position)
    if tt_mb is None:
        # a big table costs its allocation time on a board solved in a fraction of a second
        tt_mb = 16 if len(pos.board.names) <= 14 else 1024
    if scheduler and backend != "dask":
        _fail("--scheduler needs --backend dask")
    keep = checkpoint is not None
    path = checkpoint or default_checkpoint(pos, pie=pie, method=method)
    params = {k: v for k, v in ctx.params.items() if k not in ("map_file", "as_json")}
    params["method"] = method
    mode = sys.stderr.isatty() or not as_json  # JSON on a pipe: no progress lines
    try:
        r = solve_openings(pos, pie=pie, method=method, seconds=seconds, jobs_n=jobs_n, tt_mb=tt_mb,
                           max_nodes=max_nodes, checkpoint=path, keep_checkpoint=keep, backend=backend,
                           scheduler=scheduler, progress_ui=mode, params=params)
    except JobsInterrupted as e:
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
    if as_json:
        click.echo(json.dumps(r.as_dict()))
        return
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
        return
    click.echo(f"  {'class':8} {'members':30} {'value':8} {'nodes':>14} {'seconds':>9} {'runs':>4}")
    for c in r.classes:
        members = " ".join(c.members)
        members = members if len(members) <= 30 else members[:27] + "..."
        mark = " (resumed)" if c.resumed else ""
        click.echo(f"  {c.key:8} {members:30} {c.shown:8} {c.nodes:>14,} {c.seconds:>9.2f} {c.runs:>4}{mark}")
    resumed = f", {r.resumed} resumed from {r.checkpoint}" if r.resumed else ""
    click.echo(f"  {len(r.classes)} classes by {method}: {r.nodes:,} nodes, {r.seconds:.2f} s of search, "
               f"{r.wall_seconds:.2f} s wall{resumed}")
    if r.checkpoint:
        click.echo(f"  checkpoint: {r.checkpoint}")
    for note in r.notes:
        click.echo(f"  note: {note}")


_COLOUR = {"L": "Light", "D": "Dark"}


@cli.command()
@click.argument("position", required=False)
@click.option("--claim", type=click.Choice(["win", "loss", "draw"]), default=None,
              help="The claimed value for the player to move (of the final position with --game).")
@click.option("--time", "seconds", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Wall-time budget in seconds; beyond it the verdict is 'unknown', never a guess.")
@click.option("--max-plies", type=click.IntRange(min=0), default=None,
              help="If df-pn does not decide: look for the shortest win within this many plies (horizon search).")
@click.option("--certificate", "cert_file", type=click.Path(dir_okay=False), default=None,
              help="Write the proof as a certificate that 'meridians check' verifies.")
@click.option("--game", "game_file", type=click.Path(dir_okay=False), default=None,
              help="Replay a game record (moves by comma, space or line; optional first line a start position).")
@click.option("--moves", default=None, help="Moves from POSITION (or the empty --board), comma-separated: c1,e2,c3.")
@click.option("--board", "board_name", default=None, help="Board of --moves or --game without a start (default 6/7).")
@click.option("--tt-mb", type=click.FloatRange(min=0.001), default=256, show_default=True,
              help="df-pn table size in MiB.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def verify(position, claim, seconds, max_plies, cert_file, game_file, moves, board_name, tt_mb, as_json) -> None:
    """Prove or refute a claim about POSITION: its exact value for the player to move.

    Exit code 0 proven, 1 refuted, 3 unknown (the budget ran out), 2 bad input.  Without
    --claim the value found is 'proven' when it is known.
    """
    from .search.certificate import CertificateError, write_certificate
    from .verify import EXIT, GameRecordError, parse_game, replay, start_position, verdict_of, verify_position

    record_result = None
    start_text = position
    move_list: list[str] = []
    if game_file is not None:
        if moves:
            _fail("give either --game or --moves, not both")
        try:
            with open(game_file, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            _fail(f"cannot read {game_file}: {e.strerror or e}")
        try:
            start, move_list, record_result = parse_game(text)
        except GameRecordError as e:
            _fail(f"{game_file}: {e}")
        if start is not None:
            if position is not None:
                _fail(f"{game_file} gives its start position; give no POSITION")
            start_text = start
    elif moves is not None:
        move_list = [m.strip() for m in moves.split(",") if m.strip()]
    elif position is None:
        _fail("give a POSITION, --moves or --game")
    try:
        pos0 = start_position(start_text, board_name)
        game = replay(pos0, move_list)
    except ValueError as e:
        _fail(f"{game_file}: {e}" if game_file else str(e))
    pos = game.position
    side = _COLOUR[pos.to_move]
    if claim is None and record_result is not None:
        claim = "draw" if record_result == "draw" else ("win" if record_result == pos.to_move else "loss")
    if pos.outcome is not None:
        o = pos.outcome
        value = "draw" if o == "draw" else ("win" if o == pos.to_move else "loss")
        from .verify import Verdict

        v = Verdict(str(pos), value, verdict_of(value, claim), claim, method="rules")
        v.notes.append(f"the game is over: {pos.outcome_reason}")
    else:
        v = verify_position(pos, claim=claim, seconds=seconds, max_plies=max_plies, tt_mb=tt_mb)
    out = v.as_dict()
    out["to_move"] = pos.to_move
    from .verify import territory

    out["territory"] = territory(pos)
    if move_list:
        out["game"] = {"start": str(pos0), "moves": len(move_list), "claimed_result": record_result}
    if cert_file:
        try:
            if v.value in ("win", "loss") and (v.method == "dfpn" or pos.outcome is not None):
                cert = write_certificate(cert_file, pos, v.proof if pos.outcome is None else None, tt_mb=tt_mb)
                out["certificate"] = {"file": cert_file, "positions": cert["node_count"]}
            else:
                raise CertificateError(f"no df-pn proof (value {v.value}, by {v.method})")
        except CertificateError as e:
            out["certificate"] = {"file": None, "error": str(e)}
            click.echo(f"meridians: no certificate written: {e}", err=True)
    if as_json:
        click.echo(json.dumps(out))
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
        click.echo(f"  {v.method}: {v.nodes:,} nodes, {v.seconds:.2f} s{horizon}")
        for note in v.notes:
            click.echo(f"  note: {note}")
        if out["territory"]:
            safe = out["territory"]["safe_points"]
            click.echo(f"  territory (heuristic, not proven; filling stage): safe points Light {safe['L']}, "
                       f"Dark {safe['D']}")
        if out.get("certificate", {}).get("file"):
            click.echo(f"  certificate: {cert_file} ({out['certificate']['positions']} positions)")
    sys.exit(EXIT[v.verdict])


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

    from .certificate_check import CertificateError, CertificateFileError, check_file, summary

    def progress(stage: str, done: int, total: int) -> None:
        click.echo(f"  {stage} {done:,} of {total:,} positions ({time.perf_counter() - t0:.0f} s)", err=True)

    t0 = time.perf_counter()
    try:
        head, n = check_file(file, progress, jobs=jobs_n or os.cpu_count() or 1)
    except CertificateFileError as e:
        _fail(str(e))
    except CertificateError as e:
        click.echo(f"meridians: certificate rejected: {e}", err=True)
        sys.exit(1)
    click.echo(summary(head, n, time.perf_counter() - t0))


@cli.command()
@click.option("--board", "board_name", default="6/7", show_default=True, help="Board, such as 6/7.")
@click.option("--seconds", type=click.FloatRange(min=0.01), default=3.0, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench(board_name: str, seconds: float, seed: int, as_json: bool) -> None:
    """Random playouts of the compiled core from the empty board, on one core."""
    from .bench import playout_rate

    board = Board.parse(board_name)
    r = playout_rate(board, seconds, seed)
    if as_json:
        click.echo(json.dumps(r))
    else:
        click.echo(
            f"{r['board']}: {r['playouts_per_s']:,.0f} playouts/s, {r['plies_per_s']:,.0f} plies/s, "
            f"{r['plies_per_playout']:.1f} plies per game ({r['playouts']} games in {r['seconds']:.2f} s; "
            f"Light won {r['light_wins']}, Dark {r['dark_wins']})"
        )


def _add_plugin_commands(group: click.Group) -> None:
    """Add the click commands that installed packages register in the entry-point group
    ``meridians.commands`` (``puzzles = "puzzles.cli:puzzles"``): they extend the command
    without this package ever importing them."""
    from importlib.metadata import entry_points

    for ep in entry_points(group="meridians.commands"):
        if ep.name in group.commands:
            continue  # a built-in command wins over a plugin of the same name
        try:
            command = ep.load()
        except Exception as e:  # a broken plugin must not take the solver's commands down with it
            click.echo(f"meridians: warning: command {ep.name!r} ({ep.value}) not loaded: {e}", err=True)
            continue
        group.add_command(command, ep.name)


_add_plugin_commands(cli)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the command group, turning every user error into one line."""
    try:
        code = cli.main(args=argv, prog_name="meridians", standalone_mode=False)
    except click.UsageError as e:
        # command_path names a subcommand of a group too ('meridians puzzles show')
        hint = f" (see '{e.ctx.command_path} --help')" if e.ctx and e.ctx.parent else " (see 'meridians --help')"
        _fail(e.format_message() + hint)
    except click.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        _fail(e.format_message())
    except (ValueError, OSError) as e:
        _fail(str(e))
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
