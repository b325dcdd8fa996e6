"""Capture-in-N puzzle records: the :class:`Puzzle` dataclass, its JSON-lines files and
its one-line EPD-like form.

A puzzle is a position, the player to move X, a *target* stone of the opponent Y and a
number ``n``: X must capture the target's group within ``n`` of its own moves.  Files
``results/puzzles/<board>-c<n>.jsonl`` hold one JSON object per line::

    {"id": "m23-c1-0001", "position": "2/1D1/4/L2/2 L", "target": "d2", "n": 1, ...}

and the same puzzle fits on one line in the EPD-like form (``cm`` capture in N moves,
``tg`` target, ``bm`` the key, ``id``)::

    2/1D1/4/L2/2 L cm 1; tg d2; bm c1; id "m23-c1-0001";

>>> p = Puzzle(id="m23-c1-0001", position="2/1D1/4/L2/2 L", target="d2", n=1)
>>> p.to_epd()
'2/1D1/4/L2/2 L cm 1; tg d2; id "m23-c1-0001";'
>>> Puzzle.from_epd(p.to_epd()) == p
True
>>> p.task()
'Light to move, capture the group at d2 in 1 move'
>>> Puzzle.from_dict({"id": "x", "position": "2/1D1/4/L2/2 L", "target": "b1", "n": 1})
Traceback (most recent call last):
...
puzzles.record.PuzzleFormatError: target b1 holds a Light stone, not a stone of Dark (the player not to move)

Only the public API of :mod:`solver` is used (``Position``, ``Board``, the notation,
``solver.util.files.write_atomic`` and the capture search's ``MAX_N``); ``solver`` never
imports this package.  Files are read whole and parsed line by line through
:func:`read_lines` and :func:`parse_json`, so that no file, however malformed, raises
anything but :class:`PuzzleFormatError` naming it.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping

import solver
from solver import MeridiansError, Position
from solver.util.files import write_atomic
from solver.search.capture import MAX_N

__all__ = [
    "Puzzle", "PuzzleFormatError", "GENERATORS", "FIELDS", "OPTIONAL", "REQUIRED", "THEMES", "RETIRED_THEMES",
    "load_jsonl", "write_jsonl", "parse_puzzle_ref", "find_puzzle", "code_version", "ANY", "SOURCES",
    "json_schema",
]

#: the generators a record may name
GENERATORS = ("sat", "baseline", "extend")

#: the theme names a record may list, in the order they are listed (defined in
#: :mod:`puzzles.themes`)
THEMES = ("several-paths", "quiet-key", "tempo", "forced-reply", "chase", "ladder", "double-threat", "fork",
          "big-group", "corner", "edge-key")

#: the names of the first theme list (issue 21) that the list above no longer has: a record
#: listing one is read as having no themes, since its list means other things (they are
#: computed again where they are needed), so the sets of before issue 36 still load
RETIRED_THEMES = ("block", "sacrifice", "self-harm", "zugzwang", "long-line")

#: a line's last defender move written so: every legal reply there loses the target
#: (after the attacker's last move the target group is dead, and the defender's own
#: placement removes it whatever it is); ``puzzles audit`` checks that it does
ANY = "any"

#: the kinds of seed a record's ``source`` may name, with the fields each one has
#: besides ``kind``: ``game`` the unit seed of a random game or the number of a
#: self-play game, ``ply`` the moves played before the seed position, ``playouts``
#: the engine's playouts a move, ``file`` the game record's file name
SOURCES = {"random": {"game": int, "ply": int}, "selfplay": {"game": int, "ply": int, "playouts": int},
           "records": {"file": str, "ply": int}}

#: the fields every record must have; the others have defaults (files to audit may lack a key)
REQUIRED = ("id", "position", "target", "n")

#: the standard fields, in the order :meth:`Puzzle.to_dict` writes them
FIELDS = ("id", "position", "target", "n", "key", "line", "dual_free", "difficulty", "score",
          "nodes", "generator", "version")

#: fields written only when they hold something (after :data:`FIELDS`, in this order)
OPTIONAL = ("themes", "source", "last_moves", "rating")

#: the range of a record's ``rating`` (a Lichess-like number, :mod:`puzzles.attempts`)
RATING_RANGE = (0, 5000)

#: a JSON line nested deeper than this is refused before it is parsed (a record needs 2)
MAX_DEPTH = 32

_NAME = {"L": "Light", "D": "Dark"}
_OTHER = {"L": "D", "D": "L"}
# an id is one token that fits between the EPD quotes
_ID_RE = re.compile(r'^[^\s";]+$')


class PuzzleFormatError(MeridiansError):
    """A puzzle record that is malformed or does not fit its position.

    ``path`` and ``lineno`` say where the record came from, when it came from a file; the
    message then starts with them: ``results/puzzles/6-7-c2.jsonl, line 3: ...``.
    """

    def __init__(self, what: str, path: str | os.PathLike | None = None, lineno: int | None = None):
        self.what = what
        self.path = None if path is None else str(path)
        self.lineno = lineno
        where = ""
        if self.path is not None:
            where = f"{self.path}, line {lineno}: " if lineno is not None else f"{self.path}: "
        elif lineno is not None:
            where = f"line {lineno}: "
        super().__init__(where + what)

    def at(self, path: str | os.PathLike | None, lineno: int | None) -> "PuzzleFormatError":
        """The same error, located in ``path`` at ``lineno``."""
        return PuzzleFormatError(self.what, path, lineno)


@dataclass(frozen=True)
class Puzzle:
    """One capture-in-N puzzle.

    ``position`` is in the project's notation (:mod:`solver.rules.notation`); ``target`` a point
    holding a stone of the player *not* to move; ``key`` the unique first move (``None``
    when not known, as in files still to audit); ``line`` the key, the defender's longest
    resistance and the attacker's answers, as point names.  ``themes`` are the
    puzzle's themes (:mod:`puzzles.themes`, names from :data:`THEMES` in that order), or
    None when they were not computed (then the field is not written).  ``source`` is
    where the seed position came from (:data:`SOURCES`: ``{"kind": "selfplay", "game":
    12, "ply": 57, "playouts": 500}``), None when not known (not written).  The line's
    last move may be :data:`ANY` when it is the defender's.  ``dual_free``: the line
    is dual-free as :mod:`puzzles.verdict` defines it (issue 36, Lichess's rule: the
    attacker's move is the only one at every turn but the last, where any move that
    captures counts); ``last_moves`` lists those moves of the last turn (every attacker
    move that captures there, board order), None when not computed (not written).
    ``rating`` is the puzzle's rating from solvers' attempts (:mod:`puzzles.attempts`, one
    Lichess-like scale across boards and N), None when not rated (not written);
    ``difficulty`` is the older rating 1..5 within the set's board and N.
    Fields outside
    :data:`FIELDS` read from a file are kept in ``extra`` and written back.
    """

    id: str
    position: str
    target: str
    n: int
    key: str | None = None
    line: tuple[str, ...] = ()
    dual_free: bool = False
    difficulty: int | None = None
    score: float | None = None
    nodes: int | None = None
    generator: str | None = None
    version: str | None = None
    themes: tuple[str, ...] | None = None
    source: Mapping[str, Any] | None = field(default=None, hash=False)
    last_moves: tuple[str, ...] | None = None
    rating: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False, repr=False)

    def __post_init__(self) -> None:
        # a list given for line would make the frozen record unhashable
        object.__setattr__(self, "line", tuple(self.line))
        if self.themes is not None:
            object.__setattr__(self, "themes", tuple(self.themes))
        if self.source is not None:
            object.__setattr__(self, "source", dict(self.source))
        if self.last_moves is not None:
            object.__setattr__(self, "last_moves", tuple(self.last_moves))
        object.__setattr__(self, "extra", dict(self.extra))

    # -- reading the puzzle ---------------------------------------------------------------
    def to_position(self) -> Position:
        """The position of the puzzle (raises ``ValueError`` for bad notation)."""
        return Position.parse(self.position)

    @property
    def attacker(self) -> str:
        """The player to move, ``'L'`` or ``'D'``: the one who must capture."""
        return self.position.split()[-1]

    @property
    def defender(self) -> str:
        """The player not to move, who owns the target."""
        return _OTHER.get(self.attacker, "?")

    def target_group(self) -> frozenset[str]:
        """The stones of the group that holds the target."""
        pos = self.to_position()
        for g in pos.groups(_OTHER[pos.to_move]):
            if self.target in g:
                return g
        return frozenset()

    def task(self) -> str:
        """The task in words: ``'Light to move, capture the group at c3 in 2 moves'``."""
        moves = "move" if self.n == 1 else "moves"
        return f"{_NAME.get(self.attacker, self.attacker)} to move, capture the group at {self.target} in {self.n} {moves}"

    def solution_text(self) -> str:
        """The key and the line with move numbers of the attacker: ``'1. d4 e2 2. c5'``."""
        if not self.line:
            return self.key if self.key else ""
        out = []
        for i, m in enumerate(self.line):
            out.append(f"{i // 2 + 1}. {m}" if i % 2 == 0 else m)
        return " ".join(out)

    def svg(self, **kwargs) -> str:
        """The picture ``puzzles show --svg`` writes: the position with the target marked and
        the task as the title (``kwargs`` go to :func:`solver.app.svg.position_svg`).  Raises
        ``ValueError`` for a position that does not parse."""
        kwargs.setdefault("marks", [self.target])
        kwargs.setdefault("title", self.task())
        return self.to_position().svg(**kwargs)

    def _repr_svg_(self) -> str | None:
        """:meth:`svg` for Jupyter; ``None`` (Jupyter then shows the text repr) for a record
        read with ``check=False`` whose position or target cannot be drawn, so that
        displaying a bad record never raises."""
        try:
            return self.svg()
        except ValueError:
            return None

    # -- validation -----------------------------------------------------------------------
    def validate(self) -> "Puzzle":
        """Check the record against its position; return it with point names canonical.

        Checks: the notation parses and the position is valid and not over, the target
        holds a stone of the player not to move, ``n >= 1``, the key is a legal move, the
        line is a legal sequence of moves from the position that starts with the key and
        has at most ``2 n`` moves, :data:`ANY` only as its last move and only there as
        the defender's (a reply that is not played here: whether every reply loses is
        the audit's question, :func:`puzzles.verdict.any_escapes`), ``last_moves``
        points of the board in board order, each once, that hold the line's move of the
        attacker's last turn (move ``2n - 1``) when the line has one (that they are the
        moves that capture there is the audit's question).  Raises
        :class:`PuzzleFormatError`.
        """
        _check_types(dataclasses.asdict(self))
        try:
            pos = self.to_position()
        except ValueError as e:
            raise PuzzleFormatError(f"bad position {_short(self.position)}: {_short(str(e), 200)}") from None
        if pos.outcome is not None:
            raise PuzzleFormatError(f"the game is already over in {_short(self.position)} ({pos.outcome_reason})")
        board = pos.board
        x, y = pos.to_move, _OTHER[pos.to_move]

        def canon(what: str, name: str) -> str:
            try:
                return board.name_of(board.index(name))
            except ValueError:
                raise PuzzleFormatError(f"{what} {_short(name)} is not a point of board {board.name}") from None

        target = canon("target", self.target)
        if target not in pos.stones(y):
            held = f"holds a {_NAME[x]} stone" if target in pos.stones(x) else "is empty"
            raise PuzzleFormatError(f"target {target} {held}, not a stone of {_NAME[y]} (the player not to move)")
        key = None if self.key is None else canon("key", self.key)
        if key is not None and key not in pos.legal_moves():
            raise PuzzleFormatError(f"key {key} is not a legal move for {_NAME[x]} in {_short(self.position)}")
        for i, m in enumerate(self.line):
            if m == ANY and (i != len(self.line) - 1 or i % 2 == 0):
                raise PuzzleFormatError(f"move {i + 1} of the line is {ANY!r}: only the last move, a defender's "
                                        "reply, may be")
        line = tuple(m if m == ANY else canon("line move", m) for m in self.line)
        if line and key is not None and line[0] != key:
            raise PuzzleFormatError(f"the line starts with {line[0]}, not with the key {key}")
        if len(line) > 2 * self.n:
            raise PuzzleFormatError(f"the line has {len(line)} moves, more than the {2 * self.n} of a capture in {self.n}")
        last = None
        if self.last_moves is not None:
            last = tuple(canon("last move", m) for m in self.last_moves)
            if list(last) != sorted(set(last), key=board.index):
                raise PuzzleFormatError(f"last_moves must list points in board order, each once, not {_short(list(last))}")
            if len(line) >= 2 * self.n - 1 and line[2 * self.n - 2] not in last:
                raise PuzzleFormatError(f"last_moves {' '.join(last) or '(none)'} do not hold the line's last "
                                        f"move of {_NAME[x]}, {line[2 * self.n - 2]}")
        p = pos
        for i, m in enumerate(line):
            if m == ANY:
                if p.outcome is not None or not p.legal_moves():
                    raise PuzzleFormatError(f"move {i + 1} of the line is {ANY!r}, but the defender has no move there")
                break
            try:
                p = p.play(m)
            except ValueError as e:
                raise PuzzleFormatError(f"move {i + 1} of the line ({m}) is illegal: {_short(str(e), 200)}") from None
        return dataclasses.replace(self, target=target, key=key, line=line, last_moves=last)

    # -- JSON -----------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, check: bool = True) -> "Puzzle":
        """A puzzle from a JSON object; ``check`` also validates it against its position
        (:meth:`validate`).  Raises :class:`PuzzleFormatError`."""
        if not isinstance(d, Mapping):
            raise PuzzleFormatError(f"a puzzle is a JSON object, not {_JSON_TYPE.get(type(d), type(d).__name__)}")
        missing = [f for f in REQUIRED if f not in d]
        if missing:
            raise PuzzleFormatError(f"missing field{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
        _check_types(d)
        known = {f: d[f] for f in FIELDS + OPTIONAL if f in d and not (d[f] is None and f in ("line", "dual_free"))}
        if "line" in known:
            known["line"] = tuple(known["line"])
        if known.get("themes") is not None:
            retired = any(t in RETIRED_THEMES for t in known["themes"])
            known["themes"] = None if retired else tuple(known["themes"])
        if known.get("source") is not None:
            known["source"] = dict(known["source"])
        if known.get("last_moves") is not None:
            known["last_moves"] = tuple(known["last_moves"])
        if known.get("score") is not None:
            known["score"] = float(known["score"])
        extra = {k: v for k, v in d.items() if k not in FIELDS + OPTIONAL}
        p = cls(**known, extra=extra)
        return p.validate() if check else p

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the record: the standard fields in order, ``themes`` when
        computed, ``source`` when known, then ``extra``."""
        d: dict[str, Any] = {f: getattr(self, f) for f in FIELDS}
        d["line"] = list(self.line)
        if self.themes is not None:  # not computed: the records of before themes stay as they were
            d["themes"] = list(self.themes)
        if self.source is not None:  # not known: the records of before sources stay as they were
            d["source"] = dict(self.source)
        if self.last_moves is not None:  # not computed: the records of before issue 36 stay as they were
            d["last_moves"] = list(self.last_moves)
        if self.rating is not None:  # not rated: the records of before ratings from attempts stay as they were
            d["rating"] = self.rating
        d.update((k, v) for k, v in self.extra.items() if k not in FIELDS + OPTIONAL)
        return d

    def to_json(self) -> str:
        """One line of a ``.jsonl`` file (no newline)."""
        return json.dumps(self.to_dict(), ensure_ascii=False)

    # -- EPD-like line --------------------------------------------------------------------
    def to_epd(self, *, with_line: bool = False) -> str:
        """``'<position> cm 2; tg c3; bm d4; id "m67-c2-0001";'`` (``bm`` only with a key;
        ``with_line`` adds ``pv`` with the line)."""
        ops = [f"cm {self.n}", f"tg {self.target}"]
        if self.key is not None:
            ops.append(f"bm {self.key}")
        if with_line and self.line:
            ops.append("pv " + " ".join(self.line))
        ops.append(f'id "{self.id}"')
        return f"{self.position} " + " ".join(op + ";" for op in ops)

    @classmethod
    def from_epd(cls, text: str, *, check: bool = True) -> "Puzzle":
        """Parse the EPD-like form (opcodes ``cm``, ``tg``, ``bm``, ``id``, and ``pv``
        for the line).  Raises :class:`PuzzleFormatError`."""
        parts = text.strip().split(None, 2)
        if len(parts) < 3:
            raise PuzzleFormatError(f"an EPD line is '<rows> <side> cm N; tg POINT; ...', not {_short(text.strip())}")
        position = f"{parts[0]} {parts[1]}"
        ops: dict[str, list[str]] = {}
        for op in _split_ops(parts[2]):
            code, *operands = op
            if code not in _EPD_OPS:
                raise PuzzleFormatError(f"unknown EPD opcode {_short(code)} (known: {', '.join(_EPD_OPS)})")
            if code in ops:
                raise PuzzleFormatError(f"EPD opcode {code} given twice")
            if code != "pv" and len(operands) != 1:
                raise PuzzleFormatError(f"EPD opcode {code} takes one operand, not {len(operands)}")
            ops[code] = operands
        for code in ("cm", "tg", "id"):
            if code not in ops:
                raise PuzzleFormatError(f"EPD line without opcode {code} ({_EPD_OPS[code]})")
        try:
            n = int(ops["cm"][0])
        except ValueError:
            raise PuzzleFormatError(f"cm (capture in N moves) must be a whole number, not {_short(ops['cm'][0])}") from None
        d: dict[str, Any] = {"id": ops["id"][0], "position": position, "target": ops["tg"][0], "n": n}
        if "bm" in ops:
            d["key"] = ops["bm"][0]
        if "pv" in ops:
            d["line"] = ops["pv"]
        return cls.from_dict(d, check=check)


