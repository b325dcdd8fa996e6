"""The compiled core against the networkx reference, on random reachable positions.

Hypothesis draws a board (1/2 .. 7/8), a seed and a number of plies; the test plays that
many random legal moves from the empty board, with a ``random.Random(seed)``, twice in
step: through the public API (``Position.play``, which runs the numba kernels) and
through :mod:`solver.reference` (networkx, written straight from RULES.md, sharing only
:mod:`solver.rules.board` with the core).  At *every* ply the two must agree on:

* the stones and the player to move, the phase;
* the groups and the dead groups of both colours;
* the outcome (with repetition a draw, tracked independently here);
* the legal moves;
* for every legal move (a random sample of them on 5/6 and larger boards): the stones
  the move removes, the position it leads to, and that position's outcome.

The kernels are also called directly on the Position's arrays: ``core.phase``,
``core.legal_moves``, ``core.group_labels``, ``core.outcome``, ``core.dead_bb`` and
``core.play``.  The kernels number points in their own layout (cells);
``Tables.point_of`` and ``Tables.cell_of`` translate.

Every compared position is counted; the last test checks that one run of the module
compared at least 10,000, on every board.

A second group of tests checks the worked facts of RULES.md on the core's own play:
groups never split, removing dead groups never takes a path away, and a stone placed
with no friendly neighbour that sees a friendly stone across empty points is never
removed.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Position
from solver.rules import core
from solver.reference import rules as R
from solver.rules.board import MAX_M, MIN_M, Board

E: frozenset = frozenset()
BOARDS = list(range(MIN_M, MAX_M + 1))
COLOURS = ("L", "D")
#: how many legal moves of a position are played and compared (None: all of them); on the
#: big boards the reference costs about a millisecond per move, so a sample is taken
MOVES_PER_POSITION = {1: None, 2: None, 3: None, 4: None, 5: 12, 6: 8, 7: 6}
#: the number of positions compared, by board, over the whole module
COMPARED: Counter = Counter()
#: the outcomes reached, and the number of compared moves that removed stones
RESULTS: Counter = Counter()
#: moves checked by the worked-facts test, and how many of them removed stones
FACTS: Counter = Counter()
MIN_POSITIONS = 10_000
_PHASE_CODES = {"first": core.PH_FIRST, "second": core.PH_SECOND, "normal": core.PH_NORMAL, "lost": core.PH_LOST}

RefPos = tuple  # (light, dark, to_move) as in solver.reference


# -- helpers ------------------------------------------------------------------------------


def names(board: Board, points) -> frozenset[str]:
    return frozenset(board.name_of(p) for p in points)


def indices(board: Board, point_names) -> frozenset[int]:
    return frozenset(board.index(n) for n in point_names)


def as_reference(pos: Position) -> RefPos:
    """The reference's plain-data form of a Position, read through the public API."""
    b = pos.board
    return indices(b, pos.stones("L")), indices(b, pos.stones("D")), pos.to_move


def split(ref: RefPos, colour: str) -> tuple[frozenset, frozenset]:
    """(stones of ``colour``, stones of the other colour)."""
    light, dark, _ = ref
    return (light, dark) if colour == "L" else (dark, light)


def reference_outcome(board: Board, ref: RefPos, earlier: set) -> str | None:
    """The reference's result, with a repeated position a draw (RULES.md)."""
    if ref in earlier:
        return "draw"
    return R.outcome(board, *ref)


def kernel_points(pos: Position, cells) -> list[int]:
    """Board indices of points the kernels return in their own numbering."""
    return [int(core.tables(pos.board).point_of[c]) for c in cells]


def check_kernels(pos: Position, ref: RefPos, ref_moves: list[int]) -> None:
    """The stable kernels called directly on the Position's own arrays."""
    board = pos.board
    T, st_, side = core.tables(pos.board), pos.bitboards, pos.side_index
    assert core.phase(st_, side) == _PHASE_CODES[R.phase(board, *ref)]
    buf = np.full(64 * T.w + board.size, -1, dtype=np.int32)
    k = core.legal_moves(T, st_, side, buf)
    assert sorted(kernel_points(pos, buf[:k])) == ref_moves
    r = R.outcome(board, *ref)
    assert core.outcome(T, st_, side) == (core.NO_RESULT if r is None else COLOURS.index(r))
    for c, colour in enumerate(COLOURS):
        own, other = split(ref, colour)
        ref_groups = R.groups(board, own)
        label = np.full(64 * T.w + board.size, -1, dtype=np.int32)
        assert core.group_labels(T, st_, c, label) == len(ref_groups)
        # one label per group, distinct between groups
        labels_of = [{int(label[x]) for x in cells_of(pos, g)} for g in ref_groups]
        assert all(len(ls) == 1 for ls in labels_of)
        assert len(set().union(*labels_of)) == len(ref_groups)
        dead = R.dead_groups(board, own, other)
        assert kernel_dead(pos, c) == frozenset().union(*dead)


