"""Opening jobs (solver/app/openings/, run by solver/jobs/runner.py) and ``meridians solve`` on top of them.

The jobs use method 'alphabeta' (exact on 2/3 and on the late 3/4 position below).  The
kill and Ctrl-C tests run the installed command in a subprocess on a 3/4 position whose
seven move classes take about 3 s: six are decided in milliseconds, d3 takes 2-3 s.
"""

from __future__ import annotations

import io
import json
import shutil
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import wait
from pathlib import Path

import psutil
import pytest

from solver import Board, Position
from solver.util.files import ExclusiveLock
from solver.app.openings import opening_jobs, pie_jobs, solve_openings
from solver.jobs.runner import CheckpointError, run_jobs
from solver.search.solve import solve
from solver.search.limit import Limit

_SCRIPT = shutil.which("meridians", path=str(Path(sys.executable).parent))
MERIDIANS = [_SCRIPT] if _SCRIPT else [sys.executable, "-m", "solver.cli"]
SOLUTIONS = Path(__file__).resolve().parent.parent / "results" / "solutions"
B23 = Board.parse("2/3")
LATE_34 = "D1D/LD2/DLDD1/L2D2/LDLD1/4/3 L"   # 7 classes; d3 is the slow one
QUIET = {"method": "alphabeta", "limit": Limit(tt_mb=16), "progress_ui": False}


def _key(pos: Position) -> int:
    return int(pos.zobrist_symmetric().min())


# -- the jobs ---------------------------------------------------------------------------------


def test_first_move_classes_of_2_3():
    start = Position.start(B23)
    jobs = opening_jobs(start)
    # Burnside over the 4 symmetries: (14 + 0 + 4 + 2) / 4 first moves up to symmetry
    assert len(jobs) == 5
    members = [m for j in jobs for m in j.members]
    assert sorted(members) == sorted(start.legal_moves())  # every point exactly once
    for j in jobs:
        assert j.key == j.members[0] and j.view == "move"
        assert Position.parse(j.position) == start.play(j.key)
        assert {_key(start.play(m)) for m in j.members} == {_key(Position.parse(j.position))}
    assert len({_key(Position.parse(j.position)) for j in jobs}) == 5


def test_pie_jobs_cover_every_ordered_pair_once():
    jobs = pie_jobs(Position.start(B23))
    assert len(jobs) == (182 + 0 + 12 + 2) // 4  # Burnside: 49 classes of 14 * 13 pairs
    pairs = [m for j in jobs for m in j.members]
    names = B23.names
    assert sorted(pairs) == sorted(f"{a}-{b}" for a in names for b in names if a != b)
    for j in jobs:
        pos = Position.parse(j.position)
        light, dark = j.key.split("-")
        assert (pos.stones("L"), pos.stones("D"), pos.to_move) == ({light}, {dark}, "L")
        for m in j.members:
            a, b = m.split("-")
            assert _key(Position(B23, [a], [b], "L")) == _key(pos)


def test_pie_needs_the_empty_board():
    with pytest.raises(ValueError, match="empty board"):
        pie_jobs(Position.start(B23).play("c1"))


# -- running them -----------------------------------------------------------------------------


@pytest.mark.parametrize("jobs_n", [1, 2])
def test_run_jobs_gives_the_values_of_solve_on_2_3(jobs_n, tmp_path):
    start = Position.start(B23)
    r = solve_openings(start, jobs_n=jobs_n, checkpoint=tmp_path / "ck.json", **QUIET)
    ref = solve(start)
    assert (r.value, r.moves) == (ref.value, ref.move_values)
    assert r.moves["c1"] == r.moves["c4"] == "loss" and r.value == "win"
    assert r.line[0] in [m for m, v in ref.move_values.items() if v == "win"]
    assert [c.runs for c in r.classes] == [1] * 5 and r.resumed == 0
    assert all(c.nodes > 0 for c in r.classes)
    data = json.loads((tmp_path / "ck.json").read_text())
    assert data["finished"] == 5 and data["params"]["pie"] is False
    # the same call again reads every job from the checkpoint
    again = solve_openings(start, jobs_n=jobs_n, checkpoint=tmp_path / "ck.json", **QUIET)
    assert again.resumed == 5 and all(c.resumed for c in again.classes)
    assert (again.value, again.moves, again.nodes) == (r.value, r.moves, r.nodes)


