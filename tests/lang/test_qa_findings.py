"""Quadrants code that a user's programs (examples/quadrants_style/) needed and qdexplorer refused or
answered differently; expected values are NumPy's, checked against real Quadrants 1.3.3 on the CPU."""
import numpy as np
import pytest

import qdexplorer.lang as qd

V2 = qd.types.ndarray(dtype=qd.math.vec2, ndim=1)


def test_list_stored_into_vector_and_matrix_elements(arch):
    """`v[i] = [a, b]` and `m[i] = [[...], [...]]`, as Quadrants takes them (was: 'expected a scalar')."""
    vf = qd.Vector.field(2, dtype=qd.f32, shape=4)
    mf = qd.Matrix.field(2, 2, dtype=qd.f32, shape=4)

    @qd.kernel
    def k(src: qd.types.ndarray(dtype=qd.f32, ndim=1), out: V2):
        for i in vf:
            vf[i] = [src[i], 2 * src[i]]
            mf[i] = [[src[i], 1.0], [0.0, -src[i]]]
            out[i] = (1, 2)

    src = np.arange(4, dtype=np.float32) + 1
    out = np.zeros((4, 2), np.float32)
    k(src, out)
    np.testing.assert_array_equal(vf.to_numpy(), np.stack([src, 2 * src], 1))
    want = np.zeros((4, 2, 2), np.float32)
    want[:, 0, 0], want[:, 0, 1], want[:, 1, 1] = src, 1, -src
    np.testing.assert_array_equal(mf.to_numpy(), want)
    np.testing.assert_array_equal(out, [[1, 2]] * 4)


@qd.func
def split(p: qd.f32, lim: qd.f32 = 1.0):
    hit = 0
    if p > lim:
        p = 2 * lim - p
        hit = 1
    return p, hit


@qd.func
def min_max(v):
    return qd.min(v.x, v.y), qd.max(v.x, v.y), v * 2


def test_func_returns_a_tuple(arch):
    """`return p, hit` from a @qd.func, unpacked by the caller (was: 'expected a scalar value here,
    got [LocalRef(...), ...]')."""
    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1),
          hits: qd.types.ndarray(dtype=qd.i32, ndim=1), v: V2, mm: qd.types.ndarray(dtype=qd.f32, ndim=2)):
        for i in x:
            y[i], hits[i] = split(x[i], lim=qd.f32(1.0))
            lo, hi, twice = min_max(v[i])
            mm[i, 0] = lo
            mm[i, 1] = hi
            mm[i, 2] = twice.x + twice.y

    x = np.array([0.5, 1.5, 2.0, -1.0], np.float32)
    y, hits = np.zeros_like(x), np.zeros(4, np.int32)
    v = np.array([[1, 2], [5, -3], [0, 0], [2, 2]], np.float32)
    mm = np.zeros((4, 3), np.float32)
    k(x, y, hits, v, mm)
    np.testing.assert_array_equal(y, np.where(x > 1, 2 - x, x))
    np.testing.assert_array_equal(hits, (x > 1).astype(np.int32))
    np.testing.assert_array_equal(mm, np.stack([v.min(1), v.max(1), 2 * v.sum(1)], 1))


def test_func_returning_tuples_of_different_lengths_is_an_error(cpu):
    @qd.func
    def bad(a: qd.f32):
        if a > 0:
            return a, a
        return a

    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in x:
            p, q = bad(x[i])
            x[i] = p + q

    with pytest.raises(qd.QuadrantsSyntaxError, match="same number of values") as e:
        k(np.ones(2, np.float32))
    assert "test_qa_findings.py" in str(e.value)


def test_matrix_type_called_with_nested_rows(arch):
    """`qd.math.mat3([[a, b, c], ...])` of runtime values (was: 'expected a scalar value here')."""
    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.f32, ndim=2)):
        for i in range(1):
            m = qd.math.mat2([[a[0], a[1]], [a[2], a[3]]])
            n = qd.types.matrix(2, 2, qd.f32)([a[3], 0.0], [0.0, a[0]])
            p = m @ n
            for r in qd.static(range(2)):
                for c in qd.static(range(2)):
                    out[r, c] = p[r, c]

    a = np.array([1, 2, 3, 4], np.float32)
    out = np.zeros((2, 2), np.float32)
    k(a, out)
    np.testing.assert_array_equal(out, a.reshape(2, 2) @ np.array([[4, 0], [0, 1]], np.float32))


