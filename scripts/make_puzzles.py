"""Write the committed puzzle sets of results/puzzles/ (issue 5).

    python scripts/make_puzzles.py --jobs 2                 # every set below, resumable
    python scripts/make_puzzles.py --only 6/7:3 --jobs 2    # one set
    python scripts/make_puzzles.py --summary                # a table of the sets as they stand
    python scripts/make_puzzles.py --reline                 # main lines by the present verifier

Each set is ``meridians puzzles generate --method sat --seed 1`` with its board, n and
count, written to ``results/puzzles/<board>-c<n>.jsonl`` (progress on stderr; a killed
run resumes from the ``.state.json`` file beside it).  Every puzzle records the code
version that proved it.  Afterwards ``meridians puzzles audit results/puzzles/*.jsonl``
re-verifies them all.

``--reline`` re-verifies the puzzles recorded with duals and, where the present verifier
shows another main line (a dual-free one among Y's equally long defences, which it
searches since 7149d12), records that line, the dual-free flag and the present code
version; keys, node counts and difficulty stay as generated.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

#: (board, n, count), cheapest first
SETS = [
    ("6/7", 1, 500), ("6/7", 2, 500), ("4/5", 1, 200), ("4/5", 2, 200), ("4/5", 3, 200),
    ("6/7", 3, 500), ("4/5", 4, 200), ("6/7", 4, 500), ("6/7", 5, 100),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append", default=[], help="board:n, such as 6/7:3 (repeatable)")
    ap.add_argument("--summary", action="store_true", help="print a table of the sets and stop")
    ap.add_argument("--reline", action="store_true", help="re-verify the main lines of puzzles with duals")
    args = ap.parse_args()
    if args.summary:
        return summary()
    if args.reline:
        return reline(args.only)
    for board, n, count in SETS:
        if args.only and f"{board}:{n}" not in args.only:
            continue
        cmd = ["meridians", "puzzles", "generate", "--board", board, "--n", str(n), "--count", str(count),
               "--method", "sat", "--seed", "1", "--jobs", str(args.jobs)]
        print(" ".join(cmd), flush=True)
        rc = subprocess.call(cmd)
        if rc:
            return rc
    return 0


def reline(only: list[str]) -> int:
    """Record the present verifier's main line of every puzzle recorded with duals."""
    import dataclasses
    import time
    from pathlib import Path

    from puzzles.capture import verify
    from puzzles.generate import _exclusive
    from puzzles.record import code_version, load_jsonl, write_jsonl

    version = code_version()
    for board, n, _ in SETS:
        f = Path("results/puzzles") / f"{board.replace('/', '-')}-c{n}.jsonl"
        if (only and f"{board}:{n}" not in only) or not f.exists():
            continue
        with _exclusive(str(f) + ".lock"):
            ps = load_jsonl(f)
            t0, changed, todo = time.process_time(), 0, [p for p in ps if not p.dual_free]
            for i, p in enumerate(ps):
                if p.dual_free:
                    continue
                v = verify(p.to_position(), p.target, p.n)
                if not (v.complete and v.sound and v.keys == [p.key]):
                    print(f"{p.id}: no longer sound with key {p.key}; set left as it was", file=sys.stderr)
                    return 1
                if list(v.line) != list(p.line) or v.dual_free != p.dual_free:
                    ps[i] = dataclasses.replace(p, line=list(v.line), dual_free=v.dual_free, version=version)
                    changed += 1
            write_jsonl(f, ps)
            print(f"{f}: {len(todo)} puzzles with duals re-verified in {time.process_time() - t0:.0f} CPU s, "
                  f"{changed} now have a dual-free main line; {sum(p.dual_free for p in ps)} of {len(ps)} "
                  "dual-free", flush=True)
    return 0


def summary() -> int:
    """Per set: puzzles, dual-free share, ratings 1-5, empty points, and the generator's
    yield from its state file (puzzles found per CPU-minute of the units)."""
    import json
    from collections import Counter
    from pathlib import Path

    from puzzles.record import load_jsonl

    print("| set | puzzles | dual-free | rating 1/2/3/4/5 | empty points (min/median/max) | found | CPU s | found per CPU-minute |")
    print("|---|---|---|---|---|---|---|---|")
    for board, n, _ in SETS:
        f = Path("results/puzzles") / f"{board.replace('/', '-')}-c{n}.jsonl"
        if not f.exists():
            continue
        ps = load_jsonl(f)
        st = json.loads(Path(str(f) + ".state.json").read_text())
        ratings = Counter(p.difficulty for p in ps)
        empty = sorted(p.to_position().board.size - len(p.to_position().stones("L")) - len(p.to_position().stones("D"))
                       for p in ps)
        dual = sum(p.dual_free for p in ps)
        print(f"| {board} c{n} | {len(ps)} | {dual} ({100 * dual / len(ps):.0f}%) | "
              f"{'/'.join(str(ratings.get(r, 0)) for r in range(1, 6))} | "
              f"{empty[0]}/{empty[len(empty) // 2]}/{empty[-1]} | {st['found']} | {st['cpu_seconds']:.0f} | "
              f"{st['found'] / st['cpu_seconds'] * 60:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
