"""Game analysis (solver/app/analysis.py, ``meridians analyse``) and the opening database
answering ``meridians move`` and ``meridians verify``.

Every expected value is derived here by plain df-pn (:func:`solver.search.prove.prove`),
the database file or ``results/solutions/3-4.json``, never typed in.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import pytest

from solver.app.analysis import analyse_game, forced_from
from solver.rules.position import Game, Position
from solver.rules.randomgame import random_game
from solver.rules.record import GameRecord
from solver.search.prove import prove
from solver.search.values import Value
from solver.search.limit import Limit

ROOT = Path(__file__).resolve().parent.parent
#: df-pn's node budget for the analyses and the checks here: deterministic, and a
#: fraction of a second a position on 3/4 from ply 13 or so on
NODES = 50_000
#: the engine's playouts where df-pn does not decide: deterministic
PLAYOUTS = 400


def _value(pos: Position, nodes: int = 0) -> str:
    """Plain df-pn's value of ``pos`` for its player to move (no node limit unless given)."""
    return prove(pos, Limit(nodes=nodes, tt_mb=16), method="dfpn").value


def _analyse(start: Position, moves: list[str], result=None, **kw):
    limit = Limit(nodes=kw.pop("nodes", NODES), playouts=PLAYOUTS)
    return analyse_game(start, moves, limit, result, **kw)


@lru_cache(maxsize=None)
def _planted() -> tuple[Position, list[str], int, str]:
    """A 3/4 game with a blunder planted by search: from a random game, the first late
    position (searched from the end back) that df-pn proves won for its mover and that
    has a move df-pn proves lost; that move is played, then the opponent's proven
    winning line.  Returns (start, moves, the blunder's ply, the losing move); the
    record starts two plies before the blunder."""
    for seed in range(1, 30):
        g = list(random_game("3/4", seed))
        for k in range(len(g) - 6, 12, -1):
            won = g[k]
            if won.outcome is not None or _value(won, NODES) != "win":
                continue
            for m in won.legal_moves():
                child = won.play(m)
                if child.outcome is not None:
                    continue
                p = prove(child, Limit(nodes=NODES, tt_mb=16), method="dfpn")
                if p.value == "win" and p.line:
                    start = Position.parse(str(g[k - 2]))
                    moves = [g[k - 1].last_move, g[k].last_move, m, *p.line]
                    return start, moves, 2, m
    raise AssertionError("no position to plant a blunder in")  # pragma: no cover


def _played(start: Position, moves: list[str]) -> Game:
    game = Game(start)
    for m in moves:
        game.play(m)
    return game


# -- the analysis ----------------------------------------------------------------------
def test_analysis_finds_a_planted_blunder_in_a_3_4_game():
    start, moves, ply, bad = _planted()
    a = _analyse(start, moves)
    game = _played(start, moves)
    before = game.positions[ply]
    found = {b.ply: b for b in a.blunders}
    assert ply in found, [b.as_dict() for b in a.blunders]
    b = found[ply]
    assert (b.move, b.player, b.kind, b.after) == (bad, before.to_move, "throws away the win", Value.LOSS)
    assert b.winning and bad not in b.winning
    for w in b.winning:  # each winning move it names: the opponent is lost after it (df-pn)
        after = before.play(w)
        assert after.outcome == before.to_move or _value(after) == "loss", w
    assert "?? throws away the win; winning was: " in b.shown()


def _game_23(seed: int) -> tuple[Position, list[str], list[Position]]:
    g = list(random_game("2/3", seed))
    return g[0], [p.last_move for p in g[1:]], g


