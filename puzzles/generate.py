"""Puzzle generators: the baseline and the SAT-backed one, with one driver.

Both draw *seed positions* from games (midgame to endgame: a number of plies between
30% and 85% of the board's points) and offer *candidates* (a position and a target) to
the exact verifier (:mod:`puzzles.verdict` over
:mod:`solver.search.capture`); only sound puzzles are kept.

- **baseline**: every group of the player not to move in the seed position is a
  candidate, as it stands.
- **sat**: for each such group, :mod:`puzzles.sat` builds a small MaxSAT problem whose
  solutions add a few stones of the attacker near the group so that the group is in
  trouble (few paths and few ways to make new ones) while every defender group stays
  alive; each solution is a candidate, and the verifier's verdict becomes new clauses.
- **extend** (n >= 2): the **sat** generator's (n-1)-movers of the same seed positions,
  each changed in one point near its target (:func:`one_point_changes`: an attacker
  stone taken off, or a defender stone put on), so that the capture may take one move
  more; the first change that makes a sound n-mover is kept.  On 6/7 at n = 6 the sat
  generator found 1 puzzle in 722 CPU s (32 self-play games): its candidates' first
  searches mostly find no capture, while a proven 5-mover is one resource away; extend
  found 14 in 6,572 CPU s (72 games), 0.13 a CPU-minute against 0.08.  With the seed
  source ``parents`` its (n-1)-movers are instead the puzzles of a committed set
  (:func:`read_parents`), one a unit: their proofs are not paid for a second time.

**Fast path** (issue 36 item 4; ``fast``, the default of :func:`run_unit`).  A set
keeps only dual-free puzzles, and most of the verification went to candidates it
drops: cooked ones (every failing first move proven to fail, in board order, before
the second key) and sound ones with a dual (their late tries, rating and themes
computed for nothing).  :func:`puzzles.verdict.screen` tells those apart first, on the
tables the candidate's first searches filled and with the first moves on the target's
paths and lines tried first; only a candidate it passes is verified in full, from
scratch, as the slow path does (so a kept puzzle's record is the slow path's, nodes
included).  A group whose candidate was sound with a dual then goes on to its next
candidate (the slow path stopped there), and the extend generator's (n-1)-movers are
only proven sound.  The fast path also reads its self-play seed games from a persistent
cache (:mod:`puzzles.seedgames`: the same moves, played once per board, seed, playouts
and engine; tests/test_seedgames.py compares them with replayed games), and its SAT
first search has the budget :data:`FAST_SAT_QUICK`.  ``fast=False`` is the slow path,
the twin tests/test_fast_generation.py compares it with.

**Seed sources** (``source``, :func:`seed_positions`): ``random``, the baseline, one
position of a seeded random game (:func:`seed_position`); ``selfplay``, positions of a
game the engine plays against itself (:class:`solver.search.mcts.Engine`, a playout
budget a move, :data:`SELFPLAY_PLAYOUTS` by default, no df-pn: the same game under any
load); ``records``, positions of the game records of a folder (:mod:`solver.rules.record`,
as ``meridians match --records`` writes them), one record a unit in file-name order;
``parents`` (extend only), the (n-1)-movers of a puzzle file, one a unit in file order,
each puzzle of the extend generator recording its parent's source; or, with the order
``nodes`` (:func:`order_parents`), the parents whose proof took the fewest verifier
nodes first, since those give the most n-movers (docs/puzzles.md measures it).
A self-play game or a record gives a position every :data:`STRIDE` plies of the same
30%-85% span, from a first ply the unit's seed draws.  Every puzzle records its
``source`` (kind, game, ply and, for self-play, playouts).

Work is cut into *units*, one seed game each, numbered from the run's seed, so a
run resumes at the first unit it has not finished.  A unit gives the same puzzles in
every run and every worker: the verifier's tables are emptied before each candidate
(what a worker proved for earlier units used to change the nodes a candidate needed,
and so which candidates the node budget dropped).  A run holds a lock on its output
file, writes the puzzles and then its state after every batch, and keeps one pool of
worker processes for the whole run.

**No near-duplicates** (issue 21).  A set keeps at most one puzzle per seed game and
*region*, the region of a puzzle being the group of the seed position that holds its
target (before any reshaping: the group whose stones a candidate is built around; in a
game that gives several positions, the group is named by its oldest stone, since
groups only grow or vanish, so that one group gives one puzzle a game); and
it never keeps a puzzle whose position differs from one it already holds in
:data:`puzzles.similar.WITHIN` points or fewer (:mod:`puzzles.similar`).  Both are
checked where a found puzzle is kept, the second against every puzzle of the file,
those of an earlier run resumed included.

**A set made by several runs** (``grow``).  A set may change its seed source or method
midway (a 6-mover set begun from self-play goes on from the committed 5-movers): the
new run keeps the set's puzzles, numbers its own after them, and moves the run that
made them into its state's ``earlier`` list, with that run's identity and counts, so
that :func:`run_totals` gives the whole set's cost.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import math
import os
import random
import time
from dataclasses import dataclass, field

from solver import Board, MeridiansError, Position
from solver.jobs.state import RunState
from solver.search import capture
from solver.search.limit import Limit

from .options import (GIVE_UP_AFTER, MAX_COUNT, MAX_JOBS, MAX_PLAYOUTS, METHODS, PARENT_ORDERS,  # noqa: F401
                      SELFPLAY_PLAYOUTS, SOURCE_KINDS)
from .rating import rate
from .record import Puzzle, _short
from .similar import WITHIN, NearIndex
from .themes import ThemeError, themes
from .verdict import main_line, screen, verify, with_any

__all__ = [
    "BUDGET", "node_budget", "QUICK", "SAT_QUICK", "FAST_SAT_QUICK", "STAGES", "check", "proven", "seed_position", "Found",
    "baseline_unit", "sat_unit", "run_unit", "generate", "run_state", "read_state", "run_totals", "check_request",
    "NothingFound", "GIVE_UP_AFTER", "MAX_COUNT", "MAX_JOBS", "Keeper",
    "SOURCE_KINDS", "PARENT_ORDERS", "order_parents", "SELFPLAY_PLAYOUTS", "MAX_PLAYOUTS", "STRIDE", "seed_positions", "selfplay_game",
    "read_records", "METHODS", "EXTEND_QUICK", "EXTEND_TRIES", "one_point_changes", "take_backs", "THREAT_QUICK",
    "extend_unit",
    "only_moves", "read_parents",
]

#: node budget of one verification, by n: a candidate that needs more is dropped.  At
#: n = 6 it was 6,000,000, which the committed 6-movers' verifications reached, and the
#: candidates that ran out of it were often sound: with four times as much, the extend
#: generator keeps more 6-movers a CPU-minute (results/puzzles/budget-6-7-c6.json,
#: ``scripts/bench_take_backs.py --budget``)
BUDGET = {1: 200_000, 2: 300_000, 3: 600_000, 4: 1_500_000, 5: 3_000_000, 6: 24_000_000}


def node_budget(n: int) -> int:
    """:data:`BUDGET` of ``n``, the longest n's beyond it."""
    return BUDGET.get(n, BUDGET[max(BUDGET)])


