"""The quality figures of a puzzle set (issue 21): what ``scripts/measure_puzzles.py``
writes for every committed set.

>>> from puzzles.record import Puzzle
>>> ps = [Puzzle(id=str(i), position=p, target="d2", n=1, difficulty=1, dual_free=i == 0, generator="sat")
...       for i, p in enumerate(["2/1D1/4/L2/2 L", "2/1D1/4/L2/2 D"])]
>>> m = measure_set(ps)
>>> m["count"], m["dual_free"], m["duplicate_rate"], m["ratings"], m["top_rating_share"], m["generators"]
(2, 0.5, 0.5, {'1': 2}, 1.0, {'sat': 2})
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from .record import THEMES, Puzzle
from .similar import WITHIN, NearIndex, duplicate_rate, near_duplicates

__all__ = ["measure_set", "near_shorter", "rating_histogram", "RATING_BINS"]

#: the lower ends of the rating histogram's bins (:func:`rating_histogram`), from
#: Lichess's span of puzzle ratings (about 600 to 2800)
RATING_BINS = (0, 800, 1000, 1200, 1400, 1600, 1800, 2000, 2200)


def _counts(values) -> dict[str, int]:
    """A Counter as a JSON object, keys as strings in sorted order (None as "none")."""
    c = Counter("none" if v is None else str(v) for v in values)
    return {k: c[k] for k in sorted(c)}


def measure_set(puzzles: Sequence[Puzzle], within: int = WITHIN, *, compute_themes: bool = True) -> dict:
    """The figures of one set, in file order: ``count``; ``dual_free`` (the share with a
    dual-free main line); ``duplicate_rate`` (the share whose position differs from an
    earlier puzzle's in ``within`` points or fewer, :func:`puzzles.similar.duplicate_rate`)
    and ``near_pairs`` (the pairs so near); ``ratings`` (puzzles per ``difficulty``) and
    ``top_rating_share`` (the largest share at one rating); ``themes`` (puzzles per theme:
    the record's themes, or with ``compute_themes`` those :func:`puzzles.themes.themes`
    finds for a record with a key but no themes), ``themes_recorded`` and
    ``themes_computed`` (how many puzzles had them each way); ``generators`` and
    ``sources`` (puzzles per ``generator`` and per ``source`` kind, the part of a record's
    ``source`` before its first ':' when it has one, ``unrecorded`` for a record without
one).  An empty set gives zeros."""
    n = len(puzzles)
    ratings = _counts(p.difficulty for p in puzzles)
    from .themes import themes as compute

    counts: Counter = Counter()
    recorded = computed = 0
    for p in puzzles:
        if p.themes is not None:
            counts.update(p.themes)
            recorded += 1
        elif compute_themes and p.key is not None:
            counts.update(compute(p))
            computed += 1
    sources = []
    for p in puzzles:
        s = getattr(p, "source", None) if hasattr(p, "source") else p.extra.get("source")
        if isinstance(s, dict):
            s = s.get("kind") or s.get("type")
        sources.append("unrecorded" if s is None else str(s).split(":")[0])
    return {
        "count": n,
        "dual_free": sum(p.dual_free for p in puzzles) / n if n else 0.0,
        "duplicate_rate": duplicate_rate(puzzles, within),
        "near_pairs": len(near_duplicates(puzzles, within)),
        "ratings": ratings,
        "top_rating_share": max(ratings.values()) / n if n else 0.0,
        "themes": {k: counts[k] for k in THEMES if k in counts},
        "themes_recorded": recorded,
        "themes_computed": computed,
        "generators": _counts(p.generator for p in puzzles),
        "sources": _counts(sources),
    }


def near_shorter(puzzles: Sequence[Puzzle], shorter: Sequence[Puzzle], within: int = WITHIN) -> dict[str, int]:
    """How many of ``puzzles`` are near a puzzle of ``shorter`` (the same board's set of
    one move less): ``within`` (their positions differ in ``within`` points or fewer) and
    ``one_point`` (in one point, as the extend generator's n-movers are from their
    parents).  The rule against near-duplicates holds within a set; this says how often
    a longer set shows a shorter one's idea again.

    >>> a = Puzzle(id="a", position="2/1D1/4/L2/2 L", target="d2", n=1)
    >>> near_shorter([Puzzle(id="b", position="2/3/4/L2/2 L", target="a1", n=2)], [a], within=1)
    {'within': 1, 'one_point': 1}
    """
    far, one = NearIndex(shorter, within), NearIndex(shorter, 1)
    return {"within": sum(far.near(p.position) is not None for p in puzzles),
            "one_point": sum(one.near(p.position) is not None for p in puzzles)}


def rating_histogram(puzzles: Sequence[Puzzle], bins: Sequence[int] = RATING_BINS) -> tuple[list[int], int]:
    """``(counts, unrated)``: puzzles per bin of ``rating`` (bin k holds ratings from
    ``bins[k]`` up to ``bins[k + 1]``, the last one up; ``bins`` ascending from at most
    the lowest rating) and how many records have no rating.

    >>> rating_histogram([Puzzle(id="a", position="2/1D1/4/L2/2 L", target="d2", n=1, rating=r)
    ...                   for r in (650, 800, 1999, None)], (0, 800, 2000))
    ([1, 2, 0], 1)
    """
    counts = [0] * len(bins)
    unrated = 0
    for p in puzzles:
        if p.rating is None:
            unrated += 1
            continue
        k = max(i for i, low in enumerate(bins) if low <= p.rating)
        counts[k] += 1
    return counts, unrated
