"""Reading and writing files, file locks and the state folder (solver/util/files.py), and search
budgets (solver/search/limit.py)."""

from __future__ import annotations

import gzip
import json
import math
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solver.util.files import (CACHE_DIR_ENV, STATE_DIR_ENV, ExclusiveLock, FileFormatError, FileLockedError, cache_dir,
                          read_json, read_text, state_dir, write_atomic, write_atomic_all, write_atomic_chunks,
                          write_json)
from solver.search.limit import MAX_NODES, MAX_SECONDS, Limit, LimitError, check_seconds

# -- write_atomic -------------------------------------------------------------------------------


def test_new_file_gets_the_umask_mode(tmp_path):
    old = os.umask(0o077)
    try:
        write_atomic(tmp_path / "private.txt", "x")
        os.umask(0o022)
        write_atomic(tmp_path / "shared.txt", "x")
        os.umask(0)
        write_atomic(tmp_path / "open.txt", b"x")
    finally:
        os.umask(old)
    modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()}
    assert modes == {"private.txt": 0o600, "shared.txt": 0o644, "open.txt": 0o666}


def test_file_written_over_keeps_its_mode(tmp_path):
    path = tmp_path / "book.html"
    path.write_text("old")
    path.chmod(0o640)
    write_atomic(path, "new")
    assert path.read_text() == "new" and path.stat().st_mode & 0o777 == 0o640


def test_missing_folders_are_created(tmp_path):
    path = tmp_path / "a" / "b" / "c.txt"
    write_atomic_chunks(path, [b"one ", b"two"])
    assert path.read_text() == "one two"


def test_write_json_is_indented_one_space_ends_in_a_newline_and_reads_back(tmp_path):
    path = tmp_path / "new" / "report.json"
    value = {"a": [1, None], "n": "é"}
    write_json(path, value)
    assert path.read_text(encoding="utf-8") == '{\n "a": [\n  1,\n  null\n ],\n "n": "\\u00e9"\n}\n'
    assert read_json(path) == value
    with pytest.raises(TypeError):  # not JSON: the file already there stays as it was
        write_json(path, {"x": object()})
    assert read_json(path) == value and [p.name for p in path.parent.iterdir()] == ["report.json"]


def test_write_atomic_all_writes_every_file_or_none(tmp_path, monkeypatch):
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "new" / "c.jsonl"
    a.write_text("old a")
    a.chmod(0o640)
    b.write_text("old b")
    write_atomic_all({a: "new a", b: b"new b", c: "new c"})
    assert (a.read_text(), b.read_text(), c.read_text()) == ("new a", "new b", "new c")
    assert a.stat().st_mode & 0o777 == 0o640

    def files():
        return sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))

    # a text that cannot be written (a file where its folder should be): no file changes
    (tmp_path / "plain").write_text("a file, not a folder")
    with pytest.raises(OSError) as e:
        write_atomic_all({a: "newer a", tmp_path / "plain" / "x": "x", b: "newer b"})
    assert e.value.filename == str(tmp_path / "plain" / "x")
    assert (a.read_text(), b.read_text()) == ("new a", "new b") and ".part" not in " ".join(files())
    # a rename that fails after the first: the first is put back, a new file removed
    real, renames = os.replace, []

    def replace(src, dst):
        renames.append(dst)
        if len(renames) == 3:
            raise PermissionError(13, "Permission denied")
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    before = files()
    d = tmp_path / "d.jsonl"
    with pytest.raises(PermissionError) as e:
        write_atomic_all({a: "newer a", d: "new d", b: "newer b", c: "newer c"})
    assert e.value.filename == str(b) and renames[:3] == [a, d, b]
    assert (a.read_text(), b.read_text(), c.read_text()) == ("new a", "new b", "new c") and files() == before
    assert a.stat().st_mode & 0o777 == 0o640


