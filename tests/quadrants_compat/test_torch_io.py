import numpy as np
import pytest

import qdexplorer.lang as qd
from tests.quadrants_compat.upstream import impl
from tests.quadrants_compat.upstream import has_pytorch

from tests.quadrants_compat import test_utils

if has_pytorch():
    import torch

pytestmark = pytest.mark.needs_torch


@pytest.mark.skipif(not has_pytorch(), reason="Pytorch not installed.")
@test_utils.test()
def test_io():
    n = 32

    @qd.kernel
    def torch_kernel(t: qd.types.ndarray(), o: qd.types.ndarray()):
        for i in range(n):
            o[i] = t[i] * t[i]

    @qd.kernel
    def torch_kernel_2(t_grad: qd.types.ndarray(), t: qd.types.ndarray(), o_grad: qd.types.ndarray()):
        for i in range(n):
            t_grad[i] = 2 * t[i] * o_grad[i]

    class Sqr(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            outp = torch.zeros_like(inp)
            ctx.save_for_backward(inp)
            torch_kernel(inp, outp)
            return outp

        @staticmethod
        def backward(ctx, outp_grad):
            outp_grad = outp_grad.contiguous()
            inp_grad = torch.zeros_like(outp_grad)
            (inp,) = ctx.saved_tensors
            torch_kernel_2(inp_grad, inp, outp_grad)
            return inp_grad

    sqr = Sqr.apply
    X = torch.tensor(2 * np.ones((n,), dtype=np.float32), requires_grad=True)
    sqr(X).sum().backward()
    ret = X.grad.cpu()
    for i in range(n):
        assert ret[i] == 4


@pytest.mark.skipif(not has_pytorch(), reason="Pytorch not installed.")
@test_utils.test()
def test_io_2d():
    n = 32

    @qd.kernel
    def torch_kernel(t: qd.types.ndarray(), o: qd.types.ndarray()):
        for i in range(n):
            for j in range(n):
                o[i, j] = t[i, j] * t[i, j]

    class Sqr(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            outp = torch.zeros_like(inp)
            torch_kernel(inp, outp)
            return outp

    sqr = Sqr.apply
    X = torch.tensor(2 * np.ones((n, n), dtype=np.float32), requires_grad=True)
    val = sqr(X).sum()
    assert val == 2 * 2 * n * n


@pytest.mark.skipif(not has_pytorch(), reason="Pytorch not installed.")
@test_utils.test()
def test_io_3d():
    n = 16

    @qd.kernel
    def torch_kernel(t: qd.types.ndarray(), o: qd.types.ndarray()):
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    o[i, j, k] = t[i, j, k] * t[i, j, k]

    class Sqr(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            outp = torch.zeros_like(inp)
            torch_kernel(inp, outp)
            return outp

    sqr = Sqr.apply
    X = torch.tensor(2 * np.ones((n, n, n), dtype=np.float32), requires_grad=True)
    val = sqr(X).sum()
    assert val == 2 * 2 * n * n * n


@pytest.mark.skipif(not has_pytorch(), reason="Pytorch not installed.")
@test_utils.test()
def test_io_simple():
    n = 32

    x1 = qd.field(qd.f32, shape=(n, n))
    t1 = torch.tensor(2 * np.ones((n, n), dtype=np.float32))

    x2 = qd.Matrix.field(2, 3, qd.f32, shape=(n, n))
    t2 = torch.tensor(2 * np.ones((n, n, 2, 3), dtype=np.float32))

    x1.from_torch(t1)
    for i in range(n):
        for j in range(n):
            assert x1[i, j] == 2

    x2.from_torch(t2)
    for i in range(n):
        for j in range(n):
            for k in range(2):
                for l in range(3):
                    assert x2[i, j][k, l] == 2

    t3 = x2.to_torch()
    assert (t2 == t3).all()


@pytest.mark.skipif(not has_pytorch(), reason="Pytorch not installed.")
@test_utils.test()
def test_device():
    n = 12
    X = qd.Matrix.field(3, 2, qd.f32, shape=(n, n, n))
    assert X.to_torch(device="cpu").device == torch.device("cpu")

    if torch.cuda.is_available():
        assert X.to_torch(device="cuda:0").device == torch.device("cuda:0")


@pytest.mark.skipif(not has_pytorch(), reason="Pytorch not installed.")
@test_utils.test()
def test_shape_matrix():
    n = 12
    x = qd.Matrix.field(3, 2, qd.f32, shape=(n, n))
    X = x.to_torch()
    for i in range(n):
        for j in range(n):
            for k in range(3):
                for l in range(2):
                    X[i, j, k, l] = i * 10 + j + k * 100 + l * 1000

    x.from_torch(X)
    X1 = x.to_torch()
    x.from_torch(X1)
    X1 = x.to_torch()

    assert (X == X1).all()


@pytest.mark.skipif(not has_pytorch(), reason="Pytorch not installed.")
@test_utils.test()
def test_shape_vector():
    n = 12
    x = qd.Vector.field(3, qd.f32, shape=(n, n))
    X = x.to_torch()
    for i in range(n):
        for j in range(n):
            for k in range(3):
                X[i, j, k] = i * 10 + j + k * 100

    x.from_torch(X)
    X1 = x.to_torch()
    x.from_torch(X1)
    X1 = x.to_torch()

    assert (X == X1).all()


@pytest.mark.skipif(not has_pytorch(), reason="Pytorch not installed.")
@test_utils.test()
def test_torch_zero():
    @qd.kernel
    def test_torch(arr: qd.types.ndarray()):
        pass

    test_torch(torch.zeros((0), dtype=torch.int32))
    test_torch(torch.zeros((0, 5), dtype=torch.int32))
    test_torch(torch.zeros((5, 0, 5), dtype=torch.int32))


@pytest.mark.skipif(not has_pytorch(), reason="Pytorch not installed.")
@test_utils.test()
def test_torch_view():
    @qd.kernel
    def copy(x: qd.types.ndarray(), y: qd.types.ndarray()):
        for i, j in x:
            y[i, j] = x[i, j]

    x = torch.Tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).T
    y = qd.ndarray(int, (3, 3))

    with pytest.raises(ValueError, match=r"Non contiguous tensors are not supported"):
        copy(x, y)
