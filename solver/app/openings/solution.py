"""The solve of a whole position through its opening jobs: one job per class of moves.

The jobs are the position after one class of first moves (the moves whose results are
the same up to the board's symmetries), or under the pie variant the position after one
class of pairs of first stones.  :func:`solve_openings` runs them with
:func:`solver.jobs.runner.run_jobs` (in parallel, checkpointed, resumable) and puts their
values together; ``meridians solve`` calls it.

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

import hashlib
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from solver.util.files import state_dir
from solver.rules.position import Position
from solver.jobs.runner import DEFAULT_METHOD, Job, JobResult, run_jobs
from solver.search.limit import Limit, check_limit
from solver.search.values import Value

__all__ = ["opening_jobs", "pie_jobs", "default_checkpoint", "OpeningSolution", "solve_openings"]

#: a pie pair's value for the player who placed it: the chooser takes the winning colour
_FIRST = {"L": "loss", "D": "loss", "draw": "draw", "unknown": "unknown"}


# -- jobs --------------------------------------------------------------------------------

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


# -- a whole solve -----------------------------------------------------------------------
def default_checkpoint(position: Position, *, pie: bool = False, method: str = DEFAULT_METHOD,
                       folder: str | os.PathLike | None = None) -> Path:
    """``<folder>/solve-<board>[-<position hash>][-pie]-<method>.json``, ``folder`` by
    default the user's state folder (:func:`solver.util.files.state_dir`, created if
    missing); the position hash is left out for the empty board with Light to move."""
    board = position.board.name.replace("/", "-")
    empty = not position.stones("L") and not position.stones("D") and position.to_move == "L"
    tag = "" if empty else "-" + hashlib.sha1(str(position).encode()).hexdigest()[:10]
    return Path(state_dir() if folder is None else folder) / f"solve-{board}{tag}{'-pie' if pie else ''}-{method}.json"


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


    def svg(self, **kwargs) -> str:
        """A small SVG picture: the position with every move marked by its value for the
        player who makes it (:func:`solver.app.svg.map_svg`: a triangle wins, a cross loses, a
        square draws, a ring unknown) and the move of :attr:`line` ringed when the value is
        a win; the value in the title.  Under the pie variant, the pie map
        (:func:`~solver.app.openings.piemap.pie_map_svg`, small boards).  ``kwargs`` go to
        those functions.

        >>> import xml.etree.ElementTree as ET
        >>> s = OpeningSolution("1/2/1 L", False, "dfpn", "win", {"a1": "loss", "b1": "win"}, ["b1"],
        ...                     10, 0.1, 0.1, [])
        >>> root = ET.fromstring(s._repr_svg_())
        >>> sorted(e.get("class") for e in root.iter() if e.get("class", "").startswith("value "))
        ['value loss', 'value win']
        >>> [e.get("data-point") for e in root.iter() if e.get("class") == "best"]
        ['b1']
        """
        from ..svg import map_svg
        from .piemap import pie_map_svg

        pos = Position.parse(self.position)
        if self.pie:
            return pie_map_svg(pos, self.pairs, **{"board_px": 110, **kwargs})
        side = {"L": "Light", "D": "Dark"}[pos.to_move]
        best = self.line[0] if self.value == "win" and self.line else None
        title = f"{side} to move: {self.value}" + (f" by {best}" if best else "")
        board = pos.board
        return map_svg(board, self.moves, **{
            "title": title, "best": best, "size": 360,
            "light": sorted(pos.stones("L")), "dark": sorted(pos.stones("D")), **kwargs})

    def _repr_svg_(self) -> str:
        """Jupyter shows a solve as its picture (:meth:`svg`)."""
        return self.svg()

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
    limit: Limit | None = None,
    jobs_n: int | None = 1,
    checkpoint: str | os.PathLike | None = None,
    keep_checkpoint: bool = True,
    backend: str = "loky",
    scheduler: str | None = None,
    progress_ui: bool | str = True,
    params: dict | None = None,
    chunk_nodes: int | None = None,
) -> OpeningSolution:
    """Solve ``position`` through its opening jobs (:func:`opening_jobs`, or
    :func:`pie_jobs` with ``pie``), run by :func:`run_jobs` (same parameters: ``limit``
    is the budget).
    ``keep_checkpoint=False`` removes the checkpoint once every job is decided."""
    limit = check_limit(limit)
    t0 = time.time()
    if position.outcome is not None:
        if pie:
            raise ValueError("the pie variant starts from the empty board with Light to move")
        value = Value.from_outcome(position.outcome, position.to_move).value
        return OpeningSolution(str(position), False, method, value, {}, [], 0, 0.0, 0.0, [])
    jobs = pie_jobs(position) if pie else opening_jobs(position)
    params = dict(params or {}, position=str(position), pie=pie)
    run = run_jobs(jobs, method=method, limit=limit, jobs_n=jobs_n, checkpoint=checkpoint, backend=backend,
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
            pass  # the folder holds other files (or is the user's): it stays
        sol.checkpoint = None
    return sol

