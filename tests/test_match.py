"""Matches (solver.app.match, ``meridians match``): players, the Elo interval, seeded games."""

from __future__ import annotations

import json

import pytest

from solver.app.match import Player, elo, engine_of, parse_player, play_game, run_match
from solver.search import mcts
from solver.search.limit import Limit


def test_players_are_parsed_with_their_budgets():
    assert parse_player("random") == Player("random", "random")
    assert parse_player("engine") == Player("engine", "engine", Limit(seconds=1.0), 20_000)
    assert parse_player("engine:time=0.5,dfpn=0") == Player("engine:time=0.5,dfpn=0", "engine", Limit(seconds=0.5), 0)
    assert parse_player("mcts-flat:playouts=300") == Player("mcts-flat:playouts=300", "mcts-flat", Limit(playouts=300))
    assert parse_player("mcts:time=2") == Player("mcts:time=2", "mcts", Limit(seconds=2.0))
    assert parse_player("uct:time=0.2,dfpn=5") == Player("uct:time=0.2,dfpn=5", "uct", Limit(seconds=0.2), 5)
    tuned = parse_player("engine:playouts=9,select=bias,cp=2,fpu=-0.5,c=0.4,expand=3,workers=2")
    assert tuned.tune == (("expand_at", 3), ("exploration", 0.4), ("fpu", -0.5), ("prior_c", 2.0), ("select", "bias"),
                          ("workers", 2))
    assert engine_of(tuned, 1).options() == {**mcts.Engine(seed=1).options(), **dict(tuned.tune)}
    assert engine_of(parse_player("uct"), 1).select == "uct"


@pytest.mark.parametrize("spec", ["", "alphazero", "random:time=1", "engine:time=nan", "engine:time=0",
                                  "engine:time=x", "engine:playouts=0", "engine:playouts=1.5", "engine:depth=3",
                                  "engine:time", "mcts-flat:dfpn=3", "engine:dfpn=-1", "uct:select=puct",
                                  "engine:select=alphazero", "engine:cp=-1", "engine:fpu=nan", "engine:expand=1.5",
                                  "mcts:cp=1", "engine:workers=0", "engine:workers=1.5", "uct:workers=2"])
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


