"""The analyst (solver/app/analyst.py): one answer for a position, the same from every front end.

Its guarantees are checked on every position of the shipped 3/4 opening database and on
every fourth of the 2/3 database's 71,674 (all of them with ``MERIDIANS_TESTS=exhaustive``)
(the database itself is the oracle: each entry is a df-pn proof of record, and the build
checked their negamax) and on endgame positions of larger boards proven here by df-pn with
a budget far above the analyst's.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import random
import time

import pytest

from conftest import share
from solver import Position
from solver.app.analyst import MIN_VISITS, Analysis, Estimate, MoveValue, analyse
from solver.rules.board import Board
from solver.rules.randomgame import endgames
from solver.app.openings.database import database_for, lookup_entry, position_key, position_of_key
from solver.search.limit import Limit
from solver.search.prove import prove
from solver.search.values import Value

#: a budget that makes an answer depend on the position alone: nodes for each proof,
#: playouts for the engine
EXACT = Limit(nodes=20_000, playouts=64)
LOST_34 = "3/4/5/6/2L2/4/3 D"


def fresh(p: Position) -> Position:
    return Position.parse(str(p))


# -- the guarantees, on every database position -------------------------------------------
def broken_guarantees(p: Position, a: Analysis, db) -> list[str]:
    """What ``a``, the analysis of the database position ``p``, gets wrong; [] if nothing."""
    out = []
    e = db.get(p)
    if p.outcome is not None:  # a finished game in the database: the rules answer, as they did there
        if (a.value, a.source, a.moves, a.best) != (e.value, "rules", {}, None):
            out.append(f"{p}: over, but {a.value} from {a.source}, best {a.best}")
        return out
    if (a.value, a.source, a.estimate) != (e.value, "database", None):
        out.append(f"{p}: {a.value} from {a.source} (estimate {a.estimate}), the database says {e.value}")
    if list(a.moves) != p.legal_moves():
        out.append(f"{p}: moves {list(a.moves)}, not the legal moves in board order")
        return out
    held = True
    for m, mv in a.moves.items():
        child = p.play(m)
        if child.outcome is not None:
            want, source = Value.from_outcome(child.outcome, child.to_move).negated(), "rules"
        elif db.get(child) is not None:
            want, source = db.get(child).value.negated(), "database"
        else:
            held = False
            continue
        if (mv.value, mv.source) != (want, source):
            out.append(f"{p}: {m} is {mv.value} ({mv.source}), the {source} says {want}")
    values = {mv.value for mv in a.moves.values()}
    if a.value is Value.LOSS and values != {Value.LOSS}:
        out.append(f"{p}: lost, but its moves are {sorted(values)}")
    if a.value is Value.WIN and Value.WIN not in values:
        out.append(f"{p}: won, but no move wins")
    if a.best not in a.moves:
        out.append(f"{p}: best move {a.best}")
        return out
    best = a.moves[a.best]
    if a.value is Value.WIN and not (best.value is Value.WIN and best.source in ("rules", "database", "proof")):
        out.append(f"{p}: won, but its best move {a.best} is {best.shown()}")
    if a.value is Value.LOSS and held:
        longest = max(a.moves, key=lambda m: (a.moves[m].nodes, m))
        if a.best != longest:
            out.append(f"{p}: lost, best {a.best}, but the longest proof of record is {longest}'s")
    q = p
    for m in a.line:
        q = q.play(m)  # an illegal move raises
    if a.line[:1] != [a.best]:
        out.append(f"{p}: the line {a.line} does not start with the best move {a.best}")
    return out


def _check_keys(board: str, keys: list[int]) -> tuple[list[str], int, int]:
    """The broken guarantees of the database positions of ``keys``, the number of lost
    positions whose best move the engine chose, and how often that was the first legal move."""
    b = Board.parse(board)
    db = database_for(b)
    problems, chosen, first = [], 0, 0
    for k in keys:
        p = position_of_key(b, k)
        a = analyse(p, EXACT)
        problems += broken_guarantees(p, a, db)
        if a.value is Value.LOSS and any(p.play(m).outcome is None and db.get(p.play(m)) is None for m in a.moves):
            chosen += 1
            first += a.best == p.legal_moves()[0]
    return problems, chosen, first


def _in_parallel(board: str, keys: list[int], parts: int) -> list[tuple[list[str], int, int]]:
    chunks = [keys[i::parts] for i in range(parts)]
    if parts == 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [_check_keys(board, c) for c in chunks]
    with multiprocessing.get_context("fork").Pool(parts) as pool:
        return pool.starmap(_check_keys, [(board, c) for c in chunks])


@pytest.mark.slow
@pytest.mark.parametrize("board", ["3/4", "2/3"])
def test_every_database_position_keeps_the_guarantees(board):
    db = database_for(Board.parse(board))
    keys = share([int(k) for k in db.keys], 4 if board == "2/3" else 1)
    analyse(position_of_key(db.board, keys[0]), EXACT)  # load the kernels before any fork
    results = _in_parallel(board, keys, 2 if len(keys) > 1000 else 1)
    problems = [x for r in results for x in r[0]]
    chosen, first = sum(r[1] for r in results), sum(r[2] for r in results)
    assert not problems, f"{len(problems)} broken guarantees in {len(keys)} positions, e.g. {problems[:5]}"
    if board == "2/3":
        # lost positions whose moves the database does not hold: the engine's choice among
        # losing moves, not the first point in board order
        assert chosen > 1000 and first < chosen / 3, (chosen, first)


def test_the_checker_sees_broken_guarantees():
    db = database_for(Board.parse("2/3"))
    p = Position.start("2/3")
    a = analyse(p, EXACT)
    assert broken_guarantees(p, a, db) == []
    lost = next(m for m, mv in a.moves.items() if mv.value is Value.LOSS)
    for change in (dict(value=Value.UNKNOWN, source="engine"), dict(best=lost), dict(line=[lost])):
        bad = analyse(p, EXACT)
        for k, v in change.items():
            setattr(bad, k, v)
        assert broken_guarantees(p, bad, db), change
    bad = analyse(p, EXACT)
    bad.moves[lost].value = Value.WIN
    assert broken_guarantees(p, bad, db)


# -- proven positions of larger boards ------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("board", ["4/5", "5/6", "6/7"])
def test_proven_endgames_of_larger_boards(board):
    decided = 0
    for p in endgames(board, 4, 8, seed=len(board)):
        truth = Value(prove(p, Limit(nodes=1_000_000, tt_mb=64)).value)
        # a node and playout budget, not a clock: the answer then depends on the position
        # alone, not on how loaded the machine is (0.5 s decided none on a busy machine)
        a = analyse(p, Limit(nodes=300_000, playouts=100))
        values = {mv.value for mv in a.moves.values()}
        if a.proven:
            decided += 1
            assert truth in (a.value, Value.UNKNOWN), (str(p), a.value, truth)
            assert a.estimate is None and a.source in ("rules", "proof")
            assert a.value is not Value.LOSS or values == {Value.LOSS}
            assert a.value is not Value.WIN or a.moves[a.best].value is Value.WIN
        else:
            assert a.value is Value.UNKNOWN and a.source in ("engine", "none")
            assert Value.WIN not in values and values != {Value.LOSS}
        # the best move's proven value, and one other's, against a proof of their own
        proven = [mv for mv in a.moves.values() if mv.proven and mv.source != "rules"]
        for mv in sorted(proven, key=lambda mv: mv.move != a.best)[:2]:
            truth_m = Value(prove(fresh(p.play(mv.move)), Limit(nodes=1_000_000, tt_mb=64)).value).negated()
            assert truth_m in (mv.value, Value.UNKNOWN), (str(p), mv.move, mv.value, truth_m)
    assert decided >= 3  # the analyst decides most of them within the budget


# -- one answer everywhere ------------------------------------------------------------------
def _answers(position: str, run_cli) -> dict[str, dict]:
    """The same position, asked of each front end with a 2 s budget: its value and moves."""
    from solver.app.interactive import _search
    from solver.app.match import choose_move, engine_of, parse_player
    from solver.search.mcts import Engine
    from solver.app.web import work

    def core(d: dict) -> dict:
        return {"value": d["value"], "source": d["source"],
                "moves": {m["move"]: (m["value"], m["source"]) for m in d["moves"] if m["value"] != "unknown"}}

    import io

    from solver.app.verify import start_position

    pos = start_position(position, None)
    out = {"lookup": core(json.loads(run_cli("lookup", position, "--time", "2", "--json").stdout)),
           "move": core(json.loads(run_cli("move", position, "--time", "2", "--json").stdout)),
           "web": core(work.analyse(position, 2.0)),
           "play": core(_search(Engine(), pos, Limit(seconds=2.0), io.StringIO()).as_dict())}
    player = parse_player("engine:time=2")
    best = choose_move(player, pos, random.Random(1), 1, engine_of(player, 1))
    return out, best


@pytest.mark.parametrize("position", [LOST_34, "3/4", "2/3/L3/3/2 D", "2/1D1/4/L2/2 L"])
def test_every_front_end_gives_the_same_answer(position, run_cli):
    answers, match_move = _answers(position, run_cli)
    first = answers["lookup"]
    assert all(a == first for a in answers.values()), answers
    from solver.app.verify import start_position

    assert first["value"] in ("win", "loss") and len(first["moves"]) == len(start_position(position, None).legal_moves())
    if first["value"] == "win":
        assert first["moves"][match_move][0] == "win"


def test_the_lost_3_4_position_everywhere(run_cli):
    # the example: the database proves it lost; every front end says so, every move
    # a loss, at once (the engine only picks the most resisting move)
    p = Position.parse(LOST_34)
    assert lookup_entry(p).value is Value.LOSS
    for args in (["lookup", LOST_34, "--json"], ["move", LOST_34, "--json"]):
        d = json.loads(run_cli(*args).stdout)
        assert (d["value"], d["source"], d["estimate"]) == ("loss", "database", None)
        assert {(m["value"], m["source"]) for m in d["moves"]} == {("loss", "database")}
        assert len(d["moves"]) == len(p.legal_moves()) == 29 and d["best"] in p.legal_moves()
    r = run_cli("lookup", LOST_34)
    assert r.code == 0 and "Dark to move: loss (database)" in r.stdout and "losing moves (29)" in r.stdout
    assert "estimate" not in r.stdout and "unknown" not in r.stdout


# -- the policy's parts ---------------------------------------------------------------------
def test_a_finished_game_is_the_rules_answer():
    rng = random.Random(5)
    p = Position.start("2/3")
    while p.outcome is None:
        p = p.play(rng.choice(p.legal_moves()))
    a = analyse(fresh(p))
    assert (a.value, a.source, a.moves, a.best, a.line) == (
        Value.from_outcome(p.outcome, p.to_move), "rules", {}, None, [])


def test_positions_the_database_lacks_are_proven():
    db = database_for(Board.parse("2/3"))
    rng = random.Random(3)
    deep = []
    while len(deep) < 5:
        p = Position.start("2/3")
        for _ in range(rng.randrange(11, 16)):
            if p.outcome is not None:
                break
            p = p.play(rng.choice(p.legal_moves()))
        if p.outcome is None and db.get(p) is None:
            deep.append(fresh(p))
    for p in deep:
        a = analyse(p, Limit(seconds=20))
        assert a.source in ("proof", "rules") and a.value == Value(prove(p, Limit(nodes=10_000_000, tt_mb=4)).value)
        for m, mv in a.moves.items():
            child = fresh(p.play(m))
            if p.play(m).outcome is None:
                assert mv.value == Value(prove(child, Limit(nodes=10_000_000, tt_mb=4)).value).negated()
                assert mv.source == ("database" if db.get(child) is not None else "proof")


def test_a_database_answer_is_fast_and_loads_no_search(monkeypatch):
    import solver.search.mcts as mcts
    import solver.search.prove as prove_module

    calls = []
    monkeypatch.setattr(prove_module, "load_kernels", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(mcts, "load_kernels", lambda *a, **k: calls.append(a))
    analyse(Position.start("3/4"))  # the file read once
    t = time.perf_counter()
    a = analyse(Position.start("3/4"))
    took = time.perf_counter() - t
    assert a.source == "database" and {mv.source for mv in a.moves.values()} == {"database"}
    assert calls == [] and a.playouts == 0 and a.nodes == 0
    assert took < 1.0  # about 2 ms; slack for a loaded machine


def test_the_budget_does_not_pay_for_loading_the_kernels(monkeypatch):
    """A board's first use compiles for tens of seconds; the budget is for searching.  The
    compile is simulated by a 1.5 s sleep in the first load, with a 1 s budget."""
    import solver.search.prove as prove_module

    real, calls = prove_module.load_kernels, []

    def slow_first_load(board, method="dfpn", *args, **kwargs):
        if not calls:
            time.sleep(1.5)
        calls.append(method)
        real(board, method, *args, **kwargs)

    monkeypatch.setattr(prove_module, "load_kernels", slow_first_load)
    a = analyse(Position.start("2/3"), Limit(seconds=1.0), database=False)
    assert calls and a.source == "proof" and a.load_seconds >= 1.5 and a.seconds < 1.5
    assert a.value == Value(prove(Position.start("2/3"), Limit(tt_mb=4)).value)
    assert all(mv.proven for mv in a.moves.values())


def test_estimates_carry_visits_and_an_interval_and_thin_ones_are_not_shown():
    a = analyse(Position.start("5/6"), Limit(playouts=400))
    assert a.value is Value.UNKNOWN and a.source == "engine" and a.estimate is not None
    assert a.estimate == a.moves[a.best].estimate
    kinds = set()
    for mv in a.moves.values():
        if mv.estimate is not None:
            kinds.add("estimate")
            assert mv.source == "engine" and mv.visits == mv.estimate.visits >= MIN_VISITS
            low, high = mv.estimate.interval
            assert low <= mv.estimate.win_rate <= high
        else:
            kinds.add("none")
            assert mv.source == "none" and mv.visits < MIN_VISITS and mv.shown() == "not searched"
    assert kinds == {"estimate", "none"}  # 400 playouts over 90 moves leave some unsearched
    # the same limit and seed: the same answer
    b = analyse(Position.start("5/6"), Limit(playouts=400))
    assert {k: v for k, v in a.as_dict().items() if "seconds" not in k} == \
        {k: v for k, v in b.as_dict().items() if "seconds" not in k}


@pytest.mark.parametrize("rate, visits", [(0.5, 16), (0.9, 100), (0.0, 20), (1.0, 5000)])
def test_the_interval_is_wilsons(rate, visits):
    low, high = Estimate(rate, visits).interval
    # Wilson's interval: the rates p whose normal test against the observed rate passes at 95%
    z = 1.959964
    for p, inside in ((low, True), (high, True), (max(low - 0.01, 0), low < 0.01), (min(high + 0.01, 1), high > 0.99)):
        if 0 < p < 1:
            assert (abs(rate - p) <= z * math.sqrt(p * (1 - p) / visits) + 1e-9) == inside, (p, inside)
    assert 0 <= low <= rate <= high <= 1
    assert Estimate(rate, visits).negated().interval == pytest.approx((1 - high, 1 - low))


def test_position_keys_round_trip():
    db = database_for(Board.parse("2/3"))
    for k in [int(x) for x in db.keys[::997]]:
        assert position_key(position_of_key(db.board, k)) == k


def test_the_engine_holds_proven_moves_as_proven_nodes():
    from solver.search import mcts

    # a 3/4 position where proofs settle all but two moves as losses: the tree spends its
    # playouts on the two, and a known winning move decides the root at once
    p = Position.parse("LD1/D3/5/LDDD1D/D2LL/L2L/1L1 L")
    open_moves = {"e3", "e5"}
    known = {m: Value.LOSS for m in p.legal_moves() if m not in open_moves}
    r = mcts.search(p, Limit(playouts=400), dfpn_nodes=0, known=known)
    visits = {m.move: m.visits for m in r.moves}
    assert sum(visits[m] for m in known) <= 1 and sum(visits[m] for m in open_moves) >= 398
    assert {m.move for m in r.moves if m.value is Value.LOSS} == set(known) and r.best in open_moves
    # what the seeding saves: the playouts a search without it spends on the lost moves
    # (fewer with the priors, which favour the two open moves, than with UCT alone)
    plain = mcts.search(p, Limit(playouts=400), dfpn_nodes=0)
    uct = mcts.search(p, Limit(playouts=400), dfpn_nodes=0, select="uct")
    assert sum(m.visits for m in plain.moves if m.move in known) > 1
    assert sum(m.visits for m in uct.moves if m.move in open_moves) < 100
    won = mcts.search(p, Limit(playouts=50), dfpn_nodes=0, known={"e5": Value.WIN})
    assert (won.value, won.source, won.best) == (Value.WIN, "tree", "e5")


def test_a_limit_of_nodes_alone_says_why_there_is_no_best_move():
    # proofs only, no engine: an undecided position has no best move, which used to come
    # back without a word (the Analysis says best is None when the game is over)
    pos = Position.parse("4/5/D5/7/D7/7/6/1L2L/4 L")
    a = analyse(pos, Limit(nodes=500))
    assert (a.value, a.best, a.lines) == (Value.UNKNOWN, None, [])
    assert any("neither seconds nor playouts" in n for n in a.notes), a.notes
    assert not any("playouts" in n for n in analyse(pos, Limit(nodes=500, playouts=20)).notes)


def test_the_proofs_share_one_node_budget():
    """With playouts and no time, the position's proof and its moves' proofs spend
    PROOF_NODES nodes all together (each of them had 20,000 before: a match's engine
    player spent half a million nodes a move on 4/5), and a Limit's nodes all together."""
    from solver.app.analyst import PROOF_NODES

    pos = Position.parse("4/5/D5/7/D7/7/6/1L2L/4 L")  # a random 4/5 game's, 25 moves, undecided
    a = analyse(pos, Limit(playouts=50), seed=1)
    assert not a.proven and 0 < a.nodes <= PROOF_NODES
    # an engine kept through a game (a match's player) does not prove the position again
    from solver.search import mcts
    kept = analyse(pos, Limit(playouts=50), seed=1, engine=mcts.Engine(seed=1))
    assert kept.nodes == a.nodes and kept.value == a.value
    b = analyse(pos, Limit(playouts=50, nodes=3_000), seed=1)
    assert 0 < b.nodes <= 3_000


