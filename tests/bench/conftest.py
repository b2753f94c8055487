import numpy as np
import pytest

from qdexplorer.bench.context import RunContext
from qdexplorer.bench.run import Launch, Run


def make_run(name=None, tasks=("k_kernel_0_range_for", "k_kernel_1_serial"), repeat=30, scale=None, seed=0):
    """A run with known launch times: task i has median ~ (i + 1) ms, times `scale[task]`."""
    rng = np.random.default_rng(seed)
    scale = scale or {}
    launches = []
    for r in range(repeat):
        for i, t in enumerate(tasks):
            ms = (i + 1) * scale.get(t, 1.0) * (1 + 0.02 * rng.standard_normal())
            launches.append(Launch(t, "k", "k_small", r, float(ms), 64, 128))
    ctx = {"backend": "cpu", "device": "test cpu", "arch": "sm_90", "mode": "per_task",
           "timer_resolution_ms": 1e-4, "time": "2026-01-01T00:00:00+00:00", "qdexplorer": "0.1.0",
           "git": {"revision": "0123456789abcdef", "dirty": True},
           "tasks": {t: {"loaded_sha256": "ab" * 32} for t in tasks}}
    compile_ = {t: {"lower": 0.001, "codegen": 0.002, "ptx": 0.01, "cache": 0.0001, "tier": "miss"} for t in tasks}
    return Run(name, RunContext.from_dict(ctx), launches, compile_)


@pytest.fixture
def runs():
    return make_run
