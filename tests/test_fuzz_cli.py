"""Malformed input to the solver's commands: never a traceback.

Every input here is fed to ``solver.cli.main`` in this process (the entry point of the
``meridians`` command, with its error handling), and each must end with the documented
exit code (2: bad input), exactly one line on stderr, and no traceback.  Files: deep
nesting (plain and gzip), truncated and corrupt gzip, wrong JSON types at each level of
a checkpoint, binary bytes, huge numbers, NaN and Infinity, an empty file, a folder, a
missing file.  Options: NaN, infinities, huge, negative and empty values.  Positions:
hand-picked and random strings.
"""

from __future__ import annotations

import copy
import gzip
import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.cli import cli, main


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``meridians ARGV`` run in this process."""
    with pytest.raises(SystemExit) as e:
        main(list(argv))
    out, err = capsys.readouterr()
    code = e.value.code
    # the first use of a board in a process (a fresh clone: numba's cache is cold) says
    # once that its kernels compile; that notice is progress, not an error line
    err = "".join(line for line in err.splitlines(keepends=True) if not line.startswith("compiling the "))
    return (0 if code is None else code), out, err


def assert_one_line_error(code: int, out: str, err: str, *, expected: int = 2, fragment: str | None = None):
    assert code == expected, (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("meridians: error: "), err
    assert "Traceback" not in out + err
    if fragment is not None:
        assert fragment in lines[0], lines[0]


# -- files --------------------------------------------------------------------------------------


def _corrupt_gzip(payload: bytes) -> bytes:
    data = bytearray(gzip.compress(payload))
    data[len(data) // 2] ^= 0x5A
    return bytes(data)


_DEEP = b"[" * 100_000 + b"]" * 100_000
BAD_BYTES = {
    "empty": b"",
    "deep nesting": _DEEP,
    "deep nesting in an object": b'{"results": ' + b'{"a": ' * 30_000 + b"1" + b"}" * 30_001,
    "deep nesting, gzip": gzip.compress(_DEEP),
    "truncated gzip": gzip.compress(b'{"format": 1, "results": {}}' * 50)[:30],
    "corrupt gzip": _corrupt_gzip(b'{"format": 1, "results": {"a1": {"value": "win"}}}' * 200),
    "binary": bytes(range(256)) * 8,
    "NUL bytes": b"\x00" * 64,
    "huge number": b'{"format": ' + b"9" * 5000 + b"}",
    "huge float": b'{"format": 1e999}',
    "NaN": b'{"format": NaN}',
    "Infinity": b'{"format": Infinity}',
    "not JSON": b"checkpoint? no",
    "a list": b"[1, 2, 3]",
    "a string": b'"checkpoint"',
    "null": b"null",
}


@pytest.mark.parametrize("name", BAD_BYTES)
def test_solve_with_a_malformed_checkpoint(capsys, tmp_path, name):
    path = tmp_path / "ck.json"
    path.write_bytes(BAD_BYTES[name])
    code, out, err = run_main(capsys, "solve", "2/3", "--checkpoint", str(path))
    assert_one_line_error(code, out, err, fragment=str(path))
    assert path.read_bytes() == BAD_BYTES[name]  # nothing written over


@pytest.mark.parametrize("command", ["verify", "analyse"])
@pytest.mark.parametrize("name", BAD_BYTES)
def test_verify_with_a_malformed_game_record(capsys, tmp_path, name, command):
    path = tmp_path / "game.txt"
    path.write_bytes(BAD_BYTES[name])
    code, out, err = run_main(capsys, command, "--game", str(path), "--board", "2/3")
    assert_one_line_error(code, out, err, fragment=str(path))


def test_a_folder_or_a_missing_file(capsys, tmp_path):
    code, out, err = run_main(capsys, "verify", "--game", str(tmp_path))
    assert_one_line_error(code, out, err, fragment="is a directory")
    code, out, err = run_main(capsys, "verify", "--game", str(tmp_path / "missing.txt"))
    assert_one_line_error(code, out, err, fragment=f"{tmp_path / 'missing.txt'}: game record: no such file")
    code, out, err = run_main(capsys, "solve", "2/3", "--checkpoint", str(tmp_path))
    assert_one_line_error(code, out, err, fragment="is a directory")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> dict:
    """A real checkpoint of ``solve 2/3`` (every class decided), as JSON."""
    path = tmp_path_factory.mktemp("ck") / "ck.json"
    result = CliRunner().invoke(cli, ["solve", "2/3", "--checkpoint", str(path), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(path.read_text())


def _first(results: dict) -> str:
    return sorted(results)[0]


def _edits():
    """(name, function changing a checkpoint in place): one wrong type at each level."""
    def at_result(field, value):
        def edit(d):
            d["results"][_first(d["results"])][field] = value
        return edit

    def top(field, value):
        def edit(d):
            d[field] = value
        return edit

    yield "format a string", top("format", "1")
    yield "version a number", top("version", 1)
    yield "jobs an object", top("jobs", {"a": 1})
    yield "jobs a list of numbers", top("jobs", [1, 2, 3])
    yield "results a list", top("results", [1, 2])
    yield "results a string", top("results", "all won")
    yield "results of an unknown job", lambda d: d["results"].update({"zz9": {"value": "win"}})
    yield "result a number", lambda d: d["results"].update({_first(d["results"]): 5})
    yield "result a list", lambda d: d["results"].update({_first(d["results"]): ["win"]})
    yield "value unknown word", at_result("value", "maybe")
    yield "value a number", at_result("value", 1)
    yield "nodes a string", at_result("nodes", "many")
    yield "nodes a float", at_result("nodes", 1.5)
    yield "nodes a bool", at_result("nodes", True)
    yield "seconds a string", at_result("seconds", "1")
    yield "runs a string", at_result("runs", "x")
    yield "runs a list", at_result("runs", [1])
    yield "line a number", at_result("line", 5)
    yield "line of numbers", at_result("line", [1, 2])
    yield "notes a number", at_result("notes", 7)
    yield "notes an object", at_result("notes", {"a": 1})
    yield "horizon a list", at_result("horizon", [])
    yield "horizon a string", at_result("horizon", "deep")
    yield "verified a string", at_result("verified", "yes")
    yield "method a number", at_result("method", 3)


@pytest.mark.parametrize("name,edit", list(_edits()), ids=[n for n, _ in _edits()])
def test_solve_with_a_checkpoint_of_wrong_types(capsys, tmp_path, checkpoint, name, edit):
    data = copy.deepcopy(checkpoint)
    edit(data)
    path = tmp_path / "ck.json"
    path.write_text(json.dumps(data))
    code, out, err = run_main(capsys, "solve", "2/3", "--checkpoint", str(path))
    assert_one_line_error(code, out, err, fragment=str(path))


def test_the_unchanged_checkpoint_is_resumed(capsys, tmp_path, checkpoint):
    # the control of the test above: its edits, not the copying, make the errors
    path = tmp_path / "ck.json"
    path.write_text(json.dumps(checkpoint))
    code, out, err = run_main(capsys, "solve", "2/3", "--checkpoint", str(path))
    assert code == 0, err
    assert f"5 resumed from {path}" in out


# -- options ------------------------------------------------------------------------------------

BAD_NUMBERS = ["nan", "NaN", "inf", "-inf", "Infinity", "1e999", "-1", "0", "", " ", "1e12", "9" * 5000, "x"]


@pytest.mark.parametrize("value", BAD_NUMBERS, ids=lambda v: v[:12] or "empty")
@pytest.mark.parametrize("command,option", [
    (["solve", "2/3"], "--time"), (["solve", "2/3"], "--tt-mb"), (["verify", "2/3", "--claim", "win"], "--time"),
    (["verify", "2/3"], "--tt-mb"), (["bench", "--board", "1/2"], "--seconds"),
])
def test_bad_budget_values(capsys, tmp_path, command, option, value):
    args = [*command, option, value]
    if command[0] == "solve":
        args += ["--checkpoint", str(tmp_path / "ck.json")]
    code, out, err = run_main(capsys, *args)
    assert_one_line_error(code, out, err, fragment=option)
    assert "Exceeds the limit" not in err


@pytest.mark.parametrize("args", [
    ["solve", "2/3", "--max-nodes", "-1"],
    ["solve", "2/3", "--max-nodes", "9" * 30],
    ["solve", "2/3", "--max-nodes", "9" * 5000],
    ["solve", "2/3", "--max-nodes", "1.5"],
    ["solve", "2/3", "--jobs", "0"],
    ["solve", "2/3", "--jobs", "-3"],
    ["solve", "2/3", "--jobs", "100000"],
    ["solve", "2/3", "--method", "magic"],
    ["solve", "2/3", "--backend", "dask", "--scheduler", "garbage"],
    ["solve", "2/3", "--backend", "dask", "--scheduler", ""],
    ["solve", "2/3", "--backend", "dask"],
    ["solve", "2/3", "--scheduler", "tcp://h:1"],
    ["verify", "2/3", "--max-plies", "-1"],
    ["verify", "2/3", "--max-plies", "1e3"],
    ["verify", "2/3", "--claim", "maybe"],
    ["verify", "2/3", "--moves", "c1,zz"],
    ["verify", "2/3", "--moves", "c1,c1"],
    ["verify"],
    ["perft", "2/3", "-1"],
    ["perft", "2/3", "65"],
    ["perft", "2/3", "nan"],
    ["perft", "2/3", ""],
    ["play", "--board", ""],
    ["play", "--board", "nan"],
    ["play", "--start", ""],
    ["play", "--board", "2/3", "--seed", "nan"],
    ["play", "--board", "2/3", "--max-plies", "-1"],
    ["bench", "--board", "2/3", "--seconds", "3601"],
    ["bench", "--board", "2/3", "--seed", "1.5"],
    ["show", ""],
    ["show", "²"],
    ["show", "2/3/4/3/2"],
    ["show", "9" * 5000],
    ["show", "2/3/" + "9" * 5000 + "/3/2 L"],
], ids=lambda a: " ".join(x[:12] for x in a))
def test_bad_options_and_arguments(capsys, tmp_path, args):
    if args[0] == "solve":
        args = [*args, "--checkpoint", str(tmp_path / "ck.json")]
    code, out, err = run_main(capsys, *args)
    assert_one_line_error(code, out, err)
    for leak in ("Exceeds the limit", "invalid literal for int", "object has no attribute", "NoneType"):
        assert leak not in err


# -- positions ----------------------------------------------------------------------------------

_NOTATION = st.sampled_from(list("LD0123456789/ ") + ["\t", "\u00a0", "\n", "²", "١", "-", "x", "l", "\x00"])


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.text(_NOTATION, max_size=40), st.text(max_size=30)))
def test_random_position_strings(capsys, text):
    # a diagram, or one line and exit 2
    try:
        code, out, err = run_main(capsys, "show", text)
    finally:
        capsys.readouterr()
    if code == 0:
        assert err == "" and out
    else:
        assert_one_line_error(code, out, err)
        for leak in ("Exceeds the limit", "invalid literal", "int()"):
            assert leak not in err
