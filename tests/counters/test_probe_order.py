"""Issue 42: the root cause first. On a machine without a GPU, counters said to install Nsight Compute, then its
report reader, before saying there is no GPU (which `qdexplorer info` knew): no GPU, then no ncu, then no reader."""
import sys

import pytest

from qdexplorer.counters import probe
from qdexplorer.runtime.cuda import detect


@pytest.fixture
def machine(monkeypatch, tmp_path):
    """Set what this machine has: a GPU, an ncu, the report reader."""
    def have(gpu: bool, ncu: bool, reader: bool):
        status = detect.CudaStatus(True, name="a GPU", arch="sm_90") if gpu else \
            detect.CudaStatus(False, reason="no NVIDIA driver (libcuda.so.1 not found)")
        monkeypatch.setattr(detect, "_status", [status])
        monkeypatch.setattr(probe, "find_ncu", lambda setting=None: tmp_path / "ncu" if ncu else None)
        monkeypatch.setattr(probe, "ncu_version", lambda path: "2025.1")
        monkeypatch.setitem(sys.modules, "ncu_report", object() if reader else None)
        monkeypatch.setattr(probe, "admin_only", lambda: False)
        probe.forget()
    yield have
    probe.forget()


@pytest.mark.parametrize("gpu, ncu, reader, state, words", [
    (False, False, False, probe.NO_GPU, "no NVIDIA GPU to profile on: no NVIDIA driver"),
    (False, True, False, probe.NO_GPU, "no NVIDIA GPU"),
    (False, False, True, probe.NO_GPU, "no NVIDIA GPU"),
    (True, False, False, probe.NO_NCU, "Nsight Compute (ncu) was not found"),
    (True, True, False, probe.NO_READER, "report reader"),
    (True, True, True, probe.OK, ""),
])
def test_the_root_cause_is_said_first(machine, gpu, ncu, reader, state, words):
    machine(gpu, ncu, reader)
    cap = probe.probe()
    assert cap.state == state and words in cap.message


def test_the_cpu_backend_on_a_machine_without_a_gpu_says_no_gpu(machine):
    machine(False, True, True)
    assert "no NVIDIA GPU" in probe.probe(backend="cpu").message
    machine(True, True, True)
    assert "need the cuda backend" in probe.probe(backend="cpu").message


def test_quadrants_counters_without_a_gpu_nor_quadrants_say_no_gpu_first(machine, monkeypatch, tmp_path, capsys):
    import importlib.util

    from qdexplorer.cli import main
    machine(False, False, False)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "quadrants" else real(name, *a))
    script = tmp_path / "prog.py"
    script.write_text("print('hi')\n")
    rc = main(["quadrants", str(script), "--counters", "saxpy_kernel_0_range_for"])
    out, err = capsys.readouterr()
    assert rc == 3 and "no NVIDIA GPU" in out and "not installed" not in out + err
    machine(True, True, True)
    rc = main(["quadrants", str(script), "--counters", "saxpy_kernel_0_range_for"])
    assert rc == 2 and "Quadrants is not installed" in capsys.readouterr().err   # now the root cause
