#!/usr/bin/env python3
"""Time of building a certificate: the builder against its twin that plays every legal
move at each of the winner's nodes first (as the builder did before 2026-12-05).

Usage: python scripts/bench_certificate_build.py [--board 3/4] [--positions 4] [--plies 6]
                                                 [--tt-mb 256] [--max-nodes 20000000]

Proves positions ``--plies`` plies into seeded random games with df-pn (budget
``--max-nodes`` expansions; undecided ones are passed over), then builds each one's
certificate from the same proof with both builders, and prints their CPU seconds and
ratio.  Both must give the same nodes (checked here; ``tests/test_certificate.py`` checks
it too).  One run, so machine noise does not enter the ratios.
"""

from __future__ import annotations

import argparse
import sys
import time

from solver import Board
from solver.rules.randomgame import random_positions
from solver.search.certificate import CertificateWalk, _fresh
from solver.search.limit import Limit
from solver.search.prove import prove


class EveryMoveWalk(CertificateWalk):
    """The builder's twin: at a winner's node it plays every legal move, then takes the
    first that wins at once, else the table's move, else a child already in the graph,
    else a won child, as :meth:`CertificateWalk._choose` says (without proving again)."""

    def _choose(self, st, side, t_entry, path_keys):
        children = {q: self.child(st, side, q) for q in self.legal(st, side)}
        usable = {q: c for q, c in children.items() if self.graph.pack(*c) not in self.on_path}
        here = path_keys + [self.path_key(st, side)]
        tm = self.table_move(t_entry, st, side)
        choices = ([q for q, c in usable.items() if self.result(*c) == self.W]
                   + [q for q in (tm,) if q in usable and self._holds(t_entry, usable[q], here)]
                   + [q for q, c in usable.items() if self.graph.pack(*c) in self.graph.ids]
                   + [q for q, c in usable.items() if self.won(t_entry, *c)])
        if not choices:
            raise RuntimeError("the twin does not prove again: give the proof a larger table")
        return choices[0], t_entry, usable[choices[0]]


def build(walk_class, position, proof, tt_mb: float) -> tuple[list, float]:
    """The nodes of ``position``'s certificate from ``proof`` as ``walk_class`` walks it,
    and the CPU seconds of the walk."""
    root = _fresh(position)
    table = proof.table
    t0 = time.process_time()
    walk = walk_class(root, table.winner, tt_mb=tt_mb, max_nodes=50_000_000)
    walk.subtree(root.bitboards, root.side_index, table, [])
    seconds = time.process_time() - t0
    winner = "LD"[table.winner]
    return [walk.graph.node(i, winner) for i in range(len(walk.graph))], seconds


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="3/4")
    ap.add_argument("--positions", type=int, default=4)
    ap.add_argument("--plies", type=int, default=6)
    ap.add_argument("--tt-mb", type=float, default=256)
    ap.add_argument("--max-nodes", type=int, default=20_000_000)
    args = ap.parse_args(argv)
    board = Board.parse(args.board)
    print(f"{'position':<34} {'nodes':>9} {'every move s':>13} {'builder s':>10} {'ratio':>6}", flush=True)
    total_old = total_new = 0.0
    for pos in random_positions(board, args.positions, args.plies, seed=1):
        proof = prove(pos, Limit(nodes=args.max_nodes, tt_mb=args.tt_mb), method="dfpn")
        if not proof.proven:
            print(f"{str(pos):<34} undecided in {args.max_nodes:,} expansions: passed over", flush=True)
            continue
        old, t_old = build(EveryMoveWalk, pos, proof, args.tt_mb)
        new, t_new = build(CertificateWalk, pos, proof, args.tt_mb)
        if old != new:
            sys.exit(f"{pos}: the two builders give different certificates")
        total_old, total_new = total_old + t_old, total_new + t_new
        print(f"{str(pos):<34} {len(new):>9,} {t_old:>13.2f} {t_new:>10.2f} {t_old / max(t_new, 1e-9):>6.2f}",
              flush=True)
    if total_new:
        print(f"{'all':<34} {'':>9} {total_old:>13.2f} {total_new:>10.2f} {total_old / total_new:>6.2f}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted")