def test_match_command_json(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default state file goes to the state folder (conftest): none here
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


# -- parallel games, the state file, records (``--jobs``, ``--state``, ``--records``) -------------
ENGINE = "engine:playouts=40,dfpn=500"


def _state_games(path) -> list[dict]:
    return json.loads(path.read_text())["games"]


def test_jobs_do_not_change_the_results(run_cli, tmp_path, monkeypatch):
    # each game's seed is its index's: two worker processes play the same games as one process
    monkeypatch.chdir(tmp_path)
    runs = {}
    for jobs in (1, 2):
        out = run_cli("match", ENGINE, "mcts-flat:playouts=20", "--board", "3/4", "--games", "4", "--jobs", jobs,
                      "--json", "--state", f"s{jobs}.json", code=0).stdout
        runs[jobs] = json.loads(out)
        assert runs[jobs].pop("state") == f"s{jobs}.json"
    assert runs[1] == runs[2] and runs[1]["games"] == 4
    assert _state_games(tmp_path / "s1.json") == _state_games(tmp_path / "s2.json")


def test_a_stopped_match_resumes_to_the_same_table(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["match", ENGINE, "random", "--board", "3/4", "--seed", "5"]
    whole = run_cli(*args, "--games", "5", "--state", "whole.json", code=0).stdout
    # a shorter match, then the longer one from its state: only the missing games are played
    run_cli(*args, "--games", "2", "--state", "part.json", code=0)
    first = _state_games(tmp_path / "part.json")
    assert [g["index"] for g in first] == [0, 1]
    resumed = run_cli(*args, "--games", "5", "--state", "part.json", code=0)
    assert "resumed 2 finished games of 5 from part.json" in resumed.stderr
    table = [line for line in resumed.stdout.splitlines()[1:] if not line.startswith("  state:")]
    assert table == [line for line in whole.splitlines()[1:] if not line.startswith("  state:")]
    assert _state_games(tmp_path / "part.json")[:2] == first
    assert _state_games(tmp_path / "part.json") == _state_games(tmp_path / "whole.json")


def test_ctrl_c_keeps_the_finished_games(run_cli, tmp_path, monkeypatch, state_folder):
    import solver.app.match as match_module

    monkeypatch.chdir(tmp_path)
    play = match_module.play_indexed

    def stopped_at_2(a, b, board, seed, index, parent_pid=None):
        if index == 2:
            raise KeyboardInterrupt
        return play(a, b, board, seed, index)

    args = ["match", "random", ENGINE, "--board", "3/4", "--games", "4", "--seed", "3"]
    monkeypatch.setattr(match_module, "play_indexed", stopped_at_2)
    r = run_cli(*args, code=130)
    default = next(state_folder.glob("match-3-4-*.json"))
    assert r.stderr.strip().splitlines()[-1] == (f"meridians: interrupted with 2 of 4 games finished; run the same "
                                                 f"command to resume from {default}")
    assert not (tmp_path / ".meridians").exists()
    assert [g["index"] for g in _state_games(default)] == [0, 1]
    monkeypatch.setattr(match_module, "play_indexed", play)
    d = json.loads(run_cli(*args, "--json", code=0).stdout)
    assert d["resumed"] == 2 and d["games"] == 4 and d["state"] is None
    assert not default.exists()  # the default state file is removed once the match is over
    again = json.loads(run_cli(*args, "--json", code=0).stdout)  # played from the start
    assert again["resumed"] == 0 and again["results"] == d["results"]


def test_a_state_file_of_another_match_is_refused(run_cli, tmp_path):
    state = tmp_path / "s.json"
    run_cli("match", "random", "random", "--board", "3/4", "--games", "2", "--state", state, code=0)
    before = state.read_text()
    for other in (["--seed", "2"], ["--board", "2/3"]):
        r = run_cli("match", "random", "random", "--board", "3/4", "--games", "2", *other, "--state", state, code=2)
        assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1 and "another match" in r.stderr
    r = run_cli("match", "random", ENGINE, "--board", "3/4", "--games", "2", "--state", state, code=2)
    assert len(r.stderr.strip().splitlines()) == 1 and "another match" in r.stderr
    assert state.read_text() == before  # refused, not written over


def _corrupt(kind: str, data: dict) -> str:
    g = data["games"][0]
    if kind == "truncated":
        return json.dumps(data)[:80]
    if kind == "not a state":
        return json.dumps({"format": "something else"})
    if kind == "illegal move":
        g["moves"][1] = g["moves"][0]
    elif kind == "wrong outcome":
        g["outcome"] = "draw"
    elif kind == "moves cut":
        g["moves"] = g["moves"][:-1]
    elif kind == "colours":
        g["light"], g["dark"] = g["dark"], g["light"]
    elif kind == "twice":
        data["games"].append(dict(g))
    elif kind == "index":
        g["index"] = True
    return json.dumps(data)


@pytest.mark.parametrize("kind", ["truncated", "not a state", "illegal move", "wrong outcome", "moves cut",
                                  "colours", "twice", "index"])
def test_a_corrupt_state_file_is_one_line(run_cli, tmp_path, kind):
    state = tmp_path / "s.json"
    args = ["match", "random", "mcts-flat:playouts=5", "--board", "2/3", "--games", "2", "--state", state]
    run_cli(*args, code=0)
    state.write_text(_corrupt(kind, json.loads(state.read_text())))
    r = run_cli(*args, code=2)
    assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1 and str(state) in r.stderr


def test_records_are_written_and_read_back(run_cli, tmp_path):
    from solver.rules.record import parse_record

    state, records = tmp_path / "s.json", tmp_path / "games"
    flat = "mcts-flat:playouts=20"
    args = ["match", flat, "random", "--board", "3/4", "--games", "3", "--state", state, "--records", records]
    run_cli(*args, code=0)
    games = _state_games(state)
    assert sorted(p.name for p in records.iterdir()) == ["game-0001.txt", "game-0002.txt", "game-0003.txt"]
    for g in games:
        path = records / f"game-{g['index'] + 1:04d}.txt"
        rec = parse_record(path.read_text())  # every move replayed, the result checked against the end
        assert rec.moves == g["moves"] and rec.result == g["outcome"] and rec.board.name == "3/4"
        assert (rec.headers["Light"], rec.headers["Dark"]) == (g["light"], g["dark"])
        assert f"game {g['index'] + 1}" in rec.headers["Source"] and "--seed 1" in rec.headers["Source"]
        shown = run_cli("show", "--game", path, code=0).stdout
        assert f"Light: {g['light']}" in shown and f"Result: {g['outcome']}" in shown
    assert (games[0]["light"], games[1]["light"]) == (flat, "random")
    run_cli("verify", "--game", records / "game-0002.txt", code=0)
    # a resumed match writes the records that are missing, and leaves the others
    (records / "game-0002.txt").unlink()
    kept = (records / "game-0001.txt").stat().st_mtime_ns
    run_cli(*args, code=0)
    assert parse_record((records / "game-0002.txt").read_text()).moves == games[1]["moves"]
    assert (records / "game-0001.txt").stat().st_mtime_ns == kept


@pytest.mark.parametrize("jobs", ["0", "-1", "257", "two"])
def test_bad_jobs_are_refused(run_cli, tmp_path, jobs):
    r = run_cli("match", "random", "random", "--board", "2/3", "--jobs", jobs, "--state", tmp_path / "s.json", code=2)
    assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1 and "--jobs" in r.stderr
    assert not (tmp_path / "s.json").exists()


def test_a_state_file_in_use_is_refused(run_cli, tmp_path):
    from solver.app.match import MatchState

    state = tmp_path / "s.json"
    other = MatchState(state, parse_player("random"), parse_player("random"), "2/3", 1)
    other.acquire()  # another run of this match holds it
    try:
        r = run_cli("match", "random", "random", "--board", "2/3", "--games", "2", "--state", state, code=2)
        assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1 and "in use" in r.stderr
    finally:
        other.release()
    run_cli("match", "random", "random", "--board", "2/3", "--games", "2", "--state", state, code=0)
    assert not (tmp_path / "s.json.lock").exists()
