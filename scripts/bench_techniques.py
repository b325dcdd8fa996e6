#!/usr/bin/env python3
"""What each df-pn technique buys on the 3/4 classes: expansions of the same positions,
the same budget and table, with the techniques added one at a time, in one run.

Usage: python scripts/bench_techniques.py [--per-class 2] [--plies 8] [--expansions 1000000]
                                          [--tt-mb 256] [--seed 1] [--out FILE]

Positions: for each of the 10 classes of first moves on 3/4 (the jobs of ``meridians
solve 3/4``), ``--per-class`` seeded random continuations of the class's position, each
taken ``--plies`` plies from the empty board (a game that ends first is passed over).
Each position is searched by df-pn (the player to move as prover; one search, no
re-walk: :func:`solver.search.variants.dfpn_variant`) within ``--expansions``:

- ``plain``: all initial numbers 1, no 1+epsilon, none of the knowledge below;
- ``no-initial``: the default search with all initial numbers 1 (the knowledge-guided
  initial numbers off: move counts, dead groups halving a side's number, a move that gave
  up stones doubling it);
- ``default``: the solver's search (:func:`solver.search.dfpn.new_dfpn`'s defaults);
- ``settled``: the default search with the settled rule (:mod:`solver.search.knowledge`,
  its default budget).

Prints, per variant, positions decided, expansions, seconds, and expansions and seconds
relative to ``plain`` and to ``default`` on the positions every variant decided; the
values must agree (a disagreement stops the run: it is a bug).  Seconds depend on the
machine's load, expansions do not.  ``--out`` writes the run (every position and variant)
as JSON with the command and the code's version.  What the second core buys is measured by
``scripts/bench_parallel.py``.
"""

from __future__ import annotations

import argparse
import sys

from solver import Board, Position
from solver.util.files import write_json
from solver.app.openings import opening_jobs
from solver.util.provenance import code_revision, provenance
from solver.rules.randomgame import random_game
from solver.search import knowledge as K
from solver.search.variants import PLAIN, dfpn_variant

VARIANTS = {
    "plain": PLAIN,
    "no-initial": {"dead_shift": -1},
    "default": {},
    "settled": {"knowledge_budget": K.DEFAULT_BUDGET},
}


def class_positions(per_class: int, plies: int, seed: int) -> list[tuple[str, Position]]:
    """``(class, position)``: ``per_class`` positions of each 3/4 class of first moves,
    ``plies`` plies from the empty board along seeded random continuations."""
    board = Board.parse("3/4")
    out = []
    for j in opening_jobs(Position.start(board)):
        start = Position.parse(j.position)
        got = 0
        for k in range(100 * per_class):
            if got == per_class:
                break
            for pos in random_game(board, seed * 10_000 + 100 * len(out) + k, plies=plies - 1, start=start):
                pass  # the last position of the continuation
            if pos.outcome is None:
                out.append((j.key, Position.parse(str(pos))))
                got += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-class", type=int, default=2)
    ap.add_argument("--plies", type=int, default=8, help="plies from the empty board (2 or more)")
    ap.add_argument("--expansions", type=int, default=1_000_000)
    ap.add_argument("--tt-mb", type=float, default=256)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="write the run as JSON to this file")
    args = ap.parse_args()
    if not (1 <= args.per_class <= 1000 and 2 <= args.plies <= 29 and 1 <= args.expansions <= 10**12
            and 1 <= args.tt_mb <= 2**20):
        sys.exit("bench_techniques: --per-class 1-1000, --plies 2-29, --expansions >= 1, --tt-mb 1-1048576")
    revision = code_revision()  # of the code this run imported, taken before it starts
    todo = class_positions(args.per_class, args.plies, args.seed)
    dfpn_variant(todo[0][1], 100, 1)  # compile or load the kernels before timing
    dfpn_variant(todo[0][1], 100, 1, knowledge_budget=K.DEFAULT_BUDGET)
    runs: dict[str, list[tuple[str, int, float]]] = {n: [] for n in VARIANTS}
    for i, (key, pos) in enumerate(todo, 1):
        row = {n: dfpn_variant(pos, args.expansions, args.tt_mb, **o) for n, o in VARIANTS.items()}
        values = {v for v, _, _ in row.values()} - {"unknown"}
        if len(values) > 1:
            sys.exit(f"bench_techniques: the variants disagree on {pos}: {row}")
        for n in VARIANTS:
            runs[n].append(row[n])
        print(f"[{i}/{len(todo)}] class {key:<3} {str(pos):<40} "
              + " ".join(f"{n} {'-' if v == 'unknown' else e:>9}" for n, (v, e, _) in row.items()),
              file=sys.stderr, flush=True)
    common = [i for i in range(len(todo)) if all(runs[n][i][0] != "unknown" for n in VARIANTS)]

    def total(name: str, k: int) -> float:
        return sum(runs[name][i][k] for i in common)

    summary = {}
    print(f"\n3/4, {args.per_class} positions a class at {args.plies} plies, {args.expansions:,} expansions "
          f"each at most; ratios on the {len(common)} every variant decided")
    print(f"{'variant':>12} {'decided':>8} {'expansions':>14} {'seconds':>8} {'exp/plain':>10} "
          f"{'exp/default':>12} {'sec/default':>12}")
    for n in VARIANTS:
        rs = runs[n]
        summary[n] = {
            "decided": sum(r[0] != "unknown" for r in rs), "positions": len(rs),
            "expansions_common": int(total(n, 1)), "seconds_common": round(total(n, 2), 2),
            "expansions_vs_plain": total(n, 1) / max(total("plain", 1), 1),
            "expansions_vs_default": total(n, 1) / max(total("default", 1), 1),
            "seconds_vs_default": total(n, 2) / max(total("default", 2), 1e-9),
        }
        s = summary[n]
        print(f"{n:>12} {s['decided']:>5}/{len(rs):<2} {s['expansions_common']:>14,} {s['seconds_common']:>8.1f} "
              f"{s['expansions_vs_plain']:>10.3f} {s['expansions_vs_default']:>12.3f} {s['seconds_vs_default']:>12.3f}")
    if args.out:
        command = (f"python scripts/bench_techniques.py --per-class {args.per_class} --plies {args.plies} "
                   f"--expansions {args.expansions} --tt-mb {args.tt_mb:g} --seed {args.seed} --out {args.out}")
        record = {
            "board": "3/4", **provenance(command, revision=revision), "common": len(common), "summary": summary,
            "positions": [{"class": key, "position": str(pos),
                           **{n: {"value": runs[n][i][0], "expansions": runs[n][i][1],
                                  "seconds": round(runs[n][i][2], 2)} for n in VARIANTS}}
                          for i, (key, pos) in enumerate(todo)],
        }
        try:
            write_json(args.out, record)
        except OSError as e:
            sys.exit(f"bench_techniques: cannot write {args.out}: {e}")


if __name__ == "__main__":
    main()
