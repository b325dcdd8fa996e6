"""df-pn guided by the move model (solver.search.guide), and focused on its best moves,
proves exactly what plain df-pn proves: the model orders, sets initial numbers and
focuses, it never decides."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import EXHAUSTIVE
from solver import Board, Position
from solver.reference.certificate import check
from solver.rules import core
from solver.rules.randomgame import random_game
from solver.search import dfpn as F
from solver.search import guide as G
from solver.search.certificate import build_certificate, dumps
from solver.search.limit import Limit
from solver.search.policy import PolicyModel
from solver.search.prove import prove

BUDGET = 300          # expansions a search
HISTORY = 3           # positions of the game kept as the searches' path (repetitions, last moves)
MISSES = 2            # a game's positions are searched from its end back until plain df-pn
                      # fails this many times in a row (earlier ones are mostly out of reach)
GAMES = {"2/3": 1100, "3/4": 800, "4/5": 340, "5/6": 380}  # random games a board
WANT = 10_000         # positions that both searches decide, at least
if not EXHAUSTIVE:    # half of them, so that the suite keeps within CI's time (see conftest)
    GAMES, WANT = {b: g // 2 for b, g in GAMES.items()}, WANT // 2


class _Searcher:
    """One df-pn search object a board and mode, its table cleared between positions."""

    def __init__(self, board: Board, guide: G.Guide | None):
        self.t = core.tables(board)
        self.D = F.new_dfpn(self.t, 0, 1, guide=guide)

    def value(self, path: list[tuple[np.ndarray, int]]) -> str:
        """'win', 'loss' or 'unknown' for the player to move at the end of ``path``."""
        D, t = self.D, self.t
        for a in (D.tt_key, D.tt_pn, D.tt_dn, D.tt_move, D.tt_work):
            a[:] = 0
        D.stats[:] = 0
        side = path[-1][1]
        D.limits[F.PROVER] = side
        D.limits[F.MAX_EXPANSIONS] = BUDGET
        ply = F.load_root(D, t, path)
        pn, dn, tainted = F.mid(t, D, ply, side, F.INF - 1, F.INF - 1)
        if D.stats[F.ABORTED]:
            return "unknown"
        if pn == 0:
            return "win"
        return "loss" if dn == 0 and not tainted else "unknown"


def _models() -> dict[str, PolicyModel]:
    model = G.load_model()
    # the model turned around: it prefers the moves it finds worst (orders and numbers at
    # their most misleading; focused, it must widen through disproofs to find the wins)
    return {"model": model, "reversed": PolicyModel(-model.weights)}


#: focused settings, taken in turn: (model, new_guide's options); most are lazy (a node
#: scored only when the search comes back to it), which keeps the test's time down
FOCUSED = {
    "k1-reversed": ("reversed", {"focus": 1, "widen": 0}),
    "k3-prover-only": ("model", {"focus": 3, "sides": G.OR_MODEL}),
    "k1-lazy": ("model", {"focus": 1, "widen": 0, "lazy": True}),
    "k2-lazy": ("model", {"focus": 2, "widen": 2.0, "lazy": True}),
    "k3-reversed-lazy": ("reversed", {"focus": 3, "lazy": True}),
}


def test_guided_and_focused_values_equal_plain_values():
    models = _models()
    both = {"model": 0, "reversed": 0}
    focused_both = {k: 0 for k in FOCUSED}
    plain_only = guided_only = focused_apart = 0
    for bi, (name, games) in enumerate(GAMES.items()):
        board = Board.parse(name)
        t = core.tables(board)
        plain = _Searcher(board, None)
        guided = {k: _Searcher(board, G.new_guide(t, m)) for k, m in models.items()}
        focused = {k: _Searcher(board, G.new_guide(t, models[m], **o)) for k, (m, o) in FOCUSED.items()}
        for g in range(games):
            mode = "model" if g % 4 else "reversed"
            fmode = list(FOCUSED)[g % len(FOCUSED)]
            game = [(p.bitboards, p.side_index) for p in random_game(board, 1000 * bi + g)]
            misses = 0
            for i in range(len(game) - 2, -1, -1):  # the last position is finished
                path = game[max(0, i + 1 - HISTORY): i + 1]
                a = plain.value(path)
                b = guided[mode].value(path)
                c = focused[fmode].value(path)
                where = f"{name} game {1000 * bi + g} ply {i}"
                if a != "unknown" and b != "unknown":
                    assert a == b, f"{where}: plain {a}, guided ({mode}) {b}"
                    both[mode] += 1
                else:
                    plain_only += a != "unknown"
                    guided_only += b != "unknown"
                if a != "unknown" and c != "unknown":
                    assert a == c, f"{where}: plain {a}, focused ({fmode}) {c}"
                    focused_both[fmode] += 1
                else:
                    focused_apart += (a != "unknown") != (c != "unknown")
                if b != "unknown" and c != "unknown":
                    assert b == c, f"{where}: guided ({mode}) {b}, focused ({fmode}) {c}"
                misses = misses + 1 if a == "unknown" else 0
                if misses >= MISSES:
                    break
    assert sum(both.values()) >= WANT, both
    assert both["reversed"] >= WANT // 10, both
    assert sum(focused_both.values()) >= WANT, focused_both
    assert min(focused_both.values()) >= WANT // 10, focused_both
    # the budget is small enough that some positions stay open to one search or the other
    assert plain_only + guided_only > 0
    assert focused_apart > 0


def test_guided_search_uses_the_model_and_orders_by_it():
    pos = Position.parse("DL1/L3/2D2/2L3/L1LL1/2L1/L2 L")
    r = prove(pos, Limit(tt_mb=16), model=True)
    assert r.value == prove(pos, Limit(tt_mb=16)).value == "win"
    assert r.verified and r.stats["guided"] > 0
    assert "guided" not in prove(pos, Limit(tt_mb=16)).stats
    # a strong preference for one move shows in the initial numbers of the root's children
    t = core.tables(pos.board)
    g = G.new_guide(t, G.load_model())
    G.node_factors(t, g, pos.bitboards, pos.side_index, -1, -1, np.uint64(0))
    from solver.search.features import position_features

    names, feats = position_features(pos, None, None)
    s = G.load_model().scores(feats)
    cells = [int(t.cell_of[pos.board.index(m)]) for m in names]
    assert np.allclose(g.score[cells], s)
    p = np.exp(s - s.max())
    p /= p.sum()
    want = np.clip((p * len(p)) ** -G.POWER, 1 / G.CLIP, G.CLIP)
    assert np.allclose(g.factor[cells], want)
    assert g.factor[cells].min() < 1 < g.factor[cells].max()


def test_focused_search_focuses():
    pos = Position.parse("DD1/DD2/LD3/1LD3/1L1D1/2D1/1L1 L")
    free = prove(pos, Limit(tt_mb=16), model=True)
    r = prove(pos, Limit(tt_mb=16), model=True, focus=1)
    assert r.value == free.value == prove(pos, Limit(tt_mb=16)).value
    assert r.verified and r.stats["focus"] == 1 and free.stats["focus"] == 0
    # one child at a time at the prover's nodes: another search than the unfocused one
    assert r.stats["expansions"] != free.stats["expansions"]


@pytest.mark.parametrize("text", [
    "2/3/4/3/2 L",
    "DL1/L3/2D2/2L3/L1LL1/2L1/L2 L",
    "DD1/DD2/LD3/1LD3/1L1D1/2D1/1L1 L",
])
@pytest.mark.parametrize("focus", [0, 1, 3])
def test_certificate_of_a_guided_proof_checks(text, focus, tmp_path):
    pos = Position.parse(text)
    r = prove(pos, Limit(tt_mb=16), model=True, focus=focus)
    assert r.stats["guided"] > 0 and r.stats["focus"] == focus
    cert = build_certificate(pos, r, tt_mb=16)
    path = tmp_path / "c.json"
    path.write_text(dumps(cert))
    assert check(path) == cert["node_count"]
    assert cert["winner"] == ("L" if r.value == "win" else "D")


def test_guided_prove_refuses_what_it_cannot_do():
    pos = Position.parse("2/3/4/3/2 L")
    with pytest.raises(ValueError, match="df-pn"):
        prove(pos, Limit(tt_mb=1), method="alphabeta", model=True)
    with pytest.raises(TypeError):
        prove(pos, Limit(tt_mb=1), model=3)
    with pytest.raises(ValueError, match="model"):
        prove(pos, Limit(tt_mb=1), focus=2)
    with pytest.raises(ValueError, match="focus"):
        prove(pos, Limit(tt_mb=1), model=True, focus=-1)
    t = core.tables(pos.board)
    for bad in ({"focus": 1.5}, {"widen": 1.0}, {"sides": 4}):
        with pytest.raises(ValueError):
            G.new_guide(t, PolicyModel.uniform(), **bad)
    with pytest.raises(G.PolicyError):
        G.load_model("/nonexistent/model.npz")


def test_prove_position_writes_a_focused_proof_beside_the_plain_one(tmp_path, monkeypatch):
    import json

    from conftest import load_script, run_script

    mod = load_script("prove_position", monkeypatch, tmp_path)
    text = "DL1/L3/2D2/2L3/L1LL1/2L1/L2 L"
    run_script(mod, monkeypatch, "--position", text, "--time", "60", "--tt-mb", "16")
    run_script(mod, monkeypatch, "--position", text, "--time", "60", "--tt-mb", "16", "--model", "--focus", "3")
    plain, focused = sorted(tmp_path.glob("*.json"), key=lambda p: len(p.name))
    assert focused.name == plain.name.replace(".json", "-focused.json")
    a, b = json.loads(plain.read_text()), json.loads(focused.read_text())
    assert a["value"] == b["value"] != "unknown" and b["verified"]
    assert "--model --focus 3" in b["command"] and "--model" not in a["command"]
    assert b["stats"]["focus"] == 3 and b["stats"]["guided"] > 0
    with pytest.raises(SystemExit, match="needs --model"):
        run_script(mod, monkeypatch, "--position", text, "--focus", "3")
