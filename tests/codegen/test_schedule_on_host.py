"""Every CUDA schedule of a range_for run on the host, thread by thread (grid_on_host.py): one index a
thread, coarsened steps with their tail, a 2-D loop, at sizes that leave remainders and on grids that stride
and that have idle threads. (Bodies that call libdevice, like the streamed heavy-math steps, cannot run on the
host.) The GPU tests check the same on a GPU; these run anywhere."""
import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module

from .grid_on_host import HostGrid

F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)
F2 = qd.types.ndarray(dtype=qd.f32, ndim=2)


@qd.kernel
def saxpy(x: F1, y: F1, a: qd.f32):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@qd.kernel
def shifted(x: F1, y: F1):
    for i in range(1, x.shape[0] - 1):
        y[i] = x[i - 1] - x[i + 1]


@qd.kernel
def grid2(a: F2, b: F2):
    for i, j in qd.ndrange(a.shape[0], a.shape[1]):
        b[i, j] = a[i, j] * 2.0 + i - j


def host_run(kernel, vector, params, grid, block):
    task = kernel.tasks()[-1]
    tm = build_task_module(task, CodegenOptions("nvptx", vector=vector))
    HostGrid(tm.text, tm.entry).launch(params, grid, block)
    return tm


@pytest.mark.parametrize("vector", [1, 4])
@pytest.mark.parametrize("n", [1, 3, 4, 5, 127, 130])
def test_one_dimensional_schedules_cover_every_index_once(vector, n):
    x = np.random.default_rng(n).random(n, dtype=np.float32)
    for grid, block in ((1, 4), (3, 32)):
        y = np.ones(n, np.float32)
        tm = host_run(saxpy, vector, [x, n, y, n, np.float32(2.0)], grid, block)
        assert tm.vector == vector
        np.testing.assert_array_equal(y, np.float32(2.0) * x + np.float32(1.0))
        z = np.zeros(n, np.float32)
        host_run(shifted, vector, [x, n, z, n], grid, block)
        want = np.zeros(n, np.float32)
        want[1:-1] = x[:-2] - x[2:]
        np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (7, 33)])
def test_a_two_dimensional_loop_covers_its_range(shape):
    a = np.random.default_rng(1).integers(0, 100, shape).astype(np.float32)   # every value exact in f32
    b = np.full_like(a, np.nan)
    host_run(grid2, 4, [a, *shape, b, *shape], 2, 16)
    i, j = np.indices(shape)
    np.testing.assert_array_equal(b, a * 2 + i - j)
