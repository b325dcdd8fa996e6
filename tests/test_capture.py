"""The capture-in-N verifier (:mod:`puzzles.verdict` over :mod:`solver.search.capture`) against its slow twin
(:mod:`puzzles.reference`, plain recursion on the networkx rules of solver.reference).

1. Hand-built positions on 2/3 and 3/4 whose answers are derived by hand in the comments;
   the reference must give them, and so must the fast verifier.
2. Random positions reached by seeded random play on 3/4 and 4/5: X the side to move,
   one stone of every opponent group as the target, n in 1..3.  The fast ``keys`` and
   ``shorter`` must equal the reference's exactly, and ``sound`` must agree.  The work of
   the reference is bounded by a budget of placements per example (a target whose
   reference verdict would need more is skipped, and counted); n is lowered on positions
   with many empty points.
3. For every sound verdict the fast ``line`` is replayed with ``Position.play``: every
   move legal, X making at most n moves, the target gone after the last move (or the
   defender without a legal move); and the reference confirms that each X move of the
   line still forces the capture in the X-moves left.

The last test checks that a run of the module compared enough puzzles.
"""

from __future__ import annotations

from collections import Counter
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.reference import (
    capture_within,
    move_forces_capture,
    reference_verdict,
)
from solver import Board, Position
from solver.reference import rules as R
from solver.rules.randomgame import empty_points, random_game
from refplay import random_position, reference_of, replay_line

from puzzles.verdict import verify
from solver.search.capture import CaptureError
from solver.search.limit import Limit

#: what the random comparisons did, over the whole module
STATS: Counter = Counter()


def other(colour: str) -> str:
    return "D" if colour == "L" else "L"


def fast_verdict(pos: Position, target: str, n: int) -> dict:
    v = verify(pos, target, n)
    return dict(keys=list(v.keys), shorter=list(v.shorter), sound=bool(v.sound))


# -- 1. hand-built positions ----------------------------------------------------------------
#
# The 3/4 board (Light stones L, Dark D):            The 2/3 board:
#
#        g1 g2 g3                                           e1 e2
#      f1 f2 f3 f4                                        d1 d2 d3
#    e1 e2 e3 e4 e5                                     c1 c2 c3 c4
#  d1 d2 d3 d4 d5 d6                                      b1 b2 b3
#    c1 c2 c3 c4 c5                                         a1 a2
#      b1 b2 b3 b4
#        a1 a2 a3
#
# Lines through a point: its row and the two diagonals, e.g. a1-b1-c1-d1, a1-b2-c3-d4-e4-f4
# and a1-a2-a3 on 3/4; c1-d1-e1, a1-b1-c1 and c1-c2-c3-c4 on 2/3.

# P1 (3/4, Light to move).  Light: b1 b2 b3 b4 (one group) and d1, alive through the path
# b1-c1-d1.  Dark: a1 and a3, alive through the path a1-a2-a3; f1 and f4, alive through
# f1-f2-f3-f4.  a1's neighbours are a2 b1 b2, a3's are a2 b3 b4: apart from a2 all Light.
P1 = Position(Board.get(3), ["b1", "b2", "b3", "b4", "d1"], ["a1", "a3", "f1", "f4"], "L")


def test_p1_one_block_captures_in_one():
    # n = 1.  Light a2 leaves a1 with every line blocked at once by a Light stone: no path
    # now, and no Dark stone placed anywhere can ever see a1, so whatever Dark replies
    # (Dark has moves around f1 f4), its dead group a1 is removed after the reply.
    # Light's a2 joins b1-b4, which keeps its path b1-c1-d1: Light stays.
    # Any other Light move leaves a2 empty: Dark replies anywhere but a2 (f2, say) and a1
    # keeps its path to a3.  Light c1 even joins Light's two groups into one dead group
    # and loses at once.  So a2 is the only key: sound.
    assert reference_verdict(P1, "a1", 1) == dict(keys=["a2"], shorter=[], sound=True)
    # The same for the target a3 (the picture is symmetric).
    assert reference_verdict(P1, "a3", 1) == dict(keys=["a2"], shorter=[], sound=True)


def test_p1_in_two_every_safe_move_works():
    # n = 2.  After any first move but c1, Dark cannot stop Light a2 next: a Dark stone on
    # a2 makes a1 a2 a3 one group that sees nothing (removed at once), and the only point
    # that would kill Light's b-group, c1, is on no line with a Dark stone (the lines
    # through c1 are a1-d1, c1-c5 and c1-g2; a1 is cut off by b1, and no Dark stone is on
    # the other two).  So the keys are every legal move but the suicide c1, and a2 does
    # it in one: not sound.
    expected = sorted(set(P1.legal_moves()) - {"c1"})
    assert "a2" in expected and len(expected) > 10
    assert reference_verdict(P1, "a1", 2) == dict(keys=expected, shorter=["a2"], sound=False)


