"""scripts/make_puzzles.py --rerate and --rescore record each rewrite of a set in its state
file, as --themes and --only-moves do; a set they leave as it was keeps its state too."""

import json

from test_make_puzzles_interrupt import _script


def _files(tmp_path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}


def test_rerate_records_the_ratings_it_changes_and_nothing_when_none_changes(tmp_path, monkeypatch, capsys):
    mod = _script(tmp_path, monkeypatch, "--rerate")
    f = tmp_path / "4-5-c2.jsonl"
    before = _files(tmp_path)
    assert mod.main() == 0  # the committed ratings are those of the present cuts
    assert _files(tmp_path) == before
    assert "0 of 12 ratings changed" in capsys.readouterr().out
    rows = [json.loads(x) for x in f.read_text().splitlines()]
    rows[3]["difficulty"] = 1 + rows[3]["difficulty"] % 5  # a rating the cuts do not give
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert mod.main() == 0
    assert f.read_bytes() == before["4-5-c2.jsonl"]
    state = json.loads((tmp_path / "4-5-c2.jsonl.state.json").read_text())
    old = json.loads(before["4-5-c2.jsonl.state.json"])
    entry = state["rewrites"][-1]
    assert entry["what"] == "rerate" and entry["changed"] == 1 and entry["puzzles"] == 12
    assert entry["command"] == "python scripts/make_puzzles.py --rerate" and entry["revision"]
    assert state["rewrites"][:-1] == old.get("rewrites", [])
    assert {k: v for k, v in state.items() if k not in ("saved", "rewrites", "kept")} == \
        {k: v for k, v in old.items() if k not in ("saved", "rewrites", "kept")}
    assert "1 of 12 ratings changed" in capsys.readouterr().out


def test_rescore_records_its_rewrite(tmp_path, monkeypatch, capsys):
    mod = _script(tmp_path, monkeypatch, "--rescore", "--jobs", "1")
    old = json.loads((tmp_path / "4-5-c2.jsonl.state.json").read_text())
    assert mod.main() == 0
    state = json.loads((tmp_path / "4-5-c2.jsonl.state.json").read_text())
    entry = state["rewrites"][-1]
    assert entry["what"] == "rescore" and entry["puzzles"] == 12 and entry["new_lines"] >= 0
    assert entry["cpu_seconds"] > 0  # twelve proofs cost CPU; the state's vocabulary is CPU, not wall, time
    assert state["rewrites"][:-1] == old.get("rewrites", []) and state["kept"] == 12
    assert "12 puzzles re-verified" in capsys.readouterr().out


def test_rerate_and_rescore_refuse_a_set_without_a_state_file(tmp_path, monkeypatch, capsys):
    for options in (["--rerate"], ["--rescore", "--jobs", "1"]):
        mod = _script(tmp_path, monkeypatch, *options)
        (tmp_path / "4-5-c2.jsonl.state.json").unlink()
        before = _files(tmp_path)
        assert mod.main() == 1
        assert capsys.readouterr().err.endswith("4-5-c2.jsonl: no state file beside it\n")
        assert _files(tmp_path) == before
