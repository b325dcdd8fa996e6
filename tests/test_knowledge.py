"""The settled rule's fast twin (solver.search.knowledge) and its use in df-pn: every claim
is the value plain df-pn finds, df-pn gives the same values with the rule as without it,
and the rule fires (the counts are asserted, so that no test passes with nothing to test)."""

from __future__ import annotations

import pytest

from solver import Board, Position
from solver.rules import core
from solver.rules.randomgame import random_game
from solver.search import dfpn as F
from solver.search import knowledge as K
from solver.search.prove import prove
from solver.search.limit import Limit

from refplay import random_position


def _claims(D) -> int:
    """The rule's claims in the search ``D`` (0 when it was made without the rule)."""
    return 0 if D.know is None else int(D.know.stats[K.CLAIMS])


def value(pos: Position, knowledge: bool, expansions: int = 0, tt_mb: float = 4) -> tuple[str, int]:
    """(df-pn's value of ``pos`` for its player to move, claims made): both provers tried,
    as prove does, and the proof re-walked (the re-walk goes through the rule too)."""
    t = core.tables(pos.board)
    D = F.new_dfpn(t, pos.side_index, tt_mb, knowledge_budget=K.DEFAULT_BUDGET if knowledge else 0)
    for prover in (pos.side_index, 1 - pos.side_index):
        D.limits[F.PROVER] = prover
        D.limits[F.MAX_EXPANSIONS] = expansions
        ply = F.load_root(D, t, [(pos.bitboards, pos.side_index)])
        pn, dn, tainted = F.mid(t, D, ply, pos.side_index, F.INF - 1, F.INF - 1)
        if D.stats[F.ABORTED]:
            return "unknown", _claims(D)
        if pn == 0:
            won = prover
        elif dn == 0 and not tainted:
            won = 1 - prover
        else:
            continue
        ply = F.load_root(D, t, [(pos.bitboards, pos.side_index)])
        walked = F.rewalk(t, D, ply, pos.side_index, won)
        if walked < 0:
            return "unknown", _claims(D)  # the budget ran out
        assert walked == 1, (str(pos), knowledge)
        return ("win" if won == pos.side_index else "loss"), _claims(D)
    return "draw", _claims(D)


def late_positions(board: str, count: int, empty: range, seed: int = 0):
    """Positions of seeded random games with a number of empty points in ``empty``
    (without their game history), both players with two stones or more."""
    b = Board.parse(board)
    for k in range(count):
        for pos in random_game(b, seed + k):
            n_empty = b.size - len(pos.stones("L")) - len(pos.stones("D"))
            if (pos.outcome is None and n_empty in empty and len(pos.stones("L")) >= 2
                    and len(pos.stones("D")) >= 2):
                yield Position.parse(str(pos))
                break


def test_every_claim_is_plain_df_pn_s_value():
    """Soundness against plain search: on positions of random 3/4 games, with and without
    the pre-filters, each claim's owner wins (df-pn without the rule, which re-walks its
    proof).  With the pre-filters (df-pn's way) the bound is exact and the supply a
    harmless line long enough, at most the exact supply."""
    claims = quick_claims = 0
    for k in range(100):
        for pos in random_game("3/4", 5000 + k):
            if pos.outcome is not None:
                continue
            bare = Position.parse(str(pos))
            full = K.settled_value(bare, filters=False)
            quick = K.settled_value(bare)
            if full is None and quick is None:
                continue
            v, _ = value(bare, knowledge=False, expansions=200_000, tt_mb=8)
            assert v in ("win", "loss"), (str(pos), v)
            for claim in (full, quick):
                if claim is None:
                    continue
                winner, owner, supply, bound = claim
                assert winner == owner
                assert supply >= bound + (owner == bare.to_move), (str(pos), claim)
                assert (v == "win") == (owner == bare.to_move), (str(pos), claim, v)
            if full is not None:
                claims += 1
            if quick is not None:
                quick_claims += 1
                if full is not None and full[1] == quick[1]:
                    assert quick[3] == full[3] and quick[2] <= full[2], (str(pos), quick, full)
    assert (claims, quick_claims) >= (20, 10), (claims, quick_claims)
    assert quick_claims >= 10, quick_claims


