"""Themes of a capture-in-N puzzle, computed from its position, target, n, key and line
(issue 21; Lichess's ``Themes`` column is the model).

X is the player to move (the attacker), Y the defender who owns the target; the
*target group* is the Y group holding the target.  The line is the key, Y's reply, X's
answer, ... (:mod:`puzzles.verdict`'s main line: Y's longest resistance).  Stones are
removed as in RULES.md's engine formulation: right after a player's own placement, that
player's dead groups go.  A *path* of a group is a line from one of its stones through
one or more empty points to a stone of another group of the same colour (RULES.md).
*Y passes* at a Y turn means: Y's dead groups are removed (as they would be at the start
of X's turn under the designer's formulation) and X is to move on the same stones; the
capture searches from there start afresh (no earlier position counts for repetition).
"X captures within k" is the exact search of :mod:`solver.search.capture`; within 0
means the target group is already gone.

The themes, each a precise property (issue 36: chosen from what the committed sets' keys
and lines do, so that none is on more than half of a set; ``block``, ``sacrifice``,
``self-harm``, ``zugzwang`` and ``long-line`` of issue 21 are gone: the first was on
78-100% of every set, the next three on 0-9 puzzles a board, the last on every puzzle of
a set of N >= 4; ``fork`` and ``big-group`` were made stricter for long puzzles when
they were on 55% and 62% of 5/6 c6):

- ``several-paths``: the key is an empty point of a path of the target group, and after
  it the group still has a path (the key closes one of several lines, not the last).
- ``quiet-key``: n >= 2, the key is on no path of the target group, it makes no Y group
  dead, and it threatens nothing at once: were Y to pass after it, X could not capture
  the target within 1 move.
- ``tempo``: n >= 2, the key is on no path of the target group, and it forces: it makes
  a Y group dead, or were Y to pass after it X would capture the target within 1 move.
- ``forced-reply``: n >= 2 and, after the key, exactly one legal Y move leaves the
  target stone on the board, and that move is next to no stone of the target group
  (Y's only rescue is a stone away from the group, which gives it a new path).
- ``chase``: n >= 2 and Y's first reply of the line is a point next to a stone of the
  target group (the group grows; X catches it anyway).
- ``ladder``: n >= 3 and X's n moves of the line all lie on one line of the board.
- ``double-threat``: n >= 2 and, after the key, the target group has a path, and were Y
  to pass at least two different X moves would each capture the target within 1.
- ``fork``: after the key a Y group that does not hold the target is dead, and for
  n >= 2 Y's reply of the line leaves it dead, so it goes (the key attacks two groups
  and Y cannot save both; in a capture in 1 both go at once).
- ``big-group``: the target group has n + 3 or more stones (4 in a capture in 1, 9 in
  6: a group that is big for the puzzle's length).
- ``corner``: the target group holds a corner point of the board (a point with 3
  neighbours).
- ``edge-key``: the key is on the edge of the board (a point with fewer than 6
  neighbours).

The searches take a node budget (``limit``); when it runs out :class:`ThemeError` is
raised rather than a theme guessed.
"""

from __future__ import annotations

from solver import MeridiansError, Position
from solver.search import capture
from solver.search.limit import Limit

from .record import ANY, THEMES, Puzzle

__all__ = ["THEMES", "ThemeError", "themes", "pass_position", "line_positions"]


class ThemeError(MeridiansError):
    """The themes of a puzzle cannot be computed: no key, a line that is not legal, or a
    search that ran out of its node budget."""


def line_positions(p: Puzzle) -> list[Position]:
    """The puzzle's position and the position after each move of its line (the key
    alone when no line is recorded).  A last reply written ``any`` is played as the
    first legal move: it comes after X's last move, so no theme depends on which."""
    if p.key is None:
        raise ThemeError(f"puzzle {p.id} has no key: its themes cannot be computed")
    pos = p.to_position()
    out = [pos]
    for m in p.line or (p.key,):
        if m == ANY and out[-1].legal_moves():
            m = out[-1].legal_moves()[0]
        try:
            out.append(out[-1].play(m))
        except ValueError as e:
            raise ThemeError(f"puzzle {p.id}: move {m} of the line is illegal ({e})") from None
    return out


