"""Matches between players (``meridians match``): the engine, today's and earlier, flat Monte Carlo, random.

Players are named by a spec: ``engine``, ``engine:time=1`` (seconds a move),
``engine:playouts=200``, ``engine:playouts=200,dfpn=0`` (df-pn's nodes before the tree,
default :data:`solver.search.mcts.DFPN_NODES`), the same for ``uct``, the options
``time`` and ``playouts`` for ``mcts`` and ``mcts-flat``, and ``random``.  The engine
also takes its tuning knobs, for measuring them: ``select`` (``puct``, ``bias``, ``uct``),
``c`` (UCT's exploration), ``cp`` (the prior's weight), ``fpu``, ``expand`` (visits
before a leaf is expanded), ``model`` (a move model file in place of the shipped one),
``workers`` (searches of a position at once in threads: root parallelism), ``rave``
(RAVE's reference visits, 0: off), ``rbias`` (its bias) and ``pplies`` (the plies of
each playout drawn from the move model, 0: none); their defaults are
:mod:`solver.search.mcts`'s.

- ``engine``: the answer of every front end (:func:`solver.app.analyst.analyse`: the opening
  database, a df-pn proof, then :class:`solver.search.mcts.Engine`, MCTS-Solver with the
  move model's priors), with one Engine a game, so that its tree is kept from move to
  move; default 1 s a move;
- ``uct``: the same with the engine before the move model (plain UCT selection, no
  priors: ``select='uct'``), kept so that every later engine is measured against it;
- ``mcts``: the engine's tree search without its solver and without df-pn (no proof
  backed up), to measure what the solver adds; default 1 s a move;
- ``mcts-flat``: flat Monte Carlo: the same playouts spread evenly over the moves of the
  position (no tree below them, no df-pn), the move with the best win rate; a move that
  ends the game at once is seen, as the engine sees it; default 1 s a move;
- ``random``: a uniformly random legal move.

Games alternate colours: player A is Light in games 0, 2, 4, ... (the odd-numbered ones,
counting from 1).  Game ``i`` is seeded by the match's seed and ``i`` alone
(:func:`game_seed`), so with playout budgets (no ``time``) a match replays exactly,
whether its games are played one after the other or at once in worker processes
(``jobs``), and whether it ran in one go or was stopped and resumed.

:func:`run_match` writes every finished game (index, colours, outcome, moves) to a state
file at once (:class:`MatchState`); run again with the same players, board and seed, it
plays only the missing games.  Each game can also be written as a game record
(:func:`game_record`, :func:`record_path`), which ``meridians show --game`` and
``meridians verify --game`` read.

>>> parse_player("engine:playouts=200")
Player(spec='engine:playouts=200', kind='engine', limit=Limit(seconds=None, nodes=0, tt_mb=None, playouts=200), dfpn=20000, tune=())
>>> elo(0.5, 10)[0]
0.0
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import os
import random
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from solver.util.errors import Interrupted, MeridiansError
from solver.util.files import state_dir, write_atomic
from solver.jobs.state import RunState, StateError
from solver.rules.position import Game, Position
from solver.rules.record import GameRecord, is_date
from solver.search import mcts
from solver.search.limit import Limit, LimitError, check_seconds

__all__ = ["Player", "parse_player", "engine_of", "choose_move", "play_game", "play_indexed", "game_seed",
           "run_match", "tally", "MatchResult", "PlayedGame", "MatchState", "MatchStateError", "MatchError",
           "default_state", "record_path", "game_record", "elo", "combine", "KINDS", "MAX_JOBS",
           "RECORD_SUFFIX", "STATE_FORMAT"]

KINDS = ("engine", "uct", "mcts", "mcts-flat", "random")
#: the engine's tuning options: the Engine keyword each sets, and its type
TUNING = {"select": ("select", str), "c": ("exploration", float), "cp": ("prior_c", float), "fpu": ("fpu", float),
          "expand": ("expand_at", int), "model": ("model", str), "workers": ("workers", int),
          "rave": ("rave", int), "rbias": ("rave_bias", float), "pplies": ("policy_plies", int)}
#: the default thinking time of a searching player, seconds a move
DEFAULT_SECONDS = 1.0
#: the most games at once (worker processes)
MAX_JOBS = 256
#: the state file's format
STATE_FORMAT = "meridians-match/1"
#: the ending of a match's game record files (as the project's examples name records)
RECORD_SUFFIX = ".txt"


@dataclass(frozen=True)
class Player:
    """A player of a match: ``kind`` one of :data:`KINDS`, with its ``limit`` a move (None
    for ``random``)."""

    spec: str
    kind: str
    limit: Limit | None = None
    dfpn: int = 0  # the engine's df-pn nodes before its tree
    tune: tuple = ()  # the engine's tuning: (Engine keyword, value) pairs


def parse_player(spec: str) -> Player:
    """The player named by ``spec`` (see the module's text); ValueError naming what is
    wrong otherwise."""
    kind, _, opts = spec.strip().partition(":")
    if kind not in KINDS:
        raise ValueError(f"player {spec!r}: unknown kind {kind!r} (one of {', '.join(KINDS)})")
    seconds = playouts = None
    dfpn = mcts.DFPN_NODES if kind in ("engine", "uct") else 0
    known = {"engine": ("time", "playouts", "dfpn", *TUNING), "uct": ("time", "playouts", "dfpn"),
             "mcts": ("time", "playouts"), "mcts-flat": ("time", "playouts"), "random": ()}[kind]
    tune = {}
    for opt in filter(None, (o.strip() for o in opts.split(","))):
        key, eq, value = opt.partition("=")
        if not eq or key not in known:
            raise ValueError(f"player {spec!r}: unknown option {opt!r}"
                             + (f" ({', '.join(k + '=' for k in known)})" if known else ""))
        try:
            if key == "time":
                seconds = check_seconds(float(value), f"player {spec!r}: time")
            elif key == "playouts":
                playouts = int(value)
                if not 1 <= playouts <= mcts.MAX_PLAYOUTS:
                    raise ValueError
            elif key in TUNING:
                name, kind_of = TUNING[key]
                v = kind_of(value)
                if (key == "select" and v not in mcts.SELECTIONS) or (kind_of is float and not math.isfinite(v)) \
                        or (key in ("c", "cp", "expand", "rave", "rbias", "pplies") and v < 0) \
                        or (key == "workers" and not 1 <= v <= mcts.MAX_WORKERS):
                    raise ValueError
                if key == "model":
                    mcts.model_weights(v)  # PolicyError, a ValueError, for a file that is no model
                tune[name] = v
            else:
                dfpn = int(value)
                if not 0 <= dfpn <= 10**9:
                    raise ValueError
        except LimitError:
            raise
        except ValueError:
            want = {"time": "number of seconds", "playouts": "whole number of playouts >= 1",
                    "dfpn": "whole number of nodes >= 0", "select": f"selection rule ({', '.join(mcts.SELECTIONS)})",
                    "c": "number >= 0", "cp": "number >= 0", "fpu": "number", "expand": "whole number >= 0",
                    "model": "move model file (.npz, scripts/train_policy.py)",
                    "workers": f"whole number of searches at once, 1 to {mcts.MAX_WORKERS}",
                    "rave": "whole number of visits >= 0", "rbias": "number >= 0",
                    "pplies": "whole number of plies >= 0"}[key]
            raise ValueError(f"player {spec!r}: {key}={value!r} is not a {want}") from None
    if kind == "random":
        return Player(spec.strip(), kind, None, dfpn)
    if seconds is None and playouts is None:
        seconds = DEFAULT_SECONDS
    return Player(spec.strip(), kind, Limit(seconds=seconds, playouts=playouts), dfpn, tuple(sorted(tune.items())))


def engine_of(player: Player, seed: int) -> mcts.Engine | None:
    """The engine a searching player keeps through one game (its tree is reused from
    move to move); None for the others."""
    if player.kind == "engine":
        return mcts.Engine(seed=seed, dfpn_nodes=player.dfpn, **dict(player.tune))
    if player.kind == "uct":
        return mcts.Engine(seed=seed, dfpn_nodes=player.dfpn, select="uct")
    if player.kind == "mcts":
        return mcts.Engine(seed=seed, dfpn_nodes=0, solver=False)
    return None


def choose_move(player: Player, position: Position, rng: random.Random, seed: int,
                engine: mcts.Engine | None = None) -> str:
    """``player``'s move in ``position`` (a game not over); ``engine``: the one
    :func:`engine_of` gave it for this game (else a fresh search)."""
    if player.kind == "random":
        return rng.choice(position.legal_moves())
    if player.kind in ("engine", "uct"):  # the answer of every front end: the database, a proof, the engine
        from .analyst import analyse

        r = analyse(position, player.limit, seed=seed, engine=engine or engine_of(player, seed))
    elif player.kind == "mcts":
        engine = engine or engine_of(player, seed)
        r = engine.search(position, player.limit)
    else:  # flat: the root expanded, no leaf ever expanded, moves visited evenly
        r = mcts.search(position, player.limit, seed=seed, dfpn_nodes=0, expand_at=2**62, exploration=1e9,
                        select="uct")
        if not r.proven:
            rated = [m for m in r.moves if m.win_rate is not None]
            if rated:
                return max(rated, key=lambda m: m.win_rate).move
    if r.best is None:  # a search always tries every root move: a bug, not to be hidden by a random move
        raise RuntimeError(f"{player.spec} found no move in {position} ({'; '.join(r.notes)})")
    return r.best


def play_game(light: Player, dark: Player, board: str, seed: int) -> tuple[str, list[str]]:
    """One game from the empty ``board``: its outcome (``'L'``, ``'D'`` or ``'draw'``) and moves."""
    rng = random.Random(seed)
    pos = Position.start(board)
    moves: list[str] = []
    engines = (engine_of(light, 2 * seed), engine_of(dark, 2 * seed + 1))
    while pos.outcome is None:
        player = light if pos.to_move == "L" else dark
        move = choose_move(player, pos, rng, seed * 1000 + len(moves), engines[pos.side_index])
        pos = pos.play(move)
        moves.append(move)
    return pos.outcome, moves


def elo(score: float, games: int) -> tuple[float | None, float | None, float | None]:
    """The Elo difference for a mean score ``score`` (draws half) over ``games``, and
    its 95% interval: ``(diff, low, high)``.  The interval is Wilson's for the score as
    a proportion (it stays informative at a score of 0 or 1, where the normal one
    shrinks to a point), mapped through the logistic curve.  ``None`` where the score
    is 0 or 1: no finite difference.

    >>> [round(x) for x in elo(0.75, 100)]
    [191, 113, 269]
    >>> elo(1.0, 6)[0::2]
    (None, None)
    """

    def to_elo(p: float) -> float | None:
        if p <= 0.0 or p >= 1.0:
            return None
        return -400.0 * math.log10(1.0 / p - 1.0)

    n = max(games, 1)
    z2 = 1.96 ** 2
    centre = (score + z2 / (2 * n)) / (1 + z2 / n)
    half = 1.96 * math.sqrt(score * (1 - score) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = None if score <= 0 else to_elo(centre - half)
    high = None if score >= 1 else to_elo(centre + half)
    diff = to_elo(score)
    return (None if diff is None else diff + 0.0), low, high  # + 0.0: no -0.0


@dataclass
class MatchResult:
    """The tally of a match, for player A.  ``results``: per game, in order, ``'a'``,
    ``'b'`` or ``'draw'`` (filled when the match is over)."""

    a: str
    b: str
    board: str
    games: int
    a_wins: int
    b_wins: int
    draws: int
    a_light_wins: int      # of A's wins, those as Light
    b_light_wins: int
    elo: float | None      # A's rating minus B's (None: A scored 0 or 1)
    elo_low: float | None
    elo_high: float | None
    seed: int
    results: list[str] = field(default_factory=list)  # per game: 'a', 'b' or 'draw'
    a_light_games: int = 0   # the games A played as Light
    a_light_draws: int = 0   # of the draws, those where A was Light
    resumed: int = 0         # games read from the state file, not played now
    state: str | None = None  # the state file, while it is kept

    @property
    def score(self) -> float:
        return (self.a_wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def add(self, game: PlayedGame) -> None:
        """Count one finished game (A is Light in the even-indexed games)."""
        a_light = game.index % 2 == 0
        self.games += 1
        self.a_light_games += a_light
        if game.outcome == "draw":
            self.draws += 1
            self.a_light_draws += a_light
        elif (game.outcome == "L") == a_light:
            self.a_wins += 1
            self.a_light_wins += game.outcome == "L"
        else:
            self.b_wins += 1
            self.b_light_wins += game.outcome == "L"
        self.elo, self.elo_low, self.elo_high = elo(self.score, self.games)

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d["score"] = self.score
        return d


_COUNTS = ("games", "a_wins", "b_wins", "draws", "a_light_wins", "b_light_wins", "a_light_games", "a_light_draws")


def combine(rows: list[dict]) -> dict:
    """One match made of matches of the same players on the same board with different
    seeds (rows of :meth:`MatchResult.as_dict`, a long match played in parts): the counts
    added, the Elo and its interval those of the total, ``seeds`` the parts' seeds.
    Raises ValueError for other players, boards or a seed given twice."""
    if not rows:
        raise ValueError("no matches to combine")
    first = rows[0]
    for r in rows:
        if (r.get("a"), r.get("b"), r.get("board")) != (first.get("a"), first.get("b"), first.get("board")):
            raise ValueError(f"{r.get('a')} vs {r.get('b')} on {r.get('board')} is another match than "
                             f"{first.get('a')} vs {first.get('b')} on {first.get('board')}")
    seeds = [r.get("seed") for r in rows]
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds {seeds}: each part must have its own seed (the same seed plays the same games)")
    out = {"a": first["a"], "b": first["b"], "board": first["board"],
           **{k: sum(int(r.get(k, 0)) for r in rows) for k in _COUNTS}, "seeds": seeds}
    out["score"] = (out["a_wins"] + 0.5 * out["draws"]) / out["games"] if out["games"] else 0.0
    out["elo"], out["elo_low"], out["elo_high"] = elo(out["score"], out["games"])
    return out


@dataclass(frozen=True)
class PlayedGame:
    """One finished game of a match: its index (0 for the first game), who played Light
    and Dark (player specs), the outcome (``'L'``, ``'D'``, ``'draw'``), the moves, and
    the day it ended (``YYYY.MM.DD``, UTC)."""

    index: int
    light: str
    dark: str
    outcome: str
    moves: tuple[str, ...]
    date: str

    def entry(self) -> dict:
        """The state file's entry of this game."""
        return {"index": self.index, "light": self.light, "dark": self.dark, "outcome": self.outcome,
                "moves": list(self.moves), "date": self.date}


class MatchStateError(StateError):
    """A match state file that is corrupt, belongs to another match, or is in use; the
    message names the file."""


class MatchError(MeridiansError, RuntimeError):
    """A game failed in its worker (the message names the game and the error)."""


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a match with ``seed``: a game depends on nothing else
    (neither the games before it nor the process that plays it)."""
    return seed * 100_003 + index


def play_indexed(a: Player, b: Player, board: str, seed: int, index: int,
                 parent_pid: int | None = None) -> PlayedGame:
    """Game ``index`` of a match of A against B (A is Light in the even-indexed games).
    ``parent_pid`` is the worker pool's (unused: the pool's workers watch it)."""
    light, dark = (a, b) if index % 2 == 0 else (b, a)
    outcome, moves = play_game(light, dark, board, game_seed(seed, index))
    return PlayedGame(index, light.spec, dark.spec, outcome, tuple(moves), _today())


def _today() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y.%m.%d")


def tally(a: Player, b: Player, board: str, seed: int, played: dict[int, PlayedGame]) -> MatchResult:
    """The :class:`MatchResult` of the games ``played`` (by index), ``results`` in order."""
    r = MatchResult(a.spec, b.spec, board, 0, 0, 0, 0, 0, 0, None, None, None, seed)
    for i in sorted(played):
        g = played[i]
        r.add(g)
        r.results.append("draw" if g.outcome == "draw" else "a" if (g.outcome == "L") == (i % 2 == 0) else "b")
    return r


# -- the state file: finished games, so that a stopped match resumes ------------------------
def default_state(a: Player, b: Player, board: str, seed: int, folder: str | os.PathLike | None = None) -> Path:
    """``<folder>/match-<board>-<hash of the players and seed>.json``, ``folder`` by
    default the user's state folder (:func:`solver.util.files.state_dir`, created if
    missing): one file per match (the number of games is not part of it: a longer
    match resumes a shorter one)."""
    key = json.dumps([a.spec, b.spec, board, seed])
    return Path(state_dir() if folder is None else folder) / f"match-{board.replace('/', '-')}-{hashlib.sha1(key.encode()).hexdigest()[:10]}.json"


class MatchState:
    """The state file of a match: every finished game (index, colours, outcome, moves);
    a :class:`solver.jobs.state.RunState` whose identity is the players, board and seed
    (written atomically, locked by a ``.lock`` file beside it)."""

    def __init__(self, path: str | os.PathLike, a: Player, b: Player, board: str, seed: int):
        self.path = Path(path)
        self.a, self.b, self.board, self.seed = a, b, board, seed
        self._state = RunState(self.path, STATE_FORMAT, {"match": self.identity()}, name="match state", run="match",
                               fix="remove it or give another --state", error=MatchStateError)

    def identity(self) -> dict:
        return {"a": self.a.spec, "b": self.b.spec, "board": self.board, "seed": self.seed}

    def acquire(self) -> None:
        """Lock the state file: :class:`MatchStateError` at once when another run of the match holds it."""
        self._state.acquire()

    def release(self, remove: bool = False) -> None:
        """Unlock (the lock file is removed); ``remove``: the state file too (the match is over)."""
        self._state.release(remove)

    def load(self) -> dict[int, PlayedGame]:
        """The finished games of a matching state file ({} when there is none), each
        replayed by the rules: its moves legal, its outcome the one they reach.
        :class:`MatchStateError` for a file that :meth:`RunState.load
        <solver.jobs.state.RunState.load>` refuses (unreadable, not a match state, of
        another match, code or rules) or with a malformed game."""
        played: dict[int, PlayedGame] = {}
        for k, entry in enumerate(self._state.load_entries("games", list)):
            try:
                g = self._game(entry)
            except ValueError as e:
                raise self._state.error(f"game entry {k + 1}: {e}") from None
            if g.index in played:
                raise self._state.error(f"game {g.index + 1} is there twice")
            played[g.index] = g
        return played

    def _game(self, entry: object) -> PlayedGame:
        """One entry, checked; ValueError says what is wrong."""
        if not isinstance(entry, dict):
            raise ValueError("not an object")
        for name, kind in (("index", int), ("light", str), ("dark", str), ("outcome", str), ("moves", list),
                           ("date", str)):
            value = entry.get(name)
            if isinstance(value, bool) or not isinstance(value, kind):
                raise ValueError(f"no {name!r} or a malformed one")
        index = entry["index"]
        if index < 0:
            raise ValueError("a negative index")
        colours = (self.a.spec, self.b.spec) if index % 2 == 0 else (self.b.spec, self.a.spec)
        if (entry["light"], entry["dark"]) != colours:
            raise ValueError(f"game {index + 1} has Light {_short(entry['light'])} and Dark {_short(entry['dark'])}, "
                             f"not {colours[0]} and {colours[1]}")
        if entry["outcome"] not in ("L", "D", "draw"):
            raise ValueError(f"the unknown outcome {_short(entry['outcome'])}")
        moves = entry["moves"]
        if not all(isinstance(m, str) for m in moves):
            raise ValueError("moves that are not strings")
        if not is_date(entry["date"]):
            raise ValueError(f"the date {_short(entry['date'])} is not YYYY.MM.DD")
        game = Game(Position.start(self.board))
        for i, m in enumerate(moves):
            try:
                game.play(m)
            except ValueError as e:
                raise ValueError(f"game {index + 1}, move {i + 1} ({_short(m)}): {e}") from None
        if game.outcome != entry["outcome"]:
            raise ValueError(f"game {index + 1} ends {game.outcome or 'not'}, not {entry['outcome']}")
        return PlayedGame(index, entry["light"], entry["dark"], entry["outcome"], tuple(moves), entry["date"])

    def save(self, played: dict[int, PlayedGame], force: bool = True) -> None:
        """Write every finished game (not ``force``: at most ~10% of the time, see
        :meth:`RunState.save <solver.jobs.state.RunState.save>`)."""
        self._state.save({"games": [played[i].entry() for i in sorted(played)]}, force)


def _short(value: object) -> str:
    """A value from a file, quoted and cut to fit in a one-line message."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# -- game records --------------------------------------------------------------------------
