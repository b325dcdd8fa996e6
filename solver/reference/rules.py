"""The slow, obviously-correct reference implementation of the Meridians rules.

This module is the "networkx reference": the twin against which the fast core is
tested.  It is written straight from ``RULES.md`` and favours readability over speed.
It uses only the standard library, :mod:`networkx` and :mod:`solver.rules.board`.

A position is plain data: ``(board, light, dark, to_move)`` where ``light`` and
``dark`` are frozensets of point indices and ``to_move`` is ``'L'`` or ``'D'``.
Positions are always "after removal" (the engine formulation of RULES.md): after
every placement from a player's second stone on, the *mover's own* dead groups are
removed, and the opponent's groups are left alone until the opponent has moved.

The phase of the player to move is read off the stone counts alone:

* no stones and the opponent has at most one: ``'first'`` (any empty point);
* no stones and the opponent has two or more: ``'lost'``;
* one stone: ``'second'`` (a point that has a path to that stone);
* two or more stones: ``'normal'``.

On the 14-point 2/3 board (rows, bottom to top: ``a1 a2 / b1 b2 b3 / c1 c2 c3 c4 /
d1 d2 d3 / e1 e2``), Light may open anywhere; after Light c1 and Dark e2, Light's
second stone must see c1 across at least one empty point:

>>> from solver.rules.board import Board
>>> b = Board.get(2)
>>> len(legal_moves(b, frozenset(), frozenset(), 'L'))
14
>>> light, dark = frozenset({b.index('c1')}), frozenset({b.index('e2')})
>>> [b.name_of(p) for p in legal_moves(b, light, dark, 'L')]
['a1', 'c3', 'c4', 'e1']
>>> perft(b, frozenset(), frozenset(), 'L', 2)
182
"""

from __future__ import annotations

import networkx as nx

from solver.rules.board import Board

__all__ = [
    "stone_graph",
    "groups",
    "paths",
    "dead_groups",
    "phase",
    "legal_moves",
    "normal_moves",
    "play",
    "place",
    "removed",
    "outcome",
    "is_valid",
    "perft",
]

Stones = frozenset  # a set of point indices of one colour


# -- helpers -------------------------------------------------------------------------------


def _other_colour(colour: str) -> str:
    """The opponent of ``'L'`` or ``'D'``."""
    if colour == "L":
        return "D"
    if colour == "D":
        return "L"
    raise ValueError(f"to_move must be 'L' or 'D', not {colour!r}")


def _split(light: Stones, dark: Stones, to_move: str) -> tuple[Stones, Stones]:
    """``(own, other)``: the stones of the player to move and of the opponent."""
    _other_colour(to_move)  # validates to_move
    return (light, dark) if to_move == "L" else (dark, light)


def _join(own: Stones, other: Stones, to_move: str) -> tuple[Stones, Stones]:
    """``(light, dark)`` back from ``(own, other)``; the inverse of :func:`_split`."""
    return (own, other) if to_move == "L" else (other, own)


# -- groups, paths, dead groups -------------------------------------------------------------


def stone_graph(board: Board, stones: Stones) -> nx.Graph:
    """The adjacency graph of one colour: the stones as nodes, adjacent pairs as edges."""
    graph = nx.Graph()
    graph.add_nodes_from(stones)
    # each edge once, from its lesser point (the certificate checker builds millions)
    graph.add_edges_from((p, n) for p in stones for n in board.neighbours[p] if n > p and n in stones)
    return graph


def groups(board: Board, stones: Stones) -> list[Stones]:
    """The groups of one colour (maximal adjacency-connected sets), sorted by least point.

    A lone stone is a group of its own.
    """
    components = [frozenset(c) for c in nx.connected_components(stone_graph(board, stones))]
    return sorted(components, key=min)


def paths(board: Board, own: Stones, other: Stones) -> set[tuple[int, int]]:
    """Every path of ``own`` as a pair ``(a, b)`` with ``a < b``.

    A path joins two stones of the same colour, in *different* groups, that lie on one
    line with at least one point between them and only empty points between them
    (empty: in neither ``own`` nor ``other``).  From each stone, each ray is walked to
    its first stone; that stone closes a path only if it is friendly, not adjacent,
    and of another group.
    """
    return _paths(board, own, other, groups(board, own))