# P2 (3/4, Light to move): P1 without Dark's f1 f4.  Dark's only legal point is a2.
P2 = Position(Board.get(3), ["b1", "b2", "b3", "b4", "d1"], ["a1", "a3"], "L")


def test_p2_no_legal_reply_and_suicides():
    # Light a2: Dark has no legal placement (every line from a1 and a3 starts with a Light
    # stone), so Dark has lost: the target counts as captured.
    # Any other Light move but c1: Dark's only legal point is still a2, which makes
    # a1 a2 a3 a single group with no path; it is removed right after Dark's placement.
    # Light c1: Light's stones become one group, dead, removed: Light has lost, X fails.
    expected = sorted(set(P2.legal_moves()) - {"c1"})
    assert reference_verdict(P2, "a1", 1) == dict(keys=expected, shorter=[], sound=False)
    b = P2.board
    light, dark, _ = reference_of(P2)
    after_a2 = R.play(b, light, dark, "L", b.index("a2"))
    assert R.legal_moves(b, *after_a2) == []
    after_c1 = R.play(b, light, dark, "L", b.index("c1"))
    assert after_c1[0] == frozenset() and R.outcome(b, *after_c1) == "D"


# P3 (3/4, Light to move).  Light: e1 and e3 (path e1-e2-e3).  Dark: c1 and c3, whose only
# path is c1-c2-c3 (the other lines through c1, a1-d1 and c1-g2, and through c3, a1-f4
# and a3-f1, hold no other Dark stone).
P3 = Position(Board.get(3), ["e1", "e3"], ["c1", "c3"], "L")


def test_p3_target_revived():
    # Light c2 (legal: it sees e1 across d2 and e3 across d3) cuts the only path: c1 and c3
    # are dead.  But Dark replies a1, which sees c1 across b1 and c3 across b2: both have a
    # path again and nothing is removed.  Any other Light move leaves c2 empty, and Dark
    # replies anywhere but c2.  So nothing captures in one.
    assert reference_verdict(P3, "c1", 1) == dict(keys=[], shorter=[], sound=False)
    b = P3.board
    light, dark, _ = reference_of(P3)
    c2 = b.index("c2")
    assert c2 in R.legal_moves(b, light, dark, "L")
    light1, dark1, _ = R.play(b, light, dark, "L", c2)
    assert len(R.dead_groups(b, dark1, light1)) == 2  # the cut works ...
    light2, dark2, _ = R.play(b, light1, dark1, "D", b.index("a1"))
    assert b.index("c1") in dark2  # ... until Dark revives both stones
    assert not move_forces_capture(b, light, dark, "L", b.index("c1"), c2, 1)


# P4 (2/3, Light to move).  Light: b1 c2 d2 e2 (one group) and a2, alive through the path
# a2-b2-c2.  Dark: c1 and e1, alive through the path c1-d1-e1.  c1's neighbours are b1 c2
# d1, e1's are d1 d2 e2.  The empty points are a1 b2 b3 c3 c4 d1 d3, all legal for Light.
P4 = Position(Board.get(2), ["a2", "b1", "c2", "d2", "e2"], ["c1", "e1"], "L")


def test_p4_small_board():
    # Light d1: Dark has no legal placement: captured.  Any other Light move: Dark's only
    # legal point is d1, and c1 d1 e1 becomes one group with no path, removed at once.
    # Except Light b2 and Light a1 (a1 touches both a2 and b1): each joins a2 to the big
    # group, Light's only group then, dead: Light loses.
    assert P4.legal_moves() == ["a1", "b2", "b3", "c3", "c4", "d1", "d3"]
    expected = dict(keys=["b3", "c3", "c4", "d1", "d3"], shorter=[], sound=False)
    assert reference_verdict(P4, "c1", 1) == expected
    assert reference_verdict(P4, "e1", 1) == expected
    # Within n = 2 the same moves, and all of them already within 1.
    assert reference_verdict(P4, "c1", 2) == dict(keys=expected["keys"], shorter=expected["keys"], sound=False)