def record_path(folder: str | os.PathLike, index: int, games: int) -> Path:
    """``<folder>/game-0001.txt`` for the first game (at least four digits)."""
    return Path(folder) / f"game-{index + 1:0{max(4, len(str(games)))}d}{RECORD_SUFFIX}"


def game_record(game: PlayedGame, board: str, seed: int, games: int) -> GameRecord:
    """The game record of a finished game: Light and Dark the player specs, Source the
    match and the game's number, the result."""
    light, dark = shlex.quote(game.light), shlex.quote(game.dark)
    a, b = (light, dark) if game.index % 2 == 0 else (dark, light)
    source = f"meridians match {a} {b} --board {board} --games {games} --seed {seed}, game {game.index + 1}"
    headers = {"Light": game.light, "Dark": game.dark, "Date": game.date, "Source": source}
    return GameRecord(headers, Position.start(board), list(game.moves), result=game.outcome)


# -- running -------------------------------------------------------------------------------
def _load_kernels(board: str, players: tuple[Player, ...]) -> None:
    """Compile (or load) the searches' kernels here, before workers start, so that they
    load them from numba's cache instead of compiling them all at once."""
    kinds = {p.kind for p in players}
    if kinds - {"random"}:
        mcts.search(Position.start(board), Limit(playouts=1), seed=0, dfpn_nodes=1 if kinds & {"engine", "uct"} else 0)


