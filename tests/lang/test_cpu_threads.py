"""`qd.init(cpu_max_num_threads=N)`: Quadrants runs a CPU loop on at most N threads; programs whose
answer depends on the order of float atomics or on a race pass 1 to get one answer run after run
(a ported mass-spring simulation does). It was accepted here and not applied."""
import numpy as np

import qdexplorer.lang as qd


def _order_sensitive_sum() -> float:
    n = 1 << 16
    x = qd.field(qd.f32, shape=n)
    total = qd.field(qd.f32, shape=())

    @qd.kernel
    def acc():
        for i in range(n):
            total[None] += x[i]

    vals = np.random.default_rng(0).standard_normal(n).astype(np.float32) * np.float32(1e4)
    x.from_numpy(vals)
    acc()
    return float(total[None]), vals


def test_one_thread_adds_in_index_order():
    qd.init(arch=qd.cpu, cpu_max_num_threads=1)
    got, vals = _order_sensitive_sum()
    want = np.float32(0)
    for v in vals:
        want = np.float32(want + v)
    assert got == float(want)


def test_a_bad_thread_count_is_refused():
    import pytest
    with pytest.raises(ValueError, match="cpu_max_num_threads"):
        qd.init(arch=qd.cpu, cpu_max_num_threads=0)
