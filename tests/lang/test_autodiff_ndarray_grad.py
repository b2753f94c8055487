"""`x.grad[i]` of a `qd.types.ndarray()` argument inside a kernel (Quadrants' tensor API tests read and
write it), and Quadrants' refusal to differentiate such a kernel."""
import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_a_kernel_reads_and_writes_an_ndarrays_gradient():
    a = qd.ndarray(qd.f32, shape=4, needs_grad=True)
    total = qd.ndarray(qd.f32, shape=())

    @qd.kernel
    def write_grad(x: qd.types.ndarray()):
        for i in range(4):
            x.grad[i] = i * 100.0

    @qd.kernel
    def sum_grad(x: qd.types.ndarray(), s: qd.types.ndarray()):
        for i in x:
            s[None] += x.grad[i]

    write_grad(a)
    assert a.grad.to_numpy().tolist() == [0.0, 100.0, 200.0, 300.0]
    sum_grad(a, total)
    assert total[None] == 600.0
    b = qd.ndarray(qd.f32, shape=(), needs_grad=True)
    sum_grad(a, b)
    with pytest.raises(RuntimeError, match=r"Cannot automatically differentiate through a grad tensor") as e:
        sum_grad.grad(a, b)
    assert e.value.line == sum_grad.line + 3
    np.testing.assert_array_equal(a.to_numpy(), np.zeros(4))
