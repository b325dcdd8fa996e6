"""How the cost of a df-pn proof grows with the number of empty points, extrapolated to
the positions after the first move (``scripts/measure_growth.py`` is the command).

The positions are fixed by a seed (:func:`growth_positions`): random games
(:mod:`solver.rules.randomgame`) are played on the board with seeds ``seed``, ``seed+1``, ...
and from each game, for each empty-point count ``e`` asked for, the first position with
``e`` empty points and no result is taken.  Each is proven with df-pn (the solver's
defaults) within a cap of expansions on one core (:func:`measure`).  Per count: the median
expansions, an undecided position counting as more than the cap (:func:`summarize`).  A
straight line through log10(median) against ``e`` gives the growth factor per empty point
and, extended to ``points - 1`` empty points, the expected cost of a first-move class; the
board's class records already decided (:func:`class_costs`) are put beside it.

With ``knowledge`` the proofs use the settled rule (:mod:`solver.search.knowledge`), with
``model`` the move model (:mod:`solver.search.guide`; with ``focus`` also focused on its
best children), and :func:`against` sets the run
beside a run without them on the positions both measured.
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
from solver.util.files import write_atomic
from solver.rules.position import Position
from solver.util.provenance import code_revision, provenance
from solver.rules.randomgame import empty_points, random_game

__all__ = ["GrowthError", "growth_positions", "summarize", "class_costs", "against",
           "measure"]


class GrowthError(MeridiansError):
    """A growth file that cannot be read back."""


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def growth_positions(board: Board, counts: list[int], games: int, seed: int) -> list[tuple[int, int, str]]:
    """``(seed, e, position)`` for each game and wanted count ``e`` the game passes."""
    out = []
    for s in range(seed, seed + games):
        first: dict[int, str] = {}
        for pos in random_game(board, s):
            e = empty_points(pos)
            if pos.outcome is None and e in counts and e not in first:
                first[e] = str(pos)
        out.extend((s, e, first[e]) for e in sorted(first))
    return out


def summarize(board: Board, runs: list[dict], cap: int) -> dict:
    """Medians per count, the fitted line and its extrapolation."""
    by_e: dict[int, list[dict]] = {}
    for r in runs:
        by_e.setdefault(r["empty"], []).append(r)
    rows = []
    for e in sorted(by_e):
        rs = by_e[e]
        costs = sorted(r["expansions"] if r["value"] != "unknown" else math.inf for r in rs)
        med = statistics.median(costs)
        rows.append({"empty": e, "positions": len(rs),
                     "decided": sum(r["value"] != "unknown" for r in rs),
                     "median_expansions": None if math.isinf(med) else med,
                     "median_over_cap": math.isinf(med)})
    pts = [(r["empty"], math.log10(max(r["median_expansions"], 1)))
           for r in rows if r["median_expansions"] is not None and r["positions"] >= 3]
    fit = None
    if len(pts) >= 3:
        mx = statistics.fmean(x for x, _ in pts)
        my = statistics.fmean(y for _, y in pts)
        sxx = sum((x - mx) ** 2 for x, _ in pts)
        slope = sum((x - mx) * (y - my) for x, y in pts) / sxx
        first = len(board.names) - 1
        fit = {
            "counts_used": [x for x, _ in pts], "log10_per_point": slope,
            "factor_per_point": 10 ** slope, "intercept": my - slope * mx,
            "first_move_empty": first,
            "first_move_expansions": 10 ** (my + slope * (first - mx)),
        }
    return {"by_empty": rows, "fit": fit, "cap": cap}


def class_costs(folder: Path, board: Board) -> list[dict]:
    """The first-move class records of ``board`` in ``folder``: value and expansions."""
    out = []
    for f in sorted(Path(folder).glob(f"{board.name.replace('/', '-')}-*-value.json")):
        rec = json.loads(f.read_text())
        out.append({"file": f.name, "value_dark_to_move": rec["value"], "expansions": rec["nodes"],
                    "seconds": round(rec["seconds"]), "decided": rec["value"] in ("win", "loss")})
    return out


def against(board: Board, runs: list[dict], baseline: Path) -> dict | None:
    """This run's ``runs`` beside those of the growth file ``baseline`` (another setting,
    same positions and cap): on the positions both measured, the count each decided, the
    summed expansions and seconds of the positions both decided and their ratios, and the
    baseline's fit on those positions alone.  None when the file is missing.  Raises
    GrowthError when it is not a growth file."""
    if not baseline.exists():
        return None
    try:
        old = json.loads(baseline.read_text())
        base = {(r["seed"], r["empty"], r["position"]): r for r in old["runs"]}
        cap = old["cap"]
    except (ValueError, KeyError, TypeError, RecursionError) as e:
        raise GrowthError(f"{baseline} is not a growth file ({e})") from None
    pairs = [(r, base[k]) for r in runs if (k := (r["seed"], r["empty"], r["position"])) in base]
    both = [(a, b) for a, b in pairs if a["value"] != "unknown" and b["value"] != "unknown"]
    for a, b in both:
        if a["value"] != b["value"]:
            raise GrowthError(f"{a['position']}: {a['value']} here, {b['value']} in {baseline.name}")
    sums = {k: [sum(x[k] for x, _ in both), sum(y[k] for _, y in both)] for k in ("expansions", "seconds")}
    return {
        "baseline": baseline.name, "positions": len(pairs),
        "decided": sum(a["value"] != "unknown" for a, _ in pairs),
        "decided_baseline": sum(b["value"] != "unknown" for _, b in pairs),
        "both_decided": len(both),
        "expansions": sums["expansions"][0], "expansions_baseline": sums["expansions"][1],
        "expansions_ratio": sums["expansions"][0] / max(sums["expansions"][1], 1),
        "seconds": round(sums["seconds"][0], 2), "seconds_baseline": round(sums["seconds"][1], 2),
        "seconds_ratio": sums["seconds"][0] / max(sums["seconds"][1], 1e-9),
        "baseline_fit": summarize(board, [b for _, b in pairs], cap)["fit"],
    }


def measure(board: Board, counts: list[int], out: Path, command: str, *, games: int, seed: int,
            max_nodes: int, tt_mb: float, knowledge: bool = False, baseline: Path | None = None,
            say: Callable[[str], None] = _stderr, model=None, focus: int = 0) -> dict:
    """Prove the positions of :func:`growth_positions` not yet in the growth file ``out``
    (with the settled rule if ``knowledge``, guided by the move ``model`` if given, focused
    on its best ``focus`` children if not 0), writing it (with the chart ``out.svg``, the
    class records and, given a ``baseline`` growth file, :func:`against` it) after each;
    return the last record.  Results of the same positions with at least this cap are
    kept.  Raises GrowthError (``out`` or ``baseline`` is not a growth file) and
    :class:`~solver.util.errors.Interrupted` (Ctrl-C or SIGTERM; the message says
    what was kept)."""
    from solver.search.limit import Limit
    from solver.search.prove import prove
    from ..svg import growth_svg

    runs: list[dict] = []
    if out.exists():
        try:
            old = json.loads(out.read_text())
            runs = [r for r in old["runs"] if r["value"] != "unknown" or r["cap"] >= max_nodes]
        except (ValueError, KeyError, TypeError, RecursionError) as e:
            raise GrowthError(f"{out} is not a growth file ({e}); move it away to start again") from None
    done = {(r["seed"], r["empty"], r["position"]) for r in runs}
    todo = [p for p in growth_positions(board, counts, games, seed) if p not in done]
    say(f"{board.name}: {len(done)} positions done, {len(todo)} to prove (cap {max_nodes:,} expansions each)")
    revision = code_revision()  # of the code this run imported, taken once

    def save() -> dict:
        rec = {
            "board": board.name, **provenance(command, revision=revision),
            "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "knowledge": knowledge, **({"guided": True} if model is not None else {}),
            **({"focus": focus} if focus else {}),
            **summarize(board, runs, max_nodes),
            "classes": class_costs(out.parent, board),
            **({"against": against(board, runs, baseline)} if baseline is not None else {}),
            "runs": sorted(runs, key=lambda r: (r["empty"], r["seed"])),
        }
        write_atomic(out, json.dumps(rec, indent=1) + "\n")
        write_atomic(out.with_suffix(".svg"), growth_svg(rec))
        return rec

    limit = Limit(nodes=max_nodes, tt_mb=tt_mb)
    try:
        for k, (s, e, text) in enumerate(todo, 1):
            p = prove(Position.parse(text), limit=limit, knowledge=knowledge, model=model, focus=focus)
            runs.append({"seed": s, "empty": e, "position": text, "value": p.value,
                         "expansions": p.nodes, "seconds": round(p.seconds, 2), "cap": max_nodes,
                         "revision": revision})
            say(f"[{k}/{len(todo)}] {e:>2} empty, seed {s}: {p.value:<7} {p.nodes:>12,} expansions "
                f"{p.seconds:8.1f} s")
            save()
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; {len(runs)} positions kept in {out.name}", out) from None
    return save()