def claimed(board: str, games: int, seed: int):
    """(position, claim) for the positions of seeded random games (without history) on
    which the rule, without pre-filters, makes a claim."""
    for k in range(games):
        for pos in random_game(board, seed + k):
            if pos.outcome is None:
                bare = Position.parse(str(pos))
                r = K.settled_value(bare, filters=False)
                if r is not None:
                    yield bare, r


def test_the_supply_and_bound_of_a_claim():
    """The wrappers of the two solitaires give the claim's numbers."""
    seen = 0
    for pos, r in claimed("3/4", 60, 300):
        _, owner, supply, bound = r
        assert K.supply_value(pos, owner) == supply, str(pos)
        assert K.bound_value(pos, owner) == bound, str(pos)
        seen += 1
    assert seen >= 5


def test_an_earlier_position_in_the_continuation_denies_the_claim():
    """The repetition guard: a claim is withdrawn when an earlier position could recur
    (the position itself, given as its own history), kept with an unrelated history."""
    seen = 0
    for pos, r in claimed("3/4", 60, 300):
        assert K.settled_value(pos, [pos], filters=False) is None, str(pos)
        assert K.settled_value(pos, [Position.start(pos.board)], filters=False) == r, str(pos)
        seen += 1
    assert seen >= 5


def test_no_claim_outside_the_normal_phase_or_after_the_end():
    b = Board.parse("3/4")
    for pos in random_game(b, 7, plies=3):
        assert K.settled_value(pos, filters=False) is None
    for k in range(20):
        *_, last = random_game(b, 40 + k)
        assert K.settled_value(last, filters=False) is None


def test_df_pn_gives_the_same_values_with_the_rule_on_every_first_move_of_2_3():
    start = Position.start("2/3")
    fired = 0
    for m in start.legal_moves():
        pos = Position.parse(str(start.play(m)))
        plain, _ = value(pos, knowledge=False)
        with_rule, claims = value(pos, knowledge=True)
        assert with_rule == plain, (m, plain, with_rule)
        fired += claims
    assert fired > 0


@pytest.mark.parametrize("board,count,empty,expansions", [
    ("3/4", 150, range(6, 16), 30_000), ("4/5", 100, range(6, 14), 20_000)])
def test_df_pn_gives_the_same_values_with_the_rule_on_late_positions(board, count, empty, expansions):
    fired = decided = 0
    for pos in late_positions(board, count, empty, seed=1000):
        plain, _ = value(pos, knowledge=False, expansions=expansions, tt_mb=8)
        with_rule, claims = value(pos, knowledge=True, expansions=expansions, tt_mb=8)
        if "unknown" not in (plain, with_rule):
            assert with_rule == plain, (str(pos), plain, with_rule)
            decided += 1
        fired += claims > 0
    assert decided >= count // 3
    assert fired >= 10


