"""The "settled" rule, reference version: an enclosure's supply against the remainder's bound.

A position is *settled* for a colour X (the *owner*; Y is the other colour) when X has
walled off empty points where Y can never play, and X can make more harmless moves in
there than Y can make anywhere: then X wins, whatever either player does elsewhere
(KNOWLEDGE.md, the lead's spec, issue 19).  The rule only ever speaks about a position
that is not finished and where both players have two or more stones.

1. :func:`enclosure` ``(I, W)``.  A = the flood from Y's stones over points that are not
   X stones; I (the interior) = the empty points outside A; W (the walls) = every X group
   with a stone adjacent to I.  A line leaving I meets a W stone first, so while W stands
   no point of I ever sees a Y stone: Y can never place in I.
2. :func:`supply` ``h_X``.  The X-model: X stones W, empty I, every other point a fill
   stone of colour Y that never goes.  X alone plays legal normal-phase placements, its
   dead groups removed after each; a move is *harmless* iff every point of W still holds
   an X stone after it.  ``h_X`` = the longest harmless sequence.  While X plays harmless
   moves, reality equals the model inside I ∪ W (the model's paths of W lie in I, so they
   exist in reality too; paths through A are ignored, which is pessimistic; I's stones see
   only I ∪ W), and Y's moves never touch I ∪ W: X has ``h_X`` moves whatever Y does.
3. :func:`bound` ``v_Y``.  The Y-model: the real board with I filled with X stones, W ∪ I
   *permanent*.  Y alone plays legal placements, its dead groups removed; a move that
   leaves Y with no stones loses and does not count; after a counted move X's dead groups
   without a permanent stone go (first also at the start).  ``v_Y`` = the most counted
   moves.  While X plays harmless moves in I, every move of Y in reality is a model move
   and X's outside stones die when the model removes them: Y has at most ``v_Y`` moves.
4. :func:`settle`, the decision, X = the side to move first, then the other: X wins if
   ``h_X >= v_Y + 1`` with X to move, or ``h_X >= v_Y`` with Y to move (X plays a longest
   harmless sequence and Y runs out first).  A cycle in either solitaire, or a budget of
   solitaire states (counted over both solitaires of one owner) that runs out: no claim.
   A claim never depends on the budget.
4b. The repetition guard: X's state in I ∪ W never repeats along its sequence, so no
   position of the continuation repeats another; but one may equal a position *before*
   this one.  Every position F of the continuation has F's X stones in I ∪ W = an X-model
   state reached and F's Y stones = those of a Y-model state reached; an earlier position
   Z with both (whatever its side to move and X's stones outside I ∪ W) blocks the claim.

Layer 2: this module uses only :mod:`solver.reference` (the networkx rules),
:mod:`solver.rules.board` and the standard library, and imports without numba, so that the
certificate checker can recompute a claim.  A *position* here is the reference's own
``(board, light, dark, to_move)`` (stones as frozensets of point indices), what
:func:`solver.rules.notation.parse_position` returns; a :class:`solver.rules.position.Position` (or
anything with ``board``, ``stones(colour)`` and ``to_move``) is read through
:func:`as_reference` by every public function.  The fast twin is
``solver/search/knowledge.py``; the two must agree on ``h_X``, ``v_Y`` and the decision
wherever both are defined within their budgets.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from solver.reference import rules as ref
from solver.rules.board import Board
from solver.util.errors import MeridiansError

__all__ = ["Settled", "SettledError", "History", "as_reference", "enclosure", "supply", "bound",
           "settle", "check_settled", "DEFAULT_BUDGET"]

#: solitaire states one owner may visit (both solitaires together) before settle gives up
DEFAULT_BUDGET = 100_000

Stones = frozenset  # point indices of one colour


class SettledError(MeridiansError):
    """A settled claim that the reference rules do not confirm; the message names the
    first mismatch.  The certificate checker reports it as a rejected certificate."""


@dataclass(frozen=True)
class Settled:
    """A claim: ``owner`` wins; its enclosure supplies ``supply`` harmless moves and the
    other player has at most ``bound`` moves.  ``interior`` and ``walls`` are I and W
    as point names (for pictures and messages)."""

    owner: str
    supply: int
    bound: int
    interior: frozenset[str]
    walls: frozenset[str]

    def claim(self) -> dict:
        """The claim as a certificate leaf writes it: ``{"owner", "supply", "bound"}``."""
        return {"owner": self.owner, "supply": self.supply, "bound": self.bound}


# -- positions ------------------------------------------------------------------------------


def _other(colour: str) -> str:
    if colour not in ("L", "D"):
        raise ValueError(f"a colour is 'L' or 'D', not {colour!r}")
    return "D" if colour == "L" else "L"


def as_reference(position) -> tuple[Board, Stones, Stones, str]:
    """``(board, light, dark, to_move)`` with stones as point indices: the reference's
    representation of ``position``, which is either that tuple already or an object with
    ``board``, ``stones(colour)`` (point names) and ``to_move``, such as a
    :class:`solver.rules.position.Position` (read without importing the compiled core)."""
    if isinstance(position, tuple):
        board, light, dark, side = position
        return board, frozenset(light), frozenset(dark), side
    board = position.board
    return (board, frozenset(board.index(x) for x in position.stones("L")),
            frozenset(board.index(x) for x in position.stones("D")), position.to_move)


def _sides(light: Stones, dark: Stones, owner: str) -> tuple[Stones, Stones]:
    """``(X stones, Y stones)`` for ``owner`` = X."""
    _other(owner)
    return (light, dark) if owner == "L" else (dark, light)


class History:
    """Earlier positions (of a game, a search path or a whole certificate), indexed by the
    stones of each colour, for the repetition guard: :meth:`x_stones_with` costs one
    lookup.  Positions may be given as ``(light, dark, to_move)``, the reference tuple
    with its board first, or Position objects; the side to move is not kept (the guard
    ignores it)."""

    def __init__(self, positions: Iterable = ()):
        self._by: dict[str, dict[Stones, list[Stones]]] = {"L": {}, "D": {}}
        for z in positions:
            self.add(*_light_dark(z))

    def add(self, light: Iterable[int], dark: Iterable[int]) -> None:
        light, dark = frozenset(light), frozenset(dark)
        self._by["L"].setdefault(dark, []).append(light)
        self._by["D"].setdefault(light, []).append(dark)

    def x_stones_with(self, owner: str, y_stones: Stones) -> Iterable[Stones]:
        """The owner's stones of every earlier position whose other colour holds exactly
        ``y_stones``."""
        return self._by[owner].get(y_stones, ())


def _light_dark(z) -> tuple[Stones, Stones]:
    if isinstance(z, tuple):
        if len(z) == 4:
            z = z[1:]
        return frozenset(z[0]), frozenset(z[1])
    _, light, dark, _ = as_reference(z)
    return light, dark


def _as_history(history) -> History:
    """``history`` as an index: a :class:`History` (or any object with the method
    ``x_stones_with(owner, y_stones)``) is used as it is, an iterable of positions indexed."""
    return history if hasattr(history, "x_stones_with") else History(history)


# -- the enclosure --------------------------------------------------------------------------


def _enclosure(board: Board, xs: Stones, ys: Stones) -> tuple[Stones, Stones]:
    """``(I, W)`` as point indices, for X stones ``xs`` and Y stones ``ys``."""
    reached = set(ys)  # A: flood from Y's stones over points that are not X stones
    todo = list(ys)
    while todo:
        p = todo.pop()
        for n in board.neighbours[p]:
            if n not in reached and n not in xs:
                reached.add(n)
                todo.append(n)
    interior = frozenset(p for p in range(board.size) if p not in reached and p not in xs)
    walls: set[int] = set()
    for group in ref.groups(board, xs):
        if any(n in interior for p in group for n in board.neighbours[p]):
            walls |= group
    return interior, frozenset(walls)


def enclosure(position, owner: str) -> tuple[frozenset[str], frozenset[str]]:
    """``(I, W)`` of ``owner`` = X, as point names.  I = the empty points that no flood
    from a Y stone over non-X points reaches; W = the stones of every X group adjacent to
    I.  Every neighbour of a point of I is in I or an X stone of W, so Y can never place
    in I while W stands.  W is empty iff I is."""
    board, light, dark, _ = as_reference(position)
    xs, ys = _sides(light, dark, owner)
    interior, walls = _enclosure(board, xs, ys)
    return frozenset(map(board.name_of, interior)), frozenset(map(board.name_of, walls))


# -- the two solitaires ---------------------------------------------------------------------


class _Budget:
    """Solitaire states one owner may still visit (None: no cap, for the checker)."""

    def __init__(self, states: int | None):
        self.left = states

    def spend(self) -> bool:
        """Count one state visited; False once the budget is exceeded."""
        if self.left is None:
            return True
        self.left -= 1
        return self.left >= 0


class _Undefined(Exception):
    """The solitaire has no value here: ``why`` is 'cycle', 'budget' or 'limit'."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


