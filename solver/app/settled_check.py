"""The settled rule against plain search: every claim of :func:`solver.reference.settled.settle` on
late positions of seeded random games, compared with the exact value.

The soundness test of issue 19 (``tests/test_settled.py`` runs a small share of it in CI,
``scripts/check_knowledge.py`` the full size).  A position is taken from the last plies of
a random game (:mod:`solver.rules.randomgame`), where both players still have two or more
stones and exact search finishes fast; it keeps its game's history, which both the rule
(its repetition guard) and the search see.  Whenever the rule claims a winner, df-pn
without the rule decides the position; the winner it finds must be the claimed owner,
and :func:`solver.reference.settled.check_settled` must confirm the claim's numbers without a
budget.  Any disagreement is a bug of the rule, never a tolerance.

An application (it runs the searches, layer 3, to judge the reference, layer 2).
"""

from __future__ import annotations

import inspect
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from solver.rules.board import Board
from solver.rules.position import Position
from solver.rules.randomgame import random_game
from solver.search.limit import Limit
from solver.search.prove import prove
from solver.search.values import Value
from solver.reference.settled import SettledError, check_settled, settle

__all__ = ["Report", "late_positions", "exact_winner", "compare"]


@dataclass
class Report:
    """What :func:`compare` found on one board."""

    board: str
    positions: int = 0
    claims: int = 0
    agreements: int = 0
    disagreements: list[str] = field(default_factory=list)  # one line each: position, claim, value
    undecided: int = 0  # claims that the search did not decide within its budget
    seconds: float = 0.0

    def line(self) -> str:
        return (f"{self.board}: {self.positions} positions, {self.claims} claims, "
                f"{self.agreements} agreements, {len(self.disagreements)} disagreements, "
                f"{self.undecided} undecided, {self.seconds:.1f} s")


def late_positions(board: Board | str, count: int, seed: int, last: int = 4) -> Iterator[Position]:
    """``count`` positions from seeded random games, each game giving its positions from
    ``last`` plies before its end to the one before its end (the end itself is finished),
    those where both players have two or more stones, latest first."""
    rng = random.Random(seed)
    n = 0
    while n < count:
        game = list(random_game(board, rng))
        for pos in reversed(game[max(0, len(game) - last):-1]):
            if pos.outcome is None and len(pos.stones("L")) >= 2 and len(pos.stones("D")) >= 2:
                yield pos
                n += 1
                if n == count:
                    return


#: prove()'s keywords that switch the settled rule off, if it has the switch
_PLAIN = {"knowledge": False} if "knowledge" in inspect.signature(prove).parameters else {}


def exact_winner(pos: Position, seconds: float = 60.0) -> str | None:
    """The winner of ``pos`` by plain df-pn (the settled rule off), or None if it is not
    decided within ``seconds``."""
    proof = prove(pos, Limit(seconds=seconds, tt_mb=64), method="dfpn", **_PLAIN)
    if proof.value is Value.WIN:
        return pos.to_move
    if proof.value is Value.LOSS:
        return "D" if pos.to_move == "L" else "L"
    return None


def compare(board: Board | str, count: int, seed: int, *, budget: int = 2_000, last: int = 4,
            seconds: float = 60.0) -> Report:
    """Try the rule on ``count`` late positions (:func:`late_positions`) with ``budget``
    solitaire states; compare every claim with :func:`exact_winner` and recheck it with
    :func:`check_settled`."""
    report = Report(Position.start(board).board.name)
    t0 = time.perf_counter()
    for pos in late_positions(board, count, seed, last):
        report.positions += 1
        history = pos.earlier()
        claim = settle(pos, budget, history)
        if claim is None:
            continue
        report.claims += 1
        try:
            check_settled(pos, claim, history)
        except SettledError as e:
            report.disagreements.append(f"{pos} {claim.claim()}: the checker says {e}")
            continue
        winner = exact_winner(pos, seconds)
        if winner is None:
            report.undecided += 1
        elif winner == claim.owner:
            report.agreements += 1
        else:
            report.disagreements.append(f"{pos} {claim.claim()}: plain df-pn says {winner} wins")
    report.seconds = time.perf_counter() - t0
    return report