_JSON_TYPE = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "true or false",
              type(None): "null"}

_EPD_OPS = {"cm": "capture in N moves", "tg": "the target stone", "bm": "the key", "id": "the puzzle id",
            "pv": "the line"}
_EPD_TOKEN = re.compile(r'"([^"]*)"|([^\s;"]+)|(;)|(\S)')


def _split_ops(text: str) -> list[list[str]]:
    """``'cm 2; tg c3; id "x";'`` -> ``[['cm', '2'], ['tg', 'c3'], ['id', 'x']]``."""
    ops: list[list[str]] = []
    current: list[str] = []
    for m in _EPD_TOKEN.finditer(text):
        quoted, word, semi, bad = m.groups()
        if bad is not None:
            raise PuzzleFormatError(f"unbalanced quote in EPD operations {_short(text)}")
        if semi is not None:
            if not current:
                raise PuzzleFormatError(f"empty EPD operation in {_short(text)}")
            ops.append(current)
            current = []
        else:
            current.append(quoted if quoted is not None else word)
    if current:
        raise PuzzleFormatError(f"EPD operation {_short(' '.join(current))} is not ended by ';'")
    return ops


def _short(v: Any, limit: int = 60) -> str:
    """``repr(v)`` cut to ``limit`` characters, for messages: a value from a file may be
    huge or nested deep."""
    try:
        text = repr(v) if not isinstance(v, int) or abs(v) < 10**60 else f"a {len(str(abs(v)))}-digit number"
    except (RecursionError, ValueError):
        return f"a {type(v).__name__} nested too deep"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_types(d: Mapping[str, Any]) -> None:
    """Raise :class:`PuzzleFormatError` for a field of the wrong type or range."""

    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    def need(ok: bool, what: str) -> None:
        if not ok:
            raise PuzzleFormatError(what)

    v = d.get("id")
    need(isinstance(v, str) and bool(_ID_RE.match(v)),
         f"id must be a non-empty string without spaces, quotes or ';', not {_short(v)}")
    need(isinstance(d.get("position"), str), f"position must be a string, not {_short(d.get('position'))}")
    need(isinstance(d.get("target"), str), f"target must be a point name, not {_short(d.get('target'))}")
    n = d.get("n")
    need(is_int(n), f"n must be a whole number, not {_short(n)}")
    need(1 <= n <= MAX_N, f"n must be at least 1, not {_short(n)}" if n < 1
         else f"n must be at most {MAX_N} (the verifier's limit), not {_short(n)}")
    need(d.get("key") is None or isinstance(d["key"], str),
         f"key must be a point name or null, not {_short(d.get('key'))}")
    line = d.get("line")
    need(line is None or (isinstance(line, (list, tuple)) and all(isinstance(m, str) for m in line)),
         f"line must be a list of point names, not {_short(line)}")
    need(d.get("dual_free") is None or isinstance(d["dual_free"], bool),
         f"dual_free must be true or false, not {_short(d.get('dual_free'))}")
    v = d.get("difficulty")
    need(v is None or (is_int(v) and 1 <= v <= 5), f"difficulty must be a whole number from 1 to 5, not {_short(v)}")
    v = d.get("score")
    # the size first: math.isfinite cannot convert an int of 400 digits
    need(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 1e300
                       and math.isfinite(v)),
         f"score must be a finite number, not {_short(v)}")
    v = d.get("nodes")
    need(v is None or (is_int(v) and 0 <= v < 2**63), f"nodes must be a whole number from 0 to 2^63 - 1, not {_short(v)}")
    v = d.get("generator")
    need(v is None or (isinstance(v, str) and v in GENERATORS),
         f"generator must be one of {', '.join(GENERATORS)}, not {_short(v)}")
    v = d.get("version")
    need(v is None or isinstance(v, str), f"version must be a string, not {_short(v)}")
    v = d.get("themes")
    old = isinstance(v, (list, tuple)) and any(t in RETIRED_THEMES for t in v if isinstance(t, str))
    need(v is None or (isinstance(v, (list, tuple)) and all(isinstance(t, str) and t in THEMES for t in v)
                       and list(v) == sorted(set(v), key=THEMES.index))
         or (old and all(isinstance(t, str) and (t in THEMES or t in RETIRED_THEMES) for t in v)),
         f"themes must be a list of theme names from {', '.join(THEMES)}, each once and in that order, "
         f"not {_short(v)}")
    v = d.get("last_moves")
    need(v is None or (isinstance(v, (list, tuple)) and all(isinstance(m, str) for m in v)),
         f"last_moves must be a list of point names, not {_short(v)}")
    v = d.get("rating")
    need(v is None or (is_int(v) and RATING_RANGE[0] <= v <= RATING_RANGE[1]),
         f"rating must be a whole number from {RATING_RANGE[0]} to {RATING_RANGE[1]}, not {_short(v)}")
    v = d.get("source")
    need(v is None or _source_ok(v),
         f"source must be an object with kind {', '.join(SOURCES)} and that kind's fields "
         f"(random: game, ply; selfplay: game, ply, playouts; records: file, ply), not {_short(v)}")


