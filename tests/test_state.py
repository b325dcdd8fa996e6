"""solver/jobs/state.py: the one state file a stopped run resumes from (solve, match, the
puzzle generator, the opening database's build): read back only for the same run, code
and rules, refused in one line naming the file otherwise, written atomically, locked."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import solver
from solver.jobs.state import RunState, StateError

FORMAT = "meridians-test/1"
RUN = {"board": "3/4", "seed": 1}


def state(path, identity=RUN, **kw) -> RunState:
    return RunState(path, FORMAT, identity, fix="remove it or give another --state", **kw)


def test_save_and_load(tmp_path):
    path = tmp_path / "s.json"
    st = state(path)
    assert st.load() is None  # no file: a fresh run
    with st:
        st.save({"done": [1, 4, 9]})
    data = state(path).load()
    assert data["done"] == [1, 4, 9] and data["board"] == "3/4" and data["seed"] == 1
    assert (data["format"], data["version"], data["rules"]) == (FORMAT, solver.__version__, solver.RULES_VERSION)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]  # the lock file is gone
    # one field a line: the header reads at a glance, the entries stay on one line
    lines = path.read_text().splitlines()
    assert lines[0] == "{" and lines[1] == ' "format": "meridians-test/1",' and ' "done": [1,4,9]' in lines


def test_load_entries(tmp_path):
    path = tmp_path / "s.json"
    assert state(path).load_entries("done", list) == [] and state(path).load_entries("done", dict) == {}
    state(path).save({"done": [1, 4], "count": {"a": 1}})
    assert state(path).load_entries("done", list) == [1, 4]
    with pytest.raises(StateError, match=f"^state file {path}: 'done' is not an object: remove it"):
        state(path).load_entries("done", dict)
    with pytest.raises(StateError, match="'missing' is not a list"):
        state(path).load_entries("missing", list)


@pytest.mark.parametrize("content,problem", [
    (b"{not json", "not valid JSON"),
    (b'{"format": "meridians-test/1"', "not valid JSON"),  # cut short
    (bytes(range(256)), "not a UTF-8 text file"),
    (b"[1, 2]", "expected a JSON object"),
    (b'{"format": NaN}', "NaN is not a JSON number"),
    (b"[" * 100_000, "nested too deeply"),
    (b"", "the file is empty"),
], ids=["not JSON", "cut", "binary", "array", "NaN", "deep", "empty"])
def test_a_corrupt_file_is_refused_in_one_line(tmp_path, content, problem):
    path = tmp_path / "s.json"
    path.write_bytes(content)
    with pytest.raises(StateError) as e:
        state(path).load()
    message = str(e.value)
    assert message.startswith(f"state file {path}: ") and problem in message
    assert message.endswith(": remove it or give another --state") and "\n" not in message
    assert path.read_bytes() == content  # left alone


def test_a_file_of_another_kind_is_refused(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"format": "meridians-jobs/1"}))
    with pytest.raises(StateError, match=f"^state file {path} is not a meridians state file: remove it"):
        state(path).load()


def test_a_file_of_another_run_is_refused(tmp_path):
    path = tmp_path / "s.json"
    state(path).save({"done": []})
    with pytest.raises(StateError, match=r"records another run \(seed 1\): remove it or give another --state$"):
        state(path, {"board": "3/4", "seed": 2}).load()
    with pytest.raises(StateError, match=r"records another run \(board '3/4', seed 1\)"):
        state(path, {"board": "2/3", "seed": 2}).load()
    # equal as JSON, not as Python: true is not 1
    with pytest.raises(StateError, match=r"\(seed 1\)"):
        state(path, {"board": "3/4", "seed": True}).load()
    # an object is compared key by key, a list as a whole
    nested = tmp_path / "n.json"
    state(nested, {"match": {"a": "x", "seed": 1}, "jobs": [1, 2]}).save({})
    with pytest.raises(StateError, match=r"records another run \(seed 1, other jobs\)"):
        state(nested, {"match": {"a": "x", "seed": 2}, "jobs": [1]}).load()
    assert state(path, {}).load()["done"] == []  # no identity: any run's file


def test_a_file_of_another_version_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    state(path).save({})
    monkeypatch.setattr("solver.jobs.state.__version__", "9.9.9")
    with pytest.raises(StateError, match=f"was written with code version '{solver.__version__}', not 9.9.9"):
        state(path).load()
    assert state(path, any_code=True).load() is not None  # the generator's puzzles record their own
    monkeypatch.setattr("solver.jobs.state.__version__", solver.__version__)
    monkeypatch.setattr("solver.jobs.state.RULES_VERSION", "2099-01-01")
    for kw in ({}, {"any_code": True}):
        with pytest.raises(StateError, match="was written with rules version .*, not 2099-01-01"):
            state(path, **kw).load()


def test_a_state_in_use_is_refused_at_once(tmp_path):
    class MineError(StateError):
        pass

    path = tmp_path / "s.json"
    first = state(path).acquire()
    try:
        t = time.monotonic()
        with pytest.raises(MineError, match=f"^state file {path} is in use: another match is writing it$"):
            state(path, run="match", error=MineError).acquire()
        assert time.monotonic() - t < 5  # no waiting
    finally:
        first.release()
    with state(path):  # free again
        assert (tmp_path / "s.json.lock").exists()
    assert not (tmp_path / "s.json.lock").exists()
    # another lock file (a checkpoint's, in its status folder; the generator's, the set's)
    (tmp_path / "status").mkdir()
    with state(path, lock=tmp_path / "status" / "lock"):
        with pytest.raises(StateError, match="in use"):
            state(tmp_path / "other.json", lock=tmp_path / "status" / "lock").acquire()


def test_a_lock_file_that_cannot_be_made_is_one_line(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(StateError, match="cannot create the lock file"):
        state(tmp_path / "s.json", lock=tmp_path / "file" / "lock").acquire()


def test_the_users_errors_are_state_errors():
    from solver.app.match import MatchStateError
    from solver.jobs.checkpoint import CheckpointError

    assert issubclass(CheckpointError, StateError) and issubclass(MatchStateError, StateError)
    assert issubclass(StateError, solver.MeridiansError) and issubclass(StateError, ValueError)


def test_release_removes_the_file_when_asked(tmp_path):
    path = tmp_path / "s.json"
    st = state(path).acquire()
    st.save({})
    st.release(remove=True)
    assert list(tmp_path.iterdir()) == []


def test_a_save_stopped_halfway_leaves_the_last_whole_file(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    st = state(path)
    st.save({"done": [1]})

    def killed(src, dst):
        raise KeyboardInterrupt  # stopped after the new text is written, before it replaces the old

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        st.save({"done": [1, 2]})
    assert state(path).load()["done"] == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]  # no temporary file left


def test_save_unforced_keeps_to_a_tenth_of_the_time(tmp_path):
    st = state(tmp_path / "s.json")
    st.save({"done": 0})
    st._save_seconds = 3600.0  # as if the last write took an hour
    st.save({"done": 1}, force=False)
    assert state(tmp_path / "s.json").load()["done"] == 0  # skipped
    st.save({"done": 2})
    assert state(tmp_path / "s.json").load()["done"] == 2


#: a run that saves its finished entries after each; killed with SIGKILL, it leaves the file
KILLED_RUN = """
import sys
from solver.jobs.state import RunState
st = RunState(sys.argv[1], "meridians-test/1", {"run": 1}).acquire()
done = []
for i in range(10**9):
    done.append([i, "x" * 200])
    st.save({"done": done})
    if i == 20:
        print("saving", flush=True)
