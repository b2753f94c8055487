"""Read-only arrays are never written through (issue 21): a kernel that writes one is refused with
the argument named, in scripts and workloads alike; a kernel that only reads one runs."""
import textwrap

import numpy as np
import pytest

from qdexplorer.engine import Engine
from qdexplorer.lang.calls.arg_check import ArgumentError


def _kernels(qd):
    @qd.kernel
    def fill(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = 7.0

    @qd.kernel
    def bump(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(x.shape[0]):
            qd.atomic_add(x[0], 1)

    @qd.kernel
    def copy(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            y[i] = x[i] * 2.0

    return fill, bump, copy


def test_a_kernel_that_writes_a_read_only_array_is_refused(arch):
    fill, bump, _ = _kernels(arch)
    x = np.zeros(8, np.float32)
    x.flags.writeable = False
    for _ in range(2):  # the second call takes the remembered-trip-count path
        with pytest.raises(ArgumentError, match="'x' is read-only.*writes it"):
            fill(x)
    assert not x.any()
    raw = bytes(16)
    with pytest.raises(ArgumentError, match="'x' is read-only"):
        fill(np.frombuffer(raw, np.float32))
    assert raw == bytes(16)
    with pytest.raises(ArgumentError, match="'x' is read-only"):  # an atomic is a write too
        bump(np.frombuffer(bytes(16), np.int32))


def test_a_read_only_input_that_is_only_read_runs(arch):
    _, _, copy = _kernels(arch)
    raw = np.arange(8, dtype=np.float32).tobytes()
    x = np.frombuffer(raw, np.float32)
    y = np.zeros(8, np.float32)
    copy(x, y)
    copy(x, y)
    np.testing.assert_array_equal(y, np.arange(8) * 2.0)
    assert raw == np.arange(8, dtype=np.float32).tobytes()


WORKLOADS = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    @qd.kernel
    def fill(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = 7.0

    @qd.kernel
    def copy(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            y[i] = x[i] * 2.0

    def frozen(n):
        a = np.arange(n, dtype=np.float32)
        a.flags.writeable = False
        return a

    @qd.workload(fill)
    def writes_frozen(rng):
        return dict(x=frozen(8))

    @qd.workload(copy, check=lambda b, a: np.testing.assert_array_equal(a["y"], b["x"] * 2))
    def reads_frozen(rng):
        return dict(x=frozen(8), y=np.zeros(8, np.float32))
    """)


@pytest.mark.parametrize("in_process", [True, False])
def test_workloads_refuse_writes_and_accept_reads(tmp_path, in_process):
    (tmp_path / "k.py").write_text(WORKLOADS)
    with Engine(tmp_path, in_process=in_process) as eng:
        res = {r.workload: r for r in eng.run(["writes_frozen", "reads_frozen"])}
    assert res["writes_frozen"].status == "error"
    assert "'x' is read-only" in res["writes_frozen"].error
    assert res["reads_frozen"].ok, res["reads_frozen"].error or res["reads_frozen"].check_error
