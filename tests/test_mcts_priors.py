"""The engine's move-model priors (solver.search.mcts_tree PUCT and progressive bias):
the priors the compiled loop computes against the move model's slow twin, the selection
rules against Python twins, and the player ``uct`` against the engine before the model."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from solver import Position
from solver.rules import core
from solver.rules.randomgame import random_positions
from solver.search import mcts
from solver.search import mcts_tree as M
from solver.search.features import position_features, recent_moves
from solver.search.limit import Limit
from solver.search.policy import PolicyModel, policy

FIXTURE = Path(__file__).resolve().parent / "data" / "uct-fixture-fdc0c7e.json"


def _tree(pos: Position, select: int, seed: int = 1, prior_c: float = 1.0, fpu: float = 0.0,
          rave: int = 0, rave_bias: float = 0.0) -> M.Tree:
    t = core.tables(pos.board)
    R = M.new_tree(t, 1 << 16, seed, 0.3, 1, 20 * t.n, select=select, weights=mcts.model_weights(),
                   prior_c=prior_c, fpu=fpu, tries=3, rave_ref=rave, rave_bias=rave_bias)
    return M.set_root(R, pos.array(), pos.side_index, [(p.bitboards, p.side_index) for p in pos.earlier()],
                      **mcts._recent_cells(pos, t))


def _name(pos: Position, R: M.Tree, x: int) -> str:
    return pos.board.names[int(core.tables(pos.board).point_of[int(R.move[x])])]


def _kids(R: M.Tree, node: int) -> range:
    return range(int(R.first[node]), int(R.first[node] + R.nchild[node]))


def _softmax(pos: Position, last: str | None, prev: str | None, model: PolicyModel) -> dict[str, float]:
    names, feats = position_features(pos, last, prev)
    s = model.scores(feats)
    e = np.exp(s - s.max())
    return dict(zip(names, e / e.sum()))


def test_the_shipped_model_is_the_committed_one():
    committed = PolicyModel.load(Path(__file__).resolve().parent.parent / "results/policy/policy-5-6-p3200.npz")
    assert np.array_equal(mcts.model_weights(), committed.weights) and mcts.model_weights() is mcts.model_weights()
    meta = json.loads((Path(mcts.__file__).parent.parent / "data" / "policy.json").read_text())
    assert meta["command"].startswith("python scripts/train_policy.py") and meta["held_out"]["top1"] > 0.15


@pytest.mark.parametrize("board, n", [("3/4", 80), ("4/5", 80), ("5/6", 60)])
def test_priors_in_the_tree_are_the_models_probabilities(board, n):
    # at the root (the game's last two moves) and at nodes deeper down (the moves that
    # lead to them): each child's prior is policy()'s probability of its move
    model = PolicyModel(mcts.model_weights())
    checked = deep = 0
    for i, pos in enumerate(random_positions(board, n, 12, seed=21)):
        if pos.outcome is not None:
            continue
        R = _tree(pos, M.PUCT, seed=i)
        M.iterate(core.tables(pos.board), R, 40 if i % 4 == 0 else 1)
        if R.first[0] < 0:
            continue  # proven at once (a capture-in-1) before expanding: nothing to compare
        want = policy(pos, model)
        assert recent_moves(pos) and want == _softmax(pos, *recent_moves(pos), model)
        got = {_name(pos, R, x): float(R.prior[x]) for x in _kids(R, 0)}
        assert got.keys() == want.keys()
        assert all(math.isclose(got[m], want[m], rel_tol=1e-5, abs_tol=1e-7) for m in got)
        checked += 1
        # every expanded node two or more plies down
        stack = [(0, pos, [])]
        while stack:
            node, p, line = stack.pop()
            for x in _kids(R, node):
                if R.first[x] < 0:
                    continue
                q = p.play(_name(pos, R, x))
                moves = line + [_name(pos, R, x)]
                if len(moves) >= 2:
                    want = _softmax(q, moves[-1], moves[-2], model)
                    got = {_name(pos, R, y): float(R.prior[y]) for y in _kids(R, x)}
                    assert got.keys() == want.keys()
                    assert all(math.isclose(got[m], want[m], rel_tol=1e-5, abs_tol=1e-7) for m in got)
                    deep += 1
                stack.append((x, q, moves))
    assert checked >= n // 2 and deep >= 10


def _puct_twin(R: M.Tree, node: int) -> int:
    n = int(R.visits[node])
    q_node = 1.0 - R.score[node] / (2.0 * n) if n else 0.5
    best, best_u = -1, -math.inf
    for x in _kids(R, node):
        if R.proof[x] == M.WON:
            continue
        v = int(R.visits[x])
        q = R.score[x] / (2.0 * v) if v else q_node - R.knobs[M.FPU]
        amaf = _rave_twin(R, node, x)
        if amaf is not None:
            m, mean = amaf
            b = m / (m + v + R.knobs[M.RAVE_BIAS] * m * v)
            q = (1 - b) * q + b * mean
        u = q + R.knobs[M.PRIOR_C] * float(R.prior[x]) * math.sqrt(max(n, 1)) / (1 + v)
        if u > best_u:
            best, best_u = x, u
    return best


def _rave_twin(R: M.Tree, node: int, x: int) -> tuple[int, float] | None:
    """RAVE's count and mean for child ``x`` of ``node``: at the nearest node from ``node``
    up, two plies a step, with the reference visits (else the highest), its child of
    ``x``'s cell; None with RAVE off or no such count."""
    need = int(R.params[M.RAVE_REF])
    if need <= 0:
        return None
    ref = node
    while R.visits[ref] < need and R.parent[ref] >= 0 and R.parent[R.parent[ref]] >= 0:
        ref = int(R.parent[R.parent[ref]])
    same = [y for y in _kids(R, ref) if R.move[y] == R.move[x]]
    if not same or R.amaf_n[same[0]] == 0:
        return None
    return int(R.amaf_n[same[0]]), R.amaf_s[same[0]] / (2.0 * R.amaf_n[same[0]])


