"""The public game API: :class:`Position` (immutable) and :class:`Game` (a move history).

>>> from solver import Board, Position
>>> pos = Position.start(Board.parse("2/3"))
>>> str(pos), pos.to_move, len(pos.legal_moves())
('2/3/4/3/2 L', 'L', 14)
>>> pos = pos.play("c1").play("e2")
>>> pos.legal_moves()
['a1', 'c3', 'c4', 'e1']
>>> pos.play("c2")
Traceback (most recent call last):
...
solver.rules.position.IllegalMoveError: c2 does not see Light's first stone c1 through an empty point (rule 2: the second stone must have a path to the first)
"""

from __future__ import annotations

from typing import Iterable, Iterator

import numpy as np

from . import core
from .board import Board, BoardError
from solver.util.errors import MeridiansError
from .notation import format_position, parse_position

__all__ = ["Position", "Game", "IllegalMoveError", "InvalidPositionError", "COLORS"]

COLORS = ("L", "D")
_NAME = {"L": "Light", "D": "Dark"}
_PHASES = {core.PH_FIRST: "first", core.PH_SECOND: "second", core.PH_NORMAL: "normal", core.PH_LOST: "lost"}


class IllegalMoveError(MeridiansError):
    """A move that the rules do not allow here; the message names the rule."""


class InvalidPositionError(MeridiansError):
    """A position that cannot arise in a game (stones overlap, or the player not to move
    has a dead group, which the engine formulation of RULES.md would have removed)."""


def _color(c: str) -> int:
    if c not in COLORS:
        raise ValueError(f"colour must be 'L' or 'D', not {c!r}")
    return COLORS.index(c)


def _cells(bb) -> Iterator[int]:
    """The set bits of a bitboard (array row or tuple of words), lowest first."""
    for i, word in enumerate(bb):
        word = int(word)
        while word:
            low = word & -word
            yield i * 64 + low.bit_length() - 1
            word ^= low


