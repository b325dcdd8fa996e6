"""The levels of "Play the engine" (``/play``), named by their measured Elo against each other.

A level is a player of :mod:`solver.app.match` (a spec such as ``engine:time=0.5``).  Its
rating is read from the strength ladder's match results (``results/engine/*.json``, written
by ``scripts/bench_strength.py``): each row is one match, A against B on a board, with its
Elo and 95% interval.  Levels joined by measured matches form a group; within a group
each level's Elo is the sum of the measured differences along the path from the group's
weakest level (0), so a chained one carries no interval of its own.  A level no match joins
to the others keeps ``elo`` None, and the page says it was not measured.

>>> [lv["spec"] for lv in levels(folder="/nonexistent")][:2]
['uct:time=0.2', 'mcts-flat:time=0.2']
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path

__all__ = ["LEVELS", "LADDER_BOARD", "levels", "ladder_folder", "read_rows"]

#: the levels, weakest first (by design: the engine with more time, the earlier players below it)
LEVELS = ("uct:time=0.2", "mcts-flat:time=0.2", "engine:time=0.2", "engine:time=0.25", "engine:time=0.5",
          "engine:time=1")
#: the board the ladder was measured on, used for a board with no match of two levels
LADDER_BOARD = "5/6"
_KIND = {"engine": "the engine", "uct": "the first engine (plain UCT, no move model)",
         "mcts-flat": "flat Monte Carlo", "mcts": "the engine's tree without its solver", "random": "random moves"}


def ladder_folder() -> Path:
    """``results/engine`` of the checkout this package sits in (absent in an installed wheel)."""
    return Path(__file__).resolve().parents[3] / "results" / "engine"


def read_rows(folder: str | Path | None = None) -> list[dict]:
    """Every match row with an Elo in the folder's JSON files, with the file it came from."""
    folder = Path(ladder_folder() if folder is None else folder)
    rows = []
    for f in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for r in data.get("rows", []) if isinstance(data, dict) else ():
            if isinstance(r, dict) and isinstance(r.get("elo"), (int, float)) and {"a", "b", "board"} <= r.keys():
                rows.append({**r, "file": f"results/engine/{f.name}", "command": data.get("command")})
    return rows


def _describe(spec: str) -> tuple[str, float | None]:
    kind, _, opts = spec.partition(":")
    seconds = None
    for o in opts.split(","):
        if o.startswith("time="):
            seconds = float(o[5:])
    return _KIND.get(kind, kind), seconds


def levels(board: str = LADDER_BOARD, folder: str | Path | None = None, specs: tuple[str, ...] = LEVELS) -> list[dict]:
    """The levels with their ratings on ``board`` (else on :data:`LADDER_BOARD` when no match
    of two levels was played on it): a list of ``{level, spec, kind, seconds, board, elo,
    base, low, high, group, measured, name}`` weakest first; ``elo`` over level ``base``
    (None: not measured against any other level), ``low``/``high`` its 95% interval when one
    match measured it, ``group`` the levels rated on the same scale, ``measured`` the
    matches that give it (more than one: chained, without an interval)."""
    rows = [r for r in read_rows(folder) if r["a"] in specs and r["b"] in specs and r["a"] != r["b"]]
    on = board if any(r["board"] == board for r in rows) else LADDER_BOARD
    rows = [r for r in rows if r["board"] == on]
    edges: dict[str, list[tuple[str, float, dict]]] = {s: [] for s in specs}
    for r in rows:  # A's Elo over B: B = A - elo
        edges[r["a"]].append((r["b"], -r["elo"], r))
        edges[r["b"]].append((r["a"], r["elo"], r))
    number = {s: i + 1 for i, s in enumerate(specs)}
    out = {}
    for s in specs:
        if s in out:
            continue
        # a group: every level joined to s; then its Elo and paths from its weakest level
        rel, _ = _walk(s, edges)
        base = min(rel, key=lambda x: (rel[x], number[x]))
        rel, path = _walk(base, edges)
        for v in rel:
            kind, seconds = _describe(v)
            lv = {"level": number[v], "spec": v, "kind": kind, "seconds": seconds, "board": on,
                  "elo": None, "base": None, "low": None, "high": None, "measured": [],
                  "group": sorted(number[x] for x in rel)}
            if len(rel) > 1:
                lv["elo"], lv["base"] = round(rel[v]), number[base]
                used = {id(r): r for r in path[v]}  # the matches that tie v to the base
                direct = [r for r in rows if {r["a"], r["b"]} == {v, base}]
                if direct and v != base:
                    r = direct[0]
                    sign = 1 if r["a"] == v else -1
                    lo, hi = sorted((sign * r["elo_low"], sign * r["elo_high"]))
                    lv["low"], lv["high"] = round(lo), round(hi)
                    used = {id(r): r}
                lv["measured"] = [{"a": r["a"], "b": r["b"], "elo": round(r["elo"]), "low": round(r["elo_low"]),
                                   "high": round(r["elo_high"]), "games": r.get("games"), "file": r["file"]}
                                  for r in used.values()]
            out[v] = lv
    result = [out[s] for s in specs]
    for lv in result:
        lv["name"] = _name(lv, len(specs))
    return result


def _walk(start: str, edges: dict) -> tuple[dict, dict]:
    """Each level joined to ``start`` by matches: its Elo over ``start`` and the matches on the way."""
    rel, path = {start: 0.0}, {start: []}
    todo = deque([start])
    while todo:
        u = todo.popleft()
        for v, d, r in edges[u]:
            if v not in rel:
                rel[v], path[v] = rel[u] + d, path[u] + [r]
                todo.append(v)
    return rel, path


def _span(numbers: list[int]) -> str:
    return f"{numbers[0]}-{numbers[-1]}" if numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 2 \
        else ", ".join(map(str, numbers))


def _name(lv: dict, count: int) -> str:
    """The level's name: its Elo over its group's base, or that it was not measured."""
    what = f"{lv['kind']}, {lv['seconds']:g} s a move" if lv["seconds"] is not None else lv["kind"]
    n = lv["level"]
    if lv["elo"] is None:
        return f"Level {n}: not measured against the other levels ({what})"
    others = [i for i in range(1, count + 1) if i not in lv["group"]]
    apart = f", not measured against level{'s' if len(others) > 1 else ''} {_span(others)}" if others else ""
    if n == lv["base"]:
        return f"Level {n}: Elo 0, the base of levels {_span(lv['group'])}{apart} ({what})"
    rating = f"Elo {lv['elo']:+d}"
    if lv["low"] is not None:
        rating += f" [{lv['low']:+d}, {lv['high']:+d}] over level {lv['base']}"
    else:
        rating += f" over level {lv['base']}, chained through {len(lv['measured'])} matches"
    return f"Level {n}: {rating} ({what})"
