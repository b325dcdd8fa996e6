"""The verdict on a capture-in-N puzzle: its keys, shorter solutions, main line and duals.

A capture-in-N puzzle is a position, the side to move X, a target stone of the opponent
Y, and N (the question of :mod:`solver.search.capture`, which answers it).  The puzzle
is **sound** when exactly one first move (the key) forces the capture within N X-moves
against every defence and no first move forces it within N-1.

>>> from solver import Position
>>> pos = Position.parse("3/1L2/5/4D1/4L/1L2/3 L")   # a Light stone between two Dark
>>> v = verify(pos, "d5", 1)
>>> v.keys, v.shorter, v.sound
([], [], False)

The main line is the defence a composer would show (:func:`verify`); the tempting tries
and the tries that fail only late feed the difficulty score of :mod:`puzzles.generate`.

**Only moves** (issue 36, Lichess's rule).  A puzzle is *dual-free* on a line when the line
is a longest defence (every reply of Y leaves X needing all the moves it has left) and, at
every X turn of it but the last, exactly one X move keeps the capture within the moves
left (at the first turn that is the key: soundness); at the **last** X turn (X's n-th
move, the one after which every reply loses the target) every move that captures is
accepted, and those moves are the line's *last moves* (for n = 1 the key is the last turn,
unique all the same).  :func:`check_line` checks a given line so; its slow twin on the
reference rules is :func:`puzzles.reference.reference_line` (tests/test_only_moves.py
compares them on committed puzzles).  :func:`verify`'s ``dual_free`` is a claim about its
main line: True, that line is dual-free; False, it has the duals listed, and no
dual-free longest defence was found within :data:`LINE_SEARCH` Y turns of search (one
may lie beyond them).
"""

from __future__ import annotations

import time
from typing import NamedTuple

from solver import Position
from solver.search.capture import MAX_N, CaptureError, CaptureSearch, capture_limit, check_n
from solver.search.limit import Limit

from .record import ANY

__all__ = ["verify", "Verdict", "CaptureError", "LATE_NODES", "LINE_SEARCH", "any_escapes", "with_any",
           "check_line", "line_as_recorded", "LineCheck", "turn_name", "main_line", "screen", "SCREENS"]


class Verdict(NamedTuple):
    """What the verifier found for one puzzle."""

    keys: list          # first moves forcing the capture within n (names, board order)
    shorter: list       # first moves forcing it within n - 1
    sound: bool         # exactly one key and no shorter solution
    line: list          # key, longest defence and X's answers (sound puzzles only)
    dual_free: bool     # the line is dual-free (module docstring): X's move is unique at
                        # every X turn of it but the last, where any capturing move counts
    duals: list         # (ply, moves) at X turns before the last where more than one move
                        # works (all of them, or two with all_duals False)
    tempting: int       # natural tries that fail: first moves on the target's paths or
                        # lines or touching it
    quiet: bool         # the key cuts none of the target's paths
    nodes: int
    seconds: float
    complete: bool      # False when the node budget ran out (then nothing is proven)
    late: tuple = ()    # the tempting tries that fail only late: they capture within
                        # n + 1 (sound puzzles with a line; LATE_NODES nodes a try)
    last_moves: tuple = ()  # every X move that captures at the line's last X turn, board
                            # order (sound puzzles with a line; not counted in nodes)


#: node budget of the search that tells whether a tempting try captures within n + 1
LATE_NODES = 100_000

#: how many Y turns the search for a dual-free main line may try
LINE_SEARCH = 64


