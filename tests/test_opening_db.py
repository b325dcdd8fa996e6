"""The opening database (solver/app/openings/database.py) and ``meridians lookup``.

The shipped files are checked against fresh proofs (df-pn on a sample, the alpha-beta
twin on a smaller one), the canonical key against the board's symmetries, the reader
against damaged files, and the commands against the results files of record.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from solver import Board, Position
from solver.app.openings.database import (DatabaseError, Entry, OpeningDatabase, database_for,
                                      lookup_entry, position_key)
from solver.search.prove import prove
from solver.search.solve import solve
from solver.search.values import Value
from solver.search.limit import Limit

ROOT = Path(__file__).resolve().parent.parent
B23, B34 = Board.parse("2/3"), Board.parse("3/4")


def fresh(p: Position) -> Position:
    return Position(p.board, p.stones("L"), p.stones("D"), p.to_move)


def random_positions(board: Board, count: int, max_plies: int, seed: int) -> list[Position]:
    """``count`` positions of random games, each stopped after 0..max_plies plies (fewer
    when the game ends), without their history."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        p = Position.start(board)
        for _ in range(rng.randint(0, max_plies)):
            moves = p.legal_moves()
            if not moves:
                break
            p = p.play(rng.choice(moves))
        out.append(fresh(p))
    return out


# -- keys --------------------------------------------------------------------------------
@pytest.mark.parametrize("board", [B23, B34])
def test_key_is_shared_by_exactly_the_symmetric_images(board):
    ps = random_positions(board, 60, 12, seed=board.m)
    for p in ps:
        images = {p.transform(s) for s in range(len(board.symmetries))}
        assert {position_key(q) for q in images} == {position_key(p)}
    # no two positions that are not images of each other share a key (the key is exact)
    for p in ps:
        for q in ps:
            same = any(p.transform(s) == q for s in range(len(board.symmetries)))
            assert (position_key(p) == position_key(q)) == same


def test_key_differs_with_the_side_to_move():
    for board in (B23, B34):
        light = Position(board, ["a1"], ["c2"], "L")
        dark = Position(board, ["a1"], ["c2"], "D")
        assert position_key(light) != position_key(dark)
    assert position_key(Position.start(Board.parse("4/5"))) is None  # 52 points: no packed key


# -- the shipped files -------------------------------------------------------------------
def test_the_files_are_found_as_package_resources():
    for board in (B23, B34):
        db = database_for(board)
        assert db is not None and len(db) == db.meta["entries"] > 0
        assert Path(db.path).parent.name == "data" and Path(db.path).parent.parent.name == "solver"
        assert db.meta["revision"] and db.meta["command"].startswith("python scripts/build_opening_db.py")
    assert database_for(Board.parse("5/6")) is None


def test_2_3_entries_agree_with_fresh_proofs():
    db = database_for(B23)
    plies = db.meta["plies"]
    sample = random_positions(B23, 150, plies, seed=7)
    for p in sample:
        e = db.get(p)
        assert e is not None, f"{p} is within {plies} plies but not in the database"
        if p.outcome is not None:
            assert e.value == Value.from_outcome(p.outcome, p.to_move)
            continue
        assert prove(p, Limit(nodes=10_000_000, tt_mb=4)).value == e.value, str(p)
    for p in sample[:25]:  # the twin: alpha-beta with no df-pn in it
        assert solve(p, Limit(tt_mb=4)).value == db.get(p).value, str(p)


def test_empty_boards_and_first_moves_agree_with_the_results_files():
    for board in (B23, B34):
        d = json.loads((ROOT / "results" / "solutions" / f"{board.name.replace('/', '-')}.json").read_text())
        start = Position.start(board)
        assert lookup_entry(start).value == d["value"]
        for m, v in d["moves"].items():
            assert lookup_entry(start.play(m)).value.negated() == v, m


def test_3_4_first_move_entries_carry_the_effort_of_record():
    d = json.loads((ROOT / "results" / "solutions" / "3-4.json").read_text())
    start = Position.start(B34)
    for c in d["classes"]:
        e = lookup_entry(start.play(c["members"][0]))
        assert (e.source, e.nodes) == ("record", c["expansions"])


def test_a_position_that_is_over_is_answered_by_the_rules_not_the_database():
    rng = random.Random(5)
    p = Position.start(B23)
    while p.outcome is None:  # a random game to its end
        p = p.play(rng.choice(p.legal_moves()))
    assert fresh(p).outcome in ("L", "D") and lookup_entry(fresh(p)) is None


# (the analyst's answers, database first then a proof: tests/test_analyst.py)


# -- damaged files -----------------------------------------------------------------------
def _small_db() -> OpeningDatabase:
    ps = random_positions(B23, 20, 3, seed=1)
    entries = {position_key(p): Entry(Value.WIN, "dfpn", i, 0.5) for i, p in enumerate(ps)}
    return OpeningDatabase.from_entries(B23, entries, {"plies": 3})


def test_a_file_round_trips(tmp_path):
    db = _small_db()
    db.save(tmp_path / "db.npz")
    back = OpeningDatabase.load(tmp_path / "db.npz")
    assert back.keys.tolist() == db.keys.tolist() and back.meta == db.meta
    p = random_positions(B23, 1, 3, seed=1)[0]
    assert back.get(p) == db.get(p) is not None