#: node budget of the first search, for a capture at all (see :func:`check`)
QUICK = {1: 200_000, 2: 200_000, 3: 200_000, 4: 200_000, 5: 200_000}
#: node budget of the SAT generator's first search, by n.  Its candidates are built so
#: that the target has at most n paths and fresh lines; on 6/7 (16 units at n = 4, 10
#: at n = 5) 24 of its 25 sound candidates showed their capture within 56,000 nodes
#: (52 to 55,382 at n = 4, 189 to 54,694 at n = 5, and one at 159,703), while 84 of
#: its 138 escapes at n = 5 spent the whole 200,000 of :data:`QUICK`: half of the
#: generator's time (issue 21 item 5).  It decides only what is dropped unproven.
SAT_QUICK = {1: 60_000, 2: 60_000, 3: 60_000, 4: 60_000, 5: 60_000}
#: node budget of the SAT generator's first search on the fast path (:func:`run_unit`'s
#: ``fast``), from the nodes that search needs on the committed 6/7 puzzles
#: (results/puzzles/first-search-nodes-6-7.json, scripts/measure_first_search.py): at
#: n = 4, 299 of the 324 found within 60,000 need at most 20,000 (92%; the median 1,229)
#: while most escapes spend the whole budget; at n = 5 only 83 of 133 (62%; the median
#: 10,170, and every committed 5-mover needed up to 59,844), so a tighter budget loses
#: more puzzles there than the CPU it saves buys back: 60,000 stays
FAST_SAT_QUICK = {**SAT_QUICK, 4: 20_000}
#: node budget of the extend generator's first search: set between :data:`SAT_QUICK`
#: and ``BUDGET[6]`` by judgement; what the committed 6-movers need of it is in
#: results/puzzles/first-search-nodes-6-7-c6.json (scripts/measure_first_search.py)
EXTEND_QUICK = 1_000_000
#: the most one-point changes of one (n-1)-mover the extend generator judges
EXTEND_TRIES = 24
#: the stages of a unit's CPU time (:attr:`Found.stages`): drawing seed positions,
#: the SAT solver (building a :class:`puzzles.sat.Reshaper`, its candidates and
#: clauses), the first search (:data:`QUICK`), the search for a shorter capture, the
#: fast generator's screen (:func:`puzzles.verdict.screen`) and
#: the full verification (keys, line, rating, themes); the last four are recorded by
#: outcome, as ``'quick:escapes'``, ``'quick:pass'``, ``'verify:sound'`` and so on
STAGES = ("seeds", "sat", "quick", "shorter", "screen", "verify")
#: plies between two seed positions of one self-play game or game record
STRIDE = 6


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


def _span(board: Board) -> tuple[int, int]:
    """The plies at which seed positions are taken: 30% to 85% of the points."""
    return int(0.3 * board.size), int(0.85 * board.size)


def selfplay_game(board: Board, unit_seed: int, playouts: int = SELFPLAY_PLAYOUTS,
                  plies: int | None = None) -> list[str]:
    """The moves of a game the engine plays against itself from the empty ``board``,
    ``playouts`` a move, one :class:`~solver.search.mcts.Engine` a side (seeded from
    ``unit_seed``; df-pn off), until it ends or after ``plies`` moves: the same moves
    for the same arguments, whatever the machine's load."""
    from solver.search.limit import Limit
    from solver.search.mcts import Engine

    engines = (Engine(seed=2 * unit_seed, dfpn_nodes=0), Engine(seed=2 * unit_seed + 1, dfpn_nodes=0))
    pos = Position.start(board)
    moves: list[str] = []
    while pos.outcome is None and (plies is None or len(moves) < plies):
        r = engines[pos.side_index].search(pos, Limit(playouts=playouts))
        if r.best is None:  # a search always tries every root move
            raise RuntimeError(f"the engine found no move in {pos} ({'; '.join(r.notes)})")
        pos = pos.play(r.best)
        moves.append(r.best)
    return moves


def seed_positions(board: Board, unit_seed: int, source: tuple = ("random",),
                   cache: bool = False) -> list[tuple[Position, dict, dict]]:
    """The seed positions of one unit: ``(position, source, regions)`` each, where
    ``source`` is what a puzzle from it records and ``regions`` maps each defender
    target (:func:`_defender_targets`) to the name of its group (the target itself for
    a random game, which gives one position; the oldest stone of the group otherwise).

    ``source`` names the seed source: ``('random',)``; ``('selfplay', playouts)``;
    ``('records', file, start, moves)`` (a record's file name, start position in
    notation and moves, :func:`read_records`).  Positions whose game is over are left
    out; a self-play game is played only as far as the last ply taken, or with ``cache``
    read from the cache of seed games (:mod:`puzzles.seedgames`: the same moves)."""
    kind = source[0]
    if kind == "random":
        pos = seed_position(board, unit_seed)
        if pos is None:
            return []
        ply = random.Random(unit_seed).randint(*_span(board))
        return [(pos, {"kind": "random", "game": unit_seed, "ply": ply},
                 {t: t for t in _defender_targets(pos)})]
    lo, hi = _span(board)
    first = lo + random.Random(unit_seed).randrange(STRIDE)
    if kind == "selfplay":
        playouts = source[1]
        if cache:
            from .seedgames import selfplay_game as cached

            moves = cached(board, unit_seed, playouts, plies=hi)
        else:
            moves = selfplay_game(board, unit_seed, playouts, plies=hi)
        start = Position.start(board)
        about = {"kind": "selfplay", "game": unit_seed}
    elif kind == "records":
        _, name, start_text, moves = source
        start = Position.parse(start_text)
        about = {"kind": "records", "file": name}
    else:
        raise ValueError(f"unknown seed source {kind!r} (one of {', '.join(SOURCE_KINDS)})")
    wanted = set(range(first, min(hi, len(moves)) + 1, STRIDE))
    out = []
    pos = start
    placed: dict[str, int] = {}  # point -> the ply its stone was placed at
    for ply in range(len(moves) + 1):
        if ply > max(wanted, default=-1):
            break
        if ply in wanted and pos.outcome is None:
            bare = Position.parse(str(pos))  # the puzzle's position: no game history
            regions = {}
            y = "D" if bare.to_move == "L" else "L"
            for g in bare.groups(y):
                oldest = min(g, key=lambda q: (placed.get(q, -1), bare.board.index(q)))
                regions[min(g, key=bare.board.index)] = oldest
            out.append((bare, {**about, "ply": ply, **({"playouts": source[1]} if kind == "selfplay" else {})},
                        regions))
        if ply < len(moves):
            pos = pos.play(moves[ply])
            placed[moves[ply]] = ply
    return out


@dataclass
class Found:
    """What one unit produced: its sound puzzles (ids filled in later), the region of
    each (the seed group's first point, :func:`_defender_targets`) and its effort."""

    puzzles: list = field(default_factory=list)
    regions: list = field(default_factory=list)
    candidates: int = 0
    seconds: float = 0.0
    #: candidates per verdict of :func:`check` ('sound', 'escapes', 'shorter', 'cooked',
    #: 'budget'): the raw cook rate is the share of candidates not 'sound'
    verdicts: dict = field(default_factory=dict)
    #: CPU seconds per stage (:data:`STAGES`): where the unit's time went
    stages: dict = field(default_factory=dict)


