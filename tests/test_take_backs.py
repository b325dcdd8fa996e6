"""The extend generator's take-backs (puzzles.generate.take_backs) against a slow twin
on the networkx reference rules: the same move pairs, each leading back to the
position, each reply parrying a capture the reference search finds."""
from __future__ import annotations

from pathlib import Path

import pytest

from puzzles import generate as G
from puzzles.record import load_jsonl
from puzzles.reference import capture_within
from solver import Board, Position
from solver.reference import rules as R

from test_generate import _position

#: the committed sets, whatever the current folder
SETS = Path(__file__).resolve().parent.parent / "results" / "puzzles"


def _near(board: Board, cells: set[int], steps: int) -> set[int]:
    for _ in range(steps):
        cells = cells | {q for p in cells for q in board.neighbours[p]}
    return cells


def _slow_take_backs(pos: Position, target: str, k: int) -> dict[str, Position]:
    """Every (a, d) of the definition, tried one by one with the reference rules."""
    b = pos.board
    x = pos.to_move
    light, dark = frozenset(map(b.index, pos.stones("L"))), frozenset(map(b.index, pos.stones("D")))
    xs, ys = (light, dark) if x == "L" else (dark, light)
    t = b.index(target)
    group = next(g for g in R.groups(b, ys) if t in g)
    near = _near(b, set(group), 2)

    def split(own, other):  # (light, dark) of X's stones own and Y's other
        return (own, other) if x == "L" else (other, own)

    out = {}
    for d in ys:
        if d == t or d not in near:
            continue
        lw, dw = split(xs, ys - {d})
        if R.is_valid(b, lw, dw, x) is not None or R.outcome(b, lw, dw, x) is not None:
            continue
        if not capture_within(b, lw, dw, x, t, k):
            continue
        for a in xs:
            if a not in near:
                continue
            lq, dq = split(xs - {a}, ys - {d})
            if R.is_valid(b, lq, dq, x) is not None or R.outcome(b, lq, dq, x) is not None:
                continue
            if a not in R.legal_moves(b, lq, dq, x):
                continue
            l1, d1, y = R.play(b, lq, dq, x, a)
            if R.outcome(b, l1, d1, y) is not None or d not in R.legal_moves(b, l1, d1, y):
                continue
            if R.play(b, l1, d1, y, d) != (light, dark, x):
                continue
            out[f"-{b.name_of(a)}-{b.name_of(d)}"] = Position(b, set(map(b.name_of, lq)), set(map(b.name_of, dq)), x)
    return out


def _cases():
    for seed in range(1, 25):
        pos = _position("3/4", seed)
        for target in G._defender_targets(pos):
            yield pos, target, 1
    for seed in range(1, 8):
        pos = _position("4/5", seed)
        for target in G._defender_targets(pos):
            yield pos, target, 1
    for p in load_jsonl(SETS / "4-5-c2.jsonl")[40:70]:  # (n-1)-movers, as the generator takes them back
        yield p.to_position(), p.target, p.n - 1


def test_take_backs_are_exactly_the_slow_twins_move_pairs():
    listed = 0
    for pos, target, k in _cases():
        b = pos.board
        got = G.take_backs(pos, target, k)
        want = _slow_take_backs(pos, target, k)
        assert sorted(c for c, _ in got) == sorted(want), (str(pos), target, k)
        for label, q in got:
            assert q.key == want[label].key and q.to_move == pos.to_move
        group = next(g for g in pos.groups("D" if pos.to_move == "L" else "L") if target in g)
        touching = _near(b, {b.index(s) for s in group}, 1)
        ranks = [sum(b.index(s) not in touching for s in label[1:].split("-")) for label, _ in got]
        assert ranks == sorted(ranks), "the pairs nearest the group come first"
        listed += len(got)
    assert listed >= 20, "the cases hold take-backs to compare"


def test_a_take_back_leads_back_to_the_position_by_its_two_moves():
    p = load_jsonl(SETS / "4-5-c2.jsonl")[52]
    pos = p.to_position()
    backs = G.take_backs(pos, p.target, 1)
    assert backs
    for label, q in backs:
        a, d = label[1:].split("-")
        assert q.play(a).play(d).key == pos.key


@pytest.mark.parametrize("n", [2])
def test_extend_takes_nothing_back_below_three_moves(n, monkeypatch):
    # k = n - 2 moves of threat: a 2-mover's parent (a 1-mover) has no take-back to try
    calls = []
    monkeypatch.setattr(G, "take_backs", lambda *a: calls.append(a) or [])
    p = load_jsonl(SETS / "4-5-c1.jsonl")[0]
    G.extend_unit(Board.parse("4/5"), n, 1, "test", source=("parents", p), fast=True, tries=2)
    assert calls == []


def test_extend_tries_the_take_backs_first_then_the_one_point_changes(monkeypatch):
    p = load_jsonl(SETS / "4-5-c2.jsonl")[52]
    pos = p.to_position()
    want = [q.key for _, q in G.take_backs(pos, p.target, 1) + G.one_point_changes(pos, p.target)]
    tried = []
    monkeypatch.setattr(G, "check", lambda cand, *a, **k: tried.append(cand.key) or (None, "escapes"))
    out = G.extend_unit(Board.parse("4/5"), 3, 1, "test", source=("parents", p), fast=True, tries=8)
    assert tried == want[:8] and out.candidates == 8 and not out.puzzles
