"""The opening database: the exact value of every position of a solved board's first plies.

One file a board, ``solver/data/openings-<m>-<m+1>.npz`` (built by
``scripts/build_opening_db.py``, shipped inside the package and found through
:mod:`importlib.resources`), holding sorted canonical keys and, for each, the value for
the player to move, where the value came from and the effort of the proof that gave it.

**Key.**  A position's key packs its stones exactly: bit 0 the side to move (1: Dark),
bits ``1 .. n`` Light's points, bits ``n+1 .. 2n`` Dark's points (``n`` points on the
board), and the canonical key is the least of these over the board's symmetries
(:attr:`solver.rules.board.Board.symmetries`).  It is not a hash: two positions have the same
canonical key exactly when one is the other under a symmetry of the board, so no lookup
can ever return another position's value (a 64-bit Zobrist key would need the stones
stored beside it to rule out a collision; this key *is* the stones).  It fits in 64 bits
while ``2n + 1 <= 64``: boards up to 3/4 (30 points), the boards the database covers.

**Values.**  For the player to move in the position as a fresh game (no earlier
positions), as :func:`solver.app.openings.solve_openings` solves its jobs; only wins and
losses are stored, which hold under any repetition rule.

**Storage.**  Uncompressed ``.npz`` (sorted ``keys`` uint64, ``values`` uint8,
``sources`` uint8, ``nodes`` uint64, ``seconds`` float32, ``meta`` the UTF-8 JSON of
the board, the plies, the counts and the build's provenance).  A lookup is a binary
search (:func:`numpy.searchsorted`): its cost grows with the logarithm of the entries,
not with the file.  Measured against SQLite (a table with an integer primary key) on
the 2/3 file: see docs/solving.md "Opening database".

>>> from solver import Position
>>> p = Position.parse("2/3/4/3/2 L").play("a1")
>>> position_key(p) == position_key(p.transform(1)), position_key(p) != position_key(Position.parse("2/3/4/3/2 L"))
(True, True)
"""

from __future__ import annotations

import io
import json
import os
import time
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from solver.rules.board import Board
from solver.util.errors import MeridiansError
from solver.util.files import write_atomic
from solver.rules.position import Position
from solver.search.values import Value

__all__ = [
    "DatabaseError", "Entry", "OpeningDatabase", "position_key", "position_of_key", "database_for", "lookup_entry",
    "database_solution", "SOURCES", "MAX_POINTS", "FORMAT", "known_moves", "database_line",
]

#: the largest board (in points) whose packed key fits in 64 bits: 2n + 1 <= 64
MAX_POINTS = 31
#: the file format's version, in the meta
FORMAT = 1
#: where an entry's value came from, by the code stored in ``sources``
SOURCES = ("dfpn", "alphabeta", "rules", "children", "record")
_VALUE_CODE = {Value.WIN: 1, Value.LOSS: 2}
_CODE_VALUE = {1: Value.WIN, 2: Value.LOSS}
_ARRAYS = ("keys", "values", "sources", "nodes", "seconds", "meta")


class DatabaseError(MeridiansError):
    """An opening database file that cannot be used (missing, truncated, corrupt, or not
    one of ours); the message starts with the file's path."""


@dataclass(frozen=True)
class Entry:
    """One position's record: ``value`` for the player to move, ``source`` one of
    :data:`SOURCES` (``'children'``: the negamax of the entries of its moves), ``nodes``
    and ``seconds`` the effort of the proof that gave the value (for ``'children'`` the
    sum of the efforts of the children it rests on)."""

    value: Value
    source: str
    nodes: int
    seconds: float


# -- keys --------------------------------------------------------------------------------
def _points(position: Position, color: str) -> list[int]:
    board = position.board
    return [board.index(name) for name in position.stones(color)]


def position_key(position: Position) -> int | None:
    """The canonical key of ``position`` (see the module docstring): equal for positions
    that are the same up to a symmetry of the board, different otherwise (the side to
    move included).  None on a board of more than :data:`MAX_POINTS` points."""
    board = position.board
    n = board.size
    if n > MAX_POINTS:
        return None
    light, dark = _points(position, "L"), _points(position, "D")
    side = 1 if position.to_move == "D" else 0
    best = None
    for perm in board.symmetries:
        k = side
        for p in light:
            k |= 1 << (1 + perm[p])
        for p in dark:
            k |= 1 << (1 + n + perm[p])
        if best is None or k < best:
            best = k
    return best


def position_of_key(board: Board, key: int) -> Position:
    """The position a key packs (one of the symmetric images a canonical key stands
    for), as a fresh game: :func:`position_key`'s inverse up to symmetry.

    >>> p = Position.parse("2/3/L3/3/2 D")
    >>> position_key(position_of_key(p.board, position_key(p))) == position_key(p)
    True
    """
    n = board.size
    light = [i for i in range(n) if key >> (1 + i) & 1]
    dark = [i for i in range(n) if key >> (1 + n + i) & 1]
    return Position(board, light, dark, "D" if key & 1 else "L")


