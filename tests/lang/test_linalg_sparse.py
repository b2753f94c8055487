"""`qd.linalg`: sparse matrices built in kernels (`A[i, j] += v` on a `sparse_matrix_builder()`
argument), their operators, the direct and CG sparse solvers, and the matrix-free CG. Expected
values are what real Quadrants 1.3.3 printed for the same program on the CPU."""
import math

import numpy as np
import pytest

import qdexplorer.lang as qd

N = 4


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _tridiagonal():
    builder = qd.linalg.SparseMatrixBuilder(N, N, max_num_triplets=100, dtype=qd.f32)
    b = qd.ndarray(qd.f32, shape=N)

    @qd.kernel
    def fill(A: qd.types.sparse_matrix_builder(), b: qd.types.ndarray()):
        for i in range(N):
            A[i, i] += 4.0
            b[i] = i + 1.0
        for i in range(N - 1):
            A[i, i + 1] -= 1.0
            A[i + 1, i] -= 1.0
        A[0, 0] += 1.0                      # a duplicate triplet: summed

    fill(builder, b)
    return builder.build(), b


def test_a_builder_filled_in_a_kernel_builds_the_matrix_and_its_operators_work():
    A, _ = _tridiagonal()
    assert (A[0, 0], A[0, 1], A.shape) == (5.0, -1.0, (N, N))
    assert str(A) == "[ 5, -1,  0,  0]\n[-1,  4, -1,  0]\n[ 0, -1,  4, -1]\n[ 0,  0, -1,  4]"
    assert ((A @ A)[0, 0], (A + A)[1, 1], (A - 0.5 * A)[1, 1], (A * A)[0, 1], A.transpose()[1, 0], (A * 2.0)[2, 2]) \
        == (26.0, 8.0, 2.0, 1.0, -1.0, 8.0)
    np.testing.assert_array_equal(A @ np.ones(N, np.float32), [4, 2, 2, 3])
    A[0, 0] = 10.0
    assert A[0, 0] == 10.0


def test_sparse_solver_and_sparse_cg_solve_the_system(capfd):
    A, b = _tridiagonal()
    np.testing.assert_array_equal((A @ b).to_numpy(), [3, 4, 6, 13])
    solver = qd.linalg.SparseSolver(solver_type="LLT")
    solver.analyze_pattern(A)
    solver.factorize(A)
    want = [0.38491, 0.92453, 1.31321, 1.3283]
    np.testing.assert_allclose(solver.solve(b).to_numpy(), want, atol=1e-5)
    assert solver.info()
    x, converged = qd.linalg.SparseCG(A, b, None, max_iter=50, atol=1e-6).solve()
    np.testing.assert_allclose(x, want, atol=1e-4)
    assert converged and capfd.readouterr().out.startswith("#iterations:     3\nestimated error: ")


def test_many_threads_adding_to_one_builder_sum_their_triplets():
    n = 64
    builder = qd.linalg.SparseMatrixBuilder(n, n, max_num_triplets=n * n, dtype=qd.f64)

    @qd.kernel
    def fill(A: qd.types.sparse_matrix_builder()):
        for i, j in qd.ndrange(n, n):
            A[i % 8, j % 8] += 1.0

    fill(builder)
    A = builder.build()
    assert A[3, 5] == 64.0 and A[8, 8] == 0.0


def test_matrix_free_cg_solves_a_poisson_like_system():
    grid = 12
    x, b, ax = (qd.field(qd.f32, shape=(grid, grid)) for _ in range(3))

    @qd.kernel
    def init():
        for i, j in qd.ndrange(grid, grid):
            b[i, j] = qd.sin(2 * math.pi * i / (grid - 1)) * qd.sin(2 * math.pi * j / (grid - 1))

    @qd.kernel
    def compute_ax(v: qd.template(), mv: qd.template()):
        for i, j in v:
            left = v[i - 1, j] if i - 1 >= 0 else 0.0
            right = v[i + 1, j] if i + 1 <= grid - 1 else 0.0
            top = v[i, j + 1] if j + 1 <= grid - 1 else 0.0
            bottom = v[i, j - 1] if j - 1 >= 0 else 0.0
            mv[i, j] = 20 * v[i, j] - left - right - top - bottom

    init()
    qd.linalg.MatrixFreeCG(qd.linalg.LinearOperator(compute_ax), b, x, maxiter=500, tol=1e-10, quiet=True)
    compute_ax(x, ax)
    np.testing.assert_allclose(ax.to_numpy(), b.to_numpy(), atol=1e-5)
