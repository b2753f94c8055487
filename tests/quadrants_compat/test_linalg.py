import math

import numpy as np
import pytest

import qdexplorer.lang as qd
from tests.quadrants_compat.upstream import get_host_arch_list

from tests.quadrants_compat import test_utils


@test_utils.test()
def test_const_init():
    a = qd.Matrix.field(2, 3, dtype=qd.i32, shape=())
    b = qd.Vector.field(3, dtype=qd.i32, shape=())

    @qd.kernel
    def init():
        a[None] = qd.Matrix([[0, 1, 2], [3, 4, 5]])
        b[None] = qd.Vector([0, 1, 2])

    init()

    for i in range(2):
        for j in range(3):
            assert a[None][i, j] == i * 3 + j

    for j in range(3):
        assert b[None][j] == j


def _test_frobenius_inner(n, dt):
    """Frobenius inner product ⟨A, B⟩ = sum_ij A_ij B_ij at size n×n."""
    A = qd.Matrix.field(n, n, dtype=dt, shape=())
    B = qd.Matrix.field(n, n, dtype=dt, shape=())
    out_method = qd.field(dtype=dt, shape=())
    out_self = qd.field(dtype=dt, shape=())

    rng = np.random.default_rng(0xF20B + n + (0 if dt == qd.f32 else 1))
    A_np = rng.standard_normal((n, n)).astype(np.float32 if dt == qd.f32 else np.float64)
    B_np = rng.standard_normal((n, n)).astype(np.float32 if dt == qd.f32 else np.float64)
    A.from_numpy(A_np)
    B.from_numpy(B_np)

    @qd.kernel
    def run():
        out_method[None] = A[None].frobenius_inner(B[None])
        out_self[None] = A[None].frobenius_inner(A[None])

    run()

    expected_AB = float(np.sum(A_np * B_np))
    expected_AA = float(np.sum(A_np * A_np))
    tol = 1e-4 if dt == qd.f32 else 1e-10
    assert out_method[None] == test_utils.approx(expected_AB, rel=tol, abs=tol)
    assert out_self[None] == test_utils.approx(expected_AA, rel=tol, abs=tol)
    assert out_self[None] == test_utils.approx(A.to_numpy().__pow__(2).sum(), rel=tol, abs=tol)


def _test_frobenius_inner_rectangular(rows, cols, dt):
    """Frobenius inner product on non-square matrices (qipc uses 9×12, 12×3, etc.)."""
    A = qd.Matrix.field(rows, cols, dtype=dt, shape=())
    B = qd.Matrix.field(rows, cols, dtype=dt, shape=())
    out = qd.field(dtype=dt, shape=())

    rng = np.random.default_rng(0xFA7E + rows * 31 + cols)
    A_np = rng.standard_normal((rows, cols)).astype(np.float32 if dt == qd.f32 else np.float64)
    B_np = rng.standard_normal((rows, cols)).astype(np.float32 if dt == qd.f32 else np.float64)
    A.from_numpy(A_np)
    B.from_numpy(B_np)

    @qd.kernel
    def run():
        out[None] = A[None].frobenius_inner(B[None])

    run()

    expected = float(np.sum(A_np * B_np))
    tol = 1e-4 if dt == qd.f32 else 1e-10
    assert out[None] == test_utils.approx(expected, rel=tol, abs=tol)