class Position:
    """A board, the stones on it and the player to move, "after removal".

    Positions are immutable; :meth:`play` returns a new one that remembers the positions
    before it in the same game, so that :attr:`outcome` can call a repetition a draw.
    Equality and hashing ignore that history.
    """

    __slots__ = ("board", "_st", "_side", "_history", "last_move", "removed", "_T")

    def __init__(
        self,
        board: Board | str | int,
        light: Iterable[str | int] = (),
        dark: Iterable[str | int] = (),
        to_move: str = "L",
    ):
        board = _as_board(board)
        side = _color(to_move)
        light_pts = {_point(board, p) for p in light}
        dark_pts = {_point(board, p) for p in dark}
        both = light_pts & dark_pts
        if both:
            names = ", ".join(sorted(board.name_of(p) for p in both))
            raise InvalidPositionError(f"points with both a Light and a Dark stone: {names}")
        self.board = board
        self._T = core.tables(board)
        st = core.new_position(self._T)
        for c, pts in enumerate((light_pts, dark_pts)):
            for p in pts:
                x = int(self._T.cell_of[p])
                st[c, x >> 6] |= np.uint64(1) << np.uint64(x & 63)
        st.flags.writeable = False
        self._st = st
        self._side = side
        self._history: tuple = ()
        #: the point played to reach this position (a name), or None
        self.last_move: str | None = None
        #: the stones the last move removed (names)
        self.removed: frozenset[str] = frozenset()
        self._validate()

    def _validate(self) -> None:
        other = 1 - self._side
        if core.count(self._st, other) >= 2:
            dead = self._points(self._dead_bb(other))
            if dead:
                names = ", ".join(sorted(self.board.name_of(p) for p in dead))
                raise InvalidPositionError(
                    f"{_NAME[COLORS[other]]}, not to move, has dead stones ({names}): "
                    "a position is given after the mover's dead groups are removed"
                )

    # -- construction -------------------------------------------------------------------
    @classmethod
    def start(cls, board: Board | str | int) -> "Position":
        """The empty board with Light to move."""
        return cls(board)

    @classmethod
    def parse(cls, text: str) -> "Position":
        """A position from its notation, such as ``"2/3/4/3/2 L"``."""
        board, light, dark, side = parse_position(text)
        return cls(board, light, dark, side)

    @classmethod
    def from_arrays(
        cls,
        board: Board | str | int,
        bitboards: np.ndarray,
        side_index: int,
        *,
        history: Iterable[tuple] = (),
        check: bool = True,
    ) -> "Position":
        """A position from the compiled kernels' layout (:mod:`solver.rules.core`), for searches
        and file readers that hold positions as arrays.

        ``bitboards``: a ``(2, w)`` uint64 array, row 0 Light, row 1 Dark, one bit per
        cell (as :attr:`bitboards` gives it); kept as it is when read-only, else copied.
        ``side_index``: the colour to move, 0 (Light) or 1 (Dark).  ``history``: the
        :attr:`key` of each earlier position of the game, oldest first (repeating one is
        a draw).  ``check`` (default): raise :class:`InvalidPositionError` for stones
        off the board, on both colours, or a dead group of the player not to move, as the
        constructor does; without it (a reader of millions of positions it wrote itself)
        only the array's shape and type are checked.
        """
        board = _as_board(board)
        T = core.tables(board)
        st = bitboards
        if not isinstance(st, np.ndarray) or st.dtype != np.uint64 or st.shape != (2, T.w):
            raise InvalidPositionError(
                f"the stones of a {board.name} position are a (2, {T.w}) uint64 array, not "
                + (f"a {st.shape} {st.dtype} array" if isinstance(st, np.ndarray) else type(st).__name__))
        if side_index not in (0, 1):
            raise InvalidPositionError(f"the colour to move is 0 (Light) or 1 (Dark), not {side_index!r}")
        if st.flags.writeable or not st.flags.c_contiguous:
            st = np.ascontiguousarray(st).copy()
            st.flags.writeable = False
        pos = object.__new__(cls)
        pos.board, pos._T, pos._st, pos._side = board, T, st, int(side_index)
        pos._history = tuple(history)
        pos.last_move, pos.removed = None, frozenset()
        if check:
            full = np.array(T.full, np.uint64)
            if np.any(st & ~full):
                raise InvalidPositionError(f"stones off the {board.name} board")
            both = pos._points(st[0] & st[1])
            if both:
                names = ", ".join(sorted(board.name_of(p) for p in both))
                raise InvalidPositionError(f"points with both a Light and a Dark stone: {names}")
            pos._validate()
        return pos

    def _child(self, st: np.ndarray, side: int, move: str, removed: frozenset[str]) -> "Position":
        child = object.__new__(Position)
        child.board = self.board
        child._T = self._T
        st.flags.writeable = False
        child._st = st
        child._side = side
        child._history = self._history + (self.key,)
        child.last_move = move
        child.removed = removed
        return child

    # -- reading ------------------------------------------------------------------------
    @property
    def bitboards(self) -> np.ndarray:
        """The stones in the compiled kernels' layout (:mod:`solver.rules.core`): a read-only
        ``(2, w)`` uint64 array, row 0 Light, row 1 Dark, one bit per cell.  Searches
        load it as it is; :meth:`array` gives a copy to change."""
        return self._st

    @property
    def side_index(self) -> int:
        """The colour to move as the kernels number it: 0 Light, 1 Dark."""
        return self._side

    def earlier(self) -> list["Position"]:
        """The positions before this one in its game, oldest first (a position that
        repeats one of them is a draw).  They carry no history of their own."""
        return [Position.from_arrays(self.board, np.frombuffer(st, np.uint64).reshape(2, self._T.w),
                                     side, check=False)
                for _, st, side in self._history]

    @property
    def to_move(self) -> str:
        """``'L'`` or ``'D'``."""
        return COLORS[self._side]

    @property
    def phase(self) -> str:
        """The phase of the player to move: ``'first'``, ``'second'``, ``'normal'`` or
        ``'lost'`` (no stones while the opponent has two or more)."""
        return _PHASES[core.phase(self._st, self._side)]

    def _points(self, bb) -> list[int]:
        """The points (board indices) of the cells set in a bitboard."""
        return [int(self._T.point_of[x]) for x in _cells(bb)]

    def stones(self, color: str) -> frozenset[str]:
        """The points holding ``color``'s stones, by name."""
        return frozenset(self.board.name_of(p) for p in self._points(self._st[_color(color)]))

    def groups(self, color: str) -> list[frozenset[str]]:
        """``color``'s groups (sets of point names), ordered by their lowest point."""
        c = _color(color)
        label = np.empty(64 * self._T.w, dtype=np.int32)
        ng = core.group_labels(self._T, self._st, c, label)
        out: list[set[int]] = [set() for _ in range(ng)]
        for x in _cells(self._st[c]):
            out[label[x]].add(int(self._T.point_of[x]))
        groups = sorted(out, key=min)
        return [frozenset(self.board.name_of(p) for p in g) for g in groups]

    def _dead_bb(self, c: int) -> tuple:
        return core.dead_bb(self._T, self._st, c)

    def dead_groups(self, color: str) -> list[frozenset[str]]:
        """``color``'s groups that have no path (a lone stone or a single group is dead).

        Only the player to move can have dead groups (their opponent's last move killed
        them); they are removed after the player's placement unless it rescues them.
        """
        dead = {self.board.name_of(p) for p in self._points(self._dead_bb(_color(color)))}
        return [g for g in self.groups(color) if g <= dead]

    def marked_dead(self) -> frozenset[str]:
        """The stones of dead groups of players past their first stone: what pictures mark.

        A lone opening stone is a dead group by definition but is never removed, so it is
        not marked."""
        out: set[str] = set()
        for c in COLORS:
            if core.count(self._st, _color(c)) >= 2:
                out.update(*self.dead_groups(c))
        return frozenset(out)

    def legal_moves(self) -> list[str]:
        """The points the player to move may play, by name, in board order (empty when
        the game is over)."""
        if self.outcome is not None:
            return []
        return [self.board.name_of(p) for p in self._legal()]

    def _legal(self) -> list[int]:
        """The legal points, in board order."""
        return sorted(self._points(core.legal_bb(self._T, self._st, self._side)))

    @property
    def outcome(self) -> str | None:
        """``None`` while the game goes on, else ``'L'`` or ``'D'`` (the winner), or
        ``'draw'`` when this position repeats an earlier one of the same game."""
        if self.key in self._history:
            return "draw"
        r = core.outcome(self._T, self._st, self._side)
        return None if r == core.NO_RESULT else COLORS[r]

    @property
    def outcome_reason(self) -> str | None:
        """Why the game is over, in words, or None."""
        result = self.outcome
        if result is None:
            return None
        if result == "draw":
            return "the position repeated"
        loser = COLORS[1 - COLORS.index(result)]
        if core.count(self._st, COLORS.index(loser)) == 0:
            return f"{_NAME[loser]} has no stones left"
        return f"{_NAME[loser]} has no legal placement"

    @property
    def key(self) -> tuple:
        """A hashable identity of the position (board, stones, side)."""
        return (self.board.m, self._st.tobytes(), self._side)

    def array(self) -> np.ndarray:
        """A copy of the stones in the compiled kernels' layout (:mod:`solver.rules.core`): a
        ``(2, w)`` uint64 array, row 0 Light, row 1 Dark, one bit per cell."""
        return self._st.copy()

    def zobrist(self) -> int:
        """The 64-bit Zobrist key of the position."""
        return int(self.zobrist_symmetric()[0])

    def zobrist_symmetric(self) -> np.ndarray:
        """The Zobrist keys of the position under each of the board's symmetries (the
        first is the identity); their minimum is shared by all symmetric positions."""
        out = np.empty(len(self.board.symmetries), dtype=np.uint64)
        core.zobrist_keys(self._T, self._st, self._side, out)
        return out

    def transform(self, s: int) -> "Position":
        """The position mapped by symmetry number ``s`` of the board."""
        out = core.new_position(self._T)
        core.transform(self._T, s, self._st, out)
        return Position(self.board, self._points(out[0]), self._points(out[1]), self.to_move)

    # -- playing ------------------------------------------------------------------------
    def play(self, move: str) -> "Position":
        """The position after the player to move places a stone on ``move`` (a point name).

        Raises :class:`IllegalMoveError`, whose message names the rule the move breaks.
        """
        p = self._check_move(move)
        st = self._st.copy()
        _, removed = core.play(self._T, st, self._side, int(self._T.cell_of[p]))
        gone = frozenset(self.board.name_of(q) for q in self._points(removed))
        return self._child(st, 1 - self._side, self.board.name_of(p), gone)

    def _check_move(self, move: str) -> int:
        if not isinstance(move, str):
            raise IllegalMoveError(f"a move is a point name such as 'c2', not {move!r}")
        try:
            p = self.board.index(move)
        except BoardError as e:
            raise IllegalMoveError(str(e)) from None
        name = self.board.name_of(p)
        result = self.outcome
        if result is not None:
            raise IllegalMoveError(f"the game is over ({self.outcome_reason}); {name} cannot be played")
        # one bit of the legal bitboard, not the sorted list of legal points: the
        # certificate writer plays every legal move of millions of positions
        cell = int(self._T.cell_of[p])
        if int(core.legal_bb(self._T, self._st, self._side)[cell >> 6]) >> (cell & 63) & 1:
            return p
        me = _NAME[self.to_move]
        if name in self.stones("L") or name in self.stones("D"):
            raise IllegalMoveError(f"{name} is occupied")
        if self.phase == "second":
            (first,) = self.stones(self.to_move)
            raise IllegalMoveError(
                f"{name} does not see {me}'s first stone {first} through an empty point "
                "(rule 2: the second stone must have a path to the first)"
            )
        raise IllegalMoveError(
            f"{name} is on no line with a {me} stone without an opponent's stone between "
            "(rule 3b)"
        )

    # -- display ------------------------------------------------------------------------
    def __str__(self) -> str:
        return format_position(self.board, self._points(self._st[0]), self._points(self._st[1]), self.to_move)

    def __repr__(self) -> str:
        return f"Position({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def diagram(self, coordinates: bool = True) -> str:
        """An ASCII picture, top row first: ``L``/``D`` stones, ``.`` empty, ``x``/``X``
        a dead Light/Dark stone, row letters at both ends and column numbers below."""
        from solver.app.diagram import ascii_diagram  # display only; the core does not need it

        return ascii_diagram(self, coordinates=coordinates)

    def svg(self, **kwargs) -> str:
        """An SVG picture (see :func:`solver.app.svg.position_svg` for the options)."""
        from solver.app.svg import position_svg

        dead = [self.board.index(n) for n in self.marked_dead()]
        last = self.board.index(self.last_move) if self.last_move else None
        return position_svg(
            self.board, self._points(self._st[0]), self._points(self._st[1]), dead=dead, last=last, **kwargs
        )

    def _repr_svg_(self) -> str:
        return self.svg()


