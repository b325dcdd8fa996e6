"""The value of a position for one player: win, loss, draw or unknown.

Every search reports values for the player to move; an application that reports them for
the other player (the one who made the move, or Light after Dark's first move) negates
them.  :class:`Value` is a ``str``, so a value compares equal to its name and goes into
JSON as ``"win"``, ``"loss"``, ``"draw"`` or ``"unknown"``, as the results files hold them.

>>> Value.WIN.negated(), Value("draw").negated()
(<Value.LOSS: 'loss'>, <Value.DRAW: 'draw'>)
>>> Value.from_outcome("D", to_move="L"), Value.from_outcome("draw", to_move="D")
(<Value.LOSS: 'loss'>, <Value.DRAW: 'draw'>)
>>> import json; json.dumps({"value": Value.UNKNOWN}), f"{Value.WIN:>5}"
('{"value": "unknown"}', '  win')
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Value"]


class Value(str, Enum):
    """A value for one player.  ``UNKNOWN``: the search did not decide (a budget ran
    out); it is never a guess, and negating it leaves it unknown."""

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"
    UNKNOWN = "unknown"

    def negated(self) -> Value:
        """The value for the other player: a win is the opponent's loss; a draw and an
        unknown stay as they are."""
        return _NEGATED[self]

    @property
    def decided(self) -> bool:
        """A win, a loss or a draw."""
        return self is not Value.UNKNOWN

    @classmethod
    def from_outcome(cls, outcome: str, to_move: str) -> Value:
        """The value of a finished game (``outcome`` ``'L'``, ``'D'`` or ``'draw'``, as
        :attr:`solver.Position.outcome` gives it) for the player ``to_move``.  Raises
        ValueError for anything else (None: the game is not over)."""
        if outcome == "draw":
            return cls.DRAW
        if outcome not in ("L", "D") or to_move not in ("L", "D"):
            raise ValueError(f"no value for outcome {outcome!r} with {to_move!r} to move")
        return cls.WIN if outcome == to_move else cls.LOSS

    # a str mixin formats as the member's name on some Python versions: always the value
    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


_NEGATED = {Value.WIN: Value.LOSS, Value.LOSS: Value.WIN, Value.DRAW: Value.DRAW,
            Value.UNKNOWN: Value.UNKNOWN}
