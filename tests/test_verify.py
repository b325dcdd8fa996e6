"""Verifying claims (solver/app/verify.py) and the commands ``meridians verify`` and
``meridians check`` (solver/cli/solving.py)."""

from __future__ import annotations

import json

import pytest

from solver import Board, Position
from solver.rules.randomgame import random_game
from solver.app.verify import GameRecordError, parse_game, reaches, replay, start_position, territory, verify_position
from solver.search.limit import Limit

EMPTY_23 = "2/3/4/3/2 L"


# -- the library ------------------------------------------------------------------------------


def test_verify_position_verdicts():
    pos = Position.parse(EMPTY_23)
    assert verify_position(pos, claim="win").verdict == "proven"
    r = verify_position(pos, claim="loss")
    assert (r.value, r.verdict, r.method) == ("win", "refuted", "dfpn")
    assert r.line[0] and r.nodes > 0
    assert verify_position(pos).verdict == "proven"          # no claim: the value found
    assert verify_position(pos, claim="draw").verdict == "refuted"
    with pytest.raises(ValueError):
        verify_position(pos, claim="maybe")


def test_verify_unknown_with_horizon():
    r = verify_position(Position.start(Board.parse("3/4")), limit=Limit(seconds=1.0), max_plies=4)
    assert (r.value, r.verdict, r.method) == ("unknown", "unknown", "horizon")
    assert 0 < r.horizon <= 4
    assert any("df-pn did not decide" in n for n in r.notes)


def test_parse_game_formats():
    text = "# a game\n2/3\n1. c2, c3\n2. e2 e1\nb2\nresult: Light\n"
    assert parse_game(text) == ("2/3", ["c2", "c3", "e2", "e1", "b2"], "L")
    assert parse_game("c1,e2\n") == (None, ["c1", "e2"], None)
    assert parse_game("2/3/L3/3/2 D\ne2\nresult draw") == ("2/3/L3/3/2 D", ["e2"], "draw")
    with pytest.raises(GameRecordError, match="result must be"):
        parse_game("c1\nresult: nobody")


def test_replay_names_the_first_illegal_move():
    with pytest.raises(GameRecordError, match=r"move 3 \(c2\) is illegal for Light to move in 1D/3/L3/3/2 L: c2 does not see"):
        replay(start_position(None, "2/3"), ["c1", "e2", "c2", "a1"])
    g = replay(start_position("2/3", None), ["c1", "e2"])
    assert str(g.position) == "1D/3/L3/3/2 L"


# -- meridians verify ---------------------------------------------------------------------------


def test_cli_verify_exit_codes(run_cli):
    out = run_cli("verify", EMPTY_23, "--claim", "win", code=0).stdout
    assert out.splitlines()[0] == f"{EMPTY_23}: Light to move: win"
    assert "verdict: proven (claim: win)" in out and "line: " in out
    run_cli("verify", EMPTY_23, "--claim", "loss", code=1)
    run_cli("verify", "3/4", "--no-database", "--time", "0.3", code=3)


def test_cli_verify_json(run_cli):
    r = json.loads(run_cli("verify", "2/3", "--claim", "win", "--json", code=0).stdout)
    assert {"value", "line", "nodes", "seconds", "verdict"} <= set(r)
    assert (r["value"], r["verdict"], r["to_move"]) == ("win", "proven", "L")
    r = json.loads(run_cli("verify", "3/4", "--no-database", "--time", "1", "--max-plies", "3", "--json",
                           code=3).stdout)
    assert (r["value"], r["verdict"], r["method"]) == ("unknown", "unknown", "horizon")
    assert r["horizon"] >= 1


def test_cli_verify_moves_from_the_empty_board(run_cli):
    # Light c1 loses on 2/3: Dark to move wins
    r = json.loads(run_cli("verify", "--board", "2/3", "--moves", "c1", "--json", code=0).stdout)
    assert (r["position"], r["value"], r["to_move"]) == ("2/3/L3/3/2 D", "win", "D")
    assert r["game"]["moves"] == 1
    # the same from a position given as POSITION
    r = json.loads(run_cli("verify", EMPTY_23, "--moves", "c1", "--claim", "loss", "--json", code=1).stdout)
    assert r["verdict"] == "refuted"