def test_vector_kernel_argument(arch):
    """`c: qd.math.vec3` (and matrix) kernel arguments, passed by value (was: 'needs a type annotation')."""
    @qd.kernel
    def tint(rgb: qd.types.ndarray(dtype=qd.math.vec3, ndim=1), c: qd.math.vec3, m: qd.types.matrix(2, 2, qd.i32)) -> qd.f32:
        for i in rgb:
            rgb[i] = rgb[i] * c
        return c.sum() + m[0, 1] * 10 + m[1, 0]

    rgb = np.ones((5, 3), np.float32) * np.arange(5, dtype=np.float32)[:, None]
    r = tint(rgb, qd.math.vec3(1.5, 1.0, 0.5), np.array([[0, 3], [4, 0]]))
    np.testing.assert_array_equal(rgb, np.arange(5, dtype=np.float32)[:, None] * [1.5, 1.0, 0.5])
    assert r == 3.0 + 34
    with pytest.raises(qd.QuadrantsRuntimeTypeError, match="argument 'c' must be a 3 vector"):
        tint(rgb, (1.0, 2.0), np.zeros((2, 2)))


def test_debug_out_of_bounds_is_an_assertion_error_and_a_failed_assert_wins():
    """Quadrants raises QuadrantsAssertionError (an AssertionError) for a bad access in debug mode, and a
    failed `assert` that guarded it is the error reported (was: OutOfBounds, not an AssertionError)."""
    qd.init(arch=qd.cpu, debug=True)
    try:
        @qd.kernel
        def gather(x: qd.types.ndarray(dtype=qd.f32, ndim=1), idx: qd.types.ndarray(dtype=qd.i32, ndim=1),
                   out: qd.types.ndarray(dtype=qd.f32, ndim=1), check: qd.i32):
            for i in range(idx.shape[0]):
                j = idx[i]
                if check:
                    assert j < x.shape[0], "index out of range"
                out[i] = x[j]

        x, out = np.arange(4, dtype=np.float32), np.zeros(2, np.float32)
        with pytest.raises(AssertionError, match="index out of range"):
            gather(x, np.array([0, 9], np.int32), out, 1)
        with pytest.raises(qd.QuadrantsAssertionError, match="out-of-bounds"):
            gather(x, np.array([0, 9], np.int32), out, 0)
    finally:
        qd.reset()


def test_a_workload_of_a_kernel_with_a_vector_and_a_template_argument_runs(tmp_path):
    """The app specialises such a kernel from its first workload: by parameter name, before the
    vector argument is split into components (it used to fail with KeyError: 'c')."""
    from qdexplorer.engine import Engine
    (tmp_path / "k.py").write_text(
        "import numpy as np\n"
        "import qdexplorer.lang as qd\n"
        "@qd.kernel\n"
        "def shift(c: qd.math.vec3, x: qd.types.ndarray(dtype=qd.math.vec3, ndim=1), s: qd.template()):\n"
        "    for i in range(x.shape[0]):\n"
        "        x[i] = x[i] + c * s\n"
        "def check(before, after):\n"
        "    np.testing.assert_allclose(after['x'], before['x'] + 2 * np.array([1, 2, 3]))\n"
        "@qd.workload(shift, check=check)\n"
        "def shift_small(rng):\n"
        "    return dict(c=qd.math.vec3(1.0, 2.0, 3.0), x=rng.random((8, 3), dtype=np.float32), s=2)\n")
    with Engine(tmp_path, in_process=True) as eng:
        (res,) = eng.run(["shift_small"])
        run = eng.session.runs[-1]
    assert res.status == "passed", res.error or res.check_error
    assert [t.task for t in run.timings] == ["shift_s2_kernel_0_range_for"]
