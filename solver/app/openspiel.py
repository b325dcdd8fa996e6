"""Meridians as an OpenSpiel game: ``import solver.app.openspiel`` registers ``"meridians"``.

>>> import pyspiel, solver.app.openspiel
>>> game = pyspiel.load_game("meridians", {"m": 2})
>>> state = game.new_initial_state()
>>> state.apply_action(game.action("c1")); state.apply_action(game.action("e2"))
>>> [state.action_to_string(a) for a in state.legal_actions()]
['a1', 'c3', 'c4', 'e1']

An application on top of the rules (like the CLI): nothing in :mod:`solver` imports it,
and it needs the optional extra ``open-spiel`` (``pip install -e '.[openspiel]'``).  The
rules are the project's own: every state holds a :class:`~solver.rules.position.Position`
(which keeps the positions before it, so a repetition is a draw exactly as
:class:`~solver.rules.position.Game` rules it), and legal moves, captures and the end of the
game come from its public API; nothing here re-implements a rule.

**Parameters.**  ``m`` (1..7, default 6): the board ``m/m+1`` (``m=3`` is 3/4);
``pie`` (default false): the pie variant of RULES.md.

**Players and actions.**  Player 0 is the first player.  Action ``p`` (0 <= p < N, N =
3m²+m) places a stone on the point with index ``p`` of :class:`~solver.rules.board.Board`
(board order: ``a1, a2, ..., b1, ...``; ``game.action("c2")`` and
``game.point(action)`` translate).  Without the pie variant player 0 plays Light and
player 1 Dark.  With it, as :mod:`solver.rules.record` writes a pie game: player 0 places
Light's first stone and then Dark's first stone (two actions in a row); player 1 then
chooses a colour with one of two more actions, :data:`KEEP` (``N``: player 1 keeps Dark)
or :data:`SWAP` (``N+1``: player 1 takes Light), and play continues with Light's second
stone by whoever holds Light.  The choice is made even when the position it leaves is
already decided (on 1/2, Light's second stone never has a legal point): it decides who
holds the winning colour.

**Returns.**  +1 for the winner, -1 for the loser, 0 each for a draw (a repeated
position: the only draw of RULES.md), given at the end only.

**Observation tensor** (:data:`PLANES` planes of N values each, for the observing
player, points in board order): 0 the player's stones, 1 the opponent's stones, 2 the
points where the player could place a stone if it were their turn, 3 the same for the
opponent (both from :meth:`Position.legal_moves` of the stones with that side to move,
without the game's history: the rules' reach, which a repetition does not change), 4
all ones while the pie choice is pending.  Before the choice, player 0 is seen as Light.
The observation string is the position in the project's notation, with the colour of
each player; the information state string is the history of actions.

**Maximum game length: a bound that counts captures.**  Each placement adds one stone
and a capture takes whole groups off, so the stones on the board do not bound the game:
a point can be emptied and played again any number of times.  What bounds it is the
repetition rule (RULES.md): a position (board and player to move) that repeats an
earlier one of the same game ends it in a draw.  So in a game of k plies the positions
before the last, p_0 .. p_(k-1), are pairwise distinct, and there are at most
2 * 3**N positions (each point empty, Light or Dark, and the player to move): every game
ends within ``2 * 3**N`` placements, and the pie variant adds its one choice.  No smaller
bound is claimed: stones leave as whole groups and groups form again, so a game can
come back to the same stone counts again and again, and only whole positions are
forbidden to recur (the project's alpha-beta search meets lines of more than 1,024 plies
on 3/4).  The bound is 162 on 1/2 and 9,565,938 on 2/3 (plus 1 with pie).  From 3/4 on
it (4.1e14 on 3/4) exceeds the largest game length OpenSpiel can hold, a C++ ``int``, so
there the OpenSpiel game departs from RULES.md in one place: a game that reaches
:data:`LENGTH_CAP` (2**31 - 1) actions ends as a draw.  Games played by programs are
nowhere near it (2,000 seeded random 3/4 games: at most 42 plies, none drawn), but the
difference is stated, not hidden: :func:`length_bound` gives the rules' bound and
``max_game_length()`` the one OpenSpiel uses.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from solver import COLORS, Board, IllegalMoveError, MeridiansError, Position  # the rules' public API (solver/__init__.py)

__all__ = ["MeridiansGame", "MeridiansState", "MeridiansError", "OpenSpielError", "GAME_TYPE", "KEEP", "SWAP",
           "PLANES", "LENGTH_CAP", "length_bound", "DEFAULT_M", "MIN_M", "MAX_M"]

DEFAULT_M = 6   # the designer's board, 6/7
MIN_M, MAX_M = 1, 7
#: the pie choice's actions, after the N point actions: player 1 keeps Dark / takes Light
KEEP, SWAP = "keep", "swap"
#: the observation tensor's planes (see the module's text)
PLANES = 5
#: the largest game length OpenSpiel holds (a C++ int)
LENGTH_CAP = 2**31 - 1

GAME_TYPE = pyspiel.GameType(
    short_name="meridians",
    long_name="Meridians",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"m": DEFAULT_M, "pie": False},
)


class OpenSpielError(MeridiansError):
    """A parameter of the game that is not one of its values (``m`` 1..7, ``pie`` a bool),
    or a number that is no action of the game.  (An action the rules forbid at that
    point raises :class:`~solver.rules.position.IllegalMoveError`.)  Both are
    :class:`~solver.util.errors.MeridiansError`, which this module exports too: ``except
    MeridiansError`` catches either."""


def length_bound(m: int, pie: bool = False) -> int:
    """The most actions a game on board ``m/m+1`` can last under RULES.md: ``2 * 3**N``
    placements (each position at most once before the last, by the repetition rule; see
    the module's text), plus the pie choice.

    >>> length_bound(1), length_bound(2), length_bound(2, pie=True)
    (162, 9565938, 9565939)
    """
    return 2 * 3 ** Board.get(m).size + (1 if pie else 0)


def _params(params: dict[str, Any] | None) -> tuple[int, bool]:
    params = dict(params or {})
    unknown = sorted(set(params) - {"m", "pie"})
    if unknown:
        raise OpenSpielError(f"meridians takes the parameters m and pie, not {', '.join(unknown)}")
    m, pie = params.get("m", DEFAULT_M), params.get("pie", False)
    if isinstance(m, bool) or not isinstance(m, int) or not MIN_M <= m <= MAX_M:
        raise OpenSpielError(f"m is a whole number from {MIN_M} to {MAX_M} (board m/m+1), not {m!r}")
    if not isinstance(pie, bool):
        raise OpenSpielError(f"pie is true or false, not {pie!r}")
    return m, pie


class MeridiansGame(pyspiel.Game):
    """The game on board ``m/m+1``, with or without the pie variant (see the module)."""

    def __init__(self, params: dict[str, Any] | None = None):
        m, pie = _params(params)
        self.board = Board.get(m)
        self.pie = pie
        self.size = self.board.size
        self.length_bound = length_bound(m, pie)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.size + (2 if pie else 0),
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=min(self.length_bound, LENGTH_CAP),
        )
        super().__init__(GAME_TYPE, info, {"m": m, "pie": pie})

    def new_initial_state(self) -> "MeridiansState":
        return MeridiansState(self)

    # pyspiel would copy and pickle the C++ game alone, without the attributes above
    def __reduce__(self):
        return MeridiansGame, ({"m": self.board.m, "pie": self.pie},)

    def __deepcopy__(self, memo) -> "MeridiansGame":
        return self  # a game never changes

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observation (see the module's text); the information state is the
        history of actions (perfect information and recall)."""
        if params:
            raise OpenSpielError(f"the observer takes no parameters, not {params}")
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return _Observer(self)
        return _HistoryObserver()

    # -- translation between actions and the project's names ---------------------------
    def action(self, name: str) -> int:
        """The action of a point name (``'c2'``) or of the pie choice (``'keep'``, ``'swap'``)."""
        if self.pie and name in (KEEP, SWAP):
            return self.size + (name == SWAP)
        return self.board.index(name)

    def point(self, action: int) -> str:
        """The point name of a placement action, or ``'keep'`` / ``'swap'``."""
        return _name(self.board, self.pie, action)


class MeridiansState(pyspiel.State):
    """A state: the project's :class:`Position` (with its history), who holds Light, and
    the pie choice when it is pending."""

    def __init__(self, game: MeridiansGame):
        super().__init__(game)
        self._s = _Play(game.board, game.pie)

    # -- reading ------------------------------------------------------------------------
    @property
    def position(self) -> Position:
        """The position on the board (it keeps the earlier positions of the game)."""
        return self._s.position

    @property
    def light_player(self) -> int:
        """The player (0 or 1) who holds Light: 0 unless player 1 took it with the pie choice."""
        return self._s.light_player

    @property
    def choosing(self) -> bool:
        """Whether the next action is the pie variant's colour choice."""
        return self._s.choosing

    def player_of(self, color: str) -> int:
        """The player (0 or 1) who holds ``color`` (``'L'`` or ``'D'``); before the pie
        choice player 0 is taken to hold Light (though it places both first stones)."""
        return self._s.light_player if color == "L" else 1 - self._s.light_player

    def current_player(self) -> int:
        s = self._s
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if s.choosing:
            return 1
        if s.pie and s.plies < 2:
            return 0  # the pie variant: player 0 places both first stones
        return self.player_of(s.position.to_move)

    def is_terminal(self) -> bool:
        s = self._s
        return not s.choosing and (s.position.outcome is not None or self.move_number() >= LENGTH_CAP)

    def _legal_actions(self, player: int) -> list[int]:
        s = self._s
        if self.is_terminal() or player != self.current_player():
            return []
        if s.choosing:
            return [s.size, s.size + 1]
        index = s.board.index
        return [index(name) for name in s.position.legal_moves()]

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        winner = self._s.position.outcome
        if winner not in COLORS:  # a repetition (or the length cap)
            return [0.0, 0.0]
        out = [-1.0, -1.0]
        out[self.player_of(winner)] = 1.0
        return out

    # -- playing ------------------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        # pyspiel does not check an action of a Python game against legal_actions(): the
        # pie choice is checked here, a placement by Position.play (IllegalMoveError)
        s = self._s
        name = _name(s.board, s.pie, action)  # OpenSpielError for no action of this game
        if s.choosing != (name in (KEEP, SWAP)):
            raise IllegalMoveError(
                f"{name}: the pie choice (keep or swap) is the action now, not a stone" if s.choosing else
                f"{name}: the pie choice comes right after the first two stones, not now")
        if s.choosing:
            s.choosing = False
            s.light_player = 1 if name == SWAP else 0
            return
        s.position = s.position.play(name)
        s.plies += 1
        if s.pie and s.plies == 2:
            s.choosing = True

    def _action_to_string(self, player: int, action: int) -> str:
        return _name(self._s.board, self._s.pie, action)

    def __str__(self) -> str:
        light = self._s.light_player
        text = f"{self._s.position} (player {light} Light, player {1 - light} Dark)"
        return text + (", pie choice pending" if self._s.choosing else "")


class _Play:
    """The changing part of a state.  OpenSpiel clones a Python state by deepcopy (after
    copying its own history); this copy shares the board and the position, which are
    immutable, instead of copying the position's arrays and history."""

    __slots__ = ("board", "pie", "size", "position", "light_player", "choosing", "plies")

    def __init__(self, board: Board, pie: bool):
        self.board, self.pie, self.size = board, pie, board.size
        self.position = Position.start(board)
        self.light_player = 0
        self.choosing = False
        self.plies = 0  # placements so far

    def __deepcopy__(self, memo) -> "_Play":
        other = object.__new__(_Play)
        for name in self.__slots__:
            setattr(other, name, getattr(self, name))
        return other


def _name(board: Board, pie: bool, action: int) -> str:
    """The name of an action: a point's, ``'keep'`` or ``'swap'``."""
    if isinstance(action, (int, np.integer)) and 0 <= action < board.size:
        return board.name_of(action)
    if pie and action in (board.size, board.size + 1):
        return SWAP if action == board.size + 1 else KEEP
    raise OpenSpielError(f"action {action} is not an action of meridians on {board.name}")


class _Observer:
    """The observation tensor and string (PyObserver interface of OpenSpiel)."""

    def __init__(self, game: MeridiansGame):
        self._game = game
        shape = (PLANES, game.size)
        self.tensor = np.zeros(PLANES * game.size, np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: MeridiansState, player: int) -> None:
        obs = self.dict["observation"]
        obs.fill(0)
        pos, board = state.position, self._game.board
        mine = COLORS[0] if state.player_of("L") == player else COLORS[1]
        theirs = COLORS[1 - COLORS.index(mine)]
        for plane, color in ((0, mine), (1, theirs)):
            for name in pos.stones(color):
                obs[plane, board.index(name)] = 1
        for plane, color in ((2, mine), (3, theirs)):
            reach = Position.from_arrays(board, pos.bitboards, COLORS.index(color), check=False)
            for name in reach.legal_moves():
                obs[plane, board.index(name)] = 1
        if state.choosing:
            obs[4].fill(1)

    def string_from(self, state: MeridiansState, player: int) -> str:
        return str(state)


class _HistoryObserver:
    """The information state: the actions so far (perfect information, perfect recall)."""

    tensor = None
    dict: dict = {}

    def set_from(self, state, player) -> None:
        """Nothing to fill: this observer has no tensor, its observation is the history string."""

    def string_from(self, state, player) -> str:
        return state.history_str()


pyspiel.register_game(GAME_TYPE, MeridiansGame)
