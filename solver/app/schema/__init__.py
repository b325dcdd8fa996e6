"""The published JSON Schemas (draft 2020-12) of the ``--json`` outputs of ``meridians``.

Every command with ``--json`` prints one JSON object whose first key, ``"schema"``, names
its format and version, ``"meridians.<command>/<version>"`` (:data:`SCHEMA_IDS`), and the
package ships the schema of that format as ``solver/app/schema/<command>.schema.json``
(``puzzles audit``, a plugin command, ships its own as ``puzzles/schema/audit.schema.json``);
``lookup`` and ``move`` print the same object, a position's analysis (:mod:`solver.app.analyst`),
whose one schema is ``analysis.schema.json`` (:data:`SHARED`), its ``"schema"`` const set to
the command's.
The version goes up whenever a field is added, removed, renamed, or changes its type or
meaning, so a reader that checks the key reads the fields it expects; the schema says
``additionalProperties: false`` wherever the shape is fixed.  tests/test_json_schemas.py runs
every ``--json`` command and validates its output against its schema.

>>> SCHEMA_IDS["lookup"]
'meridians.lookup/3'
>>> tagged("bench", {"board": "2/3"})
{'schema': 'meridians.bench/1', 'board': '2/3'}
>>> output_schema("bench")["properties"]["schema"]["const"]
'meridians.bench/1'
"""

from __future__ import annotations

import importlib.resources
import json
from typing import Any

__all__ = ["SCHEMA_IDS", "SHARED", "tagged", "output_schema"]

#: the format and version of each command's ``--json`` output (its ``"schema"`` key)
SCHEMA_IDS: dict[str, str] = {
    "analyse": "meridians.analyse/1",
    "bench": "meridians.bench/1",
    "lookup": "meridians.lookup/3",
    "match": "meridians.match/1",
    "move": "meridians.move/3",
    "solve": "meridians.solve/1",
    "verify": "meridians.verify/1",
}

#: commands whose output is an object of a shared format: the schema file it is in
SHARED: dict[str, str] = {"lookup": "analysis", "move": "analysis"}


def tagged(command: str, output: dict[str, Any]) -> dict[str, Any]:
    """``output`` with the ``"schema"`` key of ``command``'s format put first (a new dict).
    KeyError for a command that has no JSON output."""
    return {"schema": SCHEMA_IDS[command], **output}


def output_schema(command: str) -> dict[str, Any]:
    """The JSON Schema of ``command``'s ``--json`` output, read from the package
    (``solver/app/schema/<command>.schema.json``).  ValueError for a command without one."""
    if command not in SCHEMA_IDS:
        raise ValueError(f"no JSON output schema for {command!r} (one of {', '.join(SCHEMA_IDS)})")
    name = SHARED.get(command, command)
    text = importlib.resources.files(__name__).joinpath(f"{name}.schema.json").read_text("utf-8")
    schema = json.loads(text)
    schema["properties"]["schema"]["const"] = SCHEMA_IDS[command]
    return schema