# -- the top lines (multi-PV) ---------------------------------------------------------------
def _order(a: Analysis, mv) -> tuple:
    """Where a move ranks among the top lines (the order the best move is chosen by):
    proven wins (rules and database first, then the smallest proof), the rest by the
    engine's visits, losses last (the most visits of the resisting search, the longest proof)."""
    if mv.value is Value.WIN:
        return 0, {"rules": 0, "database": 1, "proof": 2}.get(mv.source, 3), mv.nodes
    if mv.value is Value.LOSS:
        return 2, -mv.visits, -mv.nodes
    return 1, -mv.visits


def broken_lines(p: Position, a: Analysis, k: int = 3) -> list[str]:
    """What the top lines of ``a`` (the analysis of ``p``) get wrong; [] if nothing."""
    from solver.app.openings.database import database_line

    if a.best is None:
        return [] if a.lines == [] else [f"{p}: no best move, but lines {a.lines}"]
    out = []
    if len(a.lines) != min(k, len(a.moves)) or a.lines[0].moves != a.line or a.line[:1] != [a.best]:
        out.append(f"{p}: {len(a.lines)} lines, the first {a.lines[:1]}, the line {a.line}")
    firsts = [ln.moves[0] if ln.moves else None for ln in a.lines]
    if len(set(firsts)) != len(firsts) or [ln.move.move for ln in a.lines] != firsts:
        out.append(f"{p}: the lines' first moves {firsts}")
        return out
    for ln in a.lines:
        if ln.move is not a.moves[ln.move.move]:
            out.append(f"{p}: line {firsts[0]}'s value is not the move's")
        q = p
        for m in ln.moves:
            if q.outcome is not None or m not in q.legal_moves():
                out.append(f"{p}: the line {ln.moves} does not play")
                break
            q = q.play(m)
        mv = ln.move
        if mv.source == "database" and ln.moves != [mv.move] + database_line(p.play(mv.move)):
            out.append(f"{p}: {mv.move}'s line {ln.moves} is not the database's")
    # ordered as the moves rank, after the best move; the moves left out rank no better
    ranks = [_order(a, ln.move) for ln in a.lines]
    rest = [_order(a, mv) for m, mv in a.moves.items() if m not in firsts]
    if ranks[1:] != sorted(ranks[1:]) or (rest and len(ranks) > 1 and min(rest) < ranks[-1]):
        out.append(f"{p}: lines ranked {ranks}, the best of the rest {min(rest) if rest else None}")
    if a.lines and ranks[0][0] != min(r[0] for r in ranks + rest):
        out.append(f"{p}: the best move's line {ranks[0]} is not of the best kind")
    return out