def test_the_allowance_grows_with_expansions_and_claims():
    """df-pn searches for claims only while the solitaires' states stay within the
    allowance: a start, so much an expansion, so much a claim made."""
    k = K.new_scratch(core.tables(Board.parse("3/4")), 100)
    assert K.affordable(k, 0)
    k.stats[K.STATES] = K.ALLOWANCE_BASE
    assert not K.affordable(k, 0)
    assert K.affordable(k, 1) and not K.affordable(k, 0)
    k.stats[K.STATES] += K.ALLOWANCE_PER_EXPANSION * 1000
    assert not K.affordable(k, 1000) and K.affordable(k, 1001)
    k.stats[K.CLAIMS] = 1
    assert K.affordable(k, 1000 - K.ALLOWANCE_PER_CLAIM // K.ALLOWANCE_PER_EXPANSION + 1)


def test_prove_with_and_without_the_rule():
    """prove's keyword: the same value, the claims counted only with the rule."""
    fired = 0
    for pos in late_positions("3/4", 30, range(8, 14), seed=77):
        on = prove(pos, Limit(nodes=200_000, tt_mb=8), knowledge=True)
        off = prove(pos, Limit(nodes=200_000, tt_mb=8), knowledge=False)
        if "unknown" not in (on.value, off.value):
            assert on.value == off.value, str(pos)
        assert off.stats["settled"] == 0
        fired += on.stats["settled"] > 0
    assert fired > 0


def test_verify_takes_the_rule_on_and_off(run_cli):
    pos = next(late_positions("3/4", 30, range(8, 12), seed=77))
    on = run_cli("verify", str(pos), "--knowledge", "--json", code=0)
    off = run_cli("verify", str(pos), "--no-knowledge", "--json", code=0)
    import json

    assert json.loads(on.stdout)["value"] == json.loads(off.stdout)["value"]


# --- against the reference (solver.reference.settled) ---------------------------------------------------
def sample(board: str, games: int, seed: int, most_empty: int = 12):
    """Positions of seeded random games with at most ``most_empty`` empty points (both
    players with two stones or more, not finished), without history: the reference's
    solitaires stay small there."""
    b = Board.parse(board)
    for k in range(games):
        for pos in random_game(b, seed + k):
            empty = b.size - len(pos.stones("L")) - len(pos.stones("D"))
            if (empty <= most_empty and pos.outcome is None and len(pos.stones("L")) >= 2
                    and len(pos.stones("D")) >= 2):
                yield Position.parse(str(pos))
                break  # one position a game: many games, not one long ending


@pytest.mark.parametrize("board,games,most_empty", [("2/3", 60, 8)])
def test_the_numbers_are_the_reference_s(board, games, most_empty):
    """h_X, v_Y and the claim of the fast twin (without pre-filters) are the reference's,
    wherever both are defined within their budgets."""
    from solver.reference import settled as S

    compared = claims = 0
    for pos in sample(board, games, 4000, most_empty):
        for owner in "LD":
            h, h_ref = K.supply_value(pos, owner, 2_000), S.supply(pos, owner, 2_000)
            if h is not None and h_ref is not None:
                assert h == h_ref, (str(pos), owner, h, h_ref)
            v, v_ref = K.bound_value(pos, owner, 2_000), S.bound(pos, owner, 2_000)
            if v is not None and v_ref is not None:
                assert v == v_ref, (str(pos), owner, v, v_ref)
                compared += 1
        mine, ref = K.settled_value(pos, budget=2_000, filters=False), S.settle(pos, 2_000)
        if mine is not None and ref is not None:
            assert mine[1:] == (ref.owner, ref.supply, ref.bound), (str(pos), mine, ref)
            claims += 1
        else:
            assert mine is None and ref is None, (str(pos), mine, ref)
    assert compared >= 10


def test_a_certificate_of_a_proof_with_the_rule_is_accepted():
    """The builder writes a settled leaf only where the reference confirms it against
    every node (else it walks or proves the subtree as an ordinary one): the checker
    accepts what it writes."""
    from solver.reference.certificate import VERSION, VERSION_SETTLED, check_data
    from solver.search.certificate import build_certificate

    built = 0
    for pos in late_positions("3/4", 40, range(9, 12), seed=77):
        p = prove(pos, Limit(nodes=20_000, tt_mb=8), knowledge=True)
        if p.value not in ("win", "loss") or not p.stats["settled"]:
            continue
        cert = build_certificate(pos, p, tt_mb=8, reprove_seconds=20)
        leaves = [n for n in cert["nodes"] if "settled" in n]
        assert cert["version"] == (VERSION_SETTLED if leaves else VERSION)
        check_data(cert)
        built += 1
        if built == 2:
            break
    assert built >= 1


def test_the_claims_on_3_4_are_the_reference_s():
    """On 3/4 the reference's bound is too slow to compare everywhere: every claim of
    the fast twin (without pre-filters) on positions of random games is the reference's
    claim, and check_settled confirms its numbers."""
    from solver.reference import settled as S

    n = 0
    for pos, (_, owner, supply, bound) in claimed("3/4", 40, 300):
        ref = S.settle(pos, 20_000)
        assert ref is not None and (ref.owner, ref.supply, ref.bound) == (owner, supply, bound), (str(pos), ref)
        S.check_settled(pos, {"owner": owner, "supply": supply, "bound": bound})
        n += 1
        if n == 12:
            break
    assert n >= 5
