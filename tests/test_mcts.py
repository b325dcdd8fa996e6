"""The engine (solver.search.mcts): its proven values against df-pn, its estimates never
passed off as proofs, its play against random moves, and ``meridians move``.

Budgets are playout counts with seeds, so every search here is reproducible."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from solver import Position
from solver.app.analyst import MIN_VISITS
from solver.rules.randomgame import random_game, random_positions
from solver.search import mcts
from solver.search.prove import prove
from solver.search.limit import Limit, LimitError
from solver.search.result import Result
from solver.search.values import Value


def _engine(pos: Position, playouts: int, seed: int = 1, **kw) -> Result:
    return mcts.search(pos, Limit(playouts=playouts), seed=seed, **kw)


@pytest.mark.parametrize("board, plies, playouts, tries, select", [
    ("2/3", 5, 20_000, 1, "puct"), ("3/4", 22, 5_000, 1, "puct"), ("3/4", 22, 5_000, 4, "puct"),
    ("3/4", 22, 5_000, 3, "uct"), ("3/4", 22, 5_000, 3, "bias"), ("3/4", 22, 5_000, 3, "puct+rave")])
def test_proven_values_agree_with_dfpn(board, plies, playouts, tries, select):
    # the tree alone (no df-pn first): every value and every root move's value it
    # proves is df-pn's, whatever the playouts (tries: the playout policy) and the
    # selection rule (the priors and RAVE only order the search)
    proven = moves_proven = 0
    how = {"select": "puct", "rave": 20} if select == "puct+rave" else {"select": select}
    for pos in random_positions(board, 8, plies, seed=3):
        r = _engine(pos, playouts, dfpn_nodes=0, tries=tries, **how)
        if r.proven:
            assert r.source == "tree" and r.win_rate is None
            assert r.value == prove(pos, Limit(tt_mb=16)).value, str(pos)
            proven += 1
        for m in r.moves:
            if m.value in (Value.WIN, Value.LOSS):
                # the value of a move for its player is the child's value negated
                assert m.value == Value(prove(pos.play(m.move), Limit(tt_mb=16)).value).negated(), (str(pos), m.move)
                assert m.win_rate is None
                moves_proven += 1
    assert proven >= 3 and moves_proven >= 10  # the test compares something


def test_root_parallel_searches_prove_only_what_dfpn_proves_and_replay():
    # workers=2: two trees in threads, their root moves added up; every value one of
    # them proves is df-pn's, and a playout budget shared out replays exactly
    proven = moves_proven = 0
    for pos in random_positions("3/4", 8, 22, seed=5):
        r = _engine(pos, 4_000, dfpn_nodes=0, workers=2)
        again = _engine(pos, 4_000, dfpn_nodes=0, workers=2)
        # a root proven by one search stops the other wherever it is then: its visits
        # differ from run to run (and with them the order of the moves), the values do not
        if r.proven:
            assert sorted((m.move, m.value.value) for m in r.moves) == \
                sorted((m.move, m.value.value) for m in again.moves)
        else:
            seen = (lambda m: (m.move, m.value, m.visits, m.win_rate, m.line))
            assert [seen(m) for m in r.moves] == [seen(m) for m in again.moves]
        assert sorted(m.move for m in r.moves) == sorted(pos.legal_moves())
        if r.proven:
            assert r.value == prove(pos, Limit(tt_mb=16)).value, str(pos)
            proven += 1
        else:
            # both trees' root visits, within the budget (the second tree has its own root)
            assert r.playouts <= 4_000 and sum(m.visits for m in r.moves) >= 4_000 - 2 * len(r.moves)
            assert r.win_rate is not None and r.stats["workers"] == 2
        for m in r.moves:
            if m.value in (Value.WIN, Value.LOSS):
                assert m.value == Value(prove(pos.play(m.move), Limit(tt_mb=16)).value).negated(), (str(pos), m.move)
                moves_proven += 1
    assert proven >= 2 and moves_proven >= 10  # the test compares something


def test_root_parallel_searches_share_the_playouts_and_keep_their_trees():
    pos = Position.start("4/5")
    one = _engine(pos, 3_000, dfpn_nodes=0)
    two = _engine(pos, 3_000, dfpn_nodes=0, workers=2)
    assert one.playouts == two.playouts == 3_000
    assert "2 searches at once (root parallelism), 3,000 playouts in all" in two.notes
    # through a game each search keeps its own tree: both reuse it after a reply
    engine = mcts.Engine(seed=3, dfpn_nodes=0, workers=2)
    first = engine.search(pos, Limit(playouts=2_000))
    after = pos.play(first.best)
    after = after.play(after.legal_moves()[0])
    engine.search(after, Limit(playouts=2_000))
    assert engine._root == after and all(h._root == after for h in engine._helpers)
    with pytest.raises(ValueError, match="workers"):
        mcts.Engine(workers=0)


def _proven_loss() -> Position:
    """A 2/3 position that the tree proves lost for the player to move."""
    for pos in random_positions("2/3", 40, 5, seed=7):
        if prove(pos, Limit(tt_mb=16)).value == "loss":
            return pos
    raise AssertionError("no lost position among the random ones")


def test_a_proven_loss_is_never_an_estimate():
    pos = _proven_loss()
    r = _engine(pos, 50_000, dfpn_nodes=0)
    assert (r.value, r.source, r.win_rate, r.proven) == (Value.LOSS, "tree", None, True)
    assert r.shown() == "loss (proven by the tree)"
    assert r.moves and all(m.value == Value.LOSS and m.win_rate is None for m in r.moves)
    assert r.best in pos.legal_moves() and r.line and r.line[0] == r.best
    # df-pn first answers it too, labelled as its own
    d = _engine(pos, 10, dfpn_nodes=20_000)
    assert (d.value, d.source, d.win_rate) == (Value.LOSS, "dfpn", None)


def test_an_estimate_is_labelled_and_its_proven_moves_have_no_rate():
    pos = Position.start("3/4")
    r = _engine(pos, 400, dfpn_nodes=0)
    assert (r.value, r.source, r.proven) == (Value.UNKNOWN, "estimate", False)
    assert 0.0 <= r.win_rate <= 1.0 and r.shown() == f"estimated {r.win_rate:.2f} (win rate)"
    assert sum(m.visits for m in r.moves) == r.stats["iterations"]  # every iteration goes through one root move
    assert abs(sum(m.share for m in r.moves) - 1.0) < 1e-9
    assert sorted(m.move for m in r.moves) == sorted(pos.legal_moves())
    assert r.best == max(r.moves, key=lambda m: m.visits).move == r.line[0]
    for m in r.moves:
        assert (m.win_rate is None) == (m.value.decided or m.visits == 0)


def _capture_in_one() -> tuple[Position, set[str]]:
    """A 3/4 position with a move that wins at once and moves that do not."""
    rng = random.Random(5)
    for _ in range(200):
        for pos in random_game("3/4", rng):
            if pos.outcome is not None:
                break
            wins = {m for m in pos.legal_moves() if pos.play(m).outcome == pos.to_move}
            if wins and len(wins) < len(pos.legal_moves()) // 2:
                return pos, wins
    raise AssertionError("no capture-in-1 found")


def test_a_winning_capture_in_one_is_found():
    pos, wins = _capture_in_one()
    r = _engine(pos, 20, dfpn_nodes=0)
    assert r.best in wins and (r.value, r.source) == (Value.WIN, "tree")
    assert {m.move for m in r.moves if m.value == Value.WIN} == wins


def test_the_same_seed_gives_the_same_search_and_growing_the_tree_changes_nothing(monkeypatch):
    pos = Position.start("4/5")
    a = _engine(pos, 3000, seed=9, dfpn_nodes=0).as_dict()
    monkeypatch.setattr(mcts, "_FIRST_CAPACITY", 64)  # the arrays grow many times
    b = _engine(pos, 3000, seed=9, dfpn_nodes=0).as_dict()
    for d in (a, b):
        d.pop("seconds")
        d["stats"].pop("load_seconds")
    assert a == b
    c = _engine(pos, 3000, seed=10, dfpn_nodes=0).as_dict()
    assert c["moves"] != a["moves"]


def test_a_full_tree_stops_the_search_cleanly():
    pos = Position.start("4/5")
    r = _engine(pos, 100_000, dfpn_nodes=0, max_tree_nodes=500)
    assert r.nodes <= 500 and r.stats["iterations"] < 100_000
    assert r.best in pos.legal_moves() and any("the tree is full" in n for n in r.notes)


def test_bad_budgets_are_refused():
    pos = Position.start("2/3")
    # a bad budget is refused by the Limit itself, before any search
    for budget in ({"playouts": 0}, {"playouts": -1}, {"playouts": 1.5}, {"seconds": float("nan")},
                   {"seconds": 0}):
        with pytest.raises(LimitError):
            Limit(**budget)
    # a Limit without playouts or seconds gives the engine no budget (nodes and tt_mb are a proof's)
    for limit in (Limit(), Limit(nodes=1000), Limit(tt_mb=16)):
        with pytest.raises(LimitError, match="playouts, seconds or both"):
            mcts.search(pos, limit)
        with pytest.raises(LimitError, match="playouts, seconds or both"):
            mcts.Engine().search(pos, limit)
    for kw in ({"dfpn_nodes": -1}, {"exploration": float("inf")}, {"tries": 0}, {"tries": True}, {"tries": "2"}):
        with pytest.raises(ValueError):
            mcts.search(pos, Limit(playouts=10), **kw)
    # the loose keywords are gone: the budget is a Limit
    with pytest.raises(TypeError):
        mcts.search(pos, playouts=10)
    with pytest.raises(TypeError, match="limit must be a Limit"):
        mcts.search(pos, 10)
    with pytest.raises(TypeError):
        mcts.Engine().search(pos, seconds=1.0)


def test_a_finished_game_has_no_move():
    pos = next(p for p in random_game("2/3", seed=1) if p.outcome is not None)
    r = _engine(pos, 10)
    assert r.best is None and r.source == "rules" and r.value == Value.from_outcome(pos.outcome, pos.to_move)


def test_the_engine_beats_random_play():
    # 10 games on 4/5, colours alternating: 200 playouts a move (the tree alone, no
    # df-pn first) against uniform random moves
    wins = 0
    for game in range(10):
        rng = random.Random(game)
        engine_side = "LD"[game % 2]
        pos = Position.start("4/5")
        while pos.outcome is None:
            if pos.to_move == engine_side:
                move = _engine(pos, 200, seed=game, dfpn_nodes=0).best
            else:
                move = rng.choice(pos.legal_moves())
            pos = pos.play(move)
        wins += pos.outcome == engine_side
    assert wins >= 9


# --- the command ---------------------------------------------------------------------
def test_move_command_prints_the_move_value_and_line(run_cli):
    r = run_cli("move", "4/5", "--playouts", "3000", code=0)
    assert "best move: " in r.stdout and "value: estimate " in r.stdout and "(engine)" in r.stdout
    assert "line: " in r.stdout and "visits" in r.stdout and "95% interval" in r.stdout
    pos = _proven_loss()
    r = run_cli("move", str(pos), "--playouts", "50000", code=0)
    assert "value: loss (database)" in r.stdout and "estimate" not in r.stdout


def test_move_command_json(run_cli):
    r = run_cli("move", "4/5", "--playouts", "400", "--seed", "4", "--json", code=0)
    d = json.loads(r.stdout)
    assert d["value"] == "unknown" and d["source"] == "engine" and not d["proven"]
    assert d["estimate"]["visits"] >= MIN_VISITS and d["playouts"] == 400
    assert d["best"] in Position.start("4/5").legal_moves() and d["line"][0] == d["best"]
    assert {"move", "value", "source", "estimate", "visits", "nodes"} == set(d["moves"][0])
    again = json.loads(run_cli("move", "4/5", "--playouts", "400", "--seed", "4", "--json", code=0).stdout)
    assert again["moves"] == d["moves"]


@pytest.mark.parametrize("args", [
    ["3/4", "--time", "nan"], ["3/4", "--time", "0"], ["3/4", "--time", "-1"], ["3/4", "--time", "1e300"],
    ["3/4", "--playouts", "0"], ["3/4", "--playouts", "-3"], ["3/4", "--playouts", "10000000000000"],
    ["3/4", "--playouts", "x"], ["9/10"], ["3/4/5 L"], ["2/3/4/3/2 X"],
])
def test_move_command_bad_input(run_cli, args):
    r = run_cli("move", *args, code=2)
    assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1 and "error" in r.stderr


BAD_NUMBERS = ["nan", "inf", "-inf", "1e999", "-1", "0", "", "1e13", "9" * 5000, "x"]


@pytest.mark.parametrize("value", BAD_NUMBERS, ids=lambda v: v[:12] or "empty")
@pytest.mark.parametrize("option", ["--time", "--playouts"])
def test_move_command_absurd_budgets(run_cli, option, value):
    r = run_cli("move", "2/3", option, value, code=2)
    assert r.stdout == "" and len(r.stderr.splitlines()) == 1 and option in r.stderr
    assert len(r.stderr) < 300


def test_move_command_help_ends_with_examples(run_cli):
    text = run_cli("move", "--help", code=0).stdout
    body = text.split("Options:", 1)[0].rstrip().splitlines()
    at = max(i for i, line in enumerate(body) if line.strip() == "Examples:")
    examples = [line.strip() for line in body[at + 1:]]
    assert examples and all(e.startswith("meridians move ") for e in examples)
    listing = run_cli("--help", code=0).stdout
    assert "  move " in listing


def test_a_move_that_repeats_a_position_of_the_game_is_a_draw():
    # the game before the root holds the position after one of its moves: that move
    # ends the game in a draw (RULES.md), it is never part of a proof
    pos = random_positions("3/4", 1, 20, seed=4)[0]
    move = pos.legal_moves()[0]
    child = pos.play(move)
    assert child.outcome is None
    again = Position.from_arrays(pos.board, pos.bitboards, pos.side_index, history=[child.key])
    r = _engine(again, 3000, dfpn_nodes=0)
    drawn = [m for m in r.moves if m.move == move]
    assert drawn and drawn[0].value == Value.DRAW and drawn[0].win_rate is None
    assert all(m.value != Value.DRAW for m in r.moves if m.move != move)
    if r.proven:
        assert r.value == prove(again, Limit(tt_mb=16)).value


def test_without_the_solver_nothing_is_proven_but_the_game_ends_are_seen():
    pos = _proven_loss()
    r = _engine(pos, 20_000, dfpn_nodes=0, solver=False)
    assert (r.value, r.source) == (Value.UNKNOWN, "estimate") and r.stats["iterations"] == 20_000
    capture, wins = _capture_in_one()
    r = _engine(capture, 200, dfpn_nodes=0, solver=False)
    assert not r.proven and {m.move for m in r.moves if m.value == Value.WIN} == wins


def test_the_engine_keeps_its_tree_through_a_game_and_its_proofs_hold():
    # two Engines play a 3/4 game: from its second move on each starts from the subtree
    # of its last search, and every value it calls proven (the position's, a move's) is
    # df-pn's
    engines = [mcts.Engine(seed=3, dfpn_nodes=0), mcts.Engine(seed=103, dfpn_nodes=0)]
    pos = Position.start("3/4")
    reused = proven = moves = 0
    while pos.outcome is None:
        r = engines[pos.side_index].search(pos, Limit(playouts=2000))
        reused += any("reused" in n for n in r.notes)
        if r.proven:
            proven += 1
            assert r.value == prove(pos, Limit(tt_mb=16)).value, str(pos)
        for m in r.moves:
            if m.value in (Value.WIN, Value.LOSS):
                assert m.value == Value(prove(pos.play(m.move), Limit(tt_mb=16)).value).negated(), (str(pos), m.move)
                moves += 1
        pos = pos.play(r.best)
    assert reused >= 20 and proven >= 4 and moves >= 20


def test_refreshing_a_kept_tree_recomputes_its_proofs_and_marks_repetitions():
    from solver.rules import core
    from solver.search import mcts_tree as M

    pos = random_positions("3/4", 1, 20, seed=4)[0]
    engine = mcts.Engine(seed=1, dfpn_nodes=0)
    engine.search(pos, Limit(playouts=3000))
    R = engine._tree
    n = int(R.stats[M.NODES])
    t = core.tables(pos.board)
    # the whole tree copied breadth first: the same tree, numbered anew
    base = M.subtree(R, 0, n)
    assert int(base.stats[M.NODES]) == n and base.parent[0] == -1
    assert (base.parent[1:n] < np.arange(1, n)).all() and base.visits[:n].sum() == R.visits[:n].sum()
    assert sorted(base.proof[:n]) == sorted(R.proof[:n]) and (base.proof[:n] != M.OPEN).any()
    kids = np.arange(base.first[0], base.first[0] + base.nchild[0])
    assert (kids == np.arange(1, 1 + R.nchild[0])).all()
    assert (base.move[kids] == R.move[R.first[0]:R.first[0] + R.nchild[0]]).all()
    # the same root and history: the proofs computed again from the leaves are the
    # ones the search backed up move by move
    same = M.set_root(M.subtree(R, 0, n), pos.array(), pos.side_index, [], keep=True)
    M.refresh(t, same)
    assert (same.proof[:n] == base.proof[:n]).all()
    # a history that holds the position after one root move: that move becomes a draw
    x = next(int(k) for k in kids if base.proof[k] == M.OPEN and base.first[k] >= 0)
    child = pos.play(pos.board.names[int(t.point_of[int(base.move[x])])])
    longer = M.set_root(M.subtree(R, 0, n), pos.array(), pos.side_index,
                        [(child.bitboards, child.side_index)], keep=True)
    M.refresh(t, longer)
    assert longer.proof[x] == M.DRAWN
    # a subtree below a node: its nodes, its visits
    sub = M.subtree(base, x, 1)
    m = int(sub.stats[M.NODES])
    assert 1 < m < n and sub.visits[0] == base.visits[x] and sub.nchild[0] == base.nchild[x]
    assert (sub.move[1:1 + sub.nchild[0]] == base.move[base.first[x]:base.first[x] + base.nchild[x]]).all()


def test_a_short_time_is_not_spent_by_dfpn_alone():
    # df-pn's share of a 0.05 s budget must leave the tree time for as many iterations
    # as there are root moves (under UCT: every root move tried; PUCT may pass some over)
    pos = random_positions("3/4", 1, 4, seed=2)[0]
    r = mcts.search(pos, Limit(seconds=0.05), seed=1)
    assert r.source == "estimate" and r.stats["dfpn_nodes"] > 0
    assert r.best in pos.legal_moves() and r.stats["iterations"] >= len(pos.legal_moves())
    u = mcts.search(pos, Limit(seconds=0.05), seed=1, select="uct")
    assert sum(m.visits > 0 for m in u.moves) == len(pos.legal_moves())


def test_a_lost_position_is_played_as_a_search_without_the_solver_would():
    # proven lost by df-pn or by the tree: the value stays the proof, the move is the
    # one the plain search (same seed, same playouts) prefers; without resist, the
    # proof's own choice
    pos = _proven_loss()
    plain = _engine(pos, 3000, dfpn_nodes=0, solver=False)
    for dfpn in (0, 20_000):
        r = _engine(pos, 3000, dfpn_nodes=dfpn)
        assert (r.value, r.source, r.win_rate) == (Value.LOSS, "tree" if dfpn == 0 else "dfpn", None)
        assert r.best == plain.best and r.line == plain.line
        assert sorted(m.move for m in r.moves) == sorted(pos.legal_moves())
        assert all(m.value == Value.LOSS and m.win_rate is None for m in r.moves)
        assert any("proven lost" in n for n in r.notes)
    bare = _engine(pos, 3000, dfpn_nodes=20_000, resist=False)
    assert bare.value == Value.LOSS and len(bare.moves) == 1 and bare.line[0] == bare.best


def test_the_playout_policy_is_seeded_and_changes_the_estimates():
    # tries > 1 redraws playout moves that remove the mover's own stones: the same seed
    # gives the same search, and the estimates differ from uniform playouts'
    pos = random_positions("4/5", 1, 16, seed=2)[0]
    a, b = (_engine(pos, 2000, seed=5, dfpn_nodes=0, tries=3).as_dict() for _ in range(2))
    u = _engine(pos, 2000, seed=5, dfpn_nodes=0, tries=1).as_dict()
    for d in (a, b, u):
        d.pop("seconds")
        d["stats"].pop("load_seconds")
    assert a == b and a["moves"] != u["moves"]
