"""puzzles.rating: the score grows with each kind of difficulty, the rating spreads the
puzzles of one board and N, the committed sets re-rate the way the generator rates, and
scripts/measure_ratings.py on a folder of small sets."""

from __future__ import annotations

import dataclasses
import json
import os
import random
from collections import Counter
from pathlib import Path

import pytest

from conftest import load_script, run_script
from puzzles import generate as G
from puzzles import rating as R
from puzzles.record import load_jsonl, write_jsonl
from puzzles.verdict import _late
from solver import Position
from solver.util.provenance import code_revision
from solver.search.capture import CaptureSearch, capture_limit
from solver.search.mcts import search
from solver.search.limit import Limit

COMMITTED = Path(__file__).resolve().parent.parent / "results" / "puzzles"
SETS = sorted(COMMITTED.glob("*.jsonl"))


def _random_features(rng: random.Random) -> R.Features:
    return R.Features(nodes=rng.randint(1, 10**7), tempting=rng.randint(0, 20), late=rng.randint(0, 6),
                      quiet=rng.random() < 0.3, legal=rng.randint(1, 120), paths=rng.randint(0, 14))


MORE = {  # one feature made harder, the others kept
    "nodes": lambda f: dataclasses.replace(f, nodes=f.nodes * 3 + 1),
    "tempting": lambda f: dataclasses.replace(f, tempting=f.tempting + 1),
    "late": lambda f: dataclasses.replace(f, late=f.late + 1),
    "quiet": lambda f: dataclasses.replace(f, quiet=True),
    "legal": lambda f: dataclasses.replace(f, legal=f.legal + 5),
    "paths": lambda f: dataclasses.replace(f, paths=f.paths + 1),
}


@pytest.mark.parametrize("what", sorted(MORE))
def test_more_difficulty_never_rates_lower(what):
    rng = random.Random(what)
    for _ in range(300):
        f = _random_features(rng)
        g = MORE[what](f)
        assert R.score(g) >= R.score(f)
        for board, n in R.CUTS:
            assert R.rating(R.score(g), board, n) >= R.rating(R.score(f), board, n)


def test_each_kind_counts_below_its_cap():
    f = R.Features(nodes=500, tempting=2, late=1, quiet=False, legal=40, paths=3)
    for what in MORE:
        assert R.score(MORE[what](f)) > R.score(f), what
    # beyond its cap a count adds nothing
    capped = dataclasses.replace(f, late=R.LATE_CAP)
    assert R.score(dataclasses.replace(capped, late=R.LATE_CAP + 3)) == R.score(capped)


def test_ratings_are_one_to_five_and_cut_within_n():
    for (board, n), cuts in R.CUTS.items():
        assert list(cuts) == sorted(cuts)
        assert R.rating(cuts[0] - 1, board, n) == 1 and R.rating(cuts[-1], board, n) == 5
        assert [R.rating(c, board, n) for c in cuts] == [2, 3, 4, 5]
    # an unmeasured board or n borrows the nearest measured cuts
    assert R.rating(R.CUTS[("6/7", 6)][2], "6/7", 7) == 4
    assert R.rating(R.CUTS[("6/7", 2)][0], "7/8", 2) == 2 and R.rating(R.CUTS[("6/7", 2)][0] - 1e-3, "7/8", 2) == 1


def test_quantile_cuts_spread_a_synthetic_set():
    rng = random.Random(5)
    scores = [R.score(_random_features(rng)) for _ in range(1000)]
    cuts = R.quantile_cuts(scores)
    counts = Counter(1 + sum(s >= c for c in cuts) for s in scores)
    assert sorted(counts) == [1, 2, 3, 4, 5]
    assert max(counts.values()) <= 0.6 * len(scores)
    # each rating holds a fifth, up to the ties at its two cuts
    ties = max(Counter(scores).values())
    assert all(abs(c - 200) <= 2 * ties for c in counts.values())
    with pytest.raises(ValueError):
        R.quantile_cuts([])