@pytest.mark.parametrize("damage", ["truncated", "flipped", "empty", "missing", "not a zip", "unsorted"])
def test_a_damaged_file_is_a_clean_error(tmp_path, damage):
    db = _small_db()
    data = bytearray(db.to_bytes())
    path = tmp_path / "db.npz"
    if damage == "truncated":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif damage == "flipped":  # a byte of the keys' data: the zip's CRC-32 catches it
        i = bytes(data).index(db.keys.tobytes()[:8])
        data[i + 3] ^= 0xFF
        path.write_bytes(bytes(data))
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "not a zip":
        path.write_text("hello\n")
    elif damage == "unsorted":
        db.keys = db.keys[::-1].copy()
        db.save(path)
    with pytest.raises(DatabaseError) as e:
        OpeningDatabase.load(path)
    assert isinstance(e.value, ValueError) and str(path) in str(e.value)


# -- the commands ------------------------------------------------------------------------
def test_lookup_cli_text_json_and_bad_input(run_cli):
    r = run_cli("lookup", "3/4", code=0)
    assert "Light to move: win (database)" in r.stdout and "winning moves (8)" in r.stdout
    r = run_cli("lookup", "2/3", "--json", code=0)
    d = json.loads(r.stdout)
    expect = json.loads((ROOT / "results" / "solutions" / "2-3.json").read_text())
    assert (d["value"], d["source"]) == (expect["value"], "database")
    assert {m["move"]: m["value"] for m in d["moves"]} == expect["moves"]
    assert {m["source"] for m in d["moves"]} == {"database"}
    for bad in (["lookup", "2/3/4/3/2 X"], ["lookup", "3/9"], ["lookup", "2/3", "--time", "-1"], ["lookup"]):
        r = run_cli(*bad)
        assert r.code == 2 and r.exception is None and len(r.stderr.strip().splitlines()) == 1, bad


def test_solve_3_4_answers_from_the_database(run_cli):
    r = run_cli("solve", "3/4", "--json", code=0)
    d = json.loads(r.stdout)
    expect = json.loads((ROOT / "results" / "solutions" / "3-4.json").read_text())
    assert (d["method"], d["value"], d["moves"]) == ("database", expect["value"], expect["moves"])
    assert sorted(c["nodes"] for c in d["classes"]) == sorted(c["expansions"] for c in expect["classes"])


def test_solve_searches_when_a_search_is_asked_for(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default checkpoint of --no-database goes here
    from_db = json.loads(run_cli("solve", "2/3", "--json", code=0).stdout)
    searched = json.loads(run_cli("solve", "2/3", "--json", "--checkpoint", tmp_path / "ck.json", code=0).stdout)
    plain = json.loads(run_cli("solve", "2/3", "--json", "--no-database", code=0).stdout)
    assert from_db["method"] == "database" and searched["method"] == plain["method"] == "dfpn"
    assert from_db["moves"] == searched["moves"] == plain["moves"]


# -- the build script ----------------------------------------------------------------------
def test_the_build_script_rebuilds_the_shipped_entries_and_checks_them(tmp_path, monkeypatch, capsys):
    from conftest import load_script

    build = load_script("build_opening_db", monkeypatch, tmp_path)
    ck, out = tmp_path / "ck.json", tmp_path / "db.npz"
    build.main(["--board", "2/3", "--plies", "3", "--out", str(out), "--checkpoint", str(ck)])
    small, shipped = OpeningDatabase.load(out), database_for(B23)
    assert len(small) == sum(small.meta["per_ply"].values()) == 113
    for k in small.keys.tolist():
        assert small.entry_of_key(k).value == shipped.entry_of_key(k).value
    assert small.meta["command"] == f"python scripts/build_opening_db.py --board 2/3 --plies 3 --out {out} " \
                                    f"--checkpoint {ck}"
    # a wrong proof in the checkpoint (a first move's value turned over) is caught
    start_key = position_key(Position.start(B23).play("a1"))
    data = json.loads(ck.read_text())
    assert len(data["proofs"]) == 113  # one a position
    for proof in data["proofs"]:
        if proof[0] == start_key:
            proof[1] = "loss" if proof[1] == "win" else "win"
    ck.write_text(json.dumps(data))
    with pytest.raises(SystemExit):
        build.main(["--board", "2/3", "--plies", "3", "--out", str(tmp_path / "bad.npz"), "--checkpoint", str(ck)])
    assert not (tmp_path / "bad.npz").exists()


def test_the_3_4_build_matches_the_shipped_file(tmp_path, monkeypatch):
    from conftest import load_script

    build = load_script("build_opening_db", monkeypatch, tmp_path)
    build.main(["--board", "3/4", "--plies", "1", "--out", str(tmp_path / "db.npz")])
    rebuilt, shipped = OpeningDatabase.load(tmp_path / "db.npz"), database_for(B34)
    # the build's own df-pn proofs (the pie classes' winning moves) included: a search
    # with no time limit takes the same path every run
    for a in ("keys", "values", "sources", "nodes"):
        assert getattr(rebuilt, a).tolist() == getattr(shipped, a).tolist(), a