class Game:
    """A game from a start position: the moves, the positions, and the result, with
    repetition of a position ending the game in a draw.

    >>> g = Game(Board.parse("2/3"))
    >>> for m in ["c1", "e2", "c3"]:
    ...     _ = g.play(m)
    >>> g.moves, g.position.to_move, g.outcome
    (['c1', 'e2', 'c3'], 'D', None)
    """

    def __init__(self, start: Position | Board | str | int):
        """Start from a Position, a position string, or a board (its empty position)."""
        if isinstance(start, Position):
            self.positions = [start]
        elif isinstance(start, str) and " " in start.strip():
            self.positions = [Position.parse(start)]
        else:
            self.positions = [Position.start(start)]
        self.moves: list[str] = []

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def outcome(self) -> str | None:
        return self.position.outcome

    def play(self, move: str) -> Position:
        pos = self.position.play(move)
        self.positions.append(pos)
        self.moves.append(pos.last_move)
        return pos

    def _repr_svg_(self) -> str:
        """The current position's picture (:meth:`Position.svg`, the last move marked), which
        Jupyter shows for a Game as it does for a Position."""
        return self.position.svg()


def _as_board(board: Board | str | int) -> Board:
    if isinstance(board, Board):
        return board
    if isinstance(board, int):
        return Board.get(board)
    return Board.parse(board)


def _point(board: Board, p: str | int) -> int:
    if isinstance(p, str):
        return board.index(p)
    p = int(p)
    if not 0 <= p < board.size:
        raise BoardError(f"point index {p} is not on board {board.name}")
    return p
