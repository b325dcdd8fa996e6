"""Board geometry of Meridians: points, names, neighbours, lines and symmetries.

A board ``m/m+1`` is the hexagon of the triangular lattice with two opposite sides of
``m`` points and four sides of ``m+1`` points (RULES.md).  Everything here is computed
once, in plain Python, from the axial coordinates that RULES.md fixes:

* ``y`` = 0 for the top row, ``x`` the 0-based column within the row;
* ``r = y - m`` and ``q = x - min(r, 0)``;
* the board is ``{-m <= r <= m, 0 <= q <= 2m-1, 0 <= q+r <= 2m-1}``.

Points are indexed in notation order: row ``a`` (the bottom row) first, left to right,
then row ``b`` and so on.  Along each of the six directions the index is monotonic,
which the bitboard kernels rely on.

>>> b = Board(2)
>>> b.name, b.size, b.names[:3]
('2/3', 14, ('a1', 'a2', 'b1'))
>>> sorted(b.name_of(i) for i in b.neighbours[b.index("c2")])
['b1', 'b2', 'c1', 'c3', 'd1', 'd2']
>>> len(b.symmetries)
4
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from itertools import product

from solver.util.errors import MeridiansError

__all__ = ["Board", "BoardError", "MIN_M", "MAX_M", "DIRECTIONS"]

MIN_M = 1
MAX_M = 7

#: The six lattice directions as axial (dq, dr) offsets, in opposite pairs:
#: DIRECTIONS[d] and DIRECTIONS[d ^ 1] point in opposite ways along axis d // 2.
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))

_BOARD_RE = re.compile(r"^\s*([0-9]+)\s*/\s*([0-9]+)\s*$")


class BoardError(MeridiansError):
    """An unknown or unsupported board, or a point name that is not on the board."""


def _is_number(t: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also takes ``"²"``, which ``int`` refuses."""
    return t.isascii() and t.isdecimal()


def _small_int(digits: str, text: object) -> int:
    """``int(digits)`` for a board size; a number far beyond any board is refused here,
    before ``int`` meets Python's limit on the digits of an integer."""
    digits = digits.lstrip("0") or "0"
    if len(digits) > 3:
        raise BoardError(f"unsupported board {_shown(text)}: boards 1/2 to {MAX_M}/{MAX_M + 1} are supported")
    return int(digits)


def _rows_of_a_position(t: str) -> bool:
    """Whether ``t`` is the rows of a position (a position without its side letter)."""
    from .notation import parse_position  # the notation builds on boards: imported late

    if t.count("/") < 2:
        return False
    try:
        parse_position(t + " L")
    except ValueError:
        return False
    return True


def _shown(text: object, limit: int = 40) -> str:
    """``repr(text)``, cut to ``limit`` characters for a message of one short line."""
    r = repr(str(text))
    return r if len(r) <= limit else r[: limit - 4] + "...'"


