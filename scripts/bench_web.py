#!/usr/bin/env python3
"""Load test of ``meridians serve``: a bounded loop of analysis requests on loopback.

Usage: python scripts/bench_web.py [--requests 200] [--clients 8] [--time 0.1]
                                   [--workers 2] [--seed 1] [--out results/web/load.json]

It starts the server as a user would (``python -m solver.cli serve`` on a free loopback
port, this interpreter), waits until it answers, warms each board's kernels with one
analysis per board (not counted: a fresh worker compiles or loads them once), then sends
``--requests`` ``GET /api/analyse?position=P&time=T`` from ``--clients`` concurrent
clients (threads, one HTTP connection each), every request counted.  The positions are
fixed by the seed: the positions of random games on 3/4 (the opening database answers
the early ones; the later ones are proven or estimated live) and on 5/6 (the engine),
taken in turn.  Printed and written (``--out``, atomically, with the command and the
code version): the median, p95 and largest latency in seconds, the requests per second,
the median and p95 of the work itself (each answer's ``seconds``: the queue left out),
the errors (any answer but a 200 with a value, or no answer) and the sources of the
values.  The server is stopped at the end (SIGTERM), and its worker processes must stop with
it: one left running is counted (``orphans``) and stopped.  A benchmark, not a test: the latencies
depend on the machine and its load (a request waits for a free worker process: with 2
workers and 8 clients, about 4 requests' work).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from solver import Position
from solver.app.web.process import ServerStartError, alive, children, free_port, wait_until_up
from solver.util.files import write_atomic
from solver.util.provenance import provenance

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "web"


def positions(seed: int, per_board: int = 12) -> list[str]:
    """Positions of seeded random games on 3/4 and 5/6, alternating boards."""
    rng = random.Random(seed)
    out: dict[str, list[str]] = {}
    for board in ("3/4", "5/6"):
        got: list[str] = []
        while len(got) < per_board:
            pos = Position.start(board)
            while pos.outcome is None and len(got) < per_board:
                got.append(str(pos))
                pos = pos.play(rng.choice(pos.legal_moves()))
        out[board] = got
    return [p for pair in zip(out["3/4"], out["5/6"]) for p in pair]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--time", type=float, default=0.1, help="each analysis's time parameter, seconds")
    ap.add_argument("--workers", type=int, default=2, help="the server's worker processes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="the JSON file (default results/web/load.json)")
    args = ap.parse_args()
    if not (1 <= args.requests <= 100_000 and 1 <= args.clients <= 256 and 1 <= args.workers <= 64):
        ap.error("--requests 1..100000, --clients 1..256, --workers 1..64")
    out = Path(args.out) if args.out else OUT / "load.json"
    command = "python scripts/bench_web.py " + " ".join(sys.argv[1:])
    stamp = provenance(command.strip())  # the revision as the run starts
    todo = positions(args.seed)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "serve", "--port", str(port), "--workers",
                             str(args.workers)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        try:
            wait_until_up(url, proc)
        except ServerStartError as e:
            raise SystemExit(f"bench_web: {e}") from None
        t = time.perf_counter()
        with httpx.Client(timeout=300) as c:  # warm: each worker loads each board's kernels
            for _ in range(args.workers):
                for board in ("3/4", "5/6"):
                    params = {"position": todo[0 if board == "3/4" else 1], "time": args.time}
                    # a board compiling its kernels is a 503 with 'compiling': ask again
                    while (r := c.get(url + "/api/analyse", params=params)).status_code == 503 and \
                            "compiling" in r.json():
                        time.sleep(1)
        warm = time.perf_counter() - t
        lock = threading.Lock()
        latencies: list[float] = []
        errors: list[str] = []
        sources: dict[str, int] = {}
        work: list[float] = []  # the server's own seconds of each analysis (no queueing)
        local = threading.local()

        def one(i: int) -> None:
            if not hasattr(local, "client"):
                local.client = httpx.Client(timeout=120)
            t0 = time.perf_counter()
            try:
                r = local.client.get(url + "/api/analyse", params={"position": todo[i % len(todo)],
                                                                  "time": args.time})
                ok = r.status_code == 200 and "value" in r.json()
                what = r.json().get("source") if ok else f"{r.status_code}: {r.text[:120]}"
                spent = r.json().get("seconds") if ok else None
            except (httpx.HTTPError, ValueError) as e:
                ok, what = False, f"{type(e).__name__}: {e}"
            dt = time.perf_counter() - t0
            with lock:
                latencies.append(dt)
                if ok:
                    sources[what] = sources.get(what, 0) + 1
                    work.append(float(spent))
                else:
                    errors.append(what)

        t = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            list(pool.map(one, range(args.requests)))
        wall = time.perf_counter() - t
    finally:
        workers = children(proc.pid)  # the server's worker processes (and multiprocessing's helper)
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        time.sleep(1.0)
        # a worker left running after the server stopped is an orphan: counted, then stopped
        orphans = [p for p in workers if alive(p)]
        for p in orphans:
            os.kill(p, 15)
    lat = sorted(latencies)
    p95 = lat[min(len(lat) - 1, int(round(0.95 * len(lat))) - 1)]
    result = {**stamp, "requests": args.requests, "clients": args.clients, "time": args.time,
              "workers": args.workers, "seed": args.seed, "positions": len(todo), "boards": ["3/4", "5/6"],
              "errors": len(errors), "error_examples": errors[:5], "sources": dict(sorted(sources.items())),
              "median_seconds": round(statistics.median(lat), 4), "p95_seconds": round(p95, 4),
              "max_seconds": round(lat[-1], 4), "min_seconds": round(lat[0], 4),
              "work_median_seconds": round(statistics.median(work), 4) if work else None,
              "work_p95_seconds": round(sorted(work)[max(0, int(round(0.95 * len(work))) - 1)], 4) if work else None,
              "wall_seconds": round(wall, 3), "requests_per_second": round(args.requests / wall, 2),
              "warm_up_seconds": round(warm, 2), "server_children": len(workers), "orphans": len(orphans),
              "cpus": os.cpu_count(),
              "load_average": [round(x, 2) for x in os.getloadavg()]}
    write_atomic(out, json.dumps(result, indent=2) + "\n")
    print(f"{args.requests} analyses (time {args.time:g} s) from {args.clients} clients, {args.workers} workers: "
          f"median {result['median_seconds']:.3f} s, p95 {result['p95_seconds']:.3f} s, "
          f"max {result['max_seconds']:.3f} s, {result['requests_per_second']:.1f} requests/s, "
          f"work a request (server side) median {result['work_median_seconds']} s p95 {result['work_p95_seconds']} s, "
          f"{len(errors)} errors; sources {result['sources']}; {len(orphans)} worker processes left running after "
          f"the server stopped; written to {out}")


if __name__ == "__main__":
    main()
