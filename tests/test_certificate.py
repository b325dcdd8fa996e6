"""Proof certificates: built from df-pn proofs (solver/search/certificate.py), checked with
the networkx reference rules only (solver/certificate_check.py), rejected when tampered
with, and refused in one line when the file is not a certificate at all.

That the checker imports nothing of the engine is tests/test_layers.py's business."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from solver import Position
from solver.certificate_check import CertificateError, CertificateFileError, check, check_data, read_certificate
from solver.search.certificate import build_certificate, dumps, write_certificate
from solver.search import dfpn as F
from solver.search.prove import prove

ROOT = Path(__file__).resolve().parent.parent
EMPTY_23 = "2/3/4/3/2 L"
# endgames from random 3/4 games (win for Light to move; the last a loss)
ENDGAMES_34 = [
    "DL1/L3/2D2/2L3/L1LL1/2L1/L2 L",
    "LLL/DD2/DDL2/4L1/1L3/1DDL/D1D L",
    "DD1/DD2/LD3/1LD3/1L1D1/2D1/1L1 L",
]


def certificate(text: str, **kw) -> dict:
    pos = Position.parse(text)
    return build_certificate(pos, prove(pos, tt_mb=16), tt_mb=16, **kw)


@pytest.fixture(scope="module")
def cert23() -> dict:
    return certificate(EMPTY_23)


def test_empty_2_3_certificate_checks(cert23, tmp_path):
    assert cert23["winner"] == "L" and cert23["root"] == EMPTY_23
    assert cert23["nodes"][0]["position"] == EMPTY_23
    assert check_data(cert23) == cert23["node_count"] == len(cert23["nodes"])
    path = tmp_path / "c.json"
    path.write_text(dumps(cert23))
    assert check(path) == len(cert23["nodes"])
    # transpositions are shared: every position once
    assert len({n["position"] for n in cert23["nodes"]}) == len(cert23["nodes"])


def test_committed_2_3_certificate_checks():
    path = ROOT / "results" / "certificates" / "2-3.json"
    head = json.loads(path.read_text())
    assert (head["board"], head["root"], head["winner"]) == ("2/3", EMPTY_23, "L")
    assert head["command"].startswith("python scripts/write_certificates.py")
    assert check(path) == head["node_count"]


@pytest.mark.parametrize("text,winner", [
    ("2/3/L3/3/2 D", "D"),            # Light opened c1: Dark wins
    ("2/3/1L2/3/2 D", "L"),           # Light opened c2: Light wins
    (ENDGAMES_34[0], "L"), (ENDGAMES_34[1], "L"), (ENDGAMES_34[2], "D"),
])
def test_endgame_certificates_check(text, winner, tmp_path):
    path = tmp_path / "c.json"
    cert = write_certificate(path, Position.parse(text), tt_mb=16)
    assert cert["winner"] == winner
    assert check(path) == cert["node_count"]


def test_finished_position_is_one_leaf():
    # Light b1 b3, Dark d2 to move: Dark has no legal placement, Light has won
    cert = build_certificate(Position.parse("2/1D1/4/L1L/2 D"))
    assert cert["nodes"] == [{"id": 0, "position": "2/1D1/4/L1L/2 D", "won": "L"}]
    assert check_data(cert) == 1


def test_evicted_table_entries_are_proven_again(monkeypatch):
    pos = Position.parse(ENDGAMES_34[0])
    proof = prove(pos, tt_mb=16)
    lost = proof.search[1]
    real = F.probe

    def probe(T, D, st, side):  # the first table has lost every entry
        if D is lost:
            return False, 0, 0, -1, 0
        return real(T, D, st, side)

    monkeypatch.setattr(F, "probe", probe)
    cert = build_certificate(pos, proof, tt_mb=16)
    assert cert["reproved"] >= 1
    assert check_data(cert) == cert["node_count"]


# -- tampered certificates are rejected --------------------------------------------------------


def _first(cert: dict, kind: str) -> dict:
    return next(n for n in cert["nodes"] if kind in n)


def test_rejects_a_removed_reply(cert23):
    bad = copy.deepcopy(cert23)
    node = _first(bad, "replies")
    point = sorted(node["replies"])[0]
    del node["replies"][point]
    with pytest.raises(CertificateError, match=f"node {node['id']} .*the reply {point} is missing"):
        check_data(bad)


def test_rejects_a_changed_move(cert23):
    bad = copy.deepcopy(cert23)
    node = bad["nodes"][0]
    assert node["move"] == "c2"
    node["move"] = "c1"  # legal, but leads elsewhere (and loses)
    with pytest.raises(CertificateError, match="node 0 .*c1 does not lead to node"):
        check_data(bad)
    node["move"] = "b7"
    with pytest.raises(CertificateError, match="not on|b7"):
        check_data(bad)


def test_rejects_an_illegal_move(cert23):
    bad = copy.deepcopy(cert23)
    node = next(n for n in bad["nodes"][1:] if "move" in n)
    pos = Position.parse(node["position"])
    occupied = sorted(pos.stones("L") | pos.stones("D"))[0]
    node["move"] = occupied
    with pytest.raises(CertificateError, match=f"{occupied} is not a legal move"):
        check_data(bad)


def test_rejects_a_changed_leaf_winner(cert23):
    bad = copy.deepcopy(cert23)
    leaf = _first(bad, "won")
    leaf["won"] = "D"
    with pytest.raises(CertificateError, match=f"node {leaf['id']} .*not by the claimed winner L"):
        check_data(bad)


def test_rejects_a_claimed_winner_changed(cert23):
    bad = copy.deepcopy(cert23)
    bad["winner"] = "D"
    with pytest.raises(CertificateError):
        check_data(bad)


def test_rejects_a_leaf_that_is_not_over(cert23):
    bad = copy.deepcopy(cert23)
    node = _first(bad, "replies")
    del node["replies"]
    node["won"] = "L"
    with pytest.raises(CertificateError, match="is a leaf, but the game is not over"):
        check_data(bad)


def test_rejects_a_cycle_and_a_repeated_position(cert23):
    bad = copy.deepcopy(cert23)
    # a duplicate of a position
    bad["nodes"].append(dict(bad["nodes"][5], id=len(bad["nodes"])))
    bad["node_count"] += 1
    with pytest.raises(CertificateError, match="repeats the position of node 5"):
        check_data(bad)
    # a reply that leads back to the root
    bad = copy.deepcopy(cert23)
    node = bad["nodes"][1]
    point = sorted(node["replies"])[0]
    node["replies"][point] = 0
    with pytest.raises(CertificateError, match="does not lead to node 0"):
        check_data(bad)


def test_rejects_wrong_root_and_bad_files(cert23, tmp_path):
    bad = copy.deepcopy(cert23)
    bad["root"] = "2/3/1L2/3/2 D"
    with pytest.raises(CertificateError, match="not the root"):
        check_data(bad)
    path = tmp_path / "x.json"
    path.write_text("{not json")
    with pytest.raises(CertificateError, match="not JSON"):
        check(path)
    with pytest.raises(CertificateError, match="cannot read"):
        check(tmp_path / "missing.json")
    with pytest.raises(CertificateError, match="format"):
        check_data({"format": "other"})


def test_a_gzip_certificate_checks_and_a_cut_one_is_refused(cert23, tmp_path):
    import gzip

    data = gzip.compress(dumps(cert23).encode())
    (tmp_path / "c.json.gz").write_bytes(data)
    assert check(tmp_path / "c.json.gz") == cert23["node_count"]
    (tmp_path / "cut.json.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(CertificateError, match="gzip"):
        check(tmp_path / "cut.json.gz")
    (tmp_path / "plain.json.gz").write_text(dumps(cert23))
    with pytest.raises(CertificateError, match="gzip"):
        check(tmp_path / "plain.json.gz")


def test_checking_in_two_processes_finds_what_one_finds(cert23, monkeypatch):
    import solver.certificate_check as C

    monkeypatch.setattr(C, "_CHUNK", 40)  # many chunks even for this small certificate
    n = len(cert23["nodes"])
    assert n > 4 * C._CHUNK
    assert check_data(cert23, jobs=2) == check_data(cert23) == n
    # the same first problem, whichever process meets it
    bad = copy.deepcopy(cert23)
    late = [x for x in bad["nodes"] if "replies" in x][-1]
    del late["replies"][sorted(late["replies"])[0]]
    early = next(x for x in bad["nodes"][n // 2:] if "move" in x)
    early["move"] = "zz"
    errors = []
    for jobs in (1, 2):
        with pytest.raises(CertificateError) as e:
            check_data(bad, jobs=jobs)
        errors.append(str(e.value))
    assert errors[0] == errors[1] and f"node {min(early['id'], late['id'])} " in errors[0]


def test_a_child_won_by_lookahead_is_found_after_proving_again():
    # Dark to move wins in two: every Light reply after Dark's move ends the game, a child
    # df-pn settles by its lookahead without a table entry of its own.  With the table
    # emptied the builder must prove the root again and still find that child
    # (3/4 class c1's certificate failed here).
    pos = Position.parse("3/2D1/3D1/DDDDD1/LLD2/DL1D/L1L D")
    proof = prove(pos, tt_mb=16)
    assert proof.value == "win"
    proof.search[1].tt_key[:] = 0
    cert = build_certificate(pos, proof, tt_mb=16)
    assert cert["reproved"] == 1 and check_data(cert) == cert["node_count"]


@pytest.mark.parametrize("name", ["c.json", "c.json.gz"])
def test_written_file_is_the_built_certificate_as_text(name, tmp_path):
    # write_certificate streams the nodes to the file; it must write what dumps (and
    # gzip.compress with mtime 0) of the whole built certificate would, byte for byte
    import gzip
    import hashlib

    pos = Position.parse(ENDGAMES_34[0])
    proof = prove(pos, tt_mb=16)
    text = dumps({**build_certificate(pos, proof, tt_mb=16), "note": "x"}).encode()
    want = gzip.compress(text, mtime=0) if name.endswith(".gz") else text
    head = write_certificate(tmp_path / name, pos, proof, tt_mb=16, header={"note": "x"})
    got = (tmp_path / name).read_bytes()
    assert got == want
    assert (head["bytes"], head["sha256"]) == (len(got), hashlib.sha256(got).hexdigest())
    assert check(tmp_path / name) == head["node_count"] > 100


def _odd_position(cert):
    cert["nodes"][3]["position"] = 17


def _odd_id(cert):
    cert["nodes"][3]["id"] = 4


def _two_kinds(cert):
    _first(cert, "move")["won"] = "L"


def _odd_leaf(cert):
    _first(cert, "won")["won"] = "X"


def _odd_replies(cert):
    _first(cert, "replies")["replies"] = ["a1"]


def _odd_target(cert):
    node = _first(cert, "replies")
    node["replies"][sorted(node["replies"])[0]] = "7"


def _odd_next(cert):
    _first(cert, "move")["next"] = True


def _null_node(cert):
    cert["nodes"][4] = None


def _nested_node(cert):
    # an object with a position, but in the header, not in the node list
    cert["stray"] = dict(cert["nodes"][2])


@pytest.mark.parametrize("spoil,message", [
    (_odd_position, "node 3: a position must be a string"),
    (_odd_id, "node 3 has id 4"),
    (_two_kinds, "must have exactly one of move, replies, won"),
    (_odd_leaf, "a leaf is won by 'L' or 'D', not 'X'"),
    (_odd_replies, "replies must be an object"),
    (_odd_target, r"reply \w+ leads to no node \('7'\)"),
    (_odd_next, r"move \w+ leads to no node \(True\)"),
    (_null_node, "node 4 is not an object"),
    (_nested_node, "outside the node list"),
])
def test_malformed_nodes_are_refused_in_memory_and_from_a_file(cert23, tmp_path, spoil, message):
    bad = copy.deepcopy(cert23)
    spoil(bad)
    path = tmp_path / "bad.json"
    path.write_text(dumps(bad))
    with pytest.raises(CertificateError, match=message):
        check(path)
    if spoil is not _nested_node:  # in memory, only the node list is read
        with pytest.raises(CertificateError, match=message):
            check_data(bad)


def test_read_certificate_stores_nodes_compactly(cert23, tmp_path):


    path = tmp_path / "c.json"
    path.write_text(dumps(cert23))
    data = read_certificate(path)
    nodes = data["nodes"]
    assert len(nodes) == cert23["node_count"] and not isinstance(nodes, list)
    # every node's text and edges come back as they were written
    for i, node in enumerate(cert23["nodes"]):
        assert nodes.text(i) == node["position"]
        edges = [(nodes.points[e], nodes.targets[e]) for e in nodes.edges(i)]
        want = ([(node["move"], node["next"])] if "move" in node
                else list(node["replies"].items()) if "replies" in node else [])
        assert edges == want
    # one object per point name, however many edges name it
    assert len({id(p) for p in nodes.points}) == len(set(nodes.points))