def _defender_targets(pos: Position) -> list[str]:
    """One stone of each group of the player not to move (its first point by name)."""
    y = "D" if pos.to_move == "L" else "L"
    return [min(g, key=pos.board.index) for g in pos.groups(y)]


def check(pos: Position, target: str, n: int, generator: str, version: str, *,
          quick: int | None = None, clock: dict | None = None,
          witness: dict | None = None, fast: bool = False, parent: bool = False,
          free_parents: bool = False, budget: int | None = None) -> tuple[Puzzle | None, str]:
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
    count depend on the candidate alone.

    ``quick`` is the node budget of the first search (default :data:`QUICK`); it only
    decides which candidates are dropped unproven, never what a kept puzzle is.
    ``clock``, a dict, gets the CPU seconds of each stage added under
    ``'quick:<verdict>'``, ``'shorter:<verdict>'`` and ``'verify:<verdict>'``.
    ``witness``, a dict, gets ``'reply'`` when the first search finds no capture: the
    last defender reply that refuted an attacker first move in it
    (:meth:`solver.search.capture.CaptureSearch.refutation`), or None; how the
    target got away, for :meth:`puzzles.sat.Reshaper.learn`.  ``budget``: the node
    budget of every search after the first (default ``BUDGET[n]``); like ``quick``, it
    only decides what is dropped unproven.

    ``fast`` (issue 36 item 4): the verdict is told first by :func:`puzzles.verdict.screen`
    on the tables the first searches filled, which refuses a cooked candidate and a
    sound one with a dual (``'duals'``) without the full verification; a candidate that
    passes it is proven as without ``fast`` (:func:`proven`, from scratch), so that a
    kept puzzle's record is the one the slow path writes.  ``parent`` (with ``fast``):
    only soundness is wanted (the extend generator's (n-1)-movers), and a sound
    candidate gives a record of its position, target, n and key alone; with
    ``free_parents`` too, it must also be dual-free (one with a dual is ``'duals'``)."""
    t = time.process_time()

    def tick(stage: str, why: str) -> None:
        nonlocal t
        if clock is not None:
            now = time.process_time()
            key = f"{stage}:{why}"
            clock[key] = clock.get(key, 0.0) + now - t
            t = now

    capture.forget()
    budget = Limit(nodes=budget or node_budget(n))
    if quick is None:
        quick = QUICK.get(n, QUICK[max(QUICK)])
    capture.check_n(n)
    search = capture.CaptureSearch(pos, target, limit=Limit(nodes=quick))
    found = search.captures(n)
    if not found:
        if witness is not None:
            witness["reply"] = search.refutation(1)
        tick("quick", "escapes")
        return None, "escapes"
    tick("quick", "pass")
    if n > 1:
        quicker = capture.capture_within(pos, target, n - 1, limit=budget)
        if quicker is None:
            tick("shorter", "budget")
            return None, "budget"
        if quicker:
            tick("shorter", "shorter")
            return None, "shorter"
        tick("shorter", "pass")
    if fast:
        why, key = screen(pos, target, n, limit=budget, duals=not parent or free_parents)
        tick("screen", why)
        if why == "sound" or (why == "pass" and parent):
            return Puzzle(id="", position=str(pos), target=target, n=n, key=key, generator=generator,
                          version=version), "sound"
        if why != "pass":
            return None, why
    p, why = proven(pos, target, n, generator, version, limit=budget)
    if fast and p is not None and (p.key != key or not p.dual_free):
        # the screen and the verification answer the same questions exactly: a
        # disagreement is a bug, and a generator keeps nothing it is unsure of
        tick("verify", "disagree")
        return None, "disagree"
    tick("verify", why)
    return p, why


def _count(found: "Found", why: str) -> None:
    found.verdicts[why] = found.verdicts.get(why, 0) + 1


def proven(pos: Position, target: str, n: int, generator: str, version: str,
           *, limit: Limit | None = None) -> tuple[Puzzle | None, str]:
    """``(puzzle, why)`` from the full verification alone, on emptied tables, so that
    the nodes recorded are those of one verification from scratch (what a re-scoring of
    a committed set finds too); ``why`` as in :func:`check`.  The puzzle's themes
    (:mod:`puzzles.themes`) are computed after, each search within ``limit``; a puzzle
    whose themes run out of it is dropped (``'budget'``).  The line's last reply is
    written ``any`` when every legal reply loses the target
    (:func:`puzzles.verdict.with_any`).  ``limit`` is the budget
    of the verification (None: none)."""
    capture.forget()
    limit = capture.capture_limit(limit)
    v = verify(pos, target, n, limit=limit, all_duals=False, max_keys=2)  # a second key: cooked, stop
    if not v.complete:
        return None, "budget"
    if not v.keys:
        return None, "escapes"
    if v.shorter:
        return None, "shorter"
    if not v.sound:
        return None, "cooked"
    score, rating = rate(pos, target, n, v)  # puzzles.rating: rated within its board and n
    p = Puzzle(
        id="", position=str(pos), target=target, n=n, key=v.keys[0], line=with_any(pos, target, v.line),
        dual_free=v.dual_free, difficulty=rating, score=score, nodes=v.nodes,
        generator=generator, version=version, last_moves=v.last_moves,
    )
    try:
        found = themes(p, limit=limit)
    except ThemeError:
        return None, "budget"  # a theme search ran out: the record would be incomplete
    return dataclasses.replace(p, themes=found), "sound"


def only_moves(p: Puzzle, version: str, *, limit: Limit | None = None) -> tuple[Puzzle | None, str]:
    """``(record, why)``: the committed record ``p`` of a sound puzzle as the generator
    would keep it under issue 36's only moves (:mod:`puzzles.verdict`), or None.  The
    main line is the verifier's (:func:`puzzles.verdict.main_line`; the key's soundness
    is taken as audited, not searched again): when it has a dual the puzzle is dropped
    (``'duals'``); when it is the recorded line the record is kept with ``dual_free``
    and ``last_moves`` (``'kept'``: nodes, score and themes stay, being of the same line);
    else the puzzle is proven afresh (:func:`proven`, its id and source kept: ``'new
    line'``), None with its reason when that no longer finds the key sound.  ``'budget'``:
    ``limit`` ran out."""
    pos = p.to_position()
    line, duals, last, complete = main_line(pos, p.target, p.n, p.key, limit=limit)
    if not complete:
        return None, "budget"
    if duals:
        return None, "duals"
    if list(with_any(pos, p.target, line)) == list(p.line):
        return dataclasses.replace(p, dual_free=True, last_moves=last), "kept"
    q, why = proven(pos, p.target, p.n, p.generator, version, limit=limit)
    if q is None:
        return None, why
    if q.key != p.key or not q.dual_free:
        return None, "key" if q.key != p.key else "duals"
    return dataclasses.replace(q, id=p.id, source=p.source), "new line"


def baseline_unit(board: Board, n: int, unit_seed: int, version: str, source: tuple = ("random",),
                  fast: bool = False) -> Found:
    """Every defender group of the unit's seed positions, as it stands (``fast``: :func:`check`'s)."""
    t0 = time.process_time()
    out = Found()
    seeds = seed_positions(board, unit_seed, source, cache=fast)
    out.stages["seeds"] = time.process_time() - t0
    for pos, src, regions in seeds:
        for target in _defender_targets(pos):
            if regions[target] in out.regions:
                continue  # this game's group gave a puzzle already
            out.candidates += 1
            p, why = check(pos, target, n, "baseline", version, clock=out.stages, fast=fast)
            _count(out, why)
            if p is not None:
                out.puzzles.append(dataclasses.replace(p, source=src))
                out.regions.append(regions[target])
    out.seconds = time.process_time() - t0
    return out


def sat_unit(board: Board, n: int, unit_seed: int, version: str, per_group: int = 6,
             source: tuple = ("random",), fast: bool = False, parent: bool = False,
             quick: int | None = None, free_parents: bool = False) -> Found:
    """Every defender group of the unit's seed positions, reshaped by :mod:`puzzles.sat`:
    up to ``per_group`` candidates a group, each judged by :func:`check` (first search
    within :data:`SAT_QUICK` nodes) until one is sound, the verdict on each learned by
    the reshaper.  A candidate with an escape certificate (:func:`puzzles.sat.certificate`)
    is not judged: its hard clause is learned, it counts in ``Found.verdicts`` as
    ``'certified'`` and not as a candidate.  ``Found.verdicts`` and ``Found.stages`` say where the time went.
    ``fast``, ``parent`` and ``free_parents`` as :func:`check` takes them: with ``fast`` a sound candidate
    with a dual is refused (``'duals'``) and the group's next candidate is tried, where
    the slow path stops at the group's first sound puzzle, dual or not, and the first
    search's budget is :data:`FAST_SAT_QUICK` (``quick``, when given, either way); with
    ``fast`` the seed games come from the cache (:mod:`puzzles.seedgames`)."""
    from . import sat  # python-sat loads only for this generator

    t0 = time.process_time()
    out = Found()
    seeds = seed_positions(board, unit_seed, source, cache=fast)
    out.stages["seeds"] = time.process_time() - t0
    if quick is None:
        budgets = FAST_SAT_QUICK if fast else SAT_QUICK
        quick = budgets.get(n, budgets[max(budgets)])
    sat_seconds = 0.0
    for pos, src, regions in seeds:
        for target in _defender_targets(pos):
            if regions[target] in out.regions:
                continue
            t = time.process_time()
            shaper = sat.Reshaper(pos, target, n)
            sat_seconds += time.process_time() - t
            with shaper:
                tries = 0
                while tries < per_group:
                    t = time.process_time()
                    cand = shaper.next()
                    cert = shaper.certificate() if cand is not None else None
                    if cert is not None:
                        # it escapes for sure (puzzles.sat, claim C): never searched, and
                        # the certificate's clause blocks every candidate that keeps it
                        shaper.learn_certificate(cert)
                        _count(out, "certified")
                    sat_seconds += time.process_time() - t
                    if cand is None:
                        break
                    if cert is not None:
                        continue
                    tries += 1
                    out.candidates += 1
                    witness: dict = {}
                    p, why = check(cand, target, n, "sat", version, quick=quick, clock=out.stages,
                                   witness=witness, fast=fast, parent=parent, free_parents=free_parents)
                    _count(out, why)
                    if p is not None:
                        out.puzzles.append(dataclasses.replace(p, source=src))
                        out.regions.append(regions[target])
                        break  # one puzzle a group: the next would be a near copy
                    t = time.process_time()
                    shaper.learn(why, reply=witness.get("reply"))
                    sat_seconds += time.process_time() - t
    out.stages["sat"] = sat_seconds
    out.seconds = time.process_time() - t0
    return out


def one_point_changes(pos: Position, target: str) -> list[tuple[str, Position]]:
    """The valid positions one point away from ``pos`` near the target's group (X, the
    player to move, attacks the group of ``target``): ``('-a5', q)``, an X stone
    taken off a point within two steps of the group, or ``('+a5', q)``, a Y stone put on
    an empty point there; in board order, X still to move.  A change that leaves the
    position invalid (Y, not to move, with a dead group) or over is left out.  Each
    gives Y a resource or takes one from X, so a capture in n-1 may take n moves.

    >>> from solver import Position
    >>> pos = Position.parse("D1D/4/DL2L/1DD1L1/L1L2/DDL1/D1L L")
    >>> [c for c, _ in one_point_changes(pos, "g1")]
    ['-e2', '+e3', '+f1', '+f2', '+f3', '+g2']
    """
    from solver.rules.position import InvalidPositionError

    board = pos.board
    x = pos.to_move
    y = "D" if x == "L" else "L"
    group = next(g for g in pos.groups(y) if target in g)
    near = board.near({board.index(s) for s in group}, 2)
    stones = {"L": set(pos.stones("L")), "D": set(pos.stones("D"))}
    out = []
    for p in sorted(near):
        name = board.name_of(p)
        if name in stones[y]:
            continue
        change = dict(stones)
        if name in stones[x]:
            if len(stones[x]) <= 2:
                continue  # X keeps a stone that can see another
            change[x] = stones[x] - {name}
            label = "-" + name
        else:
            change[y] = stones[y] | {name}
            label = "+" + name
        try:
            q = Position(board, change["L"], change["D"], x)
        except InvalidPositionError:
            continue
        if q.outcome is None:
            out.append((label, q))
    return out


#: node budget of :func:`take_backs`' threat search, one a defender stone
THREAT_QUICK = 200_000


def take_backs(pos: Position, target: str, k: int) -> list[tuple[str, Position]]:
    """The positions one move pair before ``pos`` in which X's move threatens a capture
    within ``k`` that Y's reply parries (X, the player to move, attacks the group of
    ``target``): ``('-a5-b6', q)``, an X stone a and a Y stone d (not the target), both
    within two steps of the group, taken off, so that in ``q`` X may play a, Y may then
    play d, and that gives ``pos`` again; and without d (X to move) X captures within
    ``k`` moves (found within :data:`THREAT_QUICK` nodes), so d is a forced reply, not
    one Y could have spent anywhere.  X to move; the pairs whose d touches the group
    first, then those whose a does, each in board order.  A (k+1)-mover taken back so
    may be a (k+2)-mover whose second move is forced: the defender's reply, not a change
    of the position, is what the extra move costs.

    >>> from solver import Position
    >>> pos = Position.parse("4/1D3/6/1LLDLDL/3LLD2/LDD1D2/LLDDL1/5/D1D1 D")
    >>> [c for c, _ in take_backs(pos, "c1", 1)]
    ['-c3-c2', '-d2-c2', '-d3-c2', '-a1-c2', '-c4-c2']
    """
    from solver.rules.position import InvalidPositionError

    board = pos.board
    x = pos.to_move
    y = "D" if x == "L" else "L"
    group = next(g for g in pos.groups(y) if target in g)
    cells = {board.index(s) for s in group}
    near, touching = board.near(cells, 2), board.near(cells, 1)
    xs, ys = set(pos.stones(x)), set(pos.stones(y))
    limit = Limit(nodes=THREAT_QUICK)

    def without(a: set[str], d: set[str]) -> Position | None:
        """The position, X to move, with X's stones ``a`` and Y's ``d`` taken off; None if
        it is invalid or over."""
        try:
            q = Position(board, *((xs - a, ys - d) if x == "L" else (ys - d, xs - a)), x)
        except InvalidPositionError:
            return None
        return q if q.outcome is None else None

    out = []
    for d in sorted(ys, key=board.index):
        if d == target or board.index(d) not in near:
            continue
        threat = without(set(), {d})
        if threat is None or capture.capture_within(threat, target, k, limit) is not True:
            continue  # d parries nothing: Y could have spent it anywhere
        for a in sorted(xs, key=board.index):
            if board.index(a) not in near:
                continue
            q = without({a}, {d})
            if q is None or a not in q.legal_moves():
                continue
            after = q.play(a)
            if after.outcome is not None or d not in after.legal_moves() or after.play(d).key != pos.key:
                continue
            rank = (board.index(d) not in touching) + (board.index(a) not in touching)
            out.append((rank, f"-{a}-{d}", q))
    out.sort(key=lambda c: c[0])  # stable: board order within a rank
    return [(label, q) for _, label, q in out]


def extend_unit(board: Board, n: int, unit_seed: int, version: str, source: tuple = ("random",),
                tries: int = EXTEND_TRIES, fast: bool = False, quick: int | None = None,
                free_parents: bool = True, take_back: bool = True, budget: int | None = None) -> Found:
    """The sat generator's (n-1)-movers of the unit's seed positions
    (:func:`sat_unit`), each taken back one move pair (:func:`take_backs`, n >= 3) or
    else changed in one point (:func:`one_point_changes`; at most ``tries`` of the two
    together) until one is a sound n-mover: one puzzle per (n-1)-mover,
    with its region and source.  ``Found.stages`` holds the (n-1)-movers' search
    under ``'parents'``; their puzzles are not counted as candidates.  With ``fast`` the
    (n-1)-movers are only proven sound (:func:`check`'s ``parent``: no line, late tries
    or themes for records nobody keeps), and dual-free too with ``free_parents`` (the
    default: their changes are more often dual-free n-movers, see docs/puzzles.md), and
    a change that gives a sound n-mover with a dual is passed over for the next one.
    ``source`` ``('parents', puzzle)``: the one (n-1)-mover is that puzzle (a committed
    one, :func:`read_parents`), not searched for again; its target is the region.
    ``take_back`` False: one-point changes only, as before take-backs; ``budget``: the
    n-movers' node budget instead of ``BUDGET[n]`` (both for measuring,
    scripts/bench_take_backs.py)."""
    if n < 2:
        raise ValueError(f"the extend generator needs n >= 2, not {n!r}")
    t0 = time.process_time()
    if source[0] == "parents":
        parents = Found(puzzles=[source[1]], regions=[source[1].target])
    else:
        parents = sat_unit(board, n - 1, unit_seed, version, source=source, fast=fast, parent=fast, quick=quick,
                           free_parents=fast and free_parents)
    out = Found()
    out.stages["parents"] = parents.seconds
    for parent, region in zip(parents.puzzles, parents.regions, strict=True):
        pos = parent.to_position()
        changes = take_backs(pos, parent.target, n - 2) if take_back and n >= 3 else []
        changes += one_point_changes(pos, parent.target)
        for _, cand in changes[:tries]:
            out.candidates += 1
            p, why = check(cand, parent.target, n, "extend", version, quick=EXTEND_QUICK, clock=out.stages,
                           fast=fast, budget=budget)
            _count(out, why)
            if p is not None:
                out.puzzles.append(dataclasses.replace(p, source=parent.source))
                out.regions.append(region)
                break
    out.seconds = time.process_time() - t0
    return out


def run_unit(method: str, board_name: str, n: int, unit_seed: int, version: str,
             source: tuple = ("random",), fast: bool = True, quick: int | None = None,
             free_parents: bool = True) -> Found:
    """One unit of ``method`` ('sat', 'baseline' or 'extend') on seeds from ``source``
    (see :func:`seed_positions`); picklable for worker processes.  ``fast`` (the
    default): :func:`check`'s fast path, the seed games' cache and :data:`FAST_SAT_QUICK`;
    False: the slow path, its twin and the benchmark's "before"
    (scripts/bench_fast_generation.py).  ``quick``: the SAT generator's first-search
    budget instead (the extend generator's (n-1)-movers'), for measuring; ``free_parents``:
    the extend generator's, for measuring."""
    board = Board.parse(board_name)
    if method == "extend":
        return extend_unit(board, n, unit_seed, version, source=source, fast=fast, quick=quick,
                           free_parents=free_parents)
    if method == "sat":
        return sat_unit(board, n, unit_seed, version, source=source, fast=fast, quick=quick)
    return baseline_unit(board, n, unit_seed, version, source=source, fast=fast)


