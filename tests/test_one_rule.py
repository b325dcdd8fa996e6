"""The shared vocabulary has one rule each: the value of a finished game
(:meth:`Value.from_outcome`) and the provenance stamp with its rule for ``-dirty``
(:mod:`solver.provenance`) are written once, and every user goes through them."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = [p for d in ("solver", "puzzles", "scripts") for p in sorted((ROOT / d).rglob("*.py"))]

# a hand-written conversion of an outcome ('L', 'D', 'draw') into a value for the player
# to move: "win" if outcome == to_move else "loss"
_OUTCOME_TO_VALUE = re.compile(r'"win" if [^\n]{0,60}== [^\n]{0,40}to_move else "loss"')


def test_outcomes_become_values_only_through_value_from_outcome():
    found = [f"{p.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}"
             for p in CODE for text in [p.read_text(encoding="utf-8")] for m in _OUTCOME_TO_VALUE.finditer(text)]
    assert not found, f"use Value.from_outcome instead: {found}"


def test_prove_of_a_finished_game_is_its_value_from_outcome():
    from solver import Board, Position
    from solver.search.prove import prove
    from solver.search.values import Value

    pos = Position.start(Board.parse("1/2"))
    while pos.outcome is None:
        pos = pos.play(pos.legal_moves()[0])
    proof = prove(pos, method="alphabeta", tt_mb=1)
    assert proof.value == Value.from_outcome(pos.outcome, pos.to_move) and proof.nodes == 0