def _test_matmul_chain(rows_a, cols_a, cols_b, cols_c, dt):
    """3-way matmul chain: ``(rows_a × cols_a) · (cols_a × cols_b) · (cols_b × cols_c) → (rows_a × cols_c)``.

    Verifies that ``Matrix.__matmul__`` compiles and is numerically correct at the requested size. Quadrants
    imposes no enforced size cap on matmul, but the unrolled `static(range)` triple loop produces
    ``rows_a * cols_a * cols_b + rows_a * cols_b * cols_c`` FMAs per kernel call, so this test catches compile-time
    blow-up or back-end miscompiles at large sizes. The largest parametrize value is the chain qipc actually uses;
    smaller values are cheap sanity checks that the same code path still works.
    """
    np_dt = np.float32 if dt == qd.f32 else np.float64
    A_np = np.random.default_rng(0xCA70).standard_normal((rows_a, cols_a)).astype(np_dt)
    B_np = np.random.default_rng(0xCA71).standard_normal((cols_a, cols_b)).astype(np_dt)
    C_np = np.random.default_rng(0xCA72).standard_normal((cols_b, cols_c)).astype(np_dt)

    A = qd.Matrix.field(rows_a, cols_a, dtype=dt, shape=())
    B = qd.Matrix.field(cols_a, cols_b, dtype=dt, shape=())
    C = qd.Matrix.field(cols_b, cols_c, dtype=dt, shape=())
    AB = qd.Matrix.field(rows_a, cols_b, dtype=dt, shape=())
    ABC_chained = qd.Matrix.field(rows_a, cols_c, dtype=dt, shape=())
    ABC_staged = qd.Matrix.field(rows_a, cols_c, dtype=dt, shape=())

    A.from_numpy(A_np)
    B.from_numpy(B_np)
    C.from_numpy(C_np)

    @qd.kernel
    def run():
        ABC_chained[None] = A[None] @ B[None] @ C[None]
        AB[None] = A[None] @ B[None]
        ABC_staged[None] = AB[None] @ C[None]

    run()

    expected = A_np @ B_np @ C_np
    tol = 5e-4 if dt == qd.f32 else 1e-10

    np.testing.assert_allclose(ABC_chained.to_numpy(), expected, rtol=tol, atol=tol)
    np.testing.assert_allclose(ABC_staged.to_numpy(), expected, rtol=tol, atol=tol)
    np.testing.assert_allclose(AB.to_numpy(), A_np @ B_np, rtol=tol, atol=tol)
    np.testing.assert_allclose(ABC_chained.to_numpy(), ABC_staged.to_numpy(), rtol=tol, atol=tol)


# qipc's actual size is (9,12,12,9) -- the largest chain it instantiates. We also keep a tiny (3,4,4,3) chain so
# the default fast lane still exercises the same Matrix.__matmul__ codegen path without paying the ~90s/case
# CUDA JIT cost of the qipc-sized chain.
_MATMUL_CHAIN_SHAPES = [
    (3, 4, 4, 3),
    pytest.param(9, 12, 12, 9, marks=pytest.mark.slow),
]


def _test_polar_decomp(dim, dt):
    m = qd.Matrix.field(dim, dim, dt)
    r = qd.Matrix.field(dim, dim, dt)
    s = qd.Matrix.field(dim, dim, dt)
    I = qd.Matrix.field(dim, dim, dt)
    D = qd.Matrix.field(dim, dim, dt)

    qd.root.place(m, r, s, I, D)

    @qd.kernel
    def polar():
        R, S = qd.polar_decompose(m[None], dt)
        r[None] = R
        s[None] = S
        m[None] = R @ S
        I[None] = R @ R.transpose()
        D[None] = S - S.transpose()

    def V(i, j):
        return i * 2 + j * 7 + int(i == j) * 3

    for i in range(dim):
        for j in range(dim):
            m[None][i, j] = V(i, j)

    polar()

    tol = 5e-5 if dt == qd.f32 else 1e-12

    for i in range(dim):
        for j in range(dim):
            assert m[None][i, j] == test_utils.approx(V(i, j), abs=tol)
            assert I[None][i, j] == test_utils.approx(int(i == j), abs=tol)
            assert D[None][i, j] == test_utils.approx(0, abs=tol)


@pytest.mark.parametrize("n", range(1, 5))
@test_utils.test()
def test_mat_inverse_size(n):
    m = qd.Matrix.field(n, n, dtype=qd.f32, shape=())
    M = np.empty(shape=(n, n), dtype=np.float32)
    for i in range(n):
        for j in range(n):
            M[i, j] = i * j + i * 3 + j + 1 + int(i == j) * 4
    assert np.linalg.det(M) != 0

    m.from_numpy(M)

    @qd.kernel
    def invert():
        m[None] = m[None].inverse()

    invert()

    m_np = m.to_numpy(keep_dims=True)
    np.testing.assert_almost_equal(m_np, np.linalg.inv(M))