"""


@pytest.mark.subprocess
def test_a_killed_run_leaves_a_whole_file(tmp_path, tree_env):
    path = tmp_path / "s.json"
    proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(path)], stdout=subprocess.PIPE, text=True,
                            env=tree_env)
    assert proc.stdout.readline() == "saving\n"
    time.sleep(0.5)  # saving all along: the kill comes in the middle of one, more often than not
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    done = RunState(path, FORMAT, {"run": 1}).load()["done"]
    assert len(done) > 20 and done == [[i, "x" * 200] for i in range(len(done))]
    # the lock died with the process: the next run takes it
    RunState(path, FORMAT, {"run": 1}).acquire().release()


def test_a_resumed_run_gives_the_same_result(tmp_path):
    calls = []

    def run(path, n, stop_at=None) -> list[int]:
        """The squares of 0..n-1, one entry a unit, resumed from ``path``."""
        with state(path) as st:
            data = st.load()
            done = {} if data is None else {int(k): v for k, v in data["done"].items()}
            for i in range(n):
                if i in done:
                    continue
                if i == stop_at:
                    raise KeyboardInterrupt
                calls.append(i)
                done[i] = i * i
                st.save({"done": done})
        return [done[i] for i in range(n)]

    whole = run(tmp_path / "whole.json", 8)
    calls.clear()
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path / "part.json", 8, stop_at=5)
    assert calls == [0, 1, 2, 3, 4]
    calls.clear()
    assert run(tmp_path / "part.json", 8) == whole
    assert calls == [5, 6, 7]  # nothing redone
