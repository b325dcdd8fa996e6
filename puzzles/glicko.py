"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2012): one rating period of a
player's games, and the rating of puzzles and solvers from attempts (issue 36).

:func:`glicko2` is steps 1-8 of the paper, the same update as the web trainer's
(solver/app/web/static/trainer.js); its volatility is found by the paper's Illinois
iteration (tests/test_attempts.py checks it against a bisection twin and the worked example).

>>> r = glicko2(Rating(1500, 200, 0.06), [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)])
>>> round(r.r, 2), round(r.rd, 2), round(r.vol, 5)
(1464.05, 151.52, 0.06)
"""

from __future__ import annotations

import math
from typing import NamedTuple

from solver.util.errors import MeridiansError

__all__ = ["Rating", "glicko2", "GlickoError", "SCALE", "TAU", "START"]

#: the Glicko-2 scale factor (400 / ln 10)
SCALE = 173.7178
#: the system constant, as the web trainer has it
TAU = 0.5


class GlickoError(MeridiansError):
    """A rating or game that Glicko-2 cannot take (a deviation <= 0, a score outside 0..1, ...)."""


class Rating(NamedTuple):
    """A Glicko-2 rating: r, its deviation rd and its volatility vol (Glicko-1 scale)."""

    r: float
    rd: float
    vol: float


#: a new player's rating
START = Rating(1500.0, 350.0, 0.06)


def _check(p: Rating, games, tau: float) -> None:
    if not (math.isfinite(p.r) and math.isfinite(p.rd) and p.rd > 0 and math.isfinite(p.vol) and p.vol > 0):
        raise GlickoError(f"a rating needs a finite r and a positive rd and vol, not {tuple(p)}")
    if not (math.isfinite(tau) and tau > 0):
        raise GlickoError(f"tau must be positive, not {tau!r}")
    for g in games:
        if len(g) != 3:
            raise GlickoError(f"a game is (opponent's r, opponent's rd, score), not {g!r}")
        rj, rdj, s = g
        if not (math.isfinite(rj) and math.isfinite(rdj) and rdj > 0 and 0 <= s <= 1):
            raise GlickoError(f"a game needs a finite r, a positive rd and a score 0..1, not {g!r}")


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def glicko2(p: Rating, games, tau: float = TAU, *, eps: float = 1e-6) -> Rating:
    """The rating after one period of ``games`` (opponent's r, opponent's rd, score 0..1)
    from ``p``; no game: only the deviation grows.  GlickoError for bad input."""
    _check(p, games, tau)
    try:
        return _glicko2(p, games, tau, eps)
    except (OverflowError, ZeroDivisionError):  # exp() of a huge rating gap, or an expected score of exactly 0 or 1
        raise GlickoError(f"ratings too far apart for Glicko-2's arithmetic: {p.r!r} against "
                          f"{min(g[0] for g in games)!r}..{max(g[0] for g in games)!r}") from None


def _glicko2(p: Rating, games, tau: float, eps: float) -> Rating:
    mu, phi, sigma = (p.r - 1500) / SCALE, p.rd / SCALE, p.vol
    if not games:
        return Rating(p.r, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    vinv = total = 0.0
    for rj, rdj, s in games:
        gj = _g(rdj / SCALE)
        e = 1 / (1 + math.exp(-gj * (mu - (rj - 1500) / SCALE)))
        vinv += gj * gj * e * (1 - e)
        total += gj * (s - e)
    v = 1 / vinv
    delta = v * total
    a, phi2 = math.log(sigma * sigma), phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        d = phi2 + v + ex
        return ex * (delta * delta - phi2 - v - ex) / (2 * d * d) - (x - a) / (tau * tau)

    # step 5: the new volatility by the Illinois algorithm
    big_a = a
    if delta * delta > phi2 + v:
        big_b = math.log(delta * delta - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > eps:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = c, fc
    vol = math.exp(big_a / 2)
    star = math.sqrt(phi2 + vol * vol)
    new_phi = 1 / math.sqrt(1 / (star * star) + 1 / v)
    return Rating(SCALE * (mu + new_phi * new_phi * total) + 1500, SCALE * new_phi, vol)
