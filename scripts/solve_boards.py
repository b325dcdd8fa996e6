#!/usr/bin/env python3
"""Solve small boards from the empty position and write results/solutions/.

Usage: python scripts/solve_boards.py [--boards 1/2,2/3] [--tt-mb 256] [--pie 2/3] [--pie-tt-mb 16] [--method M]
                                     [--jobs 1] [--pie-time SECONDS] [--pie-max-nodes N]

For each board, writes ``results/solutions/<m>-<m+1>.json`` (the value for Light to move,
the value of every first move, a principal line, nodes, seconds, and the code and rules
versions) and ``results/solutions/<m>-<m+1>-map.svg`` (each point coloured by Light's
result after opening there).  For each ``--pie`` board, writes
``results/solutions/<m>-<m+1>-pie.json`` (for every ordered pair of first stones, Light
point-Dark point, who wins: ``L``, ``D``, ``draw`` or ``unknown``; per class of pairs its
nodes and seconds) and ``<m>-<m+1>-pie-map.svg`` (one small board per Light point).
``--boards ''`` or ``--pie ''`` skips that part.  Files are written through a temporary
file and a rename.  ``--redraw`` draws the maps of the boards named by ``--boards`` and
``--pie`` again from their committed JSON files, with no search (for a new drawing style;
the values are the files').

A pie board too large for one sitting (3/4: about 218 classes of pairs) takes a budget:
``--pie-time`` (wall seconds for the whole run, shared fairly by the classes not yet
started) and ``--pie-max-nodes`` (per class).  Classes still open at the end are
``unknown`` with their effort, and the file says so.  Every finished class goes to the
checkpoint ``solve-<board>-pie-<method>.json`` in the user state folder
(``solver.util.files.state_dir()``: ``$MERIDIANS_STATE_DIR`` or platformdirs' user state
folder) at once, so Ctrl-C loses at most
the classes in progress, and the same command (any budget) resumes: decided classes are
kept, open ones run again with their effort added up.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from solver import Board, Interrupted, Position
from solver.util.files import write_atomic, write_json
from solver.app.openings import default_checkpoint, pie_map_svg, solve_openings
from solver.app.openings.classes import PIE_VARIANT
from solver.util.provenance import provenance
from solver.jobs.runner import DEFAULT_METHOD, CheckpointError
from solver.search.limit import Limit
from solver.search.result import Result
from solver.search.solve import solve
from solver.app.svg import map_svg

OUT = Path(__file__).resolve().parent.parent / "results" / "solutions"


def solution_record(r: Result) -> dict:
    """The fields of a board's solution file from alpha-beta's :func:`solve`: the
    position, its value, every first move's value, the line, and the effort."""
    return {"position": r.position, "value": r.value.value, "moves": {m: v.value for m, v in r.move_values.items()},
            "line": list(r.line), "nodes": r.nodes, "seconds": r.seconds, "classes": r.stats["classes"],
            "verified": r.verified, "verify_nodes": r.stats["verify_nodes"], "tt_hits": r.stats["tt_hits"],
            "notes": list(r.notes)}


def solve_pie(name: str, args: argparse.Namespace) -> None:
    """Write the pie map of board ``name``."""
    board = Board.parse(name)
    pos = Position.start(board)
    path = default_checkpoint(pos, pie=True, method=args.method)
    try:
        limit = Limit(seconds=args.pie_time, nodes=args.pie_max_nodes, tt_mb=args.pie_tt_mb)
        r = solve_openings(pos, pie=True, method=args.method, limit=limit, jobs_n=args.jobs,
                           checkpoint=path, progress_ui="lines")
    except Interrupted as e:
        raise SystemExit(f"solve_boards: {e}; the same command resumes from {path}")
    except (CheckpointError, ValueError) as e:  # a corrupt checkpoint, an absurd budget
        raise SystemExit("solve_boards: " + str(e).replace("--time", "--pie-time"))
    stem = board.name.replace("/", "-") + "-pie"
    budget = "".join(f" --{k} {v:g}" for k, v in (("pie-time", args.pie_time),
                                                   ("pie-max-nodes", args.pie_max_nodes)) if v)
    record = {
        "board": board.name,
        "variant": PIE_VARIANT,
        **provenance(f"python scripts/solve_boards.py --boards '' --pie {board.name} "
                     f"--pie-tt-mb {args.pie_tt_mb:g} --method {args.method} --jobs {args.jobs}{budget}"),
        **r.as_dict(),
    }
    record.pop("checkpoint", None)
    write_json(OUT / f"{stem}.json", record)
    write_atomic(OUT / f"{stem}-map.svg", pie_map_svg(pos, r.pairs))
    print(f"{board.name} pie: {r.summary()}; for the first player: {r.value}; {r.nodes:,} nodes, "
          f"{r.wall_seconds:.2f} s; wrote {OUT / stem}.json and -map.svg", file=sys.stderr)