def broken_wins(p: Position, a: Analysis) -> list[str]:
    """The winning lines of ``a`` that let the win go where the 2/3 or 3/4 database can
    tell: after the winner's move the loser is lost, after the loser's the winner still wins."""
    out = []
    for ln in a.lines:
        if ln.move.value is not Value.WIN:
            continue
        q, winner = p, p.to_move
        for m in ln.moves:
            q = q.play(m)
            if q.outcome is not None:
                if q.outcome != winner:
                    out.append(f"{p}: {ln.moves} ends in a loss at {m}")
                break
            e = lookup_entry(fresh(q))
            if e is not None and e.value is not (Value.WIN if q.to_move == winner else Value.LOSS):
                out.append(f"{p}: {ln.moves} gives the win away at {m}")
                break
    return out


def test_the_lines_of_database_positions_are_the_databases():
    # the 3/4 positions of the database that it answers whole (the won ones after a move
    # need proofs of their moves, 0.4 s each), and a spread of 2/3's
    checked = 0
    for board, step in (("3/4", 1), ("2/3", 397)):
        db = database_for(Board.parse(board))
        for key in [int(k) for k in db.keys[::step]]:
            p = position_of_key(db.board, key)
            if board == "3/4" and any(db.get(p.play(m)) is None for m in p.legal_moves()):
                continue
            a = analyse(p, EXACT)
            assert broken_lines(p, a) == [] and broken_wins(p, a) == []
            checked += sum(ln.move.source == "database" for ln in a.lines)
    assert checked > 300
    a = analyse(Position.start("2/3"), EXACT, lines=5)
    assert len(a.lines) == 5 and len(a.lines[0].moves) > 4 and broken_lines(Position.start("2/3"), a, 5) == []


