"""solver/jobs/scaling.py: the simulation against what can be worked out by hand, and a
trace from a real JL-PNS run."""

from __future__ import annotations

import pytest

from solver.jobs.scaling import Network, simulate

FREE = Network(bandwidth=1e30, latency=0.0)


def job(work=1.0, master=0.0, sent=0, back=0):
    return {"worker_seconds": work, "master_seconds": master, "sent_bytes": sent, "returned_bytes": back}


@pytest.mark.parametrize("workers", [1, 2, 7, 64])
def test_free_master_and_link_keep_every_worker_busy(workers):
    r = simulate([job()], workers, jobs=10 * workers, network=FREE)
    assert r["makespan"] == pytest.approx(10.0) and r["efficiency"] == pytest.approx(1.0)
    assert r["master_busy"] == 0 and r["link_busy"] == 0


def test_a_busy_master_caps_the_speed_up_at_work_over_master_time():
    # each answer takes the master 0.01 s: at most 100 jobs of 1 s a second
    r = simulate([job(master=0.01)], 256, jobs=20_000, network=FREE)
    assert r["speedup"] == pytest.approx(100, rel=0.02) and r["master_busy"] > 0.98
    few = simulate([job(master=0.01)], 16, jobs=20_000, network=FREE)
    assert few["efficiency"] > 0.98 and few["master_busy"] == pytest.approx(0.16, rel=0.02)


def test_the_link_caps_it_at_work_over_transfer_time():
    # 1 MB each way on a 100 MB/s link: 0.02 s of the link a job
    net = Network(bandwidth=1e8, latency=0.0)
    r = simulate([job(sent=1e6, back=1e6)], 200, jobs=20_000, network=net)
    assert r["speedup"] == pytest.approx(50, rel=0.02) and r["link_busy"] > 0.99


def test_latency_delays_each_job_on_one_worker():
    r = simulate([job()], 1, jobs=100, network=Network(bandwidth=1e30, latency=0.25))
    assert r["makespan"] == pytest.approx(150.0) and r["efficiency"] == pytest.approx(1 / 1.5, abs=1e-4)


def test_the_same_seed_gives_the_same_answer_and_jobs_are_drawn_from_the_trace():
    trace = [job(work=w, master=0.001) for w in (0.5, 1, 2, 4)]
    assert simulate(trace, 8, seed=3) == simulate(trace, 8, seed=3)
    # each job's answer costs the master 0.001 s, and so does sending the first
    assert simulate(trace, 1, jobs=4, network=FREE)["makespan"] == pytest.approx(7.5 + 5 * 0.001)


@pytest.mark.parametrize("trace, workers", [([], 2), ([{"worker_seconds": 1}], 2), ([job()], 0),
                                            ([job(work=-1)], 2), ([job()], True)])
def test_bad_input_is_a_value_error(trace, workers):
    with pytest.raises(ValueError):
        simulate(trace, workers)


def test_a_real_run_traces_every_job():
    from solver import Position
    from solver.jobs.jlpns import jlpns
    from solver.search.limit import Limit

    seen = []
    r = jlpns(Position.parse("1D1/4/1DL2/L2L2/5/2D1/3 L"), Limit(tt_mb=32), workers=1, job_nodes=20_000,
              trace=True, progress=lambda d: seen.append(d.get("job")))
    trace = r.stats["trace"]
    assert len(trace) == r.stats["jobs"] == len(seen) and seen == trace
    assert sum(j["nodes"] for j in trace) == r.nodes
    assert all(j["worker_seconds"] > 0 and j["master_seconds"] > 0 and j["sent_bytes"] > 100
               and j["returned_bytes"] > 100 for j in trace)
    sim = simulate(trace, 2)
    assert 0 < sim["efficiency"] <= 1


def test_the_script_reads_a_bench_report_and_writes_the_table(tmp_path, monkeypatch, capsys):
    import json

    from conftest import load_script, run_script

    report = {"revision": "abc", "position": "3/4/5/6/5/4/3 L", "ratios": {"jlpns w=2 / jlpns w=1": {"nodes": 1.3}},
              "runs": [{"run": "jlpns w=1", "trace": [job(master=0.01)] * 3},
                       {"run": "jlpns w=2", "trace": [job(master=0.01, sent=1000, back=2000)] * 5}]}
    (tmp_path / "trace.json").write_text(json.dumps(report))
    mod = load_script("simulate_jlpns", monkeypatch, tmp_path)
    out = tmp_path / "scaling.json"
    run_script(mod, monkeypatch, "--trace", str(tmp_path / "trace.json"), "--workers", "1,256", "--out", str(out))
    data = json.loads(out.read_text())
    assert data["trace_run"] == "jlpns w=2" and [r["workers"] for r in data["rows"]] == [1, 256]
    assert data["rows"][1]["master_busy"] > 0.95  # 100 jobs a second at most: saturated
    assert 90 < data["master_saturates_at_workers"] < 110
    assert data["measured_ratios"] == report["ratios"] and data["command"].startswith("python scripts/simulate_jlpns.py")
    assert "saturates near" in capsys.readouterr().out
    for argv, msg in ((["--trace", str(tmp_path / "none.json")], "cannot read"),
                      (["--trace", str(tmp_path / "trace.json"), "--run", "jlpns w=9"], "no run 'jlpns w=9'")):
        with pytest.raises(SystemExit, match=msg):
            run_script(mod, monkeypatch, *argv)