def _paths(board: Board, own: Stones, other: Stones, own_groups: list[Stones]) -> set[tuple[int, int]]:
    """:func:`paths`, given the groups of ``own``."""
    group_of = {p: g for g in own_groups for p in g}
    found: set[tuple[int, int]] = set()
    for a in own:
        for ray in board.rays[a]:
            for distance, q in enumerate(ray):
                if q not in own and q not in other:
                    continue
                # q is the first stone on this ray; nothing beyond it is seen from a
                if q in own and distance >= 1 and group_of[q] != group_of[a]:
                    found.add((min(a, q), max(a, q)))
                break
    return found


def dead_groups(board: Board, own: Stones, other: Stones) -> list[Stones]:
    """The groups of ``own`` none of whose stones has a path, sorted by least point.

    Because a path needs two different groups, a colour that forms one single group
    (in particular a lone stone) has it dead.
    """
    own_groups = groups(board, own)  # once: the certificate checker plays millions of moves
    on_a_path = {p for pair in _paths(board, own, other, own_groups) for p in pair}
    return [g for g in own_groups if not (g & on_a_path)]


# -- phases and moves ----------------------------------------------------------------------


def phase(board: Board, light: Stones, dark: Stones, to_move: str) -> str:
    """``'first'``, ``'second'``, ``'normal'`` or ``'lost'`` for the player to move.

    Read off the stone counts (see the module docstring).  A player with no stones
    whose opponent has two or more stones is past the opening, so has lost
    (RULES.md, Play 4); with an opponent of at most one stone they are still to
    place their first stone.
    """
    own, other = _split(light, dark, to_move)
    if len(own) == 0:
        return "first" if len(other) <= 1 else "lost"
    if len(own) == 1:
        return "second"
    return "normal"


def _first_stone_seen(ray: tuple[int, ...], occupied: Stones) -> tuple[int, int] | None:
    """``(distance, q)`` for the first stone ``q`` along ``ray``, or ``None``.

    ``distance`` counts the empty points passed over before ``q``.
    """
    for distance, q in enumerate(ray):
        if q in occupied:
            return distance, q
    return None


def legal_moves(board: Board, light: Stones, dark: Stones, to_move: str) -> list[int]:
    """The empty points where the player to move may place a stone, in index order.

    * ``'first'``: every empty point.
    * ``'second'``: every empty point from which the single friendly stone is seen
      along a line across at least one point, all of them empty (so the two stones
      have a path; an adjacent point is not legal).
    * ``'normal'``: every empty point from which, along some ray, the first stone met
      is friendly (adjacent counts): on a line with a friendly stone, no opponent
      stone between them.
    * ``'lost'``: none.

    Whether the game is already over is :func:`outcome`'s business, not this one's.
    """
    own, other = _split(light, dark, to_move)
    occupied = own | other
    empty = [p for p in range(board.size) if p not in occupied]
    kind = phase(board, light, dark, to_move)
    if kind == "lost":
        return []
    if kind == "first":
        return empty
    min_distance = 1 if kind == "second" else 0
    moves = []
    for p in empty:
        for ray in board.rays[p]:
            seen = _first_stone_seen(ray, occupied)
            if seen is not None and seen[1] in own and seen[0] >= min_distance:
                moves.append(p)
                break
    return moves


def normal_moves(board: Board, own: Stones, other: Stones) -> list[int]:
    """The empty points where ``own`` may place by the normal-phase rule (RULES.md,
    Play 3b), whatever the number of its stones: every empty point from which, along
    some ray, the first stone met is one of ``own`` (adjacent counts).

    For a player with two or more stones this is :func:`legal_moves`.  The settled rule
    (:mod:`solver.reference.settled`) also asks it of a model board where the player's stones may
    be a single one, which :func:`legal_moves` would read as the second-stone phase.
    """
    occupied = own | other
    moves = []
    for p in range(board.size):
        if p in occupied:
            continue
        for ray in board.rays[p]:
            seen = _first_stone_seen(ray, occupied)
            if seen is not None and seen[1] in own:
                moves.append(p)
                break
    return moves


def play(board: Board, light: Stones, dark: Stones, to_move: str, p: int) -> tuple[Stones, Stones, str]:
    """The position ``(light, dark, to_move)`` after the player to move places at ``p``.

    Raises :class:`ValueError` if ``p`` is not a legal move.  Unless the stone was the
    mover's first, the mover's own dead groups are then removed (RULES.md, engine
    formulation) and the turn passes.  The opponent's groups are never touched here:
    any of them that this stone made dead stay until the opponent has moved, which
    gives the opponent the chance to revive them.  The move is not refused when the
    game is already over; callers check :func:`outcome` first.
    """
    if p not in legal_moves(board, light, dark, to_move):
        raise ValueError(f"{board.name_of(p) if 0 <= p < board.size else p!r} is not a legal move")
    return place(board, light, dark, to_move, p)


