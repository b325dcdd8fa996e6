"""Certificates across jobs (solver.jobs.jlpns_certificate): a JL-PNS proof of many jobs
assembles into one certificate that the reference checker accepts, with the winner of
the value, proven and disproven roots alike; a tampered one is rejected."""

from __future__ import annotations

import copy
import json

import pytest

from solver import Board
from solver.jobs.jlpns import MasterTree, jlpns, load_tree
from solver.jobs.jlpns_certificate import jlpns_certificate, write_jlpns_certificate
from solver.reference.certificate import CertificateError, check, check_data
from solver.rules.position import Position
from solver.rules.randomgame import random_position
from solver.search.limit import Limit
from solver.search.prove import prove, prove_for
from solver.util.errors import Interrupted

# (board, plies, seed, job budget): positions whose master tree grows to tens or hundreds
# of nodes, wins and losses for the player to move (a proof and a disproof at the root),
# Light and Dark to move
CASES = [("2/3", 3, 3, 30), ("2/3", 3, 5, 30), ("2/3", 4, 11, 30), ("3/4", 12, 103, 200),
         ("3/4", 16, 204, 50), ("3/4", 14, 300, 400), ("3/4", 13, 301, 400)]


def _solve(pos, job_nodes, where, limit=Limit(tt_mb=16)):
    """jlpns's result and its master tree (kept in a checkpoint in the folder ``where``)."""
    ck = where / "tree.json"
    r = jlpns(pos, limit, workers=1, job_nodes=job_nodes, checkpoint=ck)
    return r, load_tree(ck, pos)


@pytest.mark.parametrize("board,plies,seed,job_nodes", CASES)
def test_a_proof_of_many_jobs_makes_one_certificate_the_checker_accepts(board, plies, seed, job_nodes, tmp_path):
    pos = random_position(Board.parse(board), plies, seed)
    r, tree = _solve(pos, job_nodes, tmp_path)
    assert r.value in ("win", "loss") and r.stats["jobs"] > 5 and len(tree.nodes) > 30
    seen = []
    cert = jlpns_certificate(pos, tree, tt_mb=16, progress=seen.append)
    assert check_data(copy.deepcopy(cert)) == cert["node_count"] == len(cert["nodes"])
    winner = pos.to_move if r.value == "win" else "LD"[1 - pos.side_index]
    assert cert["winner"] == winner and cert["root"] == str(pos)
    # several of the tree's nodes and several leaves proven again: an assembly, not one proof
    assert cert["jlpns"]["master_nodes"] > 5 and cert["jlpns"]["leaves"] > 3
    assert seen and seen[-1]["leaves"] == cert["jlpns"]["leaves"]
    # the cases have proven roots and disproven ones: the winner is the prover's exactly when proven
    assert (tree.nodes[0].pn == 0) == (cert["winner"] == "LD"[tree.prover])


@pytest.mark.parametrize("seed", [3, 5])
def test_a_tree_for_the_other_player_certifies_too(seed):
    """The tree of JL-PNS's second stage (the prover is not the player to move)."""
    pos = random_position(Board.parse("2/3"), 3, seed)
    tree = MasterTree(pos, 1 - pos.side_index, job_nodes=30)
    while (i := tree.select()) is not None:
        tree.start(i)
        tree.apply(i, prove_for(tree.position(i), tree.prover, Limit(nodes=30, tt_mb=4)), budget=30)
    assert tree.nodes[0].solved and len(tree.nodes) > 10
    cert = jlpns_certificate(pos, tree, tt_mb=16)
    assert check_data(cert) == cert["node_count"]
    assert cert["winner"] == ("LD"[tree.prover] if tree.nodes[0].pn == 0 else pos.to_move)
    assert cert["winner"] == (pos.to_move if prove(pos, Limit(tt_mb=16)).value == "win" else "LD"[tree.prover])


def _tampered(cert: dict, change) -> dict:
    bad = copy.deepcopy(cert)
    change(bad["nodes"])
    return bad


