"""The cache of self-play seed games (:mod:`puzzles.seedgames`) against replaying them.

- a cached game is the game :func:`puzzles.generate.selfplay_game` plays, played once
  and then read (the engine not called again);
- an entry that is corrupt, of another key or not a legal game of its length is a miss,
  played again and written over;
- a unit's seed positions are the same read from the cache as replayed.
"""

from __future__ import annotations

import json

import pytest

from puzzles import generate as G
from puzzles import seedgames as S
from solver import Board

BOARD = Board.parse("4/5")
PLAYOUTS = 16


def _no_engine(*args, **kwargs):
    raise AssertionError("the engine played a game the cache holds")


def test_a_cached_game_is_the_replayed_game(monkeypatch):
    replayed = G.selfplay_game(BOARD, 7, PLAYOUTS, plies=12)
    assert S.load_game(BOARD, 7, PLAYOUTS, 12) is None
    assert S.selfplay_game(BOARD, 7, PLAYOUTS, plies=12) == replayed  # played and stored
    assert S.game_path(BOARD, 7, PLAYOUTS, 12).is_file()
    monkeypatch.setattr(G, "selfplay_game", _no_engine)
    assert S.selfplay_game(BOARD, 7, PLAYOUTS, plies=12) == replayed  # read
    # another seed, playouts or length is another game
    for args in ((8, PLAYOUTS, 12), (7, PLAYOUTS + 1, 12), (7, PLAYOUTS, 11)):
        assert S.load_game(BOARD, *args) is None


@pytest.mark.parametrize("spoil", ["not json", "key", "illegal", "short", "long"])
def test_a_spoilt_entry_is_played_again(spoil):
    replayed = S.selfplay_game(BOARD, 3, PLAYOUTS, plies=10)
    path = S.game_path(BOARD, 3, PLAYOUTS, 10)
    d = json.loads(path.read_text())
    if spoil == "not json":
        path.write_text("{")
    else:
        if spoil == "key":
            d["engine"] = "0" * 16
        elif spoil == "illegal":
            d["moves"] = [d["moves"][0]] * 2  # the same point twice
        elif spoil == "short":
            d["moves"] = d["moves"][:-1]
        else:
            d["moves"] = d["moves"] + ["a1"]
        path.write_text(json.dumps(d))
    assert S.load_game(BOARD, 3, PLAYOUTS, 10) is None
    assert S.selfplay_game(BOARD, 3, PLAYOUTS, plies=10) == replayed
    assert S.load_game(BOARD, 3, PLAYOUTS, 10) == replayed  # written over


def test_another_engine_misses(monkeypatch):
    S.selfplay_game(BOARD, 5, PLAYOUTS, plies=8)
    assert S.load_game(BOARD, 5, PLAYOUTS, 8) is not None
    monkeypatch.setattr(S, "engine_version", lambda: "another")
    assert S.load_game(BOARD, 5, PLAYOUTS, 8) is None


def test_seed_positions_are_the_same_from_the_cache():
    source = ("selfplay", PLAYOUTS)
    replayed = G.seed_positions(BOARD, 11, source)
    first = G.seed_positions(BOARD, 11, source, cache=True)
    again = G.seed_positions(BOARD, 11, source, cache=True)
    as_text = [[(str(p), s, r) for p, s, r in x] for x in (replayed, first, again)]
    assert as_text[0] and as_text[0] == as_text[1] == as_text[2]
