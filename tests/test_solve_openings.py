"""scripts/solve_openings.py and solver/app/openings/classes.py under it, on 2/3 (in a
temporary results folder): one file per class, the collected opening table against
alpha-beta's solution, resuming, and claimed classes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import load_script, run_script
from solver import Board, Position
from solver.app.openings import classes, opening_jobs
from solver.app.openings.classes import value_path

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
SOLVED_2_3 = Path(__file__).resolve().parent.parent / "results" / "solutions" / "2-3.json"


@pytest.fixture()
def script(tmp_path, monkeypatch):
    return load_script("solve_openings", monkeypatch, tmp_path)


def run(mod, monkeypatch, *argv):
    run_script(mod, monkeypatch, *argv)


def test_every_class_of_2_3_is_written_and_collected_as_alpha_beta_solved_it(script, tmp_path, monkeypatch, capsys):
    run(script, monkeypatch, "--board", "2/3", "--tt-mb", "16")
    classes = opening_jobs(Position.start(Board.parse("2/3")))
    files = sorted(tmp_path.glob("2-3-*-value.json"))
    assert len(files) == len(classes)
    table = json.loads((tmp_path / "2-3.json").read_text())
    solved = json.loads(SOLVED_2_3.read_text())
    assert table["moves"] == solved["moves"] and table["value"] == solved["value"]
    assert table["decided"] == "14 of 14 first moves"
    assert all(c["expansions"] > 0 and c["revision"] for c in table["classes"])
    assert (tmp_path / "2-3-map.svg").read_text().startswith("<svg")
    assert not list(tmp_path.glob("*.running"))
    # one table through the classes: each record names the classes proven in it before
    after = sorted(json.loads(f.read_text())["table_after"] for f in files)
    assert [len(a) for a in sorted(after, key=len)] == list(range(len(files)))
    # the same command again searches nothing
    before = {f: f.read_text() for f in files}
    run(script, monkeypatch, "--board", "2/3", "--tt-mb", "16")
    assert "already" in capsys.readouterr().err
    assert {f: f.read_text() for f in files} == before


@pytest.mark.subprocess
def test_a_class_another_live_process_holds_is_passed_over(script, tmp_path, monkeypatch, capsys):
    job = opening_jobs(Position.start(Board.parse("2/3")))[0]
    lock = value_path(tmp_path, Position.parse(job.position)).with_suffix(".running")
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_text(str(holder.pid))
        run(script, monkeypatch, "--board", "2/3", "--classes", job.key, "--tt-mb", "16")
        assert "another process" in capsys.readouterr().err
        assert not value_path(tmp_path, Position.parse(job.position)).exists()
    finally:
        holder.kill()
        holder.wait()
    # its process gone, the class is taken
    run(script, monkeypatch, "--board", "2/3", "--classes", job.key, "--tt-mb", "16")
    assert value_path(tmp_path, Position.parse(job.position)).exists()
    assert not lock.exists()


def test_bad_input_is_one_line(script, tmp_path, monkeypatch):
    with pytest.raises(SystemExit, match="no class 'zz'"):
        run(script, monkeypatch, "--board", "2/3", "--classes", "zz")
    job = opening_jobs(Position.start(Board.parse("2/3")))[0]
    value_path(tmp_path, Position.parse(job.position)).write_text("{not json")
    with pytest.raises(SystemExit, match="corrupt"):
        run(script, monkeypatch, "--board", "2/3", "--collect")
    (tmp_path / "2-3.json").write_text(json.dumps({"command": "python scripts/solve_boards.py"}))
    os.remove(value_path(tmp_path, Position.parse(job.position)))
    with pytest.raises(SystemExit, match="not replacing it"):
        run(script, monkeypatch, "--board", "2/3", "--collect")


SOLUTIONS = Path(__file__).resolve().parent.parent / "results" / "solutions"


def test_the_committed_3_4_table_is_what_its_class_files_collect_to(script, tmp_path):
    files = sorted(SOLUTIONS.glob("3-4-*-value.json"))
    assert files
    for f in files:
        (tmp_path / f.name).write_text(f.read_text())
    mine = classes.collect(tmp_path, Board.parse("3/4"))
    committed = json.loads((SOLUTIONS / "3-4.json").read_text())
    for key in ("moves", "value", "decided", "certified"):
        assert mine[key] == committed[key], key
    for key in ("members", "certificate"):
        assert [c[key] for c in mine["classes"]] == [c[key] for c in committed["classes"]], key


def test_the_committed_3_4_pie_file_is_what_its_class_records_collect_to(tmp_path):
    """(the run goes on class by class: the committed file is what the committed records,
    every one of them decided and certified, and the first-move classes' records collect to)"""
    records = sorted((SOLUTIONS / "3-4-pie").glob("3-4-*-value.json"))
    committed = json.loads((SOLUTIONS / "3-4-pie.json").read_text())
    (tmp_path / "3-4-pie").mkdir()
    for f in records:
        rec = json.loads(f.read_text())
        assert rec["verified"] and rec["certificate"]["checked_positions"] == rec["certificate"]["positions"], f.name
        (tmp_path / "3-4-pie" / f.name).write_text(f.read_text())
    for f in SOLUTIONS.glob("3-4-*-value.json"):  # the first-move classes decide pairs too
        (tmp_path / f.name).write_text(f.read_text())
    mine = classes.collect(tmp_path, Board.parse("3/4"), pie=True, say=lambda _: None)
    if not committed["command"].startswith(classes.COMMAND):
        # another command's file, from before the class-by-class run: kept while it decides more pairs
        decided = sum(v != "unknown" for v in mine["pairs"].values()) if records else 0
        assert sum(v not in ("unknown", None) for v in committed["pairs"].values()) > decided
        return
    for key in ("pairs", "summary", "value", "decided", "certified", "nodes", "classes", "by_first_move"):
        assert mine[key] == committed[key], key
    assert (tmp_path / "3-4-pie-map.svg").read_text() == (SOLUTIONS / "3-4-pie-map.svg").read_text()


@pytest.mark.parametrize("path", sorted(SOLUTIONS.glob("3-4-*-value.json")) +
                         sorted((SOLUTIONS / "3-4-pie").glob("3-4-*-value.json")), ids=lambda p: p.name)
def test_a_committed_3_4_class_line_is_a_game_its_winner_wins(path):
    """(or, for a class not decided, no line and no value)"""
    rec = json.loads(path.read_text())
    pos = Position.parse(rec["position"])
    if rec["value"] == "unknown":  # a budget ran out: its effort only, never a guess
        assert not rec["verified"] and rec["line"] == [] and rec["nodes"] > 0
        return
    assert rec["verified"] and rec["value"] in ("win", "loss")
    winner = pos.to_move if rec["value"] == "win" else ("D" if pos.to_move == "L" else "L")
    for m in rec["line"]:
        assert pos.outcome is None
        pos = pos.play(m)  # raises on an illegal move
    assert pos.outcome in (None, winner)
    assert pos.outcome == winner or len(rec["line"]) >= 120  # a line stops at 120 plies


def test_certificates_are_written_checked_and_recorded(script, tmp_path, monkeypatch):
    from solver.reference.certificate import check
    import gzip
    import hashlib

    job = opening_jobs(Position.start(Board.parse("2/3")))[0]
    run(script, monkeypatch, "--board", "2/3", "--classes", job.key, "--tt-mb", "16",
        "--certificates", str(tmp_path / "certs"))
    rec = json.loads(value_path(tmp_path, Position.parse(job.position)).read_text())
    cert = rec["certificate"]
    path = tmp_path / "certs" / cert["file"]
    data = path.read_bytes()
    assert cert["bytes"] == len(data) and cert["sha256"] == hashlib.sha256(data).hexdigest()
    assert check(path) == cert["checked_positions"] == cert["positions"] > 1
    head = json.loads(gzip.decompress(data))
    assert head["root"] == job.position
    assert head["winner"] == ("D" if rec["value"] == "win" else "L")
    # the opening table carries the checked certificate of this class, and of no other
    table = json.loads((tmp_path / "2-3.json").read_text())
    assert table["certified"] == f"1 of {len(table['classes'])} classes"
    mine = next(c for c in table["classes"] if c["members"] == list(job.members))
    assert mine["certificate"] == {k: cert[k] for k in ("file", "positions", "bytes", "sha256", "check_seconds")}
    assert all(c["certificate"] is None for c in table["classes"] if c is not mine)


def test_a_decided_class_without_a_certificate_is_proven_again_for_one(script, tmp_path, monkeypatch):
    job = opening_jobs(Position.start(Board.parse("2/3")))[1]
    path = value_path(tmp_path, Position.parse(job.position))
    run(script, monkeypatch, "--board", "2/3", "--classes", job.key, "--tt-mb", "16")
    first = json.loads(path.read_text())
    assert "certificate" not in first
    run(script, monkeypatch, "--board", "2/3", "--classes", job.key, "--tt-mb", "16",
        "--certificates", str(tmp_path / "certs"))
    again = json.loads(path.read_text())
    assert again["value"] == first["value"] and again["certificate"]["checked_positions"] > 1
    # and with its certificate it is left alone
    run(script, monkeypatch, "--board", "2/3", "--classes", job.key, "--tt-mb", "16",
        "--certificates", str(tmp_path / "certs"))
    assert json.loads(path.read_text()) == again


def test_a_certificate_written_by_a_stopped_run_is_checked_not_written_again(script, tmp_path, monkeypatch, capsys):
    # a run stopped while checking leaves the value and the certificate file, not the
    # record's certificate entry: the next run checks the file and records it, no search
    job = opening_jobs(Position.start(Board.parse("2/3")))[1]
    path = value_path(tmp_path, Position.parse(job.position))
    certs = tmp_path / "certs"
    argv = ("--board", "2/3", "--classes", job.key, "--tt-mb", "16", "--certificates", str(certs))
    run(script, monkeypatch, *argv)
    full = json.loads(path.read_text())
    stopped = {k: v for k, v in full.items() if k != "certificate"}
    path.write_text(json.dumps(stopped))
    capsys.readouterr()
    run(script, monkeypatch, *argv)
    assert "checking the certificate already written" in capsys.readouterr().err
    again = json.loads(path.read_text())
    assert {k: v for k, v in again.items() if k != "certificate"} == stopped  # not searched again
    kept = {k: v for k, v in full["certificate"].items() if k not in ("build_seconds", "check_seconds")}
    assert {k: again["certificate"][k] for k in kept} == kept
    assert again["certificate"]["build_seconds"] is None  # not built by this run

    # a file that does not prove the record's claim (here: another class's) is refused,
    # and the class is proven again to write its own
    other = opening_jobs(Position.start(Board.parse("2/3")))[0]
    run(script, monkeypatch, "--board", "2/3", "--classes", other.key, "--tt-mb", "16",
        "--certificates", str(certs))
    mine = certs / full["certificate"]["file"]
    mine.write_bytes((certs / json.loads(value_path(tmp_path, Position.parse(other.position)).read_text())
                      ["certificate"]["file"]).read_bytes())
    path.write_text(json.dumps(stopped))
    capsys.readouterr()
    run(script, monkeypatch, *argv)
    err = capsys.readouterr().err
    assert "is refused: its root is not" in err and "proving it again" in err
    assert json.loads(path.read_text())["certificate"]["sha256"] == full["certificate"]["sha256"]


def test_a_committed_class_certificate_is_the_one_its_record_checked():
    """(the full check takes minutes: its result is in the record; where the file is here,
    its bytes are shown to be the very file that was checked, certifying the class's claim;
    certificates are megabytes, so they are regenerated by the record's command, not kept)"""
    import gzip
    import hashlib

    checked = 0
    for path in sorted(SOLUTIONS.glob("3-4-*-value.json")):
        rec = json.loads(path.read_text())
        if "certificate" not in rec:
            continue
        cert = rec["certificate"]
        assert cert["checked_positions"] == cert["positions"] > 0
        checked += 1
        f = SOLUTIONS.parent / "certificates" / cert["file"]
        if not f.exists():
            continue  # too large to commit: regenerated by the record's command
        data = f.read_bytes()
        assert len(data) == cert["bytes"] and hashlib.sha256(data).hexdigest() == cert["sha256"]
        text = gzip.decompress(data)
        head = json.loads(text[: text.index(b'"nodes"')].decode().rstrip(", ") + "}")
        assert head["root"] == rec["position"]
        assert head["winner"] == (rec["to_move"] if rec["value"] == "win" else ("D" if rec["to_move"] == "L" else "L"))
    assert checked >= 1  # at least one class carries a checked certificate


def test_a_class_stopped_by_its_budget_resumes_from_its_saved_table(script, tmp_path, monkeypatch):
    job = opening_jobs(Position.start(Board.parse("2/3")))[0]
    path = value_path(tmp_path, Position.parse(job.position))
    tables = tmp_path / "tables"
    table = tables / f"2-3-{job.key}.table"
    run(script, monkeypatch, "--board", "2/3", "--classes", job.key, "--tt-mb", "16",
        "--time", "1e-9", "--tables", str(tables))
    assert json.loads(path.read_text())["value"] == "unknown" and table.exists()
    run(script, monkeypatch, "--board", "2/3", "--classes", job.key, "--tt-mb", "16",
        "--tables", str(tables))
    rec = json.loads(path.read_text())
    assert rec["stats"]["runs"] == 2 and rec["value"] in ("win", "loss") and rec["verified"]
    assert not table.exists()  # decided: its table is removed
    # a table made with another size is refused in one line
    run(script, monkeypatch, "--board", "2/3", "--classes", opening_jobs(Position.start(
        Board.parse("2/3")))[1].key, "--tt-mb", "16", "--time", "1e-9", "--tables", str(tables))
    other = opening_jobs(Position.start(Board.parse("2/3")))[1].key
    with pytest.raises(SystemExit, match="use the table size"):
        run(script, monkeypatch, "--board", "2/3", "--classes", other, "--tt-mb", "8",
            "--tables", str(tables))


def test_status_shows_each_class_value_certificate_and_table(script, tmp_path, monkeypatch, capsys):
    jobs = opening_jobs(Position.start(Board.parse("2/3")))
    tables = tmp_path / "tables"
    run(script, monkeypatch, "--board", "2/3", "--classes", jobs[0].key, "--tt-mb", "16",
        "--certificates", str(tmp_path / "certs"))
    run(script, monkeypatch, "--board", "2/3", "--classes", jobs[1].key, "--tt-mb", "16",
        "--time", "1e-9", "--tables", str(tables))
    capsys.readouterr()
    run(script, monkeypatch, "--board", "2/3", "--status", "--tables", str(tables))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + len(jobs)
    first, second = (next(x for x in lines if x.startswith(j.key + " ")) for j in jobs[:2])
    solved = json.loads(SOLVED_2_3.read_text())["moves"][jobs[0].members[0]]
    assert f" {solved} " in first  # Light's value after the class's moves
    assert "certificate" in first and "checked" in first
    assert " unknown " in second and "table saved at 0 expansions" in second


def test_a_class_whose_certificate_failed_is_found_proven_in_its_saved_table(script, tmp_path, monkeypatch):
    from solver.reference.certificate import CertificateError

    job = opening_jobs(Position.start(Board.parse("2/3")))[2]
    path = value_path(tmp_path, Position.parse(job.position))
    tables = tmp_path / "tables"
    real = classes.certify_class

    def fail(*a, **k):
        raise CertificateError("no winning move found (simulated)")

    monkeypatch.setattr(classes, "certify_class", fail)
    run(script, monkeypatch, "--board", "2/3", "--classes", job.key, "--tt-mb", "16",
        "--certificates", str(tmp_path / "certs"), "--tables", str(tables))
    first = json.loads(path.read_text())
    assert first["verified"] and "certificate" not in first
    assert (tables / f"2-3-{job.key}.table").exists()  # kept, with the proof in it
    monkeypatch.setattr(classes, "certify_class", real)
    run(script, monkeypatch, "--board", "2/3", "--classes", job.key, "--tt-mb", "16",
        "--certificates", str(tmp_path / "certs"), "--tables", str(tables))
    again = json.loads(path.read_text())
    assert again["value"] == first["value"] and again["certificate"]["checked_positions"] > 1
    assert again["stats"]["runs"] == 2
    # the second run searched next to nothing: the root was proven in the table
    assert again["stats"]["expansions"] - first["stats"]["expansions"] < first["stats"]["expansions"] / 4
    assert not (tables / f"2-3-{job.key}.table").exists()


SOLVED_2_3_PIE = SOLVED_2_3.with_name("2-3-pie.json")


def test_the_pie_classes_of_2_3_collect_to_the_committed_pie_file_and_map(script, tmp_path, monkeypatch, capsys):
    from solver.app.openings import pie_jobs

    jobs = pie_jobs(Position.start(Board.parse("2/3")))
    certs = tmp_path / "certs"
    run(script, monkeypatch, "--board", "2/3", "--pie", "--classes", jobs[0].key, "--tt-mb", "16",
        "--certificates", str(certs))
    run(script, monkeypatch, "--board", "2/3", "--pie", "--tt-mb", "16")
    assert len(list((tmp_path / "2-3-pie").glob("2-3-*-value.json"))) == len(jobs)
    assert not list(tmp_path.glob("2-3-*-value.json"))  # the first-move records' folder is not touched
    table = json.loads((tmp_path / "2-3-pie.json").read_text())
    solved = json.loads(SOLVED_2_3_PIE.read_text())  # alpha-beta's, by scripts/solve_boards.py
    assert table["pairs"] == solved["pairs"] and table["summary"] == solved["summary"]
    assert table["decided"] == "182 of 182 pairs" and table["value"] == "loss"
    assert table["variant"] == solved["variant"]
    assert table["certified"] == f"1 of {len(jobs)} classes"
    first = next(c for c in table["classes"] if c["key"] == jobs[0].key)
    assert first["certificate"]["positions"] > 1 and (certs / first["certificate"]["file"]).exists()
    assert first["value"] == solved["pairs"][jobs[0].key] and first["verified"]
    assert table["nodes"] == sum(c["nodes"] for c in table["classes"]) > 0
    # the map is the committed map: the same pairs drawn the same way
    assert (tmp_path / "2-3-pie-map.svg").read_text() == SOLVED_2_3_PIE.with_name("2-3-pie-map.svg").read_text()
    capsys.readouterr()
    run(script, monkeypatch, "--board", "2/3", "--pie", "--status")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + len(jobs) and lines[0].split()[2] == "winner"
    row = next(x for x in lines if x.startswith(jobs[0].key + " "))
    assert f" {solved['pairs'][jobs[0].key]} " in row and "checked" in row


def test_a_pie_file_that_decides_more_pairs_is_left_alone(script, tmp_path, monkeypatch, capsys):
    from solver.app.openings import pie_jobs

    theirs = json.loads(SOLVED_2_3_PIE.read_text())
    (tmp_path / "2-3-pie.json").write_text(json.dumps(theirs))
    job = pie_jobs(Position.start(Board.parse("2/3")))[0]
    run(script, monkeypatch, "--board", "2/3", "--pie", "--classes", job.key, "--tt-mb", "16")
    assert "decides 182 pairs, these records 4: left alone" in capsys.readouterr().err
    assert json.loads((tmp_path / "2-3-pie.json").read_text()) == theirs
    # collecting alone says the same, and what the file it left decides
    run(script, monkeypatch, "--board", "2/3", "--pie", "--collect")
    err = capsys.readouterr().err
    assert "left alone" in err and f"2/3 pie: {theirs['value']} for the first player; 182 of 182 pairs decided" in err


def test_pie_pairs_after_a_winning_first_move_are_decided_by_its_certificate(script, tmp_path, monkeypatch, capsys):
    """(a first-move class that Light wins with a checked certificate decides every pie pair
    with that Light stone, one that Dark wins the pair of its winning reply: the pie runner
    passes over them, and their values are alpha-beta's)"""
    from solver.app.openings import pie_jobs

    board = Board.parse("2/3")
    solved = json.loads(SOLVED_2_3_PIE.read_text())  # alpha-beta's, by scripts/solve_boards.py
    # first-move records without certificates decide nothing of the pie
    run(script, monkeypatch, "--board", "2/3", "--tt-mb", "16")
    run(script, monkeypatch, "--board", "2/3", "--pie", "--collect")
    assert json.loads((tmp_path / "2-3-pie.json").read_text())["decided"] == "0 of 182 pairs"
    # with checked certificates, every pair whose Light stone wins the first move is decided
    run(script, monkeypatch, "--board", "2/3", "--tt-mb", "16", "--certificates", str(tmp_path / "certs"))
    first = json.loads((tmp_path / "2-3.json").read_text())
    winning = {m for m, v in first["moves"].items() if v == "win"}
    assert winning and first["certified"] == f"{len(first['classes'])} of {len(first['classes'])} classes"
    run(script, monkeypatch, "--board", "2/3", "--pie", "--collect")
    table = json.loads((tmp_path / "2-3-pie.json").read_text())
    decided = {p: v for p, v in table["pairs"].items() if v != "unknown"}
    assert decided == {p: solved["pairs"][p] for p in decided}
    # Light's: every pair whose Light stone wins the first move; Dark's: the pairs of
    # each lost first move's winning reply, the move at its certificate's root
    assert {p for p, v in decided.items() if v == "L"} == {p for p in table["pairs"] if p.split("-")[0] in winning}
    assert len(winning) * (board.size - 1) == sum(v == "L" for v in decided.values())
    import gzip
    dark = set()
    for c in first["classes"]:
        if c["light"] != "loss":
            continue
        root = json.loads(gzip.decompress((tmp_path / "certs" / c["certificate"]["file"]).read_bytes()))["nodes"][0]
        assert root["move"] == c["line"][0]  # the line's first move is the certificate's
        pair = Position.parse(c["position"]).play(root["move"])
        dark |= {m for j in pie_jobs(Position.start(board)) for m in j.members
                 if str(Position.parse(j.position)) in {str(pair.transform(s)) for s in range(len(board.symmetries))}}
    assert dark and {p for p, v in decided.items() if v == "D"} == dark
    by = [c for c in table["classes"] if "first_move" in c]
    assert by and all(c["certificate"]["sha256"] for c in by) and table["by_first_move"]
    for c in by:  # the reply named is the pair's position, up to a symmetry
        fm = next(k for k in first["classes"] if k["members"][0] == c["first_move"]["class"])
        child = Position.parse(fm["position"]).play(c["first_move"]["reply"])
        images = {str(Position.parse(c["position"]).transform(s)) for s in range(len(board.symmetries))}
        assert str(child) in images
    # the pie runner passes over those classes: it writes no record of its own for them
    job = next(j for j in pie_jobs(Position.start(board)) if j.key.split("-")[0] in winning)
    capsys.readouterr()
    run(script, monkeypatch, "--board", "2/3", "--pie", "--classes", job.key, "--tt-mb", "16")
    assert "Light wins it by the certificate of first-move class" in capsys.readouterr().err
    assert not list((tmp_path / "2-3-pie").glob("2-3-*-value.json"))


def test_ctrl_c_between_classes_is_one_line(script, tmp_path, monkeypatch):
    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(classes, "first_move_proof", stopped)
    with pytest.raises(SystemExit, match="^solve_openings: interrupted between classes"):
        run(script, monkeypatch, "--board", "2/3", "--pie", "--tt-mb", "16")
    assert not list(tmp_path.rglob("*-value.json"))


@pytest.mark.parametrize("option, value, says", [
    ("--time", "-5", "--time -5: give a number of seconds"),
    ("--max-nodes", "-1", "--max-nodes -1: give a whole number of nodes"),
    ("--tt-mb", "100000000", "--tt-mb 100000000: a table of"),
])
def test_a_budget_that_cannot_be_is_one_line_and_nothing_is_written(script, tmp_path, monkeypatch, option, value, says):
    with pytest.raises(SystemExit, match=f"^solve_openings: {says}"):
        run(script, monkeypatch, "--board", "2/3", option, value, "--tables", "none")
    assert not list(tmp_path.rglob("*.json"))


def test_a_certificate_cap_that_is_not_the_default_is_in_the_command(tmp_path):
    board = Board.parse("2/3")
    plain = classes.ClassSettings(folder=tmp_path, certificates=tmp_path)
    capped = classes.ClassSettings(folder=tmp_path, certificates=tmp_path, certificate_nodes=123)
    assert "--certificate-nodes" not in plain.command(board, "c1")
    assert capped.command(board, "c1").endswith(f"--certificates {tmp_path} --certificate-nodes 123")


def test_a_node_budget_stops_a_class_and_is_in_its_command(script, tmp_path, monkeypatch):
    job = opening_jobs(Position.start(Board.parse("2/3")))[0]
    run(script, monkeypatch, "--board", "2/3", "--classes", job.key, "--max-nodes", "20", "--tt-mb", "16",
        "--tables", "none")
    rec = json.loads(value_path(tmp_path, Position.parse(job.position)).read_text())
    assert rec["value"] == "unknown" and 20 <= rec["nodes"] < 20_000
    assert "--max-nodes 20 " in rec["command"]
    # without the budget the same class is decided: the budget, not the class, stopped it
    run(script, monkeypatch, "--board", "2/3", "--classes", job.key, "--tt-mb", "16", "--tables", "none")
    assert json.loads(value_path(tmp_path, Position.parse(job.position)).read_text())["value"] in ("win", "loss")


def test_plant_puts_the_certificates_of_a_light_stones_decided_classes_in_the_table(script, tmp_path, monkeypatch,
                                                                                   capsys):
    from solver.app.openings import pie_jobs
    from solver.reference.certificate import check

    jobs = pie_jobs(Position.start(Board.parse("2/3")))
    stone = jobs[0].key.split("-")[0]
    row = [j for j in jobs if j.key.split("-")[0] == stone]
    assert len(row) >= 3
    certs = tmp_path / "certs"
    first = ",".join(j.key for j in row[:2])
    run(script, monkeypatch, "--board", "2/3", "--pie", "--classes", first, "--tt-mb", "16", "--certificates", str(certs))
    capsys.readouterr()
    last = row[2]
    run(script, monkeypatch, "--board", "2/3", "--pie", "--classes", last.key, "--tt-mb", "16",
        "--certificates", str(certs), "--plant")
    said = capsys.readouterr().err
    assert f"{last.key}: planted {row[0].key}'s certificate" in said and f"planted {row[1].key}'s" in said
    rec = json.loads(value_path(tmp_path / "2-3-pie", Position.parse(last.position)).read_text())
    solved = json.loads(SOLVED_2_3_PIE.read_text())
    assert rec["planted"] == [row[0].key, row[1].key] and rec["command"].endswith(" --plant")
    assert rec["value"] == ("win" if solved["pairs"][last.key] == "L" else "loss") and rec["verified"]
    assert check(certs / rec["certificate"]["file"]) == rec["certificate"]["positions"]
    with pytest.raises(SystemExit, match="--plant needs --pie and --certificates"):
        run(script, monkeypatch, "--board", "2/3", "--pie", "--plant")
    # a spoilt certificate is passed over with one line, and the class is proven without it
    (certs / f"2-3-{row[0].key}.json.gz").write_bytes(b"not gzip")
    os.remove(value_path(tmp_path / "2-3-pie", Position.parse(last.position)))
    run(script, monkeypatch, "--board", "2/3", "--pie", "--classes", last.key, "--tt-mb", "16",
        "--certificates", str(certs), "--plant")
    said = capsys.readouterr().err
    assert f"{last.key}: {row[0].key}'s certificate not planted: " in said and "Traceback" not in said
    rec = json.loads(value_path(tmp_path / "2-3-pie", Position.parse(last.position)).read_text())
    assert rec["planted"] == [row[1].key] and rec["verified"]


def test_long_work_speaks_at_most_once_a_minute():
    clock = iter([0.0, 10.0, 59.0, 61.0, 61.0, 90.0, 122.0, 122.0])
    said = []
    maybe = classes._every_minute(said.append, clock=lambda: next(clock))
    for t in (10, 59, 61, 90, 122):
        maybe(lambda t=t: f"at {t}")
    assert said == ["at 61", "at 122"]