def read_records(folder: str, board: Board) -> list[tuple[str, str, tuple[str, ...]]]:
    """The game records of ``folder`` (its ``*.txt`` files, by name) as ``(file name,
    start position, moves)``, each replayed and checked (:func:`solver.rules.record.parse_record`).
    ``ValueError`` in one line naming the folder or file for a missing folder, a folder
    without records, an unreadable or bad record, or a game on another board."""
    from solver.util.files import FileFormatError, read_text
    from solver.rules.record import parse_record

    if not os.path.isdir(folder):
        raise ValueError(f"--source records {folder}: {'not a folder' if os.path.exists(folder) else 'no such folder'}")
    try:
        names = sorted(f for f in os.listdir(folder) if f.endswith(".txt") and os.path.isfile(os.path.join(folder, f)))
    except OSError as e:
        raise ValueError(f"--source records {folder}: cannot list it: {e.strerror or e}") from None
    if not names:
        raise ValueError(f"--source records {folder}: no game records (*.txt) in it")
    games = []
    for name in names:
        path = os.path.join(folder, name)
        try:
            record = parse_record(read_text(path, "game record"), default_board=board)
            record.game()  # every move replayed (parse_record does; kept as the rule)
        except FileFormatError as e:
            raise ValueError(str(e)) from None
        except ValueError as e:  # RecordError is one
            raise ValueError(f"{path}: {e}") from None
        if record.board != board:
            raise ValueError(f"{path} is a game on board {record.board.name}, not {board.name}")
        games.append((name, str(record.start), tuple(record.moves)))
    return games


