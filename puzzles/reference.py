"""The slow, obviously-correct definition of a capture-in-N puzzle (issue 5).

This is the twin of the fast verifier (:mod:`puzzles.verdict` over
:mod:`solver.search.capture`).  It plays with the networkx
reference rules of :mod:`solver.reference` only (``Board`` and ``Position`` serve just to
convert names and positions) and searches by plain recursion: no tables, no move
ordering, no pruning beyond ``any``/``all`` stopping at the first answer.

The definition
--------------
A puzzle is a position, the side to move X, a *target* stone of the opponent Y and N.
X plays, Y replies, and so on, X making at most N moves.

* X succeeds at the first moment the target group has been removed.  Groups only grow or
  vanish, and a player's stones are removed only right after that player's own
  placement (RULES.md, engine formulation), so this happens right after a reply of Y,
  and it is exactly "the target point no longer holds a Y stone".
* If Y has lost by any rule when Y is to move (in particular Y has no legal placement),
  the target counts as captured: X succeeds.
* If X has lost (X's own placement left X without stones, or X has no legal placement
  when X is to move), X fails.
* A position that repeats an earlier position of the line (same stones, same side to
  move; the line starts at the puzzle position) is a draw: X fails.
* X fails when N moves are spent and the target is still on the board.

The puzzle is *sound* when exactly one first move of X (the key) forces success within
N X-moves against every defence, and no first move forces it within N-1.

Along a given line (key first, X and Y alternating), X's *working moves* at an X turn
are the moves that force success within the X moves left, this one included, the
line's positions before counting for repetition.  The line is *dual-free* when at every
X turn but the last there is exactly one, and its *last moves* are the working moves
of the last X turn (X's N-th move): :func:`reference_line`, the twin of
:func:`puzzles.verdict.check_line`.

Point names are sorted with plain ``sorted`` (string order); on boards up to 4/5 (at
most 8 columns) that is also board order.
"""

from __future__ import annotations

from solver.reference import rules as R
from solver.rules.board import Board
from solver.rules.position import Position
# one error type for both verifiers: a question one refuses, the other refuses alike
from solver.search.capture import CaptureError

__all__ = [
    "CaptureError",
    "capture_within",
    "move_forces_capture",
    "reference_verdict",
    "reference_line",
]


def _other(colour: str) -> str:
    return "D" if colour == "L" else "L"


def _stones_of(light, dark, colour: str):
    return light if colour == "L" else dark


def move_forces_capture(board: Board, light, dark, to_move: str, target: int, move: int,
                        n: int, history=()) -> bool:
    """Whether X (``to_move``) playing ``move`` now forces the capture of ``target`` with
    this move and at most ``n - 1`` further X-moves.

    ``move`` must be legal; ``history`` holds the earlier positions of the line as
    ``(light, dark, to_move)`` triples, the current position not included.
    """
    x, y = to_move, _other(to_move)
    seen = set(history) | {(light, dark, x)}
    # X plays; only X's own stones can be removed, so the target is still there
    light1, dark1, _ = R.play(board, light, dark, x, move)
    after_x = (light1, dark1, y)
    if after_x in seen:
        return False  # repetition: a draw, X fails
    result = R.outcome(board, light1, dark1, y)
    if result == x:
        return True  # Y has lost (no legal placement): counts as captured
    if result == y:
        return False  # X has lost (X's placement left X with no stones)
    seen.add(after_x)
    # every reply of Y must lead to success
    for reply in R.legal_moves(board, light1, dark1, y):
        light2, dark2, _ = R.play(board, light1, dark1, y, reply)
        if target not in _stones_of(light2, dark2, y):
            continue  # the target group was removed right after Y's placement
        if not capture_within(board, light2, dark2, x, target, n - 1, seen):
            return False
    return True