def test_pie_values_of_2_3_match_solve_of_every_pair():
    r = solve_openings(Position.start(B23), pie=True, **QUIET)
    assert len(r.pairs) == 182
    for pair, winner in r.pairs.items():
        a, b = pair.split("-")
        v = solve(Position(B23, [a], [b], "L"), verify=False).value
        assert winner == {"win": "L", "loss": "D", "draw": "draw"}[v], pair
    # the chooser takes the winner: the first player loses every decided pair
    assert set(r.moves.values()) == {"loss"} and r.value == "loss"
    assert r.summary() == {"L": 180, "D": 2}
    assert {p for p, w in r.pairs.items() if w == "D"} == {"c1-c2", "c4-c3"}
    committed = SOLUTIONS / "2-3-pie.json"
    if committed.exists():
        data = json.loads(committed.read_text())
        assert data["pairs"] == r.pairs and data["command"].startswith("python scripts/solve_boards.py")
        assert (SOLUTIONS / "2-3-pie-map.svg").read_text().startswith("<svg")


def test_time_budget_gives_every_class_effort_and_resumes_unknown_jobs(tmp_path):
    start = Position.start(Board.parse("3/4"))
    ck = tmp_path / "ck.json"
    t0 = time.time()
    r = solve_openings(start, checkpoint=ck, chunk_nodes=20_000, **dict(QUIET, limit=Limit(seconds=1.5, tt_mb=16)))
    # the budget stops the run (solving 3/4 takes hours); the slack is for a loaded machine
    assert time.time() - t0 < 1.5 + 8.0
    assert r.value == "unknown" and "unknown" in r.moves.values()
    assert all(c.nodes > 0 and c.runs == 1 for c in r.classes)  # every class got effort
    first = {c.key: c.nodes for c in r.classes if c.value == "unknown"}
    again = solve_openings(start, checkpoint=ck, chunk_nodes=20_000, **dict(QUIET, limit=Limit(seconds=1.0, tt_mb=16)))
    grew = 0
    for c in again.classes:  # unknown jobs ran again; their effort adds up
        if c.key in first:
            assert c.runs == 2 and c.nodes >= first[c.key] and not c.resumed
            grew += c.nodes > first[c.key]
    # on a loaded machine a late job may find the 1 s spent ("no time left") and keep
    # its nodes; the budget still went to the unknown jobs
    assert grew >= 1


def test_dask_backend_on_a_local_cluster_gives_the_same_results(tmp_path, run_cli):
    distributed = pytest.importorskip("distributed")
    start = Position.start(B23)
    local = solve_openings(start, pie=True, **QUIET)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        addr = cluster.scheduler_address
        assert addr.startswith("tcp://127.0.0.1:")
        r = solve_openings(start, pie=True, backend="dask", scheduler=addr, jobs_n=2,
                           checkpoint=tmp_path / "pie.json", **QUIET)
        assert (r.value, r.pairs) == (local.value, local.pairs)
        assert json.loads((tmp_path / "pie.json").read_text())["finished"] == 49
        out = run_cli("solve", "2/3", "--method", "alphabeta", "--backend", "dask", "--scheduler", addr, "--json",
                      code=0)
        assert json.loads(out.stdout)["moves"] == solve(start).move_values


def test_live_progress_on_a_terminal_and_lines_elsewhere():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    jobs = opening_jobs(Position.start(B23))
    for stream, live in ((Terminal(), True), (io.StringIO(), False)):
        run_jobs(jobs, limit=Limit(tt_mb=16), method="alphabeta", progress_ui=True, stream=stream)
        text = stream.getvalue()
        assert ("\x1b[" in text) == live
        assert "jobs done" in text if live else len(text.splitlines()) == 5
        assert "[5/5] job c2 (c2 c3): win" in text


# -- the command ------------------------------------------------------------------------------


