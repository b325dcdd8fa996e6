"""The puzzle generators (:mod:`puzzles.generate`, :mod:`puzzles.sat`) and their driver.

- every SAT candidate is a valid position that only adds at most MAX_ADDED attacker
  stones on empty points, and the target has the number of paths plus fresh lines the
  encoding asks for, counted here with the networkx reference (``solver.reference``);
- the verdict clauses steer the next candidate as documented;
- a unit is reproducible; every puzzle it yields is sound by the verifier and, for n = 1
  on 4/5, by the reference twin too;
- the driver writes ``count`` puzzles, resumes a run, refuses another run's state, and a
  run stopped in its progress callback leaves a readable file.
"""

from __future__ import annotations

import json

import pytest

from puzzles import generate as G
from puzzles import sat
from puzzles.verdict import verify
from puzzles.record import load_jsonl
from puzzles.reference import reference_verdict
from solver import Board, Position
from solver import reference as R


def _position(board: str, seed: int) -> Position:
    """The first seed position from ``seed`` on whose game has not ended."""
    while True:
        pos = G.seed_position(Board.parse(board), seed)
        if pos is not None:
            return pos
        seed += 1


def _items(pos: Position, target: str) -> int:
    """Paths of the target group (reference rules) plus its fresh lines."""
    b = pos.board
    y = "D" if pos.to_move == "L" else "L"
    own = frozenset(b.index(p) for p in pos.stones(y))
    other = frozenset(b.index(p) for p in pos.stones(pos.to_move))
    group = next(g for g in R.groups(b, own) if b.index(target) in g)
    paths = sum(1 for a, c in R.paths(b, own, other) if (a in group) != (c in group))
    occupied = own | other
    near = {q for s in group for q in b.neighbours[s]}
    fresh = sum(
        1 for s in group for ray in b.rays[s]
        if len(ray) >= 2 and ray[0] not in occupied and ray[1] not in occupied and ray[1] not in near
    )
    return paths + fresh


@pytest.mark.parametrize("board,n,seed", [("4/5", 1, 3), ("4/5", 2, 5), ("6/7", 2, 7), ("6/7", 3, 11)])
def test_sat_candidates_keep_the_encoded_shape(board, n, seed):
    pos = _position(board, seed)
    x = pos.to_move
    y = "D" if x == "L" else "L"
    checked = 0
    for target in G._defender_targets(pos):
        with sat.Reshaper(pos, target, n) as shaper:
            for _ in range(3):
                cand = shaper.next()
                if cand is None:
                    break
                checked += 1
                added = cand.stones(x) - pos.stones(x)
                assert cand.stones(y) == pos.stones(y)
                assert pos.stones(x) <= cand.stones(x)
                assert len(added) <= sat.MAX_ADDED
                assert not added & (pos.stones(y) | pos.stones(x))
                # valid: the defender, not to move, has no dead group (Position checked it)
                assert cand.to_move == x and not cand.dead_groups(y)
                k = _items(cand, target)
                assert 1 <= k <= n and (n == 1 or k >= n)
                shaper.learn("cooked")
    assert checked > 0


def test_learned_clauses_steer_the_next_candidate():
    pos = _position("6/7", 7)
    for target in G._defender_targets(pos):
        with sat.Reshaper(pos, target, 2) as shaper:
            first = shaper.next()
            if first is None:
                continue
            before = set(shaper.added)
            shaper.learn("escapes")
            second = shaper.next()
            if second is None:
                continue
            assert set(shaper.added) - before, "escapes: a stone outside the last set"
            if shaper.added:
                last = set(shaper.added)
                shaper.learn("shorter")
                third = shaper.next()
                if third is not None:
                    assert not last <= set(shaper.added), "shorter: one of those stones dropped"
            return
    pytest.fail("no target with two candidates")


def test_units_are_reproducible_and_sound():
    # the same unit again after another one in the same process (as a worker runs them):
    # the same candidates and puzzles, node counts included (with the tables kept from
    # unit to unit, the repeat found 324 nodes where the first run needed 918)
    a = G.run_unit("sat", "4/5", 3, 12345, "test")
    G.run_unit("sat", "4/5", 3, 999, "test")
    b = G.run_unit("sat", "4/5", 3, 12345, "test")
    assert a.puzzles, "this seed gives a puzzle"
    assert [p.to_dict() for p in a.puzzles] == [p.to_dict() for p in b.puzzles]
    assert a.candidates == b.candidates >= len(a.puzzles)
    a = G.run_unit("sat", "4/5", 1, 12345, "test")
    found = a.puzzles + G.run_unit("baseline", "4/5", 1, 777, "test").puzzles
    assert found, "these seeds give puzzles"
    for p in found:
        pos = p.to_position()
        v = verify(pos, p.target, p.n)
        assert v.sound and v.keys == [p.key]
        ref = reference_verdict(pos, p.target, p.n)
        assert ref["sound"] and ref["keys"] == [p.key]
        assert 1 <= p.difficulty <= 5 and p.generator in ("sat", "baseline")