def verify(
    position: Position, target: str, n: int, *, limit: Limit | None = None, line: bool = True, use_table: bool = True, use_cut: bool = True, all_duals: bool = True,
    max_keys: int = 0,
) -> Verdict:
    """Every first move that forces the capture within ``n`` and within ``n - 1``, the
    main line with its duals, and the effort.  With ``all_duals`` False each dual lists
    two of X's working moves only (which is enough to tell a dual, and spares proving
    that every other move fails).  ``limit`` is the budget of the whole work (its
    nodes, 0: none, and table size; no seconds: see
    :func:`~solver.search.capture.capture_limit`); when it runs out, ``complete`` is False and the lists mean nothing.
    With ``max_keys`` (>= 2; 0: none), the first moves are tried only until that many
    keys are found: the puzzle is cooked then, and ``keys`` and ``shorter`` list only
    the moves tried (a generator's early exit: the verdict on a puzzle with fewer keys
    is the same in every field, nodes included).
    Raises :class:`CaptureError` for a puzzle that cannot be posed."""
    if max_keys and max_keys < 2:
        raise ValueError(f"max_keys must be 0 or at least 2, not {max_keys!r}")
    check_n(n)
    s = CaptureSearch(position, target, limit=capture_limit(limit),
                      use_table=use_table, use_cut=use_cut)
    t0 = time.perf_counter()
    keys, shorter, tries = [], [], []
    aborted = False
    segs, zone = s.target_zone()
    for move in position.legal_moves():
        r = s.move_captures(move, n)
        if r is None:
            aborted = True
            break
        if r:
            keys.append(move)
            if n > 1:
                r2 = s.move_captures(move, n - 1)
                if r2 is None:
                    aborted = True
                    break
                if r2:
                    shorter.append(move)
            if max_keys and len(keys) >= max_keys:
                break  # cooked: nothing below can make it sound
        elif move in zone:
            tries.append(move)
    tempting = len(tries)
    if aborted:
        return Verdict([], [], False, [], False, [], 0, False, s.nodes, time.perf_counter() - t0, False)
    quiet = bool(keys) and keys[0] not in segs
    sound = len(keys) == 1 and not shorter
    main, duals = ([], [])
    if line and sound:
        main, duals = _main_line(s, n, keys[0], 0 if all_duals else 2)
        if s.aborted:
            return Verdict(keys, shorter, False, [], False, [], tempting, quiet, s.nodes,
                           time.perf_counter() - t0, False)
    nodes = s.nodes
    late = _late(s, n, tries) if line and sound else ()
    last = _last_moves(s, n, main) if line and sound else ()
    if s.aborted:  # the last moves ran out of the budget: nothing is proven
        return Verdict(keys, shorter, False, [], False, [], tempting, quiet, s.nodes,
                       time.perf_counter() - t0, False)
    return Verdict(keys, shorter, sound, main, sound and not duals, duals, tempting, quiet,
                   nodes, time.perf_counter() - t0, True, late, last)


#: what :func:`screen` says: a candidate that passes, and the reasons it refuses one
SCREENS = ("pass", "sound", "escapes", "shorter", "cooked", "duals", "budget")


def screen(position: Position, target: str, n: int, *, limit: Limit | None = None,
           duals: bool = True) -> tuple[str, str | None]:
    """``(why, key)``: :func:`verify`'s verdict on a candidate, as cheaply as it can be
    told, for a generator that keeps only dual-free puzzles (issue 36 item 4): its
    fast twin.  ``why`` is ``'escapes'`` (no first move captures within ``n``),
    ``'shorter'`` (the key, or every key tried, captures within ``n - 1``), ``'cooked'``
    (two keys), ``'duals'`` (sound, but :func:`verify`'s main line would have a dual:
    the same line search, so the same claim), ``'budget'`` (``limit`` ran out: nothing
    is known) or, with ``duals``, ``'pass'`` (sound and dual-free); without ``duals``
    the line is not searched and a sound candidate is ``'sound'``.  ``key`` is the key
    of a sound one.

    It differs from :func:`verify` in what it does not compute (the late tries, the
    last moves, the node count of a search from scratch) and in the order of the first
    moves: those on the target's paths, then on its lines or touching it, then the
    rest (the capture search's own order), so that a second key, when there is one, is
    found before most failing first moves are proven to fail.  Which first moves are
    keys does not depend on the order, so the verdict is :func:`verify`'s for every
    candidate where X does not capture within ``n - 1`` (the generator asks it only
    after that search; before it, two keys of which one is shorter may read
    ``'cooked'`` here and ``'shorter'`` there).  It uses whatever this process's
    table holds for the target (entries are exact): call it after the candidate's
    first search, not after :func:`~solver.search.capture.forget`."""
    check_n(n)
    s = CaptureSearch(position, target, limit=capture_limit(limit))
    segs, zone = s.target_zone()
    moves = position.legal_moves()
    ordered = ([m for m in moves if m in segs] + [m for m in moves if m in zone and m not in segs]
               + [m for m in moves if m not in zone])
    keys = []
    for move in ordered:
        r = s.move_captures(move, n)
        if r is None:
            return "budget", None
        if r:
            keys.append(move)
            if n > 1:
                r2 = s.move_captures(move, n - 1)
                if r2 is None:
                    return "budget", None
                if r2:
                    return "shorter", None
            if len(keys) >= 2:
                return "cooked", None
    if not keys:
        return "escapes", None
    if not duals:
        return "sound", keys[0]
    # verify's main line is dual-free exactly when the search for a line unique at every
    # turn but the last finds one: its search for a line unique at the last turn too
    # runs first, but accepts a subset of the same lines in the same order, so it
    # succeeds only when this one does (within the same LINE_SEARCH Y turns)
    free = _free_line(s, [position], position.play(keys[0]), n - 1, [LINE_SEARCH], strict=False)
    if s.aborted:
        return "budget", None
    return ("pass" if free is not None else "duals"), keys[0]