@pytest.mark.parametrize("path", SETS, ids=[p.stem for p in SETS])
def test_no_committed_set_has_more_than_60_percent_at_one_rating(path):
    ps = load_jsonl(path)
    board = ps[0].to_position().board.name
    counts = Counter(R.rating(R.score(R.record_features(p, search_late=False)), board, p.n) for p in ps)
    assert max(counts.values()) <= 0.6 * len(ps), counts
    assert sorted(counts) == [1, 2, 3, 4, 5]


def test_a_committed_puzzle_re_rates_as_the_generator_rates_it():
    # the generator's verification from scratch gives the record's key and nodes; its
    # rating is the one read back from the record (late tries recovered from the score)
    ps = load_jsonl(COMMITTED / "4-5-c2.jsonl")
    for p in ps[:2] + ps[-1:]:
        q, why = G.proven(p.to_position(), p.target, p.n, p.generator, "test")
        assert why == "sound" and q.key == p.key and q.nodes == p.nodes
        f = R.record_features(p)
        assert (q.score, q.difficulty) == (R.score(f), R.rating(R.score(f), "4/5", p.n))
        assert R.record_features(q) == f  # the new score tells the late tries too
        assert R.record_features(p) == f  # and the same again


def test_late_tries_read_back_from_the_score_are_those_searched():
    ps = load_jsonl(COMMITTED / "4-5-c1.jsonl")
    with_late = [p for p in ps if R.record_features(p, search_late=False).late > 0][:2]
    assert with_late
    for p in with_late + ps[:2]:
        pos = p.to_position()
        s = CaptureSearch(pos, p.target, limit=capture_limit())
        segs, zone = s.target_zone()
        tries = [m for m in pos.legal_moves() if m in zone and m != p.key]
        f = R.record_features(p)
        assert f.late == len(_late(s, p.n, tries))
        assert f.tempting == len(tries) and f.quiet == (p.key not in segs)
    # a score that tells nothing: the late tries are searched
    p = dataclasses.replace(with_late[0], score=0.123)
    assert R.record_features(p).late == R.record_features(with_late[0]).late
    assert R.record_features(p, search_late=False).late == 0


def test_a_record_without_key_or_an_illegal_key_is_refused():
    p = load_jsonl(COMMITTED / "4-5-c1.jsonl")[0]
    with pytest.raises(R.RatingError):
        R.record_features(dataclasses.replace(p, key=None))
    taken = next(iter(p.to_position().stones("L") | p.to_position().stones("D")))
    with pytest.raises(R.RatingError, match="not a legal move"):
        R.record_features(dataclasses.replace(p, key=taken))