class Board:
    """The geometry of one ``m/m+1`` board.  Immutable; use :meth:`get` to share instances."""

    def __init__(self, m: int):
        if not isinstance(m, int) or isinstance(m, bool):
            raise BoardError(f"board size must be an integer, not {m!r}")
        if not MIN_M <= m <= MAX_M:
            raise BoardError(f"unsupported board {m}/{m + 1}: boards 1/2 to 7/8 are supported")
        self.m = m
        self.name = f"{m}/{m + 1}"
        #: row widths from the top row (y = 0) to the bottom row
        self.row_widths: tuple[int, ...] = tuple(2 * m - abs(y - m) for y in range(2 * m + 1))

        coords: list[tuple[int, int]] = []  # (q, r) by point index
        names: list[str] = []
        for letter_index in range(2 * m + 1):  # row a = bottom row = largest y
            y = 2 * m - letter_index
            r = y - m
            for x in range(self.row_widths[y]):
                coords.append((x - min(r, 0), r))
                names.append(f"{chr(ord('a') + letter_index)}{x + 1}")
        self.coords: tuple[tuple[int, int], ...] = tuple(coords)
        self.names: tuple[str, ...] = tuple(names)
        self.size = len(coords)
        self._index = {c: i for i, c in enumerate(coords)}
        self._name_index = {n: i for i, n in enumerate(names)}
        assert self.size == 3 * m * m + m

        #: step[p][d]: the neighbour of p in direction d, or -1 off the board
        self.step: tuple[tuple[int, ...], ...] = tuple(
            tuple(self._index.get((q + dq, r + dr), -1) for dq, dr in DIRECTIONS) for q, r in coords
        )
        #: neighbours[p]: the adjacent points of p, in index order
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted(n for n in s if n >= 0)) for s in self.step
        )
        #: rays[p][d]: the points beyond p in direction d, nearest first
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
            tuple(self._walk(p, d) for d in range(6)) for p in range(self.size)
        )
        #: lines: every maximal line of the board (>= 2 points), as point tuples
        self.lines: tuple[tuple[int, ...], ...] = tuple(
            (p,) + self.rays[p][d]
            for d in (0, 2, 4)
            for p in range(self.size)
            if self.step[p][d ^ 1] < 0 and self.step[p][d] >= 0
        )
        self.symmetries: tuple[tuple[int, ...], ...] = _symmetries(self)

    def _walk(self, p: int, d: int) -> tuple[int, ...]:
        out = []
        p = self.step[p][d]
        while p >= 0:
            out.append(p)
            p = self.step[p][d]
        return tuple(out)

    # -- construction -------------------------------------------------------------------
    @staticmethod
    @lru_cache(maxsize=None)
    def get(m: int) -> "Board":
        """The shared :class:`Board` for ``m`` (boards are immutable, so one each is enough)."""
        return Board(m)

    @staticmethod
    def parse(text: str) -> "Board":
        """A board from its name, ``"6/7"``; also accepts ``"6-7"`` and the bare ``"6"``.
        Only ASCII digits count (``"²"`` is not a board); a position's rows without the
        side to move (``"2/3/4/3/2"``) are reported as such.

        >>> Board.parse("3/4").size
        30
        """
        if isinstance(text, Board):
            return text
        t = str(text).strip().replace("-", "/")
        if _is_number(t):
            return Board.get(_small_int(t, text))
        mt = _BOARD_RE.match(t)
        if not mt:
            if _rows_of_a_position(t):
                raise BoardError(f"{_shown(text)} has no side to move: a position is its rows, a space "
                                 f"and L or D, such as '2/3/4/3/2 L'")
            raise BoardError(f"unknown board {_shown(text)}: expected m/m+1, such as 6/7")
        m, m1 = _small_int(mt.group(1), text), _small_int(mt.group(2), text)
        if m1 != m + 1:
            raise BoardError(f"unknown board {_shown(text)}: the second number must be the first plus one")
        return Board.get(m)

    @staticmethod
    def from_row_widths(widths: list[int]) -> "Board":
        """The board whose rows, top to bottom, have these widths (used by the notation)."""
        if len(widths) % 2 == 0 or len(widths) < 3:
            raise BoardError(f"{len(widths)} rows do not make a board: a board has 2m+1 rows")
        m = (len(widths) - 1) // 2
        if not MIN_M <= m <= MAX_M:
            raise BoardError(f"unsupported board {m}/{m + 1}: boards 1/2 to 7/8 are supported")
        b = Board.get(m)
        if tuple(widths) != b.row_widths:
            expected = "/".join(map(str, b.row_widths))
            got = "/".join(map(str, widths))
            raise BoardError(f"row widths {got} do not match board {b.name} ({expected})")
        return b

    # -- names --------------------------------------------------------------------------
    def index(self, name: str) -> int:
        """The index of a point given by name, ``"c2"``; raises :class:`BoardError`."""
        try:
            return self._name_index[name.strip().lower()]
        except (KeyError, AttributeError):
            raise BoardError(f"unknown point {name!r} on board {self.name}") from None

    def name_of(self, p: int) -> str:
        return self.names[p]

    def near(self, points: Iterable[int], steps: int) -> set[int]:
        """The points within ``steps`` steps (neighbour to neighbour) of any of ``points``
        (indices), those included.

        >>> b = Board.get(2)
        >>> sorted(b.name_of(p) for p in b.near({b.index("a1")}, 1))
        ['a1', 'a2', 'b1', 'b2']
        """
        out = set(points)
        for _ in range(steps):
            out |= {q for p in out for q in self.neighbours[p]}
        return out

    def index_of_coords(self, q: int, r: int) -> int:
        """The index of the point at axial (q, r), or -1 off the board."""
        return self._index.get((q, r), -1)

    def row_col(self, p: int) -> tuple[int, int]:
        """(y, x) of a point: y = 0 for the top row, x the 0-based column."""
        q, r = self.coords[p]
        return r + self.m, q + min(r, 0)

    def __repr__(self) -> str:
        return f"Board({self.m})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and other.m == self.m

    def __hash__(self) -> int:
        return hash(("Board", self.m))

    def __reduce__(self):
        return (Board.get, (self.m,))


def _symmetries(board: Board) -> tuple[tuple[int, ...], ...]:
    """The permutations of the points that preserve the board and map lines to lines.

    Computed, not typed in: every integer linear map of the lattice that permutes the six
    directions, followed by the one translation that maps the board's centre onto itself,
    is tried; the maps that send the point set onto itself and every line onto a line are
    kept.  (tests/test_board.py checks against networkx that no other automorphism of the
    adjacency graph maps lines to lines.)  The identity comes first.
    """
    n = board.size
    dirs = set(DIRECTIONS)
    # centre of the board, doubled to stay in integers
    cq2 = sum(q for q, _ in board.coords) * 2 // n
    cr2 = sum(r for _, r in board.coords) * 2 // n
    line_sets = {frozenset(line) for line in board.lines}
    found: list[tuple[int, ...]] = []
    for a, b, c, d in product((-1, 0, 1), repeat=4):
        # (q, r) -> (a q + b r, c q + d r) must permute the six directions
        if {(a * dq + b * dr, c * dq + d * dr) for dq, dr in DIRECTIONS} != dirs:
            continue
        # translation fixing the centre: t = 2c - M(2c), halved
        tq2 = cq2 - (a * cq2 + b * cr2)
        tr2 = cr2 - (c * cq2 + d * cr2)
        if tq2 % 2 or tr2 % 2:
            continue
        perm = tuple(
            board.index_of_coords(a * q + b * r + tq2 // 2, c * q + d * r + tr2 // 2)
            for q, r in board.coords
        )
        if -1 in perm or len(set(perm)) != n:
            continue
        if {frozenset(perm[p] for p in line) for line in line_sets} != line_sets:
            continue
        found.append(perm)
    identity = tuple(range(n))
    found.sort(key=lambda s: (s != identity, s))
    return tuple(found)
