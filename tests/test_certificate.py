"""Proof certificates: built from df-pn proofs (solver/search/certificate.py), checked with
the networkx reference rules only (solver/reference/certificate.py), rejected when tampered
with, and refused in one line when the file is not a certificate at all.

That the checker imports nothing of the engine is tests/test_layers.py's business."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from solver import Position
from solver.reference.certificate import CertificateError, CertificateFileError, check, check_data, read_certificate
from solver.search.certificate import build_certificate, dumps, write_certificate
from solver.search import dfpn as F
from solver.search.prove import prove
from solver.search.limit import Limit

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
    return build_certificate(pos, prove(pos, Limit(tt_mb=16)), tt_mb=16, **kw)


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
    proof = prove(pos, Limit(tt_mb=16))
    lost = proof.table.search
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


def _made_invalid(text: str) -> str:
    """``text`` with one stone more for the player not to move, one that leaves that
    player a dead group: a position no move makes."""
    from solver.reference import rules as ref
    from solver.rules.notation import format_position, parse_position

    board, light, dark, side = parse_position(text)
    for p in range(board.size):
        if p in light or p in dark:
            continue
        more = (light | {p}, dark) if side == "D" else (light, dark | {p})
        if ref.is_valid(board, *more, side) is not None:
            return format_position(board, *more, side)
    raise AssertionError(f"no stone makes {text} invalid")


def test_rejects_an_invalid_root_and_a_node_no_move_makes(cert23):
    # the root is checked against the reference's is_valid
    bad = copy.deepcopy(cert23)
    j = bad["nodes"][0]["next"]
    bad["root"] = bad["nodes"][0]["position"] = _made_invalid(bad["nodes"][j]["position"])
    with pytest.raises(CertificateError, match="root: .* is not a valid position: .*dead group"):
        check_data(bad)
    # any other node must be what a move makes from its parent, which is never invalid
    bad = copy.deepcopy(cert23)
    bad["nodes"][j]["position"] = _made_invalid(bad["nodes"][j]["position"])
    with pytest.raises(CertificateError, match=f"node 0 .*{bad['nodes'][0]['move']} does not lead to node {j} "):
        check_data(bad)


def test_rejects_a_changed_leaf_winner(cert23, tmp_path, run_cli):
    # the game at the leaf is Light's; only the file's "won" is wrong, and the message
    # must say so, not name Light twice
    bad = copy.deepcopy(cert23)
    leaf = _first(bad, "won")
    leaf["won"] = "D"
    want = f"node {leaf['id']} ({leaf['position']}) is a leaf marked won by D, but L has won it"
    with pytest.raises(CertificateError) as e:
        check_data(bad)
    assert str(e.value) == want
    path = tmp_path / "bad.json"
    path.write_text(dumps(bad))
    r = run_cli("check", "--jobs", "1", path, code=1)
    assert r.stderr == f"meridians: certificate rejected: {path}: {want}\n"


@pytest.mark.parametrize("won", ["L", "D"])
def test_rejects_a_leaf_the_loser_has_won(won):
    # one node: a finished game that Dark has won, claimed for Light
    text = "1D/3/1DD1/D2/2 D"
    cert = {"format": "meridians-certificate", "version": 1, "board": "2/3", "root": text,
            "winner": "L", "node_count": 1, "nodes": [{"id": 0, "position": text, "won": won}]}
    with pytest.raises(CertificateError) as e:
        check_data(cert)
    assert str(e.value) == f"node 0 ({text}) is a leaf won by D, not by the claimed winner L"
    # claimed for Dark, it holds, unless the file marks the leaf as Light's
    cert["winner"] = cert["nodes"][0]["won"] = "D"
    assert check_data(cert) == 1
    cert["nodes"][0]["won"] = "L"
    with pytest.raises(CertificateError, match=r"is a leaf marked won by L, but D has won it$"):
        check_data(cert)


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
    import solver.reference.certificate as C

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


def test_a_checking_process_that_dies_is_an_error_and_none_is_left(cert23, monkeypatch):
    import multiprocessing
    import os

    import solver.reference.certificate as C

    monkeypatch.setattr(C, "_CHUNK", 40)
    check_range = C._check_range

    def dies_at_the_third_chunk(c, lo, hi):
        if lo == 2 * C._CHUNK:
            os._exit(3)
        return check_range(c, lo, hi)

    monkeypatch.setattr(C, "_check_range", dies_at_the_third_chunk)
    others = set(multiprocessing.active_children())  # an earlier test's pool (loky keeps its workers)
    with pytest.raises(C.CheckerProcessError, match=r"ended without an answer \(exit code 3\)"):
        check_data(cert23, jobs=2)
    assert set(multiprocessing.active_children()) <= others
    bad = copy.deepcopy(cert23)
    bad["nodes"][len(bad["nodes"]) // 2]["move"] = "zz"
    with pytest.raises(CertificateError):
        check_data(bad, jobs=3)
    assert set(multiprocessing.active_children()) <= others


def test_a_child_won_by_lookahead_is_found_after_proving_again():
    # Dark to move wins in two: every Light reply after Dark's move ends the game, a child
    # df-pn settles by its lookahead without a table entry of its own.  With the table
    # emptied the builder must prove the root again and still find that child
    # (3/4 class c1's certificate failed here).
    pos = Position.parse("3/2D1/3D1/DDDDD1/LLD2/DL1D/L1L D")
    proof = prove(pos, Limit(tt_mb=16))
    assert proof.value == "win"
    proof.table.search.tt_key[:] = 0
    cert = build_certificate(pos, proof, tt_mb=16)
    assert cert["reproved"] == 1 and check_data(cert) == cert["node_count"]


@pytest.mark.parametrize("name", ["c.json", "c.json.gz"])
def test_written_file_is_the_built_certificate_as_text(name, tmp_path, monkeypatch):
    # write_certificate streams the nodes to the file; it must write what dumps (and
    # gzip.compress with mtime 0) of the whole built certificate would, byte for byte,
    # and say how far the writing is
    import gzip
    import hashlib

    import solver.search.certificate as C

    pos = Position.parse(ENDGAMES_34[0])
    proof = prove(pos, Limit(tt_mb=16))
    text = dumps({**build_certificate(pos, proof, tt_mb=16), "note": "x"}).encode()
    want = gzip.compress(text, mtime=0) if name.endswith(".gz") else text
    monkeypatch.setattr(C, "PROGRESS_EVERY", 10)
    calls = []
    head = write_certificate(tmp_path / name, pos, proof, tt_mb=16, header={"note": "x"},
                             written=lambda n, total: calls.append((n, total)))
    got = (tmp_path / name).read_bytes()
    assert got == want
    assert (head["bytes"], head["sha256"]) == (len(got), hashlib.sha256(got).hexdigest())
    assert check(tmp_path / name) == head["node_count"] > 100
    total = head["node_count"]
    assert calls == [(n, total) for n in range(10, total, 10)]


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


# -- files that are not certificates, and certificates of the wrong types -----------------------
# `meridians check` gives one line naming the file and no traceback for any of them: exit 2
# when the file is not a certificate file, 1 when a certificate does not prove its claim.


def _corrupt_gzip(text: bytes) -> bytes:
    """``text`` gzip-compressed, with one byte of its deflate stream changed so that zlib
    itself fails (not only the CRC check at the end)."""
    import gzip
    import zlib

    good = gzip.compress(text, mtime=0)
    for k in range(20, len(good) - 8):
        bad = bytearray(good)
        bad[k] ^= 0x55
        try:
            gzip.decompress(bytes(bad))
        except zlib.error:
            return bytes(bad)
        except Exception:  # noqa: BLE001 - another failure: try the next byte
            continue
    raise AssertionError("no corruption found that zlib refuses")


def _bad_files(tmp_path: Path, cert23: dict) -> dict[str, tuple[Path, int]]:
    """name -> (a malformed file, the exit code meridians check must give it)."""
    import gzip

    text = dumps(cert23)
    deep = "[" * 100_000 + "]" * 100_000
    head = {k: v for k, v in cert23.items() if k != "nodes"}
    files: dict[str, tuple[bytes | None, int]] = {
        "deep.json": (deep.encode(), 2),
        "deep.json.gz": (gzip.compress(deep.encode()), 2),
        "deep-object.json": (('{"a":' * 50_000 + "1" + "}" * 50_000).encode(), 2),
        "corrupt.json.gz": (_corrupt_gzip(text.encode()), 2),
        "truncated.json.gz": (gzip.compress(text.encode())[:-300], 2),
        "gzip-named-plain.json": (gzip.compress(text.encode()), 2),
        "plain-named-gzip.json.gz": (text.encode(), 2),
        "binary.json": (bytes(range(256)) * 4, 2),
        "empty.json": (b"", 2),
        "blank.json": (b"  \n", 2),
        "not-json.json": (b"{not json", 2),
        "list.json": (b"[1, 2, 3]", 2),
        "string.json": (b'"a certificate"', 2),
        "other-format.json": (json.dumps({**head, "format": "chess"}).encode(), 2),
        "version-true.json": (json.dumps({**head, "version": True, "nodes": []}).encode(), 2),
        "nan.json": (text.replace('"node_count": ', '"node_count": NaN, "x": ', 1).encode(), 2),
        "infinity.json": (text.replace('"next":1}', '"next":Infinity}', 1).encode(), 2),
        "huge-int.json": (text.replace('"next":1}', '"next":' + "9" * 5000 + "}", 1).encode(), 2),
        "lone-surrogate.json": (text.replace(f'"position":"{EMPTY_23}"', '"position":"2/3/4/3/2 \\ud800"', 1).encode(), 1),
        "huge-float.json": (text.replace('"next":1}', '"next":1e999}', 1).encode(), 1),
        "nodes-object.json": (json.dumps({**head, "nodes": {"a": 1}}).encode(), 1),
        "nodes-number.json": (json.dumps({**head, "nodes": 7}).encode(), 1),
        "board-list.json": (json.dumps({**head, "board": ["2/3"] * 1000, "nodes": []}).encode(), 1),
        "deep-leaf.json": (text.replace('"won":"L"', '"won":' + "[" * 900 + "]" * 900, 1).encode(), 1),
        "long-position.json": (text.replace(f'"position":"{EMPTY_23}"', '"position":"' + "2" * 100_000 + ' L"', 1).encode(), 1),
        "long-point.json": (text.replace('"move":"c2"', '"move":"' + "c" * 100_000 + '"', 1).encode(), 1),
        "missing.json": (None, 2),
    }
    out = {}
    for name, (data, code) in files.items():
        path = tmp_path / name
        if data is not None:
            path.write_bytes(data)
        out[name] = (path, code)
    return out


def test_every_malformed_file_gives_one_line_naming_it(cert23, tmp_path, run_cli):
    for name, (path, code) in _bad_files(tmp_path, cert23).items():
        r = run_cli("check", "--jobs", "1", path)
        assert r.exception is None, (name, r.exception)
        assert (r.code, r.stdout) == (code, ""), (name, r)
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and name in lines[0] and len(lines[0]) < 400, (name, r.stderr)
        assert lines[0].startswith("meridians: error: " if code == 2 else "meridians: certificate rejected: ")
        with pytest.raises(CertificateFileError if code == 2 else CertificateError) as e:
            check(path)
        assert code == 2 or not isinstance(e.value, CertificateFileError), name


def test_a_directory_is_refused_in_one_line(tmp_path, run_cli):
    r = run_cli("check", tmp_path)
    assert r.exception is None and r.code == 2 and len(r.stderr.splitlines()) == 1
    assert tmp_path.name in r.stderr
    with pytest.raises(CertificateFileError, match=tmp_path.name):
        check(tmp_path)


WRONG = [None, True, 0, -1, 1.5, 10**30, "", "x" * 1000, [], ["a1"], {}, {"a1": 1}, [[[[[]]]]]]


@pytest.mark.parametrize("level", ["header", "move", "replies", "leaf"])
def test_wrong_types_at_every_level_are_refused_in_one_line(cert23, level):
    # every field of the header or of a node of each kind, set to each wrong JSON type:
    # a CertificateError with a one-line message, never another exception
    def node(cert):
        return cert if level == "header" else _first(cert, {"move": "move", "replies": "replies", "leaf": "won"}[level])

    keys = [k for k in node(cert23) if k != "nodes"] + ([] if level == "header" else ["id", "position"])
    tried = 0
    for key in dict.fromkeys(keys):
        for value in WRONG:
            bad = copy.deepcopy(cert23)
            if node(bad).get(key) == value:
                continue
            node(bad)[key] = value
            try:
                n = check_data(bad)
            except CertificateError as e:
                assert "\n" not in str(e) and len(str(e)) < 300, (key, value, str(e))
            else:  # only a field that the checker does not read can be anything
                assert (level, key) in {("header", "code"), ("header", "reproved"), ("header", "command")}, (key, value)
                assert n == cert23["node_count"]
            tried += 1
    assert tried >= len(set(keys)) * (len(WRONG) - 1) >= 3 * 12


@pytest.mark.subprocess
def test_the_committed_certificate_checks_without_numba(tree_env):
    # the checker's verdict must not depend on the compiled core or its install: with
    # numba and llvmlite unimportable, the committed 2/3 certificate is still accepted by
    # `python -m solver.reference.certificate FILE --jobs 2` (as -m runs it, forked workers too)
    import subprocess
    import sys

    path = ROOT / "results" / "certificates" / "2-3.json"
    n = json.loads(path.read_text())["node_count"]
    code = (
        "import runpy, sys, warnings\n"
        "sys.modules['numba'] = sys.modules['llvmlite'] = None  # import numba: ImportError\n"
        "import solver.reference.certificate as C\n"
        "C._CHUNK = 40  # small chunks: two worker processes even for 394 positions\n"
        "warnings.simplefilter('ignore', RuntimeWarning)  # runpy: the module is imported already\n"
        f"sys.argv = ['certificate_check', {str(path)!r}, '--jobs', '2']\n"
        "try:\n    runpy.run_module('solver.reference.certificate', run_name='__main__', alter_sys=True)\n"
        "finally:\n    print(sorted(m for m in ('solver.rules.core', 'solver.rules.position') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=tree_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith(f"{n} positions checked: Light wins {EMPTY_23}")
    assert proc.stdout.splitlines()[1] == "[]"


@pytest.mark.subprocess
def test_meridians_check_runs_without_numba(tree_env):
    import subprocess
    import sys

    path = ROOT / "results" / "certificates" / "2-3.json"
    code = (
        "import sys\n"
        "sys.modules['numba'] = sys.modules['llvmlite'] = None\n"
        "from solver.cli import main\n"
        f"main(['check', {str(path)!r}])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=tree_env)
    assert proc.returncode == 0, proc.stderr
    assert "positions checked: Light wins" in proc.stdout
    assert "warning" not in proc.stderr  # no plugin command (puzzles needs numba) was loaded


# -- settled leaves (format version 2) -------------------------------------------------------

# Light walls off rows a and b of 3/4; Dark is nearly out of moves (tests/test_settled.py)
SETTLED_34 = "DD1/1DLL/LL1LD/L1LDDL/LLLLL/4/3 D"
# the same after Dark f1: Light to move, and settled for Light after any move in its interior
BEFORE_SETTLED_34 = "DD1/DDLL/LL1LD/L1LDDL/LLLLL/4/3 L"


def _settled_cert(nodes: list[dict], version: int = 2) -> dict:
    return {"format": "meridians-certificate", "version": version, "board": "3/4",
            "root": nodes[0]["position"], "winner": "L", "node_count": len(nodes), "nodes": nodes}


def _one_leaf(claim: object = "settle", text: str = SETTLED_34) -> dict:
    from solver.reference.settled import settle

    claim = settle(Position.parse(text)).claim() if claim == "settle" else claim
    return _settled_cert([{"id": 0, "position": text, "settled": claim}])


def _move_then_leaf(move: str) -> dict:
    from solver.reference.settled import settle

    root = Position.parse(BEFORE_SETTLED_34)
    child = root.play(move)
    claim = settle(Position.parse(str(child)))  # no history: the certificate is its history
    return _settled_cert([{"id": 0, "position": str(root), "move": move, "next": 1},
                          {"id": 1, "position": str(child), "settled": claim.claim()}])


def test_a_settled_leaf_checks(tmp_path):
    cert = _one_leaf()
    assert cert["nodes"][0]["settled"] == {"owner": "L", "supply": 5, "bound": 2}  # settle's numbers
    assert check_data(cert) == 1
    path = tmp_path / "c.json"
    path.write_text(dumps(cert))
    assert check(path) == 1
    # a move of the winner into its interior, then a settled leaf
    assert check_data(_move_then_leaf("b2")) == 2


def test_a_settled_leaf_needs_version_2_and_version_1_stays_valid(cert23):
    assert cert23["version"] == 1 and check_data(cert23) == cert23["node_count"]
    with pytest.raises(CertificateError, match="node 0 is a settled leaf: .* version 2, not 1"):
        check_data({**_one_leaf(), "version": 1})
    for version in (0, 3):
        with pytest.raises(CertificateFileError, match="not one of 1, 2"):
            check_data({**_one_leaf(), "version": version})


@pytest.mark.parametrize("change,message", [
    ({"owner": "D"}, "settled for D, not for the claimed winner L"),
    ({"supply": 6}, "supply is 5, not 6"),
    ({"supply": 4}, "supply is 5, not 4"),
    ({"bound": 3}, "bound is 2, not 3"),
    ({"bound": 1}, "more than 1 moves"),
])
def test_a_forged_settled_claim_is_rejected(change, message, tmp_path, run_cli):
    cert = _one_leaf()
    cert["nodes"][0]["settled"].update(change)
    with pytest.raises(CertificateError, match=f"node 0 .*{message}") as e:
        check_data(cert)
    assert not isinstance(e.value, CertificateFileError)
    path = tmp_path / "forged.json"
    path.write_text(dumps(cert))
    r = run_cli("check", path)
    assert (r.code, r.exception) == (1, None) and len(r.stderr.splitlines()) == 1


def test_a_settled_leaf_where_the_rule_does_not_hold_is_rejected():
    # Dark has room and wins here; Light's enclosure gives 4 moves (tests/test_settled.py)
    text = "DD1/1LLL/5/DDDD1D/LLLLL/4/3 D"
    with pytest.raises(CertificateError, match="node 0 .*the settled claim fails: D has more than 0 moves"):
        check_data(_one_leaf({"owner": "L", "supply": 4, "bound": 0}, text))
    # a finished game (Dark has no stones left) is no settled leaf
    with pytest.raises(CertificateError, match="node 0 .*two or more stones of each colour"):
        check_data(_one_leaf({"owner": "L", "supply": 0, "bound": 0}, "3/2LL/LL1L1/L1L2L/LLLLL/4/3 L"))


def test_a_node_that_the_continuation_could_repeat_rejects_the_leaf():
    # Light plays outside its walls: the root has the leaf's Dark stones and Light's walls,
    # a position that Dark's first reply could bring back
    with pytest.raises(CertificateError, match="node 1 .*could repeat"):
        check_data(_move_then_leaf("g3"))


MALFORMED_CLAIMS = [None, True, 0, "L", [], {}, {"owner": "L", "supply": 5},
                    {"owner": "L", "supply": 5, "bound": 2, "extra": 1},
                    {"owner": "X", "supply": 5, "bound": 2}, {"owner": None, "supply": 5, "bound": 2},
                    {"owner": "L", "supply": "5", "bound": 2}, {"owner": "L", "supply": 5.0, "bound": 2},
                    {"owner": "L", "supply": True, "bound": 2}, {"owner": "L", "supply": 5, "bound": -1},
                    {"owner": "L", "supply": 10**30, "bound": 2}, {"owner": "L", "supply": 5, "bound": 2**62},
                    {"owner": "L", "supply": [5], "bound": 2}]


@pytest.mark.parametrize("claim", MALFORMED_CLAIMS)
def test_a_malformed_settled_leaf_is_refused_in_one_line(claim, tmp_path, run_cli):
    cert = _one_leaf(claim)
    with pytest.raises(CertificateError) as e:
        check_data(cert)
    assert "\n" not in str(e.value) and len(str(e.value)) < 300 and "settled" in str(e.value)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(cert))
    r = run_cli("check", path)
    assert r.exception is None and r.code in (1, 2) and len(r.stderr.splitlines()) == 1
    both = copy.deepcopy(cert)
    both["nodes"][0]["won"] = "L"
    with pytest.raises(CertificateError, match="exactly one of move, replies, won, settled"):
        check_data(both)


def test_the_builders_move_that_wins_at_once_is_the_first_legal_one_that_does():
    """The compiled search for a move that ends the game won (the builder tries it before
    the table's move) agrees with playing every legal move, lowest point first, at every
    position of two certificates and of random games on 1/2, 2/3 and 3/4."""
    import numpy as np
    from solver.rules import core
    from solver.rules.randomgame import random_game, random_positions
    from solver.search.certificate import _build, _first_won_at_once

    positions = []
    for text in (EMPTY_23, ENDGAMES_34[0]):
        pos = Position.parse(text)
        _, graph = _build(pos, prove(pos, Limit(tt_mb=16)), tt_mb=16)
        positions += [graph.position(i) for i in range(len(graph))]
        positions += random_positions(pos.board, 300, 12, seed=1)
    # on 1/2 a second stone never has a point: every first stone of the second player wins
    positions += [p for seed in range(20) for p in random_game("1/2", seed)]
    found = 0
    for p in positions:
        if p.outcome is not None:
            continue
        T = core.tables(p.board)
        cells, spare = np.empty(64 * T.w, dtype=np.int64), np.empty_like(p.bitboards)
        got = int(_first_won_at_once(T, p.bitboards, p.side_index, cells, spare))
        want = next((p.board.index(m) for m in p.legal_moves() if p.play(m).outcome == p.to_move), -1)
        assert got == want, p
        found += want >= 0
    assert found >= 20  # enough moves that win at once to tell


@pytest.mark.parametrize("text", [EMPTY_23, ENDGAMES_34[0], ENDGAMES_34[2]])
def test_the_builder_gives_the_certificate_of_its_twin_that_plays_every_move(text):
    """The builder plays only the table's move at a winner's node (unless it fails); its
    twin in scripts/bench_certificate_build.py plays every move first: same nodes."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_certificate_build",
                                                  ROOT / "scripts" / "bench_certificate_build.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    pos = Position.parse(text)
    proof = prove(pos, Limit(tt_mb=16))
    twin, _ = bench.build(bench.EveryMoveWalk, pos, proof, 16)
    nodes, _ = bench.build(bench.CertificateWalk, pos, proof, 16)
    assert len(nodes) > 10 and nodes == twin


def test_a_packed_position_unpacks_to_itself():
    import random

    from solver.reference.certificate import _packed, _unpacked
    from solver.rules.board import Board

    rng = random.Random(7)
    for name in ("2/3", "3/4", "7/8"):
        board = Board.parse(name)
        for _ in range(300):
            points = rng.sample(range(board.size), rng.randint(0, board.size))
            cut = rng.randint(0, len(points))
            light, dark, side = frozenset(points[:cut]), frozenset(points[cut:]), rng.choice("LD")
            assert _unpacked(board, _packed(board, light, dark, side)) == (light, dark, side)
