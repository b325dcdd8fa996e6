"""Puzzle ratings from attempts (issue 36): solvers of graded strength built on the move
model, the capture search and the engine try the committed puzzles, and each attempt is a
Glicko-2 game between solver and puzzle, as Lichess rates its puzzles from its players.

A **solver** (:class:`Solver`) chooses the attacker's move at each of its turns:

- ``policy`` at temperature ``t``: the move model's (:mod:`solver.search.policy`)
  most likely move at ``t = 0``, else a move drawn with probability proportional to
  ``p ** (1 / t)``;
- ``look`` with ``width`` and ``nodes``: the model's ``width`` most likely moves in order,
  the first of which a capture search of ``nodes`` nodes finds to capture in the turns
  left, else the most likely move (a solver that reads a little);
- ``engine`` with ``playouts``: the engine's best move (:func:`solver.search.mcts.search`,
  the tree alone as :func:`puzzles.rating.find_key` runs it, no df-pn, its seed drawn);
- ``read`` with ``nodes``: the exact capture search (:mod:`solver.search.capture`, the
  generator's and the verdict's) over every legal move in the model's order, each move
  given 16 nodes, then twice as many, ... (:func:`read_move`), until a move is proven to
  capture in the turns left or ``nodes`` nodes a turn are spent; it plays the first move
  proven to capture, else the likeliest move not proven to fail (a solver that reads as
  far as its budget lets it, so that only the largest budgets solve the hardest puzzles).

An **attempt** (:func:`attempt`) is one solver trying one puzzle with one seed: it plays
the attacker's moves and the defender replies as the line says; it is solved when at each
attacker turn the move is the line's (at the last turn, any of the record's
``last_moves``).  An attempt is deterministic: its random draws come from a generator
seeded by the solver's name, the puzzle's id and the seed, and each capture search starts
from an empty table.

The **rating** (:func:`rate`) is a Glicko-2 fixed point: each puzzle's rating is one
rating period of all its attempts from a new player's rating (:data:`puzzles.glicko.START`)
against the solvers' ratings, and each solver's rating one period of all its attempts
against the puzzles' ratings, repeated until they stop moving (every game counts once in
each rating, so no deviation shrinks by counting a game again).  Puzzles not in the fit
(:func:`rate_against`) are rated against the fitted solvers.  The scale is then shifted so
that the weakest solver is at :data:`ANCHOR` (Lichess-like numbers: a puzzle failed by
every solver lies far above it).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Iterable, NamedTuple

import numpy as np

from solver.util.errors import MeridiansError
from .glicko import START, Rating, glicko2
from .record import ANY, Puzzle

__all__ = ["Solver", "Attempt", "attempt", "read_move", "Read", "READ_FIRST", "key_effort", "rate", "rate_against",
           "parse_solver", "AttemptError",
           "ANCHOR", "KINDS", "Fit"]

#: where the weakest solver of a rating is put on the scale
ANCHOR = 800.0
#: the solver kinds
KINDS = ("policy", "look", "engine", "read", "line", "wrong")
#: the first per-move budget of a ``read`` solver's rounds (doubled each round)
READ_FIRST = 16
#: the table of a ``read`` solver's capture searches, in MiB
READ_TT_MB = 16


class AttemptError(MeridiansError):
    """A solver that cannot be made or a puzzle that cannot be attempted."""


@dataclass(frozen=True)
class Solver:
    """A solver: its kind (:data:`KINDS`; ``line`` and ``wrong`` are the tests' solvers
    that play the line, and a wrong first move then the line) and its parameters."""

    kind: str
    t: float = 0.0         # policy: the temperature (0: the most likely move)
    width: int = 0         # look: the moves read
    nodes: int = 0         # look: the capture search's nodes a move; read: the nodes a turn
    playouts: int = 0      # engine: the playouts a move

    def __post_init__(self) -> None:
        ok = {"policy": math.isfinite(self.t) and 0 <= self.t <= 100,
              "look": 1 <= self.width <= 100 and 1 <= self.nodes <= 10**8,
              "engine": 1 <= self.playouts <= 10**7, "read": 1 <= self.nodes <= 10**9,
              "line": True, "wrong": True}.get(self.kind)
        if not ok:
            raise AttemptError(f"not a solver: {self!r}")

    @property
    def name(self) -> str:
        """A short name, e.g. ``policy-t0.5``, ``look-w3-n200``, ``engine-p256``."""
        return {"policy": f"policy-t{self.t:g}", "look": f"look-w{self.width}-n{self.nodes}",
                "engine": f"engine-p{self.playouts}", "read": f"read-n{self.nodes}"}.get(self.kind, self.kind)

    @property
    def random(self) -> bool:
        """Whether the seed changes its attempts (else one seed says all)."""
        return self.kind == "policy" and self.t > 0 or self.kind == "engine"


def parse_solver(name: str) -> Solver:
    """The solver of a :attr:`Solver.name`; AttemptError for another text."""
    parts = name.strip().split("-")
    try:
        rest = name.strip().partition("-")[2]  # a small t is written with an exponent: policy-t1e-05
        if parts[0] == "policy" and rest.startswith("t") and rest[1:2] not in ("-", "+"):
            return Solver("policy", t=float(rest[1:]))
        if parts[0] == "look" and len(parts) == 3 and parts[1][0] == "w" and parts[2][0] == "n":
            return Solver("look", width=int(parts[1][1:]), nodes=int(parts[2][1:]))
        if parts[0] == "engine" and len(parts) == 2 and parts[1].startswith("p"):
            return Solver("engine", playouts=int(parts[1][1:]))
        if parts[0] == "read" and len(parts) == 2 and parts[1].startswith("n"):
            return Solver("read", nodes=int(parts[1][1:]))
    except (ValueError, IndexError):
        pass  # a number that does not parse: refused below, as any other unknown name
    raise AttemptError(f"not a solver name: {name!r} (policy-t<T>, look-w<W>-n<N>, engine-p<P>, read-n<N>)")


class Attempt(NamedTuple):
    """One solver's attempt at one puzzle: solved, the attacker turn it failed at (None
    when solved) and the solver's moves."""

    solver: str
    puzzle: str
    seed: int
    solved: bool
    failed_at: int | None
    moves: tuple = ()


