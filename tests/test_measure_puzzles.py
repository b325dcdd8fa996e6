"""scripts/measure_puzzles.py over puzzles/quality.py: the figures of small sets whose
answers are known by construction (a copy of a puzzle is a near-duplicate at 0 points)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from collections import Counter

from conftest import load_script, run_script
from refthemes import ref_themes
from puzzles.record import load_jsonl, write_jsonl
from solver.util.provenance import code_revision

COMMITTED = Path(__file__).resolve().parent.parent / "results" / "puzzles"


def _apart(p, q) -> int:
    a, b = p.to_position(), q.to_position()
    return len((a.stones("L") ^ b.stones("L")) | (a.stones("D") ^ b.stones("D")))


def _far_apart(ps, k: int) -> list:
    """The first ``k`` puzzles, in file order, each more than 8 points from those before
    (counted on the stone sets, not by the code under test)."""
    out = []
    for p in ps:
        if all(_apart(p, q) > 8 for q in out):
            out.append(p)
            if len(out) == k:
                return out
    raise AssertionError("no such puzzles")


@pytest.fixture()
def script(tmp_path, monkeypatch):
    return load_script("measure_puzzles", monkeypatch, tmp_path)


def test_the_figures_of_small_sets(script, tmp_path, monkeypatch, capsys):
    # puzzles of the first 4/5 c2 set (no source or themes recorded), kept as fixtures
    old = Path(__file__).resolve().parent / "data" / "old-puzzles.jsonl"
    ps = _far_apart([p for p in load_jsonl(old) if p.id.startswith("m45-c2-")], 3)
    # a: three puzzles and a copy of the first (a different id and target, the same
    # position): one later puzzle of four is a near-duplicate
    # (its recorded themes, not true of it, are counted as recorded: none is computed)
    copy = dataclasses.replace(ps[0], id="copy", difficulty=3, dual_free=not ps[0].dual_free,
                               themes=("ladder",))
    a = ps + [copy]
    write_jsonl(tmp_path / "a.jsonl", a)
    write_jsonl(tmp_path / "b.jsonl", ps[1:2])
    (tmp_path / "notes.txt").write_text("not a set")
    run_script(script, monkeypatch)
    rec = json.loads((tmp_path / "quality.json").read_text())
    assert rec["command"] == "python scripts/measure_puzzles.py" and rec["within"] == 8
    assert rec["revision"] == code_revision() and rec["rules"]
    assert sorted(rec["sets"]) == ["a.jsonl", "b.jsonl"]
    m = rec["sets"]["a.jsonl"]
    assert m["count"] == 4
    assert m["duplicate_rate"] == 0.25 and m["near_pairs"] == 1
    assert m["dual_free"] == sum(p.dual_free for p in a) / 4
    assert m["ratings"]["3"] >= 1 and sum(m["ratings"].values()) == 4
    assert m["top_rating_share"] == max(m["ratings"].values()) / 4
    assert m["generators"] == {"sat": 4} and m["sources"] == {"unrecorded": 4}
    expected = Counter(t for p in ps for t in ref_themes(p)) + Counter(["ladder"])
    assert m["themes"] == dict(expected) and (m["themes_recorded"], m["themes_computed"]) == (1, 3)
    b = rec["sets"]["b.jsonl"]
    assert b["count"] == 1 and b["duplicate_rate"] == 0.0 and b["top_rating_share"] == 1.0
    table = capsys.readouterr().out
    assert "| a.jsonl | 4 |" in table and "25% (1 pairs)" in table


def test_no_sets_and_a_bad_set_are_one_line(script, tmp_path, monkeypatch):
    with pytest.raises(SystemExit, match="no puzzle sets"):
        run_script(script, monkeypatch)
    (tmp_path / "x.jsonl").write_text('{"id": "x"}\n')
    with pytest.raises(SystemExit, match="x.jsonl, line 1: missing field"):
        run_script(script, monkeypatch)
    assert not (tmp_path / "quality.json").exists()


def test_a_set_is_measured_against_the_set_one_move_shorter(script, tmp_path, monkeypatch, capsys):
    from puzzles.generate import one_point_changes

    committed = Path(__file__).resolve().parent.parent / "results" / "puzzles"
    ones = load_jsonl(committed / "4-5-c1.jsonl")[:3]
    far = _far_apart([p for p in load_jsonl(committed / "4-5-c2.jsonl") if all(_apart(p, q) > 8 for q in ones)], 1)
    # a capture-in-2 record one point from the first 1-mover (an extend child's relation)
    _, pos = one_point_changes(ones[0].to_position(), ones[0].target)[0]
    child = dataclasses.replace(far[0], id="child", position=str(pos), target=ones[0].target, key=None, line=(),
                                themes=())
    write_jsonl(tmp_path / "4-5-c1.jsonl", ones)
    write_jsonl(tmp_path / "4-5-c2.jsonl", far + [child])
    write_jsonl(tmp_path / "5-6-c3.jsonl", load_jsonl(committed / "5-6-c3.jsonl")[:1])  # no 5/6 c2 here
    run_script(script, monkeypatch)
    rec = json.loads((tmp_path / "quality.json").read_text())
    assert rec["sets"]["4-5-c2.jsonl"]["near_shorter"] == {"within": 1, "one_point": 1}
    assert "near_shorter" not in rec["sets"]["4-5-c1.jsonl"] and "near_shorter" not in rec["sets"]["5-6-c3.jsonl"]
    assert "| 4-5-c2.jsonl | 2 |" in capsys.readouterr().out
