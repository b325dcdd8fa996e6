"""The ASGI application of ``meridians serve`` (Starlette) and its worker pool.

Routes (every ``/api`` answer is JSON; bad input is a 400 whose body is one line,
``{"error": "..."}``; nothing is ever answered with a traceback):

- ``GET /`` the analysis board, ``GET /trainer`` the puzzle trainer, ``GET /static/NAME``
  their script and style (package data, no build step);
- ``GET /api/position?position=P`` -> ``{position, to_move, legal_moves, outcome, dead, threatened, ...}``
  (:func:`solver.app.web.work.position_info`);
- ``POST /api/play`` with ``{position, move}`` -> the position after the move
  (:func:`~solver.app.web.work.play_move`), or 400 naming the rule an illegal move breaks;
- ``GET /api/analyse?position=P&time=S`` -> the position's analysis, as ``meridians lookup
  --json`` prints it (:func:`~solver.app.web.work.analyse`, :func:`solver.app.analyst.analyse`);
- ``GET /api/move?position=P&time=S`` -> ``{move, after, ...}``: the analysis's best move
  played (:func:`~solver.app.web.work.engine_move`); with ``player=`` (``uct``, ``mcts``,
  ``mcts-flat``, ``random``) that player of :mod:`solver.app.match` moves instead;
- ``GET /play`` play the engine; ``GET /api/levels?board=B`` -> its levels, named by their
  measured Elo (:func:`solver.app.web.levels.levels`);
- ``GET /api/explain?position=P&move=M`` -> ``{move, legal, reason}``: why a move is refused;
- ``GET /explorer`` the opening explorer; ``GET /api/explore?position=P&moves=M1,M2`` -> each move of
  the position reached with its proven value and length from the opening database
  (:func:`solver.app.web.explore.explore`; no search);
- ``POST /api/record`` with ``{text, board}`` -> a pasted game record's start, moves and positions;
- ``POST /api/record-text`` with ``{start, moves, headers, result, swap, variations}`` -> ``{text, result,
  filename}``: the game as a record in our format (:func:`~solver.app.web.work.write_record`);
- ``GET /api/board?board=B`` -> the board's SVG ``<defs>`` and point geometry;
- ``GET /api/puzzles?board=&n=&theme=&rating=`` -> the committed puzzles that match (each
  with ``rating``, the record's difficulty 1-5, and ``puzzle_rating``, its rating from
  solvers' attempts or None), with the values each filter offers (and a ``note`` when
  none matches; an invalid board or a number that is not a whole number is a 400);
  ``GET /api/puzzle?id=ID`` -> one puzzle's task and line, and the target's paths at each
  step (the trainer's hint, :func:`solver.app.web.trainer.line_paths`).

Where the work runs: the rules' answers (a position, a move, a puzzle's line) take
milliseconds and run in threads (a thread loads every board's rules kernels from the
server's start, so that no board's first position waits for their compile); analyses
and engine moves run in a pool of worker *processes*
(:class:`concurrent.futures.ProcessPoolExecutor`, started with ``spawn``), because the
compiled kernels hold the interpreter lock for the whole search: in a thread they would
stop the event loop, and with it every other request.  A search
keeps to its own time budget (``time``, from :data:`MIN_SECONDS` to
:data:`MAX_SECONDS`); the request waits for it at most that plus :data:`GRACE_SECONDS`
(a board's first compile in a fresh worker), then answers 503.  At most
:data:`MAX_PENDING` searches wait for the pool; more are answered 503 at once.  A search
whose request has gone (the board moved on and dropped it) or whose wait ran out is
stopped in its worker: each waiting search has a slot in a flag array shared with the
workers, which the searches look at between chunks of work.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from importlib import resources

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from solver.rules.board import MAX_M, MIN_M, Board
from solver.util.errors import MeridiansError
from . import work

__all__ = ["create_app", "MIN_SECONDS", "MAX_SECONDS", "DEFAULT_SECONDS", "GRACE_SECONDS", "MAX_PENDING",
           "WebError", "check_seconds"]

#: the shortest and longest analysis or engine move a request may ask for, in seconds
MIN_SECONDS = 0.1
MAX_SECONDS = 30.0
DEFAULT_SECONDS = 1.0
#: how much longer than its budget a request waits for its search (a fresh worker's
#: first compile of a board's kernels: 30-60 s on this machine) before answering 503
GRACE_SECONDS = 120.0
#: searches waiting for or running in the pool at most; more are refused with a 503
MAX_PENDING = 64
#: how long a request for a board whose kernels are compiling waits for them before it is
#: answered 503 with ``compiling`` (the page says so and asks again): longer than a new
#: worker's start and a load from numba's cache, shorter than a compile
COMPILE_WAIT = 5.0
#: the board the analysis page opens with: its kernels are loaded when the server starts
FIRST_BOARD = "3/4"
#: the boards whose rules' kernels the server loads in a background thread from its start
#: (:func:`~solver.app.web.work.load_rules`): every board, the first board first
RULES_BOARDS = tuple(sorted((Board.get(m).name for m in range(MIN_M, MAX_M + 1)), key=lambda b: b != FIRST_BOARD))
#: the largest request body read (a pasted game record)
MAX_BODY = 200_000
#: pages and static files: nothing leaves the server's origin
_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'"
_STATIC = {"board.js": "text/javascript", "trainer.js": "text/javascript", "common.js": "text/javascript",
           "coords.js": "text/javascript", "style.css": "text/css"}
_PAGES = {"/": "board.html", "/trainer": "trainer.html"}
_STATIC.update({"explorer.js": "text/javascript", "explorer.css": "text/css"})
_PAGES["/explorer"] = "explorer.html"
_STATIC.update({"play.js": "text/javascript", "play.css": "text/css"})
_PAGES["/play"] = "play.html"


class WebError(MeridiansError):
    """A request the API refuses (a 400, or ``status``): the message is its one line;
    ``compiling``: the board whose kernels a 503 waits for."""

    def __init__(self, message: str, status: int = 400, compiling: str | None = None):
        super().__init__(message)
        self.status = status
        self.compiling = compiling


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": _one_line(message)}, status_code=status)


def check_seconds(raw: str | None) -> float:
    """The ``time`` parameter: a number of seconds, at most :data:`MAX_SECONDS`; from
    above 0 to :data:`MIN_SECONDS` it is raised to MIN_SECONDS (the least a search is
    given); absent: :data:`DEFAULT_SECONDS`.  Anything else is a :class:`WebError`.

    >>> check_seconds("2"), check_seconds(None), check_seconds("0.01")
    (2.0, 1.0, 0.1)
    """
    if raw is None or raw == "":
        return DEFAULT_SECONDS
    try:
        s = float(raw) if len(raw) <= 32 else math.nan
    except ValueError:
        s = math.nan
    if not math.isfinite(s) or s <= 0 or s > MAX_SECONDS:
        shown = raw if len(raw) <= 32 else raw[:29] + "..."
        raise WebError(f"time {shown!r}: give a number of seconds above 0, at most {MAX_SECONDS:g}")
    return max(s, MIN_SECONDS)


def _worker_start(flags) -> None:
    """A worker ignores Ctrl-C: the terminal sends it to the whole process group, and the
    server, which gets it too, stops the workers itself (else each idle worker would
    print a KeyboardInterrupt traceback).  It stops a search whose flag the server
    raises (:func:`solver.app.web.work.listen`)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    work.listen(flags)