_MODEL = None


def _model():
    global _MODEL
    if _MODEL is None:
        from solver.search.guide import load_model
        _MODEL = load_model()
    return _MODEL


def _ranked(position) -> tuple[list[str], np.ndarray]:
    """The legal moves, most likely first (ties in board order), and their probabilities."""
    from solver.search.policy import policy
    pr = policy(position, _model())
    moves = sorted(pr, key=lambda m: -pr[m])  # stable: the policy's order among equals
    return moves, np.array([pr[m] for m in moves])


def _choose(s: Solver, p: Puzzle, position, turn: int, rng: np.random.Generator, seed: int) -> str:
    """The solver's move at attacker turn ``turn`` (0-based) of puzzle ``p``."""
    if s.kind == "line":
        return p.line[2 * turn]
    if s.kind == "wrong":
        if turn == 0:
            return next(m for m in position.legal_moves() if m != p.key and m not in (p.last_moves or ()))
        return p.line[2 * turn]
    if s.kind == "engine":
        from solver.search.limit import Limit
        from solver.search.mcts import search
        # the search's seed is drawn, so that it is not the seed 1 of the engine-effort check
        return search(position, Limit(playouts=s.playouts), seed=int(rng.integers(1, 2**31)), dfpn_nodes=0).best
    moves, probs = _ranked(position)
    if s.kind == "read":
        return read_move(position, p.target, p.n - turn, s.nodes, moves).move
    if s.kind == "policy":
        if s.t == 0:
            return moves[0]
        logp = np.log(np.maximum(probs, 1e-300))
        w = np.exp(logp / s.t)
        if not w.sum() > 0:  # a t so small that every weight underflows: the same weights scaled by the largest
            w = np.exp((logp - logp.max()) / s.t)
        return moves[int(rng.choice(len(moves), p=w / w.sum()))]
    # look: the first of the likeliest moves that a small capture search says captures
    from solver.search.capture import CaptureSearch, forget
    from solver.search.limit import Limit
    left = p.n - turn
    for m in moves[:s.width]:
        forget()  # an empty table: the answer does not depend on earlier searches
        cs = CaptureSearch(position, p.target, limit=Limit(nodes=s.nodes, tt_mb=4))
        if cs.move_captures(m, left):
            return m
    return moves[0]


class Read(NamedTuple):
    """A ``read`` turn (:func:`read_move`): the move played, whether it was proven to
    capture, the nodes spent, and the nodes spent when ``want`` was proven to capture
    (None: not within the budget)."""

    move: str
    proven: bool
    nodes: int
    want_at: int | None = None


def read_move(position, target: str, k: int, budget: int, moves: list[str] | None = None, *,
              want: str | None = None) -> Read:
    """The ``read`` solver's turn: ``moves`` (default: every legal move, the model's
    likeliest first) searched by the exact capture search for a capture of ``target``
    within ``k`` moves, each undecided move given :data:`READ_FIRST` nodes a round and
    twice as many each round, the rounds stopping at the first move proven to capture
    (with ``want``: at ``want`` proven) or at ``budget`` nodes in all.  Starts from an
    empty table, so the answer is the same whatever ran before."""
    from solver.search.capture import CaptureSearch, forget
    from solver.search.limit import Limit
    if moves is None:
        moves = _ranked(position)[0]
    forget()
    cs = CaptureSearch(position, target, limit=Limit(nodes=budget, tt_mb=READ_TT_MB))
    open_ = list(moves)
    per = READ_FIRST
    chosen = None
    while open_ and cs.nodes < budget:
        left = []
        for m in open_:
            if cs.nodes >= budget:
                left.append(m)
                continue
            cs.node_limit = min(budget, cs.nodes + per)
            cs.clear_aborted()
            r = cs.move_captures(m, k)
            if r is None:
                left.append(m)
            elif r:
                if chosen is None:
                    chosen = m
                if want is None or m == want:
                    return Read(chosen, True, cs.nodes, cs.nodes if m == want else None)
            # proven to fail: dropped
        open_ = left
        per *= 2
    if chosen is not None:
        return Read(chosen, True, cs.nodes, None)
    return Read(open_[0] if open_ else moves[0], False, cs.nodes, None)


