"""A df-pn search stopped part-way (budget or Ctrl-C) saves its table and a later search
goes on from it: same value, less new work; a table file that is damaged or belongs to
another search is refused with a clear error."""

from __future__ import annotations

import pytest

from solver import Board
from solver.search.prove import prove
from solver.search.tablefile import TableFileError

from refplay import random_position

POS = random_position(Board.parse("3/4"), 12, 0)  # a loss after about 66,000 expansions


@pytest.fixture(scope="module")
def whole():
    return prove(POS, tt_mb=16)


def test_a_stopped_search_resumes_from_its_table(tmp_path, whole):
    f = tmp_path / "t.table"
    part = prove(POS, tt_mb=16, max_nodes=whole.nodes // 3, table_file=f)
    assert part.value == "unknown" and f.exists()
    rest = prove(POS, tt_mb=16, table_file=f)
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
        prove(POS, tt_mb=16, chunk_nodes=5_000, progress=stop, table_file=f)
    assert f.exists()
    again = prove(POS, tt_mb=16, table_file=f)
    assert again.value == whole.value and again.stats["runs"] == 2


def test_a_table_of_another_search_is_refused(tmp_path, whole):
    f = tmp_path / "t.table"
    prove(POS, tt_mb=16, max_nodes=5_000, table_file=f)
    with pytest.raises(TableFileError, match="use the table size"):
        prove(POS, tt_mb=32, table_file=f)
    other = random_position(Board.parse("3/4"), 12, 1)
    with pytest.raises(TableFileError, match="the table of"):
        prove(other, tt_mb=16, table_file=f)


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "longer"])
def test_a_damaged_table_is_refused(tmp_path, damage):
    f = tmp_path / "t.table"
    prove(POS, tt_mb=16, max_nodes=5_000, table_file=f)
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
        prove(POS, tt_mb=16, table_file=f)


def test_only_df_pn_takes_a_table_file(tmp_path):
    with pytest.raises(ValueError, match="df-pn"):
        prove(POS, method="alphabeta", table_file=tmp_path / "t.table")
