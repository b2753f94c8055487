"""`qdexplorer sweep --counters`: each variant of each task profiled once, beside the times (a fake ncu)."""
import json

from qdexplorer.cli import main

from .conftest import TASK


def test_sweep_shows_counters_per_variant(fake_ncu, tmp_path, capsys):
    fake_ncu.mode("good")
    rc = main(["sweep", "--over", "block_dim=64,128", "--workload", "saxpy_1m", "--rounds", "1", "--repeat", "1",
               "--no-save", "--counters", "quick", "--json", "--in-process"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    rows = {(r["task"], r["variant"]): r for r in out["counters"]}
    assert set(rows) == {(TASK, "block_dim=64"), (TASK, "block_dim=128")}
    assert all(r["state"] == "ok" and r["occ_achieved"] > 0 and r["registers"] == 24 for r in rows.values())
    # each variant is its own launch configuration: two profiles, not one served twice from the cache
    assert len(fake_ncu.calls()) == 2


def test_sweep_counters_without_ncu_still_show_ptxas_occupancy(tmp_path, monkeypatch, capsys):
    from qdexplorer.counters import locate, probe
    monkeypatch.setattr(locate, "candidates", lambda setting=None: [tmp_path / "ncu"])
    probe.forget()
    try:
        rc = main(["sweep", "--over", "block_dim=64,1024", "--workload", "saxpy_1m", "--rounds", "1", "--repeat", "1",
                   "--no-save", "--counters", "quick", "--in-process"])
    finally:
        probe.forget()
    text = capsys.readouterr().out
    from qdexplorer.runtime.cuda.detect import cuda_status
    why = "Nsight Compute (ncu) was not found" if cuda_status().available else "no NVIDIA GPU"   # the root cause first
    assert rc == 0 and "Counters per variant" in text and f"no counters: {why}" in text
    assert "block_dim=1024" in text and "block_dim=64" in text
