"""The published JSON Schema of the puzzle record, ``puzzles/schema/puzzle.schema.json``,
against the parser it describes (:func:`puzzles.record.Puzzle.from_dict`).

The schema is checked by ``jsonschema`` (the ``[test]`` extra), for the draft it declares.
The parser stays the authority: the schema says nothing of the rules (a position that
parses, a legal key and line), so those records pass it.
"""

from __future__ import annotations

import importlib.resources
import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from puzzles.record import (FIELDS, GENERATORS, OPTIONAL, REQUIRED, RETIRED_THEMES, SOURCES, THEMES, Puzzle,
                            PuzzleFormatError, json_schema, load_jsonl)
from solver.search.capture import MAX_N

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads(importlib.resources.files("puzzles").joinpath("schema/puzzle.schema.json").read_text("utf-8"))
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)


def errors(doc: Any) -> list[str]:
    """What the schema finds wrong with ``doc`` (nothing: it is valid)."""
    return [e.message for e in VALIDATOR.iter_errors(doc)]


# -- the schema against the record's definitions ------------------------------------------
def test_the_schema_names_the_record_fields_and_constants() -> None:
    assert json_schema() == SCHEMA
    props = SCHEMA["properties"]
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["required"] == list(REQUIRED)
    assert list(props) == list(FIELDS + OPTIONAL)
    assert props["n"]["minimum"] == 1 and props["n"]["maximum"] == MAX_N
    assert props["generator"]["enum"] == [*GENERATORS, None]
    assert props["themes"]["items"]["enum"] == list(THEMES) + list(RETIRED_THEMES)
    kinds = {s["properties"]["kind"]["const"]: s for s in props["source"]["anyOf"] if s.get("type") == "object"}
    assert set(kinds) == set(SOURCES)
    for kind, fields in SOURCES.items():
        assert set(kinds[kind]["required"]) == {"kind", *fields} == set(kinds[kind]["properties"])
        for f, t in fields.items():
            assert kinds[kind]["properties"][f]["type"] == {int: "integer", str: "string"}[t]


def _committed_records() -> list[tuple[str, int, dict]]:
    out = []
    for f in sorted((ROOT / "results" / "puzzles").glob("*.jsonl")):
        for i, line in enumerate(f.read_text("utf-8").split("\n"), 1):
            if line.strip():
                out.append((f.name, i, json.loads(line)))
    return out


def test_every_committed_record_matches_the_schema() -> None:
    records = _committed_records()
    assert len(records) >= 1000  # results/puzzles holds the committed sets (3700 records today)
    bad = [(f, i, e) for f, i, d in records if (e := errors(d))]
    assert not bad, bad[:5]
    # and the parser reads them (one file, to keep this fast: the others are test_puzzle_record's)
    assert load_jsonl(ROOT / "results" / "puzzles" / "4-5-c1.jsonl")


# -- the schema against the parser --------------------------------------------------------
GOOD = {"id": "m23-c1-0001", "position": "2/1D1/4/L2/2 L", "target": "d2", "n": 1, "key": "b3", "line": ["b3"]}


def parser_accepts(d: Any, *, check: bool) -> bool:
    try:
        Puzzle.from_dict(d, check=check)
    except PuzzleFormatError:
        return False
    return True


@pytest.mark.parametrize("bad", [
    # from tests/test_puzzle_record.py's bad records: those a schema can see
    [1, 2], {k: v for k, v in GOOD.items() if k != "target"}, dict(GOOD, n=0), dict(GOOD, n="2"),
    dict(GOOD, difficulty=7), dict(GOOD, rating=-1), dict(GOOD, rating=1500.5),
    dict(GOOD, generator="magic"), dict(GOOD, dual_free="yes"), dict(GOOD, id="two words"),
])
def test_records_the_parser_refuses_for_their_fields_the_schema_refuses(bad: Any) -> None:
    assert not parser_accepts(bad, check=False)
    assert errors(bad)


@pytest.mark.parametrize("bad", [
    # the rules, which only the parser checks
    dict(GOOD, position="2/3/4/3 L"), dict(GOOD, target="b1"), dict(GOOD, target="z9"), dict(GOOD, key="c2", line=["c2"]),
    dict(GOOD, line=["b3", "b3"]), dict(GOOD, line=["a1"]),
])
def test_records_wrong_for_the_rules_pass_the_schema(bad: dict) -> None:
    assert parser_accepts(bad, check=False) and not parser_accepts(bad, check=True)
    assert not errors(bad)


U63 = 2**63 - 1
#: values tried in every field of GOOD (and as the whole of ``source``)
VALUES = [None, True, False, 0, 1, 2, 5, 6, 1500, 5000, 5001, MAX_N, MAX_N + 1, -1, U63, U63 + 1, 10**400,
          1.5, 2.0, 1e301, math.inf, -math.inf, "", "x", "b3", "two words", 'quo"te', "sat", "baseline", "magic", "any",
          [], ["b3"], ["b3", 1], ["fork"], ["quiet-key", "fork"], ["fork", "quiet-key"], ["fork", "fork"], ["block"],
          ["nope"], {}, {"kind": "random", "game": 1, "ply": 2}, {"kind": "random", "game": -1, "ply": 2},
          {"kind": "random", "game": 1, "ply": 2, "more": 0}, {"kind": "random", "game": True, "ply": 2},
          {"kind": "selfplay", "game": 1, "ply": 2, "playouts": 500}, {"kind": "selfplay", "game": 1, "ply": 2},
          {"kind": "records", "file": "a.txt", "ply": 0}, {"kind": "records", "file": "", "ply": 0},
          {"kind": "records", "file": "a\nb", "ply": 0}, {"kind": "records", "file": "a" * 1001, "ply": 0},
          {"kind": "magic"}]

#: (field, value) where schema and parser disagree, each for a reason a schema cannot express
#: the parser's way: JSON Schema counts 2.0 as an integer; the order of themes
KNOWN = {("n", 2.0): "2.0 is an integer to JSON Schema, not to the parser",
         ("difficulty", 2.0): "2.0 is an integer to JSON Schema, not to the parser",
         ("nodes", 2.0): "2.0 is an integer to JSON Schema, not to the parser",
         ("rating", 2.0): "2.0 is an integer to JSON Schema, not to the parser",
         ("themes", ("fork", "quiet-key")): "themes out of THEMES order"}


def _key(v: Any) -> Any:
    # hashable, for the sets of (field, value)
    return tuple(v) if isinstance(v, list) else json.dumps(v, sort_keys=True) if isinstance(v, dict) else v


def _cases() -> list[tuple[str, Any, dict]]:
    return [(f, v, dict(GOOD, **{f: v})) for f in FIELDS + OPTIONAL for v in VALUES]


def test_the_schema_and_the_parser_agree_field_by_field() -> None:
    disagree = {}
    for f, v, d in _cases():
        schema_ok, parser_ok = not errors(d), parser_accepts(d, check=False)
        if schema_ok != parser_ok:
            disagree[(f, _key(v))] = (schema_ok, parser_ok)
    assert set(disagree) == set(KNOWN), disagree
    assert all(schema_ok and not parser_ok for schema_ok, parser_ok in disagree.values())  # the schema is laxer
    assert len(_cases()) > 500


def test_the_schema_is_valid_for_its_draft() -> None:
    assert jsonschema.validators.validator_for(SCHEMA, default=None) is jsonschema.Draft202012Validator
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    # the validator is not vacuous: the record it is built for passes, a broken one does not
    assert errors(GOOD) == [] and errors(dict(GOOD, n="1"))