def _bias_twin(R: M.Tree, node: int) -> int:
    fresh = [x for x in _kids(R, node) if R.proof[x] != M.WON and R.visits[x] == 0]
    if fresh:
        return max(fresh, key=lambda x: (R.prior[x], -x))
    log_n = math.log(max(int(R.visits[node]), 1))
    best, best_u = -1, -math.inf
    for x in _kids(R, node):
        if R.proof[x] == M.WON:
            continue
        v = int(R.visits[x])
        u = R.score[x] / (2.0 * v) + R.c[0] * math.sqrt(log_n / v) + R.knobs[M.PRIOR_C] * float(R.prior[x]) / (1 + v)
        if u > best_u:
            best, best_u = x, u
    return best


@pytest.mark.parametrize("select, twin, fpu, rave", [(M.PUCT, _puct_twin, 0.0, 0), (M.PUCT, _puct_twin, 0.2, 0),
                                                     (M.BIAS, _bias_twin, 0.0, 0), (M.PUCT, _puct_twin, 0.0, 30)])
def test_selection_follows_its_formula(select, twin, fpu, rave):
    # on grown trees, the child the kernel selects at every expanded node is the twin's
    compared = 0
    for i, pos in enumerate(random_positions("4/5", 4, 12, seed=5)):
        R = _tree(pos, select, seed=i, prior_c=1.5, fpu=fpu, rave=rave, rave_bias=0.01)
        M.iterate(core.tables(pos.board), R, 600)
        for node in range(int(R.stats[M.NODES])):
            if R.first[node] >= 0 and R.proof[node] == M.OPEN:
                assert M._select(R, np.int64(node)) == twin(R, node)
                compared += 1
    assert compared >= 40


