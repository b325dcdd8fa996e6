"""Puzzle generators: the baseline and the SAT-backed one, with one driver.

Both draw *seed positions* from seeded random games (midgame to endgame: a number of
plies between 30% and 85% of the board's points) and offer *candidates* (a position and
a target) to the exact verifier (:mod:`puzzles.verdict` over
:mod:`solver.search.capture`); only sound puzzles are kept.

- **baseline**: every group of the player not to move in the seed position is a
  candidate, as it stands.
- **sat**: for each such group, :mod:`puzzles.sat` builds a small MaxSAT problem whose
  solutions add a few stones of the attacker near the group so that the group is in
  trouble (few paths and few ways to make new ones) while every defender group stays
  alive; each solution is a candidate, and the verifier's verdict becomes new clauses.

Work is cut into *units*, one seed position each, numbered from the run's seed, so a
run resumes at the first unit it has not finished.  A unit gives the same puzzles in
every run and every worker: the verifier's tables are emptied before each candidate
(what a worker proved for earlier units used to change the nodes a candidate needed,
and so which candidates the node budget dropped).  A run holds a lock on its output
file, writes the puzzles and then its state after every batch, and keeps one pool of
worker processes for the whole run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import random
import time
from dataclasses import dataclass, field

from solver import Board, Position
from solver.search import capture

from .record import Puzzle
from .verdict import Verdict, verify

__all__ = [
    "BUDGET", "QUICK", "RATING_CUTS", "difficulty", "check", "proven", "seed_position", "Found",
    "baseline_unit", "sat_unit", "run_unit",
]

#: node budget of one verification, by n: a candidate that needs more is dropped
BUDGET = {1: 200_000, 2: 300_000, 3: 600_000, 4: 1_500_000, 5: 3_000_000}
#: node budget of the first search, for a capture at all (see :func:`check`)
QUICK = {1: 200_000, 2: 200_000, 3: 200_000, 4: 200_000, 5: 200_000}
#: how many failing natural tries count, at most, in the score
_TEMPTING_CAP = 12
#: how many tries that fail only late count, at most
_LATE_CAP = 4
#: the scores at which ratings 2, 3, 4 and 5 start
RATING_CUTS = (1.5, 3.0, 4.5, 6.0)


def difficulty(v: Verdict, n: int) -> tuple[float, int]:
    """(score, rating 1..5) of a sound puzzle.

    The score adds the length (each X move beyond the first is worth 1), the verifier's
    effort (half the log10 of its nodes beyond a hundred), the *natural tries* that fail
    (first moves on the target's paths or lines or touching it: 0.15 each, at most 12),
    the tries among them that *fail only late*, capturing within n + 1 (0.5 each, at
    most 4), and 1 for a *quiet* key (one that cuts none of the target's present
    paths).  The rating cuts the score at :data:`RATING_CUTS`: one scale for every n, so
    a longer puzzle rates higher, while the puzzles of one n spread over several.
    """
    effort = max(0.0, math.log10(max(v.nodes, 1)) - 2.0)
    score = ((n - 1) + 0.5 * effort + 0.15 * min(v.tempting, _TEMPTING_CAP)
             + 0.5 * min(len(v.late), _LATE_CAP) + (1.0 if v.quiet else 0.0))
    score = round(score, 3)  # the rating is that of the score as recorded
    return score, 1 + sum(score >= cut for cut in RATING_CUTS)


def seed_position(board: Board, unit_seed: int) -> Position | None:
    """The position of a seeded random game after a seeded number of plies (30%-85% of
    the points); None if the game ended first."""
    rng = random.Random(unit_seed)
    plies = rng.randint(int(0.3 * board.size), int(0.85 * board.size))
    pos = Position.start(board)
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves:
            return None
        pos = pos.play(rng.choice(moves))
    return None if pos.outcome is not None else pos


@dataclass
class Found:
    """What one unit produced: its sound puzzles (ids filled in later) and its effort."""

    puzzles: list = field(default_factory=list)
    candidates: int = 0
    seconds: float = 0.0


def _defender_targets(pos: Position) -> list[str]:
    """One stone of each group of the player not to move (its first point by name)."""
    y = "D" if pos.to_move == "L" else "L"
    return [min(g, key=pos.board.index) for g in pos.groups(y)]


def check(pos: Position, target: str, n: int, generator: str, version: str) -> tuple[Puzzle | None, str]:
    """``(puzzle, why)``: the puzzle if (pos, target, n) is sound within the node budget,
    else None and why not: ``'escapes'`` (no capture within n, or none found within
    :data:`QUICK` nodes), ``'cooked'`` (more than one key), ``'shorter'`` (a capture
    within n - 1) or ``'budget'``.

    A quick "can X capture at all" search comes first, with a small budget: most
    candidates fail it, and proving that a target escapes costs far more than finding
    a capture (6/7, n = 5, SAT candidates: 400 to 120,000 nodes for the sound ones, a
    median of 500,000 for the escapes, up to 3 million).  A candidate whose capture is
    not found that quickly is dropped unproven, which is a generator's right: only what
    is kept must be proven.  The tables are emptied first, so the verdict and its node
    count depend on the candidate alone."""
    capture.forget()
    budget = BUDGET.get(n, BUDGET[max(BUDGET)])
    quick = capture.capture_within(pos, target, n, max_nodes=QUICK.get(n, QUICK[max(QUICK)]))
    if not quick:
        return None, "escapes"
    if n > 1:
        quicker = capture.capture_within(pos, target, n - 1, max_nodes=budget)
        if quicker is None:
            return None, "budget"
        if quicker:
            return None, "shorter"
    return proven(pos, target, n, generator, version, budget)


def proven(pos: Position, target: str, n: int, generator: str, version: str,
           max_nodes: int = 0) -> tuple[Puzzle | None, str]:
    """``(puzzle, why)`` from the full verification alone, on emptied tables, so that
    the nodes recorded are those of one verification from scratch (what a re-scoring of
    a committed set finds too); ``why`` as in :func:`check`."""
    capture.forget()
    v = verify(pos, target, n, max_nodes=max_nodes, all_duals=False)
    if not v.complete:
        return None, "budget"
    if not v.keys:
        return None, "escapes"
    if v.shorter:
        return None, "shorter"
    if not v.sound:
        return None, "cooked"
    score, rating = difficulty(v, n)
    return Puzzle(
        id="", position=str(pos), target=target, n=n, key=v.keys[0], line=list(v.line),
        dual_free=v.dual_free, difficulty=rating, score=score, nodes=v.nodes,
        generator=generator, version=version,
    ), "sound"


def baseline_unit(board: Board, n: int, unit_seed: int, version: str) -> Found:
    """Every defender group of one seed position, as it stands."""
    t0 = time.process_time()
    out = Found()
    pos = seed_position(board, unit_seed)
    if pos is not None:
        for target in _defender_targets(pos):
            out.candidates += 1
            p, _ = check(pos, target, n, "baseline", version)
            if p is not None:
                out.puzzles.append(p)
    out.seconds = time.process_time() - t0
    return out


def sat_unit(board: Board, n: int, unit_seed: int, version: str, per_group: int = 6) -> Found:
    """Every defender group of one seed position, reshaped by :mod:`puzzles.sat`."""
    from . import sat  # python-sat loads only for this generator

    t0 = time.process_time()
    out = Found()
    pos = seed_position(board, unit_seed)
    if pos is not None:
        for target in _defender_targets(pos):
            with sat.Reshaper(pos, target, n) as shaper:
                for _ in range(per_group):
                    cand = shaper.next()
                    if cand is None:
                        break
                    out.candidates += 1
                    p, why = check(cand, target, n, "sat", version)
                    if p is not None:
                        out.puzzles.append(p)
                        break  # one puzzle a group: the next would be a near copy
                    shaper.learn(why)
    out.seconds = time.process_time() - t0
    return out


def run_unit(method: str, board_name: str, n: int, unit_seed: int, version: str) -> Found:
    """One unit of ``method`` ('sat' or 'baseline'); picklable for worker processes."""
    board = Board.parse(board_name)
    if method == "sat":
        return sat_unit(board, n, unit_seed, version)
    return baseline_unit(board, n, unit_seed, version)


# --- the driver ----------------------------------------------------------------------------
#: at most this share of a set may lack a dual-free main line
MAX_DUAL_SHARE = 0.35


def puzzle_id(board: Board, n: int, i: int) -> str:
    """``m67-c2-0001``: board, n and the number in the set (from 1)."""
    return f"m{board.m}{board.m + 1}-c{n}-{i:04d}"


def generate(
    board_name: str, n: int, count: int, out: str, *, method: str = "sat", jobs: int = 1,
    seed: int = 0, batch: int | None = None, progress=None,
) -> dict:
    """Write ``count`` sound puzzles to ``out`` (JSON lines), resuming the run recorded in
    ``out + '.state.json'``.  At most :data:`MAX_DUAL_SHARE` of the set lacks a dual-free
    main line.  ``progress(state)`` is called after every batch of units.  Returns the
    state: units done, candidates, CPU seconds, puzzles found and kept."""
    board = Board.parse(board_name)
    with _exclusive(out + ".lock"):
        return _generate(board, n, count, out, method, jobs, seed, batch, progress)


@contextlib.contextmanager
def _exclusive(path: str):
    """Hold an advisory lock on ``path`` (created if missing): a second run on the same
    output refuses to start instead of interleaving its writes."""
    import fcntl

    f = open(path, "a")
    try:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ValueError(f"another run is writing {path[:-5]} (it holds {path})") from None
        yield
    finally:
        f.close()


def _generate(board, n, count, out, method, jobs, seed, batch, progress) -> dict:
    import json
    import os

    from joblib import Parallel, delayed

    from solver.files import write_atomic

    from .record import code_version, load_jsonl, write_jsonl

    state_file = out + ".state.json"
    state = {"board": board.name, "n": n, "method": method, "seed": seed, "units": 0,
             "candidates": 0, "cpu_seconds": 0.0, "found": 0, "found_dual_free": 0}
    kept: list[Puzzle] = []
    if os.path.exists(state_file):
        with open(state_file) as f:
            old = json.load(f)
        same = all(old.get(k) == state[k] for k in ("board", "n", "method", "seed"))
        if not same:
            raise ValueError(
                f"{state_file} records another run ({old.get('board')}, n={old.get('n')}, "
                f"{old.get('method')}, seed {old.get('seed')}): remove it or pick another --out"
            )
        state.update(old)
        kept = load_jsonl(out) if os.path.exists(out) else []
    version = code_version()
    seen = {(p.position, p.target) for p in kept}
    batch = batch or max(4, 4 * jobs)
    # one pool for the whole run: its workers keep their compiled kernels, and leaving
    # the block releases them
    with (Parallel(n_jobs=jobs, backend="loky") if jobs > 1 else contextlib.nullcontext()) as pool:
        while len(kept) < count:
            units = range(state["units"], state["units"] + batch)
            seeds = [seed * 1_000_003 + u for u in units]
            if pool is None:
                results = [run_unit(method, board.name, n, s, version) for s in seeds]
            else:
                results = pool(delayed(run_unit)(method, board.name, n, s, version) for s in seeds)
            for r in results:
                state["candidates"] += r.candidates
                state["cpu_seconds"] += r.seconds
                for p in r.puzzles:
                    if (p.position, p.target) in seen:
                        continue
                    seen.add((p.position, p.target))
                    state["found"] += 1
                    state["found_dual_free"] += p.dual_free
                    duals = sum(not q.dual_free for q in kept)
                    if len(kept) < count and (p.dual_free or duals + 1 <= MAX_DUAL_SHARE * count):
                        kept.append(dataclasses.replace(p, id=puzzle_id(board, n, len(kept) + 1)))
            state["units"] += batch
            state["kept"] = len(kept)
            # the puzzles first, then the state that points past them: a kill between the
            # two only repeats a batch
            write_jsonl(out, kept)
            write_atomic(state_file, json.dumps(state, indent=1) + "\n")
            if progress is not None:
                progress(state)
    return state
