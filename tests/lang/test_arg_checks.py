"""Arguments are checked against the compiled kernel: nothing is misread, nothing overflows, no count wraps."""
import shutil
import textwrap

import numpy as np
import pytest

from qdexplorer.engine import Engine
from qdexplorer.lang.calls.arg_check import ArgumentError

KERNELS = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    @qd.kernel
    def copy(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            y[i] = x[i]

    @qd.kernel
    def scale(x: qd.types.ndarray(dtype=qd.f32, ndim=1), n: qd.i32, a: qd.f32):
        for i in range(n):
            x[i] = x[i] * a

    @qd.kernel
    def guarded(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            if i < y.shape[0]:
                y[i] = x[i]

    @qd.kernel
    def wraps(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(2**32 + 5):
            x[i % 8] = 1.0

    @qd.kernel
    def square(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i, j in qd.ndrange(70000, 70000):
            x[0] = 1.0
    """)


@pytest.fixture
def mod(tmp_path, arch):
    (tmp_path / "kmod.py").write_text(KERNELS)
    import importlib.util
    spec = importlib.util.spec_from_file_location("kmod_args", tmp_path / "kmod.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def test_wrong_dtype_is_refused_not_reinterpreted(mod):
    y = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match="'x'.*float32.*float64"):
        mod.copy(np.full(8, 2.0), y)
    with pytest.raises(TypeError, match=r"'x'.*(float32.*int8|int8.*float32)"):
        mod.copy(np.ones(8, np.int8), y)
    assert not y.any()


def test_non_contiguous_and_wrong_ndim_are_refused(mod):
    y = np.zeros(8, np.float32)
    with pytest.raises(ArgumentError, match="'x' must be C-contiguous"):
        mod.copy(np.ones(16, np.float32)[::2], y)
    with pytest.raises(ValueError, match="Non contiguous tensors are not supported"):  # Quadrants' class
        mod.copy(np.ones(16, np.float32)[::2], y)
    with pytest.raises(TypeError, match="'x'.*1 dimension"):
        mod.copy(np.ones((2, 4), np.float32), y)


def test_short_output_is_refused_before_the_heap_overflows(mod):
    y = np.zeros(16, np.float32)
    with pytest.raises(ArgumentError, match=r"'y' has shape \(16,\).*range\(0, 1048576\)"):
        mod.copy(np.ones(1 << 20, np.float32), y)
    x = np.ones(8, np.float32)
    with pytest.raises(ArgumentError, match=r"'x' has shape \(8,\).*range\(0, 100\)"):
        mod.scale(x, 100, 2.0)
    mod.guarded(np.ones(32, np.float32), y)  # a guarded access is the user's business, and right
    assert (y == 1).all()


def test_scalars_convert_where_quadrants_converts(mod):
    x = np.ones(8, np.float32)
    mod.scale(x, np.int64(4), 3)          # a NumPy int for i32, an int for f32
    assert x.tolist() == [3.0] * 4 + [1.0] * 4
    for bad in (2.5, 4.0):                # Quadrants refuses floats for integer arguments
        with pytest.raises(TypeError, match="'n'.*(i32|int)"):
            mod.scale(x, bad, 1.0)
    with pytest.raises(ArgumentError, match="'n' = 4294967296 does not fit in i32"):
        mod.scale(x, 2**32, 1.0)
    with pytest.raises(ArgumentError, match="'a' must be a number"):
        mod.scale(x, 1, "2")


def test_trip_counts_of_2_31_or_more_are_refused_never_wrapped(mod):
    x = np.zeros(8, np.float32)
    with pytest.raises(ArgumentError, match="4294967301 iterations"):
        mod.wraps(x)
    with pytest.raises(ArgumentError, match="4900000000 iterations"):
        mod.square(x)
    assert not x.any()


WORKLOADS = textwrap.dedent("""\

    @qd.workload(copy)
    def f64(rng):
        return dict(x=np.full(8, 2.0), y=np.zeros(8, np.float32))

    @qd.workload(copy)
    def short_out(rng):
        return dict(x=np.ones(1 << 16, np.float32), y=np.zeros(16, np.float32))

    @qd.workload(scale)
    def float_n(rng):
        return dict(x=np.ones(8, np.float32), n=2.0, a=1.0)

    @qd.workload(wraps)
    def wrap(rng):
        return dict(x=np.zeros(8, np.float32))
    """)


def test_workloads_get_the_same_checks(tmp_path):
    (tmp_path / "k.py").write_text(KERNELS + WORKLOADS)
    with Engine(tmp_path, in_process=True) as eng:
        res = {r.workload: r for r in eng.run(["f64", "short_out", "wrap", "float_n"])}
    assert all(r.status == "error" for r in res.values())
    assert "float32" in res["f64"].error and "float64" in res["f64"].error
    assert "'y' has shape (16,)" in res["short_out"].error
    assert "32-bit loop index" in res["wrap"].error
    assert "'n'" in res["float_n"].error and "2.0" in res["float_n"].error


def test_repeated_calls_recheck_ranges_when_shapes_or_range_scalars_change(arch):
    """Script calls remember the checked trip counts per (shapes, range scalars); a new shape or a
    new bound must be checked again, never run with the remembered counts."""
    qd = arch

    @qd.kernel
    def copy(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            y[i] = x[i]

    @qd.kernel
    def ones(y: qd.types.ndarray(dtype=qd.f32, ndim=1), n: qd.i32, v: qd.f32):
        for i in range(n):
            y[i] = v

    x, y = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    copy(x, y)
    copy(x, y)
    np.testing.assert_array_equal(y, x)
    with pytest.raises(ArgumentError, match="out of bounds"):
        copy(x, np.zeros(4, np.float32))
    ones(y, 4, 1.0)
    ones(y, 4, 2.0)            # a scalar the ranges do not read: same counts
    np.testing.assert_array_equal(y, [2, 2, 2, 2, 4, 5, 6, 7])
    with pytest.raises(ArgumentError, match="out of bounds"):
        ones(y, 100, 3.0)
    ones(y, 8, 5.0)
    np.testing.assert_array_equal(y, np.full(8, 5.0))


def test_kernels_made_in_a_loop_each_run_their_own_code(arch):
    """A runner remembers each kernel's compiled plan; a kernel collected and replaced by a new one
    (which CPython may place at the same id) must still run its own code."""
    qd = arch
    for k in range(6):
        @qd.kernel
        def put(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):
            for i in range(x.shape[0]):
                x[i] = k

        x = np.zeros(4, np.int32)
        put(x)
        np.testing.assert_array_equal(x, np.full(4, k))
        del put


def test_kernel_arguments_with_defaults(arch):
    qd = arch

    @qd.kernel
    def put(x: qd.types.ndarray(dtype=qd.f32, ndim=1), a: qd.f32 = 3.0, b: qd.i32 = 2):
        for i in range(x.shape[0]):
            x[i] = a * b

    x = np.zeros(3, np.float32)
    put(x)
    np.testing.assert_array_equal(x, np.full(3, 6.0))
    put(x, b=5)
    np.testing.assert_array_equal(x, np.full(3, 15.0))