def test_the_checker_sees_broken_lines():
    p = Position.start("2/3")
    a = analyse(p, EXACT)
    assert broken_lines(p, a) == [] and broken_wins(p, a) == []
    lost = next(m for m, mv in a.moves.items() if mv.value is Value.LOSS)
    for change in ([1, 0, 2], [0, 0, 2], [0]):
        bad = analyse(p, EXACT)
        bad.lines = [bad.lines[i] for i in change]
        assert broken_lines(p, bad), change
    bad = analyse(p, EXACT)
    bad.lines[1].moves = bad.lines[1].moves[:1] + bad.lines[1].moves[2:]  # a move skipped
    assert broken_lines(p, bad)
    bad = analyse(p, EXACT)
    bad.lines[2] = type(bad.lines[2])(bad.moves[lost], [lost])  # a losing move before the wins left out
    assert broken_lines(p, bad)
    bad = analyse(p, EXACT)
    bad.lines[0].moves = [lost]  # a winning line that does not win
    assert broken_wins(p, bad)


def test_the_lines_of_proofs_keep_the_win():
    # 2/3 without the database: every line a proof's, checked against the database
    p = Position.start("2/3")
    a = analyse(p, Limit(nodes=200_000, playouts=64), database=False)
    assert a.source == "proof" and broken_lines(p, a) == [] and broken_wins(p, a) == []
    assert [ln.move.source for ln in a.lines] == ["proof"] * 3 and all(len(ln.moves) > 4 for ln in a.lines)
    # a lost position: losing lines, the most resisting first
    q = fresh(p.play(a.best))
    b = analyse(q, Limit(nodes=200_000, playouts=64), database=False)
    assert b.value is Value.LOSS and broken_lines(q, b) == []
    assert {ln.move.value for ln in b.lines} == {Value.LOSS}


