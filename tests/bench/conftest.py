import numpy as np
import pytest

from qdexplorer.bench.context import RunContext
from qdexplorer.bench.run import Launch, Run


def make_run(name=None, tasks=("k_kernel_0_range_for", "k_kernel_1_serial"), repeat=30, scale=None, seed=0,
             rounds=10, backend="cpu", round_drift=0.0, noise=0.02, offsets=None, pair=None):
    """A run with known launch times: task i has median ~ (i + 1) ms, times `scale[task]`, made in
    `rounds` blocks (None: saved before rounds were recorded); each round's launches are all moved
    by a factor exp(N(0, round_drift)) (or by `offsets[round]`), as a machine's load moves them."""
    rng = np.random.default_rng(seed)
    scale = scale or {}
    per = -(-repeat // (rounds or 1))
    n_rounds = -(-repeat // per)
    drift = offsets if offsets is not None else np.exp(round_drift * rng.standard_normal(n_rounds))
    launches = []
    for r in range(repeat):
        rnd = r // per
        for i, t in enumerate(tasks):
            ms = (i + 1) * scale.get(t, 1.0) * drift[rnd] * (1 + noise * rng.standard_normal())
            launches.append(Launch(t, "k", "k_small", r, float(ms), 64, 128, None, rnd if rounds else None))
    ctx = {"backend": backend, "device": "test cpu", "arch": "sm_90", "mode": "per_task",
           "timer_resolution_ms": 1e-4, "time": "2026-01-01T00:00:00+00:00", "qdexplorer": "0.1.0",
           "git": {"revision": "0123456789abcdef", "dirty": True}, "repeat": repeat,
           "rounds": n_rounds if rounds else None, "per_round": per if rounds else None, "pair": pair,
           "tasks": {t: {"loaded_sha256": "ab" * 32} for t in tasks}}
    compile_ = {t: {"lower": 0.001, "codegen": 0.002, "ptx": 0.01, "cache": 0.0001, "tier": "miss"} for t in tasks}
    return Run(name, RunContext.from_dict(ctx), launches, compile_)


@pytest.fixture
def runs():
    return make_run