def main_line(position: Position, target: str, n: int, key: str, *, limit: Limit | None = None
              ) -> tuple[list, list, tuple, bool]:
    """``(line, duals, last_moves, complete)`` of :func:`verify` for a puzzle whose key
    is known to be sound (its soundness is not checked: the keys are not searched), with
    ``all_duals`` False; ``complete`` False when ``limit`` ran out (then nothing holds)."""
    check_n(n)
    s = CaptureSearch(position, target, limit=capture_limit(limit))
    main, duals = _main_line(s, n, key, 2)
    last = () if s.aborted else _last_moves(s, n, main)
    if s.aborted:
        return [], [], (), False
    return main, duals, last, True


def _last_moves(s: CaptureSearch, n: int, line: list) -> tuple:
    """Every X move at the last X turn of ``line`` (X's ``n``-th move, ply ``2n - 2``)
    that captures there, in board order; the search's node count is left as it was
    (so that ``nodes`` stays the verification's effort, as before this field)."""
    if len(line) < 2 * n - 1:
        return ()
    before = s.nodes
    path = [s.root]
    for m in line[: 2 * n - 2]:
        path.append(path[-1].play(m))
    last = tuple(_working(s, path, path[-1], 1))
    s.nodes = before
    return last


def _late(s: CaptureSearch, n: int, tries: list[str]) -> tuple:
    """The failing first moves ``tries`` that capture within ``n + 1``: a try that fails
    only by a move is one a solver has to read to the end.  Each gets
    :data:`LATE_NODES` nodes; a try not decided within them does not count.  The
    search's node count and budget are left as they were."""
    if n + 1 > MAX_N:
        return ()
    before, limit = s.nodes, s.node_limit
    late = []
    for move in tries:
        s.node_limit = s.nodes + LATE_NODES
        r = s.move_captures(move, n + 1)
        if s.aborted:
            s.clear_aborted()
        elif r:
            late.append(move)
    s.node_limit = limit
    s.nodes = before
    return tuple(late)


def _min_x(s: CaptureSearch, kmax: int) -> int:
    """The fewest X-moves that capture from the end of the line loaded in ``s`` (X to
    move); ``kmax + 1``: not within ``kmax``."""
    for k in range(1, kmax + 1):
        r = s.captures(k)
        if r is None:
            return kmax + 1
        if r:
            return k
    return kmax + 1


def _main_line(s: CaptureSearch, n: int, key: str, stop: int = 0) -> tuple[list, list]:
    """The key, then Y's longest resistance and X's answers, and the duals on it: the X
    turns before the last with more than one move that keeps the capture within the
    moves left (with ``stop``, at most that many of them listed).

    A main line is the defence a composer would show: among Y's equally long defences,
    one along which X's answer is unique at every turn, the last included, if there is
    one; else one along which it is unique at every turn but the last (the module
    docstring's dual-free line); each searched over all tied defences,
    :data:`LINE_SEARCH` Y turns at most.  Else the first in board order, taking at each
    Y turn a reply after which X has a single working answer when one exists.  X's
    answer is the first working move."""
    position = s.root
    for strict in (True, False):
        free = _free_line(s, [position], position.play(key), n - 1, [LINE_SEARCH], strict)
        if free is not None:
            return [key] + free, []
        if n < 2:
            break
    path = [position]
    line = [key]
    duals = []
    cur = position.play(key)
    left = n - 1
    while True:
        path.append(cur)
        tied, over = _longest(s, path, cur, left)
        if over:
            line.extend(tied[:1])
            break
        chosen, answers = None, None
        for reply in tied:
            after = cur.play(reply)
            working = _working(s, path + [after], after, left, stop=2)
            if answers is None or (len(working) == 1 and len(answers) != 1):
                chosen, answers = reply, working
            if len(working) == 1:
                break
        line.append(chosen)
        cur = cur.play(chosen)
        path.append(cur)
        working = _working(s, path, cur, left, stop)
        if not working:
            break  # cannot happen for a proven key; the line just stops
        if len(working) > 1 and left > 1:  # the last turn accepts every capturing move
            duals.append((len(line), working))
        line.append(working[0])
        cur = cur.play(working[0])
        left -= 1
    return line, duals


