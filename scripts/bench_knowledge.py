#!/usr/bin/env python3
"""What the settled rule (solver.search.knowledge) buys df-pn: expansions and seconds with
and without it on the same seeded positions, in one run.

Usage: python scripts/bench_knowledge.py [--plies 7,8] [--positions 4] [--late 6]
                                         [--empty 20-30] [--expansions 2000000]
                                         [--tt-mb 256] [--boards 3/4,5/6,6/7]
                                         [--variant NAME=budget:interior:reach:surplus ...]

Position classes: 3/4 positions ``--plies`` plies into seeded random games (each a few
seconds to a minute of df-pn), and on 5/6 and 6/7 positions of seeded random games with
a number of empty points in ``--empty`` (late games, where enclosures are common).  Each
position is proven by :func:`solver.search.variants.dfpn_variant` (the player to move
as prover; one search, no re-walk) without the rule (``off``) and with it (``on``: the
defaults of solver.search.knowledge), and with any ``--variant`` of its budget and
pre-filter thresholds.  Prints per class and in total: positions decided, expansions,
seconds, and the ratios to ``off`` on the positions every variant decided; the values
must agree.
"""

from __future__ import annotations

import argparse
import random

from solver import Board, Position
from solver.rules.randomgame import random_game, random_positions
from solver.search import knowledge as K
from solver.search.variants import dfpn_variant


def late_positions(board: str, count: int, lo: int, hi: int, seed: int) -> list[Position]:
    """``count`` positions of seeded random games on ``board`` with ``lo`` to ``hi`` empty
    points (a point of each game drawn at random in that range), both players with two
    stones or more, without their history."""
    b = Board.parse(board)
    rng = random.Random(seed)
    out: list[Position] = []
    for k in range(50 * count):
        if len(out) == count:
            break
        want = rng.randint(lo, hi)
        for pos in random_game(b, seed * 1000 + k):
            empty = b.size - len(pos.stones("L")) - len(pos.stones("D"))
            if pos.outcome is not None or empty < want:
                continue
            if empty == want and len(pos.stones("L")) >= 2 and len(pos.stones("D")) >= 2:
                out.append(Position.parse(str(pos)))
                break
    return out


def run(pos: Position, expansions: int, tt_mb: float, setting) -> tuple[str, int, float, int]:
    """(value, expansions, seconds, claims) of one search; ``setting`` None: no rule,
    else (budget, max_interior, max_reach, max_surplus)."""
    if setting is None:
        return (*dfpn_variant(pos, expansions, tt_mb), 0)
    saved = K.MAX_INTERIOR, K.MAX_REACH, K.MAX_SURPLUS
    K.MAX_INTERIOR, K.MAX_REACH, K.MAX_SURPLUS = setting[1:]
    try:
        value, exp, secs = dfpn_variant(pos, expansions, tt_mb, knowledge_budget=setting[0])
    finally:
        K.MAX_INTERIOR, K.MAX_REACH, K.MAX_SURPLUS = saved
    return value, exp, secs, -1


def table(title: str, todo: list[Position], variants: dict, expansions: int, tt_mb: float) -> dict:
    run(todo[0], 50, 1, None)  # compile or load before timing
    runs = {name: [run(p, expansions, tt_mb, s) for p in todo] for name, s in variants.items()}
    for i, p in enumerate(todo):
        vals = {runs[n][i][0] for n in variants} - {"unknown"}
        assert len(vals) <= 1, f"the variants disagree on {p}: { {n: runs[n][i][0] for n in variants} }"
    common = [i for i in range(len(todo)) if all(runs[n][i][0] != "unknown" for n in variants)]
    e_off = sum(runs["off"][i][1] for i in common) or 1
    s_off = sum(runs["off"][i][2] for i in common) or 1e-9
    print(f"\n{title}: {len(todo)} positions, {expansions:,} expansions each at most; "
          f"ratios on the {len(common)} every variant decided")
    print(f"{'variant':>22} {'decided':>8} {'expansions':>12} {'seconds':>8} {'exp/s':>9} "
          f"{'exp/off':>8} {'sec/off':>8}")
    for name in variants:
        rs = runs[name]
        print(f"{name:>22} {sum(r[0] != 'unknown' for r in rs):>5}/{len(rs):<2} "
              f"{sum(r[1] for r in rs):>12,} {sum(r[2] for r in rs):>8.1f} "
              f"{sum(r[1] for r in rs) / max(sum(r[2] for r in rs), 1e-9):>9,.0f} "
              f"{sum(rs[i][1] for i in common) / e_off:>8.3f} {sum(rs[i][2] for i in common) / s_off:>8.3f}")
    print("  per position (expansions / seconds; '-' undecided):")
    for i, p in enumerate(todo):
        cells = " ".join(f"{runs[n][i][1] if runs[n][i][0] != 'unknown' else '-':>9}/{runs[n][i][2]:<6.2f}"
                         for n in variants)
        print(f"  {str(p):<44} {runs['off'][i][0]:>7} {cells}")
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plies", default="7,8", help="3/4: plies into the random games")
    ap.add_argument("--positions", type=int, default=4, help="3/4 positions per ply count")
    ap.add_argument("--late", type=int, default=6, help="positions per larger board")
    ap.add_argument("--empty", default="20-30", help="larger boards: empty points, lo-hi")
    ap.add_argument("--expansions", type=int, default=2_000_000)
    ap.add_argument("--tt-mb", type=float, default=256)
    ap.add_argument("--boards", default="3/4,5/6,6/7")
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME=budget:max_interior:max_reach:max_surplus, another setting of the rule")
    args = ap.parse_args()
    variants = {"off": None, "on": (K.DEFAULT_BUDGET, K.MAX_INTERIOR, K.MAX_REACH, K.MAX_SURPLUS)}
    for v in args.variant:
        name, _, nums = v.partition("=")
        try:
            b, i, r, u = (int(x) for x in nums.split(":"))
        except ValueError:
            raise SystemExit(f"bench_knowledge: --variant {v!r}: NAME=budget:max_interior:max_reach:max_surplus")
        variants[name] = (b, i, r, u)
    lo, hi = (int(x) for x in args.empty.split("-"))
    totals = {n: [0, 0.0] for n in variants}
    for board in args.boards.split(","):
        if board == "3/4":
            todo: list[Position] = []
            for k in (int(x) for x in args.plies.split(",")):
                todo += [Position.parse(str(p)) for p in
                         random_positions(Board.parse("3/4"), args.positions, k, seed=700 + k)]
            title = f"3/4, {args.plies} plies into seeded random games"
        else:
            todo = late_positions(board, args.late, lo, hi, seed=17)
            title = f"{board}, seeded random games at {lo}-{hi} empty points"
        runs = table(title, todo, variants, args.expansions, args.tt_mb)
        for n in variants:
            totals[n][0] += sum(r[1] for r in runs[n])
            totals[n][1] += sum(r[2] for r in runs[n])
    print("\ntotal over every class (all positions):")
    for n, (e, s) in totals.items():
        print(f"{n:>22} {e:>12,} expansions {s:>8.1f} s   exp/off {e / max(totals['off'][0], 1):.3f}  "
              f"sec/off {s / max(totals['off'][1], 1e-9):.3f}")


if __name__ == "__main__":
    main()
