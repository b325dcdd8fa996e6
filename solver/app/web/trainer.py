"""The puzzle trainer's first hint: the target group's remaining paths, at each step of
a puzzle's line (``GET /api/puzzle`` sends them as ``paths``)."""

from __future__ import annotations

from solver.rules.position import Position

__all__ = ["target_paths", "line_paths"]


def target_paths(pos: Position, group: frozenset[int] | set[int], defender: str) -> list[int]:
    """The empty points (indices) on the paths of the defender's ``group`` (indices): on
    a line from a stone of the group to a defender stone of another group, with only
    empty points, at least one, between them (RULES.md, Definitions).  Filling one of
    them cuts a path; a group left without any is dead."""
    b = pos.board
    own = {b.index(n) for n in pos.stones(defender)}
    taken = own | {b.index(n) for n in pos.stones("L" if defender == "D" else "D")}
    out: set[int] = set()
    for a in group:
        for ray in b.rays[a]:
            between = []
            for q in ray:
                if q not in taken:
                    between.append(q)
                    continue
                if q in own and q not in group and between:
                    out.update(between)
                break
    return sorted(out)


def line_paths(pos: Position, defender: str, data: dict) -> list[list[int]]:
    """The target's paths (:func:`target_paths`) at the start of the puzzle and after each
    move of its line as ``data`` (:func:`puzzles.book.puzzle_data`) shows it, whose target
    groups it uses."""
    names = pos.board.names
    out = [target_paths(pos, set(data["g"]), defender)]
    for mv in data["line"]:
        pos = pos.play(names[mv[0]])
        out.append(target_paths(pos, set(mv[4]), defender))
    return out
