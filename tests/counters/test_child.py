"""The profiled process itself, for real: the device worker's load-and-launch path in a child process
(on the CPU backend here; under ncu it is the same code with CUDA), and its one-line errors."""
import dataclasses
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np

from qdexplorer.counters import command
from qdexplorer.counters.child import ERROR_PREFIX
from qdexplorer.counters.collect import replay_warning, writable_bytes
from qdexplorer.engine import Engine
from qdexplorer.lang.calls.bounds import trip_counts
from qdexplorer.runtime.device_api import LoadItem, RunJob

ROOT = Path(__file__).resolve().parents[2]


def _request(tmp_path, break_code=False):
    with Engine(None, in_process=True) as eng:
        kts, compiled = eng.compile(["saxpy"], target="host")
        args = eng.project.workload("saxpy_1m").make_args(0)
    items = [LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit, ct.final_kind) for ct in compiled]
    if break_code:   # a module without the task's entry point: a load error (garbage machine code would crash)
        items = [dataclasses.replace(it, spec=dataclasses.replace(it.spec, task=it.spec.task + "_missing"),
                                     unit=it.spec.task + "_missing") for it in items]
    job = RunJob("saxpy_1m", "saxpy", tuple(ct.task for ct in compiled), trip_counts(kts[0].tasks, args))
    path = tmp_path / "req.pkl"
    with open(path, "wb") as f:
        pickle.dump({"backend": "cpu", "items": items, "job": job, "args": args, "task": compiled[0].task}, f)
    return path


def _child(path):
    return subprocess.run([sys.executable, "-m", "qdexplorer.counters.child", str(path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_child_loads_and_launches_once(tmp_path):
    p = _child(_request(tmp_path))
    assert p.returncode == 0, p.stdout + p.stderr
    assert ERROR_PREFIX not in p.stdout and "Traceback" not in p.stderr


def test_child_failure_is_one_line_the_parent_reports(tmp_path):
    p = _child(_request(tmp_path, break_code=True))
    assert p.returncode == 2 and "Traceback" not in p.stdout + p.stderr
    out = command.classify(p.returncode, p.stdout, tmp_path / "none.ncu-rep")
    assert out.state == command.FAILED
    assert out.message.startswith("the task did not run under ncu: saxpy_kernel_0_range_for_missing: load failed")


def test_large_writable_data_is_warned_about():
    small = {"x": np.zeros(1 << 10, np.float32)}
    big = {"x": np.zeros(80 << 20, np.float32)}          # 320 MiB
    ro = np.zeros(80 << 20, np.float32)
    ro.flags.writeable = False                            # read-only inputs are not saved and restored
    assert replay_warning(small, 20) == "" and replay_warning({"x": ro}, 20) == ""
    assert writable_bytes(big) == 320 << 20
    assert "320 MiB" in replay_warning(big, 20) and "20 replay passes" in replay_warning(big, 20)