class _Pool:
    """The worker processes of the searches, made on first use and made again if one
    dies (a worker killed by the system breaks the whole executor)."""

    def __init__(self, workers: int, compile_wait: float = COMPILE_WAIT):
        self.workers, self.compile_wait = workers, compile_wait
        self._pool: ProcessPoolExecutor | None = None
        self.pending = 0
        self._flags = None  # one stop flag a slot, shared with the workers
        self._free: list[int] = []
        self.ready: set[str] = set()   # boards whose kernels are compiled (numba's cache on disk)
        self._warming: dict[str, tuple[asyncio.Future, float]] = {}

    def executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            ctx = multiprocessing.get_context("spawn")
            self._flags = ctx.Array("b", MAX_PENDING, lock=False)
            self._free = list(range(MAX_PENDING))
            self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_worker_start,
                                             initargs=(self._flags,))
        return self._pool

    def warm(self, board: str) -> asyncio.Future:
        """The loading (on a board's first use, compiling) of ``board``'s kernels in one
        worker, started once; the other workers then load them from numba's cache."""
        if board not in self._warming:
            loop = asyncio.get_running_loop()
            fut = asyncio.wrap_future(self.executor().submit(work.warm, (board,)))
            started = loop.time()

            def done(f: asyncio.Future) -> None:
                if not f.cancelled() and f.exception() is None:
                    self.ready.add(board)
                    print(f"meridians: the {board} kernels are ready ({loop.time() - started:.0f} s)",
                          file=sys.stderr, flush=True)
                else:
                    self._warming.pop(board, None)  # a failed load is tried again by the next request

            fut.add_done_callback(done)
            self._warming[board] = (fut, started)
        return self._warming[board][0]

    async def compiled(self, board: str) -> None:
        """Return once ``board``'s kernels are loaded in some worker, waiting at most
        ``compile_wait`` seconds; else a 503 :class:`WebError` with ``compiling`` set, which
        the page shows and asks again after."""
        if board in self.ready:
            return
        try:
            fut = self.warm(board)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(fut), self.compile_wait)
        except BrokenProcessPool:
            self.close()
            raise WebError("a worker process stopped; the pool was restarted: try again", 503) from None
        if board in self.ready:
            return
        if fut.done():  # the load failed (its entry is gone: the next request tries again)
            why = "stopped" if fut.cancelled() else fut.exception()
            raise WebError(f"loading the {board} kernels failed ({why}): try again", 503)
        since = asyncio.get_running_loop().time() - self._warming[board][1]
        raise WebError(f"compiling the {board} kernels (first use, {since:.0f} s so far): "
                       "the analysis starts once they are ready", 503, compiling=board)

    async def run(self, fn, *args, timeout: float, gone=None):
        """``fn(*args, slot=...)`` in a worker; ``gone``: an async test of whether the
        request has gone, looked at while waiting: then the search is stopped (taken off
        the queue, or its slot's flag raised) and WebError 499 is raised."""
        if self.pending >= MAX_PENDING:
            raise WebError(f"the server is busy ({self.pending} searches waiting): try again shortly", 503)
        self.pending += 1
        try:
            try:
                executor = self.executor()
                flags, slot = self._flags, self._free.pop()
                flags[slot] = 0
                done_in_worker = executor.submit(partial(fn, *args, slot=slot))
                # the slot is free again once its search has ended in the worker, not when
                # the request has (a stopped search runs on for a moment, its flag raised)
                done_in_worker.add_done_callback(lambda _: self._free.append(slot) if flags is self._flags else None)
                fut = asyncio.wrap_future(done_in_worker)
                deadline = asyncio.get_running_loop().time() + timeout
                while True:
                    done, _ = await asyncio.wait({fut}, timeout=min(0.1, timeout))
                    if done:
                        return fut.result()
                    if gone is not None and await gone():
                        flags[slot] = 1
                        fut.cancel()
                        raise WebError("the request has gone: its search was stopped", 499)
                    if asyncio.get_running_loop().time() >= deadline:
                        flags[slot] = 1
                        raise WebError(f"no answer within {timeout:g} s: the server is busy, try again", 503)
            except BrokenProcessPool:
                self.close()
                raise WebError("a worker process stopped; the pool was restarted: try again", 503) from None
        finally:
            self.pending -= 1

    def close(self, stop: bool = False) -> None:
        """Let the pool go (a broken one), or with ``stop`` (the server is stopping) end its
        workers: a search still running is not waited for (the server's process may be
        about to exit, and a worker left behind would live on as an orphan)."""
        if self._pool is None:
            return
        pool, self._pool = self._pool, None
        processes = list((getattr(pool, "_processes", None) or {}).values())  # no public accessor
        pool.shutdown(wait=False, cancel_futures=True)
        if stop:
            for proc in processes:
                if proc.is_alive():
                    proc.terminate()
            for proc in processes:
                proc.join(timeout=5)