def test_find_key_is_the_first_budget_from_which_the_key_stays_best():
    pos = Position.parse("D1/3/L1D1/1L1/L1 D")
    budgets = [16, 32, 64, 128, 256]
    runs = {b: search(pos, Limit(playouts=b), seed=1, dfpn_nodes=0) for b in budgets}
    best = {b: r.best for b, r in runs.items()}
    for key in sorted(set(best.values()) | set(pos.legal_moves()[:2])):
        at, share = R.find_key(pos, key, 256)
        assert (at, share) == R.find_key(pos, key, 256)  # the same each time
        assert share == round(next((m.share for m in runs[256].moves if m.move == key), 0.0), 4)
        if at is None:
            assert best[256] != key
        else:
            assert all(best[b] == key for b in budgets if b >= at)
            assert at == 16 or best[at // 2] != key
    assert R.find_key(pos, best[256], 256).at is not None
    with pytest.raises(ValueError):
        R.find_key(pos, "d1", 8)


def test_spearman_by_hand():
    # no ties: 1 - 6 * sum(d^2) / (n (n^2 - 1)); ranks 1,2,3,4,5 against 2,1,4,3,5: d^2 = 4
    assert R.spearman([1, 2, 3, 4, 5], [20, 10, 40, 30, 50]) == round(1 - 6 * 4 / (5 * 24), 3)
    assert R.spearman([3, 1, 2], [30, 10, 20]) == 1.0
    assert R.spearman([1, 2], [5, 5]) is None and R.spearman([1], [2]) is None
    with pytest.raises(ValueError):
        R.spearman([1, 2], [1])


@pytest.fixture()
def script(tmp_path, monkeypatch):
    return load_script("measure_ratings", monkeypatch, tmp_path)


def test_the_script_on_small_sets(script, tmp_path, monkeypatch, capsys):
    ps = load_jsonl(COMMITTED / "4-5-c1.jsonl")[:6]
    write_jsonl(tmp_path / "4-5-c1.jsonl", ps)
    write_jsonl(tmp_path / "4-5-c2.jsonl", load_jsonl(COMMITTED / "4-5-c2.jsonl")[:2])
    run_script(script, monkeypatch, "--sample", "3", "--max-playouts", "32", "--check", "4-5-c1")
    rec = json.loads((tmp_path / "ratings.json").read_text())
    assert rec["command"] == "python scripts/measure_ratings.py --sample 3 --max-playouts 32 --check 4-5-c1"
    assert rec["revision"] == code_revision() and rec["rules"] and rec["interrupted"] is False
    assert sorted(rec["sets"]) == ["4-5-c1", "4-5-c2"]
    a = rec["sets"]["4-5-c1"]
    want = Counter(R.rating(R.score(R.record_features(p)), "4/5", 1) for p in ps)
    assert a["ratings"] == {str(k): want[k] for k in sorted(want)} and a["count"] == 6
    assert a["top_rating_share"] == max(want.values()) / 6
    ch = a["check"]
    assert ch["sample"] == 3 and [x["id"] for x in ch["puzzles"]] == [ps[0].id, ps[2].id, ps[4].id]
    for x, p in zip(ch["puzzles"], ps[::2]):
        assert (x["found_at"], x["share"]) == tuple(R.find_key(p.to_position(), p.key, 32))
    effort = [64 if x["found_at"] is None else x["found_at"] for x in ch["puzzles"]]
    assert ch["spearman_rating"] == R.spearman([x["rating"] for x in ch["puzzles"]], effort)
    assert ch["spearman_score_missed"] == R.spearman([x["score"] for x in ch["puzzles"]],
                                                     [1 - x["share"] for x in ch["puzzles"]])
    assert ch["found"] == sum(x["found_at"] is not None for x in ch["puzzles"])
    assert "check" not in rec["sets"]["4-5-c2"] and rec["overall"]["puzzles"] == 3
    assert "| 4-5-c1 | 6 |" in capsys.readouterr().out


def test_the_script_refuses_bad_input_in_one_line(script, tmp_path, monkeypatch):
    with pytest.raises(SystemExit, match="no puzzle sets"):
        run_script(script, monkeypatch)
    write_jsonl(tmp_path / "4-5-c1.jsonl", load_jsonl(COMMITTED / "4-5-c1.jsonl")[:1])
    with pytest.raises(SystemExit, match="--check names no set 'x'"):
        run_script(script, monkeypatch, "--check", "x")
    with pytest.raises(SystemExit, match="--sample must be"):
        run_script(script, monkeypatch, "--sample", "-1")
    with pytest.raises(SystemExit, match="--max-playouts must be"):
        run_script(script, monkeypatch, "--max-playouts", "8")
    (tmp_path / "bad.jsonl").write_text('{"id": "x"}\n')
    with pytest.raises(SystemExit, match="bad.jsonl"):
        run_script(script, monkeypatch, "--sample", "0")


def test_the_attempts_options_are_refused_in_one_line_before_any_attempt(script, tmp_path, monkeypatch):
    write_jsonl(tmp_path / "4-5-c1.jsonl", load_jsonl(COMMITTED / "4-5-c1.jsonl")[:2])
    base = ("--attempts", "--per-set", "2", "--max-playouts", "16", "--rating-solvers", "policy-t0",
            "--held-solvers", "policy-t1")
    # a negative budget was a LimitError traceback from the first capture search, 0 a silent "no limit" of 0 nodes
    for budget in ("-5", "0"):
        with pytest.raises(SystemExit, match="--read-budget must be"):
            run_script(script, monkeypatch, *base, "--read-budget", budget)
    # a solver named twice ran every attempt twice, then "no attempts to rate": no puzzle had the count it wanted
    for solvers in (("--rating-solvers", "policy-t0,policy-t0.0"), ("--held-solvers", "policy-t1,policy-t1"),
                    ("--held-solvers", "policy-t0")):
        with pytest.raises(SystemExit, match="more than once|both a rating and a held-out"):
            run_script(script, monkeypatch, *base, *solvers)
    # a log that cannot be written was a NotADirectoryError traceback
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit, match="cannot write the log"):
        run_script(script, monkeypatch, *base, "--read-budget", "100", "--log", str(tmp_path / "file" / "log.jsonl"))
    # a set written before last_moves: the first attempt's AttemptError was a traceback
    write_jsonl(tmp_path / "4-5-c1.jsonl", [dataclasses.replace(p, last_moves=None)
                                           for p in load_jsonl(COMMITTED / "4-5-c1.jsonl")[:2]])
    with pytest.raises(SystemExit, match="an attempt needs the key, the line and last_moves"):
        run_script(script, monkeypatch, *base, "--read-budget", "100")
    assert not (tmp_path / "ratings-attempts.json").exists()


