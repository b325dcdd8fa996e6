"""Near-duplicate puzzles (:mod:`puzzles.similar`) and the generator's rule against them.

The counts are checked against a brute-force twin that compares the stone sets of every
pair of positions (the symmetric differences of the Light and Dark stones), on positions
of random games where near pairs are common (later plies of one game) and boards mixed.
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from puzzles import generate as G
from puzzles.record import Puzzle, load_jsonl
from puzzles.similar import (
    WITHIN, BoardMismatchError, NearIndex, difference, duplicate_rate, near_duplicates,
)
from solver import Position


def _brute(a: Position, b: Position) -> int:
    diff = (a.stones("L") ^ b.stones("L")) | (a.stones("D") ^ b.stones("D"))
    return len(diff)


def _random_positions(rng: random.Random, count: int) -> list[Position]:
    """Positions of a few random games on 2/3 and 3/4: several plies of each game, so
    that many pairs differ in a few points."""
    out: list[Position] = []
    while len(out) < count:
        pos = Position.start(rng.choice(["2/3", "3/4"]))
        while pos.outcome is None and len(out) < count:
            pos = pos.play(rng.choice(pos.legal_moves()))
            if pos.outcome is None and rng.random() < 0.5:
                out.append(pos)
    rng.shuffle(out)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_the_counts_agree_with_a_brute_force_twin(seed):
    rng = random.Random(seed)
    ps = _random_positions(rng, 40)
    within = rng.choice([0, 1, 3, WITHIN])
    brute = [(i, j) for j in range(len(ps)) for i in range(j)
             if ps[i].board.name == ps[j].board.name and _brute(ps[i], ps[j]) <= within]
    assert near_duplicates(ps, within) == sorted(brute)
    later = {j for _, j in brute}
    assert duplicate_rate(ps, within) == len(later) / len(ps)
    # the notation and the puzzle record give the same counts as the position
    texts = [str(p) for p in ps]
    assert near_duplicates(texts, within) == sorted(brute)
    for i, j in [(0, 1), (2, 3), (4, 5)]:
        if ps[i].board.name == ps[j].board.name:
            assert difference(texts[i], ps[j]) == _brute(ps[i], ps[j])
    # the growing index finds the first near position held, as the pairs say
    by_board: dict[str, NearIndex] = {}
    for j, p in enumerate(ps):
        ix = by_board.setdefault(p.board.name, NearIndex(within=within))
        held = [i for i in range(j) if ps[i].board.name == p.board.name]
        first = next((k for k, i in enumerate(held) if (i, j) in set(brute)), None)
        assert ix.near(p) == first
        ix.add(p)


def test_the_side_to_move_counts_for_nothing_and_each_stone_counts_once():
    a = Position.parse("2/1D1/4/L2/2 L")
    assert difference(a, "2/1D1/4/L2/2 D") == 0
    assert difference(a, "2/1L1/4/L2/2 L") == 1     # Dark stone became Light: one point
    assert difference(a, "2/3/4/3/2 L") == 2        # two stones gone
    assert difference(a, a) == 0


def test_positions_of_different_boards_are_a_typed_error():
    with pytest.raises(BoardMismatchError, match="2/3.*3/4") as e:
        difference("2/1D1/4/L2/2 L", str(Position.start("3/4")))
    assert isinstance(e.value, ValueError)
    ix = NearIndex(["2/1D1/4/L2/2 L"])
    with pytest.raises(BoardMismatchError):
        ix.near(Position.start("3/4"))
    assert near_duplicates(["2/1D1/4/L2/2 L", str(Position.start("3/4"))], within=100) == []
    assert duplicate_rate([]) == 0.0


def test_the_keeper_refuses_a_second_puzzle_of_a_region_and_near_copies():
    far_a = Puzzle(id="a", position="2/1D1/4/L2/2 L", target="d2", n=1)
    k = G.Keeper([], within=0)
    assert k.refusal(far_a, 5, "d2") is None
    k.keep(far_a, 5, "d2")
    other = Puzzle(id="b", position="2/3/4/3/L1 L", target="x", n=1)  # not validated here
    assert k.refusal(other, 5, "d2") == "region"       # same seed game and region
    assert k.refusal(other, 6, "d2") is None           # another seed game
    assert k.refusal(other, 5, "c1") is None           # another region
    assert k.refusal(dataclasses.replace(far_a, position="2/1D1/4/L2/2 D"), 6, "c1") == "near"


def _without_one_attacker_stone(p: Puzzle, k: int) -> str:
    """The puzzle's position with the ``k``-th stone (modulo their number) of the side
    to move taken away: still a valid position (taking an attacker's stone only opens
    the defender's lines), one point away."""
    pos = p.to_position()
    x = pos.to_move
    stones = sorted(pos.stones(x), key=pos.board.index)
    drop = stones[k % len(stones)]
    text = str(Position(pos.board, pos.stones("L") - {drop}, pos.stones("D") - {drop}, x))
    assert difference(text, pos) == 1
    return text


def test_a_generation_run_keeps_no_near_duplicates_even_when_they_are_planted(tmp_path, monkeypatch):
    out = str(tmp_path / "s.jsonl")
    st = G.generate("4/5", 1, 2, out, seed=9, method="baseline")
    first = load_jsonl(out)
    assert len(first) == 2
    # the baseline offers every group of a seed position, all in one position: the
    # second and later of them are refused
    assert st["near_duplicates"] > 0
    real = G.run_unit
    planted: list[str] = []

    def run_unit(method, board_name, n, unit_seed, version, *where):
        r = real(method, board_name, n, unit_seed, version, *where)
        # copies, one point away, of the puzzles the file held before (a resumed run
        # knows them only from the file), first in the unit and each in a region of
        # its own so that only the distance can refuse them
        for k, v in enumerate(first):
            copy = dataclasses.replace(v, position=_without_one_attacker_stone(v, unit_seed))
            planted.append(copy.position)
            r.puzzles.insert(k, copy)
            r.regions.insert(k, f"planted-{k}")
        return r

    monkeypatch.setattr(G, "run_unit", run_unit)
    st = G.generate("4/5", 1, 5, out, seed=9, method="baseline")
    kept = load_jsonl(out)
    assert len(kept) == 5 and [p.to_dict() for p in kept[:2]] == [p.to_dict() for p in first]
    assert near_duplicates(kept) == []
    assert not {p.position for p in kept} & set(planted)
    state = json.loads((tmp_path / "s.jsonl.state.json").read_text())
    assert state["near_duplicates"] == st["near_duplicates"] >= len(set(planted)) > 0
