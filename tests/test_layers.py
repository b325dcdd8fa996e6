"""The four layers by trust: each layer imports only the layers below it.

1. rules: ``solver/board.py``, ``bits.py``, ``core.py``, ``notation.py``, ``position.py``,
   ``record.py`` (game records: the rules' moves written down), and ``errors.py`` (the base
   exception and ``Interrupted``, which imports nothing of the project: every layer may
   import it);
2. reference and checker: ``solver/reference.py``, ``solver/settled.py`` (the settled
   rule's reference) and ``solver/certificate_check.py``, which run without numba, so that a certificate's verdict does not depend on the fast
   core or its install;
3. searches: ``solver/search/``;
4. applications: the CLI, verify, pictures, the settled rule's soundness check, the importers of
   other sites' records, the OpenSpiel game (``solver/openspiel.py``, which needs the optional
   extra and so is imported by nothing else), ``puzzles/``, and the web application
   ``solver/web/`` (``meridians serve``), the one part of ``solver`` that may import ``puzzles``
   (its trainer shows the committed puzzles with the book's lines) and that only the CLI imports.

The imports are read with :mod:`ast` (every ``import``, at the top of a module or inside a
function), so the test is static and fast; one subprocess checks that importing the
checker really leaves numba out.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import solver

ROOT = Path(__file__).resolve().parent.parent
RULES = {"solver.board", "solver.bits", "solver.core", "solver.notation", "solver.position", "solver.record",
         "solver.errors"}
CHECKER = "solver.certificate_check"
REFERENCE = "solver.reference"
SETTLED = "solver.settled"
LAYER2 = [CHECKER, REFERENCE, SETTLED]
BUILDER = "solver.search.certificate"
OPENSPIEL = "solver.openspiel"
WEB = "solver.web"
APPLICATIONS = {"solver.cli", "solver.verify", "solver.svg", "solver.settled_check", "solver.importers",
                "solver.interactive", "solver.analyst", "solver.match", BUILDER, OPENSPIEL, WEB}
#: third-party packages layer 2 may use (the reference rules and the checker's arrays)
LAYER2_THIRD_PARTY = {"numpy", "networkx"}
#: imports allowed against the rules above, each with its reason
EXCEPTIONS = {
    # Position.svg() and Position.diagram() draw on demand and import the drawing when
    # called, as python-chess's Board._repr_svg_ imports chess.svg: the rules never run it
    ("solver.position", "solver.svg"),
    ("solver.position", "solver.diagram"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imports_of(path: Path) -> set[str]:
    """Every module that the file ``path`` imports, as absolute names; ``from solver
    import Position`` counts as ``solver.position`` (where the lazy package finds it)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            for alias in node.names:
                if _is_module(f"{module}.{alias.name}"):
                    found.add(f"{module}.{alias.name}")
                elif module == "solver" and alias.name in solver._LAZY:
                    found.add(f"solver.{solver._LAZY[alias.name]}")
                else:
                    found.add(module)
    return found


def _graph() -> dict[str, set[str]]:
    files = sorted((ROOT / "solver").rglob("*.py")) + sorted((ROOT / "puzzles").rglob("*.py"))
    return {_module_name(p): imports_of(p) for p in files}


GRAPH = _graph()


def _violations(modules, forbidden) -> list[str]:
    return sorted(f"{m} imports {i}" for m in modules for i in GRAPH[m]
                  if forbidden(i) and (m, i) not in EXCEPTIONS)


