"""The four layers by trust, one package each: each layer imports only the layers below it.

1. rules, ``solver/rules/``: the board's geometry, the bitboard intrinsics and the compiled
   core, positions, the notation, game records (the rules' moves written down) and random
   games; beside them ``solver/util/`` (the base exception and ``Interrupted``, files and
   locks, provenance), which imports nothing of the project above it: every layer may
   import it;
2. reference and checker, ``solver/reference/``: the networkx reference rules
   (``rules.py``), the settled rule's reference (``settled.py``) and the certificate checker
   (``certificate.py``), which run without numba, so that a certificate's verdict does not
   depend on the fast core or its install;
3. searches, ``solver/search/``; the job runner that runs many of them in parallel,
   checkpointed (``solver/jobs/``), sits on them and is no search: no search imports it;
4. applications, ``solver/app/``: the analyst, verify, pictures, the settled rule's
   soundness check, the importers of other sites' records, the OpenSpiel game
   (``solver/app/openspiel.py``, which needs the optional extra and so is imported by
   nothing else), the openings, the web application ``solver/app/web/`` (``meridians
   serve``), the one part of ``solver`` that may import ``puzzles`` (its trainer shows the
   committed puzzles with the book's lines) and that only the CLI imports; the command
   line ``solver/cli/`` and ``puzzles/`` stand on top.

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
RULES = "solver.rules"
UTIL = "solver.util"
LAYER2 = "solver.reference"
SEARCH = "solver.search"
JOBS = "solver.jobs"
APP = "solver.app"
CLI = "solver.cli"
CHECKER = "solver.reference.certificate"
REFERENCE = "solver.reference.rules"
SETTLED = "solver.reference.settled"
BUILDER = "solver.search.certificate"
OPENSPIEL = "solver.app.openspiel"
WEB = "solver.app.web"
#: third-party packages layer 2 may use (the reference rules and the checker's arrays)
LAYER2_THIRD_PARTY = {"numpy", "networkx"}
#: the modules of the rules that layer 2 may use: they load no numba
LAYER2_RULES = {"solver.rules.board", "solver.rules.notation"}
#: imports allowed against the layers, each with its reason
EXCEPTIONS = {
    # Position.svg() and Position.diagram() draw on demand and import the drawing when
    # called, as python-chess's Board._repr_svg_ imports chess.svg: the rules never run it
    ("solver.rules.position", "solver.app.svg"),
    ("solver.rules.position", "solver.app.diagram"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _resolved(path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module ``node`` (in the file ``path``) imports from."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    if not node.level:
        return node.module
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path) -> set[str]:
    """Every module that the file ``path`` imports, as absolute names; ``from solver
    import Position`` counts as ``solver.rules.position`` (where the lazy package finds it)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _resolved(path, node)
            for alias in node.names:
                if _is_module(f"{module}.{alias.name}"):
                    found.add(f"{module}.{alias.name}")
                elif module == "solver" and alias.name in solver._LAZY:
                    found.add(f"solver.{solver._LAZY[alias.name]}")
                else:
                    found.add(module)
    return found


def _files() -> list[Path]:
    return sorted((ROOT / "solver").rglob("*.py")) + sorted((ROOT / "puzzles").rglob("*.py"))


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): imports_of(p) for p in _files()}


GRAPH = _graph()


def _violations(modules, forbidden) -> list[str]:
    return sorted(f"{m} imports {i}" for m in modules for i in GRAPH[m]
                  if forbidden(i) and (m, i) not in EXCEPTIONS)