def read_parents(path: str, board: Board, n: int) -> list[Puzzle]:
    """The puzzles of the file ``path`` as the extend generator's (n-1)-movers for
    n-movers on ``board``, each checked (:func:`puzzles.record.load_jsonl`); ``ValueError``
    in one line naming the file for an unreadable file, one without puzzles, or a puzzle
    of another board, another n or without a key.  Only the children are proven: a
    parent that is not sound gives no puzzle a set would keep unproven."""
    from .record import load_jsonl

    if not os.path.isfile(path):
        raise ValueError(f"--source parents {path}: {'not a file' if os.path.exists(path) else 'no such file'}")
    ps = load_jsonl(path)
    if not ps:
        raise ValueError(f"--source parents {path}: no puzzles in it")
    for p in ps:
        if p.to_position().board.name != board.name:
            raise ValueError(f"--source parents {path}: {p.id} is a puzzle of board "
                             f"{p.to_position().board.name}, not {board.name}")
        if p.n != n - 1:
            raise ValueError(f"--source parents {path}: {p.id} is a capture in {p.n}; "
                             f"the parents of {n}-movers are {n - 1}-movers")
        if p.key is None:
            raise ValueError(f"--source parents {path}: {p.id} has no key")
    return ps


def order_parents(parents: list[Puzzle], order: str) -> list[Puzzle]:
    """``parents`` in the order a run takes them (:data:`PARENT_ORDERS`): ``'file'`` as
    they are; ``'nodes'`` sorted by the verifier nodes their records give, fewest first,
    ties (and records without nodes, last) in file order.

    >>> ps = [Puzzle(id=i, position="2/1D1/4/L2/2 L", target="d2", n=1, nodes=k) for i, k in
    ...       [("a", 9), ("b", None), ("c", 2), ("d", 9)]]
    >>> [p.id for p in order_parents(ps, "nodes")]
    ['c', 'a', 'd', 'b']
    """
    if order not in PARENT_ORDERS:
        raise ValueError(f"--order must be one of {', '.join(PARENT_ORDERS)}, not {order!r}")
    if order == "file":
        return list(parents)
    return sorted(parents, key=lambda p: (p.nodes is None, p.nodes or 0))