def test_repetition_is_a_draw():
    # The line's history counts: the position itself on the path is a repetition, so X
    # cannot succeed from it, while from a fresh start the capture of P1 is forced.
    b = P1.board
    light, dark, side = reference_of(P1)
    a1 = b.index("a1")
    assert capture_within(b, light, dark, side, a1, 1)
    assert not capture_within(b, light, dark, side, a1, 1, history=[(light, dark, side)])


#: questions that cannot be posed: an empty target, a stone of the side to move, n out
#: of range, a point off the board, a finished game
BAD = [(P1, "c3", 1), (P1, "b1", 1), (P1, "a1", 0), (P1, "a1", -1), (P1, "a1", 1.5), (P1, "a1", True),
       (P1, "z9", 1)]


@pytest.mark.parametrize("pos, target, n", BAD)
def test_both_verifiers_refuse_bad_questions_with_one_error_type(pos, target, n):
    assert issubclass(CaptureError, ValueError)
    with pytest.raises(CaptureError):
        reference_verdict(pos, target, n)
    with pytest.raises(CaptureError):
        verify(pos, target, n)


def test_both_verifiers_refuse_a_finished_game():
    pos = Position.parse("2/1D1/4/L1L/2 D")  # Dark to move has no legal placement: Light won
    assert pos.outcome == "L"
    with pytest.raises(CaptureError, match="over"):
        reference_verdict(pos, "b1", 1)
    with pytest.raises(CaptureError, match="over"):
        verify(pos, "b1", 1)


HAND = [
    (P1, "a1", 1), (P1, "a3", 1), (P1, "a1", 2), (P2, "a1", 1), (P3, "c1", 1),
    (P4, "c1", 1), (P4, "e1", 1), (P4, "c1", 2),
]


@pytest.mark.parametrize("pos, target, n", HAND)
def test_fast_on_hand_positions(pos, target, n):
    assert fast_verdict(pos, target, n) == reference_verdict(pos, target, n)


def test_fast_line_on_hand_position():
    # P1 in one: the key a2, then any Dark reply, after which a1 is gone.
    v = verify(P1, "a1", 1)
    assert v.sound and v.line[0] == "a2" and len(v.line) == 2
    check_line(P1, "a1", 1, v)


# -- 2. random positions ----------------------------------------------------------------------

#: reference placements (calls of solver.reference.play) allowed per example for the
#: verdicts, and per line for checking it
BUDGET = 8000
LINE_BUDGET = 3000
#: the most empty points for which n = 2 and n = 3 are tried (n is lowered above them)
MAX_EMPTY = {3: {2: 16, 3: 12}, 4: {2: 14, 3: 12}}


class _OverBudget(Exception):
    pass


class _Budget:
    """Count the reference's placements; raise :class:`_OverBudget` past ``limit``."""

    def __init__(self, limit: int):
        self.left = limit
        self._play = R.play

    def play(self, *args):
        self.left -= 1
        if self.left < 0:
            raise _OverBudget
        return self._play(*args)


def puzzle_position(board: Board, plies: int, seed: int, most_empty: int) -> Position:
    """A position of the seeded random game: after ``plies`` moves, or the last one
    before the game ended; then played on until at most ``most_empty`` points are empty,
    or the game would end.  The position is a fresh one: the line of the puzzle starts
    there, and repetitions of the game before it do not count."""
    game = list(random_game(board, seed, plies=4 * board.size - 1))  # random_position's game
    live = [k for k, pos in enumerate(game) if pos.outcome is None]
    k = max(j for j in live if j <= plies) if plies >= live[0] else live[0]
    while empty_points(game[k]) > most_empty and k + 1 in live:
        k += 1
    pos = game[k]
    assert pos == random_position(board, k, seed)
    # the puzzle's line starts here: forget the game's history (its repetitions)
    return Position(board, pos.stones("L"), pos.stones("D"), pos.to_move)


def targets(pos: Position) -> list[str]:
    """One stone (the lowest in board order) of every group of the opponent."""
    b = pos.board
    return [min(g, key=b.index) for g in pos.groups(other(pos.to_move))]