class _Puzzles:
    """The committed puzzle sets (or the ``*.jsonl`` files of a folder), read once;
    read without re-validating every record (the sets are audited when committed, and
    each puzzle shown is validated when its line is computed)."""

    def __init__(self, folder: str | os.PathLike | None):
        self.folder = folder
        self._all = None

    def all(self):
        if self._all is None:
            from puzzles.record import default_search_files, load_jsonl

            self._all = [p for f in default_search_files(self.folder) for p in load_jsonl(f, check=False)]
            self._by_id = {p.id: p for p in self._all}
        return self._all

    def summary(self, p) -> dict:
        return {"id": p.id, "board": _board_of(p.position), "n": p.n, "rating": p.difficulty,
                "puzzle_rating": p.rating,
                "themes": list(p.themes or ()), "dual_free": bool(p.dual_free)}

    def find(self, pid: str):
        self.all()
        p = self._by_id.get(pid)
        if p is None:
            raise WebError(f"no puzzle with id {pid[:60]!r}", 404)
        return p


def _board_of(position: str) -> str:
    """The board name of a position text from its row widths (no rules needed)."""
    rows = position.split()[0].split("/")
    m = len(rows) // 2
    return f"{m}/{m + 1}"


def _param(request: Request, name: str, required: bool = True) -> str | None:
    v = request.query_params.get(name)
    if v is None and required:
        raise WebError(f"missing parameter {name!r}")
    return v


