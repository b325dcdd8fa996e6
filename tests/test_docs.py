"""The documentation stays true: it builds without a warning, and its samples run.

- ``docs/`` is built with Sphinx, warnings as errors (``python -m sphinx -W --keep-going``).
- Every **console sample** of ``docs/*.md`` and ``README.md`` is run and its output
  compared.  A console sample is a fenced block whose info string is ``console``; in it a
  line ``$ meridians ARGS`` is a command, and the lines after it, up to the next ``$``
  line or the end of the block, are what it prints on stdout.  In the expected lines,
  a line that is ``...`` alone (indentation aside) matches any number of lines, and a
  line ending in ``...`` matches any line that starts with what comes before it; every
  other line must be equal (trailing spaces aside).  A command must exit 0, unless its
  line ends with a comment ``# exit N``.  The samples of one page run in order in one
  temporary folder (so a sample may read a file an earlier one wrote), in this process,
  through :func:`solver.cli.main` (the ``run_cli`` fixture), with fresh state folders.
- Every ``meridians`` line of a ``sh`` block (commands shown, not run: long searches,
  servers, files the reader has) must parse: its command exists and click accepts its
  options (a missing input file aside); every ``python scripts/NAME.py`` names a script
  that exists.

docs/development.md states the convention for writers.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]
_FENCE = re.compile(r"^(`{3,})(\S*)[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)
_EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")


def _blocks(page: Path, kind: str) -> list[str]:
    return [m.group(3) for m in _FENCE.finditer(page.read_text("utf-8")) if m.group(2) == kind]


def samples(page: Path) -> list[tuple[str, int, list[str]]]:
    """The console samples of ``page``: (command line after ``$ ``, exit code, expected lines)."""
    out: list[tuple[str, int, list[str]]] = []
    for block in _blocks(page, "console"):
        for line in block.splitlines():
            if line.startswith("$ "):
                command, code = line[2:], 0
                m = _EXIT.search(command)
                if m:
                    command, code = command[: m.start()], int(m.group(1))
                out.append((command, code, []))
            elif out:
                out[-1][2].append(line)
            else:
                raise AssertionError(f"{page.name}: a console block starts with output, not a '$ ' command")
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` fits ``expected`` with its ``...`` wildcards (module docstring)."""
    expected = [e.rstrip() for e in expected]
    actual = [a.rstrip() for a in actual]
    while actual and not actual[-1]:
        actual.pop()
    while expected and not expected[-1]:
        expected.pop()
    memo: dict[tuple[int, int], bool] = {}

    def fit(i: int, j: int) -> bool:
        if (i, j) in memo:
            return memo[i, j]
        if i == len(expected):
            ok = j == len(actual)
        elif expected[i].strip() == "...":
            ok = any(fit(i + 1, k) for k in range(j, len(actual) + 1))
        elif j == len(actual):
            ok = False
        elif expected[i].endswith("..."):
            ok = actual[j].startswith(expected[i][:-3]) and fit(i + 1, j + 1)
        else:
            ok = expected[i] == actual[j] and fit(i + 1, j + 1)
        memo[i, j] = ok
        return ok

    return fit(0, 0)


def test_the_matcher_keeps_its_convention():
    assert matches(["a", "...", "z"], ["a", "b", "c", "z"])
    assert matches(["a", "...", "z"], ["a", "z"])
    assert matches(["  0 nodes, ..."], ["  0 nodes, 0.31 s"])
    assert matches(["a  "], ["a", ""])
    assert not matches(["a", "z"], ["a", "b", "z"])
    assert not matches(["  1 nodes, ..."], ["  0 nodes, 0.31 s"])
    assert not matches(["a"], ["a", "b"])


def test_the_docs_build_without_warnings(tmp_path):
    """The docs build with Sphinx, every warning an error (the build CI runs)."""
    pytest.importorskip("sphinx", reason="the docs extra (pip install -e '.[docs]') is not installed")
    pytest.importorskip("myst_parser", reason="the docs extra (pip install -e '.[docs]') is not installed")
    r = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                        str(DOCS), str(tmp_path / "html")], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "html" / "index.html").exists()


def test_every_page_is_in_the_table_of_contents():
    index = (DOCS / "index.md").read_text("utf-8")
    for page in DOCS.glob("*.md"):
        if page.stem != "index":
            assert re.search(rf"^{re.escape(page.stem)}$", index, re.M), f"{page.name} is not in index.md's toctree"


@pytest.mark.parametrize("page", [p for p in PAGES if samples(p)], ids=lambda p: p.name)
def test_console_samples_print_what_the_page_shows(page, run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for command, code, expected in samples(page):
        args = shlex.split(command)
        assert args[0] == "meridians", f"{page.name}: a console sample runs meridians, not {args[0]!r}"
        r = run_cli(*args[1:])
        shown = f"{page.name}: $ {command}\n--- expected\n" + "\n".join(expected) + "\n--- printed\n" + r.stdout
        assert r.exception is None, shown + f"\n--- exception {r.exception!r}"
        assert r.code == code, shown + f"\n--- exit {r.code}, stderr:\n{r.stderr}"
        assert matches(expected, r.stdout.splitlines()), shown


def _sh_commands(page: Path) -> list[str]:
    out = []
    for block in _blocks(page, "sh"):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words:
                out.append(words)
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_commands_shown_but_not_run_still_parse(page):
    """A ``meridians`` line of a ``sh`` block names a command and options that exist; a
    ``python scripts/NAME.py`` line names a script that exists."""
    from solver.cli import cli

    for words in _sh_commands(page):
        if words[0] == "meridians":
            _parse(cli, words[1:], f"{page.name}: {' '.join(words)}")
        elif words[0] == "python" and len(words) > 1 and words[1].startswith("scripts/"):
            assert (ROOT / words[1]).is_file(), f"{page.name}: {words[1]} does not exist"


def _parse(group: click.Group, args: list[str], where: str) -> None:
    try:
        ctx = group.make_context(group.name or "meridians", list(args))
    except click.UsageError as e:
        raise AssertionError(f"{where}: {e.format_message()}") from None
    protected = getattr(ctx, "_protected_args", None)  # click 8.2 renamed protected_args
    if protected is None:
        protected = ctx.protected_args
    try:
        name, command, rest = group.resolve_command(ctx, [*protected, *ctx.args])
    except click.UsageError as e:
        raise AssertionError(f"{where}: {e.format_message()}") from None
    assert command is not None, f"{where}: no command {name!r}"
    if isinstance(command, click.Group):
        _parse(command, rest, where)
        return
    try:
        command.make_context(name, rest, parent=ctx)
    except click.BadParameter as e:
        # a file the reader has (game.txt, a certificate) is not here: the options parsed
        assert "does not exist" in e.format_message(), f"{where}: {e.format_message()}"
    except click.UsageError as e:
        raise AssertionError(f"{where}: {e.format_message()}") from None


def test_the_test_extra_installs_the_docs_builder():
    # the build above skips without Sphinx: an install of '.[test]' (README, CI) must bring it
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]
    for need in ("sphinx>=7", "myst-parser>=2"):
        assert need in extras["docs"] and need in extras["test"], need