def _source_ok(v: Any) -> bool:
    """Whether ``v`` is a ``source`` as :data:`SOURCES` describes: its kind's fields
    and no other, whole numbers from 0 to 2^63 - 1, a file name of one line."""
    if not isinstance(v, Mapping) or v.get("kind") not in SOURCES:
        return False
    fields = SOURCES[v["kind"]]
    if set(v) != {"kind", *fields}:
        return False
    for k, kind in fields.items():
        x = v[k]
        if kind is int:
            if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < 2**63:
                return False
        elif not (isinstance(x, str) and x and len(x) <= 1000 and "\n" not in x and "\r" not in x):
            return False
    return True


def json_schema() -> dict[str, Any]:
    """The published JSON Schema (draft 2020-12) of a record, ``puzzles/schema/puzzle.schema.json``,
    shipped as package data.  It checks the fields' types and ranges only; this module's
    parser is the authority (the rules, the order of themes), and tests/test_puzzle_schema.py
    checks that the two agree field by field."""
    import importlib.resources

    return json.loads(importlib.resources.files("puzzles").joinpath("schema/puzzle.schema.json").read_text("utf-8"))


# -- files ------------------------------------------------------------------------------
def read_lines(path: str | os.PathLike) -> list[str]:
    """The lines of a text file, read whole.  Raises :class:`PuzzleFormatError` naming
    the file (and the line, for bytes that are not UTF-8) for anything that keeps it
    from being read: missing, a folder, unreadable, binary."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise PuzzleFormatError("no such file", path) from None
    except IsADirectoryError:
        raise PuzzleFormatError("is a folder, not a file", path) from None
    except OSError as e:
        raise PuzzleFormatError(f"cannot read it: {e.strerror or e}", path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PuzzleFormatError("not UTF-8 text (a binary file?)", path, data[: e.start].count(b"\n") + 1) from None
    return text.split("\n")


_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def parse_json(text: str) -> Any:
    """``json.loads(text)``, but every failure is a ``ValueError`` with a short message:
    bad syntax, nesting deeper than :data:`MAX_DEPTH` (checked before parsing, so a line
    nested thousands deep costs no recursion) or a number too long to read."""
    depth = 0
    for m in _BRACKETS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
        elif c in "]}":
            depth -= 1
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"bad JSON: {e.msg} at column {e.colno}") from None
    except RecursionError:
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:  # Python's limit on the digits of an integer
        raise ValueError("bad JSON: a number with too many digits") from None


def load_jsonl(path: str | os.PathLike, *, check: bool = True) -> list[Puzzle]:
    """The puzzles of a JSON-lines file, in file order (blank lines are skipped).

    Raises :class:`PuzzleFormatError` naming the file and line of the first bad record
    (bad JSON, a missing field, a bad position, ..., or an id given twice), or naming
    the file if it cannot be read (missing, a folder, binary).
    """
    puzzles: list[Puzzle] = []
    seen: dict[str, int] = {}
    for lineno, text in enumerate(read_lines(path), 1):
        if not text.strip():
            continue
        p = _parse_json_line(text, path, lineno, check=check)
        if p.id in seen:
            raise PuzzleFormatError(f"id {p.id} given twice (first on line {seen[p.id]})", path, lineno)
        seen[p.id] = lineno
        puzzles.append(p)
    return puzzles


def _parse_json_line(text: str, path: str | os.PathLike | None, lineno: int | None, *, check: bool) -> Puzzle:
    try:
        d = parse_json(text)
    except ValueError as e:
        raise PuzzleFormatError(str(e), path, lineno) from None
    try:
        return Puzzle.from_dict(d, check=check)
    except PuzzleFormatError as e:
        raise e.at(path, lineno) from None


def write_jsonl(path: str | os.PathLike, puzzles: Iterable[Puzzle]) -> None:
    """Write the puzzles one JSON object a line, atomically (never half a file).

    Raises :class:`PuzzleFormatError` for an id given twice (:func:`load_jsonl` would
    refuse the file); nothing is written then.
    """
    puzzles = list(puzzles)
    seen: set[str] = set()
    for p in puzzles:
        if p.id in seen:
            raise PuzzleFormatError(f"id {p.id} given twice; not written", path)
        seen.add(p.id)
    text = "".join(p.to_json() + "\n" for p in puzzles)
    write_atomic(path, text)


def committed_folder() -> Path:
    """The folder of the committed puzzle sets (``<board>-c<n>.jsonl``), whatever the
    current folder: in a checkout (``pyproject.toml`` beside the package, so an editable
    install too) its ``results/puzzles``, the one copy that the scripts write and git
    holds; in an installed wheel the package's own ``puzzles/sets``, copied there from
    ``results/puzzles`` when the wheel was built (``setup.py``).  A folder that is not on
    the file system (a package imported from a zip file) is returned all the same and
    holds no sets: looking an id up then says where they were looked for."""
    top = Path(__file__).resolve().parent.parent
    if (top / "pyproject.toml").is_file() and (top / "results" / "puzzles").is_dir():
        return top / "results" / "puzzles"
    return Path(str(resources.files("puzzles") / "sets"))


#: where the committed puzzle sets are (:func:`committed_folder`)
COMMITTED = committed_folder()


def default_search_files(folder: str | os.PathLike | None = None) -> list[Path]:
    """The ``*.jsonl`` files of ``folder`` (default :data:`COMMITTED`, the committed
    sets beside the installed package, not the current folder)."""
    return sorted(Path(COMMITTED if folder is None else folder).glob("*.jsonl"))


def find_puzzle(puzzle_id: str, search_files: Iterable[str | os.PathLike], *, check: bool = True) -> Puzzle:
    """The puzzle with this id in the files; exactly one record may have it.

    Lines that are not JSON objects are skipped here (they are not the one asked for;
    loading the file reports them, and so does the error when no record has the id);
    the record found is validated with its file and line.
    """
    files = [Path(f) for f in search_files]
    if not files:
        raise PuzzleFormatError(f"no puzzle files to look up id {_short(puzzle_id)} in: the committed sets "
                                f"are not in {COMMITTED} (give the file with --file)")
    hits: list[tuple[Path, int, str]] = []
    skipped: tuple[Path, int, str] | None = None
    for f in files:
        for lineno, text in enumerate(read_lines(f), 1):
            if not text.strip():
                continue
            # every line is parsed: a substring test would miss ids that JSON escapes
            try:
                d = parse_json(text)
            except ValueError as e:
                skipped = skipped or (f, lineno, str(e))
                continue
            if isinstance(d, dict) and d.get("id") == puzzle_id:
                hits.append((f, lineno, text))
    if not hits:
        names = ", ".join(str(f) for f in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        why = f" ({skipped[0]}, line {skipped[1]} was skipped: {skipped[2]})" if skipped else ""
        raise PuzzleFormatError(f"no puzzle with id {_short(puzzle_id)} in {names}{why}")
    if len(hits) > 1:
        where = " and ".join(f"{f}, line {n}" for f, n, _ in hits[:2])
        raise PuzzleFormatError(f"id {_short(puzzle_id)} is given more than once: {where}")
    f, lineno, text = hits[0]
    return _parse_json_line(text, f, lineno, check=check)


def parse_puzzle_ref(text: str, search_files: Iterable[str | os.PathLike] | None = None, *,
                     check: bool = True) -> Puzzle:
    """A puzzle given as an EPD line, a JSON object, or an id looked up in
    ``search_files`` (default :func:`default_search_files`)."""
    t = text.strip()
    if not t:
        raise PuzzleFormatError("empty puzzle reference: give an id, an EPD line or a JSON object")
    if t.startswith("{"):
        return _parse_json_line(t, None, None, check=check)
    if ";" in t:
        return Puzzle.from_epd(t, check=check)
    if _ID_RE.match(t):
        return find_puzzle(t, default_search_files() if search_files is None else search_files, check=check)
    raise PuzzleFormatError(f"{_short(t)} is neither a puzzle id, an EPD line ('<position> cm N; tg POINT; ...;') "
                            "nor a JSON object")


def code_version(top: str | os.PathLike | None = None) -> str:
    """The version of the code for records: ``'0.1.0+6d34ef3'``, the package version and
    :func:`solver.util.provenance.code_revision` (of the checkout ``top``, default this
    package's), with its one rule for ``-dirty``; ``+unknown`` outside a git checkout."""
    from solver.util.provenance import code_revision

    return f"{solver.__version__}+{code_revision(top)}"