def _parent_key(p: Puzzle) -> str:
    """A parent's short fingerprint, as a run's state lists the parents it took."""
    return hashlib.sha256(f"{p.position}\n{p.target}\n{p.n}\n{p.key}\n".encode()).hexdigest()[:16]


def _run_parents(parents: list[Puzzle], order: str, old: dict | None, source_file: str) -> list[Puzzle]:
    """The parents in the order the run takes them; ``old``, the state of the run being
    resumed (None for a new one), must have taken the first of them.  For ``'nodes'``
    with the state's ``parents_taken``, those come first, as taken, then the rest by
    nodes, so that a parents file grown anywhere (a committed set grown) resumes the run;
    a run taken so far in file order goes on in ``'nodes'`` from the parents it took
    (FILE's first ones); else :func:`order_parents`.  ``ValueError`` in one line for a
    run in ``'nodes'`` resumed in ``'file'`` or a file that is not the run's."""
    units = old["units"] if old else 0
    was = old.get("order", "file") if units else order
    if was not in ("file", order):
        raise ValueError(f"this run took the parents of {source_file} in --order {was}, not {order}: "
                         f"resume it with --order {was} (or pick another --out, or --force to start over)")
    taken = old.get("parents_taken") if was == order and units else None
    if order == "file" or (was == order and taken is None):
        ordered = order_parents(parents, order)
    elif was == "file":  # from file order to nodes: what it took, then the rest of the file by nodes
        ordered = list(parents[:units]) + order_parents(parents[units:], order)
    else:
        by_key = {_parent_key(p): p for p in parents}
        lost = sum(k not in by_key for k in taken)
        if lost:
            raise ValueError(f"{source_file} is not the parents file this run used: {lost:,} of the "
                             f"{len(taken):,} parents it took are not in it (pick another --out, or --force "
                             "to start over)")
        done = set(taken)
        ordered = [by_key[k] for k in taken] + order_parents([p for p in parents if _parent_key(p) not in done],
                                                             order)
    if units and (len(ordered) < units or old.get("parents_used") != _parents_digest(ordered[:units])):
        first = "first" if was == "file" else f"first (in --order {was})"
        raise ValueError(f"{source_file} is not the parents file this run used: its {first} {units:,} puzzles "
                         "are not the same (pick another --out, or --force to start over)")
    return ordered


def _parents_digest(parents: list) -> str:
    """A short fingerprint of parents: a resumed run must see the same ones it used (a
    parents file may grow at its end meanwhile: a committed set grown)."""
    h = hashlib.sha256()
    for p in parents:
        h.update(f"{p.position}\n{p.target}\n{p.n}\n{p.key}\n".encode())
    return h.hexdigest()[:16]


def _records_digest(games: list) -> str:
    """A short fingerprint of a folder's records: a resumed run must see the same."""
    h = hashlib.sha256()
    for name, start, moves in games:
        h.update(f"{name}\n{start}\n{' '.join(moves)}\n".encode())
    return h.hexdigest()[:16]


class Keeper:
    """The rule against near-duplicates of one set as it grows (see the module
    docstring): :meth:`refusal` says why a found puzzle may not join the set,
    :meth:`keep` records one that did.  ``kept`` are the puzzles the set holds already
    (a resumed run's file); their seed games are finished units, never run again, so
    only their positions count.

    >>> k = Keeper([Puzzle(id="a", position="2/1D1/4/L2/2 L", target="d2", n=1)])
    >>> k.refusal(Puzzle(id="b", position="2/1D1/4/L2/2 L", target="b2", n=1), 7, "b2")
    'near'
    """

    def __init__(self, kept: list = (), within: int = WITHIN):
        self.index = NearIndex((p.position for p in kept), within)
        self.regions: set = set()

    def refusal(self, p: Puzzle, unit: int, region: str) -> str | None:
        """``'region'`` when the set holds a puzzle of the same seed game (``unit``)
        and region, ``'near'`` when its position differs from one of the set's in
        ``within`` points or fewer, None when ``p`` may join."""
        if (unit, region) in self.regions:
            return "region"
        if self.index.near(p.position) is not None:
            return "near"
        return None

    def keep(self, p: Puzzle, unit: int, region: str) -> None:
        self.index.add(p.position)
        self.regions.add((unit, region))


# --- the driver ----------------------------------------------------------------------------

#: the kind of a run's state file, ``OUT.state.json`` (:class:`solver.jobs.state.RunState`)
STATE_FORMAT = "meridians-generate/1"
#: the counts a state file keeps, with their types (``kept`` is written for the reader,
#: not read back: the puzzle file is what a run resumes)
_COUNTS = {"units": int, "candidates": int, "cpu_seconds": float, "found": int, "found_dual_free": int,
           "near_duplicates": int}


class NothingFound(MeridiansError):
    """A run stopped because :data:`GIVE_UP_AFTER` seed positions in a row gave no new
    puzzle; ``state`` is the run's state (written, so the same command resumes)."""

    def __init__(self, message: str, state: dict):
        super().__init__(message)
        self.state = state


def puzzle_id(board: Board, n: int, i: int) -> str:
    """``m67-c2-0001``: board, n and the number in the set (from 1)."""
    return f"m{board.m}{board.m + 1}-c{n}-{i:04d}"


def _id_number(pid: str) -> int:
    """The number at the end of an id of :func:`puzzle_id` (0 for another id)."""
    tail = pid.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() and len(tail) < 19 else 0


