"""A persistent cache of the self-play seed games (issue 36 item 4).

Every run of the generator on one board and seed plays the same self-play games (the
c4, c5 and c6 sets of 6/7 use seed 1, and a resumed run replays its units): on 6/7 a
game costs 4-5 CPU s, 34% of a unit at n = 4 and 10% at n = 5.  A game depends only on
the board, the unit's seed, the playouts a move, the ply it stops at and the engine
(:func:`puzzles.generate.selfplay_game`), so it is kept under a key of exactly those:
the engine's part is :func:`engine_version`, a hash of every file of the ``solver``
package and of the Python, NumPy and numba versions, so that any change to the engine
(its code, its model's weights, its compiler) plays the games anew.  A hit therefore
gives the moves a replay would; ``tests/test_seedgames.py`` compares the two.

The games live in ``cache_dir()/selfplay/`` (:func:`solver.util.files.cache_dir`), one
small JSON file a game, written atomically: workers that play the same game at once
write the same bytes.  A file that cannot be read, does not match its key, or whose
moves do not replay as a legal game of that length is a miss (played again and written
over); a cache that cannot be written costs only the time (the game is still played).
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from pathlib import Path

from solver import Board, Position

__all__ = ["FORMAT", "engine_version", "game_path", "load_game", "selfplay_game"]

#: the kind of a cached game's file
FORMAT = "meridians-selfplay-game/1"


@functools.lru_cache(maxsize=1)
def engine_version() -> str:
    """A short hash of what a self-play game depends on besides its arguments: every
    file of the ``solver`` package (sources and model data; not ``__pycache__``) by
    relative path and content, and the Python, NumPy and numba versions."""
    import numba
    import numpy

    import solver

    root = Path(solver.__file__).resolve().parent
    h = hashlib.sha256()
    h.update(f"python {sys.version_info[:3]} numpy {numpy.__version__} numba {numba.__version__}\n".encode())
    files = sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for p in files:
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()[:16]


def _key(board: Board, unit_seed: int, playouts: int, plies: int | None) -> dict:
    return {"format": FORMAT, "engine": engine_version(), "board": board.name, "seed": unit_seed,
            "playouts": playouts, "plies": plies}


def game_path(board: Board, unit_seed: int, playouts: int, plies: int | None, folder=None) -> Path:
    """Where the game of these arguments is cached (``folder``: default ``cache_dir()``)."""
    from solver.util.files import cache_dir

    base = Path(cache_dir() if folder is None else folder) / "selfplay" / engine_version()
    return base / f"{board.name.replace('/', '-')}-p{playouts}-n{plies}-s{unit_seed}.json"


def load_game(board: Board, unit_seed: int, playouts: int, plies: int | None, folder=None) -> list[str] | None:
    """The cached moves of that game, or None when there is no usable entry (missing,
    unreadable, another key, or moves that are not a legal game ending where a played
    one would: at ``plies`` moves or at the game's end)."""
    from solver.util.files import FileFormatError, read_json

    path = game_path(board, unit_seed, playouts, plies, folder)
    if not path.is_file():
        return None
    try:
        d = read_json(path, "cached self-play game", dict)
    except FileFormatError:
        return None
    moves = d.get("moves")
    if {k: d.get(k) for k in _key(board, unit_seed, playouts, plies)} != _key(board, unit_seed, playouts, plies):
        return None
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        return None
    if plies is not None and len(moves) > plies:
        return None
    pos = Position.start(board)
    try:
        for m in moves:
            if pos.outcome is not None:
                return None  # a move after the end
            pos = pos.play(m)
    except ValueError:  # an illegal or unknown move
        return None
    if pos.outcome is None and (plies is None or len(moves) < plies):
        return None  # cut short: a played game goes on
    return list(moves)


def selfplay_game(board: Board, unit_seed: int, playouts: int, plies: int | None = None, folder=None) -> list[str]:
    """:func:`puzzles.generate.selfplay_game`'s moves, from the cache when it holds them,
    else played and stored."""
    from solver.util.files import write_atomic

    from .generate import selfplay_game as play

    moves = load_game(board, unit_seed, playouts, plies, folder)
    if moves is not None:
        return moves
    moves = play(board, unit_seed, playouts, plies)
    try:
        write_atomic(game_path(board, unit_seed, playouts, plies, folder),
                     json.dumps({**_key(board, unit_seed, playouts, plies), "moves": moves}) + "\n")
    except OSError:
        pass  # a cache that cannot be written only costs the replay next time
    return moves

