"""A df-pn search's table on disk, so that a long proof stopped part-way resumes where it
stopped instead of from nothing.

The table is all that a df-pn search learns: its solved entries are facts about the
game and its unsolved numbers are the search's memory of where it has been.  Loading it
into a new search of the same root and running again continues the old search (the
root is expanded again, finds its children in the table, and goes on).  A resumed proof
is re-walked before it is reported, like any other.

The file is one JSON header line, then the table arrays' raw bytes.  The header holds
what must match for the table to mean the same thing (the root, the board's Zobrist keys,
the search's knowledge options, the table's size), the search's counters, the effort spent
so far, and a CRC-32 of the bytes.  It is written to a temporary file and renamed, so a
stop while saving leaves the previous file whole.

Format 2 stores each move as the table holds it since the table became all zeros when
empty (the canonical cell plus one, 0 for none); a format 1 file (the cell, -1 for none)
still loads: its moves are shifted by one as it is read.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from pathlib import Path

import numpy as np

from solver.rules import core
from solver.util.errors import MeridiansError
from . import dfpn as F

__all__ = ["TableFileError", "save_table", "load_table", "read_header"]

FORMAT = "meridians-dfpn-table/2"
_FORMAT_1 = "meridians-dfpn-table/1"  # moves stored as the cell, -1 none: converted on load
_CHUNK = 1 << 26  # bytes read or written at a time: 64 MiB


class TableFileError(MeridiansError):
    """A table file that is not readable, is damaged, or belongs to another search."""


def _arrays(D: F.Dfpn) -> list[np.ndarray]:
    return [D.tt_key, D.tt_pn, D.tt_dn, D.tt_move, D.tt_work]


def fingerprint(t: core.Tables, D: F.Dfpn, position: str) -> str:
    """What a table's entries depend on: the root, the keys, the knowledge options."""
    h = hashlib.sha256()
    h.update(position.encode())
    h.update(np.ascontiguousarray(t.zobrist).tobytes())
    h.update(np.uint64(t.zobrist_side).tobytes())
    # every option but the expansion budget and the prover, which change between runs, and
    # the settled rule, which only adds leaves that are won (so a table serves either way;
    # and the files of the searches before it keep their fingerprint)
    opts = [int(x) for i, x in enumerate(D.limits) if i not in (F.MAX_EXPANSIONS, F.PROVER, F.KNOWLEDGE)]
    h.update(json.dumps(opts).encode())
    h.update(str(len(D.tt_key)).encode())
    return h.hexdigest()


def save_table(path: str | os.PathLike, t: core.Tables, D: F.Dfpn, position: str, *,
               stage: int, seconds: float, runs: int, tt_mb: float) -> int:
    """Write ``D``'s table and counters to ``path``, with the search's ``stage`` (0: the
    player to move is the prover, 1: the other), the ``seconds`` and ``runs`` spent so far
    and the ``tt_mb`` it was made with; return the bytes written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    crc = 0
    for a in _arrays(D):
        crc = _crc(a, crc)
    header = {
        "format": FORMAT, "position": position, "fingerprint": fingerprint(t, D, position),
        "slots": len(D.tt_key), "stats": [int(x) for x in D.stats], "crc32": crc,
        "stage": stage, "seconds": seconds, "runs": runs, "tt_mb": tt_mb,
    }
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as f:
            f.write((json.dumps(header) + "\n").encode())
            for a in _arrays(D):
                view = memoryview(a).cast("B")
                for i in range(0, len(view), _CHUNK):
                    f.write(view[i:i + _CHUNK])
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path.stat().st_size


def _header(f, path: Path) -> dict:
    try:
        header = json.loads(f.readline(1 << 20))
    except ValueError:
        raise TableFileError(f"{path}: not a table file (no header)") from None
    if not isinstance(header, dict) or header.get("format") not in (FORMAT, _FORMAT_1):
        raise TableFileError(f"{path}: not a {FORMAT} file")
    stats = header.get("stats")
    if not isinstance(stats, list) or len(stats) != F.N_STATS:
        raise TableFileError(f"{path}: its header has no search counters")
    return header


def read_header(path: str | os.PathLike) -> dict:
    """The header of the table file at ``path``, with ``nodes``: the expansions and
    re-walked nodes of the search so far.  Raises :class:`TableFileError`."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            header = _header(f, path)
    except OSError as e:
        raise TableFileError(f"{path}: {e.strerror or e}") from None
    header["nodes"] = header["stats"][F.EXPANSIONS] + header["stats"][F.REWALKED]
    return header


def load_table(path: str | os.PathLike, t: core.Tables, D: F.Dfpn, position: str) -> dict:
    """Read the table at ``path`` into ``D`` (its counters too) and return its header.
    Raises :class:`TableFileError` when the file is damaged or was made by a different
    search (another root, other options, another table size); ``D`` is then not to be
    searched with."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            header = _header(f, path)
            if header.get("position") != position:
                raise TableFileError(f"{path}: the table of {header.get('position')}, not of {position}")
            if header.get("slots") != len(D.tt_key):
                raise TableFileError(
                    f"{path}: a table of {header.get('slots'):,} slots, this search has "
                    f"{len(D.tt_key):,}: use the table size it was made with"
                    + (f" (--tt-mb {header['tt_mb']:g})" if "tt_mb" in header else ""))
            if header.get("fingerprint") != fingerprint(t, D, position):
                raise TableFileError(f"{path}: made by a search with other keys or options")
            for a in _arrays(D):
                view = memoryview(a).cast("B")
                for i in range(0, len(view), _CHUNK):
                    part = view[i:i + _CHUNK]
                    if f.readinto(part) != len(part):
                        raise TableFileError(f"{path}: truncated")
            if f.read(1):
                raise TableFileError(f"{path}: longer than its header says")
    except OSError as e:
        raise TableFileError(f"{path}: {e.strerror or e}") from None
    crc = 0
    for a in _arrays(D):
        crc = _crc(a, crc)
    if crc != header.get("crc32"):
        raise TableFileError(f"{path}: damaged (checksum mismatch)")
    if header["format"] == _FORMAT_1:
        np.add(D.tt_move, 1, out=D.tt_move)  # a cell c becomes c + 1, "none" (-1) 0
    D.stats[:] = header["stats"]
    D.stats[F.ABORTED] = 0
    return header


def _crc(a: np.ndarray, crc: int) -> int:
    view = memoryview(a).cast("B")
    for i in range(0, len(view), _CHUNK):
        crc = zlib.crc32(view[i:i + _CHUNK], crc)
    return crc