def check_line(pos: Position, target: str, n: int, v) -> None:
    """Replay the sound verdict's line: legal, at most n X moves, the target gone (or the
    defender without a move) at its end; each X move still forcing it (reference)."""
    line = list(v.line)
    assert line and line[0] == v.keys[0], (str(pos), target, n, line)
    x = pos.to_move
    b = pos.board
    t = b.index(target)
    cur = pos
    history = []
    x_moves = 0
    budget = _Budget(LINE_BUDGET)
    for i, move in enumerate(line):
        assert target in cur.stones(other(x)), (str(pos), target, n, line, i)
        assert cur.outcome is None, (str(pos), target, n, line, i)
        assert move in cur.legal_moves(), (str(pos), target, n, line, i)
        if cur.to_move == x:
            x_moves += 1
            if budget.left > 0:
                light, dark, side = reference_of(cur)
                try:
                    with mock.patch.object(R, "play", budget.play):
                        ok = move_forces_capture(b, light, dark, side, t, b.index(move),
                                                 n - x_moves + 1, history)
                except _OverBudget:
                    STATS["line steps unchecked"] += 1
                else:
                    assert ok, (str(pos), target, n, line, i)
                    STATS["line steps checked"] += 1
        history.append(reference_of(cur))
        cur = cur.play(move)
    assert x_moves <= n, (str(pos), target, n, line)
    captured = target not in cur.stones(other(x))
    assert captured or cur.outcome == x, (str(pos), target, n, line, str(cur))
    # the same line by the reference rules (every move checked legal there too)
    result = replay_line(pos, line)
    assert captured or result == x, (str(pos), target, n, line, result)
    STATS["lines"] += 1


def compare(m: int, seed: int, plies: int, n: int) -> None:
    board = Board.get(m)
    pos = puzzle_position(board, plies, seed, MAX_EMPTY[m].get(n, board.size))
    if pos.outcome is not None or not pos.stones(other(pos.to_move)):
        return
    while n > 1 and empty_points(pos) > MAX_EMPTY[m][n]:
        n -= 1
    budget = _Budget(BUDGET)
    for target in targets(pos):
        fast = verify(pos, target, n)
        assert fast.complete
        try:
            with mock.patch.object(R, "play", budget.play):
                ref = reference_verdict(pos, target, n)
        except _OverBudget:
            STATS["skipped"] += 1
            STATS[f"skipped n={n}"] += 1
            ref = None
        if ref is not None:
            got = dict(keys=list(fast.keys), shorter=list(fast.shorter), sound=bool(fast.sound))
            assert got == ref, (str(pos), target, n, got, ref)
            STATS["compared"] += 1
            STATS[f"compared n={n}"] += 1
            STATS["with keys"] += bool(ref["keys"])
            STATS["sound"] += ref["sound"]
        if fast.sound:
            check_line(pos, target, n, fast)


@settings(max_examples=80)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(8, 40), n=st.integers(1, 3))
def test_fast_matches_reference_3_4(seed, plies, n):
    compare(3, seed, plies, n)


@settings(max_examples=50)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(20, 100), n=st.integers(1, 3))
def test_fast_matches_reference_4_5(seed, plies, n):
    compare(4, seed, plies, n)


def test_enough_compared():
    """Run after the random tests (file order): they compared enough, of every kind."""
    if not STATS:
        pytest.skip("the random comparisons did not run")
    print(dict(STATS))
    assert STATS["compared"] >= 150
    assert STATS["with keys"] >= 10 and STATS["sound"] >= 3
    assert STATS["compared n=2"] >= 10 and STATS["compared n=3"] >= 5
    assert STATS["lines"] >= 3


# -- the table costs what a search writes -------------------------------------------------------


def test_an_empty_capture_table_is_all_zeros():
    # zero bits in every field of an empty slot: the table can come from memory.zeroed
    from solver.rules import core
    from solver.search import capture

    S = capture.new_capture(core.tables(Board.parse("2/3")), tt_mb=1)
    for name in ("tt_key", "tt_succ", "tt_fail", "tt_move"):
        assert not getattr(S, name).any(), name


def test_forget_costs_what_was_written_not_the_table_size():
    import time

    from puzzles.record import COMMITTED, load_jsonl
    from solver.search import capture

    p = load_jsonl(COMMITTED / "6-7-c1.jsonl")[0]
    pos = p.to_position()
    first = verify(pos, p.target, p.n, limit=Limit(tt_mb=512))
    t0 = time.perf_counter()
    capture.forget()
    again = verify(pos, p.target, p.n, limit=Limit(tt_mb=512))
    seconds = time.perf_counter() - t0
    # clearing every slot of 512 MiB took 1-2 s; an easy question touches a few pages
    assert seconds < 0.5, seconds
    # the same answer as the committed record's, with or without the earlier entries (a
    # record writes "any" for a last reply where every reply loses the target)
    line = list(p.line)
    if line[-1] == "any":
        line[-1] = first.line[-1]
    assert (again.keys, again.line, again.nodes) == (first.keys, first.line, first.nodes) == ([p.key], line, p.nodes)