def test_the_lines_of_estimates_are_the_engines_by_visits():
    p = Position.start("4/5")
    a = analyse(p, Limit(playouts=300))
    assert a.source == "engine" and broken_lines(p, a) == []
    visits = [ln.move.visits for ln in a.lines]
    assert visits == sorted(visits, reverse=True) and visits[-1] >= max(
        mv.visits for m, mv in a.moves.items() if m not in {ln.moves[0] for ln in a.lines})
    assert len(a.line) > 1  # the tree's principal line goes past the move
    d = a.as_dict()
    assert [ln["line"] for ln in d["lines"]] == [ln.moves for ln in a.lines] and d["lines"][0]["line"] == d["line"]
    assert {k: v for k, v in d["lines"][1].items() if k != "line"} == a.lines[1].move.as_dict()


@pytest.mark.parametrize("position", ["1LLD/LL3/1LDLDD/1L1DD1D/3LDL1L/1L1LDL1/2L1D1/1DLDD/3D D",
                                      "3D/2DDL/DD1DLD/D2DL1L/DD1DLDDD/DDDLLL1/2DLLL/DLL2/DL2 L"])
def test_every_line_of_an_undecided_position_estimates_before_losses(position):
    # undecided 4/5 positions (from random games) with moves proven lost and moves
    # estimated: asked for every move's line, the estimates come before the proven losses
    p = Position.parse(position)
    a = analyse(p, Limit(nodes=5_000, playouts=200), lines=100)
    values = [ln.move.value for ln in a.lines]
    assert a.value is Value.UNKNOWN and Value.LOSS in values and Value.UNKNOWN in values
    assert len(a.lines) == len(p.legal_moves()) and broken_lines(p, a, 100) == []
    kinds = [2 if v is Value.LOSS else 1 for v in values]
    assert kinds == sorted(kinds), [(ln.move.move, ln.move.shown()) for ln in a.lines]


