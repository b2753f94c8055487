"""Issue 11: small vectors and matrices, lowered to scalars per component, against NumPy."""
import numpy as np
import pytest

import qdexplorer.lang as qd

vec3 = qd.math.vec3
V3 = qd.types.ndarray(dtype=qd.math.vec3, ndim=1)


@qd.func
def reflect(d, n):
    return d - 2.0 * d.dot(n) * n


def test_vector_arithmetic_methods_and_arrays_of_vectors(arch):
    @qd.kernel
    def k(a: V3, b: V3, out: V3, s: qd.types.ndarray(dtype=qd.f32, ndim=2)):
        for i in a:
            u = a[i]
            v = b[i]
            w = u + 2.0 * v - qd.Vector([1.0, 0.0, 0.0])
            out[i] = u.cross(v) + w * 0.5
            s[i, 0] = u.dot(v)
            s[i, 1] = u.norm()
            s[i, 2] = (u * v).sum() + u.x * 10 + v[2]
            s[i, 3] = qd.math.length(qd.math.normalize(v))
            r = reflect(u, qd.math.normalize(v))
            s[i, 4] = r.y
            m = qd.max(u, v)
            s[i, 5] = m[0] + m[1] + m[2]

    rng = np.random.default_rng(1)
    a = rng.random((16, 3), dtype=np.float32)
    b = rng.random((16, 3), dtype=np.float32) + 0.1
    out = np.zeros((16, 3), np.float32)
    s = np.zeros((16, 6), np.float32)
    k(a, b, out, s)
    w = a + 2 * b - [1, 0, 0]
    np.testing.assert_allclose(out, np.cross(a, b) + 0.5 * w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s[:, 0], (a * b).sum(1), rtol=1e-5)
    np.testing.assert_allclose(s[:, 1], np.linalg.norm(a, axis=1), rtol=1e-5)
    np.testing.assert_allclose(s[:, 2], (a * b).sum(1) + a[:, 0] * 10 + b[:, 2], rtol=1e-5)
    np.testing.assert_allclose(s[:, 3], 1.0, rtol=1e-5)
    n = b / np.linalg.norm(b, axis=1, keepdims=True)
    refl = a - 2 * (a * n).sum(1, keepdims=True) * n
    np.testing.assert_allclose(s[:, 4], refl[:, 1], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(s[:, 5], np.maximum(a, b).sum(1), rtol=1e-5)


def test_matrices_products_transpose_determinant(arch):
    @qd.kernel
    def k(m: qd.types.ndarray(dtype=qd.math.mat3, ndim=1), v: V3, out: V3, det: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in m:
            a = m[i]
            out[i] = a @ v[i] + a.transpose() @ v[i]
            det[i] = a.determinant() + (a @ a)[0, 1] + qd.Matrix.identity(qd.f32, 3)[1, 1]

    rng = np.random.default_rng(2)
    m = rng.random((8, 3, 3), dtype=np.float32)
    v = rng.random((8, 3), dtype=np.float32)
    out = np.zeros((8, 3), np.float32)
    det = np.zeros(8, np.float32)
    k(m, v, out, det)
    np.testing.assert_allclose(out, np.einsum("nij,nj->ni", m, v) + np.einsum("nji,nj->ni", m, v), rtol=1e-5)
    np.testing.assert_allclose(det, np.linalg.det(m) + (m @ m)[:, 0, 1] + 1, rtol=1e-4)


def test_vector_locals_components_swizzles_and_dynamic_index(arch):
    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i in range(out.shape[0]):
            v = qd.math.ivec3(i, i * 2, 7)
            v[0] += 100
            v.z = 0 if False else v.z  # noqa: SIM222 - a plain read/write of a swizzle component
            v[i % 3] = -1
            a, b, c = v
            out[i, 0] = a
            out[i, 1] = b
            out[i, 2] = c
            out[i, 3] = v[i % 3 - 1] + v.yx[0]

    out = np.zeros((5, 4), np.int32)
    k(out)
    for i in range(5):
        v = [i + 100, i * 2, 7]
        v[i % 3] = -1
        assert out[i, :3].tolist() == v, i
        assert out[i, 3] == v[(i % 3) - 1] + v[1]


def test_vector_fields_and_vector_return_values(arch):
    x = qd.Vector.field(2, qd.f32, shape=(4,))
    total = qd.Vector.field(2, qd.f32, shape=())

    @qd.kernel
    def k() -> qd.types.vector(2, qd.f32):
        for i in x:
            x[i] = qd.math.vec2(i, i * i)
        for i in x:
            total[None] += x[i]
        return total[None] * 2.0

    r = k()
    np.testing.assert_allclose(x.to_numpy(), [[i, i * i] for i in range(4)])
    np.testing.assert_allclose(total.to_numpy(), [6, 14])
    np.testing.assert_allclose(r, [12, 28])
    assert x.to_numpy().shape == (4, 2) and total.to_numpy().shape == (2,)


def test_vector_errors(cpu):
    @qd.kernel
    def shape_mismatch(out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        a = qd.math.vec2(1.0, 2.0)
        b = qd.math.vec3(1.0, 2.0, 3.0)
        c = a + b
        out[0] = c[0]

    with pytest.raises(qd.QuadrantsTypeError, match=r"shapes \(2,\) and \(3,\) do not match"):
        shape_mismatch(np.zeros(1, np.float32))

    @qd.kernel
    def scalar_expected(out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        out[0] = qd.math.vec2(1.0, 2.0) + 1.0 > 0

    with pytest.raises(qd.QuadrantsTypeError, match="expected a scalar value here, got a 2 vector"):
        scalar_expected(np.zeros(1, np.float32))


def test_python_side_vector_types():
    np.testing.assert_array_equal(vec3(1, 2, 3), [1, 2, 3])
    np.testing.assert_array_equal(vec3(0), [0, 0, 0])
    assert qd.math.mat2(1, 2, 3, 4).shape == (2, 2)
    assert qd.types.vector(3, qd.i32) == qd.math.ivec3


def test_dynamic_component_index_of_array_elements(arch):
    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.math.vec3, ndim=1), m: qd.types.ndarray(dtype=qd.math.mat2, ndim=1)):
        for i in x:
            for c in range(3):
                x[i][c] = i * 10 + c
                x[i][c] += 1
            for r in range(2):
                m[i][r] = qd.math.vec2(r, i)
                m[i][r, 1] += 100

    x = np.zeros((4, 3), np.float32)
    m = np.zeros((4, 2, 2), np.float32)
    k(x, m)
    np.testing.assert_array_equal(x, np.fromfunction(lambda i, c: i * 10 + c + 1, (4, 3)))
    np.testing.assert_array_equal(m[:, :, 0], [[0, 1]] * 4)
    np.testing.assert_array_equal(m[:, :, 1], np.arange(4)[:, None] + 100 + np.zeros((4, 2)))


def test_kernel_scope_vector_locals(arch):
    @qd.kernel
    def centroid(p: V3) -> qd.types.vector(3, qd.f32):
        total = qd.math.vec3(0.0)
        for i in p:
            total += p[i]
        for k in range(3):
            total[k] = total[k] / p.shape[0]
        return total

    p = np.random.default_rng(3).random((100, 3), dtype=np.float32)
    np.testing.assert_allclose(centroid(p), p.mean(0), rtol=1e-5)


def test_norm_and_normalized_honour_eps_as_quadrants_does(arch):
    """Quadrants adds `eps` under the square root in `norm`/`norm_inv`, and to the length in
    `normalized` (`v * (1 / (|v| + eps))`); the expected values are real Quadrants 1.3.3's output."""
    out = qd.field(qd.f32, shape=(4, 6))

    @qd.kernel
    def k(eps: qd.f32):
        for i in range(4):
            v = qd.Vector([0.1 * i, 0.2, -0.3 * i])
            out[i, 0] = v.norm(eps)
            out[i, 1] = v.norm(eps=eps)
            out[i, 2] = v.norm_inv(eps)
            n = v.normalized(eps)
            out[i, 3] = n[0]
            out[i, 4] = n[1]
            out[i, 5] = v.norm()

    k(0.5)
    quadrants = np.array([[0.73484695, 0.73484695, 1.3608276, 0.0, 0.2857143, 0.2],
                          [0.8, 0.8, 1.25, 0.114394784, 0.22878957, 0.37416577],
                          [0.969536, 0.969536, 1.0314212, 0.17192101, 0.17192101, 0.66332495],
                          [1.2, 1.2, 0.8333333, 0.20414607, 0.13609737, 0.969536]], np.float32)
    np.testing.assert_allclose(out.to_numpy(), quadrants, rtol=1e-6)


def test_norm_eps_takes_one_scalar(cpu):
    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(1):
            x[i] = qd.math.vec2(1.0, 2.0).norm(tol=1e-3)

    with pytest.raises(qd.QdCompileError, match=r"v.norm\(\) takes one argument, eps"):
        k(np.zeros(1, np.float32))


QUADRANTS_MATH = (  # quadrants.math.__all__ of Quadrants 1.3.3, with its complex-number functions
    "acos asin atan2 ceil clamp clz cos cross degrees determinant distance dot e exp eye ffs floor fns fract inf "
    "inverse isinf isnan ivec2 ivec3 ivec4 length log log2 mat2 mat3 mat4 max min mix mod translate scale nan "
    "normalize pi pow popcnt radians reflect refract rot_by_axis rot_yaw_pitch_roll rotation2d rotation3d round "
    "sign sin smoothstep sqrt step tan tanh uvec2 uvec3 uvec4 vdir vec2 vec3 vec4 "
    "cconj cdiv cexp cinv clog cmul cpow csqrt").split()


def test_math_module_imports_as_quadrants_math_does():
    """`import quadrants.math as tm` / `from quadrants.math import ...` port by renaming the module;
    every name of Quadrants' math module exists (`fns` excepted: see docs/language.md)."""
    import importlib
    tm = importlib.import_module("qdexplorer.lang.math")
    assert tm is qd.math
    missing = [n for n in QUADRANTS_MATH if not hasattr(tm, n)]
    assert missing == ["fns"]
    from qdexplorer.lang.math import cmul, fract  # noqa: F401 - the `from` form
    assert fract(2.25) == 0.25  # the @qd.func library runs from Python too, on scalars


def test_bit_counts_on_every_integer_width(arch):
    out = qd.field(qd.i32, shape=(4, 3))

    @qd.kernel
    def k(a: qd.i32, b: qd.u32, c: qd.i64, d: qd.u64):
        out[0, 0], out[0, 1], out[0, 2] = qd.math.popcnt(a), qd.math.clz(a), qd.math.ffs(a)
        out[1, 0], out[1, 1], out[1, 2] = qd.math.popcnt(b), qd.math.clz(b), qd.math.ffs(b)
        out[2, 0], out[2, 1], out[2, 2] = qd.math.popcnt(c), qd.math.clz(c), qd.math.ffs(c)
        out[3, 0], out[3, 1], out[3, 2] = qd.math.popcnt(d), qd.math.clz(d), qd.math.ffs(d)

    k(-8, 0, 1 << 40, (1 << 64) - 1)
    np.testing.assert_array_equal(out.to_numpy(), [[29, 0, 4], [0, 32, 0], [1, 23, 41], [64, 0, 1]])


def test_lists_of_vectors_as_locals_and_int_of_a_vector(arch):
    """MPM's weights: `w = [a, b, c]` of vectors, read with compile-time indices (`qd.static` loop
    variables, `len(w)`); `int(v)` / `float(v)` componentwise; `.y -= d` on a field element."""
    out = qd.field(qd.f32, shape=(4, 3))
    g = qd.Vector.field(2, qd.f32, shape=4)

    @qd.kernel
    def k(s: qd.f32):
        for p in range(4):
            fx = qd.math.vec2(0.25 * p + s, 1.5 - 0.1 * p)
            base = int(fx)
            w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
            acc = 0.0
            for i, j in qd.static(qd.ndrange(len(w), 3)):
                acc += w[i].x * w[j][1]
            out[p, 0] = acc
            out[p, 1] = base[0] * 10 + base[1] + float(base).y * 100
            w[1].x = 7.0                      # items are locals of their own
            out[p, 2] = w[1][0] + w[2].x
            g[p].y -= 0.5 * p
            g[p].x += 1.0

    k(0.1)
    fx = np.stack([0.25 * np.arange(4) + 0.1, 1.5 - 0.1 * np.arange(4)], 1).astype(np.float32)
    w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
    acc = sum(w[i][:, 0] * w[j][:, 1] for i in range(3) for j in range(3))
    base = fx.astype(np.int32)
    np.testing.assert_allclose(out.to_numpy()[:, 0], acc, rtol=1e-5)
    np.testing.assert_array_equal(out.to_numpy()[:, 1], base[:, 0] * 10 + base[:, 1] * 101)
    np.testing.assert_allclose(out.to_numpy()[:, 2], 7.0 + w[2][:, 0], rtol=1e-6)
    np.testing.assert_allclose(g.to_numpy(), np.stack([np.ones(4), -0.5 * np.arange(4)], 1))


def test_a_list_of_kernel_values_needs_compile_time_indices(cpu):
    @qd.kernel
    def k(n: qd.i32) -> qd.f32:
        w = [qd.math.vec2(1.0, 2.0), qd.math.vec2(3.0, 4.0)]
        return w[n].x

    with pytest.raises(qd.QuadrantsIndexError, match="a list of kernel values takes compile-time indices") as e:
        k(1)
    assert "Vec(" not in str(e.value) and "BinOp" not in str(e.value)


def test_static_grouped_ndrange_gives_index_vectors(arch):
    out = qd.field(qd.i32, shape=(3, 3))

    @qd.kernel
    def k():
        for _ in range(1):
            for I in qd.static(qd.grouped(qd.ndrange(3, 3))):
                out[I] = I[0] * 10 + I.y + (I + qd.math.ivec2(1, 1)).sum() * 100

    k()
    i, j = np.mgrid[0:3, 0:3]
    np.testing.assert_array_equal(out.to_numpy(), i * 10 + j + (i + j + 2) * 100)


GRAVITY = qd.Vector([0.0, -9.8])  # a global qd.Vector constant, as Quadrants programs write them


def test_pow_sum_zero_slices_comprehensions_and_vector_constants(arch):
    """Issue 23 item 11's forms; the expected values are what Quadrants 1.3.3 prints."""
    out = qd.field(qd.f32, shape=8)

    @qd.kernel
    def k(x: qd.f32):
        for i in range(1):
            v = qd.math.vec3(x, 2.0, 3.0)
            out[0] = pow(x, 3)
            z = qd.zero(v)
            out[1] = z[0] + z.y
            out[2] = (GRAVITY * x)[1] + GRAVITY.shape[0]
            out[3] = v[:2].sum()
            out[4] = sum([v[j] for j in range(3)])
            out[5] = sum([v[j] * j for j in range(3) if j != 1])
            out[6] = v[::-1][0]

    k(2.0)
    np.testing.assert_allclose(out.to_numpy(), [8.0, 0.0, -17.6, 4.0, 7.0, 6.0, 3.0, 0.0], rtol=1e-6)


def test_python_scope_vectors_keep_their_values_kind():
    """Real Quadrants 1.3.3: qd.Vector([2, 3]) holds int64, [2.0, 3] float64, and ~v and v.normalized()
    of an integer vector work (the latter gives floats); a dt= still decides."""
    import operator
    x = qd.Vector([2, 3])
    assert x.to_numpy().dtype == np.int64 and operator.invert(x).tolist() == [-3, -4]
    assert qd.Vector([2.0, 3]).to_numpy().dtype == np.float64
    assert qd.Vector([2, 3], dt=qd.f32).to_numpy().dtype == np.float32
    np.testing.assert_allclose(qd.Vector(np.array([3, 4, 0])).normalized().to_numpy(), [0.6, 0.8, 0.0])