def test_solve_command_pie_json_and_map(tmp_path, run_cli):
    f = tmp_path / "pie.svg"
    out = run_cli("solve", "2/3", "--pie", "--method", "alphabeta", "--json", "--map", f, code=0)
    data = json.loads(out.stdout)
    assert set(data) >= {"value", "moves", "nodes", "seconds", "line", "pairs", "classes"}
    assert len(data["pairs"]) == 182 and len(data["classes"]) == 49
    assert sum(len(c["members"]) for c in data["classes"]) == 182
    root = ET.fromstring(f.read_text())
    classes = [e.get("class", "") for e in root.iter()]
    assert classes.count("meridians map") == 14  # one small board per Light point
    assert sum(c.startswith("value ") for c in classes) == 182


def test_solve_command_text_lists_the_classes(run_cli):
    out = run_cli("solve", "2/3", "--method", "alphabeta", code=0)
    lines = out.stdout.splitlines()
    assert lines[0] == "2/3/4/3/2 L: Light to move: win"
    assert "  losing moves (2): c1 c4" in lines
    assert any(line.split()[:2] == ["c1", "c1"] and "loss" in line for line in lines)


@pytest.mark.parametrize(
    "content,fragment",
    [("{not json", "not valid JSON"), ('{"format": "something else"}', "not a meridians checkpoint")],
)
def test_corrupt_checkpoint_is_one_line_exit_2(tmp_path, run_cli, content, fragment):
    ck = tmp_path / "ck.json"
    ck.write_text(content)
    err = run_cli("solve", "2/3", "--method", "alphabeta", "--checkpoint", ck, code=2).stderr.splitlines()
    assert len(err) == 1 and err[0].startswith("meridians: error: checkpoint") and fragment in err[0]
    assert ck.read_text() == content  # left alone


def test_checkpoint_of_another_position_or_in_use_is_refused(tmp_path, run_cli):
    ck = tmp_path / "ck.json"
    solve_openings(Position.start(Board.parse("1/2")), checkpoint=ck, **QUIET)
    err = run_cli("solve", "2/3", "--method", "alphabeta", "--checkpoint", ck, code=2).stderr.splitlines()
    assert len(err) == 1 and "records another solve (other jobs)" in err[0]
    ck.unlink()
    status = Path(str(ck) + ".status")
    status.mkdir()
    with ExclusiveLock(status / "lock"):  # another solve holds it
        with pytest.raises(CheckpointError, match="in use"):
            solve_openings(Position.start(B23), checkpoint=ck, **QUIET)


# -- interrupted solves -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def late_34():
    """The uninterrupted result on LATE_34 (this also compiles 3/4 before the subprocesses)."""
    return solve_openings(Position.parse(LATE_34), **QUIET).as_dict()


def _start_solve(ck: Path, jobs_n: int, env: dict) -> subprocess.Popen:
    cmd = [*MERIDIANS, "solve", LATE_34, "--method", "alphabeta", "--tt-mb", "16",
           "--jobs", str(jobs_n), "--checkpoint", str(ck), "--json"]
    # Ctrl-C as from a terminal even when this test runs where SIGINT is ignored (a
    # background job of a shell script): the child starts with the default disposition
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _wait_for_a_finished_job(proc: subprocess.Popen, ck: Path) -> None:
    deadline = time.time() + 120
    while time.time() < deadline:
        assert proc.poll() is None, "the solve ended before it could be interrupted"
        try:
            if json.loads(ck.read_text())["finished"] >= 1:
                return
        except (OSError, ValueError):
            pass  # not written yet (writes are atomic: never half a file)
        time.sleep(0.01)
    pytest.fail("no job finished")


def _comparable(d: dict) -> tuple:
    return d["value"], d["moves"], [(c["key"], c["value"], c["nodes"]) for c in d["classes"]]


@pytest.mark.slow  # 16-19 s
@pytest.mark.subprocess
def test_a_killed_solve_resumes_with_the_same_result(tmp_path, late_34, tree_env):
    ck = tmp_path / "ck.json"
    proc = _start_solve(ck, jobs_n=2, env=tree_env)
    _wait_for_a_finished_job(proc, ck)
    workers = psutil.Process(proc.pid).children(recursive=True)
    proc.kill()  # SIGKILL: no chance to clean up
    proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    _, alive = psutil.wait_procs(workers, timeout=20)  # orphaned workers stop by themselves
    assert not alive
    data = json.loads(ck.read_text())
    finished = {k for k, r in data["results"].items() if r["value"] != "unknown"}
    assert len(finished) == data["finished"] >= 1 and "d3" not in finished
    rerun = _start_solve(ck, jobs_n=2, env=tree_env)
    out, err = rerun.communicate(timeout=180)
    assert rerun.returncode == 0, err
    result = json.loads(out)
    assert result["resumed"] == len(finished)
    for c in result["classes"]:
        assert c["resumed"] == (c["key"] in finished)
        assert c["runs"] == 1  # nothing was redone
    assert _comparable(result) == _comparable(late_34)
    assert result["value"] == "loss"