def test_cli_verify_certificate_and_check(tmp_path, run_cli):
    path = tmp_path / "cert.json"
    out = run_cli("verify", "2/3/L3/3/2 D", "--certificate", str(path), code=0).stdout
    assert f"certificate: {path}" in out
    n = json.loads(path.read_text())["node_count"]
    out = run_cli("check", str(path), code=0).stdout
    assert out.startswith(f"{n} positions checked: Dark wins 2/3/L3/3/2 D")
    # gzip-compressed, in two processes
    import gzip
    packed = tmp_path / "cert.json.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    out = run_cli("check", "--jobs", "2", str(packed), code=0).stdout
    assert out.startswith(f"{n} positions checked: Dark wins 2/3/L3/3/2 D")
    # one reply removed: one line, exit 1
    data = json.loads(path.read_text())
    node = next(x for x in data["nodes"] if "replies" in x)
    node["replies"].pop(sorted(node["replies"])[-1])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    proc = run_cli("check", str(bad))
    assert proc.code == 1 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "is missing" in lines[0], proc.stderr
    proc = run_cli("check", str(tmp_path / "missing.json"))  # bad input, not a rejected proof
    assert proc.code == 2 and len(proc.stderr.splitlines()) == 1 and "missing.json" in proc.stderr


def test_cli_verify_no_certificate_without_a_proof(tmp_path, run_cli):
    path = tmp_path / "cert.json"
    r = run_cli("verify", "3/4", "--time", "0.2", "--certificate", str(path), "--json", code=3)
    assert json.loads(r.stdout)["certificate"]["file"] is None
    assert not path.exists()


def test_cli_verify_game_file(tmp_path, run_cli):
    game = list(random_game("2/3", seed=3))
    moves, winner = [p.last_move for p in game[1:]], game[-1].outcome
    path = tmp_path / "game.txt"
    path.write_text("2/3\n" + ",".join(moves) + f"\nresult: {winner}\n")
    out = run_cli("verify", "--game", str(path), code=0).stdout
    assert f"replayed {len(moves)} moves" in out and "verdict: proven" in out
    path.write_text("\n".join(moves) + f"\nresult: {'D' if winner == 'L' else 'L'}\n")
    r = json.loads(run_cli("verify", "--game", str(path), "--board", "2/3", "--json", code=1).stdout)
    assert r["verdict"] == "refuted" and r["game"]["claimed_result"] != winner


def test_cli_verify_game_midway_is_proven(tmp_path, run_cli):
    path = tmp_path / "game.txt"
    path.write_text("2/3\nc2\nc3\n")
    # Light c2, Dark c3: Light to move wins (the principal line of the solved board)
    r = json.loads(run_cli("verify", "--game", str(path), "--claim", "win", "--json", code=0).stdout)
    assert (r["position"], r["value"], r["verdict"], r["method"]) == ("2/3/1LD1/3/2 L", "win", "proven", "database")
    r = json.loads(run_cli("verify", "--game", str(path), "--claim", "win", "--no-database", "--json", code=0).stdout)
    assert (r["position"], r["value"], r["verdict"], r["method"]) == ("2/3/1LD1/3/2 L", "win", "proven", "dfpn")


def test_cli_verify_game_with_an_illegal_move(tmp_path, run_cli):
    path = tmp_path / "game.txt"
    path.write_text("2/3\nc1, e2, c2, a1\n")
    proc = run_cli("verify", "--game", str(path))
    assert proc.code == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "move 3 (c2) is illegal" in lines[0] and "Traceback" not in proc.stderr


@pytest.mark.parametrize("args", [
    ["verify"],                                           # nothing to verify
    ["verify", "2/3/4/3/9 L"],                            # bad row width
    ["verify", "--board", "2/3", "--moves", "c1,zz9"],    # unknown point
    ["verify", "--game", "/nonexistent/game.txt"],
])
def test_cli_verify_bad_input(args, run_cli):
    run_cli(*args, code=2)


# -- territory: a heuristic in the filling stage ----------------------------------------------

