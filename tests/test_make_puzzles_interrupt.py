"""scripts/make_puzzles.py stopped by Ctrl-C: one line and exit code 130 in every mode, no
traceback, and the sets as they were."""

import importlib
import signal
import sys
from pathlib import Path

import pytest
from test_themes import _themes_script  # make_puzzles.py with its sets, table and pictures in tmp_path

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "results" / "puzzles"


def _script(tmp_path, monkeypatch, *options):
    """make_puzzles.py loaded to work on a copy of the first 12 puzzles of 4/5 c2 (and its
    state file) in ``tmp_path``, run with ``options``."""
    f = tmp_path / "4-5-c2.jsonl"
    f.write_text("".join(x + "\n" for x in (COMMITTED / "4-5-c2.jsonl").read_text().splitlines()[:12]))
    (tmp_path / "4-5-c2.jsonl.state.json").write_text((COMMITTED / "4-5-c2.jsonl.state.json").read_text())
    mod = _themes_script(tmp_path, monkeypatch)
    monkeypatch.setattr(sys, "argv", ["make_puzzles.py", *options])
    return mod


# (options, module and name of what the Ctrl-C interrupts, on which call, what the line says)
MODES = {
    "themes": (["--themes"], "puzzles.themes", "themes", 5, "as it was or wholly rewritten"),
    "only-moves": (["--only-moves", "--jobs", "1"], "puzzles.generate", "only_moves", 5,
                   "as it was or wholly rewritten"),
    "rescore": (["--rescore", "--jobs", "1"], "puzzles.generate", "proven", 5, "as it was or wholly rewritten"),
    "rerate": (["--rerate"], "puzzles.rating", "record_features", 5, "as it was or wholly rewritten"),
    "summary": (["--summary"], "puzzles.quality", "measure_set", 1, "nothing written"),
    "generate": ([], "subprocess", "Popen", 1, "as it was or wholly rewritten"),
}


@pytest.mark.parametrize("mode", MODES)
def test_ctrl_c_is_one_line_and_exit_130_and_leaves_the_files_as_they_were(mode, tmp_path, monkeypatch, capsys):
    options, module, name, nth, says = MODES[mode]
    mod = _script(tmp_path, monkeypatch, *options)
    target = importlib.import_module(module)
    real, calls = getattr(target, name), []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == nth:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, interrupted)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert mod.main() == 130
    err = capsys.readouterr().err
    assert err.startswith("make_puzzles: interrupted: ") and err.endswith("\n") and err.count("\n") == 1
    assert says in err and "Traceback" not in err and len(calls) == nth
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no temporary file left either


@pytest.mark.parametrize("mode", ["rescore", "only-moves"])
def test_a_worker_stopped_from_outside_is_one_line_and_leaves_the_files_as_they_were(mode, tmp_path, monkeypatch,
                                                                                    capsys):
    from concurrent.futures.process import BrokenProcessPool

    options, module, name, nth, _ = MODES[mode]
    mod = _script(tmp_path, monkeypatch, *options)
    target = importlib.import_module(module)
    real, calls = getattr(target, name), []

    def broken(*args, **kwargs):  # as a pool's worker killed in the middle of the set
        calls.append(1)
        if len(calls) == nth:
            raise BrokenProcessPool("A process in the process pool was terminated abruptly")
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, broken)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert mod.main() == 130
    assert capsys.readouterr().err == (
        "make_puzzles: stopped: a worker process was stopped from outside (killed, or out of memory): every file "
        "is as it was or wholly rewritten; the same command does the rest\n")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_ctrl_c_during_a_generator_is_the_generators_to_answer(tmp_path, monkeypatch):
    mod = _script(tmp_path, monkeypatch)
    # the child finds Ctrl-C live (Python's own handler, not an inherited SIG_IGN), then a
    # Ctrl-C reaches this process too, as one at the terminal would; it waits on
    child = ("import os, signal, sys, time\n"
             "live = signal.getsignal(signal.SIGINT) is signal.default_int_handler\n"
             "os.kill(os.getppid(), signal.SIGINT)\n"
             "time.sleep(0.2)\n"
             "sys.exit(7 if live else 1)\n")
    before = signal.getsignal(signal.SIGINT)
    assert mod._generator([sys.executable, "-c", child]) == 7
    assert signal.getsignal(signal.SIGINT) is before


def test_a_kill_during_a_generator_is_passed_on_to_it(tmp_path, monkeypatch):
    mod = _script(tmp_path, monkeypatch)
    # a background run is stopped with SIGTERM, which reaches only this process: the
    # generator must get it too, or it and its workers run on without a parent
    child = ("import os, signal, sys, time\n"
             "signal.signal(signal.SIGTERM, lambda s, f: sys.exit(7))\n"
             "os.kill(os.getppid(), signal.SIGTERM)\n"
             "time.sleep(10)\n"
             "sys.exit(1)\n")
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    assert mod._generator([sys.executable, "-c", child]) == 7
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_a_kill_while_the_generator_starts_is_passed_on_to_it(tmp_path, monkeypatch):
    import os

    mod = _script(tmp_path, monkeypatch)
    real = mod.subprocess.Popen

    def starting(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)  # before the generator exists
        return real(*args, **kwargs)

    monkeypatch.setattr(mod.subprocess, "Popen", starting)
    # what this process would do with a SIGTERM not passed on: nothing, so that the test runs on
    outer = signal.signal(signal.SIGTERM, lambda s, f: None)
    try:
        code = mod._generator([sys.executable, "-c", "import sys, time; time.sleep(20); sys.exit(1)"])
    finally:
        signal.signal(signal.SIGTERM, outer)
    assert code == -signal.SIGTERM  # the generator got it, as soon as it was there


def test_a_kill_in_any_other_mode_is_answered_as_ctrl_c(tmp_path, monkeypatch, capsys):
    import os

    mod = _script(tmp_path, monkeypatch, "--summary")
    import puzzles.quality

    monkeypatch.setattr(puzzles.quality, "measure_set", lambda *a, **k: os.kill(os.getpid(), signal.SIGTERM))
    before = signal.getsignal(signal.SIGTERM)
    assert mod.main() == 130
    assert capsys.readouterr().err == "make_puzzles: interrupted: nothing written\n"
    assert signal.getsignal(signal.SIGTERM) is before
