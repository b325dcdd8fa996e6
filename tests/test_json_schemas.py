"""The published JSON Schemas of the ``--json`` outputs (``solver/app/schema/*.schema.json``,
``puzzles/schema/audit.schema.json``) against the commands' real output.

Every command of the ``meridians`` tree that has a ``--json`` option (found by walking
click's commands, plugins included) must ship a schema; each such command is run on small
inputs (2/3 and 3/4 positions, small budgets) covering its kinds of answer (database,
search, game over, pie, a certificate, a game record), and its output must carry the
``"schema"`` key and match its schema, by ``jsonschema`` (the ``[test]`` extra) for the
draft the schema declares.
The same outputs, broken (a field removed, a field of the wrong type, an unexpected field, a
wrong ``"schema"``), must be refused, so the schemas are not vacuous.
"""

from __future__ import annotations

import copy
import importlib.resources
import json
from pathlib import Path
from typing import Any

import click
import jsonschema
import pytest

from solver.app.schema import SCHEMA_IDS, SHARED, output_schema, tagged
from solver.search.values import Value

ROOT = Path(__file__).resolve().parent.parent
DRAFT = "https://json-schema.org/draft/2020-12/schema"
#: a game on 2/3 (Light wins by capture at move 3) and a seeded random game on 3/4 with
#: blunders (``meridians play --board 3/4 --seed 3 --record``)
GAME_23 = '[Board "2/3"]\n[Light "random"]\n[Dark "random"]\n[Result "L"]\n\n1. b1 d2 2. b3 L\n'
GAME_34 = ("[Board \"3/4\"]\n[Light \"random\"]\n[Dark \"random\"]\n[Result \"D\"]\n\n"
           "1. c1 e2 2. c3 e5 3. d2 e3 4. a3 a2 5. f4 d4 6. c5 c4 7. e4 g2 8. d5 g1 9. d6 d3 "
           "10. d1 g3 11. b2 b4 12. b3 e5 13. c2 D\n")


# -- the commands with --json ------------------------------------------------------------
def json_commands() -> dict[tuple[str, ...], click.Command]:
    """Every command under ``meridians`` with a ``--json`` option, by its path of names
    (plugin groups such as ``puzzles`` are loaded and walked too)."""
    from solver.cli import cli

    found: dict[tuple[str, ...], click.Command] = {}

    def walk(group: click.Group, path: tuple[str, ...]) -> None:
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            if isinstance(cmd, click.Group):
                walk(cmd, path + (name,))
            elif cmd is not None and any("--json" in p.opts for p in cmd.params if isinstance(p, click.Option)):
                found[path + (name,)] = cmd

    walk(cli, ())
    return found


def schema_file(path: tuple[str, ...], cmd: click.Command):
    """Where the schema of a command's ``--json`` output is: ``solver/app/schema/<name>.schema.json``
    for the ``meridians`` commands, ``<package>/schema/<name>.schema.json`` in a plugin's
    package (such as ``puzzles``); the name a shared format's (solver.app.schema.SHARED) or
    the command's."""
    package = cmd.callback.__module__.split(".")[0]
    if package == "solver":
        return importlib.resources.files("solver.app").joinpath("schema", f"{SHARED.get(path[-1], path[-1])}.schema.json")
    name = path[-1]
    return importlib.resources.files(package).joinpath("schema", f"{name}.schema.json")


def schema_of(path: tuple[str, ...]) -> dict:
    if len(path) == 1 and path[0] in SCHEMA_IDS:
        return output_schema(path[0])  # a shared file's "schema" const set to the command's
    return json.loads(schema_file(path, json_commands()[path]).read_text("utf-8"))


def test_every_json_command_ships_a_schema_with_its_id() -> None:
    cmds = json_commands()
    # the walk sees the commands there are today (so it is not vacuous); a new --json command
    # is found the same way and fails below until it ships a schema
    assert {("move",), ("match",), ("solve",), ("lookup",), ("verify",), ("bench",), ("analyse",),
            ("puzzles", "audit")} <= set(cmds)
    missing = [p for p, c in cmds.items() if not schema_file(p, c).is_file()]
    assert not missing, f"--json commands without a schema file: {missing}"
    for path in cmds:
        schema = schema_of(path)
        assert schema["$schema"] == DRAFT and schema["type"] == "object"
        sid = schema["properties"]["schema"]["const"]
        assert sid.startswith(f"meridians.{'-'.join(path)}/") and sid.rsplit("/", 1)[1].isdigit()
        assert "schema" in schema["required"] and schema["additionalProperties"] is False
        if len(path) == 1:
            assert SCHEMA_IDS[path[0]] == sid and output_schema(path[0]) == schema
    assert set(SCHEMA_IDS) == {p[0] for p in cmds if len(p) == 1}


