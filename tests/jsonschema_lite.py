"""A small JSON Schema validator: the subset of draft 2020-12 that the project's published
schemas use (``puzzles/schema/*.schema.json``, ``solver/schema/*.schema.json``).

``jsonschema`` is not a dependency, so the tests check the schemas with this; it knows only
the keywords listed in :func:`errors` and refuses any other with an AssertionError (a keyword
it skipped would pass every document).  Where ``jsonschema`` is installed, tests compare the
two validators' verdicts (tests/test_puzzle_schema.py, tests/test_json_schemas.py).
``$ref`` is resolved within the schema only (``#/$defs/NAME``).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["errors"]

#: keywords that say nothing about the document
_ANNOTATIONS = {"$schema", "title", "description", "$defs"}


def _is_type(v: Any, t: str) -> bool:
    if t == "null":
        return v is None
    if t == "boolean":
        return isinstance(v, bool)
    if t == "integer":  # 2020-12: a number with no fractional part, 1.0 included
        return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, {"string": str, "array": list, "object": dict}[t])


def _equal(a: Any, b: Any) -> bool:
    # JSON equality: true is not 1
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


def _resolve(root: dict, ref: str) -> Any:
    if not ref.startswith("#/"):
        raise AssertionError(f"$ref {ref!r}: the small validator resolves only '#/...' within the schema")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def errors(schema: Any, v: Any, where: str = "$", root: dict | None = None) -> list[str]:
    """Why ``v`` does not match ``schema`` (empty when it does).  ``root``: the whole
    schema, where ``$ref`` looks (default ``schema`` itself)."""
    if schema is True:
        return []
    if schema is False:
        return [f"{where}: not allowed"]
    root = schema if root is None else root
    out: list[str] = []
    for k, s in schema.items():
        if k in _ANNOTATIONS:
            continue
        if k == "$ref":
            out += errors(_resolve(root, s), v, where, root)
        elif k == "type":
            if not any(_is_type(v, t) for t in ([s] if isinstance(s, str) else s)):
                out.append(f"{where}: not of type {s}")
        elif k == "enum":
            if not any(_equal(v, e) for e in s):
                out.append(f"{where}: not one of {s}")
        elif k == "const":
            if not _equal(v, s):
                out.append(f"{where}: not {s!r}")
        elif k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if _is_type(v, "number"):
                ok = {"minimum": v >= s, "maximum": v <= s, "exclusiveMinimum": v > s, "exclusiveMaximum": v < s}[k]
                if not ok:
                    out.append(f"{where}: {k} {s}")
        elif k in ("minLength", "maxLength", "pattern"):
            if isinstance(v, str):
                ok = {"minLength": lambda: len(v) >= s, "maxLength": lambda: len(v) <= s,
                      "pattern": lambda: re.search(s, v) is not None}[k]()
                if not ok:
                    out.append(f"{where}: {k} {s!r}")
        elif k == "required":
            if isinstance(v, dict):
                out += [f"{where}: missing {f}" for f in s if f not in v]
        elif k == "properties":
            if isinstance(v, dict):
                for f, sub in s.items():
                    if f in v:
                        out += errors(sub, v[f], f"{where}.{f}", root)
        elif k == "additionalProperties":
            if isinstance(v, dict):
                for f in v:
                    if f not in schema.get("properties", {}):
                        out += [f"{where}: unexpected {f}"] if s is False else errors(s, v[f], f"{where}.{f}", root)
        elif k == "propertyNames":
            if isinstance(v, dict):
                for f in v:
                    out += errors(s, f, f"{where}[{f!r}] (name)", root)
        elif k == "prefixItems":
            if isinstance(v, list):
                for i, (sub, x) in enumerate(zip(s, v)):
                    out += errors(sub, x, f"{where}[{i}]", root)
        elif k == "items":  # 2020-12: the items after prefixItems
            if isinstance(v, list):
                for i in range(len(schema.get("prefixItems", [])), len(v)):
                    out += errors(s, v[i], f"{where}[{i}]", root)
        elif k in ("minItems", "maxItems"):
            if isinstance(v, list) and not (len(v) >= s if k == "minItems" else len(v) <= s):
                out.append(f"{where}: {k} {s}")
        elif k == "uniqueItems":
            if isinstance(v, list) and s and any(_equal(a, b) for i, a in enumerate(v) for b in v[i + 1:]):
                out.append(f"{where}: items not unique")
        elif k == "anyOf":
            if all(errors(sub, v, where, root) for sub in s):
                out.append(f"{where}: matches none of anyOf")
        elif k == "not":
            if not errors(s, v, where, root):
                out.append(f"{where}: matches a 'not'")
        elif k == "if":
            branch = "then" if not errors(s, v, where, root) else "else"
            if branch in schema:
                out += errors(schema[branch], v, where, root)
        elif k in ("then", "else"):
            if "if" not in schema:
                raise AssertionError(f"{k!r} without 'if'")
        else:
            raise AssertionError(f"the schema uses {k!r}, which the small validator does not check")
    return out
