"""Build hook: the committed puzzle sets ship inside the package.

Everything else about the package is declared in ``pyproject.toml``.  The sets are
written by the scripts to ``results/puzzles/<board>-c<n>.jsonl``, the one copy git holds;
a built package (wheel) gets a copy of them in ``puzzles/sets/``, where
``puzzles.record.committed_folder`` finds them when no checkout is beside the package.
The generators' ``.state.json`` and ``.lock`` files stay out (only ``*.jsonl``).  An
editable install copies nothing: it reads the checkout's ``results/puzzles``.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SETS = Path(__file__).resolve().parent / "results" / "puzzles"


class build_py_with_sets(build_py):
    """``build_py`` that also copies ``results/puzzles/*.jsonl`` to ``puzzles/sets/``."""

    def _sets(self) -> list[tuple[Path, str]]:
        files = sorted(SETS.glob("*.jsonl"))
        if not files:  # a wheel without its sets would fail only when a user looks an id up
            raise SystemExit(f"setup.py: no puzzle sets (*.jsonl) in {SETS}: the package would ship without them")
        return [(f, str(Path(self.build_lib) / "puzzles" / "sets" / f.name)) for f in files]

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for source, target in self._sets():
            self.mkpath(str(Path(target).parent))
            self.copy_file(str(source), target)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outputs
        return outputs + [target for _, target in self._sets()]


setup(cmdclass={"build_py": build_py_with_sets})