def run_match(a: Player, b: Player, board: str, games: int, seed: int = 1,
              progress: Callable[[int, MatchResult], None] | None = None, *, jobs: int = 1,
              state: str | os.PathLike | None = None, remove_state: bool = False,
              records: str | os.PathLike | None = None) -> MatchResult:
    """``games`` games of A against B on ``board``, A Light in the even-indexed games.

    Game ``i`` is seeded by ``seed`` and ``i`` alone (:func:`game_seed`), so with playout
    budgets the result does not depend on ``jobs``, the games at once (in loky worker
    processes when more than 1).  ``state``: a file that gets every finished game at once
    (:class:`MatchState`); a matching one's games are taken as they are (``resumed``)
    and only the missing ones played; ``remove_state``: removed once every game is
    played.  ``records``: a folder that gets every game as a game record
    (:func:`record_path`; a resumed game's only if its file is missing).
    ``progress(done, tally)`` is called once before the first game and after each.

    Raises :class:`MatchStateError` (a state file that is corrupt, of another match or
    in use), :class:`MatchError` (a game failed in a worker) and
    :class:`~solver.util.errors.Interrupted` (Ctrl-C: the finished games saved in its ``path``,
    the state file, None if none was kept; the workers stopped).
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"--games {games!r}: give a whole number of at least 1")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise ValueError(f"--jobs {jobs!r}: give a whole number from 1 to {MAX_JOBS}")
    st = None if state is None else MatchState(state, a, b, board, seed)
    played: dict[int, PlayedGame] = {}
    if st is not None:
        st.acquire()
        try:
            played = st.load()
        except BaseException:
            st.release()
            raise
    r = tally(a, b, board, seed, {i: g for i, g in played.items() if i < games})
    r.resumed = r.games
    r.results = []
    r.state = None if st is None else str(st.path)
    pending = [i for i in range(games) if i not in played]
    complete = False
    pool = None
    try:
        if records is not None:
            for i in range(games):
                if i in played and not record_path(records, i, games).exists():
                    write_atomic(record_path(records, i, games), game_record(played[i], board, seed, games).text())
        n = min(jobs, len(pending))
        if n > 1:
            from solver.jobs.workers import Pool

            _load_kernels(board, (a, b))
            pool = Pool("loky", n, None)
        if progress is not None:
            progress(r.games, r)

        def finish(g: PlayedGame) -> None:
            played[g.index] = g
            if st is not None:
                st.save(played, force=False)
            if records is not None:
                write_atomic(record_path(records, g.index, games), game_record(g, board, seed, games).text())
            r.add(g)
            if progress is not None:
                progress(r.games, r)

        if pool is None:
            for i in pending:
                finish(play_indexed(a, b, board, seed, i))
        else:
            queue, running = list(pending), {}
            while queue or running:
                while queue and len(running) < n:
                    i = queue.pop(0)
                    running[pool.submit(play_indexed, a, b, board, seed, i)] = i
                pool.wake.wait(0.5)
                pool.wake.clear()
                for fut in [f for f in running if f.done()]:
                    i = running.pop(fut)
                    try:
                        g = fut.result()
                    except Exception as e:  # a crash in the worker
                        raise MatchError(f"game {i + 1} failed: {type(e).__name__}: {e}") from e
                    finish(g)
        complete = True
    except KeyboardInterrupt:
        where = f"; run the same command to resume from {st.path}" if st is not None else ""
        raise Interrupted(f"interrupted with {r.games} of {games} games finished{where}",
                          None if st is None else st.path, r.games, games) from None
    finally:
        if pool is not None:
            pool.shutdown(abandon=not complete)
        if st is not None:
            try:
                if not (complete and remove_state):
                    st.save(played)
            finally:
                st.release(remove=complete and remove_state)
    out = tally(a, b, board, seed, {i: g for i, g in played.items() if i < games})
    out.resumed = r.resumed
    out.state = None if st is None or remove_state else str(st.path)
    return out
