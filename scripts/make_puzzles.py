"""Write the committed puzzle sets of results/puzzles/ (issue 5).

    python scripts/make_puzzles.py --jobs 2                 # every set below, resumable
    python scripts/make_puzzles.py --only 6/7:3 --jobs 2    # one set

Each set is ``meridians puzzles generate --method sat --seed 1`` with its board, n and
count, written to ``results/puzzles/<board>-c<n>.jsonl`` (progress on stderr; a killed
run resumes from the ``.state.json`` file beside it).  Every puzzle records the code
version that proved it.  Afterwards ``meridians puzzles audit results/puzzles/*.jsonl``
re-verifies them all.
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
    args = ap.parse_args()
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


if __name__ == "__main__":
    sys.exit(main())