def test_the_test_extra_installs_jsonschema() -> None:
    # these tests import jsonschema unconditionally: an install of '.[test]' must bring it
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]["test"]
    assert "jsonschema>=4" in extra


def test_output_schema_and_tagged() -> None:
    assert list(tagged("move", {"a": 1})) == ["schema", "a"]
    with pytest.raises(ValueError, match="no JSON output schema"):
        output_schema("show")
    with pytest.raises(KeyError):
        tagged("show", {})


def validator(schema: dict) -> jsonschema.protocols.Validator:
    """A validator of the draft ``schema`` declares, the schema itself checked first."""
    cls = jsonschema.validators.validator_for(schema, default=None)
    assert cls is not None, f"no validator for {schema.get('$schema')!r}"
    cls.check_schema(schema)
    return cls(schema)


def _all_schemas() -> list[tuple[str, dict]]:
    return [("-".join(p), schema_of(p)) for p in json_commands()]


def _walk(node: Any):
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


def test_every_schema_is_valid_and_speaks_one_value_vocabulary() -> None:
    values = [v.value for v in Value]
    for name, schema in _all_schemas():
        validator(schema)
        if "value" in schema.get("$defs", {}):
            assert schema["$defs"]["value"]["enum"] == values, name
        # every enum of values uses Value's words (and the pie's winners L, D): no 'won', 'lost'
        for node in _walk(schema):
            if "enum" in node and {"win", "loss"} & set(x for x in node["enum"] if isinstance(x, str)):
                assert set(node["enum"]) <= {*values, "L", "D", None}, (name, node["enum"])
        # every fixed object says so (maps name their items' schema instead)
        for node in _walk(schema):
            if node.get("type") == "object" and "properties" in node:
                assert node.get("additionalProperties") is False, (name, list(node["properties"]))


# -- the commands run ----------------------------------------------------------------------
def _puzzles_file(tmp: Path) -> Path:
    # two committed 4/5 records (with themes), the second with a wrong key: a problem listed
    lines = (ROOT / "results" / "puzzles" / "4-5-c2.jsonl").read_text("utf-8").splitlines()[:2]
    second = json.loads(lines[1])
    from solver import Position

    second["key"] = next(m for m in Position.parse(second["position"]).legal_moves() if m != second["key"])
    second.pop("line", None)
    f = tmp / "p.jsonl"
    f.write_text(lines[0] + "\n" + json.dumps(second) + "\n")
    return f


#: (case id, command path, arguments, exit codes allowed, fields the output has: the kind of
#: answer the case is there for); ``{tmp}`` is the test's folder
CASES = [
    ("bench", ("bench",), ["bench", "--board", "2/3", "--seconds", "0.1"], (0,), {"board": "2/3"}),
    ("move-database", ("move",), ["move", "2/3"], (0,), {"source": "database"}),
    ("move-estimate", ("move",), ["move", "3/4", "--no-database", "--playouts", "300"], (0,), {"source": "engine"}),
    ("move-over", ("move",), ["move", "2/1D1/4/L1L/2 D"], (0,), {"source": "rules", "best": None}),
    ("lookup-database", ("lookup",), ["lookup", "2/1D1/4/L2/2 L"], (0,), {"source": "database"}),
    ("lookup-over", ("lookup",), ["lookup", "2/1D1/4/L1L/2 D"], (0,), {"source": "rules", "moves": []}),
    ("lookup-proof", ("lookup",), ["lookup", "2/3/L3/3/2 D", "--no-database", "--time", "5"], (0,), {"source": "proof"}),
    ("verify-database", ("verify",), ["verify", "2/3", "--claim", "loss"], (1,),
     {"method": "database", "verdict": "refuted"}),
    ("verify-horizon", ("verify",), ["verify", "2/3", "--no-database", "--time", "0.001", "--max-plies", "2"], (3,),
     {"method": "horizon", "value": "unknown"}),
    ("verify-certificate", ("verify",), ["verify", "2/3/L3/3/2 D", "--no-database", "--certificate", "{tmp}/c.json"],
     (0,), {"method": "dfpn"}),
    ("verify-no-certificate", ("verify",), ["verify", "3/4", "--time", "0.2", "--certificate", "{tmp}/none.json"],
     (3,), {"value": "unknown"}),
    ("verify-territory", ("verify",), ["verify", "LLL/1LDL/LLDLL/LLDDDL/DDDDD/LD2/D1D L"], (0,), {"value": "loss"}),
    ("verify-game", ("verify",), ["verify", "--game", "{tmp}/g23.txt"], (0,), {"method": "rules"}),
    ("verify-moves", ("verify",), ["verify", "--board", "2/3", "--moves", "b1,d2"], (0,), {"method": "database"}),
    ("solve-database", ("solve",), ["solve", "2/3"], (0,), {"method": "database"}),
    ("solve-dfpn", ("solve",), ["solve", "2/3/L3/3/2 D", "--checkpoint", "{tmp}/ck.json"], (0,), {"method": "dfpn"}),
    ("solve-pie", ("solve",), ["solve", "2/3", "--pie", "--max-nodes", "200", "--checkpoint", "{tmp}/pie.json"],
     (0, 3), {"pie": True}),
    ("match", ("match",), ["match", "random", "random", "--board", "2/3", "--games", "2",
                           "--state", "{tmp}/m.json"], (0,), {"games": 2}),
    ("analyse-23", ("analyse",), ["analyse", "--game", "{tmp}/g23.txt", "--time-per-move", "0.05"], (0,),
     {"result": "L"}),
    ("analyse-34", ("analyse",), ["analyse", "--game", "{tmp}/g34.txt", "--time-per-move", "0.05"], (0,),
     {"result": "D"}),
    ("audit", ("puzzles", "audit"), ["puzzles", "audit", "{tmp}/p.jsonl"], (1,), {}),
]


