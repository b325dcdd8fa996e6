"""The scripts are thin commands over the package: none reaches into another script."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).resolve().parent.parent / "scripts").glob("*.py"))
NAMES = {p.stem for p in SCRIPTS}


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_a_script_imports_only_the_package_and_libraries(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mods = [node.module or ""]
        else:
            if isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", "") == "sys":
                pytest.fail(f"{path.name} line {node.lineno}: sys.path")  # another script's folder
            continue
        for m in mods:
            assert m.split(".")[0] not in NAMES, f"{path.name} line {node.lineno} imports the script {m}"
