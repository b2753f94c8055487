"""Issue 11: qd.ndarrays and fields stay on the CUDA device between kernel calls, and PyTorch /
CuPy GPU arrays are passed by pointer, without copies. Measured by the backend's own transfer
counters (bytes copied each way), against NumPy references."""
import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.ir.device_array import _is_c_contiguous

F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)


@qd.kernel
def axpy(x: F1, y: F1, a: qd.f32):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@qd.kernel
def scale_in_place(y: F1, a: qd.f32):
    for i in range(y.shape[0]):
        y[i] *= a


def _transfers():
    from qdexplorer import script
    return dict(script.runner().device.backend.memory.transfers)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed")


def test_contiguity_matches_numpy_for_views():
    """The check applied to a GPU array's strides agrees with NumPy's own flag on every view."""
    base = np.zeros((4, 6, 5), np.float32)
    views = [base, base[1:3], base[:, ::2], base[..., :1], base.transpose(1, 0, 2), base[:1, :, :],
             base[:, 2:3, :], base.reshape(-1), base[::-1], np.zeros((0, 3), np.float32)[:, ::2]]
    for v in views:
        assert _is_c_contiguous(v.shape, v.strides, v.itemsize) == v.flags.c_contiguous, (v.shape, v.strides)


def test_ndarray_python_access_on_the_cpu_needs_no_device(cpu):
    x = qd.ndarray(qd.f32, shape=(8,))
    y = qd.ndarray(qd.f32, shape=(8,))
    x.from_numpy(np.arange(8, dtype=np.float32))
    y.fill(1.0)
    axpy(x, y, 2.0)
    np.testing.assert_allclose(y.to_numpy(), 2 * np.arange(8) + 1)
    assert x.residency.mirror is None and y.residency.mirror is None


@pytest.mark.cuda
def test_ndarrays_stay_on_the_device_between_calls(cuda):
    n, calls = 1 << 20, 50
    x, y = qd.ndarray(qd.f32, shape=(n,)), qd.ndarray(qd.f32, shape=(n,))
    xs = np.random.default_rng(1).random(n, dtype=np.float32)
    x.from_numpy(xs)
    y.fill(0.0)
    axpy(x, y, 1.0)            # first call: x goes up once; y was filled on the device
    before = _transfers()
    for _ in range(calls - 1):
        axpy(x, y, 1.0)
    during = _transfers()
    out = y.to_numpy()
    after = _transfers()
    np.testing.assert_allclose(out, calls * xs, rtol=1e-5)
    assert during["htod"] - before["htod"] < 1024 and during["dtoh"] - before["dtoh"] < 1024, (before, during)
    assert after["dtoh"] - during["dtoh"] == 4 * n          # one copy back, on to_numpy
    assert before["htod"] == 4 * n                          # x once; y.fill(0.0) moved nothing
    y.to_numpy()
    assert _transfers()["dtoh"] == after["dtoh"]             # unchanged since: no second copy


@pytest.mark.cuda
def test_python_writes_between_calls_reach_the_kernel(cuda):
    y = qd.ndarray(qd.f32, shape=(16,))
    y.fill(1.0)
    scale_in_place(y, 2.0)
    assert y[3] == 2.0                       # reads the device result
    y[3] = 10.0                              # a host write ...
    scale_in_place(y, 3.0)                   # ... is uploaded before the next call
    want = np.full(16, 6.0, np.float32)
    want[3] = 30.0
    np.testing.assert_array_equal(y.to_numpy(), want)
    y.from_numpy(np.arange(16, dtype=np.float32))
    scale_in_place(y, 0.5)
    np.testing.assert_array_equal(y.to_numpy(), np.arange(16) * 0.5)
    y.fill(7)                                # filled on the device, while it lives there
    np.testing.assert_array_equal(y.to_numpy(), np.full(16, 7.0))

    @qd.kernel
    def twice(d: qd.types.ndarray(dtype=qd.f64, ndim=1)):
        for i in range(d.shape[0]):
            d[i] *= 2.0

    d = qd.ndarray(qd.f64, shape=(4,))
    twice(d)                                 # now it lives on the device
    d.fill(1.5)                              # 8 bytes with unequal halves: filled on the host, uploaded
    twice(d)
    np.testing.assert_array_equal(d.to_numpy(), np.full(4, 3.0))
    d.fill(0.0)                              # zero: filled on the device
    twice(d)
    np.testing.assert_array_equal(d.to_numpy(), np.zeros(4))


