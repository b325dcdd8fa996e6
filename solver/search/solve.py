"""Solve a position by alpha-beta: its value, the value of every move, a principal line,
checked again without the table.

>>> from solver import Board, Position
>>> r = solve(Position.start(Board.parse("1/2")))
>>> r.value, sorted(set(r.move_values.values()))
(<Value.LOSS: 'loss'>, [<Value.LOSS: 'loss'>])
"""

from __future__ import annotations

import time

from solver.rules import core
from solver.rules.position import Position
from . import alphabeta as ab
from .limit import Limit, check_limit
from .result import MoveResult, Result
from .values import Value

__all__ = ["solve", "solve_value", "DEFAULT_TT_MB"]

#: the table size of a :func:`solve` whose Limit gives none, in MiB
DEFAULT_TT_MB = 64


def _load_path(S: ab.Search, t: core.Tables, path: list[Position]) -> None:
    """Put the positions of ``path`` (oldest first) on the search stack, so that a
    repetition of any of them counts as a draw."""
    for ply, p in enumerate(path):
        S.stack[2 * ply: 2 * ply + 2] = p.bitboards
        core.zobrist_keys(t, p.bitboards, p.side_index, S.keys[ply])
        S.path_keys[ply] = S.keys[ply, 0]


def _terminal_value(pos: Position) -> int:
    """The value code of a finished position for its player to move."""
    result = pos.outcome
    if result == "draw":
        return ab.DRAW
    return ab.WIN if result == pos.to_move else ab.LOSS


def solve_value(S: ab.Search, t: core.Tables, path: list[Position]) -> tuple[int, bool]:
    """The value of ``path[-1]`` for its player to move, with the earlier positions of
    ``path`` on the search path.  Returns (value code, clean).

    Two null-window searches: "is it a win?" with window (0, 1), and only when the answer
    is "at most a draw", "is it at least a draw?" with (-1, 0).  Values are -1, 0, 1, so a
    fail-low LOSS in the first is exact, and most positions (few draws) need one search."""
    if len(path) >= ab.MAX_PLY:
        return ab.UNKNOWN, False
    _load_path(S, t, path)
    S.stats[ab.ABORTED] = 0  # the node count goes on, so a spent budget stops it again
    last = path[-1]
    ply = len(path) - 1
    v, clean = ab.negamax(t, S, ply, last.side_index, 0, 1)
    if not S.stats[ab.ABORTED] and v == ab.DRAW:
        _load_path(S, t, path)
        v, clean = ab.negamax(t, S, ply, last.side_index, -1, 0)
        if v == ab.DRAW:
            clean = False  # a draw rests on a repetition
    if S.stats[ab.ABORTED]:
        S.stats[ab.REASONS] |= 1 << int(S.stats[ab.ABORTED])  # remember every reason seen
        return ab.UNKNOWN, False
    return int(v), bool(clean)


def solve(position: Position, limit: Limit | None = None, *, line_plies: int = 80, verify: bool = True) -> Result:
    """Solve ``position``: alpha-beta with table and symmetries for the value of every
    legal move (one search per move up to symmetry; ``moves`` valued for the player who
    plays them), then, if ``verify``, the root value again by plain alpha-beta without
    table (no stored result can leak across paths).  ``limit``: its ``nodes`` bound the
    searches (0: none) and ``tt_mb`` is the table (None: :data:`DEFAULT_TT_MB`); it has
    no clock, so a Limit with ``seconds`` is refused (ValueError).  ``stats`` holds the
    move ``classes``, ``tt_hits`` and ``verify_nodes``."""
    limit = check_limit(limit)
    if limit.seconds is not None:
        raise ValueError("solve has no time limit: give its budget in nodes")
    tt_mb = DEFAULT_TT_MB if limit.tt_mb is None else limit.tt_mb
    max_nodes = limit.nodes
    t0 = time.perf_counter()
    t = core.tables(position.board)
    S = ab.new_search(t, tt_mb=tt_mb, max_nodes=max_nodes)
    result = position.outcome
    names = ab.VALUE_NAMES
    if result is not None:
        value = Value(names[_terminal_value(position)])
        return Result(str(position), value, "alphabeta", source="rules", seconds=time.perf_counter() - t0)

    # one search per class of moves under the symmetries that fix the position
    moves = position.legal_moves()
    by_class: dict[int, list[str]] = {}
    children: dict[str, Position] = {}
    for m in moves:
        child = position.play(m)
        children[m] = child
        by_class.setdefault(int(child.zobrist_symmetric().min()), []).append(m)
    values: dict[str, Value] = {}
    best = ab.LOSS - 1
    for members in by_class.values():
        child = children[members[0]]
        if child.outcome is not None:
            v = _terminal_value(child)
        else:
            v, _ = solve_value(S, t, [position, child])
        mover_value = ab.UNKNOWN if v == ab.UNKNOWN else -v
        for m in members:
            values[m] = Value(names[mover_value])
        if v != ab.UNKNOWN:
            best = max(best, mover_value)
    values = {m: values[m] for m in moves}  # board order
    unknown = any(v is Value.UNKNOWN for v in values.values())
    value = Value.UNKNOWN if unknown and best != ab.WIN else Value(names[best])
    # the effort of the move searches, read before the line's searches add to it
    nodes, hits = int(S.stats[ab.NODES]), int(S.stats[ab.TT_HITS])
    line = _line(S, t, position, value, line_plies) if value.decided else []
    res = Result(str(position), value, "alphabeta", nodes=nodes, line=line,
                 best=line[0] if line else None, moves=[MoveResult(m, v) for m, v in values.items()],
                 stats={"classes": len(by_class), "tt_hits": hits, "verify_nodes": 0})
    if value is Value.DRAW:
        res.notes.append("the draw depends on the repetition rule")
    if S.stats[ab.REASONS] & (1 << ab.OUT_OF_NODES):
        res.notes.append(f"the node budget ({max_nodes:,}) ran out")
    if S.stats[ab.REASONS] & (1 << ab.PATH_TOO_LONG):
        res.notes.append(
            f"a search path grew past {ab.MAX_PLY} plies without repeating a position: "
            "alpha-beta with repetition draws cannot decide this; proof-number search can"
        )
    if verify and value.decided:
        V = ab.new_search(t, tt_mb=0, max_nodes=max_nodes, use_table=False)
        v, _ = solve_value(V, t, [position])
        res.stats["verify_nodes"] = int(V.stats[ab.NODES])
        res.verified = v != ab.UNKNOWN and names[v] == value
        if v != ab.UNKNOWN and names[v] != value:
            res.notes.append(f"plain alpha-beta says {names[v]}: the table result is not trusted")
            res.value = Value(names[v])
    res.seconds = time.perf_counter() - t0
    return res


def _line(S, t, position: Position, value: Value, plies: int) -> list[str]:
    """A principal line: at each step the first move (in board order) that keeps the
    value, or for the winner a move that ends the game at once if there is one."""
    line: list[str] = []
    path = [position]
    want = value
    pos = position
    names = ab.VALUE_NAMES
    for _ in range(plies):
        if pos.outcome is not None:
            break
        chosen = None
        for m in pos.legal_moves():
            child = pos.play(m)
            if child.outcome is not None:
                v = _terminal_value(child)
            else:
                v, _ = solve_value(S, t, path + [child])
            if v != ab.UNKNOWN and names[-v] == want:
                if chosen is None:
                    chosen = (m, child)
                if want is not Value.WIN or child.outcome is not None:
                    chosen = (m, child)
                    break
        if chosen is None:
            break
        m, pos = chosen
        line.append(m)
        path = path + [pos]
        want = want.negated()
    return line
