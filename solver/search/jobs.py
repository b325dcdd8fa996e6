"""Opening jobs: the value of every first move (or every pie pair), in parallel, resumable.

A *job* is one position to solve with :func:`solver.search.prove.prove`: the position
after one class of first moves (the moves whose results are the same up to the board's
symmetries), or under the pie variant the position after one class of pairs of first
stones.  :func:`run_jobs` runs jobs in worker processes (joblib's loky executor) or on a
Dask cluster, splits a wall-time budget fairly among them, shows progress, and writes
each finished job to a checkpoint file at once, so that a killed or interrupted solve
resumes without redoing finished jobs.  :func:`solve_openings` is the whole solve of one
position; ``meridians solve`` calls it.

Jobs are solved as fresh positions (their notation): the position before the first move
is not on the search path.  A win or loss never depends on that (proofs never rely on a
repetition); only a draw by repetition through the root could.

>>> from solver import Board, Position
>>> jobs = opening_jobs(Position.start(Board.parse("2/3")))
>>> len(jobs), sorted(m for j in jobs for m in j.members)[:3]
(5, ['a1', 'a2', 'b1'])
>>> len(pie_jobs(Position.start(Board.parse("2/3")))), 14 * 13
(49, 182)
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import signal
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, TextIO

from .. import RULES_VERSION, __version__
from ..files import write_atomic
from ..position import Position

__all__ = [
    "Job", "JobResult", "shown_value", "JobsRun", "OpeningSolution", "CheckpointError", "JobError",
    "JobsInterrupted", "opening_jobs", "pie_jobs", "run_jobs", "solve_openings",
    "default_checkpoint", "DEFAULT_METHOD", "pie_map_svg", "BACKENDS",
]

BACKENDS = ("loky", "dask")
DEFAULT_METHOD = "dfpn"
CHECKPOINT_FORMAT = "meridians-jobs/1"
_NEGATE = {"win": "loss", "loss": "win", "draw": "draw", "unknown": "unknown"}
_WINNER = {"win": "L", "loss": "D", "draw": "draw", "unknown": "unknown"}
#: a pie pair's value for the player who placed it: the chooser takes the winning colour
_FIRST = {"L": "loss", "D": "loss", "draw": "draw", "unknown": "unknown"}
_STATUS_EVERY = 0.5   # seconds between a worker's status files
_STOP_CHECK_EVERY = 1.0  # seconds between a Dask worker's looks at the stop event


# -- errors ------------------------------------------------------------------------------
class CheckpointError(ValueError):
    """A checkpoint file that is corrupt, belongs to another solve, or is in use."""


class JobError(RuntimeError):
    """A job failed in its worker (the message names the job and the error)."""


class JobsInterrupted(Exception):
    """Ctrl-C: the finished jobs are in ``checkpoint``; workers were stopped."""

    def __init__(self, checkpoint: Path | None, finished: int, total: int):
        self.checkpoint, self.finished, self.total = checkpoint, finished, total
        where = f"; run the same command to resume from {checkpoint}" if checkpoint else ""
        super().__init__(f"interrupted with {finished} of {total} jobs finished{where}")


# -- jobs --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    """One position to solve: ``position`` (notation) stands for every member of the
    class (first moves such as ``'c1'``, or pie pairs ``'c1-d2'``: Light point, Dark
    point); ``key`` is the first member."""

    key: str
    position: str
    members: tuple[str, ...]
    view: str = "position"  # how to show its value: see :func:`shown_value`


def shown_value(view: str, value: str) -> str:
    """A job's value as its class is reported: ``'move'`` for the player who made the
    move (the negation), ``'pie'`` the winning colour (``'L'``, ``'D'``, ``'draw'``,
    ``'unknown'``), ``'position'`` for the player to move in the job's position."""
    if view == "move":
        return _NEGATE[value]
    if view == "pie":
        return _WINNER[value]
    return value


