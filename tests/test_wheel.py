"""The package installed from a wheel, as a library user gets it (issue 22).

One test builds a wheel of this checkout, installs it into a fresh virtual environment in
a temporary folder and runs the ``meridians`` command of that environment from a folder
outside the checkout: ``solve 2/3`` (the shipped opening database), ``puzzles show ID``
(a committed puzzle set, shipped as package data by ``setup.py``) and ``lookup 3/4``.
Each answer is compared with the committed results, and the environment is shown to run
the wheel's own code and data, not this checkout's.

The new environment does not install the dependencies again (numpy, numba, dask, ...:
~400 MB and ~30 s from a local index, minutes from PyPI): a ``.pth`` file puts this
interpreter's site-packages after the environment's own.  Python reads the ``.pth`` files
of a site folder only when it adds that folder as a site, so the editable install of this
checkout there (its import finder) stays out, and the wheel's copy comes first on the path
anyway; the test asserts where ``solver`` and ``puzzles`` are imported from.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from puzzles.record import COMMITTED, load_jsonl

ROOT = Path(__file__).resolve().parent.parent

#: what the copy of the checkout that is built leaves out: git, earlier builds, caches
#: (numba's compiled kernels beside the sources), run files
_NOT_BUILT = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", ".meridians",
                                    ".hypothesis", ".pytest_cache", "*.nbi", "*.nbc", "*.pyc", "*.lock",
                                    "*.running")

#: run in the new environment: where its packages and its puzzle sets come from
_WHERE = """
import json, sys
import puzzles, puzzles.record, solver
from importlib import metadata
print(json.dumps({"prefix": sys.prefix, "solver": solver.__file__, "puzzles": puzzles.__file__,
                  "sets": str(puzzles.record.COMMITTED),
                  "dist": str(metadata.distribution("meridians").locate_file(""))}))
"""


def _run(args: list, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    r = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (args, r.stdout[-2000:], r.stderr[-2000:])
    return r


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


@pytest.mark.slow        # 52-64 s (2 cores at load 4-5): a wheel build, a venv, three first compiles of numba kernels
@pytest.mark.subprocess  # pip, venv and the installed command, each in its own process
def test_wheel_installs_and_runs_outside_the_checkout(tmp_path: Path) -> None:
    # the environment of every step: not this checkout's PYTHONPATH, no pip cache written
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_NO_CACHE_DIR"] = "1"

    # build from a copy (setuptools writes build/ and *.egg-info beside the sources); in an
    # isolated build environment, as `pip install .` does (pyproject.toml's setuptools>=77)
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=_NOT_BUILT)
    _run([sys.executable, "-m", "pip", "wheel", src, "--no-deps", "-w", tmp_path / "dist"], tmp_path, env)
    (wheel,) = (tmp_path / "dist").glob("meridians-*.whl")

    # the committed sets are in the wheel, byte for byte, and nothing else of results/puzzles
    sets = sorted(COMMITTED.glob("*.jsonl"))
    assert sets and COMMITTED == ROOT / "results" / "puzzles"  # this checkout's sets, from the checkout
    with zipfile.ZipFile(wheel) as z:
        shipped = {n.removeprefix("puzzles/sets/"): n for n in z.namelist() if n.startswith("puzzles/sets/")}
        assert sorted(shipped) == [f.name for f in sets]  # no .state.json, no .lock
        assert not [n for n in z.namelist() if n.startswith("results/")]
        assert all(z.read(shipped[f.name]) == f.read_bytes() for f in sets)
        assert {"solver/data/openings-2-3.npz", "solver/data/openings-3-4.npz", "solver/data/policy.npz", "solver/data/policy.json"} <= set(z.namelist())

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], tmp_path, env)
    python = _venv_python(venv)
    _run([python, "-m", "pip", "install", "--no-deps", wheel], tmp_path, env)
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        tmp_path, env).stdout.strip())
    # the dependencies: this interpreter's site folders, after the environment's own
    deps = [p for p in site.getsitepackages() + [site.getusersitepackages()] if Path(p).is_dir()]
    (purelib / "_test_wheel_dependencies.pth").write_text("".join(p + "\n" for p in deps), encoding="utf-8")

    elsewhere = tmp_path / "elsewhere"  # the current folder of the commands: no checkout there
    elsewhere.mkdir()
    where = json.loads(_run([python, "-c", _WHERE], elsewhere, env).stdout)
    inside = Path(where["prefix"]).resolve()
    assert inside == venv.resolve()
    for key in ("solver", "puzzles", "sets", "dist"):
        assert Path(where[key]).resolve().is_relative_to(inside), (key, where)
    assert Path(where["sets"]).resolve() == (purelib / "puzzles" / "sets").resolve()
    # the command the wheel installed, run by the environment's interpreter
    meridians = python.parent / ("meridians.exe" if os.name == "nt" else "meridians")
    if os.name != "nt":
        assert meridians.read_text(encoding="utf-8").splitlines()[0] == f"#!{python}"

    # solve 2/3: the value of the board and of every first move, as results/solutions has them
    known = json.loads((ROOT / "results" / "solutions" / "2-3.json").read_text(encoding="utf-8"))
    got = json.loads(_run([meridians, "solve", "2/3", "--json"], elsewhere, env).stdout)
    assert (got["value"], got["moves"]) == (known["value"], known["moves"])

    # puzzles show ID: an id of a committed set, found in the package's own copy
    puzzle = load_jsonl(sets[0])[0]
    out = _run([meridians, "puzzles", "show", puzzle.id, "--solution"], elsewhere, env).stdout
    assert out.startswith(f"{puzzle.id}: {puzzle.task()}\n"), out
    assert f"line: {puzzle.solution_text()}" in out

    # lookup 3/4: from the shipped database, every first move as results/solutions has them
    known = json.loads((ROOT / "results" / "solutions" / "3-4.json").read_text(encoding="utf-8"))
    got = json.loads(_run([meridians, "lookup", "3/4", "--json"], elsewhere, env).stdout)
    assert got["source"] == "database" and {m["source"] for m in got["moves"]} == {"database"}
    assert (got["value"], {m["move"]: m["value"] for m in got["moves"]}) == (known["value"], known["moves"])

    assert not any(elsewhere.iterdir())  # the commands wrote nothing in the current folder