def _puzzle_filters(query) -> dict:
    """The filters of ``/api/puzzles`` that are given, checked: a board name and whole
    numbers, else a :class:`WebError` (a filter no puzzle could match would answer an
    empty list that looks like a valid one)."""
    out = {}
    if query.get("board"):
        out["board"] = Board.parse(query["board"]).name  # a BoardError is a ValueError: a 400
    for name in ("n", "rating"):
        raw = query.get(name)
        if raw:
            if not (raw.isascii() and raw.isdigit() and len(raw) <= 9 and int(raw) >= 1):
                shown = raw if len(raw) <= 32 else raw[:29] + "..."
                raise WebError(f"{name} {shown!r}: give a whole number, 1 or more")
            out[name] = int(raw)
    if query.get("theme"):
        out["theme"] = query["theme"]
    return out


async def _json_body(request: Request) -> dict:
    body = await request.body()
    if len(body) > MAX_BODY:
        raise WebError(f"a body of {len(body):,} bytes: at most {MAX_BODY:,}", 413)
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise WebError("the body is not JSON: send an object such as {\"position\": \"3/4\", \"move\": \"c2\"}") \
            from None
    if not isinstance(data, dict):
        raise WebError("the body must be a JSON object such as {\"position\": \"3/4\", \"move\": \"c2\"}")
    return data


def _load_rules(boards: tuple[str, ...], stop: threading.Event) -> None:
    """:func:`~solver.app.web.work.load_rules` of each board until ``stop`` is set; a
    board that fails is left to its first request, which then says why."""
    for board in boards:
        if stop.is_set():
            return
        with contextlib.suppress(Exception):
            work.load_rules(board)


