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

The themes, each a precise property:

- ``block``: the key is an empty point of a path of the target group (it takes away at
  least one of the lines that keep the group alive).
- ``quiet-key``: the key makes no Y group dead, is not a ``block``, and threatens nothing
  at once: were Y to pass after it, X could not capture the target within 1 move.
- ``sacrifice``: a stone X places in the line is later gone from the board (removed with
  a dead X group) in a position of the line.
- ``self-harm``: at some Y turn of the line, *every* legal Y move removes Y stones that
  were not in a dead group before it (Y's own stone cuts their last path): Y is forced
  to kill some of its own stones.  Removing a group that X's move had already killed is
  the ordinary capture and does not count; nor does a harmful move Y could avoid (the
  line's last Y move is often any move at all).
- ``zugzwang``: at some Y turn of the line the target group has a path, with k X moves
  left, were Y to pass X would not capture the target within k, yet X captures within k
  against every Y move there (Y would rather not move).
- ``double-threat``: n >= 2 and, after the key, the target group has a path, and were Y
  to pass at least two different X moves would each capture the target within 1.
- ``long-line``: n >= 4.

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


def _forced_harm(pos: Position, y: str) -> bool:
    """Whether every legal move of Y (to move at ``pos``) removes Y stones that were in
    no dead group before it."""
    dead = set().union(*pos.dead_groups(y)) if pos.dead_groups(y) else set()
    moves = pos.legal_moves()
    return bool(moves) and all((pos.stones(y) - pos.play(m).stones(y)) - dead for m in moves)


def themes(p: Puzzle, *, limit: Limit | None = None) -> tuple[str, ...]:
    """The themes of the puzzle ``p`` (see the module docstring), in :data:`THEMES`
    order.  ``limit`` bounds each capture search (default 2 million nodes); raises
    :class:`ThemeError` for a puzzle without a key, an illegal line, or a search that
    ran out."""
    limit = limit if limit is not None else Limit(nodes=2_000_000)
    positions = line_positions(p)
    root = positions[0]
    x = root.to_move
    y = "D" if x == "L" else "L"
    line = list(p.line) or [p.key]
    found: set[str] = set()

    # block: the key on an empty point of one of the target group's paths
    segs, _ = capture.CaptureSearch(root, p.target, limit=limit).target_zone()
    if p.key in segs:
        found.add("block")

    after_key = positions[1]
    if p.n >= 2 and _target_alive(after_key, p.target, y):
        # quiet-key: no Y group dead, not a block, no threat of capture in 1
        if not after_key.dead_groups(y) and "block" not in found \
                and not _captures_after_pass(after_key, p.target, 1, p, limit):
            found.add("quiet-key")
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

    for i, m in enumerate(line):
        before = positions[i]
        if i % 2 == 0:
            # sacrifice: the stone X placed here is gone in a later position
            if any(m not in q.stones(x) for q in positions[i + 1:]):
                found.add("sacrifice")
        elif "self-harm" not in found and _forced_harm(before, y):
            found.add("self-harm")

    # zugzwang: at a Y turn of the line, passing would save the target, moving does not
    search = None
    for i in range(1, len(line), 2):
        here = positions[i]
        if "zugzwang" in found or not _target_alive(here, p.target, y):
            continue
        left = p.n - (i + 1) // 2
        if _captures_after_pass(here, p.target, left, p, limit):
            continue
        if search is None:
            search = capture.CaptureSearch(root, p.target, limit=limit)
        search.load(positions[: i + 1])
        if _answer(search.captures_after_reply(left), p):
            found.add("zugzwang")

    if p.n >= 4:
        found.add("long-line")
    return tuple(t for t in THEMES if t in found)
