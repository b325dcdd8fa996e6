"""The rating of a sound capture-in-N puzzle (issue 21): a score from what makes it hard,
and a rating 1..5 *within its N* from that score.

The **score** adds three kinds of difficulty (:func:`score`; each term only grows with
what it measures, so more of it never lowers the score):

- the **proof effort**: log10 of the verifier's nodes (:attr:`Features.nodes`, the
  nodes of one verification from scratch, as recorded in a puzzle's ``nodes``);
- the **tempting tries**: the first moves on the target's paths or lines or touching
  it that fail (0.15 each, at most 12), and among them those that fail only *late*,
  capturing within N + 1 but not N (0.5 more each, at most 4: a try a solver has to
  read to the end);
- the key's **obscurity** (the opposite of its obviousness), read from the rules: 1 for
  a *quiet* key (one that cuts none of the target's paths), 2 * log10 of the legal
  moves (more moves to choose from), and 0.1 for each empty point on the target's paths
  (at most 10: the fewer, the more a move that cuts one suggests itself).

The weights were set by hand; only the legal moves' weight was then chosen (2 rather than
0.5 or 1) on a pilot of 15 committed puzzles per set against the engine's effort, a
sample apart from the one ``scripts/measure_ratings.py`` reports.

The engine is deliberately left out of the score: the engine's time to find the key is
what ``scripts/measure_ratings.py`` checks the rating against.

The **rating** cuts the score at the quintiles of the committed puzzles of the same
board and N (:data:`CUTS`, measured by ``python scripts/measure_ratings.py --cuts``):
rating 1 is the easiest fifth of the committed N-movers of that board, 5 the hardest
fifth.  A rating compares puzzles of one N; a longer puzzle is harder anyway (its N
says so).  A board or N without committed puzzles uses the cuts of the same N on 6/7,
or of the nearest N measured.

>>> f = Features(nodes=1000, tempting=2, late=1, quiet=False, legal=100, paths=3)
>>> score(f)
8.1
>>> rating(score(f), "6/7", 2)
5
>>> rating(score(f), "6/7", 5)
1
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from solver import MeridiansError, Position
from solver.search.capture import CaptureSearch, capture_limit
from solver.search.limit import Limit

__all__ = ["Features", "features", "score", "rating", "rate", "record_features", "find_key", "FoundKey", "spearman", "quantile_cuts",
           "CUTS", "OLD_CUTS", "old_rating", "TEMPTING_CAP", "LATE_CAP", "PATHS_CAP", "FIRST_PLAYOUTS", "RatingError"]

#: how many failing natural tries count, at most
TEMPTING_CAP = 12
#: how many tries that fail only late count, at most
LATE_CAP = 4
#: how many empty points on the target's paths count, at most
PATHS_CAP = 10

#: the smallest playout budget of :func:`key_found_at`'s ladder
FIRST_PLAYOUTS = 16

#: (board, n) -> the scores at which ratings 2, 3, 4 and 5 start: the 20/40/60/80%
#: quantiles of the committed sets' scores (``python scripts/measure_ratings.py --cuts``,
#: results/puzzles/ratings.json), each as measured when its set was rated, so that a set
#: grown since keeps its records' ratings; a score equal to a cut rates on its upper side
CUTS: dict[tuple[str, int], tuple[float, float, float, float]] = {
    ("4/5", 1): (4.067, 4.391, 4.588, 4.831),
    ("4/5", 2): (5.21, 5.453, 5.847, 6.373),
    ("4/5", 3): (6.43, 6.935, 7.455, 7.946),
    ("4/5", 4): (7.895, 8.358, 8.904, 9.562),
    ("5/6", 1): (4.541, 4.882, 5.088, 5.321),
    ("5/6", 2): (5.712, 6.042, 6.328, 6.994),
    ("5/6", 3): (6.936, 7.4, 7.68, 8.472),
    ("5/6", 4): (8.614, 9.103, 9.617, 10.485),
    ("5/6", 5): (9.818, 10.189, 10.516, 11.053),
    ("5/6", 6): (10.741, 11.207, 11.478, 11.929),
    ("5/6", 7): (11.948, 12.162, 12.357, 12.393),
    ("6/7", 1): (5.0, 5.321, 5.566, 5.766),
    ("6/7", 2): (6.222, 6.524, 6.827, 7.361),
    ("6/7", 3): (7.475, 7.906, 8.345, 9.192),
    ("6/7", 4): (9.04, 9.498, 10.069, 10.816),
    ("6/7", 5): (10.511, 10.921, 11.262, 11.601),
    ("6/7", 6): (11.136, 11.707, 11.969, 12.147),
}


#: the first generator's rating cuts (issue 5), one scale for every n (:func:`old_rating`)
OLD_CUTS = (1.5, 3.0, 4.5, 6.0)


class RatingError(MeridiansError):
    """A puzzle whose rating cannot be computed (no key, or a key that is not legal)."""


@dataclass(frozen=True)
class Features:
    """What the score is made of (see the module): the verifier's ``nodes``; the failing
    natural tries (``tempting``) and those that fail only late (``late``); whether the key
    is ``quiet``; the ``legal`` moves of the position; the empty points on the target's
    paths (``paths``)."""

    nodes: int
    tempting: int
    late: int
    quiet: bool
    legal: int
    paths: int


def score(f: Features) -> float:
    """The score of a puzzle with the features ``f``, rounded to 3 decimals (see the
    module).  Non-decreasing in ``nodes``, ``tempting``, ``late``, ``quiet``, ``legal``
    and ``paths``."""
    s = (math.log10(max(f.nodes, 1))
         + 0.15 * min(f.tempting, TEMPTING_CAP) + 0.5 * min(f.late, LATE_CAP)
         + (1.0 if f.quiet else 0.0) + 2.0 * math.log10(max(f.legal, 1)) + 0.1 * min(f.paths, PATHS_CAP))
    return round(s, 3)


def _cuts(board: str, n: int) -> tuple[float, ...]:
    if (board, n) in CUTS:
        return CUTS[(board, n)]
    for b in (board, "6/7"):
        ns = sorted(k for bb, k in CUTS if bb == b)
        if ns:
            return CUTS[(b, min(ns, key=lambda k: (abs(k - n), -k)))]
    raise AssertionError("CUTS is empty")  # pragma: no cover


def rating(s: float, board: str, n: int) -> int:
    """The rating 1..5 of the score ``s`` among the puzzles of ``board`` (its name,
    ``"6/7"``) and ``n`` (:data:`CUTS`)."""
    return 1 + sum(s >= c for c in _cuts(board, n))


def features(position: Position, target: str, key: str, nodes: int, late: int, *,
             quiet: bool | None = None) -> Features:
    """The features of the sound puzzle (``position``, ``target``) whose key is ``key``,
    given the verifier's ``nodes`` and its late-failing tries ``late``.  The tempting
    tries are the natural first moves (the verifier's target zone) other than the key:
    in a sound puzzle every other move fails.  ``quiet``: the verifier's flag, computed
    from the zone when not given.  Raises :class:`RatingError` for a key that is not a
    legal move."""
    legal = position.legal_moves()
    if key not in legal:
        raise RatingError(f"the key {key!r} is not a legal move")
    s = CaptureSearch(position, target, limit=Limit(tt_mb=1))  # no search: no table
    segs, zone = s.target_zone()
    tempting = sum(1 for m in legal if m in zone and m != key)
    return Features(nodes=int(nodes), tempting=tempting, late=int(late),
                    quiet=(key not in segs) if quiet is None else bool(quiet),
                    legal=len(legal), paths=len(segs))


def rate(position: Position, target: str, n: int, v) -> tuple[float, int]:
    """(score, rating) of a sound puzzle from its verdict ``v``
    (:class:`puzzles.verdict.Verdict`, with ``late`` computed: ``line=True``)."""
    if not v.keys:
        raise RatingError("a puzzle without a key has no rating")
    f = features(position, target, v.keys[0], v.nodes, len(v.late), quiet=v.quiet)
    s = score(f)
    return s, rating(s, position.board.name, n)


def _old_score(n: int, f: Features, late: int) -> float:
    """The score of the first generator (issue 5, before this module) for features ``f``:
    the length (each X move beyond the first is worth 1), half the log10 of the nodes
    beyond a hundred, 0.15 a failing natural try (at most 12), 0.5 a try that fails only
    late (at most 4) and 1 for a quiet key.  Records written then carry this score and
    :func:`old_rating`'s rating; it is kept only to read them."""
    effort = max(0.0, math.log10(max(f.nodes, 1)) - 2.0)
    return round((n - 1) + 0.5 * effort + 0.15 * min(f.tempting, 12) + 0.5 * min(late, 4)
                 + (1.0 if f.quiet else 0.0), 3)


def old_rating(recorded_score: float) -> int:
    """The first generator's rating of a recorded score: one scale for every n, cut at
    :data:`OLD_CUTS` (the rating a record written before this module carries).

    >>> old_rating(0.0), old_rating(3.0), old_rating(9.9)
    (1, 3, 5)
    """
    return 1 + sum(recorded_score >= cut for cut in OLD_CUTS)


def _late_from_score(n: int, f: Features, recorded: float) -> int | None:
    """The late-failing tries a record's ``score`` implies, written by this module or by
    the first generator (which counted them the same way, at most 4): the one count from
    0 to 4 whose score equals the recorded one; None if no count or several do."""
    fits = {late for late in range(LATE_CAP + 1)
            for s in (score(Features(f.nodes, f.tempting, late, f.quiet, f.legal, f.paths)),
                      _old_score(n, f, late))
            if abs(s - recorded) < 5e-4}
    return fits.pop() if len(fits) == 1 else None


def record_features(p, *, search_late: bool = True) -> Features:
    """The features of a committed puzzle record ``p`` (:class:`puzzles.record.Puzzle`
    with a key and nodes).  Its late-failing tries are read back from its recorded score
    when the score tells them (both scores count them, at most 4); else, with
    ``search_late``, found by the verifier's search (:data:`puzzles.verdict.LATE_NODES`
    nodes a try), else counted as 0.  Raises :class:`RatingError` for a record without a
    key or nodes."""
    if p.key is None or p.nodes is None:
        raise RatingError(f"puzzle {p.id}: a rating needs the record's key and nodes")
    pos = Position.parse(p.position)
    f = features(pos, p.target, p.key, p.nodes, 0)
    late = _late_from_score(p.n, f, p.score) if p.score is not None else None
    if late is None and search_late:
        from .verdict import _late  # the same count the verifier makes

        s = CaptureSearch(pos, p.target, limit=capture_limit())
        segs, zone = s.target_zone()
        tries = [m for m in pos.legal_moves() if m in zone and m != p.key]
        late = len(_late(s, p.n, tries))
    return Features(f.nodes, f.tempting, late or 0, f.quiet, f.legal, f.paths)


class FoundKey(NamedTuple):
    """The engine's effort to find a key (:func:`find_key`)."""

    at: int | None   # the first budget from which the key stays the best move (None: not found)
    share: float     # the key's share of the root's visits at the largest budget


def find_key(position: Position, key: str, max_playouts: int, *, seed: int = 1) -> FoundKey:
    """The engine's effort to find ``key``: ``at``, the first playout budget of the
    ladder 16, 32, 64, ... ``max_playouts`` (doubling; :data:`FIRST_PLAYOUTS`) from which
    the engine's best move is ``key`` at every budget up to ``max_playouts`` (None when it
    is not the best move at ``max_playouts``), and ``share``, the key's share of the
    root's visits at the largest budget.  Each budget is a fresh search (the tree alone:
    no df-pn before it, whose proven wins would name any winning move) with the fixed
    ``seed``, so the answer depends on the position alone, not on the machine's load."""
    from solver.search.limit import Limit
    from solver.search.mcts import search  # the engine loads only for the check

    if max_playouts < FIRST_PLAYOUTS:
        raise ValueError(f"the largest playout budget is at least {FIRST_PLAYOUTS}, not {max_playouts}")
    found, share = None, 0.0
    b = FIRST_PLAYOUTS
    while b <= max_playouts:
        r = search(position, Limit(playouts=b), seed=seed, dfpn_nodes=0)
        if r.best == key:
            found = b if found is None else found
        else:
            found = None
        share = next((m.share for m in r.moves if m.move == key), 0.0)
        b *= 2
    return FoundKey(found, round(share, 4))


def _ranks(xs: list[float]) -> list[float]:
    """Ranks 1..n of ``xs``, ties given the mean of their ranks."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(xs: list[float], ys: list[float]) -> float | None:
    """Spearman's rank correlation of ``xs`` and ``ys`` (ties at their mean rank: the
    Pearson correlation of the ranks); None when there are fewer than 2 pairs or one
    side is constant.

    >>> spearman([1, 2, 3, 4], [10, 20, 30, 40]), spearman([1, 2, 3], [3, 2, 1])
    (1.0, -1.0)
    >>> spearman([1, 1, 2], [5, 6, 7])
    0.866
    """
    if len(xs) != len(ys):
        raise ValueError("spearman: the two lists differ in length")
    if len(xs) < 2:
        return None
    rx, ry = _ranks(list(xs)), _ranks(list(ys))
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return round(sxy / math.sqrt(sxx * syy), 3)


def quantile_cuts(scores: list[float]) -> tuple[float, float, float, float]:
    """The scores at which ratings 2..5 start for a set with these ``scores``: the
    values at 20, 40, 60 and 80% of the sorted list (how :data:`CUTS` was measured).

    >>> quantile_cuts([float(i) for i in range(10)])
    (2.0, 4.0, 6.0, 8.0)
    """
    if not scores:
        raise ValueError("quantile_cuts: no scores")
    xs = sorted(scores)
    return tuple(xs[k * len(xs) // 5] for k in range(1, 5))  # type: ignore[return-value]