@pytest.mark.cuda
def test_fields_stay_on_the_device_and_come_home_on_reset(cuda):
    acc = qd.field(qd.i32, shape=(1000,))
    total = qd.field(qd.i64, shape=())

    @qd.kernel
    def step(k: qd.i32):
        for i in acc:
            acc[i] += i * k
        for i in range(1):
            total[None] += 1

    for k in range(20):
        step(k)
    t = _transfers()
    assert t["htod"] <= 4 * 1000 + 8 + 1024 and t["dtoh"] < 1024, t   # each field went up once
    assert total[None] == 20
    qd.init(arch=qd.cuda)                                  # a new runner: the old context's data comes home
    np.testing.assert_array_equal(acc.to_numpy(), np.arange(1000) * sum(range(20)))
    step(1)
    np.testing.assert_array_equal(acc.to_numpy(), np.arange(1000) * (sum(range(20)) + 1))
    assert total[None] == 21


@pytest.mark.cuda
def test_vector_ndarrays_and_templates_on_the_device(cuda):
    v = qd.ndarray(qd.math.vec3, shape=(5,))
    v.from_numpy(np.arange(15, dtype=np.float32).reshape(5, 3))

    @qd.kernel
    def norms(a: qd.template(), out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(out.shape[0]):
            out[i] = a[i].norm()

    out = qd.ndarray(qd.f32, shape=(5,))
    norms(v, out)
    np.testing.assert_allclose(out.to_numpy(), np.linalg.norm(np.arange(15).reshape(5, 3), axis=1), rtol=1e-6)


@pytest.mark.cuda
def test_torch_cuda_tensors_pass_by_pointer(cuda):
    torch = _torch()
    n = 1 << 20
    x = torch.rand(n, device="cuda", dtype=torch.float32)
    y = x * 2                                  # queued on PyTorch's stream: the kernel must wait for it
    start = _transfers()
    axpy(x, y, 3.0)                            # y = 3x + 2x, in place in PyTorch's memory
    torch.testing.assert_close(y, 5 * x)
    scale_in_place(y, 0.5)
    torch.testing.assert_close(y, 2.5 * x)
    end = _transfers()
    assert end["htod"] - start["htod"] < 1024 and end["dtoh"] - start["dtoh"] < 1024, (start, end)
    m = torch.zeros(64, 3, device="cuda")
    vec_out = torch.zeros(64, device="cuda")

    @qd.kernel
    def row_norm(a: qd.types.ndarray(dtype=qd.math.vec3, ndim=1), out: F1):
        for i in range(out.shape[0]):
            out[i] = a[i].norm()

    m[:, 0] = 3.0
    m[:, 1] = 4.0
    row_norm(m, vec_out)
    torch.testing.assert_close(vec_out, torch.full((64,), 5.0, device="cuda"))


@pytest.mark.cuda
def test_cupy_arrays_pass_by_pointer(cuda):
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    x = cp.arange(1000, dtype=cp.float32)
    y = cp.ones(1000, dtype=cp.float32)
    start = _transfers()
    axpy(x, y, 2.0)
    np.testing.assert_allclose(cp.asnumpy(y), 2 * np.arange(1000) + 1)
    end = _transfers()
    assert end["htod"] - start["htod"] < 1024, (start, end)


@pytest.mark.cuda
def test_gpu_arrays_that_cannot_be_indexed_are_refused_with_the_fix(cuda):
    torch = _torch()
    m = torch.zeros(8, 6, device="cuda")
    with pytest.raises(Exception, match="not C-contiguous.*contiguous\\(\\)"):
        scale_in_place(m[:, 0], 2.0)              # a column: stride 6 elements
    g = torch.ones(8, device="cuda", requires_grad=True)  # as Quadrants: written in place, same memory
    scale_in_place(g, 2.0)
    torch.testing.assert_close(g.detach(), torch.full((8,), 2.0, device="cuda"))
    with pytest.raises(Exception, match="float32"):
        scale_in_place(torch.zeros(8, device="cuda", dtype=torch.float64), 2.0)


@pytest.mark.cuda
def test_a_gpu_tensor_on_the_cpu_backend_names_the_fix():
    torch = _torch()
    qd.init(arch=qd.cpu)
    try:
        with pytest.raises(Exception, match=r"GPU array .*qd.init\(arch=qd.cuda\)"):
            scale_in_place(torch.zeros(8, device="cuda"), 2.0)
        t = torch.arange(8, dtype=torch.float32)          # a CPU tensor still runs, in place
        scale_in_place(t, 2.0)
        torch.testing.assert_close(t, torch.arange(8, dtype=torch.float32) * 2)
    finally:
        qd.reset()


@pytest.mark.cuda
def test_a_project_that_calls_qd_init_cuda_keeps_its_fields_on_the_host(tmp_path):
    """The app imports project files in its own process; the device lives in a worker. A top-level
    `qd.init(arch=qd.cuda)` must not give the file's fields device memory (nor open a context)."""
    from qdexplorer import script
    from qdexplorer.project.loader import load_project
    (tmp_path / "k.py").write_text(
        "import qdexplorer.lang as qd\n"
        "qd.init(arch=qd.cuda)\n"
        "heat = qd.field(qd.f32, shape=(64,))\n"
        "@qd.kernel\n"
        "def warm(dt: qd.f32):\n"
        "    for i in heat:\n"
        "        heat[i] += dt\n")
    from qdexplorer.lang.field import _REGISTRY
    qd.reset()
    before = set(_REGISTRY.keys())
    try:
        proj = load_project(tmp_path)
        assert "warm" in proj.kernels
        new = [_REGISTRY[u] for u in set(_REGISTRY.keys()) - before]
        assert [f.shape for f in new] == [(64,)]
        assert new[0].residency.mirror is None                   # a host array, as the engine passes it
        assert script._state["runner"] is None          # and no CUDA context in this process
    finally:
        qd.reset()
        script._state["arch"] = None


@pytest.mark.cuda
def test_the_same_device_array_twice_is_refused(cuda):
    torch = _torch()
    y = qd.ndarray(qd.f32, shape=(32,))
    with pytest.raises(Exception, match="'x' and 'y' are the same device memory"):
        axpy(y, y, 1.0)
    t = torch.zeros(64, device="cuda")
    with pytest.raises(Exception, match="overlap"):
        axpy(t[:32], t[16:48], 1.0)
    axpy(t[:32], t[32:], 1.0)                    # disjoint halves of one tensor are fine


@qd.kernel
def spin(x: F1, iters: qd.i32, seed: qd.f32):
    """Long enough (milliseconds) that it is still running when the call returns. The seed is an
    argument: from the constant 1.0, LLVM proves v never changes and deletes the loop."""
    for i in range(x.shape[0]):
        v = seed
        for _ in range(iters):  # 1.0 is its fixed point: each call adds 1
            v = v * 0.999999 + 0.000001
        x[i] += v


def _stream_busy() -> bool:
    from cuda.bindings import driver as cu

    from qdexplorer import script
    err, = cu.cuStreamQuery(script.runner().device.backend.ctx.stream)
    return err == cu.CUresult.CUDA_ERROR_NOT_READY


@pytest.mark.cuda
def test_a_call_on_device_arrays_returns_before_its_kernel_finishes(cuda):
    """As in Quadrants: the call queues the kernel; qd.sync() (or any read) waits for it."""
    x = qd.ndarray(qd.f32, shape=(1 << 20,))
    spin(x, 2, 1.0)                            # compiled and loaded: the next call only launches
    qd.sync()
    spin(x, 2_000_000, 1.0)
    assert _stream_busy()                      # returned while the kernel still runs
    qd.sync()
    assert not _stream_busy()
    np.testing.assert_allclose(x.to_numpy()[:4], 2.0, rtol=1e-4)
    spin(x, 2_000_000, 1.0)
    np.testing.assert_allclose(x.to_numpy()[-4:], 3.0, rtol=1e-4)   # a read waits by itself
    y = np.zeros(8, np.float32)
    spin(y, 2_000_000, 1.0)                          # a NumPy argument is copied back: the call waits
    assert not _stream_busy()
    np.testing.assert_allclose(y, 1.0, rtol=1e-4)


@pytest.mark.cuda
def test_pytorch_ops_after_an_asynchronous_call_see_its_results(cuda):
    torch = _torch()
    t = torch.zeros(1 << 20, device="cuda")
    spin(t, 2, 1.0)
    torch.cuda.synchronize()
    spin(t, 2_000_000, 1.0)                          # still running when the next line queues its op
    assert not torch.cuda.current_stream().query()   # queued on the tensor's own stream
    s = (t * 2).sum().item()                    # PyTorch's stream runs its op after the kernel
    assert s == pytest.approx(2 * 2.0 * (1 << 20), rel=1e-3)


@pytest.mark.cuda
def test_a_call_on_tensors_of_one_stream_launches_on_that_stream(cuda):
    """Triton's way: a kernel whose arrays are all PyTorch tensors of one stream runs on that
    stream (no cross-stream events, so a call costs less), and qd.sync() still waits for it."""
    torch = _torch()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        t = torch.zeros(1 << 20, device="cuda")
        spin(t, 2, 1.0)
        torch.cuda.synchronize()
        spin(t, 2_000_000, 1.0)
        assert not side.query()                      # the kernel runs on the tensor's stream ...
        assert not _stream_busy()                    # ... not on ours
        u = t * 2                                    # ordered after it, with nothing between streams
    qd.sync()                                        # waits for kernels on streams it launched on
    assert side.query()
    assert float(u[0]) == pytest.approx(4.0, rel=1e-3)
    x = qd.ndarray(qd.f32, shape=(1 << 20,))         # a qd.ndarray in the call: our stream, after t's
    with torch.cuda.stream(side):
        t.fill_(5.0)
        axpy(t, x, 1.0)                              # x += t
    np.testing.assert_allclose(x.to_numpy()[:4], 5.0)