def _longest(start: Hashable, children: Callable[[Hashable], list], budget: _Budget,
             limit: int | None = None) -> tuple[int, dict]:
    """``(n, done)``: the greatest number of moves of a sequence from ``start`` in the
    graph ``children``, and every state reached mapped to its own longest sequence.

    Depth first with the value of each finished state memoised, iterative (sequences may
    be long).  A move to a state on the current sequence is a cycle: raises
    :class:`_Undefined` ('cycle'); so does a state beyond the budget ('budget') or, with
    ``limit``, a sequence longer than ``limit`` ('limit': the caller only needs to know
    whether the value is at most ``limit``).  Depth first search meets every cycle
    reachable from the start as a move back onto its current sequence."""
    if not budget.spend():
        raise _Undefined("budget")
    done: dict = {}
    on_path = {start}
    stack = [[start, children(start), 0, 0]]  # state, its successors, next one, best so far
    while stack:
        frame = stack[-1]
        state, succ, k, best = frame
        if k < len(succ):
            frame[2] = k + 1
            child = succ[k]
            if child in on_path:
                raise _Undefined("cycle")
            if child in done:
                frame[3] = max(best, 1 + done[child])
                continue
            if not budget.spend():
                raise _Undefined("budget")
            on_path.add(child)
            stack.append([child, children(child), 0, 0])
            continue
        stack.pop()
        on_path.discard(state)
        done[state] = best
        # a sequence through this state: len(stack) moves to it, best after it
        if limit is not None and len(stack) + best > limit:
            raise _Undefined("limit")
        if stack:
            stack[-1][3] = max(stack[-1][3], 1 + best)
    return done[start], done