@pytest.mark.parametrize("board,plies,seed,job_nodes", [("3/4", 12, 103, 200), ("3/4", 16, 204, 50)])
def test_a_tampered_certificate_is_rejected(board, plies, seed, job_nodes, tmp_path):
    pos = random_position(Board.parse(board), plies, seed)
    r, tree = _solve(pos, job_nodes, tmp_path)
    cert = jlpns_certificate(pos, tree, tt_mb=16)
    nodes = cert["nodes"]
    movers = [n["id"] for n in nodes if "move" in n]
    losers = [n["id"] for n in nodes if "replies" in n and len(n["replies"]) > 1]
    deep_mover, first_loser, deep_loser = movers[-1], losers[0], losers[-1]

    def other_move(ns):  # a winner's move deep in a leaf's proof changed to another legal one
        n = ns[deep_mover]
        n["move"] = next(m for m in Position.parse(n["position"]).legal_moves() if m != n["move"])

    def drop(i):  # one of the loser's replies dropped
        def change(ns):
            ns[i]["replies"].pop(sorted(ns[i]["replies"])[0])
        return change

    for change in (other_move, drop(first_loser), drop(deep_loser)):
        with pytest.raises(CertificateError):
            check_data(_tampered(cert, change))
    flipped = {**copy.deepcopy(cert), "winner": "LD"["DL".index(cert["winner"])]}
    with pytest.raises(CertificateError):
        check_data(flipped)


def test_jlpns_writes_the_certificate_and_a_kept_checkpoint_gives_it_again(tmp_path):
    pos = random_position(Board.parse("3/4"), 13, 301)
    path, ck = tmp_path / "proof.json.gz", tmp_path / "tree.json"
    stages = []
    r = jlpns(pos, Limit(tt_mb=16), workers=1, job_nodes=400, checkpoint=ck, certificate=path,
              progress=lambda info: stages.append(info.get("stage")))
    assert r.value == "loss" and r.stats["certificate"]["path"] == str(path)
    assert check(path) == r.stats["certificate"]["node_count"]
    assert "certificate" in stages
    again = tmp_path / "again.json"
    head = write_jlpns_certificate(again, pos, ck, tt_mb=16)
    assert check(again) == head["node_count"] and head["winner"] == "LD"[1 - pos.side_index]
    assert len(load_tree(ck, pos).nodes) == r.stats["master_nodes"]
    assert json.loads(again.read_text())["jlpns"]["leaves"] > 0


def test_ctrl_c_while_writing_the_certificate_keeps_the_tree_for_the_next_call(tmp_path):
    pos = random_position(Board.parse("3/4"), 12, 103)
    path, ck = tmp_path / "proof.json", tmp_path / "tree.json"

    def stop_in_the_certificate(info):
        if info.get("stage") == "certificate":
            raise KeyboardInterrupt

    with pytest.raises(Interrupted, match="while writing the certificate") as e:
        jlpns(pos, workers=1, job_nodes=200, checkpoint=ck, certificate=path, progress=stop_in_the_certificate)
    assert e.value.path == ck and not path.exists()
    r = jlpns(pos, workers=1, job_nodes=200, checkpoint=ck, certificate=path)
    assert r.stats["resumed_jobs"] == r.stats["jobs"] == e.value.finished  # no job again
    assert check(path) == r.stats["certificate"]["node_count"]


def test_a_proof_by_two_workers_makes_one_certificate_too(tmp_path):
    pos = random_position(Board.parse("3/4"), 16, 200)
    r = jlpns(pos, Limit(tt_mb=16), workers=2, job_nodes=700, certificate=tmp_path / "two.json")
    assert r.value in ("win", "loss") and r.stats["jobs"] > 5
    assert check(tmp_path / "two.json") == r.stats["certificate"]["node_count"]


def test_a_finished_game_or_an_unknown_value_gives_no_false_certificate(tmp_path):
    over = random_position(Board.parse("2/3"), 40, 1)
    assert over.outcome in ("L", "D")
    r = jlpns(over, workers=1, certificate=tmp_path / "over.json")
    assert check(tmp_path / "over.json") == 1 and r.stats["certificate"]["node_count"] == 1
    pos = random_position(Board.parse("3/4"), 16, 203)
    r = jlpns(pos, Limit(nodes=2_000, tt_mb=16), workers=1, job_nodes=500, certificate=tmp_path / "no.json")
    assert r.value == "unknown" and not (tmp_path / "no.json").exists() and "certificate" not in r.stats


def test_an_undecided_tree_or_another_position_is_a_typed_error(tmp_path):
    pos = random_position(Board.parse("3/4"), 16, 203)
    r, unfinished = _solve(pos, 500, tmp_path, Limit(nodes=2_000, tt_mb=16))
    assert r.value == "unknown"
    with pytest.raises(CertificateError, match="not decided"):
        jlpns_certificate(pos, unfinished)
    small = random_position(Board.parse("2/3"), 3, 3)
    (tmp_path / "small").mkdir()
    _, solved = _solve(small, 30, tmp_path / "small")
    with pytest.raises(CertificateError, match="not of"):
        jlpns_certificate(random_position(Board.parse("2/3"), 3, 4), solved)
