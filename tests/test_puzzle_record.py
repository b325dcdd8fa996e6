"""Puzzle records (puzzles/record.py) and ``meridians puzzles show``.

Records are made from positions reached by seeded random moves on small boards, with
a random opponent stone as target and a random legal key and line: the records need not
be sound puzzles to test the format.
"""

from __future__ import annotations

import ast
import doctest
import json
import random
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puzzles.book
import puzzles.record
from puzzles.record import (FIELDS, Puzzle, PuzzleFormatError, find_puzzle, load_jsonl, parse_puzzle_ref,
                            write_jsonl)
from solver import Board, Position
from solver.rules import randomgame
ROOT = Path(__file__).resolve().parent.parent


def random_position(seed: int, board: str = "2/3") -> Position:
    """A position after a few seeded random moves, not over, where the player not to move
    has a stone (read back from its notation, as a puzzle file gives it)."""
    rng = random.Random(seed)
    b = Board.parse(board)
    while True:
        pos = Position.parse(str(randomgame.random_position(b, rng.randrange(2, len(b.names) // 2 + 1), rng)))
        other = "D" if pos.to_move == "L" else "L"
        if pos.outcome is None and pos.stones(other) and pos.legal_moves():
            return pos


def random_puzzle(seed: int, board: str = "2/3", n: int = 2, pid: str | None = None, key: bool = True,
                  **fields) -> Puzzle:
    """A record on a random position: a random opponent stone as target and, with
    ``key``, a random legal key and a random legal line of at most 2n moves."""
    rng = random.Random(seed)
    pos = random_position(seed, board)
    other = "D" if pos.to_move == "L" else "L"
    target = rng.choice(sorted(pos.stones(other)))
    line: list[str] = []
    if key:
        p = pos
        for _ in range(rng.randrange(1, 2 * n + 1)):
            if p.outcome is not None or not p.legal_moves():
                break
            line.append(rng.choice(p.legal_moves()))
            p = p.play(line[-1])
    return Puzzle(id=pid or f"m{board.replace('/', '')}-c{n}-{seed:04d}", position=str(pos), target=target, n=n,
                  key=line[0] if line else None, line=tuple(line), **fields)


# -- hypothesis: whole records ----------------------------------------------------------
_json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=8),
                         st.floats(allow_nan=False, allow_infinity=False))
_extra = st.dictionaries(st.text(min_size=1, max_size=8).filter(lambda k: k not in FIELDS), _json_scalar, max_size=3)


@st.composite
def puzzles_(draw) -> Puzzle:
    seed = draw(st.integers(0, 10**6))
    board = draw(st.sampled_from(["2/3", "3/4"]))
    n = draw(st.integers(1, 4))
    pid = draw(st.text(st.characters(blacklist_categories=("Cs", "Z", "Cc"), blacklist_characters='";'),
                       min_size=1, max_size=16))
    return random_puzzle(
        seed, board, n, pid=pid, key=draw(st.booleans()),
        dual_free=draw(st.booleans()),
        difficulty=draw(st.none() | st.integers(1, 5)),
        score=draw(st.none() | st.floats(-1e9, 1e9, allow_nan=False)),
        nodes=draw(st.none() | st.integers(0, 2**53)),
        generator=draw(st.none() | st.sampled_from(["sat", "baseline"])),
        version=draw(st.none() | st.text(max_size=20)),
        extra=draw(_extra),
    )


@settings(max_examples=60)
@given(puzzles_())
def test_json_round_trip(p: Puzzle) -> None:
    assert p.validate() == p
    line = p.to_json()
    assert "\n" not in line
    d = json.loads(line)
    assert list(d)[: len(FIELDS)] == list(FIELDS)  # standard fields first, in order
    assert Puzzle.from_dict(d) == p
    assert Puzzle.from_dict(d).extra == p.extra
    assert parse_puzzle_ref(line, []) == p


@settings(max_examples=60)
@given(puzzles_())
def test_epd_round_trip(p: Puzzle) -> None:
    epd = p.to_epd()
    assert "\n" not in epd and epd.startswith(p.position + " cm ")
    assert epd.endswith(f'id "{p.id}";')
    q = Puzzle.from_epd(epd)
    # the EPD form carries the position, target, n, key and id only
    assert q == Puzzle(id=p.id, position=p.position, target=p.target, n=p.n, key=p.key)
    assert Puzzle.from_epd(p.to_epd(with_line=True)).line == p.line
    assert parse_puzzle_ref(epd, []) == q


def test_epd_form() -> None:
    p = Puzzle(id="m23-c1-0001", position="2/1D1/4/L2/2 L", target="d2", n=1, key="b3")
    assert p.to_epd() == '2/1D1/4/L2/2 L cm 1; tg d2; bm b3; id "m23-c1-0001";'
    # extra spaces, upper-case points and opcodes in another order read the same
    assert Puzzle.from_epd('  2/1D1/4/L2/2 L  id "m23-c1-0001" ;tg D2; bm B3;cm 1;') == p


def test_file_round_trip(tmp_path: Path) -> None:
    ps = [random_puzzle(s, "3/4", n=1 + s % 3, generator="sat", version="0.1.0+abc") for s in range(8)]
    path = tmp_path / "3-4-c2.jsonl"
    write_jsonl(path, ps)
    assert load_jsonl(path) == ps
    assert [p.id for p in load_jsonl(path)] == [p.id for p in ps]
    assert not [f for f in tmp_path.iterdir() if f.name.startswith(".tmp-")]  # no temporary file left
    assert find_puzzle(ps[5].id, [path]) == ps[5]
    with pytest.raises(PuzzleFormatError, match="id m34-c1-0000 given twice; not written"):
        write_jsonl(path, [ps[0], ps[1], ps[0]])
    assert load_jsonl(path) == ps  # the file is as it was
    # ids that JSON escapes are found too
    odd = [replace(ps[0], id="a\\b"), replace(ps[1], id="caf\u00e9")]
    path.write_text("".join(json.dumps(p.to_dict()) + "\n" for p in odd), encoding="utf-8")  # ASCII escapes
    assert find_puzzle("a\\b", [path]) == odd[0] and find_puzzle("caf\u00e9", [path]) == odd[1]


def test_doctests() -> None:
    # pytest's --doctest-modules covers solver/ only; the puzzle modules are run here
    import puzzles.generate
    import puzzles.quality
    import puzzles.similar
    import puzzles.verdict

    for module in (puzzles.record, puzzles.book, puzzles.verdict, puzzles.similar, puzzles.generate,
                   puzzles.quality):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__


def test_solver_never_imports_puzzles() -> None:
    # the puzzles group reaches the meridians command through an entry point only; the
    # one exception is the web application (solver/app/web/, an application only the CLI
    # imports: tests/test_layers.py), whose trainer shows the committed puzzles
    web = ROOT / "solver" / "app" / "web"
    for f in (ROOT / "solver").rglob("*.py"):
        if web in f.parents:
            continue
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n == "puzzles" or n.startswith("puzzles.") for n in names), f


# -- errors with file and line ----------------------------------------------------------
GOOD = {"id": "m23-c1-0001", "position": "2/1D1/4/L2/2 L", "target": "d2", "n": 1, "key": "b3", "line": ["b3"]}


def _with(**changes) -> str:
    d = dict(GOOD, **changes)
    return json.dumps({k: v for k, v in d.items() if v is not _DROP})


_DROP = object()


@pytest.mark.parametrize("bad, message", [
    ('{"id": "x", "position": ', "bad JSON"),
    ("[1, 2]", "a puzzle is a JSON object, not an array"),
    (_with(target=_DROP), "missing field target"),
    (_with(position="2/3/4/3 L"), "bad position '2/3/4/3 L'"),
    (_with(position="2/1X1/4/L2/2 L"), "bad position"),
    (_with(target="b1"), "target b1 holds a Light stone, not a stone of Dark"),
    (_with(target="c2"), "target c2 is empty"),
    (_with(target="z9"), "target 'z9' is not a point of board 2/3"),
    (_with(n=0), "n must be at least 1"),
    (_with(n="2"), "n must be a whole number"),
    (_with(key="b1", line=[]), "key b1 is not a legal move for Light"),
    (_with(key="c2", line=["c2"]), "key c2 is not a legal move"),
    (_with(line=["b3", "b3"]), "move 2 of the line (b3) is illegal"),
    (_with(line=["a1"]), "the line starts with a1, not with the key b3"),
    (_with(difficulty=7), "difficulty must be a whole number from 1 to 5"),
    (_with(generator="magic"), "generator must be one of sat, baseline"),
    (_with(dual_free="yes"), "dual_free must be true or false"),
    (_with(id="two words"), "id must be a non-empty string"),
    (json.dumps(GOOD), "id m23-c1-0001 given twice (first on line 1)"),
])
def test_corrupt_file_names_file_and_line(tmp_path: Path, bad: str, message: str) -> None:
    path = tmp_path / "2-3-c1.jsonl"
    path.write_text(json.dumps(GOOD) + "\n\n" + bad + "\n", encoding="utf-8")
    with pytest.raises(PuzzleFormatError) as info:
        load_jsonl(path)
    assert str(info.value).startswith(f"{path}, line 3: "), str(info.value)
    assert message in str(info.value)
    assert info.value.lineno == 3 and info.value.path == str(path)


@pytest.mark.parametrize("bad, message", [
    ("2/1D1/4/L2/2 L tg d2; id \"x\";", "without opcode cm"),
    ("2/1D1/4/L2/2 L cm 1; tg d2; xx 3; id \"x\";", "unknown EPD opcode 'xx'"),
    ("2/1D1/4/L2/2 L cm 1; tg d2; id \"x\"", "is not ended by ';'"),
    ("2/1D1/4/L2/2 L cm one; tg d2; id \"x\";", "cm (capture in N moves) must be a whole number"),
    ("2/1D1/4/L2/2 L cm 1; tg d2; tg d2; id \"x\";", "given twice"),
    ("2/1D1/4/L2/2 L cm 1; tg d2; id \"x;", "unbalanced quote"),
    ("2/1D1/4/L2 L cm 1; tg d2; id \"x\";", "bad position"),
])
def test_bad_epd(bad: str, message: str) -> None:
    with pytest.raises(PuzzleFormatError, match=None) as info:
        Puzzle.from_epd(bad)
    assert message in str(info.value)


def test_lookup_errors(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("not json\n" + json.dumps(GOOD) + "\n", encoding="utf-8")
    assert find_puzzle("m23-c1-0001", [a]).key == "b3"  # a bad line elsewhere does not hide it
    b.write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    with pytest.raises(PuzzleFormatError, match="given more than once"):
        find_puzzle("m23-c1-0001", [a, b])
    with pytest.raises(PuzzleFormatError, match="no puzzle with id 'nope'"):
        find_puzzle("nope", [a])
    b.write_text(_with(target="b1") + "\n", encoding="utf-8")
    with pytest.raises(PuzzleFormatError, match=rf"^{b}, line 1: target b1"):
        find_puzzle("m23-c1-0001", [b])


# -- meridians puzzles show -------------------------------------------------------------


def test_show_epd_line(run_cli) -> None:
    epd = Puzzle(id="m23-c1-0001", position="2/1D1/4/L2/2 L", target="d2", n=1, key="b3").to_epd()
    out = run_cli("puzzles", "show", epd, code=0).stdout
    assert "m23-c1-0001: Light to move, capture the group at d2 in 1 move" in out
    assert Position.parse("2/1D1/4/L2/2 L").diagram() in out
    assert "b3" not in out  # no solution unless asked
    assert "key: b3" in run_cli("puzzles", "show", epd, "--solution", code=0).stdout


def test_show_id_from_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli) -> None:
    ps = [random_puzzle(s, "3/4", n=2) for s in range(3)]
    path = tmp_path / "3-4-c2.jsonl"
    write_jsonl(path, ps)
    out = run_cli("puzzles", "show", ps[1].id, "--file", path, "--solution", "--svg", tmp_path / "p.svg",
                  code=0).stdout
    assert ps[1].task() in out and ps[1].to_position().diagram() in out
    assert f"line: {ps[1].solution_text()}" in out
    svg = (tmp_path / "p.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and f'class="mark" data-point="{ps[1].target}"' in svg
    # by default ids are looked up in the committed sets beside the installed package,
    # whatever the current folder (a results/puzzles folder there is not read)
    (tmp_path / "results" / "puzzles").mkdir(parents=True)
    shutil.copy(path, tmp_path / "results" / "puzzles" / path.name)
    monkeypatch.chdir(tmp_path)
    r = run_cli("puzzles", "show", ps[2].id, code=2)
    assert f"no puzzle with id {ps[2].id!r}" in r.stderr
    committed = load_jsonl(sorted(puzzles.record.COMMITTED.glob("*.jsonl"))[0])[0]
    assert committed.task() in run_cli("puzzles", "show", committed.id, code=0).stdout
    # without the committed sets: one line that says where they were looked for
    monkeypatch.setattr(puzzles.record, "COMMITTED", tmp_path / "nowhere")
    r = run_cli("puzzles", "show", committed.id, code=2)
    assert "the committed sets are not in" in r.stderr and "--file" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and r.stdout == ""


@pytest.mark.parametrize("args, message", [
    (["no-such-id", "--file", "{f}"], "no puzzle with id 'no-such-id'"),
    (["m23-c1-0001", "--file", "{f}"], "line 2: target b1 holds a Light stone"),
    (['2/1D1/4/L2/2 L cm 0; tg d2; id "x";'], "n must be at least 1"),
    (["two words"], "is neither a puzzle id"),
])
def test_show_errors_are_one_line(tmp_path: Path, args: list[str], message: str, run_cli) -> None:
    f = tmp_path / "bad.jsonl"
    f.write_text(json.dumps(dict(GOOD, id="other")) + "\n" + _with(target="b1") + "\n", encoding="utf-8")
    args = [a.replace("{f}", str(f)) for a in args]
    r = run_cli("puzzles", "show", *args, code=2)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("meridians: error: "), r.stderr
    assert message in lines[0]


def test_committed_folder_checkout_then_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # in a checkout (an editable install): its results/puzzles, the one copy git holds
    assert puzzles.record.COMMITTED == puzzles.record.committed_folder() == ROOT / "results" / "puzzles"
    # installed (no pyproject.toml beside the package): the package's own sets, even when
    # some results/puzzles folder happens to lie beside it (tests/test_wheel.py runs the real one)
    site = tmp_path / "site-packages"
    (site / "results" / "puzzles").mkdir(parents=True)
    monkeypatch.setattr(puzzles.record, "__file__", str(site / "puzzles" / "record.py"))
    assert puzzles.record.committed_folder() == Path(puzzles.record.__spec__.origin).parent / "sets"
    # pyproject.toml beside it: a checkout; but one without results/puzzles has no sets
    (site / "pyproject.toml").write_text("")
    assert puzzles.record.committed_folder() == site / "results" / "puzzles"
    shutil.rmtree(site / "results")
    assert puzzles.record.committed_folder() == Path(puzzles.record.__spec__.origin).parent / "sets"


# -- pictures: Puzzle._repr_svg_ (Jupyter) ------------------------------------------------
def test_repr_svg_draws_the_puzzle() -> None:
    import xml.etree.ElementTree as ET

    committed = sorted((ROOT / "results" / "puzzles").glob("*.jsonl"))
    puzzles_ = [Puzzle.from_dict(GOOD)] + [load_jsonl(f)[0] for f in committed[:3]]
    for p in puzzles_:
        svg = p._repr_svg_()
        assert svg == p.svg()  # the picture `puzzles show --svg` writes
        root = ET.fromstring(svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"

        def points(*classes: str) -> list[str]:
            return sorted(e.get("data-point") for e in root.iter() if set(classes) <= set(e.get("class", "").split()))

        pos = p.to_position()
        assert points("stone", "light") == sorted(pos.stones("L"))
        assert points("stone", "dark") == sorted(pos.stones("D"))
        assert points("mark") == [p.target]
        assert p.task() in "".join(root.itertext())


def test_repr_svg_of_an_unchecked_bad_record_is_none() -> None:
    # Jupyter shows the text repr when _repr_svg_ gives None; a bad record must not raise there
    for d in (dict(GOOD, position="2/3/4/3 L"), dict(GOOD, target="z9")):
        p = Puzzle.from_dict(d, check=False)
        assert p._repr_svg_() is None
        with pytest.raises(ValueError):
            p.svg()


def test_a_record_of_the_first_theme_list_loads_without_its_themes(tmp_path: Path) -> None:
    # the sets of before issue 36 named themes of the first list ('block', ...): they load,
    # their themes read as not computed, so audit and book take them; unknown names stay refused
    from puzzles.record import RETIRED_THEMES, THEMES

    d = {"id": "x", "position": "2/1D1/4/L2/2 L", "target": "d2", "n": 1, "key": "b3"}
    old = Puzzle.from_dict({**d, "themes": ["block", "double-threat", "long-line"]})
    assert old.themes is None and "themes" not in old.to_dict()
    assert Puzzle.from_dict({**d, "themes": ["double-threat"]}).themes == ("double-threat",)
    assert set(RETIRED_THEMES).isdisjoint(THEMES)
    for bad in (["block", "bogus"], ["bogus"], ["fork", "chase"]):  # unknown, or out of order
        with pytest.raises(PuzzleFormatError, match="themes must be"):
            Puzzle.from_dict({**d, "themes": bad})
