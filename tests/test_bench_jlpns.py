"""scripts/bench_jlpns.py's --workers: worker counts read, a bad value refused in one line
with exit code 2 before anything runs."""

import re

import pytest

from conftest import load_script, run_script


@pytest.fixture()
def script(tmp_path, monkeypatch):
    return load_script("bench_jlpns", monkeypatch, tmp_path)


def test_worker_counts_are_read(script):
    assert script.worker_counts("1,2") == [1, 2]
    assert script.worker_counts(" 2 , 1 ") == [2, 1] and script.worker_counts("4") == [4]
    assert script.worker_counts(f"1,{script.MAX_JOBS}") == [1, script.MAX_JOBS]


@pytest.mark.parametrize("text", ["", ",", "1,", "1,,2", "0", "-1", "1.5", "x", "2,a", "²", "1_000", "1e3",
                                  "MAX+1", "99999999999999999999"])
def test_a_bad_worker_count_is_refused(script, text):
    text = text.replace("MAX+1", str(script.MAX_JOBS + 1))
    with pytest.raises(ValueError, match=f"--workers must be worker counts from 1 to {script.MAX_JOBS} .*; not "
                                         + re.escape(repr(text))):
        script.worker_counts(text)


def test_the_script_refuses_bad_workers_in_one_line_with_exit_code_2(script, monkeypatch, capsys):
    def no_run(*a, **k):
        raise AssertionError("nothing runs after a bad option")

    monkeypatch.setattr(script, "load_kernels", no_run)
    with pytest.raises(SystemExit) as e:
        run_script(script, monkeypatch, "--workers", "1,two")
    err = capsys.readouterr().err
    assert e.value.code == 2 and err == (f"bench_jlpns: --workers must be worker counts from 1 to {script.MAX_JOBS} "
                                         "separated by commas, such as 1,2; not '1,two'\n")
