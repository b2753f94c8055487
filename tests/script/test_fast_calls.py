"""The script call path's plan per signature: after the first (checked) call with a given
signature, later calls skip the checks whose verdict only the signature decides, and still refuse
what the checked path refuses, with the same messages."""
import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer import script
from qdexplorer.lang.calls.arg_check import ArgumentError
from qdexplorer.ir.errors import QuadrantsRuntimeTypeError

F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)


@qd.kernel
def axpy(x: F1, y: F1, alpha: qd.f32):
    for i in range(x.shape[0]):
        y[i] = alpha * x[i] + y[i]


@qd.kernel
def first_n(y: F1, n: qd.i32, v: qd.f32):
    for i in range(n):
        y[i] = v


def checked_calls(monkeypatch) -> list:
    seen: list = []
    real = script.check_call_args

    def spy(*a, **k):
        seen.append(a[0])
        return real(*a, **k)
    monkeypatch.setattr(script, "check_call_args", spy)
    return seen


def test_second_call_takes_the_plan(monkeypatch):
    qd.init(arch=qd.cpu)
    seen = checked_calls(monkeypatch)
    x, y = qd.ndarray(qd.f32, shape=(64,)), qd.ndarray(qd.f32, shape=(64,))
    x.fill(2.0)
    for _ in range(5):
        axpy(x, y, 1.5)
    assert seen == ["axpy"]  # only the first call was checked
    np.testing.assert_allclose(y.to_numpy(), 15.0)
    xs, ys = np.ones(8, np.float32), np.zeros(8, np.float32)
    axpy(xs, ys, 2)  # another signature (NumPy arrays; an int for the f32): checked once more
    axpy(xs, ys, 2)
    assert seen == ["axpy", "axpy"]
    np.testing.assert_allclose(ys, 4.0)


def test_new_range_values_are_checked_again(monkeypatch):
    qd.init(arch=qd.cpu)
    seen = checked_calls(monkeypatch)
    y = np.zeros(10, np.float32)
    first_n(y, 4, 1.0)
    first_n(y, 4, 2.0)
    assert len(seen) == 1
    with pytest.raises(ArgumentError, match=r"has shape \(10,\), but .* over range\(0, 100\)"):
        first_n(y, 100, 3.0)
    first_n(y, 10, 3.0)
    np.testing.assert_allclose(y, 3.0)


def test_refusals_after_a_plan_keep_their_messages():
    qd.init(arch=qd.cpu)
    y = np.zeros(10, np.float32)
    first_n(y, 4, 1.0)
    with pytest.raises(QuadrantsRuntimeTypeError, match="got the float 4.0"):
        first_n(y, 4.0, 1.0)
    with pytest.raises(ArgumentError, match="does not fit in i32"):
        first_n(y, 2**40, 1.0)
    with pytest.raises(ArgumentError, match="must be a number"):
        first_n(y, 4, "a")
    with pytest.raises(QuadrantsRuntimeTypeError, match="must have dtype float32, got float64"):
        first_n(np.zeros(10), 4, 1.0)
    ro = np.zeros(10, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ArgumentError, match="is read-only"):
        first_n(ro, 4, 1.0)
    with pytest.raises(ArgumentError, match="C-contiguous"):
        first_n(np.zeros(20, np.float32)[::2], 4, 1.0)
    first_n(y, 4, np.float32(5.0))  # a NumPy scalar converts, as on the checked path
    assert y[0] == 5.0


def test_fields_templates_and_random_keys():
    qd.init(arch=qd.cpu, random_seed=3)
    f = qd.field(qd.f32, shape=16)
    r = qd.field(qd.f32, shape=16)

    @qd.kernel
    def bump(k: qd.template(), by: qd.f32):
        for i in range(16):
            f[i] += by * k
            r[i] = qd.random()

    draws = []
    for _ in range(3):
        bump(2, 0.5)
        draws.append(r.to_numpy())
    bump(3, 1.0)  # another template value: its own specialisation
    np.testing.assert_allclose(f.to_numpy(), 3 * 2 * 0.5 + 3.0)
    assert not np.array_equal(draws[0], draws[1]) and not np.array_equal(draws[1], draws[2])


def test_parallel_chunks_cover_the_range():
    qd.init(arch=qd.cpu)
    n = (1 << 17) + 3  # over the parallel threshold, not a multiple of the thread count
    x, y = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
    for _ in range(2):
        axpy(x, y, 1.0)
    np.testing.assert_array_equal(y, 2 * x)


@pytest.mark.cuda
def test_cuda_plan_queues_and_refuses_aliases():
    qd.init(arch=qd.cuda)
    x, y = qd.ndarray(qd.f32, shape=(1 << 16,)), qd.ndarray(qd.f32, shape=(1 << 16,))
    x.fill(1.0)
    for _ in range(50):  # queued: no wait per call; qd.sync() and the read order after them
        axpy(x, y, 1.0)
    qd.sync()
    assert y[5] == 50.0
    np.testing.assert_allclose(y.to_numpy(), 50.0)
    with pytest.raises(ArgumentError, match="are the same device memory"):
        axpy(y, y, 1.0)
    before = script.runner().device.backend.memory.transfers["dtoh"]
    axpy(x, y, 1.0)
    assert y[7] == 51.0
    assert script.runner().device.backend.memory.transfers["dtoh"] - before <= 4  # one element came back


@pytest.mark.cuda
def test_cuda_plan_with_torch_tensors():
    torch = pytest.importorskip("torch")
    qd.init(arch=qd.cuda)
    x = torch.ones(4096, device="cuda")
    y = torch.zeros(4096, device="cuda")
    for _ in range(10):
        axpy(x, y, 2.0)
    assert float(y.sum()) == 4096 * 20.0  # torch's stream is ordered after our queued kernels
    with pytest.raises(ArgumentError, match="are the same device memory"):
        axpy(y, y[0:4096], 1.0)