# -- the database ------------------------------------------------------------------------
class OpeningDatabase:
    """The entries of one board, sorted by key.  Build one with :meth:`from_entries`,
    write it with :meth:`save`, read it with :meth:`load`."""

    def __init__(self, keys: np.ndarray, values: np.ndarray, sources: np.ndarray, nodes: np.ndarray,
                 seconds: np.ndarray, meta: dict, path: str | None = None):
        self.keys, self.values, self.sources = keys, values, sources
        self.nodes, self.seconds = nodes, seconds
        self.meta = meta
        self.path = path
        self.board = Board.parse(meta["board"])

    @classmethod
    def from_entries(cls, board: Board, entries: dict[int, Entry], meta: dict) -> OpeningDatabase:
        """A database of ``entries`` (canonical key -> Entry) on ``board``; ``meta`` is
        stored with the board, the format and the count added."""
        order = sorted(entries)
        for k in order:
            if entries[k].value not in _VALUE_CODE:
                raise ValueError(f"only wins and losses are stored, not {entries[k].value}")
        keys = np.array(order, dtype=np.uint64)
        values = np.array([_VALUE_CODE[entries[k].value] for k in order], dtype=np.uint8)
        sources = np.array([SOURCES.index(entries[k].source) for k in order], dtype=np.uint8)
        nodes = np.array([entries[k].nodes for k in order], dtype=np.uint64)
        seconds = np.array([entries[k].seconds for k in order], dtype=np.float32)
        meta = dict(meta, board=board.name, format=FORMAT, entries=len(order))
        return cls(keys, values, sources, nodes, seconds, meta)

    def __len__(self) -> int:
        return len(self.keys)

    def _index(self, key: int) -> int:
        i = int(np.searchsorted(self.keys, np.uint64(key)))
        return i if i < len(self.keys) and int(self.keys[i]) == key else -1

    def get(self, position: Position) -> Entry | None:
        """The entry of ``position`` (any of its symmetric images), or None."""
        if position.board != self.board:
            return None
        key = position_key(position)
        return None if key is None else self.entry_of_key(key)

    def entry_of_key(self, key: int) -> Entry | None:
        """The entry of a canonical key, or None."""
        i = self._index(key)
        if i < 0:
            return None
        return Entry(_CODE_VALUE[int(self.values[i])], SOURCES[int(self.sources[i])],
                     int(self.nodes[i]), float(self.seconds[i]))

    def __contains__(self, position: Position) -> bool:
        return self.get(position) is not None

    def to_bytes(self) -> bytes:
        """The ``.npz`` file's bytes (uncompressed)."""
        buf = io.BytesIO()
        meta = np.frombuffer(json.dumps(self.meta, sort_keys=True).encode("utf-8"), dtype=np.uint8)
        np.savez(buf, keys=self.keys, values=self.values, sources=self.sources, nodes=self.nodes,
                 seconds=self.seconds, meta=meta)
        return buf.getvalue()

    def save(self, path: str | os.PathLike) -> None:
        """Write the database to ``path`` atomically."""
        write_atomic(path, self.to_bytes())

    @classmethod
    def load(cls, path: str | os.PathLike) -> OpeningDatabase:
        """Read and check a database file.  Raises :class:`DatabaseError` (a ValueError)
        for a file that is missing, truncated or corrupt (the zip's CRC-32 of every array
        is checked as it is read), or whose arrays disagree (lengths, keys not strictly
        increasing, codes out of range, meta not ours)."""
        path = os.fspath(path)

        def fail(problem: str) -> DatabaseError:
            return DatabaseError(f"{path}: opening database: {problem}")

        try:
            with np.load(path, allow_pickle=False) as z:
                missing = [a for a in _ARRAYS if a not in z.files]
                if missing:
                    raise fail(f"no array {missing[0]!r}")
                arrays = {a: z[a] for a in _ARRAYS}
        except DatabaseError:
            raise
        except FileNotFoundError:
            raise fail("no such file") from None
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as e:
            raise fail(f"truncated or corrupt ({type(e).__name__}: {e})") from None
        try:
            meta = json.loads(arrays["meta"].tobytes().decode("utf-8"))
            board = Board.parse(meta["board"])
            if meta.get("format") != FORMAT:
                raise fail(f"format {meta.get('format')!r}, this version reads {FORMAT}")
        except DatabaseError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise fail(f"bad meta ({e})") from None
        keys = arrays["keys"]
        n = len(keys)
        dtypes = {"keys": np.uint64, "values": np.uint8, "sources": np.uint8, "nodes": np.uint64,
                  "seconds": np.float32}
        for a, dt in dtypes.items():
            if arrays[a].dtype != dt or arrays[a].shape != (n,):
                raise fail(f"array {a!r} is {arrays[a].dtype}{arrays[a].shape}, not {np.dtype(dt)}({n},)")
        if meta.get("entries") != n:
            raise fail(f"{n} keys, the meta says {meta.get('entries')}")
        if n > 1 and not bool(np.all(keys[1:] > keys[:-1])):
            raise fail("keys not strictly increasing")
        if n and int(keys[-1]) >> (2 * board.size + 1):
            raise fail(f"a key too large for board {board.name}")
        if not bool(np.all((arrays["values"] >= 1) & (arrays["values"] <= 2))):
            raise fail("a value code out of range")
        if not bool(np.all(arrays["sources"] < len(SOURCES))):
            raise fail("a source code out of range")
        return cls(keys, arrays["values"], arrays["sources"], arrays["nodes"], arrays["seconds"], meta, path)