@pytest.mark.subprocess
@pytest.mark.parametrize("jobs_n", [1, 2])
def test_ctrl_c_keeps_the_checkpoint_and_exits_130(tmp_path, late_34, jobs_n, tree_env):
    ck = tmp_path / "ck.json"
    proc = _start_solve(ck, jobs_n=jobs_n, env=tree_env)
    _wait_for_a_finished_job(proc, ck)
    workers = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (proc.returncode, err)
    lines = [line for line in err.splitlines() if "resource_tracker" not in line and "warnings.warn" not in line]
    assert len(lines) == 1 and lines[0].startswith("meridians: interrupted with "), err
    assert lines[0].endswith(f"resume from {ck}") and "Traceback" not in err
    assert out == ""
    data = json.loads(ck.read_text())
    assert data["finished"] >= 1
    _, alive = psutil.wait_procs(workers, timeout=20)
    assert not alive


def _sleep(seconds: float, parent_pid: int | None = None) -> float:
    time.sleep(seconds)
    return seconds


def test_abandoning_the_pool_just_after_a_submit_leaves_no_thread_traceback(monkeypatch):
    """Ctrl-C just after a job is submitted: loky's manager thread must not raise (it once
    looked up the queued job's id after dropping its work items, a KeyError on stderr)."""
    from solver.jobs.workers import Pool

    raised = []
    monkeypatch.setattr(threading, "excepthook", lambda a: raised.append(repr(a.exc_value)))
    for _ in range(2):
        pool = Pool("loky", 2, None)
        running = [pool.submit(_sleep, 5.0) for _ in range(2)]
        _, waiting = wait(running, timeout=1.0)
        assert waiting == set(running)  # both jobs hold their workers
        pool.submit(_sleep, 5.0)
        manager = pool.executor._executor_manager_thread
        pool.shutdown(abandon=True)
        manager.join(timeout=20)
        assert not manager.is_alive() and raised == []


# -- the checkpoint read by the library (a direct call, not only the CLI) ----------------------


@pytest.fixture(scope="module")
def kept_checkpoint(tmp_path_factory) -> dict:
    """The checkpoint of a whole solve of 2/3 (every class decided), as JSON."""
    path = tmp_path_factory.mktemp("kept") / "ck.json"
    solve_openings(Position.start(B23), checkpoint=path, keep_checkpoint=True, **QUIET)
    return json.loads(path.read_text())


def _one_result(data: dict, field: str, value) -> dict:
    data = json.loads(json.dumps(data))
    data["results"][sorted(data["results"])[0]][field] = value
    return data


@pytest.mark.parametrize("content", [
    b"[" * 100_000 + b"]" * 100_000,                       # RecursionError in json
    __import__("gzip").compress(b'{"format": 1}' * 40, mtime=0)[:25],  # truncated (mtime 0: one test id in every xdist worker)
    bytes(range(256)),                                       # binary
    b'{"format": NaN}',
    b"[1, 2]",
])
def test_solve_openings_refuses_an_unreadable_checkpoint(tmp_path, content):
    ck = tmp_path / "ck.json"
    ck.write_bytes(content)
    with pytest.raises(CheckpointError, match=f"^checkpoint {ck}: ") as e:
        solve_openings(Position.start(B23), checkpoint=ck, **QUIET)
    assert "\n" not in str(e.value)
    assert isinstance(e.value, ValueError) and ck.read_bytes() == content  # nothing written over


