"""The OpenSpiel game (:mod:`solver.app.openspiel`) against the project's rules and the
networkx reference, move for move, and OpenSpiel's own consistency test.

Skipped without the optional extra (``pip install -e '.[openspiel]'``; the ``test`` extra
includes it, so CI runs these).
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import solver.app.openspiel as O  # noqa: E402  (after the skip: it imports pyspiel)
from solver import Board, Game, IllegalMoveError, Position  # noqa: E402
from solver.reference import rules as R  # noqa: E402
from solver.rules.record import GameRecord  # noqa: E402


def _load(m: int, pie: bool = False):
    return pyspiel.load_game("meridians", {"m": m, "pie": pie})


@pytest.mark.parametrize("m", [1, 2, 3])
@pytest.mark.parametrize("pie", [False, True])
def test_random_sim_test(m, pie):
    # OpenSpiel's own check: legal actions, clones, returns, observations, history, and
    # states serialized and read back
    pyspiel.random_sim_test(_load(m, pie), num_sims=10, serialize=True, verbose=False)


def test_parameters_and_sizes():
    game = pyspiel.load_game("meridians")  # the designer's board by default
    assert game.get_parameters() == {"m": 6, "pie": False}
    assert game.num_distinct_actions() == 114 and game.num_players() == 2
    assert game.observation_tensor_shape() == [O.PLANES, 114]
    g = pyspiel.load_game("meridians(m=3,pie=true)")
    assert g.get_parameters() == {"m": 3, "pie": True}
    assert g.num_distinct_actions() == 30 + 2  # every point, then keep and swap
    assert str(g.new_initial_state()).startswith("3/4/5/6/5/4/3 L")
    for bad in ({"m": 0}, {"m": 8}):
        with pytest.raises(O.MeridiansError, match="m is a whole number from 1 to 7"):
            O.MeridiansGame(bad)
    with pytest.raises(O.MeridiansError, match="not x"):
        O.MeridiansGame({"x": 1})
    with pytest.raises(O.MeridiansError):  # through OpenSpiel: the same error
        pyspiel.load_game("meridians", {"m": 9})


def test_length_bound_counts_positions():
    # the rules' bound: 2 * 3**N placements (positions never recur before the last one)
    assert [O.length_bound(m) for m in (1, 2)] == [2 * 3**4, 2 * 3**14]
    assert O.length_bound(3, pie=True) == 2 * 3**30 + 1
    assert _load(1).max_game_length() == 162 and _load(1, True).max_game_length() == 163
    assert _load(2).max_game_length() == 9_565_938
    # from 3/4 on the bound exceeds a C++ int: OpenSpiel holds the cap, where the game ends drawn
    assert O.length_bound(3) > O.LENGTH_CAP == _load(3).max_game_length() == 2**31 - 1


def test_a_game_that_reaches_the_cap_ends_drawn(monkeypatch):
    # the one departure from RULES.md (boards from 3/4 on): shown with a small cap
    rng = random.Random(3)
    moves: list[str] = []
    while len(moves) < 8:  # the first seeded random 3/4 game that the rules let go on past 5 plies
        pos, moves = Position.start("3/4"), []
        while pos.outcome is None:
            moves.append(rng.choice(pos.legal_moves()))
            pos = pos.play(moves[-1])
    monkeypatch.setattr(O, "LENGTH_CAP", 5)
    game = _load(3)
    state = game.new_initial_state()
    for move in moves[:5]:
        assert not state.is_terminal() and state.position.outcome is None
        state.apply_action(game.action(move))
    assert state.position.outcome is None  # the rules would go on
    assert state.is_terminal() and state.returns() == [0.0, 0.0] and state.legal_actions() == []


def _reference_reach(board, light, dark, colour):
    """The points ``colour`` could place on with that side to move (none when the game
    would be over), by the reference rules."""
    if R.outcome(board, light, dark, colour) is not None:
        return set()
    return set(R.legal_moves(board, light, dark, colour))


def _check_observation(state, board, light, dark, seat_of_light, choosing):
    for player in (0, 1):
        obs = np.asarray(state.observation_tensor(player)).reshape(O.PLANES, board.size)
        mine, theirs = ("L", "D") if player == seat_of_light else ("D", "L")
        stones = {"L": light, "D": dark}
        assert set(np.flatnonzero(obs[0])) == stones[mine]
        assert set(np.flatnonzero(obs[1])) == stones[theirs]
        assert set(np.flatnonzero(obs[2])) == _reference_reach(board, light, dark, mine)
        assert set(np.flatnonzero(obs[3])) == _reference_reach(board, light, dark, theirs)
        assert obs[4].tolist() == [float(choosing)] * board.size


def play_and_compare(m: int, pie: bool, seed: int, observe: bool) -> tuple[str, list[float]]:
    """One seeded random game played at once through OpenSpiel, the project's
    :class:`Game` and the reference rules (with its own record of positions for
    repetitions), compared after every action; the outcome and OpenSpiel's returns."""
    rng = random.Random(seed)
    game = _load(m, pie)
    board = Board.get(m)
    state = game.new_initial_state()
    ours = Game(board)
    light, dark, side = frozenset(), frozenset(), "L"
    seen = set()
    moves: list[str] = []
    swap = None
    while True:
        choosing = pie and len(moves) == 2 and swap is None
        if observe:
            _check_observation(state, board, light, dark, 1 if swap else 0, choosing)
        if choosing:  # the pie choice: the same position before and after it
            assert not state.is_terminal() and state.current_player() == 1
            assert [state.action_to_string(a) for a in state.legal_actions()] == ["keep", "swap"]
            swap = rng.random() < 0.5
            state.apply_action(game.num_distinct_actions() - 2 + swap)
            continue
        key = (light, dark, side)
        ref_over = key in seen or R.outcome(board, light, dark, side) is not None
        seen.add(key)
        legal = ours.position.legal_moves()
        assert state.is_terminal() == ref_over == (ours.outcome is not None), (seed, moves)
        if ref_over:
            assert legal == [] and state.legal_actions() == []
            break
        # who moves: with pie, player 0 places both first stones, then whoever holds the colour
        holder = {"L": 1 if swap else 0, "D": 0 if swap else 1}[side]
        assert state.current_player() == (0 if pie and len(moves) < 2 else holder)
        names = [state.action_to_string(a) for a in state.legal_actions()]
        assert names == legal == [board.name_of(p) for p in R.legal_moves(board, light, dark, side)]
        move = rng.choice(legal)
        state.apply_action(game.action(move))
        ours.play(move)
        light, dark, side = R.play(board, light, dark, side, board.index(move))
        moves.append(move)
        assert state.position == ours.position == Position(board, light, dark, side)
    outcome = ours.outcome
    assert outcome == ("draw" if (light, dark, side) in seen - {(light, dark, side)} or
                       R.outcome(board, light, dark, side) is None else R.outcome(board, light, dark, side))
    returns = state.returns()
    if pie:
        # the pie support of game records names who played which colour after the choice
        record = GameRecord({"Variant": "pie", "Light": "player 1" if swap else "player 0",
                             "Dark": "player 0" if swap else "player 1"},
                            Position.start(board), moves, result=outcome, swap=bool(swap))
        assert record.game().outcome == outcome
        players = record.players()
    else:
        players = {"L": "player 0", "D": "player 1"}
    expected = [0.0, 0.0]
    if outcome in ("L", "D"):
        winner = int(players[outcome][-1])
        expected = [1.0 if p == winner else -1.0 for p in (0, 1)]
    assert returns == expected
    assert state.move_number() == len(moves) + (1 if pie else 0) == len(state.history())
    return outcome, returns


