"""Seeded random games: the positions that tests, benchmarks and measurements draw.

One rule everywhere: a random game starts from the empty board (or a given position) and
at every ply draws its move with ``rng.choice(position.legal_moves())`` (moves in board
order), one draw per ply, until the game ends.  A seed therefore fixes the game, and the
committed files that name a seed (benchmarks' positions, results/solutions/*-growth.json)
are reproduced by it.  ``seed`` may also be a ``random.Random`` already in use, so that
several positions come from one sequence of draws (:func:`random_positions`).

>>> from solver import Board
>>> pos = random_position(Board.parse("2/3"), 4, seed=1)
>>> len(pos.stones("L")) + len(pos.stones("D")) <= 4, pos == random_position("2/3", 4, 1)
(True, True)
>>> [empty_points(p) for p in random_game("2/3", seed=1, plies=3)]
[14, 13, 12, 11]

(:mod:`solver.reference`'s own random games, in ``scripts/make_test_data.py``, draw from
the reference's moves instead: the golden files must not depend on this package.)
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from .board import Board
from .position import Position

__all__ = ["random_game", "random_position", "random_positions", "endgames", "empty_points", "parse_counts"]


def _rng(seed: int | random.Random) -> random.Random:
    return seed if isinstance(seed, random.Random) else random.Random(seed)


def random_game(board: Board | str, seed: int | random.Random, *, plies: int | None = None,
                start: Position | None = None) -> Iterator[Position]:
    """The positions of a seeded random game on ``board``: the start (the empty board, or
    ``start``), then the position after each move, until the game ends (its last position
    has an outcome) or after ``plies`` moves."""
    rng = _rng(seed)
    pos = Position.start(board) if start is None else start
    yield pos
    n = 0
    while pos.outcome is None and (plies is None or n < plies):
        pos = pos.play(rng.choice(pos.legal_moves()))
        n += 1
        yield pos


def random_position(board: Board | str, plies: int, seed: int | random.Random) -> Position:
    """The position after ``plies`` random moves from the empty board (fewer if the game
    ends first: then the position has an outcome)."""
    for pos in random_game(board, seed, plies=plies):
        pass  # only the last position of the game is wanted
    return pos


def random_positions(board: Board | str, count: int, plies: int, seed: int = 1) -> list[Position]:
    """``count`` positions ``plies`` moves into random games drawn one after the other
    from one generator seeded with ``seed``; a game that ends before is passed over.
    Raises ValueError when games that long are too rare (100 tries a position)."""
    rng = random.Random(seed)
    out: list[Position] = []
    for _ in range(100 * count + 100):
        if len(out) == count:
            return out
        pos = random_position(board, plies, rng)
        if pos.outcome is None:
            out.append(pos)
    if len(out) < count:
        raise ValueError(f"only {len(out)} of {count} random games on {Position.start(board).board.name} "
                         f"last {plies} plies")
    return out


def endgames(board: Board | str, count: int, back: int, seed: int) -> list[Position]:
    """``count`` positions ``back`` plies before the end of random games drawn from one
    generator seeded with ``seed`` (a game of ``back`` plies or fewer is passed over),
    each as a fresh game: no earlier positions to repeat."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        p, seen = Position.start(board), []
        while p.outcome is None:
            seen.append(p)
            p = p.play(rng.choice(p.legal_moves()))
        if len(seen) > back:
            out.append(Position.parse(str(seen[-back])))
    return out


def empty_points(position: Position) -> int:
    """The number of points without a stone."""
    return position.board.size - len(position.stones("L")) - len(position.stones("D"))


def parse_counts(text: str) -> list[int]:
    """Counts of empty points as scripts take them (``--empty``): ``'20-40:4'`` is 20,
    24, ..., 40 and ``'20,30'`` is 20, 30.  ValueError naming the option otherwise.

    >>> parse_counts("12-18:3"), parse_counts("7,9")
    ([12, 15, 18], [7, 9])
    """
    try:
        if "-" in text:
            span, _, step = text.partition(":")
            lo, hi = (int(x) for x in span.split("-"))
            counts = list(range(lo, hi + 1, int(step or 1)))
        else:
            counts = [int(x) for x in text.split(",")]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise ValueError(f"--empty {text!r}: give LO-HI[:STEP] or a comma-separated list of positive counts")
    return counts
