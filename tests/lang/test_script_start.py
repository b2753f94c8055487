"""What a script's start costs before its first result: no helper process on the CPU backend.

Probing for a GPU runs `cuInit` in a child interpreter (the app process must never own a CUDA
context); a script on the CPU needs no SM arch at all, and a script on CUDA owns its context
anyway. The child probe took 1.3 s of a 2-3 s first result on the upstream programs.
"""
import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.runtime.cuda import detect


@pytest.fixture
def no_child_probe(monkeypatch):
    monkeypatch.setattr(detect, "_status", [])   # nothing probed yet in this process

    def refuse(*a, **k):
        raise AssertionError("a child process was started to probe for a GPU")
    monkeypatch.setattr(detect, "_probe_in_child", refuse)
    yield
    qd.reset()


@qd.kernel
def double(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        x[i] = x[i] * 2.0


def test_a_cpu_script_starts_no_probe_process(no_child_probe):
    qd.init(arch=qd.cpu)
    x = np.arange(4, dtype=np.float32)
    double(x)
    np.testing.assert_array_equal(x, [0, 2, 4, 6])


def test_a_gpu_script_probes_in_its_own_process(no_child_probe, monkeypatch):
    monkeypatch.setattr(detect, "probe_here", lambda: detect.CudaStatus(False, "no GPU in this test"))
    with pytest.warns(UserWarning, match="no GPU in this test"):
        assert qd.init(arch=qd.gpu) == qd.cpu
    x = np.arange(4, dtype=np.float32)
    double(x)
    np.testing.assert_array_equal(x, [0, 2, 4, 6])


def test_importing_the_language_loads_no_compiler_gpu_or_scipy():
    """`import qdexplorer.lang` is every script's first line: what it loads is paid before any result.
    LLVM, CUDA and the script layer come with the first call; SciPy only with a sparse matrix (its
    import was 0.3-3 s of a 1-2 s first result once qd.linalg's sparse solvers imported it)."""
    import subprocess
    import sys
    code = ("import sys, qdexplorer.lang as qd; "
            "print(sorted(m for m in ('scipy', 'llvmlite', 'cuda', 'qdexplorer.script', 'qdexplorer.compiler') "
            "if m in sys.modules))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]", p.stdout
