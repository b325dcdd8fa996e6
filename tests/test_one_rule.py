"""The shared vocabulary has one rule each: the value of a finished game
(:meth:`Value.from_outcome`) and the provenance stamp with its rule for ``-dirty``
(:mod:`solver.util.provenance`) are written once, and every user goes through them."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = [p for d in ("solver", "puzzles", "scripts") for p in sorted((ROOT / d).rglob("*.py"))]

# a hand-written conversion of an outcome ('L', 'D', 'draw') into a value for the player
# to move: "win" if outcome == to_move else "loss"
_OUTCOME_TO_VALUE = re.compile(r'"win" if [^\n]{0,60}== [^\n]{0,40}to_move else "loss"')


def test_outcomes_become_values_only_through_value_from_outcome():
    found = [f"{p.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}"
             for p in CODE for text in [p.read_text(encoding="utf-8")] for m in _OUTCOME_TO_VALUE.finditer(text)]
    assert not found, f"use Value.from_outcome instead: {found}"


def test_prove_of_a_finished_game_is_its_value_from_outcome():
    from solver import Board, Position
    from solver.search.limit import Limit
    from solver.search.prove import prove
    from solver.search.values import Value

    pos = Position.start(Board.parse("1/2"))
    while pos.outcome is None:
        pos = pos.play(pos.legal_moves()[0])
    proof = prove(pos, Limit(tt_mb=1), method="alphabeta")
    assert proof.value == Value.from_outcome(pos.outcome, pos.to_move) and proof.nodes == 0


def _git_checkout(top: Path) -> None:
    import subprocess

    for folder in ("solver", "puzzles", "scripts", "results"):
        (top / folder).mkdir()
        (top / folder / "x.py").write_text("x = 1\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=top, check=True)
    subprocess.run([*git, "add", "."], cwd=top, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "c"], cwd=top, check=True)


def test_puzzle_records_use_the_one_dirty_rule(tmp_path):
    import solver
    from puzzles.record import code_version
    from solver.util.provenance import code_revision

    _git_checkout(tmp_path)
    clean = code_version(tmp_path)
    assert clean == f"{solver.__version__}+{code_revision(tmp_path)}" and not clean.endswith("-dirty")
    (tmp_path / "results" / "x.py").write_text("x = 2\n")   # results do not count
    assert code_version(tmp_path) == clean
    (tmp_path / "scripts" / "x.py").write_text("x = 2\n")   # scripts do (the old rule left them out)
    assert code_version(tmp_path) == clean + "-dirty" == f"{solver.__version__}+{code_revision(tmp_path)}"
    assert code_version() == f"{solver.__version__}+{code_revision()}"  # this checkout


def test_a_certificate_header_holds_the_provenance_stamp(tmp_path):
    from solver import Board, Position
    from solver.reference.certificate import check
    from solver.util.provenance import provenance
    from solver.search.certificate import write_certificate

    path = tmp_path / "c.json"
    head = write_certificate(path, Position.start(Board.parse("1/2")), tt_mb=1, command="meridians verify 1/2")
    stamp = provenance("meridians verify 1/2")
    assert head["code"] == stamp and head["version"] == 1  # the format's version is untouched
    assert check(path) == head["node_count"]


def test_write_certificates_script_stamps_its_command(tmp_path, monkeypatch, capsys):
    import importlib.util
    import json

    from solver.util.provenance import provenance

    spec = importlib.util.spec_from_file_location("write_certificates", ROOT / "scripts" / "write_certificates.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    monkeypatch.setattr(script, "OUT", tmp_path)
    script.main(["--boards", "1/2", "--tt-mb", "1"])
    head = json.loads((tmp_path / "1-2.json").read_text())
    assert head["code"] == provenance("python scripts/write_certificates.py --boards 1/2 --tt-mb 1")


def test_verify_certificate_stamps_the_command_line(tmp_path, capsys):
    import json

    import pytest

    from solver.cli import main

    path = tmp_path / "c.json"
    with pytest.raises(SystemExit) as e:
        main(["verify", "1/2", "--certificate", str(path)])
    assert e.value.code == 0, capsys.readouterr().err
    head = json.loads(path.read_text())
    assert head["code"]["command"] == f"meridians verify 1/2 --certificate {path}"
    assert list(head["code"]) == ["command", "version", "revision", "rules", "python"]