def redraw(args: argparse.Namespace) -> None:
    """Draw the maps of ``--boards`` and ``--pie`` from their JSON files in ``OUT``."""
    for name, pie in [(b, False) for b in filter(None, args.boards.split(","))] + \
                     [(b, True) for b in filter(None, args.pie.split(","))]:
        board = Board.parse(name)
        stem = board.name.replace("/", "-") + ("-pie" if pie else "")
        try:
            record = json.loads((OUT / f"{stem}.json").read_text())
            if pie:
                svg = pie_map_svg(Position.start(board), dict(record["pairs"]))
            else:
                values = {board.index(m): v for m, v in record["moves"].items()}
                value = record["value"]
                title = (f"{board.name}: Light's first move "
                         f"({'Light wins' if value == 'win' else 'Light loses' if value == 'loss' else value})")
                svg = map_svg(board, values, title=title)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise SystemExit(f"solve_boards: cannot redraw {OUT / stem}-map.svg: {e}")
        write_atomic(OUT / f"{stem}-map.svg", svg)
        print(f"redrew {OUT / stem}-map.svg from {stem}.json", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", default="1/2,2/3")
    ap.add_argument("--pie", default="2/3", help="boards whose pie map to write")
    ap.add_argument("--tt-mb", type=float, default=256)
    ap.add_argument("--pie-tt-mb", type=float, default=16, help="table of each pie job (small positions)")
    ap.add_argument("--method", default=DEFAULT_METHOD, help="search of each pie job")
    ap.add_argument("--jobs", type=int, default=1, help="pie jobs at once")
    ap.add_argument("--pie-time", type=float, default=None,
                    help="wall seconds for the pie run, shared by its classes (default: none)")
    ap.add_argument("--pie-max-nodes", type=int, default=0, help="nodes per pie class (0: no bound)")
    ap.add_argument("--redraw", action="store_true",
                    help="draw the maps again from the committed JSON files (no search)")
    args = ap.parse_args()
    if args.redraw:
        return redraw(args)
    for name in filter(None, args.boards.split(",")):
        board = Board.parse(name)
        r = solve(Position.start(board), Limit(tt_mb=args.tt_mb))
        stem = board.name.replace("/", "-")
        record = {
            "board": board.name,
            **provenance(f"python scripts/solve_boards.py --boards {board.name} --tt-mb {args.tt_mb:g}"),
            "method": "alpha-beta, transposition table, 4 symmetries; re-solved without table",
            **solution_record(r),
        }
        write_json(OUT / f"{stem}.json", record)
        values = {board.index(m): v for m, v in r.move_values.items()}
        title = f"{board.name}: Light's first move ({'Light wins' if r.value == 'win' else 'Light loses' if r.value == 'loss' else r.value})"
        write_atomic(OUT / f"{stem}-map.svg", map_svg(board, values, title=title))
        print(f"{board.name}: {r.value} for Light; {r.nodes:,} nodes in {r.seconds:.2f} s; "
              f"verified={r.verified}; wrote {OUT / stem}.json and -map.svg", file=sys.stderr)
    for name in filter(None, args.pie.split(",")):
        solve_pie(name, args)


if __name__ == "__main__":
    main()