def cells_of(pos: Position, points) -> list[int]:
    return [int(core.tables(pos.board).cell_of[p]) for p in points]


def bits(bb) -> list[int]:
    """The set bits of a bitboard: a uint64 array or a tuple of words."""
    out = []
    for i, word in enumerate(bb):
        word = int(word)
        while word:
            low = word & -word
            out.append(64 * i + low.bit_length() - 1)
            word ^= low
    return out


def kernel_dead(pos: Position, c: int) -> frozenset[int]:
    """The dead-group kernel on the position: the points of ``c``'s dead groups."""
    bb = core.dead_bb(core.tables(pos.board), pos.bitboards, c)
    return frozenset(kernel_points(pos, bits(bb)))


def kernel_play(pos: Position, p: int) -> tuple[bool, frozenset[int], np.ndarray]:
    """The play kernel on a copy: (mover lost, removed points, the new array)."""
    st_ = pos.bitboards.copy()
    lost, removed = core.play(core.tables(pos.board), st_, pos.side_index, cells_of(pos, [p])[0])
    return bool(lost), frozenset(kernel_points(pos, bits(removed))), st_


def compare(pos: Position, ref: RefPos, earlier: set, rng: random.Random) -> str | None:
    """Assert that ``pos`` (core) and ``ref`` (reference) agree in every respect listed in
    the module docstring; return the reference's outcome."""
    board = pos.board
    assert as_reference(pos) == ref, "the core and the reference reached different positions"
    assert R.is_valid(board, *ref) is None
    assert pos.phase == R.phase(board, *ref)
    for colour in COLOURS:
        own, other = split(ref, colour)
        assert pos.groups(colour) == [names(board, g) for g in R.groups(board, own)], colour
        assert pos.dead_groups(colour) == [names(board, g) for g in R.dead_groups(board, own, other)], colour
    result = reference_outcome(board, ref, earlier)
    assert pos.outcome == result
    ref_moves = R.legal_moves(board, *ref)
    assert pos.legal_moves() == ([] if result else [board.name_of(p) for p in ref_moves])
    check_kernels(pos, ref, ref_moves)
    COMPARED[board.m] += 1
    if result is not None:
        RESULTS[result] += 1
        return result
    k = MOVES_PER_POSITION[board.m]
    sample = ref_moves if k is None or len(ref_moves) <= k else rng.sample(ref_moves, k)
    mover = ref[2]
    before, _ = split(ref, mover)
    for p in sample:
        child = pos.play(board.name_of(p))
        ref_child = R.play(board, *ref, p)
        after, _ = split(ref_child, mover)
        assert child.last_move == board.name_of(p)
        assert child.removed == names(board, (before | {p}) - after), board.name_of(p)
        RESULTS["removing moves"] += bool(child.removed)
        assert as_reference(child) == ref_child, board.name_of(p)
        assert child.outcome == reference_outcome(board, ref_child, earlier | {ref}), board.name_of(p)
        lost, removed, st_ = kernel_play(pos, p)
        assert removed == (before | {p}) - after, board.name_of(p)
        assert lost == (not after), board.name_of(p)
        assert st_.tobytes() == child.bitboards.tobytes()
    return None


def play_and_compare(m: int, seed: int, plies: int) -> tuple[Position, str | None]:
    """Play up to ``plies`` random moves on board ``m``, comparing at every ply."""
    board = Board.get(m)
    rng = random.Random(seed)
    pos, ref = Position.start(board), (E, E, "L")
    earlier: set = set()
    for ply in range(plies + 1):
        result = compare(pos, ref, earlier, rng)
        if result is not None or ply == plies:
            return pos, result
        earlier.add(ref)
        p = rng.choice(R.legal_moves(board, *ref))
        pos, ref = pos.play(board.name_of(p)), R.play(board, *ref, p)
    raise AssertionError("unreachable")


def selected_here(request) -> set[str]:
    """Names of this module's test functions selected in this run."""
    here = request.node.path
    return {getattr(item, "originalname", item.name) for item in request.session.items if item.path == here}


# -- the comparison ---------------------------------------------------------------------------


@pytest.mark.parametrize("m", BOARDS, ids=lambda m: f"{m}/{m + 1}")
def test_whole_games_agree(m):
    # a few complete games on each board first, so that every board gets its endings
    # compared whatever hypothesis draws below
    for seed in range(3):
        _, result = play_and_compare(m, seed, 10_000)
        assert result is not None