# 3/4, Light to move: Light can play only f1, Dark only a2, b3, b4 (found by random search:
# such positions are rare on small boards); Light to move loses
FILLING = "LLL/1LDL/LLDLL/LLDDDL/DDDDD/LD2/D1D L"


def test_territory_in_the_filling_stage():
    assert territory(Position.parse(FILLING)) == {"stage": "filling", "heuristic": True,
                                                  "safe_points": {"L": 1, "D": 3}}
    assert territory(Position.parse(EMPTY_23)) is None
    assert territory(replay(start_position("3/4", None), ["c1", "e2", "c3", "e4"]).position) is None


def test_cli_verify_reports_territory_as_a_heuristic(run_cli):
    out = run_cli("verify", FILLING, "--claim", "loss", code=0).stdout
    assert "territory (heuristic, not proven; filling stage): safe points Light 1, Dark 3" in out
    r = json.loads(run_cli("verify", FILLING, "--json", code=0).stdout)
    assert r["value"] == "loss" and r["territory"]["heuristic"] is True
    assert json.loads(run_cli("verify", EMPTY_23, "--json", code=0).stdout)["territory"] is None


# -- empty records, default budgets, files -----------------------------------------------------


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "result: L\n", "  \t \n# x\n"])
def test_parse_game_refuses_an_empty_record(text):
    with pytest.raises(GameRecordError, match="the record is empty"):
        parse_game(text)


def test_cli_verify_empty_game_record(tmp_path, run_cli):
    path = tmp_path / "empty.txt"
    path.write_text("# nothing yet\n")
    proc = run_cli("verify", "--game", str(path))
    assert proc.code == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "empty" in lines[0], proc.stderr


def test_default_budget_only_where_a_proof_cannot_finish():
    from solver.app.verify import DEFAULT_SECONDS, default_seconds

    assert DEFAULT_SECONDS == 60
    assert default_seconds(Position.start(Board.parse("6/7"))) == DEFAULT_SECONDS
    assert default_seconds(Position.start(Board.parse("4/5"))) == DEFAULT_SECONDS
    assert default_seconds(Position.start(Board.parse("3/4"))) is None
    assert default_seconds(Position.start(Board.parse("2/3"))) is None


def test_cli_verify_without_time_uses_the_default_budget(monkeypatch, run_cli):
    import solver.app.verify

    monkeypatch.setattr(solver.app.verify, "DEFAULT_SECONDS", 0.5)  # 60 s in use
    out = run_cli("verify", "4/5", code=3).stdout
    assert "verdict: unknown (the budget ran out)" in out
    assert "of a budget of 0.5 s" in out
    assert "no --time: a budget of 0.5 s, the default on boards larger than 3/4" in out
    r = json.loads(run_cli("verify", "4/5", "--json", code=3).stdout)
    assert r["budget_seconds"] == 0.5 and r["seconds"] < 30
    # a --time given is the budget, on any board
    assert json.loads(run_cli("verify", "4/5", "--time", "0.3", "--json", code=3).stdout)["budget_seconds"] == 0.3
    assert json.loads(run_cli("verify", EMPTY_23, "--json", code=0).stdout)["budget_seconds"] is None


def test_verify_help_states_the_default_budget(run_cli):
    text = " ".join(run_cli("verify", "--help", code=0).stdout.split())
    assert "60 s on larger boards" in text and "a budget of 60 s" in text


@pytest.mark.parametrize("args,fragment", [
    (["--tt-mb", "1e12"], "--tt-mb 1000000000000: a table of"),      # numpy tried 271 PiB
    (["--tt-mb", "1e7"], "does not fit in the"),               # 100000: MemoryError late, exit 1
    (["--tt-mb", "nan"], "--tt-mb nan"),
    (["--tt-mb", "inf"], "--tt-mb inf"),
    (["--tt-mb", "0"], "--tt-mb 0"),
    (["--time", "nan"], "--time nan"),                          # no limit at all
    (["--time", "inf"], "--time inf"),
    (["--time", "-1"], "--time -1"),
    (["--time", "0"], "--time 0"),
    (["--time", "1e300"], "--time 1e+300"),
])
def test_cli_verify_bad_budgets(args, fragment, run_cli):
    proc = run_cli("verify", EMPTY_23, *args)
    assert proc.code == 2 and proc.stdout == "", proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and fragment in lines[0], proc.stderr


