"""Malformed files fed to every ``meridians puzzles`` command that reads one.

``puzzles audit FILE``, ``puzzles show ID -f FILE``, ``puzzles book FILE`` and
``puzzles generate --out F`` (its ``F.state.json``, and ``F`` itself when it resumes) get
deep nesting, truncated records, binary bytes (a gzip file among them: puzzle files are
never compressed), wrong JSON types in every field and at the top, huge numbers, NaN and
Infinity, empty files, a folder and a missing file.  Each run goes through
``solver.cli.main``, in process, so an exception it does not map to a message fails the
test as a traceback would.  What must hold: exit 2 with exactly one line on stderr
naming the file whenever the input is refused; otherwise the command's own codes (audit
0/1, show and book 0); never anything else.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from solver import RULES_VERSION, __version__
from solver.cli import main

GOOD = {"id": "m23-c1-0001", "position": "2/1D1/4/L2/2 L", "target": "d2", "n": 1, "key": "b3", "line": ["b3"]}
GOOD_LINE = json.dumps(GOOD)

#: values of the wrong type (or out of range) for any field
ODD_VALUES = [None, [], {}, "x", "", 0, -1, 1.5, True, 10**400, [[["a"]]], {"a": {"b": [1]}},
              math.nan, math.inf, -math.inf, "9" * 300, ["b3", 7], "\u0000\ufffd"]


def _contents() -> list[tuple[str, bytes]]:
    """(name, bytes) of every malformed puzzle file."""
    out = [
        ("empty", b""),
        ("blank lines", b"\n \n\t\n"),
        ("deep array", b"[" * 5000 + b"]" * 5000 + b"\n"),
        ("deep object", b'{"a":' * 3000 + b"1" + b"}" * 3000 + b"\n"),
        ("deep in a field", ('{"id": "x", "position": ' + "[" * 4000 + "]" * 4000 + "}\n").encode()),
        ("deep unclosed", b"[" * 100000),
        ("binary", bytes(random.Random(1).randrange(256) for _ in range(600))),
        ("gzip", gzip.compress((GOOD_LINE + "\n").encode())),
        ("nul bytes", b"\x00" * 64),
        ("utf-16", (GOOD_LINE + "\n").encode("utf-16")),
        ("long digits", ('{"id": "x", "n": ' + "7" * 5000 + "}\n").encode()),
        ("huge float", GOOD_LINE.replace('"n": 1', '"n": 1e999').encode()),
        ("NaN", GOOD_LINE.replace('"n": 1', '"n": NaN').encode()),
        ("Infinity", GOOD_LINE.replace('"n": 1', '"n": -Infinity').encode()),
        ("two ids", (GOOD_LINE + "\n" + GOOD_LINE + "\n").encode()),
        ("good then bad", (GOOD_LINE + "\n" + GOOD_LINE[:20] + "\n").encode()),
    ]
    for cut in range(1, len(GOOD_LINE), 7):
        out.append((f"truncated at {cut}", GOOD_LINE[:cut].encode()))
    for top in ("[]", '"x"', "1", "null", "true", "[" + GOOD_LINE + "]"):
        out.append((f"top-level {top[:10]}", top.encode()))
    for field in ("id", "position", "target", "n", "key", "line", "dual_free", "difficulty", "score", "nodes",
                  "generator", "version"):
        for i, v in enumerate(ODD_VALUES):
            out.append((f"{field}={i}", json.dumps(dict(GOOD, **{field: v})).encode()))
        out.append((f"no {field}", json.dumps({k: w for k, w in GOOD.items() if k != field}).encode()))
    return out


CONTENTS = _contents()


def run(*args: str) -> tuple[int, str, str]:
    """``meridians ARGS`` through ``solver.cli.main``: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
            code = 0
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


def refused_in_one_line(code: int, err: str, path: Path) -> bool:
    lines = err.splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and lines[0].startswith("meridians: error: "), err
    assert str(path) in lines[0] or path.name in lines[0], err
    return True


