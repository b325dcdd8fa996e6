#!/usr/bin/env python3
"""Memory and time of writing a certificate: the compact graph streamed to a file against
every node held as a dict and the whole file as text (how certificates were written
before 2026-12-01).

Usage: python scripts/bench_certificate.py [--board 3/4] [--positions 4] [--plies 8]
                                           [--tt-mb 64]

Proves positions ``--plies`` plies into seeded random games with df-pn, then writes each
one's certificate both ways from the same proof, under ``tracemalloc``, and prints the
peak bytes per certificate position of each and their ratio.  Both ways write the same
bytes (checked here too).  One run, so machine noise does not enter the ratios.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from solver import Board, Position
from solver.search.certificate import build_certificate, dumps, write_certificate
from solver.util.files import write_atomic
from solver.rules.randomgame import random_positions
from solver.search.prove import prove
from solver.search.limit import Limit


def as_dicts(path: Path, pos: Position, proof, tt_mb: float) -> None:
    write_atomic(path, gzip.compress(dumps(build_certificate(pos, proof, tt_mb=tt_mb)).encode(), mtime=0))


def streamed(path: Path, pos: Position, proof, tt_mb: float) -> None:
    write_certificate(path, pos, proof, tt_mb=tt_mb)


def measured(fn, *args) -> tuple[int, float]:
    """(peak bytes allocated, seconds) of ``fn(*args)``."""
    tracemalloc.start()
    t0 = time.perf_counter()
    fn(*args)
    secs = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, secs


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="3/4")
    ap.add_argument("--positions", type=int, default=4)
    ap.add_argument("--plies", type=int, default=8)
    ap.add_argument("--tt-mb", type=float, default=64)
    args = ap.parse_args(argv)
    board = Board.parse(args.board)
    print(f"{'position':<34} {'nodes':>8} {'dicts B/node':>13} {'graph B/node':>13} {'ratio':>6} "
          f"{'dicts s':>8} {'graph s':>8}")
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for pos in random_positions(board, args.positions, args.plies):
            proof = prove(pos, Limit(tt_mb=args.tt_mb), method="dfpn")
            if proof.value not in ("win", "loss"):
                print(f"{str(pos):<34} undecided", file=sys.stderr)
                continue
            old, new = Path(tmp) / "dicts.json.gz", Path(tmp) / "graph.json.gz"
            peak_old, s_old = measured(as_dicts, old, pos, proof, args.tt_mb)
            peak_new, s_new = measured(streamed, new, pos, proof, args.tt_mb)
            if old.read_bytes() != new.read_bytes():
                sys.exit(f"bench_certificate: the two ways wrote different files for {pos}")
            n = gzip.decompress(new.read_bytes()).count(b'\n{"id":')
            ratios.append(peak_new / peak_old)
            print(f"{str(pos):<34} {n:>8,} {peak_old / n:>13,.0f} {peak_new / n:>13,.0f} "
                  f"{peak_new / peak_old:>6.2f} {s_old:>8.2f} {s_new:>8.2f}", flush=True)
    if ratios:
        print(f"graph / dicts peak memory: {min(ratios):.2f} to {max(ratios):.2f}")


if __name__ == "__main__":
    main()
