"""Counters on a Ray device: the probe and the profile run on the device's node, not here.

The test cluster has no GPU and no ncu, so the answer comes from the node itself, naming it, with
what needs no counters still shown (registers from ptxas here, the model roofline).
"""
import os
import socket

import pytest

from qdexplorer.engine import Engine
from qdexplorer.project.loader import bundled_demo

pytest.importorskip("ray", reason="Ray is not installed (pip install '.[test]')")


def test_counters_on_a_ray_device_answer_from_its_node(cluster_address, tmp_path, monkeypatch):
    # this machine has an ncu the node has not: the answer must be the node's (and say so)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "ncu").write_text("#!/bin/sh\necho Version 2025.3.1.0\n")
    (bindir / "ncu").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    with Engine(bundled_demo(), backend="cpu", cluster=cluster_address, cache_dir=str(tmp_path / "c")) as eng:
        res = eng.counters("saxpy_kernel_0_range_for")
    assert res.state in ("no_ncu", "no_gpu") and not res.ok
    assert res.message.startswith(f"on {socket.gethostname()}"), res.message
    assert res.fallback is not None and res.fallback.roofline.model


def test_the_counters_command_takes_a_cluster_and_a_device(cluster_address, tmp_path, capsys):
    """`counters --cluster … --device …` (issue 44: the counters of one task on GPU 0 and on GPU 1):
    the profile is asked of the node the device is on; this cluster has no GPU, so its node says why."""
    import json

    from qdexplorer.cli import main
    host = socket.gethostname()
    code = main(["counters", "--task", "saxpy_kernel_0_range_for", "--cluster", cluster_address, "--device", host,
                 "--json", "--cache-dir", str(tmp_path / "c")])
    out = capsys.readouterr().out
    side = json.loads(out)["sides"]["current"]
    assert code == 3 and side["state"] in ("no_ncu", "no_gpu") and side["message"].startswith(f"on {host}"), out
