"""The ``meridians`` commands that solve and prove: ``solve``, ``verify``, and
``check`` (a certificate, with the reference rules only)."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from solver.util.errors import Interrupted
from solver.util.files import write_atomic
from solver.app.schema import tagged
from solver.search.methods import DEFAULT_METHOD, METHODS
from solver.search.values import Value
from solver.jobs.workers import SchedulerAddressError, check_scheduler_address

from .common import EXIT_UNKNOWN, _COLOUR, _command_line, _echo_table, _fail, _limit, _position_arg, _read_game_record

if TYPE_CHECKING:
    from solver.rules.position import Position


def _check_scheduler(address: str) -> None:
    """A Dask scheduler address, checked by the rule :class:`Pool` applies, before any
    connection is tried."""
    try:
        check_scheduler_address(address)
    except SchedulerAddressError as e:
        _fail(f"--scheduler: {e}")


@click.command(short_help="Solve a position or an empty board: its value and every move's, in parallel.")
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


# -- the opening database: solve's first look -------------------------------------------
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


def _jlpns_progress():
    """A JL-PNS progress callback: a line on stderr every 10 seconds."""
    shown = [0.0]

    def progress(info: dict) -> None:
        if info.get("stage") == "certificate" or info["seconds"] - shown[0] < 10:
            return
        shown[0] = info["seconds"]
        click.echo(f"JL-PNS: {info['seconds']:6.0f} s {info['jobs']:>6,} jobs {info['nodes']:>14,} expansions, "
                   f"{info['running']} running, tree of {info['tree']:,}", err=True)

    return progress


@click.command(short_help="Prove or refute a claim about a position (or a game record's end).")
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
@click.option("--workers", type=click.IntRange(min=1, max=4096), default=None,
              help="Job-level proof search (JL-PNS) instead: its jobs on this many processes (a table of "
                   "--tt-mb each), or with --scheduler on a Dask cluster's workers; for proofs larger than "
                   "one machine (on one machine --jobs measured faster).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="JL-PNS on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786): "
                   "'dask scheduler' and 'dask worker ADDRESS' on machines with this package installed.")
@click.option("--knowledge/--no-knowledge", "knowledge", default=None,
              help="df-pn with or without the settled rule (an enclosure whose moves outlast the other "
                   "player's); default: without (solver.search.prove.DEFAULT_KNOWLEDGE).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-database", "no_database", is_flag=True,
              help="Search even when the opening database holds the position (it is used only when no "
                   "--certificate and no search option (--jobs, --tt-mb, --knowledge) is given).")
@click.pass_context
def verify(ctx, position, claim, seconds, max_plies, cert_file, game_file, moves, board_name, tt_mb, jobs_n,
           workers, scheduler, knowledge, as_json, no_database) -> None:
    """Prove or refute a claim about POSITION: its exact value for the player to move.

    Exit code 0 proven, 1 refuted, 3 unknown (the budget ran out), 2 bad input.  Without
    --claim the value found is 'proven' when it is known.  A position that the opening
    database holds is answered from it at once (method 'database').  Without --time a verify on a
    board larger than 3/4 gets a budget of 60 s (a proof of an opening there cannot
    finish); the output says which budget was used.  --jobs N runs df-pn in N processes
    on this one position with one shared table; the proof is re-walked in one process
    before it is reported.  --workers N (or --scheduler ADDRESS) runs job-level proof
    search: a master tree here whose leaves are df-pn jobs on N processes (or a Dask
    cluster), each job's proof re-walked; its certificate is assembled from the jobs.

    \b
    Examples:
      meridians verify '2/3/4/3/2 L' --claim win --jobs 2
      meridians verify --game game.txt --time 30 --certificate proof.json.gz
    """
    from solver.app.verify import EXIT, default_seconds, replay, start_position, verdict_of, verify_position

    limit = _limit(seconds=seconds, tt_mb=tt_mb)
    if scheduler is not None:
        _check_scheduler(scheduler)
    if (workers or scheduler) and (jobs_n != 1 or knowledge):
        _fail("--workers and --scheduler (JL-PNS) go without --jobs and --knowledge")
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
                       for name in ("jobs_n", "tt_mb", "knowledge", "workers", "scheduler"))
        if not (no_database or cert_file or searched):
            from solver.app.verify import database_verdict

            v = database_verdict(pos, claim)
            if v is not None:
                budget, budget_note = None, None  # no search: no budget used
        if v is None:
            v = verify_position(pos, claim=claim, limit=replace(limit, seconds=budget), max_plies=max_plies,
                                jobs=jobs_n, knowledge=knowledge, workers=workers or 0, scheduler=scheduler,
                                certificate=cert_file if workers or scheduler else None,
                                progress=_jlpns_progress() if workers or scheduler else None)
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
            if v.method == "jlpns" and v.proof:  # written by the search, from its jobs' proofs
                out["certificate"] = {"file": cert_file, "positions": v.proof["node_count"]}
            elif v.value in (Value.WIN, Value.LOSS) and (v.method == "dfpn" or pos.outcome is not None):
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


@click.command("check")
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
