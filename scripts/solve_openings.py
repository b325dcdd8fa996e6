#!/usr/bin/env python3
"""Prove the first-move classes of a board one at a time, each to the end, and collect
them into the board's opening table.

Usage: python scripts/solve_openings.py [--board 3/4] [--pie] [--classes a1,b2] [--time S]
                                        [--max-nodes N] [--tt-mb M] [--collect] [--status]
                                        [--certificates DIR] [--plant] [--tables DIR]

Each class of first moves (the moves the board's symmetries map onto each other; a class
is named by its first member, as ``meridians solve`` lists them) is one df-pn search from
the position after the move, Dark to move, with ``--time`` seconds and ``--max-nodes``
expansions (default: no limit; a node budget, unlike the clock, is the same however loaded
the machine is).
A finished class is written at once to ``results/solutions/<board>-<hash>-value.json``
(the format of ``scripts/prove_position.py``, so either script continues the other's
work); a class already decided there is skipped, so the same command resumes after an
interruption and two commands with different ``--classes`` share the work of two cores.
A class whose budget runs out is written as ``unknown`` with its effort; its df-pn table
is saved to ``--tables DIR/<board>-<class>.table`` (default ``tables`` in the user cache
folder, ``solver.util.files.cache_dir()``: ``~/.cache/meridians/tables`` on Linux;
a 9,000 MiB search writes a 7.2 GB file), and so it is when Ctrl-C or SIGTERM stops the
search: the next run of the class loads it and goes on where the search stopped, with the
same ``--tt-mb``.  Its record's expansions and seconds then count every run.  The table
file is removed once the class is decided (and its certificate checked, when asked for).
With ``--certificates DIR``, each decided class's proof is also written out as a
certificate, ``DIR/<board>-<class>.json.gz`` (the format ``meridians check`` reads), and
checked at once; the class record keeps its size, SHA-256, positions and the checker's
result, so a certificate too large to commit can be regenerated and compared.  A class
already decided without a certificate gets one: if its file is already in DIR (a run
stopped while checking it), that file is checked and recorded; else the class is proven
again (its record is replaced by the new search's, with the certificate).
While a process works on a class, ``<board>-<hash>-value.running`` beside its file holds
the process id, and other processes pass over that class.

With ``--pie``, the classes are those of the pie variant's pairs of first stones (Light's
stone, Dark's stone, Light to move; named by their first pair, ``a1-a2``): their records
are in ``results/solutions/<board>-pie/``, and after each class ``<board>-pie.json`` (who
wins after each of the pairs, per class its value, effort and checked certificate) and
``<board>-pie-map.svg`` are written (a pie file of another command that decides more pairs
is left alone until these records decide as many).  ``--plant`` (with ``--certificates``)
puts the certificates in DIR of the decided classes with the same Light stone in the
table before a class is searched: the pairs of one stone transpose into each other, so
the search may end where their proofs begin.  They only guide: the proof is re-walked
and its own certificate built and checked as always, and the record lists them
(``planted``).

After each class (and with ``--collect`` alone, without searching), writes
``results/solutions/<board>.json``: Light's value after each first move, per class its
value, expansions, seconds, command, revision and checked certificate (its file name,
positions, size, SHA-256), and the first player's value (a win if one class wins, a loss if
every class loses, else unknown), with the map ``<board>-map.svg``.

The work is done by :mod:`solver.app.openings.classes`; this is its command line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from solver import Board, Interrupted
from solver.util.files import cache_dir, interrupt_on_sigterm
from solver.app.openings.classes import ClassError, ClassSettings, collect, prove_classes, status
from solver.util.provenance import code_revision
from solver.search.limit import LimitError
from solver.search.tablefile import TableFileError

OUT = Path(__file__).resolve().parent.parent / "results" / "solutions"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="3/4")
    ap.add_argument("--pie", action="store_true",
                    help="the classes of pairs of first stones of the pie variant")
    ap.add_argument("--classes", default="", help="comma-separated class names (default: all)")
    ap.add_argument("--time", type=float, default=None, help="seconds per class (default: no limit)")
    ap.add_argument("--max-nodes", type=int, default=0,
                    help="expansions per class (default 0: no limit); unlike --time, the same on a loaded machine")
    ap.add_argument("--tt-mb", type=float, default=4096.0)
    ap.add_argument("--collect", action="store_true", help="only write the opening table")
    ap.add_argument("--status", action="store_true",
                    help="only print each class's value, effort, certificate and saved table")
    ap.add_argument("--certificates", default=None, metavar="DIR",
                    help="write each decided class's certificate (gzip) to DIR and check it")
    ap.add_argument("--certificate-nodes", type=int, default=50_000_000,
                    help="largest certificate to build (positions)")
    ap.add_argument("--check-jobs", type=int, default=1, metavar="N",
                    help="processes checking a certificate (default 1: another search may "
                    "hold the other core)")
    ap.add_argument("--plant", action="store_true",
                    help="with --pie and --certificates: before a class is searched, put the "
                    "checked certificates of the decided classes with its Light stone in the table")
    ap.add_argument("--tables", default=str(cache_dir() / "tables"),
                    metavar="DIR", help="where a stopped class's table is saved and resumed "
                    "from ('none': nowhere; default: %(default)s)")
    args = ap.parse_args()
    tables = None if args.tables.lower() == "none" else Path(args.tables)
    if args.plant and not (args.pie and args.certificates):
        sys.exit("solve_openings: --plant needs --pie and --certificates DIR (the certificates it plants)")
    try:
        board = Board.parse(args.board)
    except ValueError as e:
        sys.exit(f"solve_openings: {e}")
    try:
        if args.status:
            print(status(OUT, board, tables, pie=args.pie))
            return
        if args.collect:
            rec = collect(OUT, board, pie=args.pie)
            who = "the first player" if args.pie else "Light"
            print(f"{board.name}{' pie' if args.pie else ''}: {rec['value']} for {who}; "
                  f"{rec['decided']} decided", file=sys.stderr)
            return
        # a background run is stopped with SIGTERM: let it save its table as Ctrl-C does
        interrupt_on_sigterm()
        settings = ClassSettings(
            OUT, seconds=args.time, nodes=args.max_nodes, tt_mb=args.tt_mb, tables=tables,
            certificates=Path(args.certificates) if args.certificates else None,
            certificate_nodes=args.certificate_nodes, check_jobs=args.check_jobs,
            # the revision of the code this process runs, taken once at its start: the
            # solver is imported now, so later commits do not change what it runs
            revision=code_revision(), pie=args.pie, plant=args.plant,
        )
        settings.limit()  # a budget that cannot be is refused before any class is read or searched
        prove_classes(board, [c for c in args.classes.split(",") if c], settings)
    except (ClassError, TableFileError, Interrupted, LimitError) as e:
        sys.exit(f"solve_openings: {e}")
    except KeyboardInterrupt:
        # between classes (a search in progress raises Interrupted): nothing is half-done
        sys.exit("solve_openings: interrupted between classes; every class record written is kept")


if __name__ == "__main__":
    main()