def _longest(s: CaptureSearch, path: list, cur: Position, left: int) -> tuple[list, bool]:
    """Y's replies at ``cur`` (the last position of ``path``, Y to move) after which X
    needs the most moves, and whether the line ends with them (the target is gone or
    the game over, or X has no move left).  A ``cur`` where the line already ended
    gives ``([], True)``."""
    if s.target_gone(cur) or cur.outcome is not None:
        return [], True
    replies = cur.legal_moves()
    if left >= 2:
        # after a working X move no reply needs more than ``left``: the replies that
        # need all of them are those that hold out against left - 1, one search each
        slow = []
        for reply in replies:
            after = cur.play(reply)
            if s.target_gone(after) or after.outcome is not None:
                continue
            s.load(path + [after])
            if not s.captures(left - 1):
                slow.append(reply)
        if slow:
            return slow, False
    tied, best_need = [], -1
    for reply in replies:
        after = cur.play(reply)
        if s.target_gone(after) or after.outcome is not None:
            need = 0  # the defence ends the line at once
        else:
            s.load(path + [after])
            need = _min_x(s, left)
        if need > best_need:
            tied, best_need = [reply], need
        elif need == best_need:
            tied.append(reply)
    return tied, best_need == 0 or left == 0


def _free_line(s: CaptureSearch, path: list, cur: Position, left: int, budget: list,
               strict: bool = True) -> list | None:
    """A longest defence from ``cur`` (Y to move, after X's move; ``path`` ends before
    it) along which X's working answer is unique at every turn (not ``strict``: every
    turn but the last, ``left == 1``, where the first capturing move is taken), with
    those answers; None if there is none or ``budget[0]`` Y turns were tried without
    finding one."""
    budget[0] -= 1
    if budget[0] < 0:
        return None
    path = path + [cur]
    tied, over = _longest(s, path, cur, left)
    if over:
        return tied[:1]
    for reply in tied:
        after = cur.play(reply)
        here = path + [after]
        working = _working(s, here, after, left, stop=2)
        if len(working) != 1 and (strict or left > 1 or not working):
            continue
        rest = _free_line(s, here, after.play(working[0]), left - 1, budget, strict)
        if rest is not None:
            return [reply, working[0]] + rest
        if budget[0] < 0:
            return None
    return None


def _working(s: CaptureSearch, path: list, cur: Position, left: int, stop: int = 0,
             skip: str | None = None) -> list:
    """X's moves at ``cur`` (the last position of ``path``) that keep the capture within
    ``left`` moves, in board order; with ``stop``, at most that many; ``skip`` is not
    tried."""
    working = []
    for move in cur.legal_moves():
        if move == skip:
            continue
        s.load(path + [cur.play(move)])
        if s.captures_after_reply(left - 1):
            working.append(move)
            if stop and len(working) >= stop:
                break
    return working


class LineCheck(NamedTuple):
    """What :func:`check_line` found on a recorded line."""

    duals: list         # (ply, [the line's move, another that works]) at X turns before the last
    last_moves: tuple   # every X move that captures at the last X turn (board order); () when
                        # the line stops before it
    problems: list      # what is wrong with the line besides duals, one phrase each
    nodes: int
    complete: bool      # False when the node budget ran out (then nothing is proven)


_NAMES = {"L": "Light", "D": "Dark"}


def turn_name(position: Position, ply: int) -> str:
    """``"move 3, Light's 2nd"``: the line's ply (from 0) in words, for messages."""
    x = position.to_move
    who = x if ply % 2 == 0 else ("D" if x == "L" else "L")
    k = ply // 2 + 1
    nth = f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"
    return f"move {ply + 1}, {_NAMES[who]}'s {nth}"