def _x_model(board: Board, interior: Stones, walls: Stones):
    """``(start, children)`` of the X-model: states are X's stones (W and X's stones in
    I); the fill, every point outside I ∪ W, is a stone of the other colour for good."""
    fill = frozenset(p for p in range(board.size) if p not in interior and p not in walls)

    def children(xs: Stones) -> list[Stones]:
        out = []
        for p in ref.normal_moves(board, xs, fill):
            after = xs | {p}
            for group in ref.dead_groups(board, after, fill):
                after -= group
            if walls <= after:  # harmless: every wall stone stands
                out.append(frozenset(after))
        return out

    return walls, children


def _y_model(board: Board, xs: Stones, ys: Stones, interior: Stones, walls: Stones):
    """``(start, children)`` of the Y-model: states are ``(Y stones, X stones)`` on the
    real board with I filled with X stones; W ∪ I are permanent, X's other dead groups
    are removed at the start and after every counted move of Y."""
    permanent = interior | walls

    def without_dead_x(x_stones: Stones, y_stones: Stones) -> Stones:
        for group in ref.dead_groups(board, x_stones, y_stones):
            if not group & permanent:
                x_stones -= group
        return frozenset(x_stones)

    def children(state: tuple[Stones, Stones]) -> list[tuple[Stones, Stones]]:
        y_stones, x_stones = state
        out = []
        for p in ref.normal_moves(board, y_stones, x_stones):
            after = y_stones | {p}
            for group in ref.dead_groups(board, after, x_stones):
                after -= group
            if not after:  # Y removed all its own stones: a loss, not a counted move
                continue
            after = frozenset(after)
            out.append((after, without_dead_x(x_stones, after)))
        return out

    return (ys, without_dead_x(xs | interior, ys)), children


def supply(position, owner: str, budget: int | None = DEFAULT_BUDGET) -> int | None:
    """``h_X`` for ``owner`` = X: the most harmless moves X can make in its enclosure,
    playing alone in the X-model (0 if none, or if there is no enclosure).  None if the
    harmless moves can reach a state twice on one sequence, or more than ``budget``
    states are visited (None: no cap).  X can make that many moves whatever the other
    player does, its walls standing all the time."""
    board, light, dark, _ = as_reference(position)
    xs, ys = _sides(light, dark, owner)
    try:
        return _supply(board, xs, ys, _Budget(budget))[0]
    except _Undefined:
        return None


def _supply(board: Board, xs: Stones, ys: Stones, budget: _Budget, enclosed=None) -> tuple[int, dict]:
    interior, walls = enclosed or _enclosure(board, xs, ys)
    return _longest(*_x_model(board, interior, walls), budget)


def bound(position, owner: str, budget: int | None = DEFAULT_BUDGET) -> int | None:
    """``v_Y`` for ``owner`` = X: the most moves the other player Y can count, playing
    alone on the real board with X's interior filled and X's walls and interior
    permanent (a move by which Y loses all its stones is not counted).  None if Y's moves
    can reach a state twice on one sequence, or more than ``budget`` states are visited.
    While X plays only harmless moves in I, Y can make at most that many moves before it
    has no legal move or loses all its stones."""
    board, light, dark, _ = as_reference(position)
    xs, ys = _sides(light, dark, owner)
    try:
        return _bound(board, xs, ys, _Budget(budget))[0]
    except _Undefined:
        return None


def _bound(board: Board, xs: Stones, ys: Stones, budget: _Budget, limit: int | None = None,
           enclosed=None) -> tuple[int, dict]:
    interior, walls = enclosed or _enclosure(board, xs, ys)
    return _longest(*_y_model(board, xs, ys, interior, walls), budget, limit)


# -- the decision ---------------------------------------------------------------------------