@pytest.mark.parametrize("seed", [3, 8])
def test_forced_from_agrees_with_plain_dfpn_on_every_position(seed):
    start, moves, _ = _game_23(seed)
    game = _played(start, moves)
    a = _analyse(start, moves)
    result = game.outcome
    assert a.result == result and result is not None
    # independently: every position's value by df-pn (with its game's history), then
    # the first ply from which each agrees with the result
    values = [Value.from_outcome(p.outcome, p.to_move).value if p.outcome else _value(p) for p in game.positions]
    want = None
    for k in reversed(range(len(values))):
        agree = values[k] == ("win" if game.positions[k].to_move == result else "loss")
        if not agree:
            break
        want = k
    assert a.forced_from == want
    for e, v in zip(a.positions, values):
        assert e.proven and e.value.value == v, e


def test_forced_from_of_the_planted_game_agrees_with_dfpn():
    start, moves, _, _ = _planted()
    a = _analyse(start, moves)
    game = _played(start, moves)
    values = [_value(p) for p in game.positions]
    winner = game.outcome
    assert winner in ("L", "D")
    want = None
    for k in reversed(range(len(values))):
        if values[k] != ("win" if game.positions[k].to_move == winner else "loss"):
            break
        want = k
    assert a.forced_from == want is not None
    # the blunder's ply was a win for the loser: the result was forced only after it
    assert want > 2


def test_proven_values_agree_with_dfpn_and_estimates_are_labelled():
    # early in a 3/4 game: df-pn (2,000 nodes a position) decides the late positions
    # only, the engine estimates the others
    g = list(random_game("3/4", 2))
    start = Position.parse(str(g[9]))
    moves = [p.last_move for p in g[10:]]
    a = _analyse(start, moves, nodes=2_000)
    sources = {e.source for e in a.positions}
    assert "engine" in sources and "proof" in sources and "rules" in sources
    game = _played(start, moves)
    for e, pos in zip(a.positions, game.positions):
        if e.source == "engine":
            assert e.value == Value.UNKNOWN and not e.proven and 0 <= e.win_rate <= 1
            assert e.shown().startswith("estimate ") and "win" not in e.shown() and "loss" not in e.shown()
            chance = e.win_rate if e.to_move == "L" else 1 - e.win_rate
            assert e.light_chance == pytest.approx(chance)
        else:
            assert e.proven
            want = Value.from_outcome(pos.outcome, pos.to_move).value if pos.outcome else _value(pos)
            assert e.value.value == want, e
            assert e.light_chance == (1.0 if (want == "win") == (pos.to_move == "L") else 0.0)
    d = a.as_dict()
    assert all(p["value"] in ("unknown",) for p in d["positions"] if p["source"] == "engine")


def test_a_database_win_whose_moves_it_does_not_hold_gets_its_winning_move_from_dfpn():
    from solver.app.openings.database import known_moves, lookup_entry

    # a 2/3 game whose ply-10 position (the database's last ply) is won for its mover,
    # none of whose moves' positions the database holds, and whose move there loses
    for seed in range(1, 200):
        g = list(random_game("2/3", seed))
        if len(g) < 13:
            continue
        pos = g[10]
        e = lookup_entry(pos)
        if e is None or e.value != Value.WIN or any(v == Value.WIN for v, _ in known_moves(pos).values()):
            continue
        if _value(g[11]) != "win":
            continue
        break
    else:  # pragma: no cover
        raise AssertionError("no such game")
    a = _analyse(g[0], [p.last_move for p in g[1:]])
    b = next(b for b in a.blunders if b.ply == 10)
    assert b.kind == "throws away the win" and b.winning
    assert _value(pos.play(b.winning[0])) == "loss"


def test_forced_from_definition():
    def entry(ply, to_move, value, source="proof"):
        from solver.app.analysis import PositionAnalysis

        return PositionAnalysis(ply, "", to_move, None, Value(value), source)

    es = [entry(0, "L", "win"), entry(1, "D", "loss"), entry(2, "L", "win", "rules")]
    assert forced_from(es, "L") == 0 and forced_from(es, "D") is None
    es[1] = entry(1, "D", "unknown", "engine")
    assert forced_from(es, "L") == 2


