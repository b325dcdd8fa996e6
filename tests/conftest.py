"""Shared test settings: the hypothesis profile.

The default profile ``ci`` is derandomized, so every run of ``pytest`` draws the same
examples and a failure reproduces exactly; it keeps no example database.  To hunt for new
counterexamples, run with fresh random examples and more of them::

    HYPOTHESIS_PROFILE=explore pytest tests/test_core_vs_reference.py
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile("ci", derandomize=True, database=None, **_COMMON)
settings.register_profile("explore", derandomize=False, max_examples=1000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


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