def check_request(n: int, count: int, method: str, jobs: int, seed: int, give_up_after: int,
                  source: str = "random", playouts: int = SELFPLAY_PLAYOUTS, order: str = "file") -> None:
    """Raise ``ValueError`` naming the option for a request out of range."""
    def whole(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if not whole(n) or not 1 <= n <= capture.MAX_N:
        raise ValueError(f"--n must be a whole number from 1 to {capture.MAX_N}, not {n!r}")
    if not whole(count) or not 1 <= count <= MAX_COUNT:
        raise ValueError(f"--count must be a whole number from 1 to {MAX_COUNT:,}, not {count!r}")
    if method not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)}, not {method!r}")
    if method == "extend" and n < 2:
        raise ValueError("--method extend builds on (n-1)-movers: it needs --n 2 or more")
    if not whole(jobs) or not 1 <= jobs <= MAX_JOBS:
        raise ValueError(f"--jobs must be a whole number from 1 to {MAX_JOBS}, not {jobs!r}")
    if not whole(seed) or not 0 <= seed < 2**63:
        raise ValueError(f"--seed must be a whole number from 0 to 2^63 - 1, not {seed!r}")
    if not whole(give_up_after) or not 1 <= give_up_after <= MAX_COUNT:
        raise ValueError(f"--give-up-after must be a whole number from 1 to {MAX_COUNT:,}, not {give_up_after!r}")
    if source not in SOURCE_KINDS:
        raise ValueError(f"--source must be one of {', '.join(SOURCE_KINDS)}, not {source!r}")
    if source == "parents" and method != "extend":
        raise ValueError(f"--source parents gives the extend generator its (n-1)-movers: it needs "
                         f"--method extend, not {method!r}")
    if not whole(playouts) or not 1 <= playouts <= MAX_PLAYOUTS:
        raise ValueError(f"--playouts must be a whole number from 1 to {MAX_PLAYOUTS:,}, not {playouts!r}")
    if order not in PARENT_ORDERS:
        raise ValueError(f"--order must be one of {', '.join(PARENT_ORDERS)}, not {order!r}")
    if order != "file" and source != "parents":
        raise ValueError(f"--order {order} orders the parents of --source parents FILE, not seed games ({source})")


def generate(
    board_name: str, n: int, count: int, out: str, *, method: str = "sat", jobs: int = 1,
    seed: int = 0, batch: int | None = None, progress=None, force: bool = False,
    give_up_after: int = GIVE_UP_AFTER, source: str = "random", playouts: int = SELFPLAY_PLAYOUTS,
    records: str | None = None, parents: str | None = None, grow: bool = False, order: str = "file",
) -> dict:
    """Write ``count`` sound puzzles to ``out`` (JSON lines), resuming the run recorded in
    ``out + '.state.json'``.  Only dual-free puzzles are kept (issue 36:
    :mod:`puzzles.verdict`'s only moves); ``found`` counts every sound one, and a seed
    game that gives only puzzles with duals gives nothing new.  ``progress(state)`` is called after every batch of units.  Returns the
    state: units done, candidates, CPU seconds, puzzles found and kept,
    ``near_duplicates`` (sound puzzles refused by the rule against near-duplicates, see
    :class:`Keeper`; they do not count as found) and ``added`` (the puzzles this call
    added).

    An existing ``out`` is written over only when it is this run's (its state file
    names the same board, n, method and seed) or with ``force``: anything else raises
    ``ValueError`` before a byte is written.  Raises :class:`NothingFound` after
    ``give_up_after`` units in a row without a new puzzle, and once the records of a
    ``records`` run are used up.

    ``source`` is where the seed games come from (:data:`SOURCE_KINDS`, see the module
    docstring): ``'selfplay'`` plays them with ``playouts`` a move, ``'records'`` reads
    them from the folder ``records`` (every record is read and checked first: a bad
    one raises ``ValueError`` before anything is written); ``'parents'`` (with method
    ``extend``) takes the (n-1)-movers from the puzzle file ``parents``
    (:func:`read_parents`), one a unit in ``order`` (:func:`order_parents`), and stops
    once they are used up.  A run resumes only with the same source (and playouts, and
    the same records; for parents, the same puzzles at the head of the order, the file
    having perhaps grown since; a run in file order may go on in ``'nodes'``, not back).
    With ``grow``, a
    set that another run of the same board and n made (another method, seed or source)
    is grown instead of refused: its puzzles are kept and that run becomes an earlier
    one of this run's state (see the module docstring)."""
    board = Board.parse(board_name)
    check_request(n, count, method, jobs, seed, give_up_after, source, playouts, order)
    if force and grow:
        raise ValueError("--force starts the set over and --grow keeps its puzzles: give one of them")
    inputs = None  # one a unit: a game record, or a parent puzzle
    source_file = records
    if source == "records":
        if records is None:
            raise ValueError("--source records needs a folder of game records")
        inputs = read_records(records, board)
    if source == "parents":
        if parents is None:
            raise ValueError("--source parents needs a file of (n-1)-movers")
        inputs = read_parents(parents, board, n)  # ordered once the run's state is read
        source_file = parents
    folder = os.path.dirname(os.path.abspath(out))
    try:
        os.makedirs(folder, exist_ok=True)  # as every other output option does (docs/install.md)
    except OSError as e:
        raise ValueError(f"cannot write {out}: cannot create the folder {folder}: {e.strerror or e}") from None
    identity = {"board": board.name, "n": n, "method": method, "seed": seed, "source": source}
    if source == "selfplay":
        identity["playouts"] = playouts
    if source == "records":
        identity["records"] = _records_digest(inputs)
    with run_state(out, identity) as st:
        return _generate(st, board, n, count, out, method, jobs, seed, batch, progress, force, give_up_after,
                         source, playouts, inputs, source_file, grow, order)


def run_state(out: str, identity: dict | None = None) -> RunState:
    """The state file of the run that writes ``out``: ``out + '.state.json'``, locked by
    ``out + '.lock'``, the lock of the puzzle set (``with run_state(out):`` keeps any other
    writer of the set out).  It resumes only for the same ``identity`` (board, n, method,
    seed, seed source; None: read any run's) and rules version, but under any code
    version: every puzzle records the one that proved it, and the committed sets grow
    across versions."""
    return RunState(out + ".state.json", STATE_FORMAT, identity or {},
                    fix="pick another --out, --grow to keep a set another run made, or --force to start over",
                    lock=out + ".lock", any_code=True)


def read_state(out: str) -> dict:
    """The state of the run that wrote ``out`` (None when there is none), its counts
    checked; a :class:`~solver.jobs.state.StateError` (a ValueError) naming the file for
    anything else (unreadable, not JSON, another rules version, wrong types, negative
    counts)."""
    return _checked(run_state(out))


def run_totals(state: dict) -> dict:
    """The counts of :data:`_COUNTS` summed over a set's runs: the state's own and its
    ``earlier`` ones (a state as :func:`read_state` gives it, so checked)."""
    runs = [*state.get("earlier", []), state]
    return {k: sum(r[k] for r in runs) for k in _COUNTS}


def _checked(st: RunState) -> dict | None:
    d = st.load()
    if d is None:
        return None
    earlier = d.get("earlier", [])
    if not isinstance(earlier, list) or not all(isinstance(r, dict) for r in earlier):
        raise st.error(f"earlier must be a list of the earlier runs, not {_short(earlier)}")
    for i, run in enumerate((*earlier, d), 1):
        for k, kind in _COUNTS.items():
            v = run.get(k)
            if kind is float:  # the size first: math.isfinite cannot convert an int of 400 digits
                ok = isinstance(v, (int, float)) and 0 <= v < 1e300 and math.isfinite(v)
            else:
                ok = isinstance(v, int) and 0 <= v < 2**63
            if isinstance(v, bool) or not ok:
                where = "" if run is d else f"earlier run {i}'s "
                raise st.error(f"{where}{k} must be a number from 0 to 2^63, not {_short(v)}")
    taken = d.get("parents_taken")
    if taken is not None and (not isinstance(taken, list) or len(taken) != d["units"]
                              or not all(isinstance(k, str) for k in taken)):
        raise st.error(f"parents_taken must list the {d['units']:,} parents the run took")
    return d


