"""solver.util.provenance: the stamp of every results file, and its one rule for "-dirty"."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from solver import RULES_VERSION, __version__
from solver.util.provenance import code_revision, provenance

ROOT = Path(__file__).resolve().parent.parent
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(cwd), "PATH": "/usr/bin:/bin"}).stdout.strip()


@needs_git
def test_a_change_to_the_code_makes_the_revision_dirty_a_result_does_not(tmp_path):
    for d in ("solver", "puzzles", "scripts", "results", "tests"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "f.py").write_text("x = 1\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "one")
    head = _git(tmp_path, "rev-parse", "--short", "HEAD")
    assert code_revision(tmp_path) == head
    (tmp_path / "results" / "f.py").write_text("x = 2\n")  # a result written, a test changed
    (tmp_path / "tests" / "f.py").write_text("x = 2\n")
    (tmp_path / "results" / "new.json").write_text("{}")
    assert code_revision(tmp_path) == head
    for d in ("solver", "puzzles", "scripts"):  # the code: one rule for every writer
        (tmp_path / d / "f.py").write_text("x = 3\n")
        assert code_revision(tmp_path) == head + "-dirty", d
        _git(tmp_path, "checkout", "-q", "--", d)
    (tmp_path / "pyproject.toml").write_text("")
    assert code_revision(tmp_path) == head + "-dirty"


def test_outside_a_checkout_the_revision_is_unknown(tmp_path):
    assert code_revision(tmp_path) == "unknown"


def test_the_stamp_has_its_fields_in_the_order_of_the_committed_results():
    stamp = provenance("python scripts/x.py --board 2/3", revision="abc1234")
    assert stamp == {"command": "python scripts/x.py --board 2/3", "version": __version__,
                     "revision": "abc1234", "rules": RULES_VERSION, "python": stamp["python"]}
    committed = json.loads((ROOT / "results" / "solutions" / "2-3.json").read_text())
    fields = [k for k in committed if k in stamp]
    assert fields == list(stamp)  # the same keys, in the same order, as before the stamp
    assert provenance("c")["revision"] == code_revision()
