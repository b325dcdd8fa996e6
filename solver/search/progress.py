"""Progress of a run of jobs on a stream (standard error by default).

``'live'`` redraws a table of the running jobs in place (a terminal), ``'lines'`` prints
one line per finished job, ``'off'`` nothing.  Jobs in worker processes report through
status files in the checkpoint's status folder, read twice a second.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Sequence, TextIO

if TYPE_CHECKING:
    from .jobs import Job, JobResult

__all__ = ["Progress", "progress_mode"]


def progress_mode(progress_ui: bool | str, stream: TextIO) -> str:
    """The display for ``progress_ui``: ``True`` is live on a terminal, else lines."""
    if progress_ui in ("live", "lines", "off"):
        return str(progress_ui)
    if not progress_ui:
        return "off"
    return "live" if stream.isatty() else "lines"


def _si(x: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.1f} {unit}"
    return f"{x:.0f}"


class Progress:
    """Progress on a stream: ``'live'`` redraws a table of the running jobs in place (a
    terminal), ``'lines'`` prints one line per finished job, ``'off'`` nothing."""

    def __init__(self, mode: str, jobs: Sequence[Job], stream: TextIO,
                 status_dir: Path | None, token: str, deadline: float | None):
        self.mode, self.jobs, self.stream = mode, jobs, stream
        self.status_dir, self.token, self.deadline = status_dir, token, deadline
        self.index = {j.key: i for i, j in enumerate(jobs)}
        self.running: dict[str, dict] = {}
        self.finished: list[JobResult] = []
        self.resumed = 0
        self.drawn = 0
        self.lock = threading.RLock()
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        if self.mode == "live":
            self.thread = threading.Thread(target=self._loop, name="meridians-progress", daemon=True)
            self.thread.start()

    def close(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join()
        with self.lock:
            self._clear()

    def message(self, text: str) -> None:
        if self.mode == "off":
            return
        with self.lock:
            self._clear()
            print(text, file=self.stream, flush=True)
            self._draw()

    def begin(self, job: Job) -> None:
        with self.lock:
            self.running[job.key] = {"nodes": 0, "seconds": 0.0, "horizon": 0, "t0": time.monotonic()}

    def update(self, key: str, info: dict) -> None:
        with self.lock:
            if key in self.running:
                self.running[key].update({k: info[k] for k in ("nodes", "seconds", "horizon") if k in info})

    def end(self, r: JobResult, this_run: dict) -> None:
        with self.lock:
            self.running.pop(r.key, None)
            self.finished.append(r)
            if self.mode == "off":
                return
            n = len(self.finished) + self.resumed
            rate = this_run["nodes"] / this_run["seconds"] if this_run["seconds"] > 0 else 0.0
            members = " ".join(r.members) if len(r.members) <= 6 else " ".join(r.members[:6]) + " ..."
            effort = f"{this_run['nodes']:,} nodes in {this_run['seconds']:.2f} s ({_si(rate)} nodes/s)"
            if "no time left" in r.notes and not this_run["nodes"]:
                effort = "not started: no time left"
            total = f"; all runs {r.nodes:,} nodes, {r.seconds:.2f} s" if r.runs > 1 else ""
            self._clear()
            print(f"[{n}/{len(self.jobs)}] job {r.key} ({members}): {r.shown}, {effort}{total}",
                  file=self.stream, flush=True)
            self._draw()

    def poll(self) -> None:
        """Read the workers' status files."""
        if self.status_dir is None:
            return
        for key in list(self.running):
            try:
                info = json.loads((self.status_dir / f"job-{self.index[key]}.json").read_text())
            except (OSError, ValueError):
                continue
            if info.get("run") == self.token and info.get("key") == key:
                self.update(key, info)

    def _loop(self) -> None:
        while not self.stop.wait(0.5):
            self.poll()
            with self.lock:
                self._clear()
                self._draw()

    def _clear(self) -> None:
        if self.mode == "live" and self.drawn:
            self.stream.write(f"\x1b[{self.drawn}F\x1b[J")
            self.stream.flush()
            self.drawn = 0

    def _draw(self) -> None:
        if self.mode != "live" or self.stop.is_set():
            return
        rows = [f"{'job':8} {'members':24} {'status':8} {'value':7} {'nodes':>14} {'nodes/s':>9} {'seconds':>8}"]
        for key, st in self.running.items():
            j = self.jobs[self.index[key]]
            members = " ".join(j.members)
            members = members if len(members) <= 24 else members[:21] + "..."
            rate = st["nodes"] / st["seconds"] if st["seconds"] else 0.0
            secs = time.monotonic() - st["t0"]
            rows.append(f"{key:8} {members:24} {'running':8} {'-':7} {st['nodes']:>14,} {_si(rate):>9} {secs:>8.1f}")
        counts: dict[str, int] = {}
        for r in self.finished:
            counts[r.shown] = counts.get(r.shown, 0) + 1
        done = len(self.finished) + self.resumed
        summary = ", ".join(f"{v} {n}" for v, n in sorted(counts.items()))
        left = f", {max(0.0, self.deadline - time.time()):.0f} s left" if self.deadline else ""
        rows.append(f"{done}/{len(self.jobs)} jobs done ({summary or 'none yet'}; {self.resumed} resumed){left}")
        width = shutil.get_terminal_size((100, 20)).columns
        text = "\n".join(r[: width - 1] for r in rows)
        self.stream.write(text + "\n")
        self.stream.flush()
        self.drawn = len(rows)