def _rng(s: Solver, p: Puzzle, seed: int) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(f"{s.name}|{p.id}|{seed}".encode()))


def attempt(s: Solver, p: Puzzle, seed: int = 1) -> Attempt:
    """``s`` tries ``p`` with ``seed``: the attacker's moves are the solver's, the
    defender's the line's.  AttemptError for a puzzle without its line."""
    if p.key is None or len(p.line) < 2 * p.n - 1 or not p.last_moves:
        raise AttemptError(f"puzzle {p.id}: an attempt needs the key, the line and last_moves")
    rng = _rng(s, p, seed)
    position = p.to_position()
    played: list[str] = []
    for turn in range(p.n):
        m = _choose(s, p, position, turn, rng, seed)
        played.append(m)
        last = turn == p.n - 1
        if (m not in p.last_moves) if last else (m != p.line[2 * turn]):
            return Attempt(s.name, p.id, seed, False, turn, tuple(played))
        if last:
            break
        position = position.play(m)
        reply = p.line[2 * turn + 1]
        if reply == ANY:  # only a last defender move may be 'any': nothing is left to play
            break
        position = position.play(reply)
    return Attempt(s.name, p.id, seed, True, None, tuple(played))


def key_effort(p: Puzzle, budget: int) -> int | None:
    """The nodes the strongest ``read`` solver (budget ``budget``) spends on ``p``'s first
    turn before the key is proven to capture (None: not within ``budget``): the
    capture-goal solver's effort to find the key."""
    return read_move(p.to_position(), p.target, p.n, budget, want=p.key).want_at


def _period(games_of: dict, other: dict, prior: Rating = START) -> dict:
    """Each player's rating after one period of its games (opponent, score) from ``prior``."""
    return {k: glicko2(prior, [(other[o].r, other[o].rd, sc) for o, sc in gs]) for k, gs in games_of.items()}


class Fit(NamedTuple):
    """A rating (:func:`rate`): the puzzles' and the solvers' ratings and the shift that
    put the weakest solver at :data:`ANCHOR` (a new player's rating is 1500 + shift)."""

    puzzles: dict
    solvers: dict
    shift: float


def rate(attempts: Iterable[Attempt], *, rounds: int = 200, tol: float = 0.01) -> Fit:
    """The puzzles' and solvers' ratings (by id and name) from ``attempts``: the Glicko-2
    fixed point (see the module), shifted so the weakest solver is at :data:`ANCHOR`.
    AttemptError when there are no attempts."""
    by_p: dict[str, list] = {}
    by_s: dict[str, list] = {}
    for a in attempts:
        by_p.setdefault(a.puzzle, []).append((a.solver, 0.0 if a.solved else 1.0))
        by_s.setdefault(a.solver, []).append((a.puzzle, 1.0 if a.solved else 0.0))
    if not by_p:
        raise AttemptError("no attempts to rate")
    solvers = {k: START for k in by_s}
    puzzles = {k: START for k in by_p}
    for _ in range(rounds):
        puzzles = _period(by_p, solvers)
        new = _period(by_s, puzzles)
        moved = max(abs(new[k].r - solvers[k].r) for k in new)
        solvers = new
        if moved < tol:
            break
    puzzles = _period(by_p, solvers)
    shift = ANCHOR - min(r.r for r in solvers.values())
    return Fit({k: Rating(r.r + shift, r.rd, r.vol) for k, r in puzzles.items()},
               {k: Rating(r.r + shift, r.rd, r.vol) for k, r in solvers.items()}, shift)


def rate_against(attempts: Iterable[Attempt], fit: Fit) -> dict:
    """The ratings of the puzzles of ``attempts`` against the solvers of ``fit`` (one
    period from a new player's rating on the fit's scale); other solvers' attempts are
    left out."""
    by_p: dict[str, list] = {}
    for a in attempts:
        if a.solver in fit.solvers:
            by_p.setdefault(a.puzzle, []).append((a.solver, 0.0 if a.solved else 1.0))
    return _period(by_p, fit.solvers, Rating(START.r + fit.shift, START.rd, START.vol))
