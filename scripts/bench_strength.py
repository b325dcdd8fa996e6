#!/usr/bin/env python3
"""The engine's strength: a table of seeded matches (solver.app.match), written to a results file.

Usage: python scripts/bench_strength.py [--boards 5/6,6/7] [--games 40] [--playouts 1000]
       [--seed 1] [--seconds S] [--pair A B ...] [--jobs J] [--out results/engine/strength.json]

For each board, the engine (MCTS-Solver, df-pn first) with ``--playouts`` a move plays
``--games`` games, colours alternating, against: uniform random moves; flat Monte Carlo
with the same playouts; the same tree search without the solver and without df-pn
(``mcts``) with the same playouts.  With ``--seconds``, one more match on each board:
the engine against flat Monte Carlo at equal time a move (not reproducible: a time
budget depends on the machine's load).  With ``--pair A B`` (repeatable), the table is
those matches instead (player specs as ``meridians match`` takes them, e.g. ``--pair
engine:time=0.2 uct:time=0.2``).  ``--jobs``: games at once; each match keeps its
finished games in a state file (``meridians match``'s), so the same command resumes.  The issue's targets: >= 99% against random,
>= 90% against flat Monte Carlo at equal time, >= 60% against MCTS without the solver.

A long match can be played in parts, each its own command with its own ``--seed`` and
results file; ``--combine FILE ...`` then writes one table whose rows are the parts' rows
of the same players and board added up (:func:`solver.app.match.combine`), with each
part's file, command and revision.

Playout budgets make every other match replay exactly (same code, same seed).  The file
(JSON: the command line, the code's revision, one row a match with A's score and Elo
interval) is written after each match, so Ctrl-C loses only the match under way.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from solver import Board
from solver.util.errors import Interrupted
from solver.util.files import write_json
from solver.app.match import MAX_JOBS, combine, default_state, parse_player, run_match
from solver.util.provenance import code_revision, provenance

#: the folder of the results file
OUT = Path("results/engine")


def matches(playouts: int, seconds: float | None) -> list[tuple[str, str]]:
    """The (A, B) player specs of one board's table."""
    engine = f"engine:playouts={playouts}"
    rows = [(engine, "random"), (engine, f"mcts-flat:playouts={playouts}"), (engine, f"mcts:playouts={playouts}")]
    if seconds is not None:
        rows.append((f"engine:time={seconds:g}", f"mcts-flat:time={seconds:g}"))
    return rows


def _elo(x: float | None, infinite: str) -> str:
    return f"{infinite:>5}" if x is None else f"{x:5.0f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", default="5/6,6/7")
    ap.add_argument("--games", type=int, default=40, help="games a match (colours alternate)")
    ap.add_argument("--playouts", type=int, default=1000, help="playouts a move of every searching player")
    ap.add_argument("--seconds", type=float, default=None, help="also a match at this time a move against flat MC")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pair", nargs=2, action="append", metavar=("A", "B"), default=None,
                    help="a match of player A against B (repeatable): the table is these matches")
    ap.add_argument("--jobs", type=int, default=1, help="games at once (worker processes)")
    ap.add_argument("--out", default=None, help="the results file (default: results/engine/strength.json)")
    ap.add_argument("--combine", nargs="+", metavar="FILE", default=None,
                    help="play nothing: add up the rows of these results files (parts of one match, other seeds)")
    a = ap.parse_args(argv)
    command = shlex.join(["python", "scripts/bench_strength.py", *(sys.argv[1:] if argv is None else argv)])
    if a.combine:
        return combined(a.combine, Path(a.out) if a.out else Path(OUT) / "strength.json", command)
    try:
        boards = [Board.parse(b).name for b in a.boards.split(",")]
        if a.games < 1:
            raise ValueError(f"--games {a.games}: give a whole number of at least 1")
        if not 1 <= a.jobs <= MAX_JOBS:
            raise ValueError(f"--jobs {a.jobs}: give a whole number from 1 to {MAX_JOBS}")
        specs = a.pair if a.pair else matches(a.playouts, a.seconds)
        pairs = [(parse_player(x), parse_player(y)) for x, y in specs]
    except ValueError as e:
        print(f"bench_strength: {e}", file=sys.stderr)
        return 2
    out = Path(a.out) if a.out else Path(OUT) / "strength.json"
    record = {**provenance(command, revision=code_revision()), "rows": []}
    try:
        for board in boards:
            for pa, pb in pairs:
                t0 = time.perf_counter()

                def progress(g: int, r, board=board, pa=pa, pb=pb, t0=t0) -> None:
                    print(f"\r{board} {pa.spec} vs {pb.spec}: {r.a_wins}-{r.b_wins}-{r.draws} after {g} games"
                          f" ({time.perf_counter() - t0:.0f} s)", end="", file=sys.stderr, flush=True)

                r = run_match(pa, pb, board, a.games, a.seed, progress=progress, jobs=a.jobs,
                              state=default_state(pa, pb, board, a.seed), remove_state=True)
                print(file=sys.stderr)
                row = {k: v for k, v in r.as_dict().items() if k != "results"}
                row["seconds"] = round(time.perf_counter() - t0, 1)
                record["rows"].append(row)
                write_json(out, record)
    except (KeyboardInterrupt, Interrupted):
        print(f"\ninterrupted: {len(record['rows'])} matches in {out}; the same command resumes", file=sys.stderr)
        return 130
    show(record["rows"])
    return 0


def combined(files: list[str], out: Path, command: str) -> int:
    """Write ``out``: the rows of ``files`` of the same players and board added up."""
    parts, groups = [], {}
    try:
        for f in files:
            data = json.loads(Path(f).read_text(encoding="utf-8"))
            parts.append({"file": str(f), **{k: data.get(k) for k in ("command", "revision", "rules")}})
            for r in data["rows"]:
                groups.setdefault((r["a"], r["b"], r["board"]), []).append(r)
        rows = [combine(g) for g in groups.values()]
    except (OSError, ValueError, KeyError, TypeError) as e:
        what = f"no field {e}" if isinstance(e, KeyError) else str(e)
        print(f"bench_strength: cannot combine {' '.join(files)}: {what}", file=sys.stderr)
        return 2
    write_json(out, {**provenance(command, revision=code_revision()), "parts": parts, "rows": rows})
    show(rows)
    return 0


def show(rows: list[dict]) -> None:
    """The table of the matches' rows."""
    print(f"{'board':5} {'A':24} {'B':26} {'score':>9} {'A wins':>7} {'Elo (95%)':>22}")
    for row in rows:
        lo, hi, d = row["elo_low"], row["elo_high"], row["elo"]
        d_inf = "+inf" if row["score"] >= 0.5 else "-inf"
        print(f"{row['board']:5} {row['a']:24} {row['b']:26} {row['a_wins']:>3}-{row['b_wins']}-{row['draws']:<3}"
              f" {row['score']:7.0%} {_elo(d, d_inf)} [{_elo(lo, '-inf')}, {_elo(hi, '+inf')}]")


if __name__ == "__main__":
    sys.exit(main())
