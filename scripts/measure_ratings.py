"""Rate the committed puzzle sets with puzzles.rating and check the rating against the
engine's effort to find the key (issue 21).

    python scripts/measure_ratings.py                     # every set; check 40 of each of 6/7, 4/5 c1..c4
    python scripts/measure_ratings.py --sample 10 --max-playouts 2048
    python scripts/measure_ratings.py --cuts              # the quantile cuts of puzzles.rating.CUTS

Reads every ``results/puzzles/*.jsonl`` and computes each puzzle's new score and rating
(:func:`puzzles.rating.record_features`: the record's nodes, its late-failing tries read
back from its recorded score, the rest from the rules); the records are not rewritten.
Per set: the ratings' spread (puzzles per rating, the largest share at one rating) and
the recorded ratings' largest share.  For the checked sets (``--check``), ``--sample``
puzzles evenly spread over the file are given to the engine
(:func:`puzzles.rating.key_found_at`: the first budget of 16, 32, ... ``--max-playouts``
playouts, fixed seed, from which the engine's best move is the key and stays; a key not
found counts as twice the largest budget), and the share of the engine's visits at the
largest budget that went to other moves (``missed``); Spearman's correlation of the
rating and of the score with each is reported per set and over all the checked puzzles
(positive: a higher rating, more engine effort).  Writes
``results/puzzles/ratings.json`` (atomically, with its command and provenance) and
prints a table.  Ctrl-C stops the check and writes what was measured
(``"interrupted": true``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from puzzles.rating import RatingError, find_key, quantile_cuts, rating, record_features, score, spearman
from puzzles.record import PuzzleFormatError, load_jsonl
from solver.util.files import write_atomic
from solver.util.provenance import provenance

#: the folder of the committed sets, where ratings.json is written
OUT = Path(__file__).resolve().parent.parent / "results" / "puzzles"
#: the sets checked against the engine by default
CHECK = ("6-7-c1", "6-7-c2", "6-7-c3", "6-7-c4", "4-5-c1", "4-5-c2", "4-5-c3", "4-5-c4")


def _rhos(found: list[dict], max_playouts: int) -> dict:
    """Spearman's correlation of the rating and of the score with the engine's effort:
    the budget at which it found the key (twice ``max_playouts``: not found) and the
    share of its visits at the largest budget that went to other moves."""
    effort = [2 * max_playouts if x["found_at"] is None else x["found_at"] for x in found]
    missed = [1 - x["share"] for x in found]
    return {f"spearman_{what}{vs}": spearman([x[what] for x in found], ys)
            for what in ("rating", "score") for vs, ys in (("", effort), ("_missed", missed))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=40, help="puzzles checked per set (default 40; 0: no check)")
    ap.add_argument("--max-playouts", type=int, default=8192, help="the largest engine budget (default 8192)")
    ap.add_argument("--check", default=",".join(CHECK), help="the sets checked, by name (default: %(default)s)")
    ap.add_argument("--cuts", action="store_true", help="print the quantile cuts per board and n, write nothing")
    args = ap.parse_args()
    if not 0 <= args.sample <= 10_000:
        sys.exit(f"measure_ratings: --sample must be from 0 to 10000, not {args.sample}")
    if not 16 <= args.max_playouts <= 1_000_000:
        sys.exit(f"measure_ratings: --max-playouts must be from 16 to 1000000, not {args.max_playouts}")
    files = sorted(Path(OUT).glob("*.jsonl"))
    if not files:
        sys.exit(f"measure_ratings: no puzzle sets (*.jsonl) in {OUT}")
    checked = [c.strip().removesuffix(".jsonl") for c in args.check.split(",") if c.strip()]
    rated: dict[str, list] = {}
    for f in files:
        try:
            ps = load_jsonl(f)
            rows = []
            for p in ps:
                s = score(record_features(p))
                rows.append((p, s, rating(s, p.to_position().board.name, p.n)))
        except (PuzzleFormatError, RatingError) as e:
            sys.exit(f"measure_ratings: {f.name}: {e}")
        except KeyboardInterrupt:
            print("measure_ratings: interrupted while rating; nothing written", file=sys.stderr)
            sys.exit(130)
        rated[f.stem] = rows
        print(f"{f.name}: {len(ps)} puzzles rated", file=sys.stderr, flush=True)
    if args.cuts:
        by: dict[tuple[str, int], list] = {}
        for rows in rated.values():
            for p, s, _ in rows:
                by.setdefault((p.to_position().board.name, p.n), []).append(s)
        for key in sorted(by):
            print(f"    {key!r}: {quantile_cuts(by[key])!r},")
        return
    unknown = [c for c in checked if c not in rated]
    if unknown:
        sys.exit(f"measure_ratings: --check names no set {unknown[0]!r} in {OUT}")
    command = "python scripts/measure_ratings.py" + "".join(
        f" {opt} {val}" for opt, val, default in (("--sample", args.sample, 40),
                                                  ("--max-playouts", args.max_playouts, 8192),
                                                  ("--check", ",".join(checked), ",".join(CHECK)))
        if val != default)
    sets = {}
    for name, rows in rated.items():
        c = Counter(r for _, _, r in rows)
        old = Counter(p.difficulty for p, _, _ in rows)
        sets[name] = {"count": len(rows), "ratings": {str(k): c[k] for k in sorted(c)},
                      "top_rating_share": max(c.values()) / len(rows) if rows else 0.0,
                      "recorded_top_rating_share": max(old.values()) / len(rows) if rows else 0.0}
    interrupted = False
    pooled: list = []
    t0 = time.process_time()
    try:
        for name in checked if args.sample else []:
            rows = rated[name]
            k = min(args.sample, len(rows))
            sample = [rows[i * len(rows) // k] for i in range(k)]
            found = []
            for i, (p, s, r) in enumerate(sample):
                fk = find_key(p.to_position(), p.key, args.max_playouts)
                found.append({"id": p.id, "score": s, "rating": r, "found_at": fk.at, "share": fk.share})
                print(f"\r{name}: {i + 1}/{k}", end="", file=sys.stderr, flush=True)
            sets[name]["check"] = {"sample": k, "found": sum(x["found_at"] is not None for x in found),
                                   **_rhos(found, args.max_playouts), "puzzles": found}
            pooled += found
            print(f"\r{name}: {k} puzzles checked, rho {sets[name]['check']['spearman_rating']}",
                  file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        interrupted = True
        print("measure_ratings: interrupted; writing what was measured", file=sys.stderr)
    overall = {"puzzles": len(pooled), **_rhos(pooled, args.max_playouts)}
    record = {**provenance(command), "sample": args.sample, "max_playouts": args.max_playouts, "seed": 1,
              "check_cpu_seconds": round(time.process_time() - t0, 1), "interrupted": interrupted,
              "overall": overall, "sets": sets}
    out = Path(OUT) / "ratings.json"
    try:
        write_atomic(out, json.dumps(record, indent=1) + "\n")
    except OSError as e:
        sys.exit(f"measure_ratings: cannot write {out}: {e.strerror or e}")
    print("| set | puzzles | ratings 1/2/3/4/5 | top rating (recorded) | checked | key found | "
          "rho rating | rho score | rho rating (missed share) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, m in sets.items():
        ch = m.get("check")
        spread = "/".join(str(m["ratings"].get(str(r), 0)) for r in range(1, 6))
        extra = (f"{ch['sample']} | {ch['found']} | {ch['spearman_rating']} | {ch['spearman_score']} | "
                 f"{ch['spearman_rating_missed']}" if ch else "- | - | - | - | -")
        print(f"| {name} | {m['count']} | {spread} | {100 * m['top_rating_share']:.0f}% "
              f"({100 * m['recorded_top_rating_share']:.0f}%) | {extra} |")
    print(f"| all checked | | | | {overall['puzzles']} | {sum(x['found_at'] is not None for x in pooled)} | "
          f"{overall['spearman_rating']} | {overall['spearman_score']} | {overall['spearman_rating_missed']} |")
    print(f"wrote {out}", file=sys.stderr)
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()
