"""Near-duplicate puzzles: positions of one board that differ in few points.

Two puzzle positions of the same board *differ* in a point when the point's content is
not the same in both: a Light stone, a Dark stone or empty.  The side to move does not
count, nor does the target.  A set of puzzles should never hold two whose positions
differ in :data:`WITHIN` points or fewer (issue 21): such puzzles are one idea shown
twice (the old generator took several targets from one seed position, or reshaped it
a few stones at a time).

>>> difference("2/1D1/4/L2/2 L", "2/1D1/4/L2/2 D")
0
>>> difference("2/1D1/4/L2/2 L", "2/3/4/L2/2 L")
1
>>> near_duplicates(["2/1D1/4/L2/2 L", "2/3/4/3/2 L", "2/1D1/4/L2/2 D"], within=1)
[(0, 2)]
>>> duplicate_rate(["2/1D1/4/L2/2 L", "2/3/4/3/2 L", "2/1D1/4/L2/2 D"], within=2)
0.6666666666666666

The counts are numpy comparisons of one row of point contents against all the rows
before it: the cost is O(n^2 * points) machine operations, not Python steps (500
puzzles of 6/7 take milliseconds).
"""

from __future__ import annotations

from typing import Iterable, Union

import numpy as np

from solver import MeridiansError, Position

from .record import Puzzle

__all__ = ["WITHIN", "BoardMismatchError", "difference", "near_duplicates", "duplicate_rate", "NearIndex",
           "contents"]

#: the largest difference, in points, at which two positions count as near-duplicates
WITHIN = 8

#: what the functions take: a puzzle, a position, or a position's notation
PositionLike = Union[Puzzle, Position, str]

_EMPTY, _LIGHT, _DARK = 0, 1, 2


class BoardMismatchError(MeridiansError):
    """Two positions compared are not of the same board."""


def _position(p: PositionLike) -> Position:
    if isinstance(p, Position):
        return p
    if isinstance(p, Puzzle):
        return p.to_position()
    return Position.parse(p)


def contents(p: PositionLike) -> tuple[str, np.ndarray]:
    """``(board name, contents)``: one int8 a point in board order, 0 empty, 1 Light,
    2 Dark (raises ``ValueError`` for bad notation)."""
    pos = _position(p)
    board = pos.board
    row = np.zeros(board.size, np.int8)
    for colour, code in (("L", _LIGHT), ("D", _DARK)):
        for name in pos.stones(colour):
            row[board.index(name)] = code
    return board.name, row


def difference(a: PositionLike, b: PositionLike) -> int:
    """The number of points whose content (Light, Dark, empty) differs between the
    positions ``a`` and ``b``; the side to move counts for nothing.  Raises
    :class:`BoardMismatchError` when they are not of the same board."""
    board_a, ra = contents(a)
    board_b, rb = contents(b)
    if board_a != board_b:
        raise BoardMismatchError(f"cannot compare a {board_a} position with a {board_b} one")
    return int(np.count_nonzero(ra != rb))


def _rows(puzzles: Iterable[PositionLike]) -> tuple[list[str], list[np.ndarray]]:
    boards, rows = [], []
    for p in puzzles:
        b, r = contents(p)
        boards.append(b)
        rows.append(r)
    return boards, rows


def _by_board(boards: list[str]) -> dict[str, np.ndarray]:
    out: dict[str, list[int]] = {}
    for i, b in enumerate(boards):
        out.setdefault(b, []).append(i)
    return {b: np.array(ix) for b, ix in out.items()}


def near_duplicates(puzzles: Iterable[PositionLike], within: int = WITHIN) -> list[tuple[int, int]]:
    """Every pair ``(i, j)``, ``i < j``, of positions of the same board that differ in
    ``within`` points or fewer, sorted.  Positions of different boards are never a
    pair."""
    boards, rows = _rows(puzzles)
    pairs: list[tuple[int, int]] = []
    for ix in _by_board(boards).values():
        if len(ix) < 2:
            continue
        m = np.stack([rows[i] for i in ix])
        for k in range(1, len(ix)):
            near = np.flatnonzero(np.count_nonzero(m[:k] != m[k], axis=1) <= within)
            pairs.extend((int(ix[i]), int(ix[k])) for i in near)
    return sorted(pairs)


def duplicate_rate(puzzles: Iterable[PositionLike], within: int = WITHIN) -> float:
    """The share of the positions that differ in ``within`` points or fewer from an
    *earlier* position of the same board in the sequence (0.0 for none)."""
    puzzles = list(puzzles)
    if not puzzles:
        return 0.0
    later = {j for _, j in near_duplicates(puzzles, within)}
    return len(later) / len(puzzles)


class NearIndex:
    """The positions of a set as it grows, for the question "does this one differ from
    a position already in the set in ``within`` points or fewer?".

    >>> ix = NearIndex(["2/1D1/4/L2/2 L"], within=1)
    >>> ix.near("2/3/4/L2/2 D"), ix.near("2/3/4/3/2 L")
    (0, None)
    """

    def __init__(self, positions: Iterable[PositionLike] = (), within: int = WITHIN):
        self.within = within
        self.board: str | None = None
        self._rows = np.zeros((0, 0), np.int8)
        self._n = 0
        for p in positions:
            self.add(p)

    def __len__(self) -> int:
        return self._n

    def _row(self, p: PositionLike) -> tuple[str, np.ndarray]:
        board, row = contents(p)
        if self.board is not None and board != self.board:
            raise BoardMismatchError(f"a {board} position among {self.board} ones")
        return board, row

    def near(self, p: PositionLike) -> int | None:
        """The index of the first position held that differs from ``p`` in ``within``
        points or fewer; None if there is none."""
        _, row = self._row(p)
        if not self._n:
            return None
        hits = np.flatnonzero(np.count_nonzero(self._rows[: self._n] != row, axis=1) <= self.within)
        return int(hits[0]) if len(hits) else None

    def add(self, p: PositionLike) -> None:
        """Hold ``p`` too (whether or not it is near another)."""
        board, row = self._row(p)
        if self.board is None:
            self.board = board
            self._rows = np.zeros((16, len(row)), np.int8)
        if self._n == len(self._rows):  # doubling: n additions cost O(n) copies in all
            self._rows = np.concatenate([self._rows, np.zeros_like(self._rows)])
        self._rows[self._n] = row
        self._n += 1
