"""Matches between players (``meridians match``): the engine, flat Monte Carlo, random.

Players are named by a spec: ``engine``, ``engine:time=1`` (seconds a move),
``engine:playouts=200``, ``engine:playouts=200,dfpn=0`` (df-pn's nodes before the tree,
default :data:`solver.search.mcts.DFPN_NODES`), the options ``time`` and ``playouts``
for ``mcts`` and ``mcts-flat``, and ``random``.

- ``engine``: :class:`solver.search.mcts.Engine` (MCTS-Solver, df-pn first), one a game,
  so that its tree is kept from move to move; default 1 s a move;
- ``mcts``: the engine's tree search without its solver and without df-pn (plain
  UCT: no proof backed up), to measure what the solver adds; default 1 s a move;
- ``mcts-flat``: flat Monte Carlo: the same playouts spread evenly over the moves of the
  position (no tree below them, no df-pn), the move with the best win rate; a move that
  ends the game at once is seen, as the engine sees it; default 1 s a move;
- ``random``: a uniformly random legal move.

Games alternate colours: player A is Light in games 0, 2, 4, ... With a seed and
playout budgets (no ``time``) a match replays exactly.

>>> parse_player("engine:playouts=200")
Player(spec='engine:playouts=200', kind='engine', seconds=None, playouts=200, dfpn=20000)
>>> elo(0.5, 10)[0]
0.0
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Callable

from .position import Position
from .search import mcts
from .search.limit import LimitError, check_seconds

__all__ = ["Player", "parse_player", "engine_of", "choose_move", "play_game", "run_match", "MatchResult", "elo", "KINDS"]

KINDS = ("engine", "mcts", "mcts-flat", "random")
#: the default thinking time of a searching player, seconds a move
DEFAULT_SECONDS = 1.0


@dataclass(frozen=True)
class Player:
    """A player of a match: ``kind`` one of :data:`KINDS`, with a budget a move."""

    spec: str
    kind: str
    seconds: float | None = None
    playouts: int | None = None
    dfpn: int = 0  # the engine's df-pn nodes before its tree


def parse_player(spec: str) -> Player:
    """The player named by ``spec`` (see the module's text); ValueError naming what is
    wrong otherwise."""
    kind, _, opts = spec.strip().partition(":")
    if kind not in KINDS:
        raise ValueError(f"player {spec!r}: unknown kind {kind!r} (one of {', '.join(KINDS)})")
    seconds = playouts = None
    dfpn = mcts.DFPN_NODES if kind == "engine" else 0
    known = {"engine": ("time", "playouts", "dfpn"), "mcts": ("time", "playouts"), "mcts-flat": ("time", "playouts"),
             "random": ()}[kind]
    for opt in filter(None, (o.strip() for o in opts.split(","))):
        key, eq, value = opt.partition("=")
        if not eq or key not in known:
            raise ValueError(f"player {spec!r}: unknown option {opt!r}"
                             + (f" ({', '.join(k + '=' for k in known)})" if known else ""))
        try:
            if key == "time":
                seconds = check_seconds(float(value), f"player {spec!r}: time")
            elif key == "playouts":
                playouts = int(value)
                if not 1 <= playouts <= mcts.MAX_PLAYOUTS:
                    raise ValueError
            else:
                dfpn = int(value)
                if not 0 <= dfpn <= 10**9:
                    raise ValueError
        except LimitError:
            raise
        except ValueError:
            want = {"time": "number of seconds", "playouts": "whole number of playouts >= 1",
                    "dfpn": "whole number of nodes >= 0"}[key]
            raise ValueError(f"player {spec!r}: {key}={value!r} is not a {want}") from None
    if kind != "random" and seconds is None and playouts is None:
        seconds = DEFAULT_SECONDS
    return Player(spec.strip(), kind, seconds, playouts, dfpn)


def engine_of(player: Player, seed: int) -> mcts.Engine | None:
    """The engine a searching player keeps through one game (its tree is reused from
    move to move); None for the others."""
    if player.kind == "engine":
        return mcts.Engine(seed=seed, dfpn_nodes=player.dfpn)
    if player.kind == "mcts":
        return mcts.Engine(seed=seed, dfpn_nodes=0, solver=False)
    return None


def choose_move(player: Player, position: Position, rng: random.Random, seed: int,
                engine: mcts.Engine | None = None) -> str:
    """``player``'s move in ``position`` (a game not over); ``engine``: the one
    :func:`engine_of` gave it for this game (else a fresh search)."""
    if player.kind == "random":
        return rng.choice(position.legal_moves())
    if player.kind in ("engine", "mcts"):
        engine = engine or engine_of(player, seed)
        r = engine.search(position, playouts=player.playouts, seconds=player.seconds)
    else:  # flat: the root expanded, no leaf ever expanded, moves visited evenly
        r = mcts.search(position, playouts=player.playouts, seconds=player.seconds, seed=seed, dfpn_nodes=0,
                        expand_at=2**62, exploration=1e9)
        if not r.proven:
            rated = [m for m in r.moves if m.win_rate is not None]
            if rated:
                return max(rated, key=lambda m: m.win_rate).move
    if r.best is None:  # a search always tries every root move: a bug, not to be hidden by a random move
        raise RuntimeError(f"{player.spec} found no move in {position} ({'; '.join(r.notes)})")
    return r.best


def play_game(light: Player, dark: Player, board: str, seed: int) -> tuple[str, list[str]]:
    """One game from the empty ``board``: its outcome (``'L'``, ``'D'`` or ``'draw'``) and moves."""
    rng = random.Random(seed)
    pos = Position.start(board)
    moves: list[str] = []
    engines = (engine_of(light, 2 * seed), engine_of(dark, 2 * seed + 1))
    while pos.outcome is None:
        player = light if pos.to_move == "L" else dark
        move = choose_move(player, pos, rng, seed * 1000 + len(moves), engines[pos.side_index])
        pos = pos.play(move)
        moves.append(move)
    return pos.outcome, moves


def elo(score: float, games: int) -> tuple[float | None, float | None, float | None]:
    """The Elo difference for a mean score ``score`` (draws half) over ``games``, and
    its 95% interval: ``(diff, low, high)``.  The interval is Wilson's for the score as
    a proportion (it stays informative at a score of 0 or 1, where the normal one
    shrinks to a point), mapped through the logistic curve.  ``None`` where the score
    is 0 or 1: no finite difference.

    >>> [round(x) for x in elo(0.75, 100)]
    [191, 113, 269]
    >>> elo(1.0, 6)[0::2]
    (None, None)
    """

    def to_elo(p: float) -> float | None:
        if p <= 0.0 or p >= 1.0:
            return None
        return -400.0 * math.log10(1.0 / p - 1.0)

    n = max(games, 1)
    z2 = 1.96 ** 2
    centre = (score + z2 / (2 * n)) / (1 + z2 / n)
    half = 1.96 * math.sqrt(score * (1 - score) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = None if score <= 0 else to_elo(centre - half)
    high = None if score >= 1 else to_elo(centre + half)
    diff = to_elo(score)
    return (None if diff is None else diff + 0.0), low, high  # + 0.0: no -0.0


@dataclass
class MatchResult:
    a: str
    b: str
    board: str
    games: int
    a_wins: int
    b_wins: int
    draws: int
    a_light_wins: int      # of A's wins, those as Light
    b_light_wins: int
    elo: float | None      # A's rating minus B's (None: A scored 0 or 1)
    elo_low: float | None
    elo_high: float | None
    seed: int
    results: list[str] = field(default_factory=list)  # per game: 'a', 'b' or 'draw'

    @property
    def score(self) -> float:
        return (self.a_wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d["score"] = self.score
        return d


def run_match(a: Player, b: Player, board: str, games: int, seed: int = 1,
              progress: Callable[[int, MatchResult], None] | None = None) -> MatchResult:
    """``games`` games of A against B on ``board``, A Light in the even games."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"--games {games!r}: give a whole number of at least 1")
    r = MatchResult(a.spec, b.spec, board, 0, 0, 0, 0, 0, 0, None, None, None, seed)
    for g in range(games):
        a_light = g % 2 == 0
        light, dark = (a, b) if a_light else (b, a)
        outcome, _ = play_game(light, dark, board, seed * 100_003 + g)
        r.games += 1
        if outcome == "draw":
            r.draws += 1
            r.results.append("draw")
        elif (outcome == "L") == a_light:
            r.a_wins += 1
            r.a_light_wins += outcome == "L"
            r.results.append("a")
        else:
            r.b_wins += 1
            r.b_light_wins += outcome == "L"
            r.results.append("b")
        r.elo, r.elo_low, r.elo_high = elo(r.score, r.games)
        if progress is not None:
            progress(g + 1, r)
    return r