def _applies(board: Board, light: Stones, dark: Stones, side: str) -> bool:
    """The rule speaks only of an unfinished position where both have two or more stones."""
    return len(light) >= 2 and len(dark) >= 2 and ref.outcome(board, light, dark, side) is None


def _needed(owner: str, side: str, bound_: int) -> int:
    """The supply that wins against ``bound_`` (section 4)."""
    return bound_ + 1 if owner == side else bound_


def _blocked(history, owner: str, x_states: Iterable[Stones], y_states: Iterable[tuple],
             region: Stones) -> bool:
    """Whether an earlier position has its owner's stones in ``region`` (I ∪ W) equal to
    an X-model state reached and its other stones equal to those of a Y-model state."""
    x_states = set(x_states)
    for y_stones in {y for y, _ in y_states}:
        for z_x in history.x_stones_with(owner, y_stones):
            if frozenset(z_x) & region in x_states:
                return True
    return False


def _settle_for(board: Board, light: Stones, dark: Stones, side: str, owner: str,
                budget: _Budget, history) -> Settled | None:
    xs, ys = _sides(light, dark, owner)
    enclosed = _enclosure(board, xs, ys)
    interior, walls = enclosed
    try:
        h, x_states = _supply(board, xs, ys, budget, enclosed)
        limit = h - 1 if owner == side else h  # the most moves of Y that h still beats
        if limit < 0:
            return None
        v, y_states = _bound(board, xs, ys, budget, limit, enclosed)
    except _Undefined:
        return None
    assert h >= _needed(owner, side, v)
    if _blocked(history, owner, x_states, y_states, interior | walls):
        return None
    return Settled(owner, h, v, frozenset(map(board.name_of, interior)), frozenset(map(board.name_of, walls)))


def settle(position, budget: int | None = DEFAULT_BUDGET, history: Iterable = ()) -> Settled | None:
    """The settled claim of ``position`` (section 4 of the module docstring), or None.

    Tried for the side to move first, then for the other, each with ``budget``
    solitaire states for its two solitaires.  ``history``: the positions before this one
    (a game's, a search path's; not this one), or a :class:`History`; one that the
    continuation could repeat blocks the claim.  A claim holds whatever the budget: the
    owner wins under any repetition rule."""
    board, light, dark, side = as_reference(position)
    if not _applies(board, light, dark, side):
        return None
    history = _as_history(history)
    for owner in (side, _other(side)):
        found = _settle_for(board, light, dark, side, owner, _Budget(budget), history)
        if found is not None:
            return found
    return None


def check_settled(position, claim, history: Iterable = ()) -> None:
    """Confirm ``claim`` (a dict ``{"owner", "supply", "bound"}`` or a :class:`Settled`) on
    ``position`` with the reference rules and no budget: the rule applies, ``supply`` and
    ``bound`` are exactly ``h_X`` and ``v_Y`` of the owner, the decision holds, and no
    position of ``history`` (see :func:`settle`) blocks it.  Raises
    :class:`SettledError` naming the first mismatch."""
    if isinstance(claim, Settled):
        claim = claim.claim()
    board, light, dark, side = as_reference(position)
    owner, h_claimed, v_claimed = claim["owner"], claim["supply"], claim["bound"]
    if owner not in ("L", "D"):
        raise SettledError(f"the owner must be 'L' or 'D', not {owner!r}")
    if len(light) < 2 or len(dark) < 2:
        raise SettledError("the settled rule needs two or more stones of each colour")
    if ref.outcome(board, light, dark, side) is not None:
        raise SettledError("the game is over: the settled rule does not apply")
    xs, ys = _sides(light, dark, owner)
    enclosed = _enclosure(board, xs, ys)
    unlimited = _Budget(None)
    try:
        h, x_states = _supply(board, xs, ys, unlimited, enclosed)
    except _Undefined:
        raise SettledError(f"{owner}'s harmless moves can repeat a state: no supply") from None
    if h != h_claimed:
        raise SettledError(f"{owner}'s supply is {h}, not {h_claimed}")
    try:
        # no need to go beyond the claimed bound: a longer sequence already refutes it
        v, y_states = _bound(board, xs, ys, unlimited, v_claimed, enclosed)
    except _Undefined as e:
        if e.why == "limit":
            raise SettledError(f"{_other(owner)} has more than {v_claimed} moves") from None
        raise SettledError(f"{_other(owner)}'s moves can repeat a state: no bound") from None
    if v != v_claimed:
        raise SettledError(f"{_other(owner)}'s bound is {v}, not {v_claimed}")
    if h < _needed(owner, side, v):
        raise SettledError(f"a supply of {h} does not beat a bound of {v} with {side} to move")
    if _blocked(_as_history(history), owner, x_states, y_states, enclosed[0] | enclosed[1]):
        raise SettledError("an earlier position could repeat in the continuation")
