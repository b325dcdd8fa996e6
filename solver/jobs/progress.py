"""Progress of a run of jobs on a stream (standard error by default), and a one-line live
status for the commands that show one (:class:`StatusLine`).

``'live'`` redraws a table of the running jobs in place (a terminal), ``'lines'`` prints
one line per finished job, ``'off'`` nothing.  Jobs in worker processes report through
status files in the checkpoint's status folder, read twice a second.

The live displays are drawn by rich (its ``Live``: the cursor moves, the redraw, the
width, NO_COLOR), never on a stream that is not a terminal: there the plain lines are
written as they always were, which scripts and tests read.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Sequence, TextIO

if TYPE_CHECKING:
    from solver.jobs.runner import Job, JobResult

__all__ = ["Progress", "progress_mode", "StatusLine", "live_console", "counter_line"]


def progress_mode(progress_ui: bool | str, stream: TextIO) -> str:
    """The display for ``progress_ui``: ``True`` is live on a terminal, else lines."""
    if progress_ui in ("live", "lines", "off"):
        return str(progress_ui)
    if not progress_ui:
        return "off"
    return "live" if stream.isatty() else "lines"


def counter_line(text: str, stream: TextIO | None = None, *, done: bool = False) -> None:
    """A counter's progress line on ``stream`` (standard error): rewritten in place on a
    terminal until ``done``, one line each in a log."""
    stream = stream or sys.stderr
    if stream.isatty():
        print(f"\r{text}", end="\n" if done else "", file=stream, flush=True)
    else:
        print(text, file=stream, flush=True)


def live_console(stream: TextIO):
    """A rich Console drawing live displays on ``stream``, which the caller has found to be
    a terminal (``force_terminal``: a test's stand-in terminal is one too); colours unless
    NO_COLOR is set (rich reads it)."""
    from rich.console import Console

    return Console(file=stream, force_terminal=True, highlight=False, soft_wrap=False)


def _live(console, renderable):
    from rich.live import Live

    # no refresh thread of rich's (the callers redraw when they have news, the jobs'
    # progress twice a second), and stdout/stderr left alone: other output is the callers'
    return Live(renderable, console=console, auto_refresh=False, transient=True,
                redirect_stdout=False, redirect_stderr=False)


class StatusLine:
    """One line of status on a terminal, redrawn in place and rubbed out by :meth:`close`
    (also after Ctrl-C: callers close it in ``finally``); cut to the terminal's width.
    ``show(text, done=, total=)`` puts a progress bar before the text."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.live = None

    def show(self, text: str, done: int | None = None, total: int | None = None) -> None:
        from rich.progress_bar import ProgressBar
        from rich.table import Table
        from rich.text import Text

        line = Text(text, no_wrap=True, overflow="ellipsis", end="")
        if total:
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True, width=20)
            grid.add_column(no_wrap=True, overflow="ellipsis")
            grid.add_row(ProgressBar(total=total, completed=done or 0, width=20), line)
            shown = grid
        else:
            shown = line
        if self.live is None:
            self.live = _live(live_console(self.stream), shown)
            self.live.start()
        self.live.update(shown, refresh=True)

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


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
        self.live = None  # rich's Live in mode 'live', while it runs
        self.lock = threading.RLock()
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        if self.mode == "live":
            with self.lock:
                self._live()
            self.thread = threading.Thread(target=self._loop, name="meridians-progress", daemon=True)
            self.thread.start()

    def close(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join()
        with self.lock:
            if self.live is not None:
                self.live.stop()  # rubs the table out (transient) and shows the cursor again
                self.live = None

    def _live(self):
        if self.live is None and not self.stop.is_set():
            self.live = _live(live_console(self.stream), self._table())
            self.live.start()
        return self.live

    def _say(self, text: str) -> None:
        """A line above the live table (which rich redraws under it), or a plain line."""
        live = self._live() if self.mode == "live" else None
        if live is not None:
            live.console.out(text, highlight=False)
            live.update(self._table(), refresh=True)
        else:
            print(text, file=self.stream, flush=True)

    def message(self, text: str) -> None:
        if self.mode == "off":
            return
        with self.lock:
            self._say(text)

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
            self._say(f"[{n}/{len(self.jobs)}] job {r.key} ({members}): {r.shown}, {effort}{total}")

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
                if self.live is not None and not self.stop.is_set():
                    self.live.update(self._table(), refresh=True)

    def _table(self):
        """The running jobs (rich sizes the columns and cuts the members to fit), and a
        summary line under them."""
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        t = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
        t.add_column("job", no_wrap=True)
        t.add_column("members", no_wrap=True, overflow="ellipsis", max_width=24)
        t.add_column("status", no_wrap=True)
        t.add_column("value", no_wrap=True)
        for name in ("nodes", "nodes/s", "seconds"):
            t.add_column(name, justify="right", no_wrap=True)
        for key, st in self.running.items():
            j = self.jobs[self.index[key]]
            rate = st["nodes"] / st["seconds"] if st["seconds"] else 0.0
            secs = time.monotonic() - st["t0"]
            t.add_row(key, " ".join(j.members), Text("running", style="cyan"), "-", f"{st['nodes']:,}",
                      _si(rate), f"{secs:.1f}")
        counts: dict[str, int] = {}
        for r in self.finished:
            counts[r.shown] = counts.get(r.shown, 0) + 1
        done = len(self.finished) + self.resumed
        summary = ", ".join(f"{v} {n}" for v, n in sorted(counts.items()))
        left = f", {max(0.0, self.deadline - time.time()):.0f} s left" if self.deadline else ""
        foot = Text(f"{done}/{len(self.jobs)} jobs done ({summary or 'none yet'}; {self.resumed} resumed){left}",
                    no_wrap=True, overflow="ellipsis")
        return Group(t, foot)