def test_analysis_checks_its_budget_and_moves():
    with pytest.raises(ValueError, match="needs a budget for the engine"):
        analyse_game(Position.start("2/3"), [], Limit(nodes=1000))
    with pytest.raises(TypeError, match="must be a Limit"):
        analyse_game(Position.start("2/3"), [], 1.0)
    with pytest.raises(ValueError, match="illegal"):
        analyse_game(Position.start("2/3"), ["c1", "c1"])


# -- the command -------------------------------------------------------------------------
def _record(tmp_path: Path, seed: int = 3) -> tuple[Path, list[str], str]:
    start, moves, g = _game_23(seed)
    game = _played(start, moves)
    path = tmp_path / "game.txt"
    path.write_text(GameRecord.from_game(game, {"Light": "Ann", "Dark": "Bob"}).text())
    return path, moves, game.outcome


def test_cli_analyse_text_json_and_svg(tmp_path, run_cli):
    path, moves, result = _record(tmp_path)
    a = _analyse(Position.start("2/3"), moves)
    out = run_cli("analyse", "--game", path, code=0).stdout
    lines = out.splitlines()
    rows = [line for line in lines if line[:4].strip().isdigit()]
    assert len(rows) == len(moves) + 1
    for b in a.blunders:
        assert f"?? {b.kind}; winning was: {' '.join(b.winning)}" in rows[b.ply]
    assert f"forced from ply {a.forced_from}" in out and f"blunders ({len(a.blunders)}):" in out
    assert f"result: {'Ann (Light)' if result == 'L' else 'Bob (Dark)'} won" in out

    d = json.loads(run_cli("analyse", "--game", path, "--json", code=0).stdout)
    assert (d["board"], d["result"], d["forced_from"]) == ("2/3", result, a.forced_from)
    assert [b["ply"] for b in d["blunders"]] == [b.ply for b in a.blunders]
    assert [p["ply"] for p in d["positions"]] == list(range(len(moves) + 1))
    assert {"ply", "move", "to_move", "value", "source", "win_rate", "best"} <= set(d["positions"][0])
    assert d["positions"][0]["move"] == moves[0] and d["positions"][-1]["move"] is None

    out_dir = tmp_path / "new" / "dir"
    run_cli("analyse", "--game", path, "--svg", out_dir, code=0)
    root = ET.parse(out_dir / "analysis.svg").getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    classes = [el.get("class") for el in root.iter()]
    assert classes.count("point proven") == len(moves) + 1
    assert classes.count("blunder") == len(a.blunders)


def test_cli_analyse_record_without_a_start_takes_the_board(tmp_path, run_cli):
    _, moves, _ = _game_23(3)
    path = tmp_path / "old.txt"
    path.write_text(",".join(moves) + "\n")  # the old format: no start, no board
    d = json.loads(run_cli("analyse", "--game", path, "--board", "2/3", "--json", code=0).stdout)
    assert d["board"] == "2/3" and len(d["positions"]) == len(moves) + 1


@pytest.mark.parametrize("text", ["[Board \"2/3\"]\n\n1. c1 c1 *\n", "[Board \"9/9\"]\n\n*\n", "\x00\x01"])
def test_cli_analyse_bad_record(tmp_path, run_cli, text):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    r = run_cli("analyse", "--game", path)
    assert r.code == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1 and r.exception is None


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf", "1e9", "x", "9" * 400])
def test_cli_analyse_bad_time_per_move(tmp_path, run_cli, value):
    path, _, _ = _record(tmp_path)
    r = run_cli("analyse", "--game", path, "--time-per-move", value)
    assert r.code == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1
    assert "--time-per-move" in r.stderr and len(r.stderr) < 300


def test_cli_analyse_missing_file_and_svg_folder_that_is_a_file(tmp_path, run_cli):
    r = run_cli("analyse", "--game", tmp_path / "missing.txt")
    assert r.code == 2 and len(r.stderr.splitlines()) == 1 and "missing.txt" in r.stderr
    path, _, _ = _record(tmp_path)
    r = run_cli("analyse", "--game", path, "--svg", path)
    assert r.code == 2 and len(r.stderr.splitlines()) == 1 and r.exception is None, r.stderr