def test_the_script_rates_from_attempts_and_resumes(script, tmp_path, monkeypatch, capsys):
    write_jsonl(tmp_path / "4-5-c1.jsonl", load_jsonl(COMMITTED / "4-5-c1.jsonl")[:4])
    write_jsonl(tmp_path / "4-5-c2.jsonl", load_jsonl(COMMITTED / "4-5-c2.jsonl")[:4])
    args = ("--attempts", "--per-set", "4", "--max-playouts", "16", "--rating-solvers", "policy-t0,policy-t1",
            "--held-solvers", "policy-t0.5")
    run_script(script, monkeypatch, *args)
    log = [json.loads(x) for x in (tmp_path / "attempts" / "log.jsonl").read_text().splitlines()]
    # 8 puzzles: policy-t0 one seed, the drawn solvers 4 each; the engine's effort on the 4 held out
    assert sum(r["kind"] == "attempt" for r in log) == 8 * 9 and sum(r["kind"] == "effort" for r in log) == 4
    rec = json.loads((tmp_path / "ratings-attempts.json").read_text())
    assert rec["command"].startswith("python scripts/measure_ratings.py --attempts --per-set 4")
    assert rec["rating_puzzles"] + rec["held_out_puzzles"] == 8 and rec["held_out_puzzles"] == 4
    assert min(s["r"] for s in rec["rating_solvers"].values()) == 800
    for row in rec["puzzles"]:
        mine = [r["solved"] for r in log if r["kind"] == "attempt" and r["puzzle"] == row["id"]
                and r["solver"] == "policy-t0.5"]
        assert len(mine) == 4 and row["held_fail"] == round(1 - sum(mine) / 4, 3)
    capsys.readouterr()
    run_script(script, monkeypatch, *args)  # resumed: nothing left to run, the same figures
    assert len((tmp_path / "attempts" / "log.jsonl").read_text().splitlines()) == len(log)
    again = json.loads((tmp_path / "ratings-attempts.json").read_text())
    assert again["puzzles"] == rec["puzzles"] and again["overall"] == rec["overall"]
    with pytest.raises(SystemExit, match="not a solver name"):
        run_script(script, monkeypatch, "--attempts", "--rating-solvers", "chess-p1")
    (tmp_path / "attempts" / "log.jsonl").write_text("{not json\n")
    with pytest.raises(SystemExit, match="not a log of attempts"):
        run_script(script, monkeypatch, *args)


