"""df-pn against alpha-beta and against plain minimax on the networkx reference rules;
its proof re-walk against tampered tables; budgets and chunking."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Board, Position
from solver.rules import core
from solver.reference import rules as R
from solver.search import dfpn as F
from solver.search.prove import prove
from solver.search.solve import solve
from solver.search.limit import Limit
from solver.search.values import Value

from refplay import VALUE, minimax, random_position, reference_of, replay_line

def test_every_first_move_of_1_2_agrees_with_minimax():
    b = Board.parse("1/2")
    root = Position.start(b)
    light, dark, side = reference_of(root)
    for m in root.legal_moves():
        p = prove(root.play(m))
        assert p.verified and p.method == "dfpn"
        v = minimax(b, *R.play(b, light, dark, side, b.index(m)), ((light, dark, side),))
        assert p.value == VALUE[v], m


def test_every_first_move_of_2_3_agrees_with_alpha_beta():
    # (plain minimax from the empty 2/3 board takes minutes: alpha-beta is checked
    # against it a few plies in, in test_solver.py, and df-pn below)
    root = Position.start(Board.parse("2/3"))
    for m in root.legal_moves():
        p = prove(root.play(m))
        assert p.verified
        assert p.value == solve(root.play(m), verify=False).value, m


@pytest.mark.parametrize("seed", range(10))
def test_2_3_positions_a_few_plies_in_agree_with_minimax(seed):
    b = Board.parse("2/3")
    pos = random_position(b, 4 + seed % 3, seed + 7)
    if pos.outcome is not None:
        return
    p = prove(pos)
    assert p.value == VALUE[minimax(b, *reference_of(pos))], str(pos)


def test_the_empty_2_3_board_is_a_win_with_a_line_that_ends_in_it():
    root = Position.start(Board.parse("2/3"))
    p = prove(root)
    assert p.value == "win" and p.verified
    assert replay_line(root, p.line) == "L"


@settings(max_examples=40)
@given(seed=st.integers(0, 10**6), plies=st.integers(1, 9))
def test_random_2_3_positions_agree_with_alpha_beta(seed, plies):
    pos = random_position(Board.parse("2/3"), plies, seed)
    if pos.outcome is not None:
        return
    p = prove(pos, Limit(tt_mb=4))
    a = solve(pos, verify=False)
    assert p.value == a.value, str(pos)
    assert p.verified
    winner = pos.to_move if p.value == "win" else ("D" if pos.to_move == "L" else "L")
    assert replay_line(pos, p.line) == winner, (str(pos), p.line)


@pytest.mark.parametrize("seed", range(4))
def test_small_chunks_and_tiny_tables_give_the_same_values(seed):
    """Chunks restart the search from the root and a tiny table evicts entries all the
    time (so the re-walk must search evicted parts again): same values."""
    pos = random_position(Board.parse("2/3"), 3 + seed, seed)
    if pos.outcome is not None:
        return
    whole = prove(pos)
    # a chunk must outlast one walk from the root to a leaf, or nothing is ever stored
    chunked = prove(pos, Limit(nodes=1_000_000), chunk_nodes=60)
    tiny = prove(pos, Limit(nodes=1_000_000, tt_mb=0.002))
    assert chunked.value == whole.value and chunked.verified
    assert tiny.value == whole.value and tiny.verified


@pytest.mark.parametrize("seed", range(3))
def test_3_4_positions_deep_in_agree_with_alpha_beta(seed):
    pos = random_position(Board.parse("3/4"), 16 + seed, seed + 100)
    if pos.outcome is not None:
        return
    p = prove(pos, Limit(tt_mb=16))
    a = solve(pos, Limit(nodes=5_000_000), verify=False)
    if a.value != "unknown":
        assert p.value == a.value, str(pos)


def test_a_budget_gives_unknown_within_it():
    pos = Position.start(Board.parse("3/4")).play("d3")
    p = prove(pos, Limit(nodes=3_000, tt_mb=4))
    assert p.value == "unknown" and not p.verified
    assert p.nodes <= 3_000


def test_finished_positions_need_no_search():
    pos = Position.parse("1/2/1 L").play("a1").play("b1")
    assert pos.outcome is not None
    p = prove(pos)
    assert p.nodes == 0 and p.value == ("win" if pos.outcome == pos.to_move else "loss")


def _table_row(t, D, pos: Position) -> int:
    keys = pos.zobrist_symmetric()
    key = np.uint64(keys.min())
    if D.limits[F.PROVER] == 1:
        key ^= F.PROVER_SALT
    key ^= F.KEY_SALT
    return F._bucket(key, D.tt_key.shape[0]), key


def test_the_rewalk_rejects_a_forged_proof():
    """Write "Light wins" into the table for a position Light loses and for all its
    children: the re-walk must not accept it (it searches again and finds the loss)."""
    board = Board.parse("2/3")
    t = core.tables(board)
    root = Position.start(board)
    losing = root.play("c1")  # Light's c1 loses: Dark to move wins
    assert prove(losing).value == "win"
    pos = losing.play(prove(losing).line[0])  # Light to move, lost
    assert prove(pos).value == "loss"
    D = F.new_dfpn(t, 0, 1)
    for p in [pos] + [pos.play(m) for m in pos.legal_moves()]:
        if p.outcome is not None:
            continue
        base, key = _table_row(t, D, p)
        D.tt_key[base], D.tt_pn[base], D.tt_dn[base] = key, 0, F.INF
    ply = F.load_root(D, t, [(pos.bitboards, pos.side_index)])
    assert F.rewalk(t, D, ply, pos.side_index, 0) == 0
    assert D.stats[F.RESEARCHED] >= 1


def test_a_repetition_counts_against_the_prover():
    """The hand-found cycle f5 d6 d4 f3: with the start on the path, the position after
    the four moves is a repetition, so df-pn counts it (and never stores it)."""
    start = Position.parse("4/5/1L3L/2D2D1/4D3/2DL3/L4L/2D1D/4 L")
    pos = start
    for m in "f5 d6 d4 f3".split()[:3]:
        pos = pos.play(m)
    t = core.tables(start.board)
    D = F.new_dfpn(t, 0, 1)
    path = [(start.bitboards, 0)]
    mid = start
    for m in "f5 d6 d4".split():
        mid = mid.play(m)
        path.append((mid.bitboards, mid.side_index))
    ply = F.load_root(D, t, path)
    nc, _ = F._expand(t, D, ply, mid.side_index)
    cells = [int(D.ch_cell[ply, i]) for i in range(nc)]
    f3 = int(t.cell_of[start.board.index("f3")])
    assert D.ch_flag[ply, cells.index(f3)] == F.TAINTED
    assert D.stats[F.REPETITIONS] == 1


@settings(max_examples=25)
@given(seed=st.integers(0, 10**6), plies=st.integers(2, 9))
def test_df_pn_alpha_beta_and_the_horizon_search_agree(seed, plies):
    pos = random_position(Board.parse("2/3"), plies, seed)
    if pos.outcome is not None:
        return
    values = {m: prove(pos, Limit(tt_mb=4), method=m) for m in ("dfpn", "alphabeta", "horizon")}
    assert len({p.value for p in values.values()}) == 1, {m: p.value for m, p in values.items()}
    assert values["horizon"].value != "unknown"
    # both lines are games the winner wins (df-pn's loser resists with the reply the
    # search worked hardest on, which need not be the longest resistance, so the lengths
    # are not compared)
    winner = pos.to_move if values["dfpn"].value == "win" else ("D" if pos.to_move == "L" else "L")
    assert replay_line(pos, values["dfpn"].line) == winner
    assert replay_line(pos, values["horizon"].line) == winner
    assert values["horizon"].stats["plies"] == len(values["horizon"].line)


@pytest.mark.parametrize("seed", [0, 3, 4, 5])
def test_the_three_searches_agree_on_3_4_endgames(seed):
    pos = random_position(Board.parse("3/4"), 14 + seed, seed + 400)
    if pos.outcome is not None:
        return
    values = {m: prove(pos, Limit(nodes=3_000_000, tt_mb=16), method=m).value
              for m in ("dfpn", "alphabeta", "horizon")}
    decided = {v for v in values.values() if v != "unknown"}
    assert values["dfpn"] != "unknown"
    assert len(decided) == 1, (str(pos), values)


def test_a_spent_time_budget_gives_unknown_for_every_method():
    pos = Position.start(Board.parse("3/4")).play("d3")
    for method in ("dfpn", "alphabeta", "horizon"):
        p = prove(pos, Limit(seconds=1e-9, tt_mb=1), method=method)
        assert p.value == "unknown", method


def test_a_re_walk_longer_than_a_chunk_finishes():
    # the empty 2/3 board's proof re-walks 239 positions: several chunks of 100
    p = prove(Position.start(Board.parse("2/3")), chunk_nodes=100)
    assert p.value == "win" and p.verified
    assert p.stats["rewalked"] > 100


# --- latency: the table costs what the search uses, the clock starts after loading ------
def test_prove_names_its_methods_and_refuses_others():
    from solver.search.prove import METHODS, UnknownMethodError

    assert set(METHODS) == {"dfpn", "alphabeta", "horizon"}
    assert all(isinstance(d, str) and d and "\n" not in d for d in METHODS.values())
    pos = Position.start(Board.parse("1/2"))
    with pytest.raises(UnknownMethodError, match="'nope'.*dfpn, alphabeta, horizon"):
        prove(pos, method="nope")
    assert issubclass(UnknownMethodError, ValueError)


@pytest.mark.parametrize("method", ["dfpn", "alphabeta", "horizon"])
def test_after_load_kernels_a_proof_compiles_nothing(method):
    """load_kernels calls each kernel with the argument types prove gives it: after it,
    prove finds every signature it needs (no compile inside a budget)."""
    from solver.search import alphabeta as ab
    from solver.search import horizon as hz
    from solver.search.prove import load_kernels

    board = Board.parse("2/3")
    load_kernels(board, method)
    kernels = {"dfpn": [F.mid, F.rewalk, F.probe], "alphabeta": [ab.negamax],
               "horizon": [hz.win_within]}[method] + [core.zobrist_keys]
    before = [len(k.signatures) for k in kernels]
    pos = Position.start(board).play("c1").play("e2")  # with a history of two positions
    p = prove(pos, method=method, max_depth=12)
    assert p.value != "unknown"
    assert [len(k.signatures) for k in kernels] == before


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc")
@pytest.mark.parametrize("method", ["dfpn", "alphabeta", "horizon"])
def test_a_big_table_costs_only_what_the_search_writes(method):
    """An empty table is all zero bits, so its pages are mapped as the search writes
    them: a small proof with a 1 GiB table touches a few MiB of it."""
    pos = Position.start(Board.parse("2/3")).play("c1")
    small = prove(pos, Limit(tt_mb=1), method=method, max_depth=12)
    before = _rss_bytes()
    big = prove(pos, Limit(tt_mb=1024), method=method, max_depth=12)
    grown = _rss_bytes() - before
    assert (big.value, big.nodes) == (small.value, small.nodes)
    assert grown < 64 * 2**20, f"{grown / 2**20:.0f} MiB resident for a {big.nodes}-node search"


def test_a_time_budget_is_spent_searching():
    """The clock starts after the kernels load: a short budget searches nodes."""
    p = prove(Position.start(Board.parse("3/4")), Limit(seconds=0.3, tt_mb=16))
    assert p.value == "unknown" and p.nodes > 1_000
    assert p.seconds < 1.0


_COLD_RUN = """
from solver import Board, Position
from solver.search.prove import prove
pos = Position.start(Board.parse("{board}")).play("{move}")
print(prove(pos, method="dfpn").value, flush=True)
"""


@pytest.mark.subprocess
def test_a_cold_kernel_cache_is_announced_before_compiling(tmp_path, tree_env):
    """With an empty numba cache, one line on stderr says that the board's kernels
    compile, before the wait (the process is stopped once the line is read)."""
    code = _COLD_RUN.format(board="1/2", move="a1")
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True,
                            stdout=subprocess.DEVNULL, env=dict(tree_env, NUMBA_CACHE_DIR=str(tmp_path)))
    try:
        line = proc.stderr.readline()
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
    assert line.startswith("compiling the 1/2 kernels once: about "), line


@pytest.mark.subprocess
def test_a_warm_kernel_cache_prints_nothing(tree_env):
    prove(Position.start(Board.parse("1/2")).play("a1"))  # compiles into the cache if need be
    r = subprocess.run([sys.executable, "-c", _COLD_RUN.format(board="1/2", move="a1")],
                       capture_output=True, text=True, env=tree_env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "" and r.stdout.strip() in ("win", "loss")


def test_zeroed_tables_are_zeros_that_can_take_huge_pages_later(monkeypatch):
    from solver.search import memory

    advised = []
    monkeypatch.setattr(memory, "_advise", lambda mm, name: advised.append(name))
    a = memory.zeroed(1 << 20, np.uint32)
    assert a.shape == (1 << 20,) and a.dtype == np.uint32 and a.flags.writeable
    assert not a[::4096].any()
    memory.prefer_huge_pages(a, np.zeros(3))  # a numpy array of its own: left alone
    if hasattr(__import__("mmap"), "MAP_ANONYMOUS"):
        assert advised == ["MADV_NOHUGEPAGE", "MADV_HUGEPAGE"]
    assert memory.zeroed(10, np.int16).tolist() == [0] * 10
    with pytest.raises(MemoryError, match="cannot allocate"):
        memory.zeroed(1 << 60, np.uint64)


def test_compiling_is_announced_once_per_board(monkeypatch, capsys):
    """One line before a cold compile, whatever compiles next on the same board (the
    rules kernels, then a search's)."""
    t = core.tables(Board.parse("2/3"))
    monkeypatch.setattr(core, "_ANNOUNCED", set())
    monkeypatch.setattr(core, "is_compiled", lambda fn, *args: False)
    calls = []
    for what in ("the df-pn search", "the horizon search"):
        core.load_kernels(t, what, [(calls.append, (what,))])
    err = capsys.readouterr().err.splitlines()
    assert err == [f"compiling the 2/3 kernels once: about {core.compile_seconds(t)[1]} s for the df-pn search "
                   "(later runs load them from the cache)"]
    assert calls == ["the df-pn search", "the horizon search"]
    # a warm cache: no line, the calls made all the same
    monkeypatch.setattr(core, "_ANNOUNCED", set())
    monkeypatch.setattr(core, "is_compiled", lambda fn, *args: True)
    core.load_kernels(t, "the df-pn search", [(calls.append, ("again",))])
    assert capsys.readouterr().err == "" and calls[-1] == "again"


def test_is_compiled_reads_the_cache_of_a_loaded_kernel():
    t = core.tables(Board.parse("1/2"))
    st = core.new_position(t)
    core.zobrist_keys(t, st, 0, np.zeros(4, np.uint64))
    assert core.is_compiled(core.zobrist_keys, t, st, 0, np.zeros(4, np.uint64)) is True
    # a signature never used: 2-D keys
    assert core.is_compiled(core.zobrist_keys, t, st, 0, np.zeros((1, 4), np.uint64)) is False


def _certificate_file(pos: Position, folder: Path, name: str, winner: str | None = None) -> Path:
    """``pos``'s certificate written to ``folder/name``; with ``winner``, forged to claim it."""
    import json

    from solver.search.certificate import write_certificate

    path = folder / name
    write_certificate(path, pos, prove(pos, Limit(tt_mb=16)), tt_mb=16)
    if winner is not None:
        data = json.loads(path.read_text())
        data["winner"] = winner
        path.write_text(json.dumps(data))
    return path


def test_a_planted_certificate_guides_a_proof_and_never_decides_one(tmp_path):
    """Positions of a certificate put in the table (the pie runner's ``--plant``) make a
    proof through them cheaper, and a proof with them has plain df-pn's value and a
    certificate the checker accepts; a certificate forged for the loser leaves every value
    plain df-pn's or unknown, never the other player's."""
    from solver.reference.certificate import check
    from solver.search.certificate import write_certificate
    from solver.search.prove import new_search, plant_certificate

    for text in ("2/3/4/3/2 L", "DL1/L3/2D2/2L3/L1LL1/2L1/L2 L", "DD1/DD2/LD3/1LD3/1L1D1/2D1/1L1 L"):
        pos = Position.parse(text)
        plain = prove(pos, Limit(tt_mb=16))
        search = new_search(pos.board, 16)
        cert = _certificate_file(pos, tmp_path, "c.json")
        assert plant_certificate(search, pos.board, cert) > 0
        again = prove(pos, Limit(tt_mb=16), search=search)
        assert again.verified and again.value == plain.value and again.nodes < plain.nodes, text
        write_certificate(tmp_path / "again.json", pos, again, tt_mb=16)
        assert check(tmp_path / "again.json") > 0
    b = Board.parse("2/3")
    start = Position.start(b)
    forged = _certificate_file(start, tmp_path, "forged.json", winner="D")  # Light wins 2/3
    search = new_search(b, 16)
    plant_certificate(search, b, forged)
    positions = [start] + [random_position(b, plies, seed) for seed in range(10) for plies in (1, 3)]
    for pos in (p for p in positions if p.outcome is None):
        p = prove(pos, Limit(tt_mb=16), search=search)
        assert p.value in (prove(pos, Limit(tt_mb=16)).value, Value.UNKNOWN), str(pos)


def test_certificate_text_is_read_into_the_positions_stones():
    from solver.rules.randomgame import random_positions
    from solver.search.prove import _cells_in_text_order, _stones

    for name in ("2/3", "3/4", "5/6", "7/8"):
        b = Board.parse(name)
        t = core.tables(b)
        cells = _cells_in_text_order(b, t)
        for pos in random_positions(b, 30, 10):
            st, side = _stones(str(pos), cells, t)
            assert np.array_equal(st, pos.bitboards) and side == pos.side_index, str(pos)


def test_proofs_that_share_a_table_agree_with_alpha_beta_and_reuse_its_work():
    """One table through many proofs (the opening classes' way): every value is plain
    df-pn's and alpha-beta's, whatever the table holds from the proofs before, and a
    position proven again costs less than the first time."""
    from solver.search.prove import clear_search, new_search, table_use

    b = Board.parse("2/3")
    search = new_search(b, 8)
    positions = [random_position(b, plies, seed) for seed in range(12) for plies in (2, 4)]
    positions = [p for p in positions if p.outcome is None]
    first = {}
    for pos in positions:
        p = prove(pos, Limit(tt_mb=8), search=search)
        assert p.verified and p.value == solve(pos, verify=False).value, str(pos)
        first.setdefault(str(pos), p.nodes)
    used, solved = table_use(search)
    assert 0 < solved <= used <= 1
    again = prove(positions[0], Limit(tt_mb=8), search=search)
    assert again.value == prove(positions[0]).value and again.nodes < first[str(positions[0])]
    clear_search(search)
    assert table_use(search) == (0.0, 0.0)
    with pytest.raises(ValueError, match="another board"):
        prove(Position.start("3/4"), search=search)
    with pytest.raises(ValueError, match="plain df-pn"):
        prove(positions[0], method="alphabeta", search=search)