@pytest.mark.parametrize("board, plies", [("3/4", 6), ("5/6", 20)])
def test_rave_counts_what_each_iteration_played_later(board, plies):
    # one iteration at a time: the nodes whose visits grew are the descent, the playout's
    # cells are R.trace; every child of a descent node whose mover played its cell later
    # (below it in the descent or in the playout) gains one AMAF count and the result
    # for that mover, and no other count changes
    pos = random_positions(board, 1, plies, seed=4)[0]
    t = core.tables(pos.board)
    R = _tree(pos, M.PUCT, seed=3, rave=10, rave_bias=0.01)
    counted = 0
    for _ in range(300):
        if R.proof[0] != M.OPEN:
            break
        visits, score, n, s = R.visits.copy(), R.score.copy(), R.amaf_n.copy(), R.amaf_s.copy()
        plies_before = int(R.stats[M.PLIES])
        assert M.iterate(t, R, 1) == 1
        path = [0]
        while R.first[path[-1]] >= 0:
            grown = [y for y in _kids(R, path[-1]) if R.visits[y] == visits[y] + 1]
            if not grown:
                break
            path.append(grown[0])
        depth = len(path) - 1
        r = 2 - int(R.score[path[-1]] - score[path[-1]])  # for the player to move at the leaf
        leaf_side = (pos.side_index + depth) % 2
        playout = [((leaf_side + i) % 2, int(R.trace[i])) for i in range(int(R.stats[M.PLIES]) - plies_before)]
        want_n, want_s = n.copy(), s.copy()
        for d in range(depth + 1):
            later = {((pos.side_index + j - 1) % 2, int(R.move[path[j]])) for j in range(d + 1, depth + 1)}
            later |= set(playout)
            mover = (pos.side_index + d) % 2
            for y in _kids(R, path[d]) if R.first[path[d]] >= 0 else ():
                if (mover, int(R.move[y])) in later:
                    want_n[y] += 1
                    want_s[y] += r if (depth - d) % 2 == 0 else 2 - r
                    counted += 1
        assert np.array_equal(R.amaf_n, want_n) and np.array_equal(R.amaf_s, want_s)
    assert counted >= 1000


def test_rave_is_an_engine_option_and_a_match_option():
    from solver.app.match import parse_player

    pos = random_positions("4/5", 1, 6, seed=2)[0]
    on = mcts.search(pos, Limit(playouts=800), dfpn_nodes=0, rave=20, rave_bias=0.001)
    off = mcts.search(pos, Limit(playouts=800), dfpn_nodes=0)
    assert on.playouts == off.playouts == 800
    assert {m.move: m.visits for m in on.moves} != {m.move: m.visits for m in off.moves}
    assert mcts.Engine(rave=20).variant(seed=3).options()["rave"] == 20
    with pytest.raises(ValueError, match="puct"):
        mcts.Engine(rave=20, select="uct")
    with pytest.raises(ValueError, match="rave_bias"):
        mcts.Engine(rave=20, rave_bias=-1)
    assert dict(parse_player("engine:rave=50,rbias=0.01").tune) == {"rave": 50, "rave_bias": 0.01}
    with pytest.raises(ValueError, match="rave"):
        parse_player("engine:rave=-1")


def test_priors_focus_the_search_and_ride_along_when_a_tree_is_kept():
    # the most probable move gets more visits than under UCT, and a kept subtree keeps its priors
    pos = random_positions("5/6", 1, 10, seed=8)[0]
    puct = mcts.search(pos, Limit(playouts=2000), seed=1, dfpn_nodes=0, select="puct")
    uct = mcts.search(pos, Limit(playouts=2000), seed=1, dfpn_nodes=0, select="uct")
    top = max(policy(pos, PolicyModel(mcts.model_weights())).items(), key=lambda kv: kv[1])[0]
    visits = [{m.move: m.visits for m in r.moves} for r in (puct, uct)]
    assert visits[0][top] > visits[1][top]
    engine = mcts.Engine(seed=2, dfpn_nodes=0, select="puct")
    r = engine.search(pos, Limit(playouts=1500))
    after = pos.play(r.best).play(r.line[1])
    old = engine._tree
    x = next(x for x in _kids(old, 0) if _name(pos, old, x) == r.best)
    y = next(y for y in _kids(old, x) if _name(pos, old, y) == r.line[1])
    engine.search(after, Limit(playouts=10))
    new = engine._tree
    assert new.visits[0] >= old.visits[y]
    assert sorted(new.prior[_kids(new, 0)]) == sorted(old.prior[_kids(old, y)])


