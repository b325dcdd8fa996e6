"""Golden games: random games played by the reference, replayed through Game and Position.

tests/data/golden_games.json is written by ``python scripts/make_test_data.py`` with
:mod:`solver.reference` only.  Every move must be legal here too, remove the same stones,
and the game must end in the same position with the same result.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solver import Board, Game, Position

DATA = json.loads((Path(__file__).parent / "data" / "golden_games.json").read_text(encoding="utf-8"))
GAMES = DATA["games"]
IDS = [f"{g['board']}-seed{g['seed']}" for g in GAMES]


def test_data_file():
    assert DATA["computed_with"] == "solver.reference"
    assert len(GAMES) >= 20
    for board in ("2/3", "3/4", "4/5", "6/7"):
        games = [g for g in GAMES if g["board"] == board]
        assert any(g["result"] in ("L", "D") for g in games), board
    for g in GAMES:
        assert g["plies"] == len(g["moves"])
        assert g["result"] is not None or g["plies"] == g["max_plies"]
    assert any(g["removals"] for g in GAMES)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_replay_through_game(game):
    g = Game(Board.parse(game["board"]))
    assert g.position == Position.start(Board.parse(game["board"])) and g.moves == []
    for ply, move in enumerate(game["moves"], start=1):
        assert g.outcome is None, ply
        assert move in g.position.legal_moves(), (ply, move)
        pos = g.play(move)
        assert pos.last_move == move
        assert sorted(pos.removed) == game["removals"].get(str(ply), []), ply
    assert g.moves == game["moves"]
    assert len(g.positions) == game["plies"] + 1
    assert str(g.position) == game["final"]
    assert g.outcome == game["result"]
    if game["result"] is not None:
        assert g.position.legal_moves() == []
        assert g.position.outcome_reason


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_replay_through_positions(game):
    # the same with bare Positions, and the final position read back from its notation
    pos = Position.start(game["board"])
    for move in game["moves"]:
        pos = pos.play(move)
    final = Position.parse(game["final"])
    assert pos == final
    assert pos.outcome == game["result"]
    # without the history a repetition would not be seen, the rest is the same
    if game["result"] != "draw":
        assert final.outcome == game["result"]


@pytest.mark.parametrize("game", [g for g in GAMES if g["board"] in ("2/3", "4/5")], ids=lambda g: f"{g['board']}-seed{g['seed']}")
def test_replay_through_the_command(game, run_cli):
    # `meridians play --moves` validates and plays the moves; with --max-plies at the
    # game's length no random move follows, and the result line is the golden one
    args = ["play", "--board", game["board"], "--moves", ",".join(game["moves"]), "--max-plies", str(game["plies"])]
    result = run_cli(*args, "--seed", "1", code=0)
    lines = result.stdout.strip().splitlines()
    n = game["plies"]
    assert f"final position: {game['final']}" in lines
    expected = {
        None: f"stopped after {n} moves, no result yet",
        "L": f"Light wins after {n} moves",
        "D": f"Dark wins after {n} moves",
        "draw": f"draw by repetition after {n} moves",
    }[game["result"]]
    assert lines[-1].startswith(expected)
    # one line per move, with the removals
    for ply, move in enumerate(game["moves"], start=1):
        mover = "L" if ply % 2 else "D"
        gone = game["removals"].get(str(ply))
        line = f"{ply:4d}. {mover} {move}" + (f"  removes {' '.join(gone)}" if gone else "")
        assert line in lines