def line_as_recorded(puzzle) -> bool:
    """Whether a puzzle record's line checks (:func:`check_line`) complete, dual-free and
    without problems, with the last moves the record gives."""
    c = check_line(puzzle.to_position(), puzzle.target, puzzle.n, puzzle.line)
    return c.complete and not c.duals and not c.problems and tuple(c.last_moves) == tuple(puzzle.last_moves)


def check_line(position: Position, target: str, n: int, line, *, limit: Limit | None = None) -> LineCheck:
    """Check a recorded ``line`` (key first; its last move may be :data:`ANY`) of the
    capture-in-``n`` puzzle move by move, as the module docstring defines a dual-free
    line: at every X turn each X move of the line keeps the capture within the X moves
    left; at the turns before the last no other X move does (else a dual, with one
    other move that does); at the last X turn every X move that captures is listed;
    every Y move but an :data:`ANY` one is a longest defence (after it X cannot
    capture within fewer than the moves left); and nothing follows the capture.  A
    line that stops before the capture is checked as far as it goes.  ``limit`` as in
    :func:`verify`; ``ValueError`` for an illegal line (:meth:`Puzzle.validate` refuses
    those first)."""
    check_n(n)
    s = CaptureSearch(position, target, limit=capture_limit(limit))
    duals, problems, last = [], [], ()
    path = [position]
    cur = position
    for ply, move in enumerate(line):
        if move == ANY:
            break  # the defender's free last reply: :func:`any_escapes` checks it
        if s.target_gone(cur) or cur.outcome is not None:
            problems.append(f"the line goes on after the capture ({turn_name(position, ply)} is {move})")
            break
        if ply % 2 == 0:
            left = n - ply // 2  # X's moves left, this one included
            if left < 1:
                problems.append(f"the line has more than {n} moves of {_NAMES[position.to_move]}")
                break
            if left == 1:
                last = tuple(_working(s, path, cur, 1))
                works = move in last
            else:
                s.load(path + [cur.play(move)])
                works = s.captures_after_reply(left - 1)
                if works:
                    other = next(iter(_working(s, path, cur, left, stop=1, skip=move)), None)
                    if other is not None:
                        duals.append((ply, [move, other]))
            if s.aborted:
                break
            if not works:
                problems.append(f"{turn_name(position, ply)}, {move}, does not capture within the "
                                f"{left} move{'s' if left > 1 else ''} left")
        else:
            left = n - ply // 2 - 1  # X's moves left after this reply
            after = cur.play(move)
            if left >= 2 and not s.target_gone(after) and after.outcome is None:
                s.load(path + [after])
                if s.captures(left - 1):
                    problems.append(f"{turn_name(position, ply)}, {move}, is not a longest defence: "
                                    f"the capture then takes fewer than the {left} moves left")
                if s.aborted:
                    break
        cur = cur.play(move)
        path.append(cur)
    if s.aborted:
        return LineCheck([], (), [], s.nodes, False)
    return LineCheck(duals, last, problems, s.nodes, True)


def any_escapes(position: Position, target: str, line) -> list[str]:
    """The defender's legal replies at the end of ``line`` (its last move, the reply
    written ``any``, not played) after which the target is still on the board: none
    when the line may write that reply as ``any``.  ``ValueError`` for a line whose
    moves before it are illegal.

    >>> pos = Position.parse("1D1L/3L1/2DDL1/1D1L1LL/2DDDL2/5L1/2D3/D4/4 D")  # m45-c1-0059
    >>> any_escapes(pos, "f4", ["f5", "any"]), len(any_escapes(pos, "f4", ["a1", "any"]))
    ([], 22)
    >>> with_any(pos, "f4", ["f5", "a2"])
    ['f5', 'any']
    """
    cur = _before_last(position, line)
    y = cur.to_move
    return [m for m in cur.legal_moves() if target in cur.play(m).stones(y)]


def _before_last(position: Position, line) -> Position:
    for m in list(line)[:-1]:
        position = position.play(m)
    return position


def with_any(position: Position, target: str, line) -> list[str]:
    """``line`` with its last move written ``any`` when that move is the defender's
    and every legal reply there removes the target (:func:`any_escapes`); else as it
    is.  A sound puzzle's main line always qualifies when it ends with the defender's
    reply: after X's last move every reply must lose the target."""
    line = list(line)
    if len(line) < 2 or len(line) % 2 or any_escapes(position, target, line):
        return line
    if not _before_last(position, line).legal_moves():
        return line  # no reply at all: "any" would name a move that does not exist
    return line[:-1] + [ANY]
