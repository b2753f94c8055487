"""qd.BufferView: windows of a 1-D ndarray made on the host or in kernels. Expected arrays are what
real Quadrants 1.3.3 gave for the same kernels on the CPU (its debug messages too, less the
call-stack lines: Quadrants gives each function's `def` line, qdexplorer the line of the call)."""
import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.lang import BufferView


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_host_views_slice_and_subview_with_quadrants_errors():
    data = qd.ndarray(qd.f32, shape=(32,))
    v = data[8:24]
    assert isinstance(v, BufferView) and (v.offset, v.size, v.shape) == (8, 16, (16,))
    assert v.get_ndarray() is data
    assert (v[4:12].offset, v[4:12].size) == (12, 8) and (data[-8:].offset, data[-8:].size) == (24, 8)
    assert (v.subview(4, 8).offset, BufferView(data, 4, 8).size) == (12, 8)
    with pytest.raises(ValueError, match="step=1"):
        data[::2]
    with pytest.raises(ValueError, match="subview out of range"):
        v.subview(8, 16)
    with pytest.raises(ValueError, match="out of range"):
        BufferView(data, 16, 32)
    with pytest.raises(TypeError, match="1D"):
        qd.ndarray(qd.f32, shape=(4, 4))[:2]
    with pytest.raises(TypeError, match="slice"):
        v[0]


def test_kernel_views_a_window_subviews_and_funcs():
    data = qd.ndarray(qd.i32, shape=(16,))

    @qd.func
    def bump(v: BufferView[qd.i32], i: qd.i32):
        v[i] += i + v.size * 100

    @qd.kernel
    def k(a: BufferView[qd.i32], b: BufferView):
        sub = a[1:3]                 # made in one task, used by the next (a kernel-scope view)
        for i in range(sub.size):
            sub[i] = 7 + sub.offset
        for i in range(b.size):
            bump(b, i)

    k(data[2:8], data[10:14])        # two views of one array: compiled to let them alias
    assert data.to_numpy().tolist() == [0, 0, 0, 10, 10, 0, 0, 0, 0, 0, 400, 401, 402, 403, 0, 0]


def test_view_constructed_in_a_kernel_and_over_matrices():
    data = qd.ndarray(qd.f32, shape=(8,))

    @qd.kernel
    def k(arr: qd.types.ndarray(qd.f32, ndim=1), off: qd.i32, sz: qd.i32):
        view = BufferView(arr, off, sz)
        for i in range(view.size):
            view[i] = 4.0

    k(data, 2, 3)
    assert data.to_numpy().tolist() == [0, 0, 4, 4, 4, 0, 0, 0]
    m = qd.Matrix.ndarray(2, 2, qd.f32, (4,))

    @qd.kernel
    def diag(v: BufferView):
        for i in range(v.size):
            for c in range(2):
                v[i][c, c] = 1.0

    diag(m[1:3])
    want = np.zeros((4, 2, 2), np.float32)
    want[1:3] = np.eye(2)
    assert (m.to_numpy() == want).all()


def test_wrong_argument_and_step_in_kernel_are_quadrants_errors():
    data = qd.ndarray(qd.f32, shape=(8,))

    @qd.kernel
    def k(v: BufferView[qd.f32]):
        for i in range(v.size):
            v[i] = 0.0

    with pytest.raises(qd.QuadrantsRuntimeTypeError):
        k(data)

    @qd.kernel
    def s(v: BufferView[qd.f32]):
        sub = v[::2]
        for i in range(sub.size):
            sub[i] = 1.0

    with pytest.raises(qd.QuadrantsSyntaxError, match="explicit step"):
        s(data[:4])


def test_debug_mode_reports_out_of_range_with_the_callstack():
    qd.init(arch=qd.cpu, debug=True)
    data = qd.ndarray(qd.f32, shape=(16,))

    @qd.func
    def writer(v: BufferView[qd.f32], idx: qd.i32):
        v[idx] = 99.0

    @qd.kernel
    def k(v: BufferView[qd.f32]):
        for i in range(1):
            writer(v, v.size + i)

    with pytest.raises(qd.QuadrantsAssertionError) as e:
        k(data[4:12])
    msg = str(e.value)
    assert "BufferView Out Of Range: kernel[k] tid=0, got index 8 (offset=4, size=8)." in msg
    assert "Callstack:\nk (" in msg and "\n  writer (" in msg

    @qd.kernel
    def k2(v: BufferView[qd.f32]):
        for i in range(1):
            sub = v.subview(v.size - 1 + i, 2)
            sub[0] = 1.0

    with pytest.raises(qd.QuadrantsAssertionError, match=r"subview Out Of Range: kernel\[k2\] tid=0, subview "
                                                          r"offset=7, subview size=2, parent size=8\."):
        k2(data[4:12])

    @qd.kernel
    def last(v: BufferView[qd.f32]):
        for i in range(1):
            v[v.size - 1 + i] = 1.0

    last(data[:4])                     # the last element is in range
    assert data.to_numpy()[3] == 1.0