@dataclass
class JobResult:
    """What a job found.  ``value`` is for the player to move in the job's position.
    ``nodes``, ``seconds`` and ``runs`` add up every run of the job (an unknown job is
    run again, with a new budget, when a solve resumes)."""

    key: str
    position: str
    members: tuple[str, ...]
    value: str = "unknown"
    nodes: int = 0
    seconds: float = 0.0
    runs: int = 0
    method: str = ""
    line: list[str] = field(default_factory=list)
    verified: bool = False
    horizon: int = 0
    notes: list[str] = field(default_factory=list)
    resumed: bool = False     # read from the checkpoint, not run now
    view: str = "position"

    @property
    def shown(self) -> str:
        """The value as the class is reported (see :func:`shown_value`)."""
        return shown_value(self.view, self.value)

    @property
    def done(self) -> bool:
        """Decided (win, loss or draw): never run again."""
        return self.value != "unknown"

    def record(self) -> dict:
        """The checkpoint entry."""
        return {
            "value": self.value, "nodes": self.nodes, "seconds": round(self.seconds, 4),
            "runs": self.runs, "method": self.method, "line": self.line,
            "verified": self.verified, "horizon": self.horizon, "notes": self.notes,
        }


def _classes(items: Iterable[tuple[str, Position]], view: str) -> list[Job]:
    """Group (member, position) by the position's key under the board's symmetries."""
    by_key: dict[int, list[tuple[str, Position]]] = {}
    for member, pos in items:
        by_key.setdefault(int(pos.zobrist_symmetric().min()), []).append((member, pos))
    return [Job(ms[0][0], str(ms[0][1]), tuple(m for m, _ in ms), view) for ms in by_key.values()]


def opening_jobs(position: Position) -> list[Job]:
    """One job per class of legal moves of ``position``, in board order of their first
    members: moves whose resulting positions are the same up to a symmetry of the board
    (so have the same value) share a class."""
    return _classes(((m, position.play(m)) for m in position.legal_moves()), "move")


def pie_jobs(position: Position) -> list[Job]:
    """The pie variant: one job per class of ordered pairs (Light point, Dark point) of
    distinct points of the empty ``position``; each job is the position with those two
    stones and Light to move (Light's second stone comes next)."""
    if position.stones("L") or position.stones("D") or position.to_move != "L":
        raise ValueError("the pie variant starts from the empty board with Light to move")
    board = position.board
    names = board.names
    pairs = ((f"{names[a]}-{names[b]}", Position(board, [a], [b], "L"))
             for a in range(board.size) for b in range(board.size) if a != b)
    return _classes(pairs, "pie")


# -- the job function (runs in a worker) -------------------------------------------------
class _Stop(Exception):
    """Raised from the progress callback to end a job whose solve was abandoned."""


def _write_status(status_dir: str, token: str, key: str, index: int, info: dict) -> None:
    try:
        write_atomic(os.path.join(status_dir, f"job-{index}.json"),
                     json.dumps({"run": token, "key": key, **info}))
    except OSError:
        pass  # progress is a courtesy: a worker that cannot write it still solves


def _run_job(
    job: Job, index: int, *, method: str, seconds: float | None, deadline: float | None,
    max_nodes: int, tt_mb: float, status_dir: str | None, token: str,
    chunk_nodes: int | None = None, parent_pid: int | None = None,
    stop_event: str | None = None, report: Callable[[dict], None] | None = None,
) -> dict:
    """Solve one job: :func:`prove` on its position within ``seconds`` and the absolute
    wall-clock ``deadline``.  Returns ``Proof.as_dict()``, or ``{'stopped': True}`` when
    the solve that sent it is gone (its process died, or a Dask client set the stop
    event)."""
    from .prove import prove

    if deadline is not None:
        left = deadline - time.time()
        seconds = left if seconds is None else min(seconds, left)
        if seconds <= 0:
            return {"value": "unknown", "nodes": 0, "seconds": 0.0, "method": method,
                    "notes": ["no time left"]}
    last = {"status": 0.0, "stop": time.monotonic()}
    event = None

    def progress(info: dict) -> None:
        nonlocal event
        now = time.monotonic()
        if report is not None:
            report(info)
        if status_dir is not None and now - last["status"] >= _STATUS_EVERY:
            last["status"] = now
            _write_status(status_dir, token, job.key, index, info)
        if now - last["stop"] >= _STOP_CHECK_EVERY:
            last["stop"] = now
            if parent_pid is not None and os.getppid() != parent_pid:
                raise _Stop()
            if stop_event is not None and event is not False:
                try:
                    if event is None:
                        from distributed import Event
                        event = Event(stop_event)
                    stopped = event.is_set()
                except Exception:  # cannot ask: solve on, as without the event
                    event, stopped = False, False
                if stopped:
                    raise _Stop()

    extra = {} if chunk_nodes is None else {"chunk_nodes": chunk_nodes}
    try:
        proof = prove(Position.parse(job.position), method=method, seconds=seconds,
                      max_nodes=max_nodes, tt_mb=tt_mb, progress=progress, **extra)
    except _Stop:
        return {"stopped": True}
    return proof.as_dict()