def capture_within(board: Board, light, dark, to_move: str, target: int, n: int,
                   history=()) -> bool:
    """Whether X = ``to_move`` can force the capture of the Y stone at ``target`` within
    ``n`` X-moves from the position ``(light, dark, to_move)``.

    ``light`` and ``dark`` are frozensets of point indices (as in :mod:`solver.reference`);
    ``history`` holds the earlier positions of the line as ``(light, dark, to_move)``
    triples (the current position not included).  The target must hold a Y stone.
    """
    if n <= 0:
        return False
    here = (light, dark, to_move)
    if here in set(history):
        return False  # repetition: a draw, X fails
    if R.outcome(board, light, dark, to_move) is not None:
        # X cannot have won here (the target is a Y stone), so X has lost
        return False
    return any(
        move_forces_capture(board, light, dark, to_move, target, move, n, history)
        for move in R.legal_moves(board, light, dark, to_move)
    )


def _check(position: Position, target_name: str, n) -> int:
    """The index of the target; raises :class:`CaptureError` for a question that cannot
    be posed (the same questions the fast search refuses, but any ``n >= 1``)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise CaptureError(f"n must be a whole number of at least 1, not {n!r}")
    board = position.board
    try:
        target = board.index(target_name)
    except ValueError as e:
        raise CaptureError(f"target: {e}") from None
    name = board.name_of(target)
    x = position.to_move
    if name in position.stones(x):
        raise CaptureError(f"target {name} is a stone of the side to move: it must hold a stone of the defender")
    if name not in position.stones(_other(x)):
        raise CaptureError(f"target {name} is empty: it must hold a stone of the defender")
    if position.outcome is not None:
        raise CaptureError(f"the game is over ({position.outcome_reason})")
    return target


def reference_verdict(position: Position, target_name: str, n: int) -> dict:
    """The verdict on the capture-in-``n`` puzzle: ``position``, X its side to move, the
    target the Y stone at ``target_name``.

    Returns ``dict(keys=..., shorter=..., sound=...)``: the sorted names of the first moves
    that force the capture within ``n`` X-moves, those that force it within ``n - 1``
    (empty for ``n == 1``), and whether exactly one move forces it within ``n`` and none
    within ``n - 1``.
    """
    target = _check(position, target_name, n)
    board = position.board
    light = frozenset(board.index(s) for s in position.stones("L"))
    dark = frozenset(board.index(s) for s in position.stones("D"))
    x = position.to_move
    moves = R.legal_moves(board, light, dark, x)

    def forcing(depth: int) -> list[str]:
        if depth < 1:
            return []
        return sorted(board.name_of(m) for m in moves
                      if move_forces_capture(board, light, dark, x, target, m, depth))

    keys = forcing(n)
    shorter = forcing(n - 1)
    return dict(keys=keys, shorter=shorter, sound=len(keys) == 1 and not shorter)


def reference_line(position: Position, target_name: str, n: int, line) -> list[tuple[int, list[str]]]:
    """``[(ply, working moves)]`` for every X turn of ``line`` (plies 0, 2, ..., up to
    the end of the line or a move written ``any``): the sorted names of X's moves
    there that force the capture within the X moves left, the earlier positions of the
    line as history.  From it, the line is dual-free when every turn but the one at
    ply ``2n - 2`` has one working move, and that turn's are the last moves."""
    target = _check(position, target_name, n)
    board = position.board
    light = frozenset(board.index(s) for s in position.stones("L"))
    dark = frozenset(board.index(s) for s in position.stones("D"))
    side = position.to_move
    history: list = []
    out = []
    for ply, name in enumerate(line):
        if name == "any":
            break
        if ply % 2 == 0:
            left = n - ply // 2
            moves = R.legal_moves(board, light, dark, side)
            out.append((ply, sorted(board.name_of(m) for m in moves
                                    if move_forces_capture(board, light, dark, side, target, m, left, tuple(history)))))
        history.append((light, dark, side))
        light, dark, _ = R.play(board, light, dark, side, board.index(name))
        side = _other(side)
    return out