@pytest.mark.parametrize("field,value", [
    ("runs", "x"), ("runs", [1]), ("runs", True), ("runs", -1), ("line", 5), ("line", [1, 2]),
    ("notes", {"a": 1}), ("horizon", "deep"), ("verified", "yes"), ("nodes", 1.5), ("nodes", None),
    ("seconds", "1"), ("value", "maybe"), ("method", 3),
])
def test_solve_openings_refuses_a_checkpoint_field_of_the_wrong_type(tmp_path, kept_checkpoint, field, value):
    ck = tmp_path / "ck.json"
    ck.write_text(json.dumps(_one_result(kept_checkpoint, field, value)))
    with pytest.raises(CheckpointError, match=f"^checkpoint {ck}: job .*{field}"):
        solve_openings(Position.start(B23), checkpoint=ck, **QUIET)


def test_solve_openings_resumes_its_kept_checkpoint(tmp_path, kept_checkpoint):
    # the control of the tests above: the unchanged file is read, every class resumed
    ck = tmp_path / "ck.json"
    ck.write_text(json.dumps(kept_checkpoint))
    r = solve_openings(Position.start(B23), checkpoint=ck, keep_checkpoint=True, **QUIET)
    assert all(c.resumed for c in r.classes) and r.value == "win"


# -- the Dask scheduler address, checked by the library ----------------------------------------


@pytest.mark.parametrize("address", ["garbage", "tcp://", "tcp://host", "host:99999", "tcp://host:0",
                                     "http://x:1", "tcp://a b:8786", "tcp://host:8786/path"])
def test_pool_refuses_a_malformed_scheduler_at_once(address, capfd):
    from solver.jobs.workers import Pool, SchedulerAddressError

    t0 = time.perf_counter()
    with pytest.raises(SchedulerAddressError, match="not a Dask scheduler address") as e:
        Pool("dask", 2, address)
    assert time.perf_counter() - t0 < 1  # distributed waited 20 s, then a traceback
    assert isinstance(e.value, ValueError) and "\n" not in str(e.value)
    assert "Traceback" not in capfd.readouterr().err


def test_solve_openings_refuses_a_malformed_scheduler_at_once(tmp_path):
    from solver.jobs.workers import SchedulerAddressError

    t0 = time.perf_counter()
    with pytest.raises(SchedulerAddressError):
        solve_openings(Position.start(B23), backend="dask", scheduler="garbage", **QUIET)
    assert time.perf_counter() - t0 < 5


def test_the_cli_and_the_pool_read_scheduler_addresses_by_one_rule(run_cli):
    from solver.jobs.workers import SchedulerAddressError, check_scheduler_address

    for good in ["tcp://10.0.0.5:8786", "10.0.0.5:8786", "tls://sched.example.org:8786", "tcp://[::1]:8786",
                 "ws://localhost:8787"]:
        assert check_scheduler_address(good) == good
    for bad in ["garbage", "tcp://host", ":8786", "tcp://host:", "tcp//host:8786", "h:65536"]:
        with pytest.raises(SchedulerAddressError):
            check_scheduler_address(bad)
        r = run_cli("solve", "2/3", "--backend", "dask", "--scheduler", bad, code=2)
        assert "--scheduler" in r.stderr, r.stderr


def test_ctrl_c_summary_counts_what_the_progress_counted(tmp_path, monkeypatch, run_cli):
    # two jobs end undecided (out of budget), Ctrl-C comes in the third: the progress said
    # 2 done, and the summary must say 2 finished, not 0 (the decided ones)
    import solver.jobs.runner as J

    calls = []

    def fake_run_job(job, index, *, method, **kw):
        calls.append(job.key)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return {"value": "unknown", "nodes": 5, "seconds": 0.01, "method": method, "notes": ["no nodes left"]}

    monkeypatch.setattr(J, "run_job", fake_run_job)
    ck = tmp_path / "ck.json"
    r = run_cli("solve", "2/3", "--method", "alphabeta", "--checkpoint", ck, code=130)
    total = len(opening_jobs(Position.start(B23)))
    progress = [line for line in r.stderr.splitlines() if line.startswith("[")]
    assert [line.split("]")[0] for line in progress] == [f"[1/{total}", f"[2/{total}"]
    assert r.stderr.splitlines()[-1] == (f"meridians: interrupted with 2 of {total} jobs finished; "
                                         f"run the same command to resume from {ck}")