def _worker_init(parent_pid: int) -> None:
    """A loky worker leaves Ctrl-C to the main process, which stops it, and ends itself
    when the main process is gone (killed): a watcher thread looks every half second
    (compiled chunks hold the interpreter, so a busy worker ends after its chunk)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="meridians-parent-watch", daemon=True).start()


# -- checkpoint --------------------------------------------------------------------------
def _job_list(jobs: Sequence[Job]) -> list[dict]:
    return [{"key": j.key, "position": j.position, "members": list(j.members)} for j in jobs]


class _Checkpoint:
    """The checkpoint file: finished (and budget-exhausted) jobs, parameters, versions."""

    def __init__(self, path: Path, jobs: Sequence[Job], method: str, params: dict):
        self.path = path
        self.jobs = jobs
        self.method = method
        self.params = params
        self.status_dir = Path(str(path) + ".status")
        self._lock_file = None

    def acquire(self) -> None:
        """Create the status folder and lock it: one solve per checkpoint at a time."""
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.status_dir.mkdir(exist_ok=True)
        f = open(self.status_dir / "lock", "a+")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            f.close()
            if e.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise CheckpointError(f"checkpoint {self.path} is in use by another solve") from None
            raise
        self._lock_file = f
        for p in self.status_dir.glob("job-*.json"):  # left by a killed run
            p.unlink(missing_ok=True)

    def release(self, remove: bool = False) -> None:
        if remove:
            shutil.rmtree(self.status_dir, ignore_errors=True)
            self.path.unlink(missing_ok=True)
        elif self.status_dir.exists():
            for p in self.status_dir.glob("job-*.json"):
                p.unlink(missing_ok=True)
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None
        if not remove:
            try:
                (self.status_dir / "lock").unlink(missing_ok=True)
                self.status_dir.rmdir()
            except OSError:
                pass  # another solve's status files are still there: leave the folder to it

    def load(self) -> dict[str, dict]:
        """The recorded results of a matching checkpoint ({} when there is none)."""
        if not self.path.exists():
            return {}
        bad = f"checkpoint {self.path}"
        hint = "remove it or give another --checkpoint"
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as e:
            raise CheckpointError(f"{bad} cannot be read ({e}): {hint}") from None
        except json.JSONDecodeError as e:
            raise CheckpointError(f"{bad} is not valid JSON ({e}): {hint}") from None
        if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
            raise CheckpointError(f"{bad} is not a meridians checkpoint: {hint}")
        for what, mine in (("code version", __version__), ("rules version", RULES_VERSION),
                           ("method", self.method)):
            theirs = data.get({"code version": "version", "rules version": "rules"}.get(what, what))
            if theirs != mine:
                raise CheckpointError(f"{bad} was written with {what} {theirs}, not {mine}: {hint}")
        if data.get("jobs") != _job_list(self.jobs):
            raise CheckpointError(f"{bad} belongs to another position or variant: {hint}")
        results = data.get("results")
        keys = {j.key for j in self.jobs}
        if not isinstance(results, dict) or not set(results) <= keys:
            raise CheckpointError(f"{bad} has malformed results: {hint}")
        for key, r in results.items():
            if (not isinstance(r, dict) or r.get("value") not in _NEGATE
                    or not isinstance(r.get("nodes"), int) or not isinstance(r.get("seconds"), (int, float))):
                raise CheckpointError(f"{bad} has a malformed result for job {key}: {hint}")
        return results

    def save(self, results: dict[str, JobResult]) -> None:
        data = {
            "format": CHECKPOINT_FORMAT, "version": __version__, "rules": RULES_VERSION,
            "method": self.method, "params": self.params,
            "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "finished": sum(r.done for r in results.values()),
            "jobs": _job_list(self.jobs),
            "results": {k: r.record() for k, r in results.items() if r.runs or r.nodes},
        }
        write_atomic(self.path, json.dumps(data, indent=1) + "\n")


# -- progress ----------------------------------------------------------------------------
def _si(x: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.1f} {unit}"
    return f"{x:.0f}"


class _Progress:
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


# -- running -----------------------------------------------------------------------------
@dataclass
class JobsRun:
    """The results of :func:`run_jobs`, in job order."""

    results: list[JobResult]
    wall_seconds: float
    resumed: int
    checkpoint: Path | None


def _merge(old: JobResult, proof: dict) -> JobResult:
    """Add one run's Proof to a job's record."""
    old.value = proof.get("value", "unknown")
    old.nodes += int(proof.get("nodes", 0))
    old.seconds += float(proof.get("seconds", 0.0))
    old.runs += 1
    old.method = proof.get("method", old.method)
    old.line = list(proof.get("line") or [])
    old.verified = bool(proof.get("verified", False))
    old.horizon = max(old.horizon, int(proof.get("horizon") or 0))
    old.notes = list(proof.get("notes") or [])
    return old


class _Pool:
    """Runs job functions: in this process (one job at a time), in loky worker processes,
    or on a Dask cluster.  ``submit`` returns a future-like object with ``done()`` and
    ``result()``; ``wake`` is set whenever a job finishes."""

    def __init__(self, backend: str, jobs_n: int | None, scheduler: str | None):
        self.backend = backend
        self.wake = threading.Event()
        self.client = None
        self.executor = None
        self.stop_event: str | None = None
        if backend == "dask":
            if not scheduler:
                raise ValueError("--backend dask needs --scheduler ADDRESS (a Dask scheduler, such as tcp://host:8786)")
            try:
                from distributed import Client
            except ImportError as e:  # pragma: no cover - a dependency
                raise ValueError(f"the dask backend needs the 'distributed' package ({e})") from None
            try:
                self.client = Client(scheduler, timeout="10s", set_as_default=False)
            except (OSError, TimeoutError) as e:
                raise ValueError(f"cannot reach the Dask scheduler at {scheduler} ({e})") from None
            if jobs_n is None:
                jobs_n = max(1, sum(self.client.nthreads().values()))
            self.stop_event = f"meridians-stop-{uuid.uuid4().hex}"
        elif backend == "loky":
            jobs_n = jobs_n or 1
            if jobs_n > 1:
                from joblib.externals.loky import get_reusable_executor

                self.executor = get_reusable_executor(max_workers=jobs_n, timeout=30,
                                                      initializer=_worker_init,
                                                      initargs=(os.getpid(),))
        else:
            raise ValueError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")
        self.n = jobs_n
        self.in_process = self.client is None and self.executor is None

    def submit(self, fn, *args, **kwargs):
        if self.client is not None:
            fut = self.client.submit(fn, *args, pure=False, stop_event=self.stop_event, **kwargs)
        else:
            fut = self.executor.submit(fn, *args, parent_pid=os.getpid(), **kwargs)
        fut.add_done_callback(lambda _: self.wake.set())
        return fut

    def shutdown(self, abandon: bool) -> None:
        """Close the pool; ``abandon`` stops the running jobs (killing local workers)."""
        if self.client is not None:
            if abandon:
                try:
                    from distributed import Event
                    Event(self.stop_event, client=self.client).set()
                except Exception:
                    pass  # the scheduler is gone: so are the jobs
            self.client.close()
        elif self.executor is not None and abandon:
            self.executor.shutdown(wait=False, kill_workers=True)


def _progress_mode(progress_ui: bool | str, stream: TextIO) -> str:
    if progress_ui in ("live", "lines", "off"):
        return str(progress_ui)
    if not progress_ui:
        return "off"
    return "live" if stream.isatty() else "lines"


def run_jobs(
    jobs: Sequence[Job],
    *,
    method: str = DEFAULT_METHOD,
    seconds: float | None = None,
    jobs_n: int | None = 1,
    tt_mb: float = 256,
    max_nodes: int = 0,
    checkpoint: str | os.PathLike | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    progress_ui: bool | str = True,
    params: dict | None = None,
    stream: TextIO | None = None,
    chunk_nodes: int | None = None,
) -> JobsRun:
    """Run ``jobs`` and return their results (in job order).

    ``seconds`` is a wall-time budget for the whole run: each job, when it starts, gets
    the time left times the number of workers divided by the number of jobs not yet
    started (at most the time left), so that every job gets its share; a job that runs
    out reports ``'unknown'`` with its effort.  ``max_nodes`` bounds each job's nodes
    (0: no bound).  ``jobs_n`` jobs run at once: in this process when it is 1, else in
    loky worker processes; with ``backend='dask'`` on the cluster at ``scheduler``
    (default: as many as the cluster has threads).

    ``checkpoint``: a JSON file that gets every finished job at once (atomically); a
    matching checkpoint's decided jobs are taken as they are (``resumed``), its unknown
    jobs are run again and their effort added up.  ``progress_ui``: ``True`` a live table
    on a terminal, else a line per finished job; ``False`` nothing.  ``chunk_nodes``
    (default: :func:`prove`'s) bounds the nodes between two looks at the clock.

    Raises :class:`CheckpointError` (a corrupt, mismatched or busy checkpoint),
    :class:`JobError` (a job failed) and :class:`JobsInterrupted` (Ctrl-C: workers
    stopped, checkpoint kept).
    """
    t_start = time.time()
    stream = stream or sys.stderr
    if seconds is not None and seconds <= 0:
        raise ValueError(f"the time budget must be positive, not {seconds}")
    keys = [j.key for j in jobs]
    if len(set(keys)) != len(keys):
        raise ValueError("two jobs with the same key")
    results = {j.key: JobResult(j.key, j.position, j.members, method=method, view=j.view) for j in jobs}
    ck = None
    resumed = 0
    if checkpoint is not None:
        ck = _Checkpoint(Path(checkpoint), jobs, method, dict(params or {}, method=method))
        ck.acquire()
        try:
            resumed = _resume(ck, results)
        except BaseException:
            ck.release()
            raise
    try:
        pool = _Pool(backend, jobs_n, scheduler)
    except BaseException:
        if ck is not None:
            ck.release()
        raise
    token = uuid.uuid4().hex[:12]
    deadline = None if seconds is None else t_start + seconds
    status_dir = str(ck.status_dir) if (ck is not None and not pool.in_process) else None
    ui = _Progress(_progress_mode(progress_ui, stream), jobs,
                   stream, Path(status_dir) if status_dir else None, token, deadline)
    abandon = True
    try:
        if resumed:
            ui.resumed = resumed
            ui.message(f"meridians: resumed {resumed} finished jobs of {len(jobs)} from {ck.path}")
        pending = [(i, j) for i, j in enumerate(jobs) if not results[j.key].done]
        ui.start()
        _schedule(pool, pending, results, ui, ck, method=method, seconds=seconds,
                  deadline=deadline, max_nodes=max_nodes, tt_mb=tt_mb,
                  status_dir=status_dir, token=token, chunk_nodes=chunk_nodes)
        abandon = False
    except KeyboardInterrupt:
        # the running jobs' effort so far is kept as unknown results
        if ck is not None:
            ui.poll()  # the workers' last status files
            with ui.lock:
                for key, st in ui.running.items():
                    if st["nodes"]:
                        _merge(results[key], {"value": "unknown", "nodes": st["nodes"],
                                              "seconds": st["seconds"], "method": method,
                                              "notes": ["interrupted"]})
            ck.save(results)
        finished = sum(r.done for r in results.values())
        raise JobsInterrupted(ck.path if ck else None, finished, len(jobs)) from None
    finally:
        ui.close()
        pool.shutdown(abandon)
        if ck is not None:
            ck.release()
    out = [results[j.key] for j in jobs]
    return JobsRun(out, time.time() - t_start, resumed, ck.path if ck else None)


def _resume(ck: _Checkpoint, results: dict[str, JobResult]) -> int:
    """Fill ``results`` from the checkpoint; the number of decided jobs read."""
    resumed = 0
    for key, rec in ck.load().items():
        r = results[key]
        r.value, r.nodes, r.seconds = rec["value"], rec["nodes"], float(rec["seconds"])
        r.runs = int(rec.get("runs", 1))
        r.line = list(rec.get("line") or [])
        r.verified = bool(rec.get("verified", False))
        r.horizon = int(rec.get("horizon") or 0)
        r.notes = list(rec.get("notes") or [])
        if r.done:
            r.resumed = True
            resumed += 1
    return resumed


def _schedule(pool: _Pool, pending, results, ui: _Progress, ck: _Checkpoint | None, *,
              method, seconds, deadline, max_nodes, tt_mb, status_dir, token, chunk_nodes) -> None:
    """Start jobs as workers come free, each with its share of the time left; record each
    finished job in the checkpoint at once."""
    queue = list(pending)
    running: dict[Any, Job] = {}
    ends: dict[Any, float] = {}  # when each running job's share runs out

    def share() -> float | None:
        # the workers' time left, less what the running jobs still have, split evenly
        # among the jobs not yet started (this one included)
        if deadline is None:
            return None
        now = time.time()
        left = deadline - now
        committed = sum(max(0.0, end - now) for end in ends.values())
        return max(0.0, min(left, (left * pool.n - committed) / max(1, len(queue))))

    def finish(job: Job, proof: dict) -> None:
        if proof.get("stopped"):
            raise JobError(f"job {job.key} was stopped by its worker")
        r = _merge(results[job.key], proof)
        if ck is not None:
            ck.save(results)
        ui.end(r, {"nodes": int(proof.get("nodes", 0)), "seconds": float(proof.get("seconds", 0.0))})

    common = {"method": method, "deadline": deadline, "max_nodes": max_nodes, "tt_mb": tt_mb,
              "token": token, "chunk_nodes": chunk_nodes}
    if pool.in_process:
        while queue:
            budget = share()
            i, job = queue[0]
            queue.pop(0)
            ui.begin(job)
            try:
                proof = _run_job(job, i, seconds=budget, status_dir=None,
                                 report=lambda info, k=job.key: ui.update(k, info), **common)
            except Exception as e:
                raise JobError(f"job {job.key} failed: {type(e).__name__}: {e}") from e
            finish(job, proof)
        return

    while queue or running:
        while queue and len(running) < pool.n:
            budget = share()
            i, job = queue.pop(0)
            ui.begin(job)
            fut = pool.submit(_run_job, job, i, seconds=budget, status_dir=status_dir, **common)
            running[fut] = job
            if budget is not None:
                ends[fut] = time.time() + budget
        pool.wake.wait(0.5)
        pool.wake.clear()
        for fut in [f for f in running if f.done()]:
            job = running.pop(fut)
            ends.pop(fut, None)
            try:
                proof = fut.result()
            except Exception as e:  # a crash in the worker
                raise JobError(f"job {job.key} failed: {type(e).__name__}: {e}") from e
            finish(job, proof)


# -- a whole solve -----------------------------------------------------------------------
def default_checkpoint(position: Position, *, pie: bool = False, method: str = DEFAULT_METHOD,
                       folder: str | os.PathLike = ".meridians") -> Path:
    """``.meridians/solve-<board>[-<position hash>][-pie]-<method>.json``: the position
    hash is left out for the empty board with Light to move."""
    board = position.board.name.replace("/", "-")
    empty = not position.stones("L") and not position.stones("D") and position.to_move == "L"
    tag = "" if empty else "-" + hashlib.sha1(str(position).encode()).hexdigest()[:10]
    return Path(folder) / f"solve-{board}{tag}{'-pie' if pie else ''}-{method}.json"


@dataclass
class OpeningSolution:
    """The result of :func:`solve_openings`.  ``value`` is for the player to move;
    ``moves[m]`` for the player who made move ``m`` (under the pie variant ``m`` is a
    pair ``'c1-d2'`` of first stones, and ``pairs[m]`` who wins it: ``'L'``, ``'D'``,
    ``'draw'`` or ``'unknown'``; the chooser takes the winning colour)."""

    position: str
    pie: bool
    method: str
    value: str
    moves: dict[str, str]
    line: list[str]
    nodes: int
    seconds: float
    wall_seconds: float
    classes: list[JobResult]
    resumed: int = 0
    pairs: dict[str, str] = field(default_factory=dict)
    checkpoint: str | None = None
    notes: list[str] = field(default_factory=list)


    def summary(self) -> dict[str, int]:
        """How many moves (or pairs) have each value (pie: each winner)."""
        out: dict[str, int] = {}
        for v in (self.pairs if self.pie else self.moves).values():
            out[v] = out.get(v, 0) + 1
        return out

    def as_dict(self) -> dict:
        d = {
            "position": self.position, "pie": self.pie, "method": self.method,
            "value": self.value, "moves": self.moves, "line": self.line,
            "nodes": self.nodes, "seconds": round(self.seconds, 4),
            "wall_seconds": round(self.wall_seconds, 4), "resumed": self.resumed,
            "summary": self.summary(),
            "classes": [
                {"key": r.key, "members": list(r.members), "value": r.shown,
                 "nodes": r.nodes, "seconds": round(r.seconds, 4), "runs": r.runs,
                 "resumed": r.resumed, "verified": r.verified, "horizon": r.horizon,
                 "notes": r.notes, "position": r.position}
                for r in self.classes
            ],
            "checkpoint": self.checkpoint, "notes": self.notes,
        }
        if self.pie:
            d["pairs"] = self.pairs
        return d


def _best(values: Iterable[str]) -> str:
    """The value of a choice among ``values`` (each for the chooser): a win if there is
    one, else unknown if any is unknown (it might be a win), else a draw, else a loss."""
    vs = set(values)
    return next((v for v in ("win", "unknown", "draw") if v in vs), "loss")


def solve_openings(
    position: Position,
    *,
    pie: bool = False,
    method: str = DEFAULT_METHOD,
    seconds: float | None = None,
    jobs_n: int | None = 1,
    tt_mb: float = 256,
    max_nodes: int = 0,
    checkpoint: str | os.PathLike | None = None,
    keep_checkpoint: bool = True,
    backend: str = "loky",
    scheduler: str | None = None,
    progress_ui: bool | str = True,
    params: dict | None = None,
    chunk_nodes: int | None = None,
) -> OpeningSolution:
    """Solve ``position`` through its opening jobs (:func:`opening_jobs`, or
    :func:`pie_jobs` with ``pie``), run by :func:`run_jobs` (same parameters).
    ``keep_checkpoint=False`` removes the checkpoint once every job is decided."""
    t0 = time.time()
    if position.outcome is not None:
        if pie:
            raise ValueError("the pie variant starts from the empty board with Light to move")
        result = position.outcome
        value = "draw" if result == "draw" else ("win" if result == position.to_move else "loss")
        return OpeningSolution(str(position), False, method, value, {}, [], 0, 0.0, 0.0, [])
    jobs = pie_jobs(position) if pie else opening_jobs(position)
    params = dict(params or {}, position=str(position), pie=pie)
    run = run_jobs(jobs, method=method, seconds=seconds, jobs_n=jobs_n, tt_mb=tt_mb,
                   max_nodes=max_nodes, checkpoint=checkpoint, backend=backend,
                   scheduler=scheduler, progress_ui=progress_ui, params=params,
                   chunk_nodes=chunk_nodes)
    sol = OpeningSolution(str(position), pie, method, "unknown", {}, [], 0, 0.0, 0.0, run.results,
                          resumed=run.resumed, checkpoint=str(run.checkpoint) if run.checkpoint else None)
    for r in run.results:
        v = r.shown
        for m in r.members:
            if pie:
                sol.pairs[m] = v
                sol.moves[m] = _FIRST[v]
            else:
                sol.moves[m] = v
    if pie:
        names = position.board.names
        order = {f"{names[a]}-{names[b]}": (a, b) for a in range(len(names)) for b in range(len(names))}
        sol.pairs = dict(sorted(sol.pairs.items(), key=lambda kv: order[kv[0]]))
        sol.moves = {m: sol.moves[m] for m in sol.pairs}
    else:
        sol.moves = {m: sol.moves[m] for m in position.legal_moves()}
    # each class's value for the player who chose it (pie: the chooser takes the winner)
    per_class = [(r, _FIRST.get(r.shown, "unknown") if pie else r.shown)
                 for r in run.results]
    sol.value = _best(v for _, v in per_class)
    for r, v in per_class:  # a line from the first class with the value
        if v == sol.value and sol.value != "unknown":
            first = r.members[0].split("-") if pie else [r.members[0]]
            sol.line = first + list(r.line)
            break
    sol.nodes = sum(r.nodes for r in run.results)
    sol.seconds = sum(r.seconds for r in run.results)
    sol.wall_seconds = time.time() - t0
    if sol.value == "draw":
        sol.notes.append("the draw depends on the repetition rule")
    unknown = [r for r in run.results if not r.done]
    if unknown:
        sol.notes.append(f"{len(unknown)} of {len(run.results)} classes unknown (budget spent)")
    if run.checkpoint is not None and not keep_checkpoint and not unknown:
        run.checkpoint.unlink(missing_ok=True)
        shutil.rmtree(Path(str(run.checkpoint) + ".status"), ignore_errors=True)
        try:
            run.checkpoint.parent.rmdir()  # the default folder, when nothing else is in it
        except OSError:
            pass
        sol.checkpoint = None
    return sol


# -- the pie map -------------------------------------------------------------------------
def pie_map_svg(position: Position, pairs: dict[str, str], *, title: str | None = None,
                board_px: float = 150) -> str:
    """An SVG picture of a pie map: one small board per Light point (where the Light
    stone is drawn), laid out like the board's rows, every other point coloured by who
    wins when the Dark stone goes there (green Light, red Dark, grey draw, dashed
    unknown).

    >>> from solver import Board, Position
    >>> svg = pie_map_svg(Position.start(Board.parse("1/2")), {"a1-b1": "D"})
    >>> svg.count('class="meridians map"')
    4
    """
    from xml.sax.saxutils import escape

    from ..svg import map_svg

    board = position.board
    names = board.names
    colour = {"L": "win", "D": "loss", "draw": "draw", "unknown": "unknown"}
    counts: dict[str, int] = {}
    for v in pairs.values():
        counts[v] = counts.get(v, 0) + 1
    small: list[tuple[int, str]] = []
    for p in range(board.size):
        values = {}
        for q in range(board.size):
            v = pairs.get(f"{names[p]}-{names[q]}")
            if v is not None:
                values[q] = colour.get(v, v)
        small.append((p, map_svg(board, values, title=f"Light {names[p]}", legend=False,
                                 coordinates=False, light=[p], size=board_px)))
    # the small boards' height from the first one's viewBox
    first = small[0][1]
    vb = first.split('viewBox="', 1)[1].split('"', 1)[0].split()
    board_h = board_px * float(vb[3]) / float(vb[2])
    rows: dict[int, list[int]] = {}
    for p in range(board.size):
        rows.setdefault(board.row_col(p)[0], []).append(p)
    gap = 0.08 * board_px
    cols = max(len(r) for r in rows.values())
    text = title or f"{board.name} pie: who wins after Light's and Dark's first stones"
    names_of = {"L": "green: Light wins", "D": "red: Dark wins", "draw": "grey: draw", "unknown": "dashed: unknown"}
    lines = [
        (text, 22, "bold"),
        ("Each board: Light's stone (white); each point: the winner when Dark's stone goes there", 14, "normal"),
        (", ".join(f"{names_of.get(v, v)} ({counts[v]} pairs)" for v in ("L", "D", "draw", "unknown") if v in counts),
         14, "normal"),
    ]
    width = max(cols * (board_px + gap) + gap, max(0.56 * f * len(t) + 20 for t, f, _ in lines))
    head = 24 + sum(f * 1.5 for _, f, _ in lines)
    height = head + len(rows) * (board_h + gap) + gap
    out = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" class="meridians pie-map" '
         f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" '
         f'font-family="Helvetica, Arial, sans-serif">'),
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#fbf8f1"/>',
    ]
    y = 12.0
    for i, (t, f, weight) in enumerate(lines):
        y += f * 1.5
        cls = "title" if i == 0 else "legend"
        out.append(f'<text class="{cls}" x="{width / 2:.0f}" y="{y:.0f}" text-anchor="middle" font-size="{f}" '
                   f'font-weight="{weight}" fill="#3b2f20">{escape(t)}</text>')
    svgs = dict(small)
    for y in sorted(rows):
        row = sorted(rows[y], key=lambda p: board.row_col(p)[1])
        x0 = (width - len(row) * (board_px + gap) + gap) / 2
        top = head + gap + y * (board_h + gap)
        for i, p in enumerate(row):
            inner = svgs[p].replace("<svg", f'<svg x="{x0 + i * (board_px + gap):.1f}" y="{top:.1f}"', 1)
            out.append(inner.strip())
    out.append("</svg>")
    return "\n".join(out) + "\n"
