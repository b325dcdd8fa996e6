"""The proof frontier: how often a claim about a game position is decided within a time
budget, by empty points, with and without the search's game knowledge
(``scripts/bench_frontier.py`` is the command).

The positions are fixed by a seed (:func:`frontier_positions`): random games
(:mod:`solver.rules.randomgame`) are played on each board with seeds ``seed``, ``seed+1``, ...
and from each game, for each empty-point count ``e`` asked for, the first position with
``e`` empty points and no result is taken, until ``per_count`` positions of each count are
found (or ``per_count * 20`` games were played).  Each position is verified by df-pn
in each mode asked for (by default twice, with the knowledge
(:mod:`solver.search.knowledge`) and without it; ``guided``: plain df-pn with the move
model, :mod:`solver.search.guide`; ``focused``: also focused on the model's best
children), one after the other and on the same table size, so
that the modes meet the same machine load.  A
position is *decided* when the value is a proven win or loss within the budget.

The results file is written after every run, so Ctrl-C loses at most the run in progress
and the same command goes on from there; its summary gives, per board, count and mode,
the share decided and the median seconds (an undecided run counts as more than the
budget), and a chart (:func:`solver.app.svg.frontier_svg`) is written beside it.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

from solver.rules.board import Board
from solver.util.errors import Interrupted, MeridiansError
from solver.util.files import FileFormatError, read_json, write_atomic
from solver.rules.position import Position
from solver.util.provenance import code_revision, provenance
from solver.rules.randomgame import empty_points, random_game

__all__ = ["MODES", "ALL_MODES", "FrontierError", "frontier_positions", "summarize", "compare", "measure"]

#: the two ways each position is verified unless told: df-pn with its game knowledge, and without
MODES = ("knowledge", "plain")
#: every mode: also ``guided``, df-pn without the knowledge, guided by the move model, and
#: ``focused``, guided and focused on the model's best children at the prover's nodes
ALL_MODES = ("knowledge", "plain", "guided", "focused")
#: the modes that use the move model
MODEL_MODES = ("guided", "focused")


class FrontierError(MeridiansError):
    """A frontier results file that cannot be read back, or options that make no run."""


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def frontier_positions(board: Board, counts: list[int], per_count: int, seed: int) -> list[tuple[int, int, str]]:
    """``(seed, e, position)``: for each count ``e`` the first ``per_count`` positions
    with ``e`` empty points and no result, one per random game at most, from the games
    with seeds ``seed``, ``seed+1``, ... (``per_count * 20`` games at most).

    >>> ps = frontier_positions(Board.parse("3/4"), [20], 2, seed=1)
    >>> [e for _, e, _ in ps]
    [20, 20]
    """
    found: dict[int, list[tuple[int, int, str]]] = {e: [] for e in counts}
    for s in range(seed, seed + 20 * per_count):
        if all(len(v) >= per_count for v in found.values()):
            break
        for pos in random_game(board, s):
            e = empty_points(pos)
            if pos.outcome is None and e in found and len(found[e]) < per_count \
                    and not any(g == s for g, _, _ in found[e]):
                found[e].append((s, e, str(pos)))
    return [p for e in counts for p in found[e]]


def summarize(runs: list[dict], budget: float) -> list[dict]:
    """Per board, count of empty points and mode: positions, decided, share decided and
    median seconds (an undecided run counts as more than ``budget``: the median is None
    when half or more of the runs are undecided)."""
    groups: dict[tuple[str, int, str], list[dict]] = {}
    for r in runs:
        groups.setdefault((r["board"], r["empty"], r["mode"]), []).append(r)
    rows = []
    for (board, e, mode) in sorted(groups, key=lambda k: (k[0], k[1], ALL_MODES.index(k[2]))):
        rs = groups[(board, e, mode)]
        decided = [r for r in rs if r["value"] in ("win", "loss")]
        times = sorted(r["seconds"] if r in decided else math.inf for r in rs)
        med = statistics.median(times)
        rows.append({"board": board, "empty": e, "mode": mode, "positions": len(rs),
                     "decided": len(decided), "share": round(len(decided) / len(rs), 3),
                     "median_seconds": None if math.isinf(med) else round(med, 2),
                     "expansions": sum(r["expansions"] for r in rs)})
    return rows


def compare(runs: list[dict], modes: tuple[str, ...]) -> list[dict]:
    """Per board and count of empty points, on the positions that every mode in
    ``modes`` decided: how many, and each mode's expansions and seconds there."""
    by: dict[tuple[str, int, str], dict[str, dict]] = {}
    for r in runs:
        if r["mode"] in modes:
            by.setdefault((r["board"], r["empty"], r["position"]), {})[r["mode"]] = r
    rows: dict[tuple[str, int], dict] = {}
    for (board, e, _), rs in sorted(by.items()):
        row = rows.setdefault((board, e), {"board": board, "empty": e, "both_decided": 0,
                                           **{f"{m}_expansions": 0 for m in modes},
                                           **{f"{m}_seconds": 0.0 for m in modes}})
        if len(rs) == len(modes) and all(r["value"] in ("win", "loss") for r in rs.values()):
            row["both_decided"] += 1
            for m in modes:
                row[f"{m}_expansions"] += rs[m]["expansions"]
                row[f"{m}_seconds"] = round(row[f"{m}_seconds"] + rs[m]["seconds"], 3)
    return list(rows.values())