def test_cli_verify_certificate_in_a_new_folder_and_gzip_record(tmp_path, run_cli):
    import gzip

    record = tmp_path / "game.txt.gz"
    record.write_bytes(gzip.compress(b"2/3\nc1\n"))
    cert = tmp_path / "new" / "folder" / "cert.json"
    out = run_cli("verify", "--game", str(record), "--certificate", str(cert), code=0).stdout
    assert "replayed 1 moves" in out and f"certificate: {cert}" in out
    assert json.loads(cert.read_text())["node_count"] > 0


def test_cli_verify_table_checked_against_the_available_memory(monkeypatch, run_cli):
    import solver.search.limit

    monkeypatch.setattr(solver.search.limit, "available_memory_mb", lambda: 50_000.0)
    result = run_cli("verify", EMPTY_23, "--tt-mb", "100000", code=2)
    assert "--tt-mb 100000: a table of 100,000 MiB does not fit in the 50,000 MiB" in result.stderr


def _reaches_by_the_reference(position: Position) -> tuple[frozenset, frozenset] | None:
    """The slow twin of :func:`reaches`: each side's reach by the networkx reference
    rules' legal moves (the implementation verify used before it read the core)."""
    from solver.reference import rules as ref

    board = position.board
    light = frozenset(board.index(n) for n in position.stones("L"))
    dark = frozenset(board.index(n) for n in position.stones("D"))
    if len(light) < 2 or len(dark) < 2 or position.outcome is not None:
        return None

    def reach(own: frozenset, other: frozenset, colour: str) -> frozenset[str]:
        got: set[int] = set()
        while True:
            mine = own | got
            lt, dk = (mine, other) if colour == "L" else (other, mine)
            new = set(ref.legal_moves(board, frozenset(lt), frozenset(dk), colour)) - got
            if not new:
                return frozenset(board.names[p] for p in got)
            got |= new

    return reach(light, dark, "L"), reach(dark, light, "D")


def test_reaches_agree_with_their_reference_twin_on_random_games():
    from solver.rules.randomgame import random_game

    compared = 0
    for board in ("3/4", "4/5"):
        for seed in range(12):
            for i, pos in enumerate(random_game(board, seed)):
                if i % 3:
                    continue  # every third position of the game keeps the test short
                assert reaches(pos) == _reaches_by_the_reference(pos), str(pos)
                compared += reaches(pos) is not None
    assert compared > 200, compared  # most positions are past both players' second stone


def test_verify_by_jlpns_gives_df_pn_s_value_and_a_certificate_the_checker_accepts(run_cli, tmp_path):
    from solver.reference.certificate import check

    pos = "3/1L2/DD3/DLD1D1/LLL1L/4/1D1 L"  # a 3/4 position of about 15,000 expansions
    plain = json.loads(run_cli("verify", pos, "--json", "--no-database", code=None).stdout)
    cert = tmp_path / "jl.json.gz"
    r = json.loads(run_cli("verify", pos, "--json", "--workers", "1", "--certificate", str(cert), code=None).stdout)
    assert r["method"] == "jlpns" and plain["method"] == "dfpn"
    assert r["value"] == plain["value"] != "unknown"
    assert r["certificate"]["file"] == str(cert) and check(cert) == r["certificate"]["positions"] > 0
    assert "JL-PNS" not in run_cli("verify", pos, "--workers", "1", code=None).stdout


@pytest.mark.parametrize("argv, msg", [(["--workers", "2", "--jobs", "2"], "go without --jobs"),
                                       (["--scheduler", "nowhere"], "not a Dask scheduler address"),
                                       (["--workers", "0"], "--workers")])
def test_verify_jlpns_bad_options_are_one_line(run_cli, argv, msg):
    r = run_cli("verify", "2/3", *argv, code=2)
    assert msg in r.stderr and "Traceback" not in r.stderr