def test_the_engines_line_through_each_root_move():
    # the tree's principal line through each root move: the move first, then the tree's
    # choices; through a move the tree proves winning (2/3 positions the database holds,
    # 4 to 6 stones in) the win is kept at every ply the database can judge
    from solver.search import mcts

    db = database_for(Board.parse("2/3"))
    deep = 0
    for key in db.keys[::211][:60]:
        p = position_of_key(db.board, int(key))
        if db.get(p).value is not Value.WIN or not 4 <= len(p.stones("L")) + len(p.stones("D")) <= 6:
            continue
        r = mcts.search(p, Limit(playouts=3000), dfpn_nodes=0)
        assert r.line == next((m.line for m in r.moves if m.move == r.best), [])
        for m in r.moves:
            assert m.line[:1] == ([m.move] if m.visits or m.value.decided else [])
            q = p
            for x in m.line:
                q = q.play(x)  # an illegal move raises
        for m in r.moves:
            if m.value is not Value.WIN:
                continue
            deep += len(m.line) >= 6
            q, winner = p, p.to_move
            for x in m.line:
                q = q.play(x)
                e = None if q.outcome is not None else lookup_entry(fresh(q))
                assert e is None or e.value is (Value.WIN if q.to_move == winner else Value.LOSS), (str(p), m.line, x)
    assert deep >= 5
    # root-parallel searches: each move's line that of the search that visited it most
    r = mcts.search(Position.start("3/4"), Limit(playouts=600), workers=2, dfpn_nodes=0)
    assert r.line == next(m.line for m in r.moves if m.move == r.best) and len(r.line) > 1
    assert all(m.line[:1] == [m.move] for m in r.moves if m.visits)


