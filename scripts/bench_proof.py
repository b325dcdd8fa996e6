#!/usr/bin/env python3
"""Alpha-beta, df-pn and the horizon search on the same positions; df-pn's techniques
switched off one at a time.

Usage: python scripts/bench_proof.py [--board 3/4] [--positions 8] [--plies 10]
                                     [--seconds 10] [--expansions 2000000]

Part 1 runs :func:`solver.search.prove.prove` with each method on positions ``--plies``
plies into seeded random games, each with ``--seconds`` of budget, and prints how many
each decided, nodes, time and nodes/s, and node ratios on the positions all of them
decided.  Part 2 runs df-pn with each technique removed (1+epsilon, initial numbers from
move counts, lowering for dead groups, symmetries) with ``--expansions`` each and prints
expansions relative to the full search on the positions every variant decided.  Both in
one run, so machine noise does not enter the ratios.
"""

from __future__ import annotations

import argparse

from solver import Board, Position
from solver.rules.randomgame import random_positions
from solver.search.prove import prove
from solver.search.variants import dfpn_variant
from solver.search.limit import Limit

METHODS = ("alphabeta", "dfpn", "horizon")
VARIANTS = {
    "df-pn (all)": {},
    "no 1+epsilon": {"eps": 0.0},
    "all-ones initial numbers": {"dead_shift": -1},
    "no dead-group lowering": {"dead_shift": 0},
    "no symmetry": {"use_symmetry": False},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="3/4")
    ap.add_argument("--positions", type=int, default=8)
    ap.add_argument("--plies", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--expansions", type=int, default=2_000_000)
    ap.add_argument("--tt-mb", type=float, default=512)
    args = ap.parse_args()
    board = Board.parse(args.board)
    todo = random_positions(board, args.positions, args.plies)
    for m in METHODS:  # compile or load before timing
        prove(Position.start(Board.parse("2/3")), Limit(tt_mb=1), method=m)
        prove(todo[0], Limit(nodes=1000, tt_mb=1), method=m)

    print(f"{board.name}: {len(todo)} positions {args.plies} plies into seeded random games, "
          f"{args.seconds:g} s each per method")
    results = {m: [prove(p, Limit(seconds=args.seconds, tt_mb=args.tt_mb), method=m) for p in todo] for m in METHODS}
    for i in range(len(todo)):
        vals = {results[m][i].value for m in METHODS} - {"unknown"}
        assert len(vals) <= 1, f"the methods disagree on {todo[i]}"
    print(f"{'method':>10} {'decided':>8} {'nodes':>13} {'seconds':>8} {'nodes/s':>10}   nodes / df-pn's nodes on the positions both decided")
    for m in METHODS:
        rs = results[m]
        nodes = sum(r.nodes for r in rs)
        secs = sum(r.seconds for r in rs)
        both = [i for i in range(len(todo)) if rs[i].value != "unknown" and results["dfpn"][i].value != "unknown"]
        mine = sum(rs[i].nodes for i in both)
        base = sum(results["dfpn"][i].nodes for i in both)
        ratio = f"{mine / base:,.1f}x on {len(both)}" if both else "-"
        print(f"{m:>10} {sum(r.value != 'unknown' for r in rs):>5}/{len(rs):<2} {nodes:>13,} "
              f"{secs:>8.1f} {nodes / max(secs, 1e-9):>10,.0f}   {ratio}")
    for i, p in enumerate(todo):
        print(f"  {str(p):<34} " + "  ".join(
            f"{m} {results[m][i].value} {results[m][i].nodes:,}" for m in METHODS))

    print(f"\ndf-pn techniques, {args.expansions:,} expansions each, player to move as prover")
    runs = {name: [dfpn_variant(p, args.expansions, args.tt_mb, **opts) for p in todo]
            for name, opts in VARIANTS.items()}
    common = [i for i in range(len(todo)) if all(runs[n][i][0] != "unknown" for n in VARIANTS)]
    full = sum(runs["df-pn (all)"][i][1] for i in common) or 1
    print(f"{'variant':>26} {'decided':>8} {'expansions':>13} {'exp/s':>10} "
          f"{'expansions/full on the ' + str(len(common)) + ' decided by all':>40}")
    for name in VARIANTS:
        rs = runs[name]
        exp = sum(r[1] for r in rs)
        secs = sum(r[2] for r in rs)
        mine = sum(rs[i][1] for i in common)
        ratio = f"{mine / full:.2f}x" if common else "-"
        print(f"{name:>26} {sum(r[0] != 'unknown' for r in rs):>5}/{len(rs):<2} {exp:>13,} "
              f"{exp / max(secs, 1e-9):>10,.0f} {ratio:>40}")


if __name__ == "__main__":
    main()