def test_the_script_rates_every_puzzle_and_writes_only_the_rating_field(script, tmp_path, monkeypatch, capsys):
    before = {}
    for name, k in (("4-5-c1", 5), ("4-5-c2", 3)):
        write_jsonl(tmp_path / f"{name}.jsonl",
                    [dataclasses.replace(p, rating=None) for p in load_jsonl(COMMITTED / f"{name}.jsonl")[:k]])
        before[name] = (tmp_path / f"{name}.jsonl").read_text().splitlines()
    args = ("--attempts", "--all", "--write", "--per-set", "2", "--max-playouts", "16", "--read-budget", "5000",
            "--rating-solvers", "policy-t0,read-n30,read-n3000", "--held-solvers", "read-n300")
    run_script(script, monkeypatch, *args)
    rec = json.loads((tmp_path / "ratings-attempts.json").read_text())
    # the solvers are part of the command: without them it would rerun with the default ones
    assert rec["command"] == ("python scripts/measure_ratings.py --attempts --per-set 2 --max-playouts 16 "
                              "--read-budget 5000 --rating-solvers policy-t0,read-n30,read-n3000 "
                              "--held-solvers read-n300 --all --write")
    assert rec["rated_puzzles"] == rec["committed_puzzles"] == 8 and rec["written"] == ["4-5-c1", "4-5-c2"]
    assert {k: v["rated"] for k, v in rec["sets"].items()} == {"4-5-c1": 5, "4-5-c2": 3}
    log = [json.loads(x) for x in (tmp_path / "attempts" / "log.jsonl").read_text().splitlines()]
    # the held-out half (one puzzle a set) has the capture-goal solver's effort, which finds each key
    reads = [r for r in log if r["kind"] == "read"]
    assert len(reads) == 2 and all(r["found_at"] is not None for r in reads)
    assert all(r["read"] and r["read_at"] == next(x["found_at"] for x in reads if x["puzzle"] == r["id"])
               for r in rec["puzzles"])
    for name, lines in before.items():
        after = (tmp_path / f"{name}.jsonl").read_text().splitlines()
        assert len(after) == len(lines)
        for old, new in zip(lines, after):
            d = json.loads(new)
            r = d.pop("rating")
            assert json.dumps(d, ensure_ascii=False) == old and isinstance(r, int) and 300 <= r <= 3500
        assert all(p.rating is not None for p in load_jsonl(tmp_path / f"{name}.jsonl"))
    held = {r["id"]: r["rating"] for r in rec["puzzles"]}
    written = {p.id: p.rating for f in ("4-5-c1", "4-5-c2") for p in load_jsonl(tmp_path / f"{f}.jsonl")}
    assert all(written[i] == r for i, r in held.items())  # the held-out puzzles' validated ratings are the written ones
    capsys.readouterr()
    run_script(script, monkeypatch, *args)  # again: nothing to run, the same ratings (the field replaced, not added)
    assert {p.id: p.rating for f in ("4-5-c1", "4-5-c2") for p in load_jsonl(tmp_path / f"{f}.jsonl")} == written
    assert all(x.count('"rating"') == 1 for x in (tmp_path / "4-5-c1.jsonl").read_text().splitlines())
    # a rebuilt set that gives an id to another puzzle: its attempts run again, the others' do not
    ps = load_jsonl(tmp_path / "4-5-c2.jsonl")
    other = dataclasses.replace(load_jsonl(COMMITTED / "4-5-c2.jsonl")[10], id=ps[0].id, rating=None)
    write_jsonl(tmp_path / "4-5-c2.jsonl", [other] + ps[1:])
    n = len((tmp_path / "attempts" / "log.jsonl").read_text().splitlines())
    run_script(script, monkeypatch, *args)
    new = [json.loads(x) for x in (tmp_path / "attempts" / "log.jsonl").read_text().splitlines()[n:]]
    assert len(new) == 4 and {r["puzzle"] for r in new} == {other.id}  # 3 rating solvers, 1 held out


