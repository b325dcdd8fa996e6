"""scripts/bench_fast_generation.py's "today's" rate: the committed set's first run."""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _script():
    spec = importlib.util.spec_from_file_location("bench_fast_generation", ROOT / "scripts" / "bench_fast_generation.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_todays_rate_is_the_run_that_began_the_set(tmp_path, monkeypatch):
    mod = _script()
    monkeypatch.setattr(mod, "ROOT", str(tmp_path))
    folder = tmp_path / "results" / "puzzles"
    folder.mkdir(parents=True)
    assert mod.committed_rate("6/7", 6) is None  # no state file
    first = {"method": "extend", "seed": 1, "units": 10, "found_dual_free": 3, "cpu_seconds": 90.0}
    state = folder / "6-7-c6.jsonl.state.json"
    state.write_text(json.dumps(first))
    alone = mod.committed_rate("6/7", 6)
    assert alone["dual_free_per_cpu_minute"] == 2.0 and alone["units"] == 10
    state.write_text(json.dumps(dict(first, units=5, found_dual_free=9, cpu_seconds=60.0, earlier=[first])))
    assert mod.committed_rate("6/7", 6) == alone  # the later run does not change today's rate