def _read(out: Path) -> list[dict]:
    try:
        rec = read_json(out, "frontier file", dict)
        runs = rec["runs"]
        if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
            raise TypeError("runs is not a list of objects")
        for r in runs:
            (r["board"], r["seed"], r["empty"], r["position"], r["mode"], r["value"], r["seconds"],
             r["expansions"], r["budget"])
        return runs
    except (FileFormatError, KeyError, TypeError) as e:
        raise FrontierError(f"{out} is not a frontier file ({e}); move it away to start again") from None


def measure(boards: list[Board], counts: list[int], out: Path, command: str, *, per_count: int,
            seed: int, seconds: float, tt_mb: float, say: Callable[[str], None] = _stderr,
            modes: tuple[str, ...] = MODES, model=None, model_name: str = "", focus: int = 3) -> dict:
    """Verify the positions of :func:`frontier_positions` on each board in each of
    ``modes`` (of :data:`ALL_MODES`; ``guided`` and ``focused`` use the move model
    ``model``, a :class:`~solver.search.policy.PolicyModel`, recorded as ``model_name``;
    ``focused`` with ``focus`` children), skipping runs already in the results file ``out`` with at least this
    budget; write ``out`` (and its chart, ``out`` with ``.svg``) after every run; return
    the last record.  Raises FrontierError and :class:`~solver.util.errors.Interrupted`
    (Ctrl-C or SIGTERM; the message says what was kept)."""
    from solver.search.limit import Limit
    from solver.search.prove import load_kernels, prove
    from .svg import frontier_svg

    if per_count < 1 or not counts or not modes:
        raise FrontierError("nothing to measure: give at least one count, one position per count and one mode")
    unknown = [m for m in modes if m not in ALL_MODES]
    if unknown:
        raise FrontierError(f"unknown mode {unknown[0]!r}: give some of {', '.join(ALL_MODES)}")
    if any(m in MODEL_MODES for m in modes) and model is None:
        raise FrontierError("the guided and focused modes need a move model")
    if "focused" in modes and not (isinstance(focus, int) and focus >= 1):
        raise FrontierError(f"focus {focus!r}: give a whole number of children, at least 1")
    runs = [r for r in _read(out) if r["value"] in ("win", "loss") or r["budget"] >= seconds] \
        if out.exists() else []
    done = {(r["board"], r["position"], r["mode"]) for r in runs}
    todo = [(b, s, e, p, m) for b in boards for (s, e, p) in frontier_positions(b, counts, per_count, seed)
            for m in modes if (b.name, p, m) not in done]
    say(f"frontier: {len(runs)} runs kept, {len(todo)} to go ({seconds:g} s each at most)")
    revision = code_revision()

    def save() -> dict:
        rec = {"boards": [b.name for b in boards], "counts": counts, "per_count": per_count,
               "seed": seed, "seconds": seconds, "tt_mb": tt_mb, "modes": list(modes),
               **provenance(command, revision=revision),
               "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "summary": summarize(runs, seconds),
               **({"model": model_name, "compare": compare(runs, modes)}
                  if any(m in MODEL_MODES for m in modes) else {}),
               **({"focus": focus} if "focused" in modes else {}),
               "runs": sorted(runs, key=lambda r: (r["board"], r["empty"], r["seed"], ALL_MODES.index(r["mode"])))}
        write_atomic(out, json.dumps(rec, indent=1) + "\n")
        write_atomic(out.with_suffix(".svg"), frontier_svg(rec))
        return rec

    limit = Limit(seconds=seconds, tt_mb=tt_mb)
    try:
        for k, (b, s, e, text, mode) in enumerate(todo, 1):
            pos = Position.parse(text)
            guided = mode in MODEL_MODES
            load_kernels(b, "dfpn", knowledge=mode == "knowledge", guided=guided)  # not a run's time
            p = prove(pos, limit=limit, knowledge=(mode == "knowledge"), model=model if guided else None,
                      focus=focus if mode == "focused" else 0)
            runs.append({"board": b.name, "seed": s, "empty": e, "position": text, "mode": mode,
                         "value": p.value, "seconds": round(p.seconds, 3), "expansions": p.nodes,
                         "budget": seconds})
            say(f"[{k}/{len(todo)}] {b.name} {e:>2} empty, seed {s:<4} {mode:<9}: {p.value:<7} "
                f"{p.seconds:6.1f} s {p.nodes:>11,} expansions")
            save()
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; {len(runs)} runs kept in {out}; the same command goes on", out) from None
    return save()
