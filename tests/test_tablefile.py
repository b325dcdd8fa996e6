"""A df-pn search stopped part-way (budget or Ctrl-C) saves its table and a later search
goes on from it: same value, less new work; a table file that is damaged or belongs to
another search is refused with a clear error."""

from __future__ import annotations

import numpy as np
import pytest

from solver import Board
from solver.search.prove import prove
from solver.search.tablefile import TableFileError, read_header
from solver.search.limit import Limit

from refplay import random_position

POS = random_position(Board.parse("3/4"), 12, 0)  # a loss after about 66,000 expansions


@pytest.fixture(scope="module")
def whole():
    return prove(POS, Limit(tt_mb=16))


def test_a_stopped_search_resumes_from_its_table(tmp_path, whole):
    f = tmp_path / "t.table"
    part = prove(POS, Limit(nodes=whole.nodes // 3, tt_mb=16), table_file=f)
    assert part.value == "unknown" and f.exists()
    rest = prove(POS, Limit(tt_mb=16), table_file=f)
    assert rest.value == whole.value and rest.verified
    assert rest.stats["runs"] == 2
    assert rest.nodes > part.nodes  # the counts go on from the first run's
    # the second run did less than a search from nothing
    assert rest.nodes - part.nodes < whole.nodes


def test_ctrl_c_saves_the_table(tmp_path, whole):
    f = tmp_path / "t.table"
    calls = []

    def stop(info):
        calls.append(info)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        prove(POS, Limit(tt_mb=16), chunk_nodes=5_000, progress=stop, table_file=f)
    assert f.exists()
    again = prove(POS, Limit(tt_mb=16), table_file=f)
    assert again.value == whole.value and again.stats["runs"] == 2


def test_a_table_of_another_search_is_refused(tmp_path, whole):
    f = tmp_path / "t.table"
    prove(POS, Limit(nodes=5_000, tt_mb=16), table_file=f)
    with pytest.raises(TableFileError, match="use the table size"):
        prove(POS, Limit(tt_mb=32), table_file=f)
    other = random_position(Board.parse("3/4"), 12, 1)
    with pytest.raises(TableFileError, match="the table of"):
        prove(other, Limit(tt_mb=16), table_file=f)


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "longer"])
def test_a_damaged_table_is_refused(tmp_path, damage):
    f = tmp_path / "t.table"
    prove(POS, Limit(nodes=5_000, tt_mb=16), table_file=f)
    data = bytearray(f.read_bytes())
    if damage == "truncate":
        data = data[: len(data) - 100]
    elif damage == "flip":
        data[-1000] ^= 0x40
    elif damage == "garbage":
        data = bytearray(b"not a table\n" + bytes(100))
    else:
        data += b"x"
    f.write_bytes(bytes(data))
    with pytest.raises(TableFileError):
        prove(POS, Limit(tt_mb=16), table_file=f)


def test_only_df_pn_takes_a_table_file(tmp_path):
    with pytest.raises(ValueError, match="df-pn"):
        prove(POS, method="alphabeta", table_file=tmp_path / "t.table")


def _as_format_1(f):
    """Rewrite the table file ``f`` as format 1 wrote it: moves as the cell, -1 none."""
    import json
    import zlib

    head, _, body = f.read_bytes().partition(b"\n")
    header = json.loads(head)
    n = header["slots"]
    parts, at = [], 0
    for dtype in (np.uint64, np.uint32, np.uint32, np.int16, np.uint32):
        size = n * np.dtype(dtype).itemsize
        parts.append(np.frombuffer(body[at:at + size], dtype).copy())
        at += size
    parts[3] -= 1
    crc = 0
    for a in parts:
        crc = zlib.crc32(a.tobytes(), crc)
    header.update(format="meridians-dfpn-table/1", crc32=crc)
    f.write_bytes((json.dumps(header) + "\n").encode() + b"".join(a.tobytes() for a in parts))
    return parts


def test_a_format_1_table_still_loads(tmp_path, whole):
    """Format 2 stores a move plus one (an empty slot is all zeros); a format 1 file is
    converted as it is read, and the search goes on from it."""
    from solver.rules import core
    from solver.search import dfpn as F
    from solver.search.tablefile import load_table

    f = tmp_path / "t.table"
    part = prove(POS, Limit(nodes=whole.nodes // 3, tt_mb=16), table_file=f)
    t = core.tables(POS.board)
    now = F.new_dfpn(t, POS.side_index, 16)
    load_table(f, t, now, str(POS))
    old = _as_format_1(f)
    assert (old[3] == -1).any() and (old[3] >= 0).any()
    then = F.new_dfpn(t, POS.side_index, 16)
    load_table(f, t, then, str(POS))
    for a, b in zip(now, then):
        if isinstance(a, np.ndarray):  # (not the settled rule's scratch, a tuple of arrays)
            assert np.array_equal(a, b)
    rest = prove(POS, Limit(tt_mb=16), table_file=f)
    assert rest.value == whole.value and rest.verified and rest.stats["runs"] == 2
    assert rest.nodes > part.nodes and rest.nodes - part.nodes < whole.nodes
    assert read_header(f)["format"] == "meridians-dfpn-table/1"  # not rewritten: decided


def test_a_table_file_of_an_unknown_format_is_refused(tmp_path):
    f = tmp_path / "t.table"
    prove(POS, Limit(nodes=5_000, tt_mb=16), table_file=f)
    data = f.read_bytes().replace(b"meridians-dfpn-table/2", b"meridians-dfpn-table/9", 1)
    f.write_bytes(data)
    with pytest.raises(TableFileError, match="not a meridians-dfpn-table/2 file"):
        prove(POS, Limit(tt_mb=16), table_file=f)