def test_the_uct_player_plays_as_the_engine_before_the_move_model(monkeypatch):
    # recorded with the engine of fdc0c7e (tests/data): a match game of its player
    # 'engine' (the analyst first), an Engine self-play game (trees kept), three searches.
    # The game is played without the opening database, as it was recorded: the database
    # grows with every proven pie class, and a game that reads it changes with it
    import functools

    from solver.app import analyst
    from solver.app.match import parse_player, play_game

    fx = json.loads(FIXTURE.read_text())
    assert fx["game_database"] is False
    monkeypatch.setattr(analyst, "analyse", functools.partial(analyst.analyse, database=False))
    a, b, board = fx["game_players"]
    uct = [parse_player(spec.replace("engine", "uct", 1)) for spec in (a, b)]
    assert list(play_game(*uct, board, 7)) == fx["game"]
    engines = [mcts.Engine(seed=3, dfpn_nodes=0, select="uct"), mcts.Engine(seed=103, dfpn_nodes=0, select="uct")]
    pos, moves = Position.start("4/5"), []
    while pos.outcome is None:
        moves.append(engines[pos.side_index].search(pos, Limit(playouts=300)).best)
        pos = pos.play(moves[-1])
    assert moves == fx["selfplay"]
    for s in fx["searches"]:
        r = mcts.search(Position.parse(s["position"]), Limit(playouts=500), seed=3, dfpn_nodes=0, select="uct")
        assert (r.best, {m.move: m.visits for m in r.moves}) == (s["best"], s["visits"])


@pytest.mark.parametrize("seed", [3, 11])
def test_a_playout_move_drawn_from_the_model_follows_the_slow_twin_s_probabilities(seed):
    # many draws of the compiled pick against the reference policy (features in Python)
    pos = random_positions("4/5", 1, 8, seed=seed)[0]
    want = policy(pos, PolicyModel(mcts.model_weights()))
    R = _tree(pos, M.PUCT, seed=seed)
    t = core.tables(pos.board)
    cells = mcts._recent_cells(pos, t)
    draws = 20_000
    counts: dict[str, int] = {}
    for _ in range(draws):
        cell = int(M._policy_pick(t, R, pos.array(), pos.side_index, np.int64(cells["last"]), np.int64(cells["prev"])))
        name = pos.board.names[int(t.point_of[cell])]
        counts[name] = counts.get(name, 0) + 1
    assert set(counts) <= set(want)
    for move, p in want.items():
        sd = math.sqrt(p * (1 - p) / draws)
        assert abs(counts.get(move, 0) / draws - p) <= 5 * sd + 1e-4, move


def test_playouts_from_the_model_are_an_engine_and_match_option_that_keep_proofs_sound():
    from solver.app.match import parse_player
    from solver.search.prove import prove

    pos = random_positions("4/5", 1, 6, seed=2)[0]
    on = mcts.search(pos, Limit(playouts=800), dfpn_nodes=0, policy_plies=6)
    again = mcts.search(pos, Limit(playouts=800), dfpn_nodes=0, policy_plies=6)
    off = mcts.search(pos, Limit(playouts=800), dfpn_nodes=0)
    assert on.playouts == off.playouts == 800
    assert [(m.move, m.visits) for m in on.moves] == [(m.move, m.visits) for m in again.moves]  # replays
    assert {m.move: m.visits for m in on.moves} != {m.move: m.visits for m in off.moves}
    assert mcts.Engine(policy_plies=4).variant(seed=3).options()["policy_plies"] == 4
    with pytest.raises(ValueError, match="puct"):
        mcts.Engine(policy_plies=4, select="uct")
    assert dict(parse_player("engine:pplies=8").tune) == {"policy_plies": 8}
    with pytest.raises(ValueError, match="pplies"):
        parse_player("engine:pplies=-1")
    # what the tree proves with them is df-pn's value
    proven = 0
    for p in random_positions("3/4", 8, 18, seed=5):
        r = mcts.search(p, Limit(playouts=3000), dfpn_nodes=0, policy_plies=1000)
        if r.proven:
            assert r.value == prove(p).value, str(p)
            proven += 1
    assert proven >= 3