def _under(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def test_the_import_reader_sees_every_form():
    # the test is only as good as its reading of imports: the checker's relative imports
    # and puzzles' imports through the lazy package must come out as modules
    assert {"solver.board", "solver.notation", "solver.reference", "numpy"} <= GRAPH[CHECKER]
    assert "solver.position" in GRAPH["puzzles.record"]  # from solver import Position
    assert "solver.core" in GRAPH["solver.search.capture"]  # from solver import core
    assert "solver.search.dfpn" in GRAPH[BUILDER]         # from . import dfpn as F
    assert RULES | {*LAYER2, BUILDER} <= set(GRAPH)


def test_solver_never_imports_puzzles():
    # the web application is the one exception: it serves the puzzles (the top layer)
    solver_modules = [m for m in GRAPH if _under(m, "solver") and not _under(m, WEB)]
    assert _violations(solver_modules, lambda i: _under(i, "puzzles")) == []


def test_only_the_cli_imports_the_web_application():
    assert {"solver.web.app", "solver.web.work"} <= set(GRAPH)
    users = sorted(m for m in GRAPH if not _under(m, WEB) and any(_under(i, WEB) for i in GRAPH[m]))
    assert users == ["solver.cli"]
    # and the web application stays on top: it imports no part of the CLI
    assert _violations([m for m in GRAPH if _under(m, WEB)], lambda i: _under(i, "solver.cli", "puzzles.cli")) == []


def test_rules_import_nothing_above_them():
    above = lambda i: _under(i, "solver.search", "puzzles", *APPLICATIONS, *LAYER2)  # noqa: E731
    assert _violations(RULES, above) == []


def test_records_are_read_with_the_rules_alone():
    # a game record is the rules' moves written down: the board, the notation, positions
    solver_imports = {i for i in GRAPH["solver.record"] if _under(i, "solver")}
    assert solver_imports <= {"solver.board", "solver.notation", "solver.position", "solver.errors"}
    others = {i.partition(".")[0] for i in GRAPH["solver.record"] if not _under(i, "solver")}
    assert others <= set(sys.stdlib_module_names) | {"__future__"}


def test_checker_and_reference_use_only_geometry_notation_and_the_reference():
    allowed_solver = {"solver", "solver.board", "solver.notation", "solver.errors", *LAYER2}

    def forbidden(i: str) -> bool:
        top = i.partition(".")[0]
        if top == "solver":
            return i not in allowed_solver
        return top not in sys.stdlib_module_names and top not in LAYER2_THIRD_PARTY and top != "__future__"

    assert _violations(LAYER2, forbidden) == []
    assert "solver.notation" in GRAPH[CHECKER] and "solver.board" in GRAPH[REFERENCE]


def test_only_the_openspiel_game_imports_openspiel_and_nothing_imports_it():
    # open-spiel is an optional extra: a module that imported the game (or pyspiel) would
    # break the base install; the game itself stands on the rules only
    assert {"pyspiel", "solver.position", "solver.board"} <= GRAPH[OPENSPIEL]
    others = [m for m in GRAPH if m != OPENSPIEL]
    assert _violations(others, lambda i: i == OPENSPIEL or _under(i, "pyspiel", "open_spiel")) == []
    assert not {i for i in GRAPH[OPENSPIEL] if _under(i, "solver.search", "puzzles", *(APPLICATIONS - {OPENSPIEL}))}


def test_searches_import_no_application():
    searches = [m for m in GRAPH if _under(m, "solver.search") and m != BUILDER]
    assert _violations(searches, lambda i: _under(i, "puzzles", "solver.cli", "solver.verify", BUILDER, WEB)) == []


@pytest.mark.subprocess
def test_importing_the_checker_loads_no_numba(tree_env):
    code = (
        "import sys\n"
        "import solver, solver.reference, solver.settled, solver.certificate_check\n"
        "loaded = sorted(m for m in ('numba', 'llvmlite', 'solver.core', 'solver.position', 'solver.search')"
        " if m in sys.modules)\n"
        "print(loaded)\n"
        "from solver import Position\n"  # the lazy package still gives the engine on demand
        "print('numba' in sys.modules, Position.__module__)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env=tree_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[]", "True solver.position"]


def test_the_errors_module_imports_nothing_of_the_project():
    # the base of every error sits below every layer: all of them import it
    assert {i for i in GRAPH["solver.errors"] if _under(i, "solver", "puzzles")} == set()
    assert "solver.errors" in GRAPH[CHECKER] and "solver.errors" in GRAPH["puzzles.record"]


@pytest.mark.subprocess
def test_the_command_list_loads_no_numba(tree_env):
    """``meridians --help`` lists every command, the ``puzzles`` group's too, without
    numpy or numba (their import was most of its 0.5-1 s): the commands import them."""
    code = (
        "import sys\n"
        "from solver.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('numpy', 'numba', 'solver.core', 'puzzles.generate', 'puzzles.record')"
        " if m in sys.modules), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env=tree_env)
    assert proc.returncode == 0, proc.stderr
    assert "puzzles" in proc.stdout and proc.stderr.strip() == "[]"
