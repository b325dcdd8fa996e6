"""One base for the project's errors (solver/util/errors.py).

Every exception class that the packages ``solver`` and ``puzzles`` define is a
:class:`~solver.util.errors.MeridiansError` (a ``ValueError``), or is the one
:class:`~solver.util.errors.Interrupted` (a run stopped by Ctrl-C, not bad input); the
modules are walked with :mod:`pkgutil`, so a new module's new exception is seen too.
Both CLIs turn a MeridiansError that reaches their ``main`` into one line and exit code
2, and an Interrupted into exit code 130.
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil

import pytest

import puzzles
import solver
from solver.util.errors import Interrupted, MeridiansError

#: the exceptions that never leave their module, each caught where it is raised; they
#: are control flow, not errors, and must not be ValueErrors (an ``except ValueError``
#: between the raise and the catch would swallow them)
PRIVATE = {
    "solver.jobs.workers._Stop": "ends an abandoned job from its progress callback",
    "solver.util.files._BadNumber": "a JSON number the readers refuse, turned into FileFormatError",
    "solver.reference.settled._Undefined": "a solitaire with no value, turned into a result",
    "solver.app.openings.lengths._OutOfBudget": "a length search past its budget, turned into None",
}


def _modules() -> list:
    out = []
    for package in (solver, puzzles):
        out.append(package)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            out.append(importlib.import_module(info.name))
    return out


MODULES = _modules()
EXCEPTIONS = sorted(
    {(c.__module__, c.__qualname__): c
     for m in MODULES for _, c in inspect.getmembers(m, inspect.isclass)
     if issubclass(c, BaseException) and c.__module__ == m.__name__}.items()
)


def test_the_walk_sees_every_package():
    names = {m.__name__ for m in MODULES}
    assert {"solver.util.errors", "solver.jobs.runner", "solver.app.openings.classes", "solver.app.web.app",
            "puzzles.record", "puzzles.generate"} <= names
    assert len(EXCEPTIONS) >= 35  # 38 when the five Interrupted became one


def test_every_exception_is_a_meridians_error_or_the_interrupted():
    public = {f"{mod}.{name}": c for (mod, name), c in EXCEPTIONS if not name.startswith("_")}
    stray = sorted(name for name, c in public.items() if not issubclass(c, MeridiansError) and c is not Interrupted)
    assert stray == []
    private = {f"{mod}.{name}" for (mod, name), c in EXCEPTIONS if name.startswith("_")}
    assert private == set(PRIVATE)
    for name in PRIVATE:
        mod, _, cls = name.rpartition(".")
        c = getattr(importlib.import_module(mod), cls)
        assert not issubclass(c, ValueError) and cls not in getattr(importlib.import_module(mod), "__all__", ())


def test_there_is_one_interrupted():
    named = [f"{mod}.{name}" for (mod, name), _ in EXCEPTIONS if name.endswith("Interrupted")]
    assert named == ["solver.util.errors.Interrupted"]
    # not bad input: a handler of ValueError (exit 2) must not take a stopped run for one
    assert not issubclass(Interrupted, ValueError)
    e = Interrupted("interrupted with 3 of 5 jobs finished", "ck.json", 3, 5)
    assert (str(e), e.path, e.finished, e.total) == ("interrupted with 3 of 5 jobs finished", "ck.json", 3, 5)
    assert Interrupted("stopped").path is None
    copy = pickle.loads(pickle.dumps(e))  # it may travel from a worker process
    assert (str(copy), copy.path, copy.finished, copy.total) == (str(e), "ck.json", 3, 5)


def test_the_base_is_a_value_error_exported_by_the_package():
    from solver import Interrupted as I, MeridiansError as M

    assert (M, I) == (MeridiansError, Interrupted)
    assert issubclass(MeridiansError, ValueError)
    assert {"MeridiansError", "Interrupted"} <= set(solver.__all__)


def test_typed_errors_keep_their_other_bases():
    from solver.rules.board import BoardError
    from solver.reference.certificate import CertificateError, CertificateFileError, CheckerProcessError
    from solver.app.match import MatchError
    from solver.app.openspiel import MeridiansError as OpenSpielBase, OpenSpielError
    from solver.rules.position import IllegalMoveError
    from solver.jobs.runner import JobError

    # a failure in a worker is still a RuntimeError for the callers that catch one
    for c in (JobError, MatchError, CheckerProcessError):
        assert issubclass(c, RuntimeError) and issubclass(c, MeridiansError)
    assert issubclass(CertificateFileError, CertificateError)
    # the OpenSpiel game's own error is under the one base, which it re-exports
    assert OpenSpielBase is MeridiansError and issubclass(OpenSpielError, MeridiansError)
    with pytest.raises(MeridiansError):
        solver.Board.parse("no board")
    assert issubclass(BoardError, MeridiansError) and issubclass(IllegalMoveError, MeridiansError)


@pytest.mark.parametrize("error", ["IllegalMoveError", "FileFormatError", "JobError", "PuzzleFormatError"])
def test_the_cli_turns_a_meridians_error_into_one_line(monkeypatch, run_cli, error):
    import solver.app.verify
    from puzzles.record import PuzzleFormatError
    from solver.util.files import FileFormatError
    from solver.rules.position import IllegalMoveError
    from solver.jobs.runner import JobError

    made = {
        "IllegalMoveError": lambda: IllegalMoveError("first line\nsecond line"),
        "FileFormatError": lambda: FileFormatError("first line", "second", "line"),
        "JobError": lambda: JobError("first line\nsecond line"),
        "PuzzleFormatError": lambda: PuzzleFormatError("first line\nsecond line"),
    }[error]

    def broken(text, board):
        raise made()

    monkeypatch.setattr(solver.app.verify, "start_position", broken)
    r = run_cli("show", "2/3", code=2)
    line = "first line: second: line" if error == "FileFormatError" else "first line second line"
    assert r.stderr.splitlines() == [f"meridians: error: {line}"]


def test_the_cli_exits_130_on_interrupted(monkeypatch, run_cli):
    import solver.app.verify

    def stopped(text, board):
        raise Interrupted("interrupted with 1 of 2 jobs finished; run the same command to resume from ck.json")

    monkeypatch.setattr(solver.app.verify, "start_position", stopped)
    r = run_cli("show", "2/3", code=130)
    assert r.stderr.splitlines() == [
        "meridians: interrupted with 1 of 2 jobs finished; run the same command to resume from ck.json"]


def test_the_puzzles_cli_turns_a_meridians_error_into_one_line(monkeypatch, capsys):
    import puzzles.cli
    from puzzles.record import PuzzleFormatError

    def broken(ref, files=()):
        raise PuzzleFormatError("first line\nsecond line")

    monkeypatch.setattr(puzzles.cli, "load_ref", broken)
    with pytest.raises(SystemExit) as e:
        puzzles.cli.main(["show", "x"])
    assert e.value.code == 2
    assert capsys.readouterr().err.splitlines() == ["meridians: error: first line second line"]