def test_lookup_shows_the_top_lines(run_cli):
    r = run_cli("lookup", "2/3", "--lines", "2", code=0)
    a = analyse(Position.start("2/3"), lines=2)
    rows = r.stdout.split("top lines (2")[1].splitlines()[2:4]
    assert [row.split()[-len(ln.moves):] for row, ln in zip(rows, a.lines)] == [ln.moves for ln in a.lines]
    assert all(ln.move.shown(brief=True) in row for row, ln in zip(rows, a.lines))  # the value as the move says it
    mv = MoveValue("c2", estimate=Estimate(0.6234, 80, 0.55))
    assert (mv.shown(brief=True), mv.shown()) == ("55% (estimate)", f"estimate {mv.estimate}")
    assert MoveValue("c2").shown(brief=True) == "not searched" == MoveValue("c2").shown()
    d = json.loads(run_cli("lookup", "2/3", "--lines", "4", "--json", code=0).stdout)
    assert len(d["lines"]) == 4 and d["lines"][0]["line"] == d["line"]
    assert "top lines" not in run_cli("lookup", "2/3", "--lines", "0", code=0).stdout
    assert run_cli("lookup", "2/3", "--lines", "-1").code == 2
    from solver.app.analyst import AnalysisError

    for bad in (-1, 101, 2.5, True, "3"):
        with pytest.raises(AnalysisError):
            analyse(Position.start("2/3"), lines=bad)