def _outputs(run_cli, tmp: Path, args: list[str], codes: tuple[int, ...]) -> list[dict]:
    (tmp / "g23.txt").write_text(GAME_23)
    (tmp / "g34.txt").write_text(GAME_34)
    _puzzles_file(tmp)
    r = run_cli(*[a.format(tmp=tmp) for a in args], "--json")
    assert r.exception is None and r.code in codes, (r.code, r.stdout, r.stderr)
    lines = r.stdout.splitlines()
    assert lines, r.stderr
    return [json.loads(line) for line in lines]  # one object (audit: one a puzzle)


def _broken(d: dict, schema: dict) -> list[tuple[str, dict]]:
    """``d`` broken in the ways a schema must see: each required field removed, each field
    given a value of the wrong type, an unexpected field, a wrong ``schema``."""
    out = []
    for f in schema["required"]:
        out.append((f"without {f}", {k: v for k, v in d.items() if k != f}))
    for f, v in d.items():
        # a value no field's schema admits: a list where a scalar is, a string where a list is
        wrong = "x" if isinstance(v, (list, dict)) else [v]
        out.append((f"{f} of the wrong type", dict(d, **{f: wrong})))
    out.append(("an unexpected field", dict(d, surprise=1)))
    out.append(("another schema", dict(d, schema=d["schema"].rsplit("/", 1)[0] + "/999")))
    return out


def _nested_broken(d: dict) -> list[tuple[str, dict]]:
    """A field removed inside each list of objects (moves, classes, positions...)."""
    out = []
    for f, v in d.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            b = copy.deepcopy(d)
            b[f][0].pop(next(iter(b[f][0])))
            out.append((f"{f}[0] without a field", b))
    return out


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_json_output_matches_its_schema_and_broken_output_does_not(case, run_cli, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # default checkpoints and state files go there, not in the tree
    _, path, args, codes, expect = case
    schema = schema_of(path)
    outs = _outputs(run_cli, tmp_path, args, codes)
    check = validator(schema)
    for d in outs:
        assert next(iter(d)) == "schema" and d["schema"] == schema["properties"]["schema"]["const"]
        assert {k: d[k] for k in expect} == expect
        assert check.is_valid(d), [e.message for e in check.iter_errors(d)][:3]
        for why, bad in _broken(d, schema) + _nested_broken(d):
            assert not check.is_valid(bad), f"{why} passes the schema"


def test_the_cases_cover_each_kind_of_answer() -> None:
    # each kind of answer of the schemas' enums that a small input can give has a case above
    kinds: dict[str, set] = {}
    for _, path, _, _, expect in CASES:
        kinds.setdefault(path[-1], set()).update(expect[k] for k in ("source", "method") if k in expect)
    assert kinds["move"] == {"database", "engine", "rules"}
    assert kinds["verify"] == {"database", "horizon", "dfpn", "rules"}
    assert kinds["solve"] == {"database", "dfpn"} and kinds["lookup"] == {"database", "proof", "rules"}
    assert any(e.get("pie") for _, _, _, _, e in CASES)