#: what a state file says of a run besides its counts, kept when it becomes an earlier run
_RUN_FIELDS = ("board", "n", "method", "seed", "source", "playouts", "records", "version", "saved",
               "parents_used", "order")


def _grown(st: RunState, out: str) -> dict | None:
    """The state a ``grow`` run starts from: this run's own, to resume; another run's of
    the same board and n, turned into an earlier run of this one (whose counts start at
    zero); None when ``out`` has none."""
    d = _checked(run_state(out))  # any run's
    if d is None or not st.differences(d):
        return d
    for k in ("board", "n"):
        if d.get(k) != st.identity[k]:
            raise st.error(f"it is the state of a set of {k} {_short(d.get(k))}, not {st.identity[k]}, "
                           "and a set grows only with puzzles of its own board and n")
    run = {k: d[k] for k in (*_RUN_FIELDS, *_COUNTS) if k in d}
    rest = {k: d[k] for k in ("rewrites",) if k in d}
    return {**{k: kind() for k, kind in _COUNTS.items()}, **rest, "earlier": [*d.get("earlier", []), run]}


def _unit_source(source: str, playouts: int, inputs: list | None, unit: int) -> tuple:
    """What :func:`seed_positions` takes for unit number ``unit`` (from 0)."""
    if source == "selfplay":
        return ("selfplay", playouts)
    if source == "records":
        return ("records", *inputs[unit])
    if source == "parents":
        return ("parents", inputs[unit])
    return ("random",)


def _generate(st, board, n, count, out, method, jobs, seed, batch, progress, force, give_up_after,
              source="random", playouts=SELFPLAY_PLAYOUTS, inputs=None, source_file=None, grow=False,
              order="file") -> dict:
    from concurrent.futures.process import BrokenProcessPool  # loky's TerminatedWorkerError is one
    from pathlib import Path

    from joblib import Parallel, delayed

    from solver.util.errors import WORKER_STOPPED, Interrupted
    from solver.util.files import uninterrupted

    from .record import code_version, load_jsonl, write_jsonl

    # (the run's identity with its counts: progress() and the caller get the run whole)
    state = {**st.identity, "units": 0, "candidates": 0, "cpu_seconds": 0.0, "found": 0, "found_dual_free": 0,
             "near_duplicates": 0}
    kept: list[Puzzle] = []
    old = None if force else _grown(st, out) if grow else _checked(st)
    if os.path.lexists(out) and old is None and not force:
        raise ValueError(f"{out} exists and was not written by this command (no {st.path} beside it): "
                         "pick another --out, or --force to write over it")
    if old is not None and os.path.exists(out):
        kept = load_jsonl(out)
        state.update((k, old[k]) for k in _COUNTS)
        if "rewrites" in old:  # what rewrote the set since (make_puzzles.py --only-moves)
            state["rewrites"] = old["rewrites"]
        if "earlier" in old:  # the runs that made the set before this one
            state["earlier"] = old["earlier"]
    # (a state file without its puzzle file: the run starts over)
    if source == "parents":
        inputs = _run_parents(inputs, order, old if old is not None and os.path.exists(out) else None, source_file)
    before = len(kept)
    version = code_version()
    seen = {(p.position, p.target) for p in kept}
    keeper = Keeper(kept)
    # new ids follow the highest: a set rewritten to its dual-free puzzles has gaps
    number = max((_id_number(p.id) for p in kept), default=0)
    batch = batch or max(4, 4 * jobs)
    idle = 0  # seed positions in a row without a new puzzle, in this call
    # one pool for the whole run: its workers keep their compiled kernels, and leaving
    # the block releases them
    with (Parallel(n_jobs=jobs, backend="loky") if jobs > 1 else contextlib.nullcontext()) as pool:
        while len(kept) < count:
            end = state["units"] + batch
            if inputs is not None:
                if state["units"] >= len(inputs):
                    what = "puzzles" if source == "parents" else "game records"
                    raise NothingFound(
                        f"the {len(inputs)} {what} in {source_file} are used up ({board.name}, n={n}, "
                        f"{method}): {out} holds {len(kept)} of the {count} asked",
                        dict(state, kept=len(kept), added=len(kept) - before))
                end = min(end, len(inputs))
            units = range(state["units"], end)
            seeds = [seed * 1_000_003 + u for u in units]
            where = [_unit_source(source, playouts, inputs, u) for u in units]
            if pool is None:
                results = [run_unit(method, board.name, n, s, version, w) for s, w in zip(seeds, where)]
            else:
                try:
                    results = pool(delayed(run_unit)(method, board.name, n, s, version, w)
                                   for s, w in zip(seeds, where))
                except BrokenProcessPool as e:  # a worker killed from outside (kill -9, out of memory)
                    why = (str(e).strip().splitlines() or [type(e).__name__])[-1]
                    raise Interrupted(
                        f"{WORKER_STOPPED}: {why[:1].lower() + why[1:]}; {out} "
                        f"holds the {len(kept)} puzzles kept before it; the same command resumes",
                        path=Path(out)) from None
            for unit, r in zip(seeds, results):
                state["candidates"] += r.candidates
                state["cpu_seconds"] += r.seconds
                # sound puzzles with a dual the fast path refused without a record: found,
                # not dual-free (not checked against near-duplicates, having no record)
                state["found"] += r.verdicts.get("duals", 0)
                new = False
                for p, region in zip(r.puzzles, r.regions, strict=True):
                    if (p.position, p.target) in seen:
                        continue
                    seen.add((p.position, p.target))
                    if keeper.refusal(p, unit, region) is not None:
                        # not new either: a run that finds only copies of what it
                        # holds gives up as one that finds nothing
                        state["near_duplicates"] += 1
                        continue
                    state["found"] += 1
                    state["found_dual_free"] += p.dual_free
                    if len(kept) < count and p.dual_free:
                        new = True
                        number += 1
                        kept.append(dataclasses.replace(p, id=puzzle_id(board, n, number)))
                        keeper.keep(p, unit, region)
                idle = 0 if new else idle + 1
            state["units"] += len(units)
            if source == "parents":  # the parents used so far: the file may grow, not change
                state["parents_used"] = _parents_digest(inputs[:state["units"]])
                state["order"] = order
                if order != "file":  # the order of the rest may change as the file grows
                    state["parents_taken"] = [_parent_key(p) for p in inputs[:state["units"]]]
            state["kept"] = len(kept)
            # the puzzles and the state that counts them are written both or neither: a
            # Ctrl-C or kill waits for the pair
            with uninterrupted():
                write_jsonl(out, kept)
                st.save(state)
            if progress is not None:
                progress(state)
            if len(kept) < count and idle >= give_up_after:
                raise NothingFound(
                    f"no new puzzle in the last {idle} seed positions ({board.name}, n={n}, {method}): "
                    f"nothing found within the budget; {out} holds {len(kept)} of the {count} asked",
                    dict(state, added=len(kept) - before))
    state["kept"] = len(kept)
    return dict(state, added=len(kept) - before)
