"""Verifying endgame claims: the value of a position within a budget, compared with a
claim, and game records replayed move by move (``meridians verify``).

>>> from solver import Position
>>> r = verify_position(Position.parse("2/3/4/3/2 L"), claim="win")
>>> str(r.value), r.verdict
('win', 'proven')
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from solver.rules.board import Board
from solver.rules.position import Game, Position
from solver.rules.record import RecordError, old_format_items
from solver.rules.record import replay as _replay
from solver.search.limit import Limit, check_limit
from solver.search.values import Value

__all__ = ["Verdict", "verify_position", "parse_game", "replay", "start_position", "default_seconds",
           "GameRecordError", "CLAIMS", "EXIT", "DEFAULT_SECONDS", "database_verdict"]

CLAIMS = ("win", "loss", "draw")
#: exit codes of ``meridians verify`` by verdict
EXIT = {"proven": 0, "refuted": 1, "unknown": 3}
#: the time budget of a verify without one on a board larger than 3/4, where a proof of
#: the opening cannot finish (without it a verify of the empty 6/7 board never returns)
DEFAULT_SECONDS = 60.0


class GameRecordError(RecordError):
    """A game record that cannot be read or replayed; the message names the move."""


@dataclass
class Verdict:
    """The answer to a claim about ``position`` (for its player to move)."""

    position: str
    value: Value               # for the player to move (its word is made one)
    verdict: str               # 'proven' | 'refuted' | 'unknown'
    claim: str | None
    line: list[str] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    method: str = "dfpn"
    horizon: int = 0
    notes: list[str] = field(default_factory=list)
    proof: object = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.value = Value(self.value)

    def as_dict(self) -> dict:
        return {
            "position": self.position, "value": self.value.value, "verdict": self.verdict,
            "claim": self.claim, "line": self.line, "nodes": self.nodes,
            "seconds": round(self.seconds, 3), "method": self.method, "horizon": self.horizon,
            "notes": self.notes,
        }


def default_seconds(position: Position) -> float | None:
    """The time budget of a verify that gives none: :data:`DEFAULT_SECONDS` on boards
    larger than 3/4, else None (no limit: every proof on them can finish)."""
    return DEFAULT_SECONDS if position.board.m > 3 and position.outcome is None else None


def verdict_of(value: str, claim: str | None) -> str:
    """``proven`` when the value is known and is the claim (or there is no claim),
    ``refuted`` when it is known and another, else ``unknown``."""
    if value == "unknown":
        return "unknown"
    if claim is None or claim == value:
        return "proven"
    return "refuted"


def verify_position(
    position: Position,
    *,
    claim: str | None = None,
    limit: Limit | None = None,
    max_plies: int | None = None,
    jobs: int = 1,
    knowledge: bool | None = None,
    workers: int = 0,
    scheduler: str | None = None,
    certificate: str | None = None,
    progress=None,
) -> Verdict:
    """The value of ``position`` for its player to move, and the verdict on ``claim``.

    df-pn first (its wins and losses hold under any repetition rule); when it runs out of
    budget and ``max_plies`` is given, the horizon search looks for the shortest win of
    either side within ``max_plies`` plies (then ``horizon`` is how deep it got).  With
    ``max_plies`` and ``seconds`` df-pn gets half of the time.  ``knowledge``: whether df-pn
    uses the settled rule (:func:`~solver.search.prove.prove`'s keyword; None: its default).

    ``limit`` is the budget (:class:`~solver.search.limit.Limit`; None: none, and
    :func:`~solver.search.prove.prove`'s default table); the horizon search's table is at
    most 32 MiB of it.
    ``jobs``: df-pn's worker processes on this one position (one shared table; see
    :func:`~solver.search.prove.prove`).
    ``workers`` (0: none) or ``scheduler`` (a Dask scheduler's address): job-level proof
    search instead of df-pn (:func:`~solver.jobs.jlpns.jlpns`, method ``'jlpns'``), its
    jobs on ``workers`` loky processes here, or on the cluster's workers; with
    ``certificate`` (a path) the certificate it assembles from the jobs is written there
    (then in the verdict's ``notes`` and ``proof``: the certificate's head).  ``progress``
    gets its dict after each job.
    """
    from solver.search.prove import DEFAULT_KNOWLEDGE, DEFAULT_TT_MB, load_kernels, prove

    limit = check_limit(limit)
    seconds = limit.seconds
    tt_mb = DEFAULT_TT_MB if limit.tt_mb is None else limit.tt_mb
    if claim is not None and claim not in CLAIMS:
        raise ValueError(f"a claim is one of {', '.join(CLAIMS)}, not {claim!r}")
    # compiled before the clock starts: on a board's first use that takes tens of
    # seconds, which the budget is not for
    load_kernels(position.board, "dfpn", DEFAULT_KNOWLEDGE if knowledge is None else bool(knowledge))
    if max_plies is not None:
        load_kernels(position.board, "horizon")
    t0 = time.perf_counter()
    first = seconds / 2 if (seconds is not None and max_plies is not None) else seconds
    if workers or scheduler:
        from solver.jobs.jlpns import jlpns

        p = jlpns(position, replace(limit, seconds=first, tt_mb=tt_mb), workers=max(1, workers),
                  backend="dask" if scheduler else "loky", scheduler=scheduler, certificate=certificate,
                  progress=progress)
        method, proof = "jlpns", p.stats.get("certificate")
    else:
        p = prove(position, method="dfpn", limit=replace(limit, seconds=first, tt_mb=tt_mb), jobs=jobs,
                  knowledge=knowledge)
        method, proof = "dfpn", p
    nodes, notes, horizon = p.nodes, list(p.notes), 0
    if p.value is Value.UNKNOWN and not notes:
        notes.append(f"{'JL-PNS' if method == 'jlpns' else 'df-pn'} did not decide within the budget "
                     f"({p.nodes:,} nodes)")
    if p.value is Value.UNKNOWN and max_plies is not None:
        left = None if seconds is None else max(seconds / 4, seconds - (time.perf_counter() - t0))
        h = prove(position, method="horizon", limit=replace(limit, seconds=left, tt_mb=min(tt_mb, 32)),
                  max_depth=max_plies)
        nodes += h.nodes
        notes = [n for n in notes] + list(h.notes)
        method, horizon, proof = "horizon", h.horizon, h
        p = h
    return Verdict(str(position), p.value, verdict_of(p.value, claim), claim, list(p.line), nodes,
                   time.perf_counter() - t0, method, horizon, notes, proof)


def database_verdict(position: Position, claim: str | None = None) -> Verdict | None:
    """The verdict on ``claim`` from the shipped opening database when it holds
    ``position``, at once (:func:`solver.app.analyst.known`, the database step every front
    end shares): method ``'database'``, no nodes searched, the analyst's line (a proven
    winning move first), a note naming the proof of record; else None (then a search
    decides)."""
    from .analyst import known
    from .openings.database import lookup_entry

    if claim is not None and claim not in CLAIMS:
        raise ValueError(f"a claim is one of {', '.join(CLAIMS)}, not {claim!r}")
    t0 = time.perf_counter()
    a = known(position)
    if a.source != "database":
        return None
    e = lookup_entry(position)
    value = a.value.value
    if e is None:  # not held itself: its moves' entries decide it
        note = "from the opening database (solver/data): the entries of its moves"
    else:
        note = (f"from the opening database (solver/data): its proof of record took {e.nodes:,} nodes, "
                f"{e.seconds:,.1f} s ({e.source})")
    return Verdict(str(position), value, verdict_of(value, claim), claim, list(a.line), 0,
                   time.perf_counter() - t0, "database", 0, [note])


def parse_game(text: str) -> tuple[str | None, list[str], str | None]:
    """``(start, moves, result)`` of a game record.

    A record is moves separated by commas, spaces or newlines (move numbers such as
    ``12.`` are skipped), optionally after a first line that is a start position (the
    notation, or a board name such as ``2/3`` for its empty board).  ``#`` starts a
    comment.  A line ``result: L`` (or ``D``, ``draw``) states the result the record
    claims.  Without a start line the game starts on the empty board of ``--board``.
    A record with neither a start position nor a move is an error: there is nothing
    to verify in it.
    """
    start = None
    result = None
    moves: list[str] = []
    try:
        for kind, value, _ in old_format_items(text):
            if kind == "start":
                start = value
            elif kind == "result":
                result = value
            else:
                moves.append(value)
    except RecordError as e:
        raise GameRecordError(str(e)) from None
    if start is None and not moves:
        raise GameRecordError("the record is empty: it has no start position and no moves")
    return start, moves, result


def start_position(text: str | None, board: str | None) -> Position:
    """A position from its notation, or a board name for its empty board (``board``,
    default 6/7, when ``text`` is None).  Text with whitespace inside is a position
    (any whitespace separates the rows and the side, see :mod:`solver.rules.notation`)."""
    if text is None:
        return Position.start(Board.parse(board or "6/7"))
    if len(text.split()) > 1:
        return Position.parse(text)
    return Position.start(Board.parse(text))


def replay(start: Position, moves: list[str]) -> Game:
    """The game of ``moves`` from ``start``, every move checked, as a record's
    (:func:`solver.rules.record.replay`); :class:`GameRecordError` names the first illegal
    one (its number from 1, the point, who was to move where, the rule)."""
    try:
        return _replay(start, moves)
    except RecordError as e:
        raise GameRecordError(str(e)) from None


def territory(position: Position) -> dict | None:
    """Each side's count of safe points in the filling stage, a **heuristic**, or None
    before that stage.

    For each colour, the points it could fill by placements of its own alone are its
    reach (:func:`reaches`).  The filling stage is when both players are past their
    second stone and the two reaches do not meet: neither can play a point the other
    could also reach.  The safe points of a side are then its reach.  This says nothing
    proven: the value comes from the search.
    """
    both = reaches(position)
    if both is None or both[0] & both[1]:
        return None
    return {"stage": "filling", "heuristic": True,
            "safe_points": {"L": len(both[0]), "D": len(both[1])}}


def reaches(position: Position) -> tuple[frozenset[str], frozenset[str]] | None:
    """Light's and Dark's reach: the points each could fill by placements of its own
    alone (its legal points, then those that its new stones open, and so on; removals
    ignored), or None while a player has fewer than two stones or the game is over."""
    # the core's legal_bb, not the networkx reference: the rule is the same (both past
    # their second stone: the normal phase; tests/test_core_vs_reference, and
    # tests/test_verify compares the reaches with the reference's), and a verify then
    # loads neither networkx nor another kernel
    from solver.rules import core

    if len(position.stones("L")) < 2 or len(position.stones("D")) < 2 or position.outcome is not None:
        return None
    t = core.tables(position.board)
    words = t.w

    def as_int(bb) -> int:
        return sum(int(x) << (64 * i) for i, x in enumerate(bb))

    def reach(c: int) -> int:
        st = position.array()  # a copy: its row c grows by the reach found so far
        own = as_int(st[c])
        got = 0
        while True:
            st.flags.writeable = True
            mine = own | got
            for i in range(words):
                st[c, i] = (mine >> (64 * i)) & 0xFFFF_FFFF_FFFF_FFFF
            st.flags.writeable = False  # as a Position's stones: the signature already loaded
            new = as_int(core.legal_bb(t, st, c)) & ~got
            if not new:
                return got
            got |= new

    names, point_of = position.board.names, t.point_of

    def named(bits: int) -> frozenset[str]:  # kernel cells -> point names
        return frozenset(names[int(point_of[x])] for x in range(bits.bit_length()) if bits >> x & 1)

    return named(reach(0)), named(reach(1))