def test_add_rates_only_the_unrated_puzzles_against_the_recorded_fit(script, tmp_path, monkeypatch, capsys):
    for name, k in (("4-5-c1", 4), ("4-5-c2", 4)):
        write_jsonl(tmp_path / f"{name}.jsonl",
                    [dataclasses.replace(p, rating=None) for p in load_jsonl(COMMITTED / f"{name}.jsonl")[:k]])
    add = ("--attempts", "--add", "--write")
    with pytest.raises(SystemExit, match="there is no .*ratings-attempts.json"):
        run_script(script, monkeypatch, *add)
    full = ("--attempts", "--all", "--write", "--per-set", "2", "--max-playouts", "16", "--read-budget", "5000",
            "--rating-solvers", "policy-t0,read-n30,read-n3000", "--held-solvers", "read-n300")
    run_script(script, monkeypatch, *full)
    rec = json.loads((tmp_path / "ratings-attempts.json").read_text())
    assert rec["added"] == [] and sorted(rec["fit"]["solvers"]) == ["policy-t0", "read-n30", "read-n3000"]
    assert all(round(v[0]) == rec["rating_solvers"][k]["r"] for k, v in rec["fit"]["solvers"].items())
    capsys.readouterr()
    run_script(script, monkeypatch, *add)  # every puzzle rated: nothing to run, nothing written
    assert json.loads((tmp_path / "ratings-attempts.json").read_text()) == rec
    # the set grows: two puzzles of a rebuilt set, unrated, and a held-out one (rated against
    # the fit in the full run) whose rating is taken off: the same attempts give it back
    held = rec["puzzles"][0]["id"]
    ps = load_jsonl(tmp_path / "4-5-c2.jsonl")
    grown = ([dataclasses.replace(p, rating=None) if p.id == held else p for p in ps]
             + [dataclasses.replace(p, rating=None) for p in load_jsonl(COMMITTED / "4-5-c2.jsonl")[10:12]])
    write_jsonl(tmp_path / "4-5-c2.jsonl", grown)
    c1 = (tmp_path / "4-5-c1.jsonl").read_text()
    held_set = "4-5-c1" if held in {p.id for p in load_jsonl(tmp_path / "4-5-c1.jsonl")} else "4-5-c2"
    if held_set == "4-5-c1":  # the held-out puzzle is the first set's: take its rating off there
        write_jsonl(tmp_path / "4-5-c1.jsonl", [dataclasses.replace(p, rating=None) if p.id == held else p
                                                for p in load_jsonl(tmp_path / "4-5-c1.jsonl")])
    n = len((tmp_path / "attempts" / "log.jsonl").read_text().splitlines())
    with pytest.raises(SystemExit, match="belong to a full run"):
        run_script(script, monkeypatch, *add, "--all")
    run_script(script, monkeypatch, *add)
    new = [json.loads(x) for x in (tmp_path / "attempts" / "log.jsonl").read_text().splitlines()[n:]]
    # two new puzzles, 3 rating solvers of one seed each; the held-out puzzle's attempts were logged
    assert len(new) == 6 and {r["puzzle"] for r in new} == {p.id for p in grown[4:]}
    after = {p.id: p.rating for f in ("4-5-c1", "4-5-c2") for p in load_jsonl(tmp_path / f"{f}.jsonl")}
    assert after[held] == next(r["rating"] for r in rec["puzzles"] if r["id"] == held)
    assert all(after[p.id] == p.rating for p in ps if p.id != held)  # the others as they were
    assert all(300 <= after[p.id] <= 3500 for p in grown[4:])
    if held_set == "4-5-c2":
        assert (tmp_path / "4-5-c1.jsonl").read_text() == c1
    again = json.loads((tmp_path / "ratings-attempts.json").read_text())
    assert again["fit"] == rec["fit"] and again["overall"] == rec["overall"] and len(again["added"]) == 1
    entry = again["added"][0]
    assert entry["command"] == "python scripts/measure_ratings.py --attempts --add --write"
    assert entry["puzzles"] == 3 and set(entry["ratings"]) == {held} | {p.id for p in grown[4:]}
    assert again["sets"]["4-5-c2"]["puzzles"] == again["sets"]["4-5-c2"]["rated"] == 6
    assert again["rated_puzzles"] == again["committed_puzzles"] == 10
    # a record of a run before the fit was recorded: refused in one line
    del again["fit"]
    (tmp_path / "ratings-attempts.json").write_text(json.dumps(again))
    write_jsonl(tmp_path / "4-5-c1.jsonl", [dataclasses.replace(p, rating=None) for p in load_jsonl(tmp_path / "4-5-c1.jsonl")])
    with pytest.raises(SystemExit, match="records no fit"):
        run_script(script, monkeypatch, *add)