def create_app(*, workers: int | None = None, puzzles: str | os.PathLike | None = None,
               warm: tuple[str, ...] = (), first: tuple[str, ...] = (),
               compile_wait: float = COMPILE_WAIT, rules: tuple[str, ...] = RULES_BOARDS) -> Starlette:
    """The application.  ``workers``: search processes (default: the cores, at most
    4); ``puzzles``: a folder of ``*.jsonl`` puzzle sets (default the committed ones);
    ``warm``: boards whose kernels every worker loads before the server starts;
    ``first``: boards whose kernels one worker loads in the background from the start
    (``meridians serve``: :data:`FIRST_BOARD`).  A request for a board whose kernels are
    not loaded yet starts their loading in one worker and waits for it at most
    ``compile_wait`` seconds, then answers 503 with ``compiling`` (the page says so and
    asks again), so that a cold start is a message, never a silent wait.  ``rules``: boards
    whose rules' kernels a thread of the server loads from the start, one after the
    other, so that a board's first position is answered without a compile."""
    pool = _Pool(workers or max(1, min(4, os.cpu_count() or 1)), compile_wait)
    sets = _Puzzles(puzzles)

    async def api_position(request: Request):
        return JSONResponse(await run_in_threadpool(work.position_info, _param(request, "position")))

    async def api_play(request: Request):
        data = await _json_body(request)
        if "position" not in data or "move" not in data:
            raise WebError("give {\"position\": ..., \"move\": ...}")
        return JSONResponse(await run_in_threadpool(work.play_move, data["position"], data["move"]))

    async def api_explain(request: Request):
        return JSONResponse(await run_in_threadpool(work.explain_move, _param(request, "position"),
                                                    _param(request, "move")))

    async def api_record(request: Request):
        data = await _json_body(request)
        return JSONResponse(await run_in_threadpool(work.read_record, data.get("text"), data.get("board")))

    async def api_record_text(request: Request):
        data = await _json_body(request)
        return JSONResponse(await run_in_threadpool(work.write_record, data.get("start"), data.get("moves"),
                                                    data.get("headers"), data.get("result"), data.get("swap", False),
                                                    data.get("variations")))

    async def _search(request: Request, fn, **options):
        text = _param(request, "position")
        seconds = check_seconds(request.query_params.get("time"))
        pos = await run_in_threadpool(work.parse, text)  # a malformed position is a 400 before the pool
        await pool.compiled(pos.board.name)
        return JSONResponse(await pool.run(partial(fn, **options) if options else fn, text, seconds,
                                           timeout=seconds + GRACE_SECONDS, gone=request.is_disconnected))

    async def api_analyse(request: Request):
        return await _search(request, work.analyse)

    async def api_move(request: Request):
        player = request.query_params.get("player") or None
        if player is not None and player not in work.PLAYERS:
            shown = player if len(player) <= 32 else player[:29] + "..."
            raise WebError(f"player {shown!r}: one of {', '.join(work.PLAYERS)} (default engine)")
        return await _search(request, work.engine_move, **({"player": player} if player else {}))

    async def api_levels(request: Request):
        from .levels import levels

        board = Board.parse(request.query_params.get("board") or "5/6").name  # a BoardError: a 400
        return JSONResponse({"board": board, "levels": await run_in_threadpool(levels, board)})

    async def api_explore(request: Request):
        from .explore import explore

        return JSONResponse(await run_in_threadpool(explore, _param(request, "position"),
                                                    request.query_params.get("moves")))

    async def api_board(request: Request):
        def drawing(text):
            from puzzles.book import board_drawing

            b = work.parse(text).board
            defs, geometry = board_drawing(b, b.m)
            return {"board": b.name, "m": b.m, "defs": defs, "geometry": geometry}

        return JSONResponse(await run_in_threadpool(drawing, _param(request, "board")))

    async def api_puzzles(request: Request):
        q = _puzzle_filters(request.query_params)
        ps = await run_in_threadpool(sets.all)
        rows = [sets.summary(p) for p in ps]
        options = {"board": sorted({r["board"] for r in rows}), "n": sorted({r["n"] for r in rows}),
                   "theme": sorted({t for r in rows for t in r["themes"]}),
                   "rating": sorted({r["rating"] for r in rows if r["rating"] is not None})}

        def keep(r: dict) -> bool:
            return (all(r[name] == q[name] for name in ("board", "n", "rating") if name in q)
                    and ("theme" not in q or q["theme"] in r["themes"]))

        chosen = [r for r in rows if keep(r)]
        answer = {"count": len(chosen), "puzzles": chosen, "options": options}
        if not chosen:
            # valid filters that no puzzle matches: say so, an empty list alone looks like a fault
            wanted = ", ".join(f"{k} {v}" for k, v in q.items())
            answer["note"] = _one_line(f"no puzzle matches {wanted}" if q else "there are no puzzles")
        return JSONResponse(answer)

    async def api_puzzle(request: Request):
        pid = _param(request, "id")

        def one():
            from puzzles.book import puzzle_data

            from .trainer import line_paths

            p = sets.find(pid)
            pos = p.to_position()
            data = puzzle_data(p, pos.board.m)
            return {**sets.summary(p), "task": p.task(), "target": p.target, "m": pos.board.m,
                    "last_moves": list(p.last_moves or ()),
                    "data": data, "paths": line_paths(pos, p.defender, data)}

        return JSONResponse(await run_in_threadpool(one))

    async def page(request: Request):
        name = _PAGES[request.url.path]
        text = resources.files("solver.app.web").joinpath("static", name).read_text(encoding="utf-8")
        return Response(text, media_type="text/html; charset=utf-8", headers={"Content-Security-Policy": _CSP})

    async def static(request: Request):
        name = request.path_params["name"]
        if name not in _STATIC:
            raise WebError(f"no file {name[:60]!r}", 404)
        data = resources.files("solver.app.web").joinpath("static", name).read_bytes()
        return Response(data, media_type=_STATIC[name], headers={"Cache-Control": "no-cache"})

    async def on_value_error(request: Request, exc: ValueError):
        compiling = getattr(exc, "compiling", None)
        if compiling:
            return JSONResponse({"error": _one_line(str(exc)), "compiling": compiling}, status_code=503,
                                headers={"Retry-After": "2"})
        return _error(str(exc), getattr(exc, "status", 400))

    async def on_http(request: Request, exc: HTTPException):
        return _error(exc.detail or "error", exc.status_code)

    async def on_anything(request: Request, exc: Exception):
        # the last resort: one line naming the kind of failure, never a traceback
        return _error(f"internal error ({type(exc).__name__}): {exc}", 500)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        if warm:
            await asyncio.gather(*(asyncio.get_running_loop().run_in_executor(pool.executor(), work.warm, warm)
                                   for _ in range(pool.workers)))
            pool.ready.update(warm)
        for board in first:  # in the background: requests are served meanwhile
            pool.warm(board)
        stop = threading.Event()
        if rules:
            threading.Thread(target=_load_rules, args=(rules, stop), name="meridians-rules", daemon=True).start()
        try:
            yield
        finally:
            stop.set()
            pool.close(stop=True)

    routes = [Route("/", page), Route("/trainer", page), Route("/static/{name}", static),
              Route("/api/position", api_position), Route("/api/play", api_play, methods=["POST"]),
              Route("/api/analyse", api_analyse), Route("/api/move", api_move),
              Route("/api/explain", api_explain), Route("/api/record", api_record, methods=["POST"]),
              Route("/api/board", api_board),
              Route("/api/record-text", api_record_text, methods=["POST"]),
              Route("/api/puzzles", api_puzzles), Route("/api/puzzle", api_puzzle)]
    routes += [Route("/explorer", page), Route("/api/explore", api_explore)]
    routes += [Route("/play", page), Route("/api/levels", api_levels)]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={ValueError: on_value_error, HTTPException: on_http, Exception: on_anything})
    app.state.pool = pool
    return app