@pytest.mark.slow  # 180 s
@settings(max_examples=400)
@given(
    m=st.integers(MIN_M, MAX_M),
    seed=st.integers(0, 2**32 - 1),
    plies=st.integers(0, 250),
)
def test_random_positions_agree(m, seed, plies):
    play_and_compare(m, seed, plies)


@settings(max_examples=60)
@given(m=st.integers(2, 3), seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 30))
def test_perft_agrees_on_random_positions(m, seed, plies):
    # the compiled perft (its own loop over core.play and the move generator) against
    # the reference's recursive perft, a few plies below random positions
    pos, _ = play_and_compare(m, seed, plies)
    ref = as_reference(pos)
    depth = 3 if m == 2 else 2
    for d in range(depth + 1):
        expected = R.perft(pos.board, *ref, d)
        assert core.run_perft(pos.board, pos.bitboards, pos.side_index, d) == expected


def test_enough_positions_were_compared(request):
    """Runs last in the module: at least MIN_POSITIONS positions, and every board."""
    selected = selected_here(request)
    if not {"test_whole_games_agree", "test_random_positions_agree"} <= selected:
        pytest.skip("the comparison tests were not all selected in this run")
    total = sum(COMPARED.values())
    by_board = ", ".join(f"{m}/{m + 1}: {COMPARED[m]}" for m in BOARDS)
    print(f"\npositions compared between core and reference: {total} ({by_board})")
    assert total >= MIN_POSITIONS, by_board
    assert all(COMPARED[m] >= 5 for m in BOARDS), by_board
    # the games exercised removals and every kind of ending
    assert RESULTS["removing moves"] > 100 and RESULTS["L"] > 0 and RESULTS["D"] > 0, RESULTS


# -- worked facts of RULES.md, on the core's play -----------------------------------------------


def sees_friend_across_empty(board: Board, own: frozenset, other: frozenset, p: int) -> bool:
    """Whether the first stone along some ray from ``p`` is friendly and not adjacent."""
    for ray in board.rays[p]:
        for distance, q in enumerate(ray):
            if q in own or q in other:
                if q in own and distance >= 1:
                    return True
                break
    return False


@settings(max_examples=40)
@given(m=st.integers(2, MAX_M), seed=st.integers(0, 2**32 - 1))
def test_worked_facts_on_random_play(m, seed):
    board = Board.get(m)
    rng = random.Random(seed)
    pos = Position.start(board)
    while pos.outcome is None:
        mover, opponent = pos.to_move, "D" if pos.to_move == "L" else "L"
        own, other = split(as_reference(pos), mover)
        parent_groups = [indices(board, g) for g in pos.groups(mover)]
        moves = pos.legal_moves()
        for name in rng.sample(moves, min(len(moves), 6)):
            p = board.index(name)
            child = pos.play(name)
            gone = indices(board, child.removed)
            new_own, new_other = split(as_reference(child), mover)
            placed = own | {p}
            FACTS["moves"] += 1
            FACTS["removals"] += bool(gone)
            # only the mover's stones leave, and only the ones the board had
            assert new_other == other and gone <= placed and new_own == placed - gone
            # groups never split: each group is removed whole or not at all, the
            # placed stone's group included, and surviving groups only grow
            placed_groups = R.groups(board, placed)
            assert all(g <= gone or not g & gone for g in placed_groups)
            child_groups = [indices(board, g) for g in child.groups(mover)]
            for g in parent_groups:
                assert g <= gone or sum(g <= h for h in child_groups) == 1
            # removal never takes a path away (paths of the survivors are kept)
            assert R.paths(board, placed, other) <= R.paths(board, new_own, other)
            # a stone with no friendly neighbour that sees a friend across empty points
            # has a path to it and stays
            if not any(q in own for q in board.neighbours[p]) and sees_friend_across_empty(board, own, other, p):
                assert p not in gone
            # the player who just moved has no dead group left once past the opening
            if len(new_own) >= 2:
                assert child.dead_groups(mover) == []
            # the opponent's stones and groups are untouched
            assert child.groups(opponent) == pos.groups(opponent)
        pos = pos.play(rng.choice(moves))


def test_worked_facts_were_exercised(request):
    selected = selected_here(request)
    if "test_worked_facts_on_random_play" not in selected:
        pytest.skip("test_worked_facts_on_random_play was not selected in this run")
    print(f"\nworked facts checked on {FACTS['moves']} moves, {FACTS['removals']} of them removing stones")
    assert FACTS["moves"] > 1000 and FACTS["removals"] > 50, FACTS