def test_write_error_names_the_path_and_leaves_nothing(tmp_path):
    blocker = tmp_path / "plain"
    blocker.write_text("a file, not a folder")
    with pytest.raises(OSError) as e:
        write_atomic(blocker / "x.svg", "data")
    assert e.value.filename == str(blocker / "x.svg")
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(OSError) as e:
        write_atomic(folder, "data")  # a folder where the file should go: the rename fails
    assert e.value.filename == str(folder) and ".part" not in str(e.value)
    assert [p.name for p in folder.iterdir()] == [] and sorted(p.name for p in tmp_path.iterdir()) == [
        "folder", "plain"]


def test_interrupted_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "precious.json"
    path.write_text("old")

    def chunks():
        yield b"half"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomic_chunks(path, chunks())
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["precious.json"]


# -- read_text and read_json --------------------------------------------------------------------


def _corrupt_gzip() -> bytes:
    data = bytearray(gzip.compress(json.dumps({"nodes": list(range(2000))}).encode()))
    data[len(data) // 2] ^= 0x55  # deflate data damaged: zlib.error or a CRC failure
    return bytes(data)


BAD_FILES = {
    "empty": (b"", "the file is empty"),
    "blank": (b"  \n\t\n", "the file is empty"),
    "binary": (bytes(range(256)) * 4, "not a UTF-8 text file"),
    "nul bytes": (b"{}\x00\x00", "binary file"),
    "latin-1": ("{\"name\": \"é\"}".encode("latin-1"), "not a UTF-8 text file (byte 0xe9"),
    "deep list": (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    "deep object": (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, "nested too deeply"),
    "deep gzip": (gzip.compress(b"[" * 200_000), "nested too deeply"),
    "truncated gzip": (gzip.compress(b'{"a": [1, 2, 3]}' * 100)[:40], "truncated gzip"),
    "gzip header only": (b"\x1f\x8b", "gzip"),
    "corrupt gzip": (_corrupt_gzip(), "corrupt gzip"),
    "nan": (b'{"seconds": NaN}', "NaN is not a JSON number"),
    "infinity": (b'[-Infinity]', "-Infinity is not a JSON number"),
    "huge float": (b'{"x": 1e400}', "too large"),
    "long int": (b'[' + b"7" * 5000 + b']', "a number of 5000 digits"),
    "not json": (b"hello", "not valid JSON"),
    "truncated json": (b'{"a": [1, 2', "not valid JSON"),
}


@pytest.mark.parametrize("name", BAD_FILES)
def test_read_json_refuses_with_the_path_first(tmp_path, name):
    data, fragment = BAD_FILES[name]
    path = tmp_path / "in.json"
    path.write_bytes(data)
    with pytest.raises(FileFormatError) as e:
        read_json(path, "checkpoint")
    message = str(e.value)
    assert isinstance(e.value, ValueError)
    assert message.startswith(f"{path}: checkpoint: "), message
    assert fragment in message, message
    assert "\n" not in message and len(message) < 300


def test_read_json_missing_folder_and_unreadable(tmp_path):
    with pytest.raises(FileFormatError, match=f"^{tmp_path / 'nope.json'}: game record: no such file$"):
        read_json(tmp_path / "nope.json", "game record")
    with pytest.raises(FileFormatError, match="is a folder, not a file"):
        read_text(tmp_path, "game record")
    locked = tmp_path / "locked.json"
    locked.write_text("{}")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running as a user who reads any file (root)")
        with pytest.raises(FileFormatError, match="permission denied"):
            read_json(locked)
    finally:
        locked.chmod(0o600)


def test_read_json_types_and_gzip(tmp_path):
    path = tmp_path / "x"
    path.write_bytes(gzip.compress(b'{"a": [1, 2.5, "z", null, true]}'))  # gzip known by its bytes
    assert read_json(path, kind=dict) == {"a": [1, 2.5, "z", None, True]}
    assert read_text(path) == '{"a": [1, 2.5, "z", null, true]}'
    for text, name in (("[]", "an array"), ('"s"', "a string"), ("3", "an integer"), ("null", "null")):
        path.write_text(text)
        with pytest.raises(FileFormatError, match=f"expected a JSON object, not {name}$"):
            read_json(path, kind=dict)


# -- Limit -------------------------------------------------------------------------------------


def test_limit_accepts_sensible_values():
    assert Limit() == Limit(seconds=None, nodes=0, tt_mb=None)
    limit = Limit(seconds=3, nodes=10**6, tt_mb=16)
    assert (limit.seconds, limit.nodes, limit.tt_mb) == (3.0, 10**6, 16.0)
    assert isinstance(limit.seconds, float)
    assert Limit(seconds=MAX_SECONDS, nodes=MAX_NODES).nodes == MAX_NODES
    with pytest.raises(AttributeError):
        limit.seconds = 5  # frozen


@pytest.mark.parametrize("kwargs,message", [
    (dict(seconds=math.nan), "--time nan"),
    (dict(seconds=math.inf), "--time inf"),
    (dict(seconds=-1), "--time -1"),
    (dict(seconds=0), "--time 0"),
    (dict(seconds=MAX_SECONDS * 2), "--time 5184000: give a number of seconds greater than 0 (and at most 2592000)"),
    (dict(seconds="5"), "--time '5'"),
    (dict(seconds=10**400), "--time: the number is far too large"),
    (dict(nodes=-1), "--max-nodes -1"),
    (dict(nodes=2**63), "--max-nodes 9223372036854775808"),
    (dict(nodes=1.5), "--max-nodes 1.5"),
    (dict(nodes=True), "--max-nodes True"),
    (dict(tt_mb=math.nan), "--tt-mb nan"),
    (dict(tt_mb=-math.inf), "--tt-mb -inf"),
    (dict(tt_mb=0), "--tt-mb 0"),
    (dict(tt_mb=1e12), "--tt-mb 1000000000000: a table of 1,000,000,000,000 MiB does not fit"),
])
def test_limit_refuses_with_the_option_named(kwargs, message):
    with pytest.raises(LimitError) as e:
        Limit(**kwargs)
    assert isinstance(e.value, ValueError) and str(e.value).startswith(message), str(e.value)


def test_limit_checks_tables_against_the_memory(monkeypatch):
    import solver.search.limit as limit

    monkeypatch.setattr(limit, "available_memory_mb", lambda: 1000.0)
    assert Limit(tt_mb=900).tt_mb == 900
    with pytest.raises(LimitError, match="--tt-mb 1100: a table of 1,100 MiB does not fit in the 1,000 MiB"):
        Limit(tt_mb=1100)
    with pytest.raises(LimitError, match="600 MiB each for 2 processes"):
        Limit(tt_mb=600, copies=2)
    monkeypatch.setattr(limit, "available_memory_mb", lambda: None)  # unknown: nothing refused
    assert Limit(tt_mb=10**6).tt_mb == 10**6


def test_available_memory_is_plausible():
    from solver.search.limit import available_memory_mb

    mb = available_memory_mb()
    assert mb is None or 16 < mb < 2**40


def test_check_seconds_with_its_own_option_and_range():
    assert check_seconds(0.5, "--seconds", maximum=3600) == 0.5
    with pytest.raises(LimitError, match=r"^--seconds 3601: .* at most 3600\)$"):
        check_seconds(3601, "--seconds", maximum=3600)


def test_file_format_error_parts_and_pickling(tmp_path):
    import pickle

    path = tmp_path / "x.json"
    path.write_text("[")
    with pytest.raises(FileFormatError) as e:
        read_json(path, "checkpoint")
    err = e.value
    assert (err.path, err.what) == (str(path), "checkpoint") and err.problem.startswith("not valid JSON")
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err) and again.problem == err.problem


def test_uninterrupted_holds_ctrl_c_until_the_block_ends():
    import signal

    from solver.util.files import uninterrupted

    done = []
    # Ctrl-C's usual handler, also where this test runs with SIGINT ignored (a background
    # job of a shell script)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with uninterrupted():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)  # the signal arrives here, inside the block
                done.append("second file written")
        assert done == ["second file written"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


def test_uninterrupted_hands_sigterm_to_the_handler_set_before():
    import signal

    from solver.util.files import interrupt_on_sigterm, uninterrupted

    old = signal.getsignal(signal.SIGTERM)
    interrupt_on_sigterm()
    try:
        done = []
        with pytest.raises(KeyboardInterrupt):
            with uninterrupted():
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)
                done.append("both written")
        assert done == ["both written"]
        with uninterrupted():
            pass  # no signal: nothing raised
    finally:
        signal.signal(signal.SIGTERM, old)


#: a process that compiles a kernel and gets Ctrl-C in the middle of the compile: the
#: implementation of ``stop`` is chosen during the kernel's typing, inside numba, and
#: sends the signal there; Ctrl-C must act when the compile is done, as KeyboardInterrupt
_COMPILE_INTERRUPTED = """
import os, signal, sys, time
from numba import njit
from numba.extending import overload
from solver import Board
from solver.rules import core

signal.signal(signal.SIGINT, signal.default_int_handler)  # also under a shell's '&'
core.tables(Board.get(2))  # numba loaded as every run loads it

def stop():
    pass

@overload(stop)
def _stop():
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.2)  # the signal arrives here, in numba's typing
    print("typed", flush=True)
    return lambda: None

@njit
def kernel():
    stop()
    return 1

try:
    kernel()
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    print("compiled" if kernel.signatures else "not compiled", flush=True)
    sys.exit(0)
print("ran on", flush=True)
"""


def test_ctrl_c_during_a_compile_stops_the_run_once_the_compile_is_done():
    r = subprocess.run([sys.executable, "-c", _COMPILE_INTERRUPTED], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["typed", "KeyboardInterrupt", "compiled"], r.stdout + r.stderr
    assert "stopping once the kernel being compiled is ready" in r.stderr
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr


# -- ExclusiveLock: one process at a time on a file ------------------------------------------------
#: a second process: takes the lock ``argv[1]`` and says so on stdout, then holds it until
#: its stdin closes (or it is killed); if it is refused, prints the error and exits 3
_HOLDER = """
import sys, time
import filelock  # imported first: the time below is the lock's alone
from solver.util.files import ExclusiveLock, FileLockedError
t0 = time.monotonic()
try:
    lock = ExclusiveLock(sys.argv[1], busy=f"{sys.argv[1]} is busy").acquire()
except FileLockedError as e:
    print(type(e).__name__, isinstance(e, ValueError), round(time.monotonic() - t0, 1), e, sep="|")
    sys.exit(3)
print("held", flush=True)
sys.stdin.read()
lock.release()
"""


def _holder(path, env) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", _HOLDER, str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.subprocess
def test_a_second_process_is_refused_the_lock_at_once(tmp_path, tree_env):
    path = tmp_path / "out.jsonl.lock"
    with ExclusiveLock(path):
        assert path.exists()
        child = _holder(path, tree_env)
        out, err = child.communicate(timeout=120)
        name, is_value_error, seconds, message = out.strip().split("|")
        # the typed error, a ValueError, at once (no waiting), one line naming the file
        assert (child.returncode, name, is_value_error, message) == (3, "FileLockedError", "True", f"{path} is busy")
        assert float(seconds) < 5 and err == ""
    assert not path.exists()  # released: the lock file is removed
    child = _holder(path, tree_env)  # and the next process takes it
    assert child.stdout.readline() == "held\n"
    child.communicate("", timeout=120)
    assert child.returncode == 0 and not path.exists()


@pytest.mark.subprocess
def test_a_lock_held_by_another_process_is_refused_here_until_that_process_dies(tmp_path, tree_env):
    path = tmp_path / "s.json.lock"
    child = _holder(path, tree_env)
    try:
        assert child.stdout.readline() == "held\n"
        with pytest.raises(FileLockedError) as e:
            ExclusiveLock(path).acquire()
        assert str(e.value) == f"{path} is locked by another process" and e.value.path == str(path)
    finally:
        child.kill()  # killed: no release, the lock file stays
        child.communicate(timeout=120)
    assert path.exists()
    with ExclusiveLock(path) as lock:  # the system let the dead process's lock go
        assert lock.held
    assert not path.exists() and not lock.held


def test_two_locks_on_one_file_conflict_in_one_process_too(tmp_path):
    path = tmp_path / "status" / "lock"  # missing folders are created
    first = ExclusiveLock(path).acquire()
    with pytest.raises(FileLockedError, match="^checkpoint x is in use$"):
        ExclusiveLock(path, busy="checkpoint x is in use").acquire()
    with pytest.raises(RuntimeError):
        first.acquire()  # one object, one hold
    first.release()
    first.release()  # a second release does nothing
    ExclusiveLock(path).acquire().release()
    assert list(tmp_path.joinpath("status").iterdir()) == []


def test_file_locked_error_travels_pickled():
    e = pickle.loads(pickle.dumps(FileLockedError("/x/y.lock", "another run is writing /x/y")))
    assert type(e) is FileLockedError and e.path == "/x/y.lock" and str(e) == "another run is writing /x/y"


# -- state_dir, cache_dir -------------------------------------------------------------------------


def test_state_dir_honours_the_override_and_the_umask(tmp_path, monkeypatch):
    target = tmp_path / "a" / "b"
    monkeypatch.setenv(STATE_DIR_ENV, str(target))
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c" and not cache_dir().exists()
    old = os.umask(0o077)
    try:
        assert state_dir() == target
    finally:
        os.umask(old)
    assert target.is_dir() and target.stat().st_mode & 0o777 == 0o700
    assert state_dir() == target  # already there: fine


@pytest.mark.skipif(sys.platform == "win32", reason="platformdirs reads the Windows folders from the system")
@pytest.mark.parametrize("override", [None, ""])
def test_state_dir_is_platformdirs_user_state_dir_otherwise(tmp_path, monkeypatch, override):
    import platformdirs

    # the user's home and state folder moved under tmp_path: the test writes nothing in the real ones
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name in (STATE_DIR_ENV, CACHE_DIR_ENV):
        if override is None:
            monkeypatch.delenv(name)
        else:
            monkeypatch.setenv(name, override)  # empty: as if not set
    expected = Path(platformdirs.user_state_dir("meridians", appauthor=False))
    assert tmp_path in expected.parents and not expected.exists()
    assert state_dir() == expected and expected.is_dir()
    if sys.platform.startswith("linux"):
        assert expected == tmp_path / "state" / "meridians"
        assert cache_dir() == tmp_path / "cache" / "meridians"
    assert cache_dir() == Path(platformdirs.user_cache_dir("meridians", appauthor=False))
    assert not cache_dir().exists()  # not created until something is written there


def test_default_checkpoint_and_match_state_go_to_the_state_folder(state_folder):
    from solver import Board, Position
    from solver.app.match import default_state, parse_player
    from solver.app.openings import default_checkpoint

    assert default_checkpoint(Position.start(Board.parse("2/3"))) == state_folder / "solve-2-3-dfpn.json"
    r = parse_player("random")
    path = default_state(r, r, "3/4", 1)
    assert path.parent == state_folder and path.name.startswith("match-3-4-")
    assert default_state(r, r, "3/4", 1, folder="elsewhere").parent == Path("elsewhere")


def _claim_at(lock: str, start: float, out) -> None:
    import time as _t

    from solver.util.files import claim

    _t.sleep(max(0.0, start - _t.time()))
    out.put((os.getpid(), claim(lock)))
    _t.sleep(1.5)  # alive while the others look


@pytest.mark.subprocess
def test_processes_claiming_at_the_same_moment_get_it_once(tmp_path):
    """(the look-and-write of a claim is one step: before, two starved processes could
    both find a class free and prove it twice)"""
    import multiprocessing as mp
    import time as _t

    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    lock = str(tmp_path / "work.running")
    start = _t.time() + 2.0
    procs = [ctx.Process(target=_claim_at, args=(lock, start, out)) for _ in range(6)]
    for p in procs:
        p.start()
    got = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join()
    winners = [pid for pid, won in got if won]
    assert len(winners) == 1
    assert (tmp_path / "work.running").read_text() == str(winners[0])
