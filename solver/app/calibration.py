"""Calibration of the engine's estimate: does "62%" win 62% of the time?

:func:`measure` runs the engine (:func:`solver.search.mcts.search`, its df-pn first as
usual) at fixed playout budgets on the positions of self-play games whose results are
known (:mod:`solver.app.value_training`'s games: fold 3 to fit a map, fold 4 held out),
every ``stride``-th ply, and keeps for each position the best move's win rate at each
budget, or the value the engine proved (a proven position is never shown as an estimate,
so it is left out of the calibration).  Each finished position is kept in a state file
(:class:`~solver.jobs.state.RunState`): Ctrl-C keeps them and the same call continues.

:func:`report` fits calibration maps (:class:`~solver.search.value.Calibration`) on
fold 3, chooses the inputs by cross-validation within fold 3 (by game; the fewest inputs
within one standard error of the best), and measures the
raw win rate, the value model and each map on fold 4: log-loss, Brier score and the
reliability diagram (10 bins) with its largest gap.  The win rate's meaning changes with
the budget (the best move's rate is the largest of many, biased up the more so the fewer
the playouts), so the map to ship is fitted over every budget with the budget as an input.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

from solver.jobs.state import RunState
from solver.rules.board import Board
from solver.rules.position import Position
from solver.search.limit import Limit
from solver.search.value import (
    Calibration, ValueModel, ValueModelError, brier, log_loss, reliability, sigmoid, value_features,
)
from solver.util.errors import Interrupted
from .value_training import CALIBRATE, TEST, Source, fold, load_games, positions

__all__ = ["STATE_FORMAT", "CANDIDATES", "JOINT", "MIN_BIN", "measure", "report", "max_gap"]

STATE_FORMAT = "meridians-calibration/1"
#: the input sets of the calibration maps tried at one budget (the first: Platt scaling)
CANDIDATES = (("bias", "logit"), ("bias", "logit", "empty", "logit*empty"), ("bias", "logit", "value"),
              ("bias", "logit", "empty", "logit*empty", "value"))
#: the input sets tried over all budgets together, the budget an input
JOINT = tuple(c + ("budget", "logit*budget") for c in CANDIDATES)
#: the reliability diagram's largest gap counts bins of at least this many positions
#: (a bin of a handful of positions has a gap of chance alone)
MIN_BIN = 25


def measure(board: Board, sources: list[Source], *, budgets: list[int], seed: int, state: str | Path,
            stride: int = 3, random_plies: int = 2, dfpn_nodes: int = 2000, max_positions: int | None = None,
            log: Callable[[str], None] | None = None) -> list[dict]:
    """The engine's estimates on the positions of folds 3 and 4 of the sources' games
    (see the module's text): one record a position, ``source``, ``game``, ``ply``,
    ``fold``, ``label`` (1 the player to move won the game, 0 lost, 0.5 drawn), ``empty``
    (the share of empty points), ``proven`` (``'win'``/``'loss'`` or None) and
    ``rates`` (per budget ``[win_rate, visits of the best move]``; none when proven).
    ``max_positions``: only the first so many (the same first ones whatever the number:
    a larger one continues the same state file)."""
    from solver.search import mcts

    log = log or (lambda text: print(text, file=sys.stderr, flush=True))
    games, _ = load_games(board, sources, seed=seed, random_plies=random_plies, dfpn_nodes=dfpn_nodes, log=log)
    todo = [(si, g, ply, p, label) for si, gs in enumerate(games)
            for g, ply, p, label in positions(board, gs, (CALIBRATE, TEST), stride)][:max_positions]
    # the rates are the default engine's: a state of another engine's is refused
    identity = {"board": board.name, "sources": [s.as_dict() | {"state": None} for s in sources],
                "budgets": list(budgets), "seed": seed, "stride": stride, "engine": mcts.estimate_identity()}
    run = RunState(state, STATE_FORMAT, identity, name="calibration state", run="calibration run",
                   fix="remove it or give another --state")
    with run:
        done = run.load_entries("positions", list)
        if done:
            log(f"resuming: {len(done)} of {len(todo)} positions in {state}")
        t0 = time.monotonic()
        try:
            for i in range(len(done), len(todo)):
                si, g, ply, p, label = todo[i]
                rec = {"source": si, "game": g, "ply": ply, "fold": fold(g), "label": label,
                       "empty": round(1 - (len(p.stones("L")) + len(p.stones("D"))) / board.size, 4),
                       "position": str(p), "proven": None, "rates": {}}
                for k, budget in enumerate(budgets):
                    # the first budget's search tries df-pn first, as the engine does
                    r = mcts.search(p, Limit(playouts=budget), seed=seed * 1_000_003 + i,
                                    dfpn_nodes=mcts.DFPN_NODES if k == 0 else 0)
                    if r.proven:
                        rec["proven"] = r.value.value
                        break
                    best = next((m for m in r.moves if m.move == r.best), None)
                    rec["rates"][str(budget)] = [round(float(r.win_rate), 5), best.visits if best else 0]
                done.append(rec)
                run.save({"positions": done}, force=False)
                if (i + 1) % 100 == 0:
                    log(f"{i + 1}/{len(todo)} positions, {time.monotonic() - t0:.0f} s")
        except KeyboardInterrupt:
            run.save({"positions": done})
            raise Interrupted(f"stopped: {len(done)} of {len(todo)} positions kept in {state}; "
                              "the same command goes on", Path(state), len(done), len(todo)) from None
        run.save({"positions": done})
    return done[:len(todo)]


def max_gap(diagram: list[dict], min_count: int = MIN_BIN) -> float | None:
    """The largest |predicted - observed| over the bins of at least ``min_count`` positions."""
    gaps = [abs(b["predicted"] - b["observed"]) for b in diagram if b["count"] >= min_count]
    return max(gaps) if gaps else None


def _scores(p: np.ndarray, y: np.ndarray, diagram: bool = True) -> dict:
    bins = reliability(p, y)
    out = {"positions": int(len(y)), "log_loss": round(log_loss(p, y), 5), "brier": round(brier(p, y), 5),
           "max_gap": None if (g := max_gap(bins)) is None else round(g, 4),
           "max_gap_all_bins": None if (g := max_gap(bins, 1)) is None else round(g, 4)}
    if diagram:
        out["reliability"] = [{k: round(v, 4) if isinstance(v, float) else v for k, v in b.items()} for b in bins]
    return out


def _arrays(records: list[dict], budget: int, model: ValueModel | None):
    """win rates, empty shares, value logits, playouts, labels, games of the unproven records."""
    rs = [r for r in records if r["proven"] is None and str(budget) in r["rates"]]
    w = np.array([r["rates"][str(budget)][0] for r in rs])
    e = np.array([r["empty"] for r in rs])
    if model is not None:
        v = np.array([model.logit(value_features(Position.parse(r["position"]))) for r in rs])
    else:
        v = np.zeros(len(rs))
    y = np.array([r["label"] for r in rs])
    g = np.array([r["source"] * 100_000 + r["game"] for r in rs])
    return w, e, v, np.full(len(rs), budget), y, g


def _stack(parts):
    return [np.concatenate(cols) for cols in zip(*parts)]


def _cross_validated(inputs, w, e, v, n, y, games, folds: int = 5) -> tuple[float, float]:
    """Mean held-out log-loss of a map with ``inputs`` over ``folds`` splits by game, and
    its standard error over the splits (infinite when a split's fit is not monotone)."""
    ids = np.unique(games)
    total, per_split = 0.0, []
    for k in range(min(folds, len(ids))):
        out = np.isin(games, ids[k::folds])
        try:
            c = Calibration.fit(inputs, w[~out], e[~out], v[~out], n[~out], y[~out])
        except ValueModelError:
            return math.inf, math.inf
        if c.inputs != tuple(inputs):
            return math.inf, math.inf  # refitted without its interactions: not this candidate
        loss = log_loss(c(w[out], e[out], v[out], n[out]), y[out])
        total += loss * out.sum()
        per_split.append(loss)
    se = float(np.std(per_split, ddof=1) / math.sqrt(len(per_split))) if len(per_split) > 1 else 0.0
    return float(total / len(y)), se


def _choose(candidates, fit_arrays, board: Board) -> tuple[dict, dict[str, Calibration], str | None]:
    """Cross-validated log-loss (and standard error) of each candidate, the maps fitted on
    all of ``fit_arrays`` and the name of the chosen candidate (None: none fits): the one
    of fewest inputs within one standard error of the best (the one-standard-error rule:
    more inputs only for a gain larger than the noise of the splits)."""
    w, e, v, n, y, g = fit_arrays
    cv = {"+".join(c): _cross_validated(c, w, e, v, n, y, g) for c in candidates}
    maps = {}
    for c in candidates:
        try:
            maps["+".join(c)] = Calibration.fit(c, w, e, v, n, y, board=board.name)
        except ValueModelError:
            pass  # decreasing in the win rate on these positions: no map of these inputs
    fitted = [k for k in maps if not math.isinf(cv[k][0])]
    chosen = None
    if fitted:
        best = min(fitted, key=lambda k: cv[k][0])
        chosen = min((k for k in fitted if cv[k][0] <= cv[best][0] + cv[best][1]),
                     key=lambda k: (len(maps[k].inputs), cv[k][0]))
    shown = {k: None if math.isinf(m) else {"log_loss": round(m, 5), "se": round(se, 5)} for k, (m, se) in cv.items()}
    return shown, maps, chosen


def report(board: Board, records: list[dict], budgets: list[int], model: ValueModel | None
           ) -> tuple[dict, Calibration | None]:
    """Fit the maps on fold 3 and measure on fold 4 (see the module's text): at each
    budget, maps of that budget alone; over all budgets together, maps with the budget as
    an input (the one chosen by cross-validation is the one to ship; None when no map
    increasing in the win rate fits).  The record and that map."""
    out: dict = {"board": board.name, "positions": len(records),
                 "proven": sum(r["proven"] is not None for r in records),
                 "fit_positions": sum(r["fold"] == CALIBRATE and r["proven"] is None for r in records),
                 "test_positions": sum(r["fold"] == TEST and r["proven"] is None for r in records),
                 "min_bin": MIN_BIN, "budgets": {}}
    fit_records = [r for r in records if r["fold"] == CALIBRATE]
    test_records = [r for r in records if r["fold"] == TEST]
    usable = lambda cands: [c for c in cands if model is not None or "value" not in c]  # noqa: E731
    fits = {b: _arrays(fit_records, b, model) for b in budgets}
    tests = {b: _arrays(test_records, b, model) for b in budgets}
    cv, maps, best = _choose(usable(JOINT), _stack(fits.values()), board)
    shipped = None if best is None else maps[best]
    out["joint"] = {"cross_validated_log_loss": cv, "chosen": best,
                    "maps": {k: {"inputs": list(c.inputs), "coef": [round(float(x), 5) for x in c.coef],
                                 "budgets": list(c.budgets)} for k, c in maps.items()}}
    first = None  # the first budget's own map, to see whether one budget's map fits another's rates
    for budget in budgets:
        wt, et, vt, nt, yt, _ = tests[budget]
        cv_b, maps_b, best_b = _choose(usable(CANDIDATES), fits[budget], board)
        res = {"raw": _scores(wt, yt)}
        if model is not None:
            res["value_model"] = _scores(sigmoid(vt), yt)
        if shipped is not None:
            res["calibrated"] = _scores(shipped(wt, et, vt, nt), yt)
        res["joint_maps"] = {k: _scores(c(wt, et, vt, nt), yt, diagram=False) for k, c in maps.items()}
        res["this_budget_alone"] = {
            "cross_validated_log_loss": cv_b, "chosen": best_b,
            "maps": {k: {"inputs": list(c.inputs), "coef": [round(float(x), 5) for x in c.coef],
                         **_scores(c(wt, et, vt, nt), yt, diagram=False)} for k, c in maps_b.items()}}
        if budget == budgets[0]:
            first = None if best_b is None else maps_b[best_b]
        elif first is not None:
            res["first_budget_map"] = _scores(first(wt, et, vt, budgets[0]), yt, diagram=False)
        out["budgets"][str(budget)] = res
    return out, shipped
