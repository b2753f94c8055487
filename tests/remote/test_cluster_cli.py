"""`devices`, `sweep` and `compare --a-device/--b-device` against a Ray cluster, as a user runs them
(the CLI's main() in this process, which shares the test cluster's connection)."""
import json

import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install '.[test]')")

from qdexplorer.bench.history import History
from qdexplorer.bench.sweep import load_sweep
from qdexplorer.cli import main
from qdexplorer.project.data_folder import history_path
from qdexplorer.remote import cluster

from .projects import TASK, scale_project


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_devices_on_a_cpu_only_cluster_says_so(capsys, cluster_address):
    code, out, _ = run_cli(capsys, "devices", "--cluster", cluster_address, "--json")
    assert code == 0
    (node,) = json.loads(out)["nodes"]
    assert node["cpus"] >= 2 and node["gpus"] == [] and node["node_id"]
    code, out, _ = run_cli(capsys, "devices", "--cluster", cluster_address)
    assert code == 0 and "no NVIDIA GPU (CPU only)" in out and node["host"] in out


def test_a_sweep_over_two_actors_saves_one_run_per_variant_and_device(tmp_path, capsys, cluster_address):
    proj = scale_project(tmp_path / "p")
    code, out, err = run_cli(capsys, "sweep", proj, "--cluster", cluster_address, "--backend", "cpu", "--gpus", 2,
                             "--over", "block_dim=64,256", "--rounds", 4, "--repeat", 2, "--save", "s1",
                             "--cache-dir", tmp_path / "c", "--json")
    assert code == 0, err
    out = json.loads(out)
    assert out["default"] == "block_dim=128" and [v["label"] for v in out["variants"]] == \
        ["block_dim=128", "block_dim=64", "block_dim=256"]
    # each variant on one of the two actors, and the default on both: what each variant is compared with
    devices = {r["variant"]: r["device"] for r in out["runs"] if r["variant"] != "block_dim=128"}
    assert len(set(devices.values())) == 2 and len(out["devices"]) == 2
    assert sorted(r["device"] for r in out["runs"] if r["variant"] == "block_dim=128") == sorted(out["devices"])
    cells = [c for c in out["cells"] if c["task"] == TASK]
    assert len(cells) == 4 and sum(c["best"] for c in cells) == 1
    assert all(c["median_ms"] > 0 for c in cells)
    assert all(c["ci"][0] is not None for c in cells if c["verdict"] != "default")

    with History(history_path(proj)) as h:
        saved = {s.label: s for s in h.list()}
        assert len(saved) == 4 and all(s.status == "complete" and s.launches == 4 * 2 for s in saved.values())
        run = h.load(f"s1:block_dim=64@{devices['block_dim=64']}")
        assert run.context.extra["variant"] == {"block_dim": 64} and run.context.extra["sweep"] == "s1"
        assert run.context.extra["placement"]["cluster"] == cluster_address and run.context.rounds == 4
        again = load_sweep(h, "s1")
    assert [c.to_dict() for c in again.cells()] == out["cells"]   # a saved sweep reads back as it was shown
    code, text, _ = run_cli(capsys, "sweep", proj, "--show", "s1")
    assert code == 0 and "block_dim=256" in text and "(default)" in text
    code, _, err = run_cli(capsys, "sweep", proj, "--cluster", cluster_address, "--over", "block_dim=64",
                           "--save", "s1", "--cache-dir", tmp_path / "c")
    assert code == 2 and "already holds a sweep named 's1'" in err   # refused before measuring


def test_compare_runs_each_side_on_its_own_device(tmp_path, capsys, cluster_address):
    proj = scale_project(tmp_path / "p")
    cluster.connect(cluster_address)
    host = cluster.nodes()[0].host
    code, out, err = run_cli(capsys, "compare", proj, "now", "now", "--cluster", cluster_address, "--backend", "cpu",
                             "--a-device", "local", "--b-device", host, "--rounds", 3, "--repeat", 2,
                             "--save", "ab", "--cache-dir", tmp_path / "c", "--json")
    assert code == 0, err
    cmp = json.loads(out)
    assert cmp["a"] == "ab-A" and cmp["b"] == "ab-B" and cmp["paired"]
    assert [t["task"] for t in cmp["tasks"]] == [TASK]
    with History(history_path(proj)) as h:
        a, b = h.load("ab-A"), h.load("ab-B")
    assert a.context.interleaved_with == f"now@{host}" and b.context.interleaved_with == "now@local"
    assert "placement" not in a.context.extra   # this machine, no Ray
    assert b.context.extra["placement"]["cluster"] == cluster_address and b.context.extra["placement"]["host"] == host
    code, _, err = run_cli(capsys, "compare", proj, "ab-A", "ab-B", "--a-device", "0")
    assert code == 2 and "saved runs keep the device" in err
    code, _, err = run_cli(capsys, "compare", proj, "now", "now", "--cluster", cluster_address, "--backend", "cpu",
                           "--a-device", "0")
    assert code == 2 and "runs on a node's CPUs" in err
