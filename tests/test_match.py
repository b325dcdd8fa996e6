"""Matches (solver.match, ``meridians match``): players, the Elo interval, seeded games."""

from __future__ import annotations

import json

import pytest

from solver.match import Player, elo, parse_player, play_game, run_match


def test_players_are_parsed_with_their_budgets():
    assert parse_player("random") == Player("random", "random")
    assert parse_player("engine") == Player("engine", "engine", 1.0, None, 20_000)
    assert parse_player("engine:time=0.5,dfpn=0") == Player("engine:time=0.5,dfpn=0", "engine", 0.5, None, 0)
    assert parse_player("mcts-flat:playouts=300") == Player("mcts-flat:playouts=300", "mcts-flat", None, 300)
    assert parse_player("mcts:time=2") == Player("mcts:time=2", "mcts", 2.0, None)


@pytest.mark.parametrize("spec", ["", "alphazero", "random:time=1", "engine:time=nan", "engine:time=0",
                                  "engine:time=x", "engine:playouts=0", "engine:playouts=1.5", "engine:depth=3",
                                  "engine:time", "mcts-flat:dfpn=3", "engine:dfpn=-1"])
def test_bad_players_are_refused(spec):
    with pytest.raises(ValueError):
        parse_player(spec)


def test_the_elo_interval():
    for score, n in ((0.75, 100), (0.3, 20), (0.5, 10)):
        d, lo, hi = elo(score, n)
        assert lo < d < hi or (score == 0.5 and lo < 0 == d < hi)
        d2, lo2, hi2 = elo(1 - score, n)
        assert d2 == pytest.approx(-d) and lo2 == pytest.approx(-hi) and hi2 == pytest.approx(-lo)
        assert elo(score, 4 * n)[2] - elo(score, 4 * n)[1] < hi - lo  # more games, narrower
    d, lo, hi = elo(1.0, 10)
    assert d is None and hi is None and lo > 0


def test_a_seeded_match_replays_and_adds_up():
    a, b = parse_player("engine:playouts=100,dfpn=0"), parse_player("random")
    r = run_match(a, b, "3/4", 4, seed=2)
    assert r.games == 4 == r.a_wins + r.b_wins + r.draws == len(r.results)
    assert r.a_light_wins <= r.a_wins and r.b_light_wins <= r.b_wins
    assert run_match(a, b, "3/4", 4, seed=2).results == r.results
    outcome, moves = play_game(a, b, "3/4", 7)
    assert outcome in ("L", "D", "draw") and moves and (outcome, moves) == play_game(a, b, "3/4", 7)


def test_match_command_json(run_cli):
    d = json.loads(run_cli("match", "engine:playouts=50,dfpn=2000", "random", "--board", "3/4", "--games", "2", "--json",
                           code=0).stdout)
    assert {"games", "a_wins", "b_wins", "draws", "elo", "elo_low", "elo_high"} <= set(d)
    assert d["games"] == 2 == d["a_wins"] + d["b_wins"] + d["draws"]
    text = run_cli("match", "mcts-flat:playouts=50", "random", "--board", "3/4", "--games", "2", code=0).stdout
    assert "Elo difference" in text and "mcts-flat:playouts=50" in text


@pytest.mark.parametrize("args", [["chess", "random"], ["engine:time=-1", "random"], ["random", "random", "--games", "0"],
                                  ["random", "random", "--board", "9/10"], ["random"]])
def test_match_command_bad_input(run_cli, args):
    r = run_cli("match", *args, code=2)
    assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1
