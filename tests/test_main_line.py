"""The main line ``verify`` reports is a longest defence with X's working answers, and it
is dual-free exactly when it says so: each claim is checked move by move with the
verifier's own key search (whose answers the reference twin checks, tests/test_capture.py).

The search over Y's tied defences finds dual-free lines that the turn-by-turn choice
misses: m45-c4-0015 and m67-c5-0006 (of the first sets, random seed games) had duals before it.
"""

from __future__ import annotations

import pytest

from puzzles import verdict
from puzzles.verdict import verify
from solver.search.capture import capture_within
from puzzles.record import find_puzzle

#: records of the first committed sets (from random seed games, since rebuilt from
#: self-play), kept as fixtures for the tests that name a puzzle
OLD = "tests/data/old-puzzles.jsonl"
PUZZLES = {
    # m45-c4-0015's dual-free line is found only by searching the tied defences; the
    # other two are ordinary puzzles of the first sets
    "m45-c4-0015": OLD,
    "m45-c3-0001": OLD,
    "m67-c3-0002": OLD,
}


def check_line(pos, target, n, line, dual_free) -> None:
    """Replay ``line``: every X move is one of X's working moves (the only one if the
    line is dual-free, the last X move excepted: issue 36), every Y move leaves X
    needing all its moves left, and the line ends with the target gone or Y unable to
    move."""
    duals = False
    for ply, move in enumerate(line):
        if ply % 2 == 0:
            left = n - ply // 2  # X's moves left, this one included
            keys = verify(pos, target, left, line=False).keys
            assert move in keys, (ply, move, keys)
            duals |= len(keys) > 1 and left > 1
        else:
            left = n - ply // 2 - 1  # X's moves left after this reply
            after = pos.play(move)
            gone = target not in after.stones(pos.to_move)
            if not gone and after.outcome is None and left > 0:
                # a longest defence: X cannot capture in fewer than the moves left
                assert capture_within(after, target, left) is True
                if left > 1:
                    assert capture_within(after, target, left - 1) is False, (ply, move)
        pos = pos.play(move)
    assert duals == (not dual_free)


@pytest.mark.parametrize("pid", sorted(PUZZLES))
def test_recorded_main_lines_hold_move_by_move(pid):
    p = find_puzzle(pid, [PUZZLES[pid]])
    v = verify(p.to_position(), p.target, p.n)
    assert v.sound and list(v.line) == list(p.line) and v.dual_free == p.dual_free
    check_line(p.to_position(), p.target, p.n, v.line, v.dual_free)


def test_the_tied_defences_are_searched(monkeypatch):
    p = find_puzzle("m45-c4-0015", [PUZZLES["m45-c4-0015"]])
    pos = p.to_position()
    v = verify(pos, p.target, p.n)
    assert v.dual_free and not v.duals
    check_line(pos, p.target, p.n, v.line, True)
    # turn by turn only (no search of the tied defences): a line with duals
    monkeypatch.setattr(verdict, "LINE_SEARCH", 0)
    greedy = verify(pos, p.target, p.n)
    assert greedy.sound and not greedy.dual_free and greedy.duals
    check_line(pos, p.target, p.n, greedy.line, False)


@pytest.mark.parametrize("pid,path", [
    ("m45-c1-0002", OLD), ("m45-c1-0011", OLD), ("m45-c2-0005", OLD), ("m67-c2-0004", OLD),
])
def test_late_tries_capture_one_move_later(pid, path):
    # a try that "fails only late" is not a key within n but one within n + 1
    from puzzles.reference import reference_verdict

    p = find_puzzle(pid, [path])
    pos = p.to_position()
    v = verify(pos, p.target, p.n)
    assert v.late and len(v.late) <= v.tempting  # these puzzles have late tries
    later = verify(pos, p.target, p.n + 1, line=False).keys
    assert set(v.late) <= set(later) - set(v.keys)
    if p.n == 1 and pos.board.m <= 4:
        assert set(v.late) <= set(reference_verdict(pos, p.target, 2)["keys"])
