#!/usr/bin/env python3
"""What two searches at once get from this machine: plain df-pn's expansions a second in
one process alone, then in two independent processes at the same moment, in one run.

Usage: python scripts/bench_two_cores.py [--position POS] [--seconds 60] [--tt-mb 4000]
                                         [--out [FILE]]

Each process loads the kernels, waits for the others, then runs plain df-pn on the
position for ``--seconds`` with its own table of ``--tt-mb`` MiB (no sharing, no
master): the rate is its expansions over its own wall seconds.  Printed: the lone rate,
the two rates at once, each as a share of the lone one, and the *ceiling*, twice the
mean share: what any two-process search (JL-PNS, ``prove(..., jobs=2)``) can reach
against one process on this machine, before its own overhead.  The default position is
3/4 first-move class c1, the position of issue 35's efficiency run; one that the search
decides within the time makes the rates mean little, and is said.  ``--out`` writes it
as JSON with the command and code version (default results/jlpns/two-cores.json).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import queue
import sys
import time
from pathlib import Path

from solver import Position
from solver.search.limit import Limit, check_tt_mb
from solver.search.prove import load_kernels, prove
from solver.util.files import write_json
from solver.util.provenance import load_average, provenance

OUT = Path(__file__).resolve().parent.parent / "results" / "jlpns" / "two-cores.json"
POSITION = "3/4/5/6/L4/4/3 D"


def _search(text: str, seconds: float, tt_mb: float, start, out) -> None:
    """One process: load, wait at ``start``, search, put (value, expansions, seconds) on ``out``."""
    pos = Position.parse(text)
    load_kernels(pos.board)
    start.wait()
    t0 = time.perf_counter()
    r = prove(pos, Limit(seconds=seconds, tt_mb=tt_mb))
    out.put((r.value.value, r.nodes, time.perf_counter() - t0))


def measure(text: str, seconds: float, tt_mb: float, processes: int) -> list[dict]:
    """The runs of ``processes`` searches started at the same moment."""
    ctx = mp.get_context("spawn")
    start, out = ctx.Barrier(processes), ctx.Queue()
    procs = [ctx.Process(target=_search, args=(text, seconds, tt_mb, start, out)) for _ in range(processes)]
    for p in procs:
        p.start()
    try:
        # a search that dies (a table that cannot be allocated) puts nothing: do not wait forever
        runs = [out.get(timeout=seconds + 600) for _ in procs]
    except queue.Empty:
        raise RuntimeError("a search process ended without its result") from None
    finally:
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.terminate()
    return [{"value": v, "nodes": n, "seconds": round(s, 3), "rate": round(n / s)} for v, n, s in runs]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--position", default=POSITION)
    ap.add_argument("--seconds", type=float, default=60.0, help="each search's time")
    ap.add_argument("--tt-mb", type=float, default=4000, help="each process's table")
    ap.add_argument("--out", nargs="?", const=str(OUT), default=None, help="write the report (default path: %(const)s)")
    a = ap.parse_args()
    try:
        Position.parse(a.position)
        if not 0.5 <= a.seconds <= 3600:
            raise ValueError(f"--seconds must be from 0.5 to 3600, not {a.seconds:g}")
        check_tt_mb(a.tt_mb, copies=2)
    except ValueError as e:  # MeridiansError is one
        print(f"bench_two_cores: {e}", file=sys.stderr)
        return 2
    print(f"plain df-pn on {a.position}, {a.seconds:g} s a search, {a.tt_mb:g} MiB a table; load {load_average()}",
          flush=True)
    try:
        alone = measure(a.position, a.seconds, a.tt_mb, 1)[0]
        print(f"alone:   {alone['rate']:>10,} expansions a second", flush=True)
        both = measure(a.position, a.seconds, a.tt_mb, 2)
    except KeyboardInterrupt:
        print("bench_two_cores: interrupted: nothing written", file=sys.stderr)
        return 130
    except RuntimeError as e:
        print(f"bench_two_cores: {e}: nothing written", file=sys.stderr)
        return 1
    shares = [round(r["rate"] / alone["rate"], 3) for r in both]
    ceiling = round(sum(shares), 3)
    rates = ", ".join(f"{r['rate']:,}" for r in both)
    print(f"two at once: {rates} expansions a second, "
          f"{' and '.join(map(str, shares))} of alone; ceiling of a 2-process speed-up {ceiling:.2f}x")
    if any(r["value"] != "unknown" for r in [alone, *both]):
        print("bench_two_cores: a search decided the position within the time: take a harder one or less time",
              file=sys.stderr)
    if a.out:
        command = " ".join(["python scripts/bench_two_cores.py"] + sys.argv[1:])
        report = {**provenance(command), "position": a.position, "seconds": a.seconds, "tt_mb": a.tt_mb,
                  "alone": alone, "two_at_once": both, "shares": shares, "ceiling": ceiling}
        out = Path(a.out)
        write_json(out, report)
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
