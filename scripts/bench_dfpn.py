#!/usr/bin/env python3
"""What each df-pn strengthening buys: expansions with and without it on the same positions.

Usage: python scripts/bench_dfpn.py [--positions 6] [--plies 8,10,12] [--expansions 3000000]
                                    [--tt-mb 1024] [--skip-3-4] [--extra all | NAME,...]
                                    [--only NAME,...]

Runs df-pn (player to move as prover) on the empty 2/3 board and after each of its
classes of first moves (values checked against results/solutions/2-3.json), and on seeded 3/4
positions ``--plies`` plies into random games, once per variant:

- ``plain``: all initial numbers 1, no 1+epsilon, none of the knowledge below;
- ``before``: the search as it was before issue 6 (1+epsilon with eps 0.25, initial
  numbers from move counts shifted right by 2 for dead groups, symmetries, table);
- ``before`` plus one technique: ``dedup`` (moves reaching the same position are one
  child), ``lookahead`` (a child whose player loses with every move is a won leaf,
  looked for when all its groups are dead), ``lookahead-always``, ``abandon`` (a move
  that gave up the mover's own dead groups starts with a doubled number);
- ``all``: the default search (:func:`solver.search.dfpn.new_dfpn`'s defaults: the three
  techniques, eps 0.5 and dead groups halving the number, chosen with ``--extra``);
- with ``--extra``, variants of ``all`` that were candidates for the defaults (``EXTRA``).

Prints, per variant, positions decided, expansions and seconds, and expansions relative
to ``before`` and to ``plain`` on the positions every variant decided; values must agree.
All in one run, so machine noise does not enter the ratios (they count expansions; the
seconds show what a technique costs per expansion).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from solver import Board, Position
from solver.app.openings import opening_jobs
from solver.rules.randomgame import random_positions
from solver.search import dfpn as F
from solver.search.values import Value
from solver.search.variants import PLAIN, dfpn_variant

SOLVED_2_3 = Path(__file__).resolve().parent.parent / "results" / "solutions" / "2-3.json"

BEFORE = dict(eps=0.25, dead_shift=2, dedup=False, lookahead=F.LOOK_OFF, abandon=False, mobility=False)
VARIANTS = {
    "plain": PLAIN,
    "before": BEFORE,
    "before+dedup": {**BEFORE, "dedup": True},
    "before+lookahead": {**BEFORE, "lookahead": F.LOOK_ALL_DEAD},
    "before+lookahead-always": {**BEFORE, "lookahead": F.LOOK_ALWAYS},
    "before+abandon": {**BEFORE, "abandon": True},
    "all": {},
}
#: tried against "all" with --extra: candidates for the defaults
EXTRA = {
    "all+lookahead-always": {"lookahead": F.LOOK_ALWAYS},
    "all+mobility": {"mobility": True},
    "all-eps0.5": {"eps": 0.5},
    "all-eps1": {"eps": 1.0},
    "all-deadshift1": {"dead_shift": 1},
    "all-abandon+mobility": {"abandon": False, "mobility": True},
    "all-eps0.5-deadshift1": {"eps": 0.5, "dead_shift": 1},
    "all-table16MB": {"tt_mb": 16},
    "all-table128MB": {"tt_mb": 128},
}


def run(pos: Position, expansions: int, tt_mb: float, options: dict) -> tuple[str, int, float]:
    """(value for the player to move, expansions, seconds) of one df-pn search; a variant
    may set its own ``tt_mb``."""
    options = dict(options)
    return dfpn_variant(pos, expansions, options.pop("tt_mb", tt_mb), **options)


def table(title: str, todo: list[Position], expansions: int, tt_mb: float) -> dict:
    run(todo[0], 100, 1, {})  # compile or load before timing
    runs = {}
    for name, opts in VARIANTS.items():
        runs[name] = [run(p, expansions, tt_mb, opts) for p in todo]
    for i, p in enumerate(todo):
        vals = {runs[n][i][0] for n in VARIANTS} - {"unknown"}
        assert len(vals) <= 1, f"the variants disagree on {p}: { {n: runs[n][i][0] for n in VARIANTS} }"
    common = [i for i in range(len(todo)) if all(runs[n][i][0] != "unknown" for n in VARIANTS)]
    before = sum(runs["before"][i][1] for i in common) or 1
    plain = sum(runs["plain"][i][1] for i in common) or 1
    print(f"\n{title}: {len(todo)} positions, {expansions:,} expansions each at most; "
          f"ratios on the {len(common)} every variant decided")
    print(f"{'variant':>24} {'decided':>8} {'expansions':>14} {'seconds':>8} {'exp/s':>9} "
          f"{'/before':>8} {'/plain':>8}")
    for name in VARIANTS:
        rs = runs[name]
        exp = sum(r[1] for r in rs)
        secs = sum(r[2] for r in rs)
        mine = sum(rs[i][1] for i in common)
        print(f"{name:>24} {sum(r[0] != 'unknown' for r in rs):>5}/{len(rs):<2} {exp:>14,} {secs:>8.1f} "
              f"{exp / max(secs, 1e-9):>9,.0f} {mine / before:>8.3f} {mine / plain:>8.3f}")
    if len(todo) > 1:
        print("  per position (expansions, '-' undecided):")
        for i, p in enumerate(todo):
            cells = " ".join(f"{(runs[n][i][1] if runs[n][i][0] != 'unknown' else '-'):>10}" for n in VARIANTS)
            print(f"  {str(p):<36} {runs['before'][i][0]:>7} {cells}")
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=6, help="3/4 positions per ply count")
    ap.add_argument("--plies", default="8,10,12")
    ap.add_argument("--expansions", type=int, default=3_000_000)
    ap.add_argument("--tt-mb", type=float, default=1024)
    ap.add_argument("--skip-3-4", action="store_true")
    ap.add_argument("--extra", default="", help="comma-separated EXTRA variants to add (or 'all')")
    ap.add_argument("--only", default="", help="comma-separated variants to run instead of all "
                    "(plain and before are always run: the ratios are against them)")
    args = ap.parse_args()
    for name in (EXTRA if args.extra == "all" else filter(None, args.extra.split(","))):
        if name not in EXTRA:
            raise SystemExit(f"bench_dfpn: no variant {name!r} (extra variants: {', '.join(EXTRA)})")
        VARIANTS[name] = EXTRA[name]
    if args.only:
        keep = {"plain", "before", *args.only.split(",")}
        for name in keep - set(VARIANTS):
            raise SystemExit(f"bench_dfpn: no variant {name!r} (variants: {', '.join(VARIANTS)})")
        for name in set(VARIANTS) - keep:
            del VARIANTS[name]
    two = Board.parse("2/3")
    start = Position.start(two)
    firsts = [Position.parse(j.position) for j in opening_jobs(start)]
    runs = table("2/3, the empty board and the position after each class of first moves",
                 [start] + firsts, 10**9, args.tt_mb)
    # the strengthened search must leave 2/3's committed solution as it is
    solved = json.loads(SOLVED_2_3.read_text())
    assert runs["before"][0][0] == solved["value"], "2/3: the empty board's value changed"
    for job, r in zip(opening_jobs(start), runs["before"][1:]):
        light = Value(r[0]).negated()
        assert all(solved["moves"][m] == light for m in job.members), f"2/3: {job.key} changed"
    print(f"  values equal to {SOLVED_2_3.name} (root and all {len(solved['moves'])} first moves)")
    if not args.skip_3_4:
        todo: list[Position] = []
        for k in (int(x) for x in args.plies.split(",")):
            todo += random_positions(Board.parse("3/4"), args.positions, k, seed=600 + k)
        table("3/4, positions " + args.plies + " plies into seeded random games", todo,
              args.expansions, args.tt_mb)


if __name__ == "__main__":
    main()
