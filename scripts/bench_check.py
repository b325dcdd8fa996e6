#!/usr/bin/env python3
"""Memory of reading a certificate for checking: the nodes stored column-wise as the file
is read (``read_certificate``) against every node held as a dict (plain ``json.load``,
what the checker held before 2026-12-01, before any table of its own).

Usage: python scripts/bench_check.py [FILE ...] [--board 3/4] [--positions 3] [--plies 8]

Reads each certificate FILE (or, with none, writes the certificates of positions
``--plies`` plies into seeded random games, as ``scripts/bench_certificate.py`` does)
both ways under ``tracemalloc`` and prints the peak bytes per position of each and their
ratio, and that both ways read the same nodes.  One run, so machine noise does not
enter the ratios.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from solver import Board
from solver.reference.certificate import CertificateError, read_certificate
from solver.search.certificate import write_random_certificates


def as_dicts(path: Path) -> dict:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def peak(read, path: Path) -> tuple[object, int, float]:
    """What ``read(path)`` returns, its peak traced bytes and seconds."""
    tracemalloc.start()
    t0 = time.perf_counter()
    data = read(path)
    seconds = time.perf_counter() - t0
    top = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return data, top, seconds


def same_nodes(plain: dict, compact: dict) -> bool:
    nodes = compact["nodes"]
    for i, node in enumerate(plain["nodes"]):
        edges = [(nodes.points[e], nodes.targets[e]) for e in nodes.edges(i)]
        want = ([(node["move"], node["next"])] if "move" in node
                else list(node["replies"].items()) if "replies" in node else [])
        if nodes.text(i) != node["position"] or edges != want:
            return False
    return len(nodes) == len(plain["nodes"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, help="certificate files (default: write some)")
    ap.add_argument("--board", default="3/4")
    ap.add_argument("--positions", type=int, default=3)
    ap.add_argument("--plies", type=int, default=8)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = list(args.files)
        if not files:
            files = [Path(f) for f in write_random_certificates(tmp, Board.parse(args.board), args.positions, args.plies)]
        print(f"{'certificate':<24} {'positions':>11} {'dicts B/pos':>12} {'columns B/pos':>14} "
              f"{'ratio':>6} {'dicts s':>8} {'columns s':>10}  same")
        for path in files:
            try:
                plain, p_peak, p_s = peak(as_dicts, path)
                compact, c_peak, c_s = peak(read_certificate, path)
            except (OSError, ValueError) as e:  # CertificateError, JSONDecodeError
                sys.exit(f"bench_check: {path}: {e}")
            if not isinstance(compact, dict) or not isinstance(plain.get("nodes"), list):
                raise SystemExit(f"bench_check: {path} is not a certificate")
            n = len(plain["nodes"])
            print(f"{path.name:<24} {n:>11,} {p_peak / n:>12.0f} {c_peak / n:>14.0f} "
                  f"{c_peak / p_peak:>6.3f} {p_s:>8.1f} {c_s:>10.1f}  {same_nodes(plain, compact)}")
            del plain, compact


if __name__ == "__main__":
    try:
        main()
    except CertificateError as e:
        sys.exit(f"bench_check: {e}")