def _two_small_sets(tmp_path) -> dict:
    """Two small sets in ``tmp_path`` without ratings: {file: the puzzles written}."""
    sets = {}
    for name, k in (("4-5-c1", 3), ("4-5-c2", 2)):
        ps = [dataclasses.replace(p, rating=None) for p in load_jsonl(COMMITTED / f"{name}.jsonl")[:k]]
        write_jsonl(tmp_path / f"{name}.jsonl", ps)
        sets[tmp_path / f"{name}.jsonl"] = ps
    return sets


def test_written_ratings_go_to_the_puzzles_rated_in_every_set_or_none(script, tmp_path, monkeypatch):
    sets = _two_small_sets(tmp_path)
    plan = {f: {p.id: (p, 1000 + 10 * i) for i, p in enumerate(ps)} for f, ps in sets.items()}
    before = {f: f.read_text() for f in sets}
    script.write_ratings(plan)
    for f, ps in sets.items():
        assert [q.rating for q in load_jsonl(f)] == [plan[f][p.id][1] for p in ps]
        assert [json.dumps({k: v for k, v in json.loads(x).items() if k != "rating"}, ensure_ascii=False)
                for x in f.read_text().splitlines()] == before[f].splitlines()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["4-5-c1.jsonl", "4-5-c2.jsonl"]  # no lock, no temporary file
    written = {f: f.read_bytes() for f in sets}
    # the second set rebuilt since the run read it: its first id is now another puzzle's; the
    # first set, whose records all match, is not written either
    second = tmp_path / "4-5-c2.jsonl"
    other = dataclasses.replace(load_jsonl(COMMITTED / "4-5-c2.jsonl")[10], id=sets[second][0].id)
    write_jsonl(second, [other] + load_jsonl(second)[1:])
    rebuilt = second.read_bytes()
    again = {f: {i: (p, r + 1) for i, (p, r) in ratings.items()} for f, ratings in plan.items()}
    with pytest.raises(ValueError, match=f"4-5-c2.jsonl, line 1: {other.id} is not the puzzle that was rated"):
        script.write_ratings(again)
    assert (tmp_path / "4-5-c1.jsonl").read_bytes() == written[tmp_path / "4-5-c1.jsonl"]
    assert second.read_bytes() == rebuilt
    # a rename that fails after the first set's: the first is put back
    second.write_bytes(written[second])
    real, renamed = os.replace, []

    def replace(tmp, path):  # the second set's rename fails, after the first set's
        if Path(path) == second:
            raise OSError(28, "No space left on device")
        renamed.append(Path(path))
        real(tmp, path)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="No space left"):
        script.write_ratings(again)
    monkeypatch.undo()
    # the first set was renamed, then written back
    assert {f: f.read_bytes() for f in sets} == written and renamed == [tmp_path / "4-5-c1.jsonl"] * 2
    assert sorted(x.name for x in tmp_path.iterdir()) == ["4-5-c1.jsonl", "4-5-c2.jsonl"]


def test_ratings_are_not_written_into_a_set_another_run_holds(script, tmp_path):
    from solver.util.files import ExclusiveLock

    sets = _two_small_sets(tmp_path)
    before = {f: f.read_bytes() for f in sets}
    with ExclusiveLock(str(tmp_path / "4-5-c2.jsonl") + ".lock"):
        with pytest.raises(ValueError, match="in use: another run"):
            script.write_ratings({f: {p.id: (p, 1500) for p in ps} for f, ps in sets.items()})
    assert {f: f.read_bytes() for f in sets} == before