def place(board: Board, light: Stones, dark: Stones, to_move: str, p: int) -> tuple[Stones, Stones, str]:
    """:func:`play` of a move the caller has found in :func:`legal_moves` of this very
    position (not checked again: the certificate checker has the list already)."""
    first_stone = phase(board, light, dark, to_move) == "first"
    own, other = _split(light, dark, to_move)
    own = own | {p}
    if not first_stone:
        for group in dead_groups(board, own, other):
            own = own - group
    light, dark = _join(frozenset(own), other, to_move)
    return light, dark, _other_colour(to_move)


def removed(board: Board, light: Stones, dark: Stones, to_move: str, p: int) -> Stones:
    """The stones that the move at ``p`` removes: always the mover's own, possibly ``p``."""
    before, _ = _split(light, dark, to_move)
    new_light, new_dark, _ = play(board, light, dark, to_move, p)
    after, _ = _split(new_light, new_dark, to_move)
    return frozenset((before | {p}) - after)


# -- the end of the game -------------------------------------------------------------------


def outcome(board: Board, light: Stones, dark: Stones, to_move: str, moves: list[int] | None = None) -> str | None:
    """The winner, ``'L'`` or ``'D'``, if the game is over; otherwise ``None``.
    ``moves``: :func:`legal_moves` of this very position, when the caller has them.

    The cases are checked in this order:

    1. the player to move has two or more stones and the opponent none: the opponent's
       last move removed all of their own stones, so the player to move has won
       (RULES.md says such a position "is already won");
    2. the player to move is in phase ``'lost'`` (no stones, opponent two or more):
       the opponent has won;
    3. the player to move has no legal placement (including a second stone with no
       point that gives it a path): the opponent has won;
    4. otherwise the game goes on.

    The order matters only between 1 and 3: cases 1 and 2 exclude each other (two or
    more stones against none), and in case 2 there are no legal moves either, so 2
    and 3 agree.  A player in case 1 could lack a legal move only on a board full of
    their own stones, and RULES.md settles that the game ended before that turn, so
    case 1 comes first.  Repetition draws are not handled here: they depend on the
    history of a game, not on a position.
    """
    own, other = _split(light, dark, to_move)
    opponent = _other_colour(to_move)
    if len(own) >= 2 and len(other) == 0:
        return to_move
    if phase(board, light, dark, to_move) == "lost":
        return opponent
    if not (legal_moves(board, light, dark, to_move) if moves is None else moves):
        return opponent
    return None


def is_valid(board: Board, light: Stones, dark: Stones, to_move: str) -> str | None:
    """``None`` if the position can be given to the other functions, else why not.

    Invalid are: a bad ``to_move``; a point off the board; a point holding both
    colours; and a player *not* to move who has two or more stones and a dead group.
    The last cannot arise, since that player's dead groups were removed right after
    their move (RULES.md, engine formulation).  A player not to move with exactly one
    stone is in the opening, where nothing is removed, so their lone stone is fine.
    """
    if to_move not in ("L", "D"):
        return f"to_move must be 'L' or 'D', not {to_move!r}"
    for colour, stones in (("light", light), ("dark", dark)):
        off = sorted(p for p in stones if not (isinstance(p, int) and 0 <= p < board.size))
        if off:
            return f"{colour} stones off the {board.name} board: {off}"
    overlap = light & dark
    if overlap:
        return "stones overlap at " + ", ".join(board.name_of(p) for p in sorted(overlap))
    own, other = _split(light, dark, to_move)
    if len(other) >= 2:
        dead = dead_groups(board, other, own)
        if dead:
            names = ", ".join(board.name_of(p) for p in sorted(dead[0]))
            return f"the player not to move ({_other_colour(to_move)}) has a dead group: {names}"
    return None


def perft(board: Board, light: Stones, dark: Stones, to_move: str, depth: int) -> int:
    """The number of leaves of the move tree ``depth`` plies deep.

    ``perft(pos, 0) == 1`` for every position, over or not.  For ``depth >= 1`` a
    position whose :func:`outcome` is not ``None`` (which includes every position
    without a legal move) contributes 0; any other contributes the sum of ``perft``
    of its children at ``depth - 1``.  So a game that ends before ``depth`` plies adds
    nothing.  Repetition is ignored.
    """
    if depth == 0:
        return 1
    if outcome(board, light, dark, to_move) is not None:
        return 0
    total = 0
    for p in legal_moves(board, light, dark, to_move):
        total += perft(board, *play(board, light, dark, to_move, p), depth - 1)
    return total
