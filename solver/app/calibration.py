"""Calibration of the engine's estimate: does "62%" win 62% of the time?

:func:`measure` runs the engine (:func:`solver.search.mcts.search`, its df-pn first as
usual) at fixed playout budgets on the positions of self-play games whose results are
known (:mod:`solver.app.value_training`'s games: fold 3 to fit a map, fold 4 held out),
every ``stride``-th ply, and keeps for each position the best move's win rate at each
budget, or the value the engine proved (a proven position is never shown as an estimate,
so it is left out of the calibration).  Each finished position is kept in a state file
(:class:`~solver.jobs.state.RunState`): Ctrl-C keeps them and the same call continues.

:func:`report` fits calibration maps (:class:`~solver.search.value.Calibration`) on
fold 3, chooses the inputs by cross-validation within fold 3 (by game), and measures the
raw win rate, the value model and each map on fold 4: log-loss, Brier score and the
reliability diagram (10 bins) with its largest gap.
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
from solver.search.value import Calibration, ValueModel, ValueModelError, sigmoid, brier, log_loss, reliability, value_features
from solver.util.errors import Interrupted
from .value_training import CALIBRATE, TEST, Source, fold, load_games, positions

__all__ = ["STATE_FORMAT", "CANDIDATES", "MIN_BIN", "measure", "report", "max_gap"]

STATE_FORMAT = "meridians-calibration/1"
#: the input sets of the calibration maps tried (the first: Platt scaling)
CANDIDATES = (("bias", "logit"), ("bias", "logit", "empty", "logit*empty"), ("bias", "logit", "value"),
              ("bias", "logit", "empty", "logit*empty", "value"))
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
    identity = {"board": board.name, "sources": [s.as_dict() | {"state": None} for s in sources],
                "budgets": list(budgets), "seed": seed, "stride": stride}
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


def _scores(p: np.ndarray, y: np.ndarray) -> dict:
    diagram = reliability(p, y)
    return {"positions": int(len(y)), "log_loss": round(log_loss(p, y), 5), "brier": round(brier(p, y), 5),
            "max_gap": None if (g := max_gap(diagram)) is None else round(g, 4),
            "max_gap_all_bins": None if (g := max_gap(diagram, 1)) is None else round(g, 4),
            "reliability": [{k: round(v, 4) if isinstance(v, float) else v for k, v in b.items()} for b in diagram]}


def _arrays(records: list[dict], budget: int, model: ValueModel | None):
    """win rates, empty shares, value logits, labels, games of the unproven records."""
    rs = [r for r in records if r["proven"] is None and str(budget) in r["rates"]]
    w = np.array([r["rates"][str(budget)][0] for r in rs])
    e = np.array([r["empty"] for r in rs])
    if model is not None:
        v = np.array([model.logit(value_features(Position.parse(r["position"]))) for r in rs])
    else:
        v = np.zeros(len(rs))
    y = np.array([r["label"] for r in rs])
    g = np.array([r["source"] * 100_000 + r["game"] for r in rs])
    return w, e, v, y, g


def _cross_validated(inputs, w, e, v, y, games, folds: int = 5) -> float:
    """Mean held-out log-loss of a map with ``inputs`` over ``folds`` splits by game."""
    ids = np.unique(games)
    losses = []
    for k in range(min(folds, len(ids))):
        out = np.isin(games, ids[k::folds])
        try:
            c = Calibration.fit(inputs, w[~out], e[~out], v[~out], y[~out])
        except ValueModelError:
            return math.inf  # not monotone in the win rate on this split: not a candidate
        losses.append(log_loss(c(w[out], e[out], v[out]), y[out]) * out.sum())
    return float(sum(losses) / len(y))


def report(board: Board, records: list[dict], budgets: list[int], model: ValueModel | None
           ) -> tuple[dict, Calibration | None]:
    """Fit the maps on fold 3 and measure on fold 4 (see the module's text), at each
    budget; the record and the map chosen at the first budget (the one to ship; None
    when no map increasing in the win rate fits the positions)."""
    out: dict = {"board": board.name, "positions": len(records),
                 "proven": sum(r["proven"] is not None for r in records),
                 "fit_positions": sum(r["fold"] == CALIBRATE and r["proven"] is None for r in records),
                 "test_positions": sum(r["fold"] == TEST and r["proven"] is None for r in records),
                 "min_bin": MIN_BIN, "budgets": {}}
    fit_records = [r for r in records if r["fold"] == CALIBRATE]
    test_records = [r for r in records if r["fold"] == TEST]
    shipped = None
    for budget in budgets:
        w, e, v, y, g = _arrays(fit_records, budget, model)
        wt, et, vt, yt, _ = _arrays(test_records, budget, model)
        usable = [c for c in CANDIDATES if model is not None or "value" not in c]
        cv = {"+".join(c): _cross_validated(c, w, e, v, y, g) for c in usable}
        maps = {}
        for c in usable:
            try:
                maps["+".join(c)] = Calibration.fit(c, w, e, v, y, board=board.name)
            except ValueModelError:
                pass  # decreasing in the win rate on these positions: no map of these inputs
        fitted = [c for c in usable if "+".join(c) in maps and not math.isinf(cv["+".join(c)])]
        best = min(fitted, key=lambda c: cv["+".join(c)]) if fitted else None
        res = {"raw": _scores(wt, yt),
               "cross_validated_log_loss": {k: None if math.isinf(x) else round(x, 5) for k, x in cv.items()},
               "chosen": None if best is None else "+".join(best), "maps": {}}
        if model is not None:
            res["value_model"] = _scores(sigmoid(vt), yt)
        for name, c in maps.items():
            res["maps"][name] = {"coef": [round(float(x), 5) for x in c.coef], "inputs": list(c.inputs),
                                 **_scores(c(wt, et, vt), yt)}
        if budget == budgets[0]:
            shipped = None if best is None else maps["+".join(best)]
        elif shipped is not None:
            # this budget's win rates through the first budget's map: does it carry over?
            res["first_budget_map"] = _scores(shipped(wt, et, vt), yt)
        out["budgets"][str(budget)] = res
    return out, shipped