def _under(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def _in(*packages: str) -> list[str]:
    return [m for m in GRAPH if _under(m, *packages)]


def test_the_layout_is_the_packages():
    # solver/ itself holds only its __init__ and the entry point; every module is in a layer
    top = sorted(p.name for p in (ROOT / "solver").iterdir() if p.suffix == ".py")
    assert top == ["__init__.py"]
    for m in _in("solver"):
        assert m in ("solver", "solver.data") or _under(m, RULES, UTIL, LAYER2, SEARCH, JOBS, APP, CLI), m


def test_the_import_reader_sees_every_form():
    # the test is only as good as its reading of imports: the checker's imports and
    # puzzles' imports through the lazy package must come out as modules
    assert {"solver.rules.board", "solver.rules.notation", REFERENCE, "numpy"} <= GRAPH[CHECKER]
    assert "solver.rules.position" in GRAPH["puzzles.record"]  # from solver import Position
    assert "solver.rules.core" in GRAPH["solver.search.capture"]  # from solver.rules import core
    assert "solver.search.dfpn" in GRAPH[BUILDER]         # from . import dfpn as F
    assert {CHECKER, REFERENCE, SETTLED, BUILDER, "solver.rules.core", "solver.util.errors"} <= set(GRAPH)


def test_solver_never_imports_puzzles():
    # the web application is the one exception: it serves the puzzles (the top layer)
    solver_modules = [m for m in _in("solver") if not _under(m, WEB)]
    assert _violations(solver_modules, lambda i: _under(i, "puzzles")) == []


def test_only_the_cli_imports_the_web_application():
    assert {"solver.app.web.app", "solver.app.web.work"} <= set(GRAPH)
    users = sorted(m for m in GRAPH if not _under(m, WEB) and any(_under(i, WEB) for i in GRAPH[m]))
    assert users == [f"{CLI}.serve"]  # meridians serve
    # and the web application stays on top: it imports no part of the CLI
    assert _violations(_in(WEB), lambda i: _under(i, CLI, "puzzles.cli")) == []


def test_rules_and_util_import_nothing_above_them():
    above = lambda i: _under(i, LAYER2, SEARCH, JOBS, APP, CLI, "puzzles")  # noqa: E731
    assert _violations(_in(RULES, UTIL), above) == []


def test_util_imports_no_rules():
    # below every layer: the rules import it, not the other way round
    assert _violations(_in(UTIL), lambda i: _under(i, "solver") and not _under(i, UTIL) and i != "solver") == []


def test_records_are_read_with_the_rules_alone():
    # a game record is the rules' moves written down: the board, the notation, positions
    record = "solver.rules.record"
    solver_imports = {i for i in GRAPH[record] if _under(i, "solver")}
    assert solver_imports <= {"solver.rules.board", "solver.rules.notation", "solver.rules.position",
                              "solver.util.errors"}
    others = {i.partition(".")[0] for i in GRAPH[record] if not _under(i, "solver")}
    assert others <= set(sys.stdlib_module_names) | {"__future__"}


def test_checker_and_reference_use_only_geometry_notation_and_the_reference():
    def forbidden(i: str) -> bool:
        top = i.partition(".")[0]
        if top == "solver":
            return not (i == "solver" or i in LAYER2_RULES or _under(i, UTIL, LAYER2))
        return top not in sys.stdlib_module_names and top not in LAYER2_THIRD_PARTY and top != "__future__"

    assert _violations(_in(LAYER2), forbidden) == []
    assert "solver.rules.notation" in GRAPH[CHECKER] and "solver.rules.board" in GRAPH[REFERENCE]


def test_only_the_openspiel_game_imports_openspiel_and_nothing_imports_it():
    # open-spiel is an optional extra: a module that imported the game (or pyspiel) would
    # break the base install; the game itself stands on the rules only
    assert {"pyspiel", "solver.rules.position", "solver.rules.board"} <= GRAPH[OPENSPIEL]
    others = [m for m in GRAPH if m != OPENSPIEL]
    assert _violations(others, lambda i: i == OPENSPIEL or _under(i, "pyspiel", "open_spiel")) == []
    assert not {i for i in GRAPH[OPENSPIEL] if _under(i, SEARCH, JOBS, CLI, "puzzles") or
                (_under(i, APP) and i != OPENSPIEL)}


def test_searches_import_no_application_and_no_job_runner():
    assert _violations(_in(SEARCH), lambda i: _under(i, APP, JOBS, CLI, "puzzles")) == []


def test_the_job_runner_imports_no_application():
    assert _violations(_in(JOBS), lambda i: _under(i, APP, CLI, "puzzles")) == []


def test_nothing_below_imports_the_applications():
    below = _in(RULES, UTIL, LAYER2, SEARCH, JOBS)
    assert _violations(below, lambda i: _under(i, APP, CLI)) == []


def _package(module: str) -> str:
    """The package a module belongs to for privacy: ``solver.rules``, ``solver.app.web``,
    ``solver.app``, ``puzzles``, ...; a module directly in ``solver`` is its own."""
    parts = module.split(".")
    if parts[0] != "solver":
        return parts[0]
    if len(parts) > 1 and parts[:2] == ["solver", "app"]:
        # the application's sub-packages (openings, web, schema) are packages of their own
        if len(parts) > 2 and _is_package(".".join(parts[:3])):
            return ".".join(parts[:3])
        return "solver.app"
    return ".".join(parts[:2])


def _is_package(name: str) -> bool:
    return (ROOT.joinpath(*name.split(".")) / "__init__.py").is_file()


def private_uses(path: Path, me: str | None = None) -> list[str]:
    """Every private name (``_x``, not a dunder) that the file ``path`` takes from a module
    of another package: imported (``from m import _x``) or read as an attribute of a module
    it imported (``m._x``); ``me`` names the module (default: from its path)."""
    me = me or _module_name(path)
    mine = _package(me)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: dict[str, str] = {}  # local name -> module of the project it names
    found = []

    def private(name: str) -> bool:
        return name.startswith("_") and not name.startswith("__")

    def ours(module: str) -> bool:
        return _under(module, "solver", "puzzles")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if ours(alias.name) and alias.asname:
                    modules[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            module = _resolved(path, node) if node.level else node.module
            if not ours(module):
                continue
            for alias in node.names:
                full = f"{module}.{alias.name}"
                if _is_module(full):
                    modules[alias.asname or alias.name] = full
                elif private(alias.name) and _package(module) != mine:
                    found.append(f"{me} imports {module}.{alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr) and isinstance(node.value, ast.Name):
            module = modules.get(node.value.id)
            if module is not None and _package(module) != mine:
                found.append(f"{me} reads {module}.{node.attr}")
    return sorted(set(found))


def test_no_package_uses_another_packages_private_names():
    # a name with a leading underscore is its package's business: another package that
    # used it would break when the package changes what it keeps to itself
    assert [v for p in _files() for v in private_uses(p)] == []


def test_the_private_name_reader_sees_both_forms(tmp_path):
    # the test above is only as good as its reading: an import and an attribute both count,
    # a private name of the module's own package does not
    probe = tmp_path / "probe.py"
    probe.write_text("from solver.rules.board import _shown\nfrom solver.rules import core\ncore._drop_stale_cache()\n"
                     "from solver.app.svg import _x\n", encoding="utf-8")
    assert private_uses(probe, "solver.app.probe") == [
        "solver.app.probe imports solver.rules.board._shown",
        "solver.app.probe reads solver.rules.core._drop_stale_cache"]


@pytest.mark.subprocess
def test_importing_the_checker_loads_no_numba(tree_env):
    code = (
        "import sys\n"
        "import solver, solver.reference, solver.reference.rules, solver.reference.settled,"
        " solver.reference.certificate\n"
        "loaded = sorted(m for m in ('numba', 'llvmlite', 'solver.rules.core', 'solver.rules.position',"
        " 'solver.search') if m in sys.modules)\n"
        "print(loaded)\n"
        "from solver import Position\n"  # the lazy package still gives the engine on demand
        "print('numba' in sys.modules, Position.__module__)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env=tree_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[]", "True solver.rules.position"]


def test_the_errors_module_imports_nothing_of_the_project():
    # the base of every error sits below every layer: all of them import it
    assert {i for i in GRAPH["solver.util.errors"] if _under(i, "solver", "puzzles")} == set()
    assert "solver.util.errors" in GRAPH[CHECKER] and "solver.util.errors" in GRAPH["puzzles.record"]


@pytest.mark.subprocess
def test_the_command_list_loads_no_numba(tree_env):
    """``meridians --help`` lists every command, the ``puzzles`` group's too, without
    numpy or numba (their import was most of its 0.5-1 s): the commands import them."""
    code = (
        "import sys\n"
        "from solver.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('numpy', 'numba', 'solver.rules.core', 'puzzles.generate', 'puzzles.record')"
        " if m in sys.modules), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env=tree_env)
    assert proc.returncode == 0, proc.stderr
    assert "puzzles" in proc.stdout and proc.stderr.strip() == "[]"