@pytest.mark.parametrize("m, pie, games", [(2, False, 150), (2, True, 150), (3, False, 150), (3, True, 150)])
def test_random_games_move_for_move(m, pie, games):
    results = [play_and_compare(m, pie, seed, observe=seed < 20) for seed in range(games)]
    # the games are not all alike: both players win some (a test that could not fail otherwise)
    assert {o for o, _ in results} >= {"L", "D"}
    assert {tuple(r) for _, r in results} == {(1.0, -1.0), (-1.0, 1.0)}


def test_pie_choice_on_1_2_decides_the_winner():
    # on 1/2 Light's second stone never has a legal point: whoever takes Light loses
    for choice, winner in (("keep", 1), ("swap", 0)):
        game = _load(1, True)
        state = game.new_initial_state()
        state.apply_action(game.action("a1"))
        state.apply_action(game.action("c1"))
        assert not state.is_terminal() and state.current_player() == 1
        state.apply_action(game.action(choice))
        assert state.is_terminal() and state.returns()[winner] == 1.0


def test_repetition_is_a_draw_in_openspiel():
    # the 4-ply cycle of tests/test_position.py, from its start position put into a state
    # (test only: the OpenSpiel game starts from the empty board)
    start = Position.parse("4/5/1L3L/2D2D1/4D3/2DL3/L4L/2D1D/4 L")
    game = _load(4)
    state = game.new_initial_state()
    state._s.position = start
    for move in ["f5", "d6", "d4", "f3"]:
        assert not state.is_terminal()
        state.apply_action(game.action(move))
    assert state.position == start
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.legal_actions() == []


