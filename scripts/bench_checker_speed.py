#!/usr/bin/env python3
"""CPU time of checking a certificate: the checker as it is against the checker before
2026-12-05 (every node's position held to ``is_valid``, each stone graph's edge added from
both ends, a packed position unpacked by testing every bit), in one run.

Usage: python scripts/bench_checker_speed.py [FILE ...] [--board 3/4] [--positions 3]
       [--plies 8] [--repeat 2]

Checks each certificate FILE (or, with none, the certificates of positions ``--plies``
plies into seeded random games, as ``scripts/bench_check.py`` writes them) ``--repeat``
times each way, the two ways taking turns, and prints the least process CPU seconds of
each and their ratio.  Both ways must accept the file.  The old way is the current
module with those three functions put back as they were (below), so nothing else differs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import networkx as nx

from solver import Board
from solver.reference import certificate as C
from solver.reference import rules as ref
from solver.search.certificate import write_random_certificates


def old_stone_graph(board, stones):
    graph = nx.Graph()
    graph.add_nodes_from(stones)
    for p in stones:
        for n in board.neighbours[p]:
            if n in stones:
                graph.add_edge(p, n)
    return graph


def old_unpacked(board, key):
    n = board.size
    return (frozenset(p for p in range(n) if key >> p & 1),
            frozenset(p for p in range(n) if key >> (n + p) & 1), "D" if key >> 2 * n else "L")


def old_parse_range(c, lo, hi):
    out = []
    for i in range(lo, hi):
        problem = c.nodes.odd.get(i)
        if problem is not None and problem.startswith(f"node {i}"):
            raise C.CertificateError(problem)
        out.append(C._packed(c.board, *C._parse(c, c.nodes.text(i), f"node {i}")))
        if problem is not None:
            raise C.CertificateError(f"node {i} ({c.nodes.text(i)}): {problem}")
    return out


@contextmanager
def old_checker():
    saved = ref.stone_graph, C._unpacked, C._parse_range
    ref.stone_graph, C._unpacked, C._parse_range = old_stone_graph, old_unpacked, old_parse_range
    try:
        yield
    finally:
        ref.stone_graph, C._unpacked, C._parse_range = saved


def cpu_seconds(path: Path) -> float:
    t0 = time.process_time()
    C.check(path)
    return time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, help="certificate files (default: write some)")
    ap.add_argument("--board", default="3/4")
    ap.add_argument("--positions", type=int, default=3)
    ap.add_argument("--plies", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    if args.repeat < 1 or args.positions < 1 or args.plies < 0:
        sys.exit("bench_checker_speed: --repeat and --positions must be at least 1, --plies at least 0")
    with tempfile.TemporaryDirectory() as tmp:
        files = list(args.files)
        if not files:
            files = [Path(f) for f in write_random_certificates(tmp, Board.parse(args.board), args.positions, args.plies)]
        print(f"{'certificate':<24} {'positions':>10} {'old CPU s':>10} {'new CPU s':>10} {'ratio':>6}")
        total_old = total_new = 0.0
        for path in files:
            old, new = [], []
            for _ in range(args.repeat):
                with old_checker():
                    old.append(cpu_seconds(path))
                new.append(cpu_seconds(path))
            n = len(C.read_certificate(path)["nodes"])
            total_old, total_new = total_old + min(old), total_new + min(new)
            print(f"{path.name:<24} {n:>10,} {min(old):>10.2f} {min(new):>10.2f} {min(old) / min(new):>6.2f}")
        print(f"{'all':<24} {'':>10} {total_old:>10.2f} {total_new:>10.2f} {total_old / total_new:>6.2f}")


if __name__ == "__main__":
    try:
        main()
    except C.CertificateError as e:
        sys.exit(f"bench_checker_speed: {e}")