def test_the_script_refuses_in_one_line_to_write_ratings_into_a_set_rebuilt_during_the_run(script, tmp_path,
                                                                                          monkeypatch):
    from puzzles import attempts

    sets = _two_small_sets(tmp_path)
    second = tmp_path / "4-5-c2.jsonl"
    other = dataclasses.replace(load_jsonl(COMMITTED / "4-5-c2.jsonl")[10], id=sets[second][0].id, rating=None)
    real = attempts.rate

    def rate_after_a_rebuild(*a, **k):  # the set is rebuilt after the attempts ran, before the ratings are written
        write_jsonl(second, [other] + sets[second][1:])
        return real(*a, **k)

    monkeypatch.setattr(attempts, "rate", rate_after_a_rebuild)
    first = (tmp_path / "4-5-c1.jsonl").read_bytes()
    with pytest.raises(SystemExit) as e:
        run_script(script, monkeypatch, "--attempts", "--all", "--write", "--per-set", "2", "--max-playouts", "16",
                   "--read-budget", "100", "--rating-solvers", "policy-t0", "--held-solvers", "read-n30")
    assert str(e.value) == (f"measure_ratings: cannot write the ratings: 4-5-c2.jsonl, line 1: {other.id} is not the "
                            "puzzle that was rated (its position, target or n differ: the set changed since the run "
                            "read it); no set written")
    assert (tmp_path / "4-5-c1.jsonl").read_bytes() == first
    assert load_jsonl(second) == [other] + sets[second][1:] and not (tmp_path / "ratings-attempts.json").exists()


def _no_cpu(path: Path) -> list:
    """The rows of an attempts log without their CPU times, in one order."""
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    return sorted(json.dumps({k: v for k, v in r.items() if k != "cpu"}, sort_keys=True) for r in rows)


@pytest.mark.subprocess
def test_the_attempts_run_in_workers_as_in_this_process(script, tmp_path, monkeypatch):
    write_jsonl(tmp_path / "4-5-c1.jsonl", load_jsonl(COMMITTED / "4-5-c1.jsonl")[:3])
    args = ("--attempts", "--per-set", "2", "--max-playouts", "16", "--read-budget", "5000",
            "--rating-solvers", "policy-t0,policy-t1", "--held-solvers", "read-n300")
    logs = tmp_path / "logs"  # not beside the sets, which are every *.jsonl there
    run_script(script, monkeypatch, *args, "--log", str(logs / "one.jsonl"))
    one = json.loads((tmp_path / "ratings-attempts.json").read_text())
    run_script(script, monkeypatch, *args, "--jobs", "2", "--log", str(logs / "two.jsonl"))
    two = json.loads((tmp_path / "ratings-attempts.json").read_text())
    assert len(_no_cpu(logs / "one.jsonl")) >= 2 * 5  # 2 puzzles sampled: policy-t0 once, policy-t1 4 times
    assert _no_cpu(logs / "one.jsonl") == _no_cpu(logs / "two.jsonl")
    assert one["puzzles"] == two["puzzles"] and one["overall"] == two["overall"]


@pytest.mark.subprocess
def test_a_worker_stopped_from_outside_is_a_broken_pool(script):
    from concurrent.futures.process import BrokenProcessPool

    with pytest.raises(BrokenProcessPool):
        list(script._rows([3], 2, work=os._exit))  # the worker ends as a kill -9 would end it


def test_a_broken_pool_is_one_line_and_the_log_keeps_what_ran(script, tmp_path, monkeypatch, capsys):
    from concurrent.futures.process import BrokenProcessPool

    write_jsonl(tmp_path / "4-5-c1.jsonl", load_jsonl(COMMITTED / "4-5-c1.jsonl")[:2])
    real = script._rows

    def broken(todo, jobs):
        rows = real(todo, 1)
        yield next(rows)
        raise BrokenProcessPool("A process in the process pool was terminated abruptly")

    monkeypatch.setattr(script, "_rows", broken)
    with pytest.raises(SystemExit) as e:
        run_script(script, monkeypatch, "--attempts", "--per-set", "2", "--max-playouts", "16",
                   "--rating-solvers", "policy-t0", "--held-solvers", "policy-t1", "--jobs", "2")
    assert str(e.value).strip() == ("measure_ratings: stopped: a worker process was stopped from outside (killed, "
                                    "or out of memory); the attempts run so far are in the log, and the same "
                                    "command goes on from there")
    assert len((tmp_path / "attempts" / "log.jsonl").read_text().splitlines()) == 1
    assert not (tmp_path / "ratings-attempts.json").exists()