def test_clone_is_independent():
    game = _load(3)
    state = game.new_initial_state()
    for _ in range(3):
        state.apply_action(state.legal_actions()[-1])
    before = state.history()
    twin = state.clone()
    twin.apply_action(twin.legal_actions()[0])
    assert state.history() == before
    assert len(twin.history()) == 4 and len(twin.position.earlier()) == 4
    assert len(state.position.earlier()) == 3 and state.position != twin.position


def test_an_illegal_action_is_refused_with_the_rules_message():
    # OpenSpiel does not check a Python game's actions: the game does, with typed errors
    game = _load(2)
    state = game.new_initial_state()
    state.apply_action(game.action("c1"))
    state.apply_action(game.action("e2"))
    with pytest.raises(IllegalMoveError, match="rule 2"):
        state.apply_action(game.action("c2"))
    for bad in (14, 15, 10**6):
        with pytest.raises(O.MeridiansError, match="not an action of meridians on 2/3"):
            state.apply_action(bad)
    pie = _load(2, True)
    state = pie.new_initial_state()
    with pytest.raises(IllegalMoveError, match="right after the first two stones"):
        state.apply_action(pie.action("swap"))
    state.apply_action(pie.action("c1"))
    state.apply_action(pie.action("e2"))
    with pytest.raises(IllegalMoveError, match="is the action now"):
        state.apply_action(pie.action("c3"))
    assert state.history() == [pie.action("c1"), pie.action("e2")] and state.choosing
    state.apply_action(pie.action("swap"))
    assert state.light_player == 1 and state.current_player() == 1  # player 1 now plays Light's second stone


def test_the_match_script_writes_its_result_and_replays(tmp_path, monkeypatch, capsys):
    from conftest import load_script, run_script

    script = load_script("openspiel_match", monkeypatch, tmp_path)
    args = ("--board", "2/3", "--games", "3", "--simulations", "20", "--engine-playouts", "20", "--seed", "5")
    run_script(script, monkeypatch, *args)
    first = json.loads((tmp_path / "match-2-3.json").read_text())
    assert first["command"] == "python scripts/openspiel_match.py " + " ".join(args)
    assert first["revision"] and first["rules"] and first["open_spiel"]
    games = first["games"]
    assert [g["openspiel"] for g in games] == ["L", "D", "L"]  # colours alternate
    for g in games:
        # each game replays through the rules to its stated outcome and the bot's return
        pos = Position.start("2/3")
        for move in g["moves"]:
            pos = pos.play(move)
        assert pos.outcome == g["outcome"] and g["plies"] == len(g["moves"])
        want = 0.0 if g["outcome"] == "draw" else (1.0 if g["outcome"] == g["openspiel"] else -1.0)
        assert g["openspiel_return"] == want
    light, dark = first["openspiel_as_light"], first["openspiel_as_dark"]
    assert sum(light.values()) == 2 and sum(dark.values()) == 1
    assert first["openspiel_wins"] + first["draws"] + first["engine_wins"] == 3
    assert "3 games: OpenSpiel MCTS" in capsys.readouterr().out
    again = tmp_path / "again.json"
    run_script(script, monkeypatch, *args, "--out", str(again))  # seeded, playout budgets: the same games again
    assert [g["moves"] for g in json.loads(again.read_text())["games"]] == [g["moves"] for g in games]


