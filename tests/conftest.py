"""Shared test settings: the hypothesis profile, the ``run_cli`` fixture, and loading
the scripts.

The default profile ``ci`` is derandomized, so every run of ``pytest`` draws the same
examples and a failure reproduces exactly; it keeps no example database.  To hunt for new
counterexamples, run with fresh random examples and more of them::

    HYPOTHESIS_PROFILE=explore pytest tests/test_core_vs_reference.py

A few tests check a fixed share of a large set of cases (every 2/3 opening-database
position, the random games of the guided search's twin comparison), the same share every
run, so that the whole suite stays within CI's time; to check all of them::

    MERIDIANS_TESTS=exhaustive pytest tests/test_analyst.py tests/test_guided.py
"""

from __future__ import annotations

import os
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, settings

_COMMON = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile("ci", derandomize=True, database=None, **_COMMON)
settings.register_profile("explore", derandomize=False, max_examples=1000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: the run checks every case of the tests that otherwise check a share of them
EXHAUSTIVE = os.environ.get("MERIDIANS_TESTS", "ci") == "exhaustive"


def share(items: list, every: int) -> list:
    """``items``, or every ``every``-th of them from the first unless the run is exhaustive."""
    return list(items) if EXHAUSTIVE else list(items)[::every]


def load_script(name: str, monkeypatch, out):
    """The module ``scripts/<name>.py``, with its results folder ``OUT`` set to ``out``
    (so a test writes nowhere else)."""
    import importlib.util
    from pathlib import Path

    scripts = Path(__file__).resolve().parent.parent / "scripts"
    monkeypatch.syspath_prepend(str(scripts))
    spec = importlib.util.spec_from_file_location(name, scripts / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "OUT", out)
    return mod


def run_script(mod, monkeypatch, *argv) -> None:
    """Run the loaded script's ``main()`` with ``argv``."""
    import sys

    monkeypatch.setattr(sys, "argv", [f"{mod.__name__}.py", *argv])
    mod.main()


class CliResult(NamedTuple):
    """What one run of the ``meridians`` command did."""

    code: int             # the exit code
    stdout: str
    stderr: str
    exception: BaseException | None  # an exception that escaped main (a traceback for the user)


def _run_cli(*args: str, input: str | None = None, env: dict | None = None, code: int | None = None) -> CliResult:
    import sys

    from click.testing import CliRunner

    from solver.cli import main

    status, escaped = 0, None
    with CliRunner().isolation(input=input, env=env) as (out, err, _):
        try:
            main([str(a) for a in args])
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException as e:  # noqa: BLE001 - a test asserts there is none
            status, escaped = 1, e
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
        stdout, stderr = out.getvalue().decode(), err.getvalue().decode()
    result = CliResult(status, stdout, stderr, escaped)
    if code is not None:
        assert (status, escaped) == (code, None), (stdout, stderr, escaped)
    return result


@pytest.fixture(autouse=True)
def state_folder(tmp_path_factory, monkeypatch):
    """Every test's state folder and cache folder (``$MERIDIANS_STATE_DIR`` and
    ``$MERIDIANS_CACHE_DIR``, so subprocesses and workers get them too) are fresh
    temporary folders: nothing a test runs lands in the user's folders, and no test sees
    another's checkpoints.  The folders themselves are created only when something
    writes there (or asks :func:`solver.util.files.state_dir`)."""
    from solver.util.files import CACHE_DIR_ENV, STATE_DIR_ENV

    root = tmp_path_factory.mktemp("user")
    monkeypatch.setenv(STATE_DIR_ENV, str(root / "state"))
    monkeypatch.setenv(CACHE_DIR_ENV, str(root / "cache"))
    return root / "state"


@pytest.fixture
def run_cli():
    """``run_cli(*args, input=None, env=None, code=None) -> CliResult``: the ``meridians``
    command run in this process through :func:`solver.cli.main`, so with the exit codes and
    the one-line errors a user gets (click's CliRunner on ``cli`` alone would show the
    exceptions that ``main`` turns into one line).  With ``code``, it also asserts that the
    command exited with that code and let no exception escape."""
    return _run_cli


@pytest.fixture
def tree_env(state_folder) -> dict:
    """The environment for a subprocess, with this source tree first on its import path
    (the package may be installed from another checkout)."""
    from pathlib import Path

    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env