# ---------------------------------------------------------------------------
# Matrix.inverse for N up to 12 (LU with partial pivoting).
#
# qipc's ABD diagonal preconditioner needs Matrix.inverse at sizes up to 12×12. The existing closed-form path
# (≤ 4×4) is preserved; sizes 5–12 dispatch to a generic LU-with-partial-pivoting impl.
# ---------------------------------------------------------------------------


def _inverse_diagonally_dominant(n_, dt_):
    """Random N×N with a strong diagonal — well-conditioned, non-symmetric."""
    np_dt = np.float32 if dt_ == qd.f32 else np.float64
    rng = np.random.default_rng(0xD0B7 + n_)
    M = rng.standard_normal((n_, n_)).astype(np_dt)
    M += np.eye(n_, dtype=np_dt) * (n_ + 1)
    return M


def _inverse_spd(n_, dt_):
    """Symmetric positive-definite (qipc's ABD preconditioner is SPD)."""
    np_dt = np.float32 if dt_ == qd.f32 else np.float64
    rng = np.random.default_rng(0x5BD0 + n_)
    A = rng.standard_normal((n_, n_)).astype(np_dt)
    return (A @ A.T + np.eye(n_, dtype=np_dt) * 2.0).astype(np_dt)


def _inverse_pivoting_required(n_, dt_):
    """Permuted upper-triangular: top-left entry is zero so no-pivot LU would fail."""
    np_dt = np.float32 if dt_ == qd.f32 else np.float64
    rng = np.random.default_rng(0xB1C7 + n_)
    M = np.triu(rng.standard_normal((n_, n_)).astype(np_dt))
    np.fill_diagonal(M, np.arange(1.0, n_ + 1.0, dtype=np_dt))
    P = np.eye(n_, dtype=np_dt)
    perm = list(reversed(range(n_)))
    return (P[perm] @ M).astype(np_dt)


def _test_inverse_at_size(n_, dt_, factory):
    m = qd.Matrix.field(n_, n_, dtype=dt_, shape=())
    inv = qd.Matrix.field(n_, n_, dtype=dt_, shape=())
    M = factory(n_, dt_)
    assert np.abs(np.linalg.det(M)) > 1e-6, "test factory produced near-singular input"
    m.from_numpy(M)

    @qd.kernel
    def run():
        inv[None] = m[None].inverse()

    run()

    inv_np = inv.to_numpy()
    expected = np.linalg.inv(M)
    cond = float(np.linalg.cond(M))
    eps = np.finfo(np.float32 if dt_ == qd.f32 else np.float64).eps
    tol = 50 * cond * eps + (1e-5 if dt_ == qd.f32 else 1e-12)

    np.testing.assert_allclose(
        inv_np,
        expected,
        rtol=tol,
        atol=tol,
        err_msg=f"size {n_}, factory {factory.__name__}, cond={cond:.2e}",
    )
    # Round-trip M @ M⁻¹ ≈ I.
    np.testing.assert_allclose(M @ inv_np, np.eye(n_), rtol=tol, atol=tol)


@test_utils.test()
def test_any_all():
    a = qd.Matrix.field(2, 2, dtype=qd.i32, shape=())
    b = qd.field(dtype=qd.i32, shape=())
    c = qd.field(dtype=qd.i32, shape=())

    @qd.kernel
    def func():
        b[None] = any(a[None])
        c[None] = all(a[None])

    for i in range(2):
        for j in range(2):
            a[None][0, 0] = i
            a[None][1, 0] = j
            a[None][1, 1] = i
            a[None][0, 1] = j

            func()
            if i == 1 or j == 1:
                assert b[None] == 1
            else:
                assert b[None] == 0

            if i == 1 and j == 1:
                assert c[None] == 1
            else:
                assert c[None] == 0


@test_utils.test()
def test_min_max():
    a = qd.Matrix.field(2, 2, dtype=qd.i32, shape=())
    b = qd.field(dtype=qd.i32, shape=())
    c = qd.field(dtype=qd.i32, shape=())

    @qd.kernel
    def func():
        b[None] = a[None].max()
        c[None] = a[None].min()

    for i in range(2):
        for j in range(2):
            a[None][0, 0] = i
            a[None][1, 0] = j
            a[None][1, 1] = i
            a[None][0, 1] = j

            func()
            assert b[None] == max(i, j)
            assert c[None] == min(i, j)


# must not throw any error:


