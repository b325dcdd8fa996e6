"""Where a result came from: the stamp every results file carries.

A file under ``results/`` must be regenerable: :func:`provenance` gives the command that
wrote it, the package version, the git revision of the code, the version of RULES.md the
engine implements, and the Python version, in that order (the order the committed
results hold them)::

    record = {"board": "2/3", **provenance("python scripts/solve_boards.py --boards 2/3"), ...}

The revision has one rule: the short commit hash of the checkout the package runs from,
with ``-dirty`` when the code (``solver/``, ``puzzles/``, ``scripts/``,
``pyproject.toml``) has uncommitted changes (``results/`` and ``tests/`` do not count:
writing results must not make the next result "dirty"), and ``unknown`` outside a git
checkout (an installed package) or without git.
"""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path

from solver import RULES_VERSION, __version__

__all__ = ["provenance", "code_revision", "load_average", "CODE_PATHS"]

#: the paths whose uncommitted changes make a revision ``-dirty``
CODE_PATHS = ("solver", "puzzles", "scripts", "pyproject.toml")


def code_revision(top: str | Path | None = None) -> str:
    """The git revision of the code in the checkout ``top`` (default: the one this
    package runs from): ``'6d34ef3'``, ``'6d34ef3-dirty'`` or ``'unknown'`` (see the
    module docstring).  Take it once when a long run starts: later commits do not change
    the code the run imported."""
    top = Path(__file__).resolve().parents[2] if top is None else Path(top)
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=top, capture_output=True,
                              text=True, check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", *CODE_PATHS], cwd=top,
                               capture_output=True, text=True, check=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (head or "unknown") + ("-dirty" if dirty else "")


def provenance(command: str, *, revision: str | None = None) -> dict[str, str]:
    """The stamp of a result written by ``command``: ``command``, ``version``,
    ``revision`` (``revision`` if given, as taken when the run started, else
    :func:`code_revision` now), ``rules`` and ``python``.

    >>> stamp = provenance("meridians solve 2/3", revision="abc1234")
    >>> list(stamp), stamp["revision"]
    (['command', 'version', 'revision', 'rules', 'python'], 'abc1234')
    """
    return {
        "command": command, "version": __version__,
        "revision": code_revision() if revision is None else revision,
        "rules": RULES_VERSION, "python": platform.python_version(),
    }


def load_average() -> str:
    """The machine's load average over the last minute, as ``/proc/loadavg`` gives it
    (``'?'`` where there is none): a benchmark records it beside its timings."""
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[0]
    except (OSError, IndexError):
        return "?"
