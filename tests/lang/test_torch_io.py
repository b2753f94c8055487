"""Fields and qd.ndarrays to and from PyTorch and NumPy, as Quadrants' `to_torch`/`from_torch`,
`to_numpy(keep_dims=..., copy=...)` and vector `from_numpy` of column/row shapes."""
import numpy as np
import pytest

import qdexplorer.lang as qd


@qd.kernel
def double(x: qd.types.ndarray(dtype=qd.f32, ndim=2)):
    for i, j in qd.ndrange(x.shape[0], x.shape[1]):
        x[i, j] = 2 * x[i, j]


def test_to_torch_copies_and_from_torch_feeds_kernels(arch):
    torch = pytest.importorskip("torch")
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    f = qd.field(qd.f32, shape=(3, 4))
    f.from_torch(torch.from_numpy(a).requires_grad_())      # a tensor that requires grad is copied as data
    double(f)
    t = f.to_torch()
    assert t.dtype == torch.float32 and t.device.type == "cpu"
    np.testing.assert_array_equal(t.numpy(), 2 * a)
    t[0, 0] = -1.0                                           # a copy: the field does not change
    assert f[0, 0] == 0.0
    nd = qd.Vector.ndarray(3, qd.i32, shape=(2,))
    nd.from_torch(torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.int32))
    np.testing.assert_array_equal(nd.to_torch(device="cpu").numpy(), [[1, 2, 3], [4, 5, 6]])
    assert nd.to_torch(keep_dims=True).shape == (2, 3, 1)


def test_copy_false_shares_the_host_storage_on_the_cpu(cpu):
    pytest.importorskip("torch")
    f = qd.field(qd.f32, shape=(2, 4))
    view, tview = f.to_numpy(copy=False), f.to_torch(copy=False)
    double(f)
    view[1, 2] = 3.0                                         # a kernel sees a write through the view
    double(f)
    assert f[1, 2] == 6.0 and tview[1, 2].item() == 6.0
    with pytest.raises(ValueError, match="device transfer"):
        f.to_torch(device="meta", copy=False)


@pytest.mark.cuda
def test_copy_false_is_refused_while_the_data_lives_on_the_gpu(cuda):
    f = qd.field(qd.f32, shape=(4,))
    with pytest.raises(ValueError, match="Zero-copy not available.*copy=True"):
        f.to_numpy(copy=False)


def test_vector_numpy_io_takes_columns_and_rows_and_keep_dims_gives_columns(cpu):
    v = qd.Vector.field(3, qd.i32, shape=(2,))
    rows = np.arange(6, dtype=np.int32).reshape(2, 3)
    for arr in (rows.reshape(2, 3, 1), rows.reshape(2, 1, 3), rows):
        v.fill(0)
        v.from_numpy(arr)
        np.testing.assert_array_equal(v.to_numpy(), rows)
    np.testing.assert_array_equal(v.to_numpy(keep_dims=True), rows.reshape(2, 3, 1))
    m = qd.Matrix.field(2, 3, qd.f32, shape=(2,))
    assert m.to_numpy(keep_dims=True).shape == (2, 2, 3)      # a matrix keeps its shape
    with pytest.raises(ValueError, match=r"expected an array of shape \(2, 2, 3\)"):
        m.from_numpy(np.zeros((2, 3, 2), np.float32))