def test_cli_analyse_interrupted_prints_what_it_has(tmp_path, run_cli, monkeypatch):
    import solver.app.analysis as A

    path, moves, _ = _record(tmp_path)
    real = A._analyse_one
    calls = []

    def stop_at_the_fourth(*args):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(A, "_analyse_one", stop_at_the_fourth)
    r = run_cli("analyse", "--game", path, "--json")
    assert r.code == 130 and "interrupted: 3 of" in r.stderr
    d = json.loads(r.stdout)
    assert d["interrupted"] and d["analysed"] == 3
    assert [p["source"] != "none" for p in d["positions"]] == [k >= len(moves) - 2 for k in range(len(moves) + 1)]


# -- move and verify from the database -------------------------------------------------------
def test_move_answers_from_the_database(run_cli):
    solution = json.loads((ROOT / "results/solutions/3-4.json").read_text())
    d = json.loads(run_cli("move", "3/4", "--json", code=0).stdout)
    assert (d["source"], d["value"], d["proven"]) == ("database", solution["value"], True)
    assert solution["moves"][d["best"]] == "win"
    assert {m["move"]: m["value"] for m in d["moves"]} == solution["moves"]
    # a 2/3 position after one move: the move it names is proven by df-pn to win
    pos = Position.start("2/3").play("c1")
    d = json.loads(run_cli("move", str(pos), "--json", code=0).stdout)
    assert d["source"] == "database" and d["value"] == _value(pos) == "win"
    assert _value(pos.play(d["best"])) == "loss"
    text = run_cli("move", str(pos), code=0).stdout
    assert "value: win (database)" in text and "winning moves (" in text
    # --no-database: the engine searches
    d = json.loads(run_cli("move", str(pos), "--no-database", "--playouts", "100", "--json", code=0).stdout)
    assert d["source"] != "database"


def test_verify_answers_from_the_database(run_cli):
    solution = json.loads((ROOT / "results/solutions/3-4.json").read_text())
    d = json.loads(run_cli("verify", "3/4", "--claim", solution["value"], "--json", code=0).stdout)
    assert (d["method"], d["value"], d["verdict"], d["nodes"]) == ("database", solution["value"], "proven", 0)
    assert d["budget_seconds"] is None and {"line", "seconds", "notes", "territory", "to_move"} <= set(d)
    loser = next(m for m, v in solution["moves"].items() if v == "loss")
    d = json.loads(run_cli("verify", "--board", "3/4", "--moves", loser, "--claim", "loss", "--json", code=1).stdout)
    assert (d["method"], d["value"], d["verdict"]) == ("database", "win", "refuted")
    # a 2/3 position: the database's value is df-pn's, and --no-database searches
    pos = Position.start("2/3").play("b2").play("d2")
    d = json.loads(run_cli("verify", str(pos), "--json", code=0).stdout)
    assert d["method"] == "database" and d["value"] == _value(pos)
    line = Position.parse(d["position"])
    for m in d["line"]:
        line = line.play(m)  # the line is legal
    d = json.loads(run_cli("verify", str(pos), "--no-database", "--json", code=0).stdout)
    assert d["method"] == "dfpn" and d["value"] == _value(pos)
    out = run_cli("verify", str(pos), code=0).stdout
    assert "database: the opening database of 2/3" in out and "verdict: proven" in out


def test_cli_analyse_help(run_cli):
    text = run_cli("analyse", "--help", code=0).stdout
    body = text.split("Options:", 1)[0].rstrip().splitlines()
    at = max(i for i, line in enumerate(body) if line.strip() == "Examples:")
    assert all(line.strip().startswith("meridians analyse ") for line in body[at + 1:])
    listing = " ".join(run_cli("--help", code=0).stdout.split())
    assert "analyse Analyse a game record: every position's value, the blunders, where the result was forced." \
        in listing
