#!/usr/bin/env python3
"""Write proof certificates of solved boards to results/certificates/.

Usage: python scripts/write_certificates.py [--boards 2/3] [--tt-mb 64]

For each board, proves the empty board by df-pn and writes its certificate,
``results/certificates/<m>-<m+1>.json`` (format: docs/formats.md, "Proof
certificates"), with the provenance stamp of this command in its header (``"code"``:
command, version, revision, rules, Python).  Check one with
``meridians check results/certificates/2-3.json``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from solver import Board, Position
from solver.reference.certificate import check
from solver.search.certificate import write_certificate
from solver.search.prove import prove
from solver.search.limit import Limit

OUT = Path(__file__).resolve().parent.parent / "results" / "certificates"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", default="2/3", help="comma-separated boards (default 2/3)")
    ap.add_argument("--tt-mb", type=float, default=64)
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    command = "python scripts/write_certificates.py" + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    for name in [b for b in args.boards.split(",") if b]:
        pos = Position.start(Board.parse(name))
        t0 = time.perf_counter()
        proof = prove(pos, Limit(tt_mb=args.tt_mb), method="dfpn")
        path = OUT / f"{name.replace('/', '-')}.json"
        # the header's "code" is the provenance stamp of this command (solver.util.provenance)
        cert = write_certificate(path, pos, proof, tt_mb=args.tt_mb, command=command)
        t1 = time.perf_counter()
        n = check(path)
        print(f"{path}: {cert['winner']} wins {cert['root']}, {n} positions, "
              f"{path.stat().st_size:,} bytes; built in {t1 - t0:.2f} s, checked in "
              f"{time.perf_counter() - t1:.2f} s")


if __name__ == "__main__":
    main()