def test_the_match_script_resumes_and_plays_at_equal_time(tmp_path, monkeypatch, capsys):
    from conftest import load_script, run_script

    script = load_script("openspiel_match", monkeypatch, tmp_path)
    out = tmp_path / "timed.json"
    args = ("--board", "2/3", "--seconds", "0.02", "--seed", "3", "--out", str(out))
    run_script(script, monkeypatch, *args, "--games", "2")
    first = json.loads(out.read_text())
    assert first["seconds_asked"] == 0.02 and first["engine_player"] == "engine:time=0.02"
    assert [g["index"] for g in first["games"]] == [0, 1]
    for g in first["games"]:
        assert g["moves_made"]["openspiel"] + g["moves_made"]["engine"] == g["plies"]
        assert g["openspiel_simulations"] >= g["moves_made"]["openspiel"]  # at least one simulation a move
    assert set(first["seconds_a_move"]) == {"openspiel", "engine"}
    capsys.readouterr()
    run_script(script, monkeypatch, *args, "--games", "3", "--jobs", "2")  # the first two games are kept
    assert "resuming: 2 games already in" in capsys.readouterr().err
    third = json.loads(out.read_text())
    assert third["games"][:2] == first["games"] and [g["index"] for g in third["games"]] == [0, 1, 2]
    # other settings: the file's games are not this run's, and the file is not overwritten
    assert script.main(["--board", "2/3", "--seconds", "0.03", "--seed", "3", "--out", str(out), "--games", "1"]) == 2
    assert "holds a match with other settings" in capsys.readouterr().err
    assert json.loads(out.read_text()) == third


def test_the_match_script_refuses_bad_options_in_one_line(tmp_path, monkeypatch, capsys):
    from conftest import load_script

    script = load_script("openspiel_match", monkeypatch, tmp_path)
    for argv in (["--board", "9/9"], ["--games", "0"], ["--simulations", "1"], ["--engine-playouts", "0"],
                 ["--seconds", "0"], ["--seconds", "soon"], ["--jobs", "0"]):
        assert script.main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("openspiel_match: ") and err.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_games_and_states_pickle_and_copy():
    import copy
    import pickle

    game = _load(2, True)
    assert copy.deepcopy(game) is game
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == "meridians(m=2,pie=True)" and again.action("swap") == 15
    state = game.new_initial_state()
    for name in ("c1", "e2", "swap", "c3"):
        state.apply_action(game.action(name))
    for twin in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state), state.clone()):
        assert twin.history() == state.history() and twin.position == state.position
        assert twin.light_player == 1 and twin.current_player() == state.current_player()
        assert twin.legal_actions() == state.legal_actions()


def test_ctrl_c_during_an_engine_move_stops_the_match_and_keeps_the_games(tmp_path, monkeypatch, capsys):
    import signal

    from conftest import load_script

    script = load_script("openspiel_match", monkeypatch, tmp_path)
    out = tmp_path / "stopped.json"
    real = script.choose_move

    def choose(*args, **kwargs):
        # Ctrl-C during the engine's search once the first game is saved: the engine
        # swallows the KeyboardInterrupt and answers with its move so far
        if out.exists():
            try:
                script._on_ctrl_c(signal.SIGINT, None)
            except KeyboardInterrupt:
                pass
        return real(*args, **kwargs)

    monkeypatch.setattr(script, "choose_move", choose)
    before = signal.getsignal(signal.SIGINT)
    code = script.main(["--board", "2/3", "--games", "3", "--simulations", "20", "--engine-playouts", "20",
                        "--out", str(out)])
    assert code == 130 and "the same command resumes" in capsys.readouterr().err
    assert [g["index"] for g in json.loads(out.read_text())["games"]] == [0]  # the finished game is kept
    assert signal.getsignal(signal.SIGINT) is before  # the handler is put back