def database_file(board: Board) -> str:
    """The file name of ``board``'s database in the package: ``openings-2-3.npz``."""
    return f"openings-{board.name.replace('/', '-')}.npz"


@lru_cache(maxsize=None)
def database_for(board: Board) -> OpeningDatabase | None:
    """The shipped database of ``board`` (read once, then kept), or None when the package
    has none for it.  Found through :mod:`importlib.resources` (``solver.data``), so an
    installed package finds its own copy.  A shipped file that is corrupt raises
    :class:`DatabaseError`."""
    if board.size > MAX_POINTS:
        return None
    resource = resources.files("solver.data").joinpath(database_file(board))
    if not resource.is_file():
        return None
    with resources.as_file(resource) as path:
        return OpeningDatabase.load(path)


def lookup_entry(position: Position) -> Entry | None:
    """The shipped database's entry of ``position``, or None (no database for its board,
    or the position is not in it).  A position that is over (or repeats an earlier one
    of its game) is never answered from the database: its value is the rules'."""
    if position.outcome is not None:
        return None
    db = database_for(position.board)
    return None if db is None else db.get(position)


def database_solution(position: Position):
    """``meridians solve`` from the database: an :class:`~solver.app.openings.OpeningSolution`
    when the database holds ``position`` and every move's position (each class of moves
    reported with its entry's effort, method ``'database'``), else None."""
    from solver.jobs.runner import JobResult
    from .solution import OpeningSolution, opening_jobs

    t0 = time.perf_counter()
    if position.outcome is not None or lookup_entry(position) is None:
        return None
    classes = []
    for job in opening_jobs(position):
        child = Position.parse(job.position)
        e = lookup_entry(child)
        if e is None:
            return None
        classes.append(JobResult(job.key, job.position, job.members, e.value.value, e.nodes, e.seconds,
                                 runs=0, method=f"database ({e.source})", view=job.view, verified=True,
                                 resumed=False, notes=["from the opening database"]))
    own = lookup_entry(position)
    moves = {m: c.shown for c in classes for m in c.members}
    moves = {m: moves[m] for m in position.legal_moves()}
    line = []
    if own.value == Value.WIN:
        first = next(c for c in classes if c.shown == "win")
        line = [first.members[0]]
    sol = OpeningSolution(str(position), False, "database", own.value.value, moves, line,
                          sum(c.nodes for c in classes), sum(c.seconds for c in classes), 0.0, classes,
                          notes=["from the opening database (solver/data): each class's value and effort "
                                 "are those of the proof that gave it"])
    sol.wall_seconds = time.perf_counter() - t0
    return sol


# -- moves from the database: what the analyst's lines and ``meridians analyse`` read -----
def known_moves(position: Position) -> dict[str, tuple[Value, int]]:
    """The legal moves of ``position`` whose resulting position the shipped database
    holds or the rules decide (the game is over): move -> (its value for the player who
    plays it, the nodes of the proof of record; 0 for the rules), in board order.  Moves
    the database does not hold are left out: an empty dict says nothing."""
    out: dict[str, tuple[Value, int]] = {}
    if position.outcome is not None:
        return out
    for m in position.legal_moves():
        child = position.play(m)
        if child.outcome is not None:
            out[m] = (Value.from_outcome(child.outcome, child.to_move).negated(), 0)
            continue
        e = lookup_entry(child)
        if e is not None:
            out[m] = (e.value.negated(), e.nodes)
    return out


def _choose(position: Position) -> tuple[str | None, Value]:
    """The database's move in ``position`` and its value for the mover: a winning move
    (one that ends the game first, else the one of the smallest proof of record: the
    simplest win the database knows) when the position is won; when every move is known
    and lost, the one of the largest proof (the longest resistance the proofs saw);
    else ``(None, UNKNOWN)``."""
    known = known_moves(position)
    wins = [(n, m) for m, (v, n) in known.items() if v == Value.WIN]
    if wins:
        return min(wins)[1], Value.WIN
    moves = position.legal_moves()
    if moves and len(known) == len(moves) and all(v == Value.LOSS for v, _ in known.values()):
        return max((n, m) for m, (_, n) in known.items())[1], Value.LOSS
    return None, Value.UNKNOWN


def database_line(position: Position, plies: int = 60) -> list[str]:
    """A principal line read from the database alone: each side plays :func:`_choose`'s
    move, while the database (or the rules) knows one; it stops where the database's
    knowledge ends or the game does."""
    line: list[str] = []
    pos = position
    while len(line) < plies and pos.outcome is None:
        move, _ = _choose(pos)
        if move is None:
            break
        line.append(move)
        pos = pos.play(move)
    return line