def test_difficulty_grows_with_length_and_effort():
    v = verify(Position.parse("3/1L2/5/4D1/4L/1L2/3 L"), "d5", 1)
    low = G.difficulty(v._replace(nodes=10, tempting=0, quiet=False), 1)
    assert low == (0.0, 1)
    assert G.difficulty(v._replace(nodes=10, tempting=0, quiet=True), 1)[0] > low[0]
    assert G.difficulty(v._replace(nodes=10, tempting=0, quiet=False), 3)[0] > low[0]
    assert G.difficulty(v._replace(nodes=10**6, tempting=0, quiet=False), 1)[0] > low[0]
    assert G.difficulty(v._replace(nodes=10, tempting=4, quiet=False), 1)[0] > low[0]
    tempting = G.difficulty(v._replace(nodes=10, tempting=4, quiet=False), 1)[0]
    assert G.difficulty(v._replace(nodes=10, tempting=4, late=("a1",), quiet=False), 1)[0] > tempting
    assert G.difficulty(v._replace(nodes=10**8, tempting=50, quiet=True), 5)[1] == 5


def test_driver_writes_resumes_and_refuses_another_run(tmp_path):
    out = str(tmp_path / "s.jsonl")
    st = G.generate("4/5", 1, 3, out, seed=9)
    first = load_jsonl(out)
    assert len(first) == 3 and st["kept"] == 3
    assert [p.id for p in first] == ["m45-c1-0001", "m45-c1-0002", "m45-c1-0003"]
    st2 = G.generate("4/5", 1, 8, out, seed=9)
    more = load_jsonl(out)
    assert len(more) == 8 and st2["units"] > st["units"]
    assert [p.to_dict() for p in more[:3]] == [p.to_dict() for p in first]
    assert len({(p.position, p.target) for p in more}) == 8
    with pytest.raises(ValueError, match="records another run"):
        G.generate("4/5", 1, 8, out, seed=10)
    state = json.loads((tmp_path / "s.jsonl.state.json").read_text())
    assert state["found"] >= 8 and state["cpu_seconds"] > 0


def test_a_run_stopped_between_batches_leaves_a_readable_file(tmp_path):
    out = str(tmp_path / "s.jsonl")

    def stop(state):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        G.generate("4/5", 1, 50, out, seed=3, progress=stop)
    kept = load_jsonl(out)
    state = json.loads((tmp_path / "s.jsonl.state.json").read_text())
    assert state["kept"] == len(kept) and state["units"] > 0
    G.generate("4/5", 1, len(kept) + 2, out, seed=3)
    assert len(load_jsonl(out)) == len(kept) + 2


def test_a_second_run_on_the_same_output_is_refused(tmp_path):
    out = str(tmp_path / "s.jsonl")
    with G.exclusive(out + ".lock"):
        with pytest.raises(ValueError, match="another run is writing"):
            G.generate("4/5", 1, 2, out, seed=1)
    G.generate("4/5", 1, 2, out, seed=1)
    assert len(load_jsonl(out)) == 2


def _children(pid: int) -> set[int]:
    """Every descendant of ``pid`` (Linux /proc)."""
    import os

    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for task in os.listdir(f"/proc/{p}/task") if os.path.exists(f"/proc/{p}/task") else []:
            try:
                with open(f"/proc/{p}/task/{task}/children") as f:
                    kids = {int(c) for c in f.read().split()}
            except OSError:
                continue
            todo.extend(kids - out)
            out |= kids
    return out


def test_a_killed_run_stops_its_workers_and_resumes(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    out = str(tmp_path / "k.jsonl")
    cmd = [sys.executable, "-m", "solver.cli", "puzzles", "generate", "--board", "4/5", "--n", "1",
           "--count", "100000", "--jobs", "2", "--seed", "4", "--out", out]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while not os.path.exists(out + ".state.json") and time.monotonic() < deadline:
        time.sleep(0.2)  # a first batch written: the workers are running
    workers = _children(proc.pid)
    assert workers, "the run has worker processes"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "the same command resumes" in err
    time.sleep(2)
    assert not any(os.path.exists(f"/proc/{w}") for w in workers), "workers outlived the run"
    kept = load_jsonl(out)
    with open(out + ".state.json") as f:
        assert kept and json.loads(f.read())["kept"] == len(kept)
