"""scripts/bench_two_cores.py: one search alone, then two at once; the shares and the ceiling from their rates."""

import importlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_two_searches_at_once_and_the_ceiling_of_their_speed_up(tmp_path, monkeypatch, capsys):
    # imported by name, as the spawned searches import it again
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    mod = importlib.import_module("bench_two_cores")
    out = tmp_path / "two.json"
    monkeypatch.setattr(sys, "argv", ["bench_two_cores.py", "--position", "3/4/5/6/L4/4/3 D", "--seconds", "1",
                                      "--tt-mb", "16", "--out", str(out)])
    assert mod.main() == 0
    r = json.loads(out.read_text())
    assert r["command"].startswith("python scripts/bench_two_cores.py --position") and r["revision"]
    runs = [r["alone"], *r["two_at_once"]]
    assert len(runs) == 3 and all(x["value"] == "unknown" and x["nodes"] > 0 and x["seconds"] >= 0.5 for x in runs)
    assert all(abs(x["rate"] * x["seconds"] - x["nodes"]) <= 1e-3 * x["nodes"] for x in runs)  # seconds rounded
    assert r["shares"] == [round(x["rate"] / r["alone"]["rate"], 3) for x in r["two_at_once"]]
    assert r["ceiling"] == round(sum(r["shares"]), 3)
    assert f"ceiling of a 2-process speed-up {r['ceiling']:.2f}x" in capsys.readouterr().out
    monkeypatch.setattr(sys, "argv", ["bench_two_cores.py", "--seconds", "0"])
    assert mod.main() == 2 and "--seconds must be" in capsys.readouterr().err
