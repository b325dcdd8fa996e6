"""Sphinx configuration of the Meridians documentation.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (warnings are
errors; tests/test_docs.py builds it so, and runs every command sample of the pages).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # autodoc imports the package of this checkout

project = "Meridians"
author = "Meridians solver contributors"
copyright = "2026, Meridians solver contributors"
release = version = "0.1.0"

extensions = [
    "myst_parser",              # the pages are Markdown (MyST)
    "sphinx.ext.autodoc",       # the API pages, from the docstrings
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3          # [text](page.md#a-heading) links to headings
suppress_warnings = ["myst.xref_missing"] if False else []

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
# the docstrings cross-reference private helpers and modules that have no page: those
# links stay plain text instead of warnings (nitpicky mode stays off)
nitpicky = False

html_theme = "alabaster"
html_title = "Meridians solver"
html_static_path: list[str] = []