def pass_position(pos: Position) -> Position:
    """``pos`` (Y to move) after Y passes: Y's dead groups removed, X to move."""
    x = "D" if pos.to_move == "L" else "L"
    y = pos.to_move
    dead = set().union(*pos.dead_groups(y)) if pos.dead_groups(y) else set()
    stones = {"L": pos.stones("L"), "D": pos.stones("D")}
    stones[y] = stones[y] - dead
    return Position(pos.board, stones["L"], stones["D"], x)


def _answer(r: bool | None, p: Puzzle) -> bool:
    if r is None:
        raise ThemeError(f"puzzle {p.id}: a theme search ran out of its node budget")
    return r


def _target_alive(pos: Position, target: str, y: str) -> bool:
    """The target is on the board and its group is not dead (``pos``: Y to move)."""
    if target not in pos.stones(y):
        return False
    return not any(target in g for g in pos.dead_groups(y))


def _captures_after_pass(pos: Position, target: str, k: int, p: Puzzle, limit: Limit) -> bool:
    """Whether, Y passing at ``pos`` (target group alive), X captures within ``k``."""
    if k <= 0:
        return False
    after = pass_position(pos)
    if after.outcome is not None:  # X, to move, has no placement: X has lost
        return False
    return _answer(capture.capture_within(after, target, k, limit=limit), p)


def themes(p: Puzzle, *, limit: Limit | None = None) -> tuple[str, ...]:
    """The themes of the puzzle ``p`` (see the module docstring), in :data:`THEMES`
    order.  ``limit`` bounds each capture search (default 2 million nodes); raises
    :class:`ThemeError` for a puzzle without a key, an illegal line, or a search that
    ran out."""
    limit = limit if limit is not None else Limit(nodes=2_000_000)
    positions = line_positions(p)
    root = positions[0]
    board = root.board
    x = root.to_move
    y = "D" if x == "L" else "L"
    line = list(p.line) or [p.key]
    group = next(g for g in root.groups(y) if p.target in g)
    found: set[str] = set()

    segs, _ = capture.CaptureSearch(root, p.target, limit=limit).target_zone()
    block = p.key in segs
    after_key = positions[1]
    alive = _target_alive(after_key, p.target, y)
    if block and alive:
        found.add("several-paths")

    if p.n >= 2 and alive:
        if not block:
            # quiet-key or tempo: an off-path key either forces or it does not
            forces = bool(after_key.dead_groups(y)) or _captures_after_pass(after_key, p.target, 1, p, limit)
            found.add("tempo" if forces else "quiet-key")
        # double-threat: two X moves that would each capture in 1 were Y to pass
        passed = pass_position(after_key)
        if passed.outcome is None:
            s = capture.CaptureSearch(passed, p.target, limit=limit)
            threats = 0
            for m in passed.legal_moves():
                threats += _answer(s.move_captures(m, 1), p)
                if threats >= 2:
                    found.add("double-threat")
                    break

    if p.n >= 2:
        saving = [m for m in after_key.legal_moves() if p.target in after_key.play(m).stones(y)]
        if len(saving) == 1 and not any(_adjacent(board, saving[0], s) for s in group):
            found.add("forced-reply")
        if len(line) >= 2 and line[1] != ANY and any(_adjacent(board, line[1], s) for s in group):
            found.add("chase")
    xs = line[0::2]
    if p.n >= 3 and len(xs) == p.n and any(all(board.index(m) in ln for m in xs) for ln in _line_sets(board)):
        found.add("ladder")

    others = [g for g in after_key.dead_groups(y) if p.target not in g]
    if p.n >= 2 and len(positions) > 2:
        others = [g for g in others if not g <= positions[2].stones(y)]
    if others:
        found.add("fork")
    if len(group) >= p.n + 3:
        found.add("big-group")
    if any(len(board.neighbours[board.index(s)]) == 3 for s in group):
        found.add("corner")
    if len(board.neighbours[board.index(p.key)]) < 6:
        found.add("edge-key")
    return tuple(t for t in THEMES if t in found)


def _adjacent(board, a: str, b: str) -> bool:
    return board.index(b) in board.neighbours[board.index(a)]


_LINES: dict = {}


def _line_sets(board) -> list[frozenset[int]]:
    """The board's lines as point sets (cached per board)."""
    if board.name not in _LINES:
        _LINES[board.name] = [frozenset(ln) for ln in board.lines]
    return _LINES[board.name]
