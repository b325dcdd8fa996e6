#!/usr/bin/env python3
"""What the move model buys df-pn (solver.search.guide): expansions and seconds of plain
df-pn and of model-guided settings on the same seeded positions, interleaved, in one run.

Usage: python scripts/bench_guided.py [--sets 3/4:6:12,4/5:20:12,5/6:26:12]
                                      [--expansions 2000000] [--tt-mb 256] [--seed 1]
                                      [--setting NAME=power:clip:sides[:focus[:widen[:cache[:lazy]]]] ...]
                                      [--model FILE]
                                      [--out FILE]

A set ``board:N:count`` is ``count`` positions of seeded random games on ``board``: with
``N`` empty points when ``N`` is at least 14, else ``N`` plies from the empty board.
Each position is proven by :func:`solver.search.variants.dfpn_variant` (the solver's
df-pn options, the player to move as prover, one search, no re-walk) plainly and with
each setting (``sides``: 0 both players' nodes, 1 the prover's only, 2 the other's only,
3 the model used at the prover's nodes only, the other's not scored; ``focus``: focused
df-pn's ``k``, 0 none; ``widen``: its widening factor, 0 none; ``cache``: the nodes
whose scores the guide remembers, default :data:`solver.search.guide.CACHE`; ``lazy``: 1
to score a node only when the search comes back to it, default 0; default settings:
``order`` (power 0: order only), ``p0.5``, ``p1``), one setting after the other on each
position.  Prints per set and setting the positions decided, total expansions and
seconds, the ratios to plain on the positions all decided, and the share of the nodes
scored whose scores the guide's cache held; the values must agree.  Writes ``--out`` (default results/guided/bench.json) with the
command and the code version.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from solver import Board, Position
from solver.rules import core
from solver.rules.randomgame import empty_points, random_game
from solver.search import guide as G
from solver.search.variants import dfpn_variant
from solver.util.files import write_json
from solver.util.provenance import provenance

OUT = Path(__file__).resolve().parent.parent / "results" / "guided" / "bench.json"
DEFAULT_SETTINGS = ["order=0:1:0", "p0.5=0.5:8:0", "p1=1:32:0"]


def positions(board: Board, n: int, count: int, seed: int) -> list[Position]:
    """``count`` positions, one a seeded random game (seeds ``seed * 1000``, ...): with
    ``n`` empty points (``n`` >= 14) or after ``n`` plies, not finished, without history."""
    out: list[Position] = []
    for s in range(seed * 1000, seed * 1000 + 50 * count):
        if len(out) == count:
            break
        for ply, pos in enumerate(random_game(board, s)):
            if pos.outcome is not None:
                break
            if (empty_points(pos) == n) if n >= 14 else (ply == n):
                out.append(Position.parse(str(pos)))
                break
    return out


FIELDS = ("power", "clip", "sides", "focus", "widen", "cache", "lazy")


def parse_setting(text: str) -> tuple[str, tuple[float, float, int, int, float, int, int]]:
    name, _, spec = text.partition("=")
    parts = spec.split(":")
    if not name or name == "plain" or not 3 <= len(parts) <= 7:
        sys.exit(f"bench_guided: --setting {text!r}: give NAME=power:clip:sides[:focus[:widen[:cache[:lazy]]]]")
    parts += ["0", "0", str(G.CACHE), "0"][len(parts) - 3:]
    return name, (float(parts[0]), float(parts[1]), int(parts[2]), int(parts[3]), float(parts[4]), int(parts[5]),
                  int(parts[6]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="3/4:6:12,4/5:20:12,5/6:26:12")
    ap.add_argument("--expansions", type=int, default=2_000_000)
    ap.add_argument("--tt-mb", type=float, default=256)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--setting", action="append", default=None)
    ap.add_argument("--model", default=None, help="move model file (default: solver.search.guide.MODEL_PATH)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    settings = dict(parse_setting(s) for s in (args.setting or DEFAULT_SETTINGS))
    model = G.load_model(args.model)
    out = Path(args.out) if args.out else OUT
    command = " ".join(["python scripts/bench_guided.py"] + sys.argv[1:])
    sets = []
    for spec in args.sets.split(","):
        b, n, count = spec.split(":")
        sets.append((Board.parse(b), int(n), int(count)))
    report = {**provenance(command), "expansions": args.expansions, "tt_mb": args.tt_mb,
              "settings": {k: dict(zip(FIELDS, v)) for k, v in settings.items()},
              "model": str(args.model or G.MODEL_PATH.name), "sets": []}
    names = ["plain", *settings]
    for board, n, count in sets:
        todo = positions(board, n, count, args.seed)
        t = core.tables(board)

        def run(pos: Position, name: str, expansions: int = args.expansions):
            """(value, expansions, seconds, nodes scored, of them from the cache)"""
            guide = None
            if name != "plain":
                power, clip, sides, focus, widen, cache, lazy = settings[name]
                guide = G.new_guide(t, model, power=power, clip=clip, sides=sides, focus=focus, widen=widen,
                                    cache=cache, lazy=bool(lazy))
            r = dfpn_variant(pos, expansions, args.tt_mb, guide=guide)
            scored = (0, 0) if guide is None else (int(guide.stats[0]), int(guide.stats[1]))
            return (*r, *scored)

        for name in names:
            run(todo[0], name, 10)  # compile or load the kernels before timing
        runs: dict[str, list] = {name: [] for name in names}
        for i, pos in enumerate(todo):
            for name in names:
                runs[name].append(run(pos, name))
            vals = {runs[k][i][0] for k in names} - {"unknown"}
            if len(vals) > 1:
                sys.exit(f"bench_guided: the settings disagree on {pos}: { {k: runs[k][i][0] for k in names} }")
            print(f"  {board.name} {i + 1}/{len(todo)}: " + "  ".join(
                f"{k} {runs[k][i][0]} {runs[k][i][1]:,}" for k in names), file=sys.stderr, flush=True)
        common = [i for i in range(len(todo)) if all(runs[k][i][0] != "unknown" for k in names)]
        e0 = sum(runs["plain"][i][1] for i in common) or 1
        s0 = sum(runs["plain"][i][2] for i in common) or 1e-9
        label = f"{board.name} {'%d empty' % n if n >= 14 else '%d plies' % n}"
        print(f"\n{label}: {len(todo)} positions, {args.expansions:,} expansions each at most; "
              f"ratios on the {len(common)} all decided")
        print(f"{'setting':>8} {'decided':>8} {'expansions':>13} {'seconds':>9} {'exp/s':>9} {'exp/plain':>10} "
              f"{'sec/plain':>10} {'cached':>7}")
        rows = []
        for k in names:
            rs = runs[k]
            dec = sum(r[0] != "unknown" for r in rs)
            ex = sum(r[1] for r in rs)
            sec = sum(r[2] for r in rs)
            er = sum(rs[i][1] for i in common) / e0
            sr = sum(rs[i][2] for i in common) / s0
            scored = sum(r[3] for r in rs)
            cached = sum(r[4] for r in rs) / max(scored, 1)
            print(f"{k:>8} {dec:>4}/{len(rs):<3} {ex:>13,} {sec:>9.1f} {ex / max(sec, 1e-9):>9.0f} {er:>10.3f} "
                  f"{sr:>10.3f} {cached:>7.3f}")
            rows.append({"setting": k, "decided": dec, "expansions": ex, "seconds": round(sec, 2),
                         "expansions_ratio_common": round(er, 4), "seconds_ratio_common": round(sr, 4),
                         "nodes_scored": scored, "cached_share": round(cached, 4)})
        report["sets"].append({"board": board.name, "n": n, "by": "empty" if n >= 14 else "plies",
                               "positions": len(todo), "common": len(common), "rows": rows,
                               "runs": [{"position": str(p), **{k: list(runs[k][i]) for k in names}}
                                        for i, p in enumerate(todo)]})
        report["written"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        write_json(out, report)


if __name__ == "__main__":
    main()