def test_every_puzzle_command_on_every_malformed_file(tmp_path):
    refused = 0
    for i, (name, data) in enumerate(CONTENTS):
        f = tmp_path / f"f{i}.jsonl"
        f.write_bytes(data)
        for args, allowed in [
            (["puzzles", "audit", str(f)], {0, 1, 2}),
            (["puzzles", "show", GOOD["id"], "-f", str(f), "--solution"], {0, 2}),
            (["puzzles", "book", str(f), "--out", str(tmp_path / f"book{i}")], {0, 2}),
        ]:
            code, _, err = run(*args)
            assert code in allowed, (name, args, code, err)
            assert "Traceback" not in err
            if code == 2:
                refused += refused_in_one_line(code, err, f)
    assert refused > 2 * len(CONTENTS)  # most of them are refused by all three


@pytest.mark.parametrize("kind", ["folder", "missing"])
def test_a_folder_or_a_missing_file(tmp_path, kind):
    f = tmp_path / "x.jsonl"
    if kind == "folder":
        f.mkdir()
    for args in (["puzzles", "audit", str(f)], ["puzzles", "show", "x", "-f", str(f)],
                 ["puzzles", "book", str(f), "--out", str(tmp_path / "b")]):
        code, out, err = run(*args)
        assert refused_in_one_line(code, err, f) and out == ""


#: the fields of a state file and one good value each
STATE = {"format": "meridians-generate/1", "rules": RULES_VERSION, "version": __version__, "board": "4/5", "n": 1,
         "method": "sat", "seed": 0, "source": "random", "units": 4, "candidates": 3, "cpu_seconds": 0.5, "found": 1,
         "found_dual_free": 1, "near_duplicates": 0, "kept": 1}


def _states() -> list[tuple[str, bytes]]:
    out = [(name, data) for name, data in CONTENTS if "=" not in name and not name.startswith("no ")]
    for field, good in STATE.items():
        if field in ("kept", "version"):
            continue  # written for the reader, not read back; a state of any code version resumes
        for i, v in enumerate(ODD_VALUES):
            if v == good and type(v) is type(good):
                continue
            if isinstance(good, (int, float)) and not isinstance(v, (bool, str)) and isinstance(v, (int, float)) \
                    and 0 <= v < 2**63 and (isinstance(good, float) or isinstance(v, int)) and v == v:
                continue  # another count (or time): a good state
            out.append((f"state {field}={i}", json.dumps(dict(STATE, **{field: v})).encode()))
        out.append((f"state without {field}", json.dumps({k: w for k, w in STATE.items() if k != field}).encode()))
    return out


def test_generate_on_every_malformed_state_file(tmp_path):
    out = tmp_path / "g.jsonl"
    for name, data in _states():
        out.write_text("")
        state = tmp_path / "g.jsonl.state.json"
        state.write_bytes(data)
        code, text, err = run("puzzles", "generate", "--board", "4/5", "--n", "1", "--count", "1",
                              "--out", str(out))
        assert "Traceback" not in err
        assert refused_in_one_line(code, err, state) and text == "", name
        assert out.read_text() == "" and state.read_bytes() == data, name  # nothing written
        assert not (tmp_path / "g.jsonl.lock").exists()
    # a state file that is a folder
    state.unlink()
    state.mkdir()
    code, _, err = run("puzzles", "generate", "--board", "4/5", "--n", "1", "--count", "1", "--out", str(out))
    assert refused_in_one_line(code, err, state)


def test_generate_resuming_a_malformed_puzzle_file(tmp_path):
    out = tmp_path / "g.jsonl"
    (tmp_path / "g.jsonl.state.json").write_text(json.dumps(STATE))
    for name, data in CONTENTS:
        if name in ("empty", "blank lines"):
            continue  # an empty set resumes
        out.write_bytes(data)
        code, text, err = run("puzzles", "generate", "--board", "4/5", "--n", "1", "--count", "1",
                              "--out", str(out))
        assert code in (0, 2), (name, code, err)
        if code == 2:
            assert refused_in_one_line(code, err, out) and text == "", name
            assert out.read_bytes() == data, name


def test_the_installed_command_has_no_traceback(tmp_path):
    # the one path not in process: the entry point that adds the group to meridians
    f = tmp_path / "deep.jsonl"
    f.write_text("[" * 5000 + "\n")
    r = subprocess.run([sys.executable, "-m", "solver.cli", "puzzles", "audit", str(f)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [f"meridians: error: {f}, line 1: JSON nested deeper than 32 levels"]
