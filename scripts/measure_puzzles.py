"""Measure the quality of every committed puzzle set (issue 21).

    python scripts/measure_puzzles.py                 # every results/puzzles/*.jsonl
    python scripts/measure_puzzles.py --within 8      # near-duplicates: 8 points or fewer

Reads every ``results/puzzles/*.jsonl`` and writes ``results/puzzles/quality.json``
(atomically, with its command, revision and rules version) and prints a table.  Per
set (:func:`puzzles.quality.measure_set`): the count, the dual-free share, the
duplicate rate (the share of puzzles whose position differs from an earlier puzzle of
the set in ``--within`` points or fewer, :mod:`puzzles.similar`), the rating spread
(puzzles per ``difficulty`` and the largest share at one rating), the theme counts
(:mod:`puzzles.themes`: a record's own, computed for a record without them), the
puzzles per generator and per source, and for a set of n >= 2 how many of its puzzles
are near one of the same board's set of n - 1 (``near_shorter``,
:func:`puzzles.quality.near_shorter`: within ``--within`` points and in one point).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from puzzles.quality import measure_set, near_shorter
from puzzles.record import PuzzleFormatError, load_jsonl
from puzzles.similar import WITHIN
from solver.util.files import write_json
from solver.util.provenance import provenance

#: the folder of the committed sets, where quality.json is written
OUT = Path(__file__).resolve().parent.parent / "results" / "puzzles"


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _pairs(d: dict) -> str:
    return " ".join(f"{k}:{v}" for k, v in d.items()) or "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--within", type=int, default=WITHIN,
                    help=f"near-duplicates differ in this many points or fewer (default {WITHIN})")
    args = ap.parse_args()
    if not 0 <= args.within <= 10_000:
        sys.exit(f"measure_puzzles: --within must be from 0 to 10000, not {args.within}")
    files = sorted(Path(OUT).glob("*.jsonl"))
    if not files:
        sys.exit(f"measure_puzzles: no puzzle sets (*.jsonl) in {OUT}")
    command = "python scripts/measure_puzzles.py" + (f" --within {args.within}" if args.within != WITHIN else "")
    sets, loaded = {}, {}
    for f in files:
        try:
            ps = load_jsonl(f)
        except PuzzleFormatError as e:
            sys.exit(f"measure_puzzles: {e}")
        loaded[f.name] = ps
        sets[f.name] = measure_set(ps, args.within)
        print(f"{f.name}: {len(ps)} puzzles measured", file=sys.stderr, flush=True)
    for name, ps in loaded.items():  # 6-7-c5.jsonl against 6-7-c4.jsonl
        head, sep, n = name.removesuffix(".jsonl").rpartition("-c")
        shorter = f"{head}-c{int(n) - 1}.jsonl" if sep and n.isdigit() else None
        if shorter in loaded and ps and loaded[shorter]:
            sets[name]["near_shorter"] = near_shorter(ps, loaded[shorter], args.within)
    record = {**provenance(command), "within": args.within, "sets": sets}
    out = Path(OUT) / "quality.json"
    try:
        write_json(out, record)
    except OSError as e:
        sys.exit(f"measure_puzzles: cannot write {out}: {e.strerror or e}")
    print(f"| set | puzzles | dual-free | duplicates (<= {args.within} points) | ratings | top rating | "
          "themes | generator | source | near the set of n - 1 (one point) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, m in sets.items():
        themes = _pairs(m["themes"])
        print(f"| {name} | {m['count']} | {_pct(m['dual_free'])} | {_pct(m['duplicate_rate'])} "
              f"({m['near_pairs']} pairs) | {_pairs(m['ratings'])} | {_pct(m['top_rating_share'])} | {themes} | "
              f"{_pairs(m['generators'])} | {_pairs(m['sources'])} | "
              + (f"{m['near_shorter']['within']} ({m['near_shorter']['one_point']}) |" if "near_shorter" in m else "- |"))
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
