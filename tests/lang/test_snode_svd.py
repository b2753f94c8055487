"""SNode trees (dense nesting, pointer/bitmasked as masked dense storage), qd.svd /
qd.polar_decompose, x.fill in kernels, and one field given to two template parameters."""
import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_nested_dense_shapes_parent_and_kernel_indexing():
    x, y = qd.field(qd.f32), qd.field(qd.i32)
    blk = qd.root.dense(qd.ij, (4, 3))
    cell = blk.dense(qd.ij, (2, 5))
    cell.place(x, y)
    assert x.shape == y.shape == (8, 15) and cell.shape == (8, 15) and blk.shape == (4, 3)
    assert x.parent() is cell and x.parent(2) is blk and blk.parent() is qd.root
    lin = qd.field(qd.i32)
    qd.root.dense(qd.i, 4).dense(qd.i, 8).place(lin)
    assert lin.shape == (32,)

    @qd.kernel
    def fill():
        for i, j in x:
            x[i, j] = i * 100 + j
        for i in lin:
            lin[i] = i

    fill()
    want = np.add.outer(np.arange(8) * 100, np.arange(15)).astype(np.float32)
    np.testing.assert_array_equal(x.to_numpy(), want)
    np.testing.assert_array_equal(lin.to_numpy(), np.arange(32))


def test_unplaced_field_is_refused_with_the_fix():
    x = qd.field(qd.f32)

    @qd.kernel
    def k():
        x[0] = 1

    with pytest.raises(RuntimeError, match="not placed"):  # Quadrants' check when it compiles (materialize.py)
        k()
    with pytest.raises(qd.QdRuntimeError, match="not placed"):
        x[0] = 1.0


def test_pointer_writes_activate_blocks_and_deactivate_zero_fills():
    x = qd.field(qd.f32)
    ptr = qd.root.pointer(qd.i, 8)
    ptr.dense(qd.i, 4).place(x)
    count, total = qd.field(qd.i32, shape=()), qd.field(qd.f32, shape=())

    @qd.kernel
    def write(i: qd.i32, v: qd.f32):
        x[i] = v

    @qd.kernel
    def visit():
        for i in x:
            count[None] += 1
            total[None] += x[i]

    @qd.kernel
    def kill(b: qd.i32):
        qd.deactivate(ptr, b)

    write(5, 2.0)
    x[30] = 3.0                      # from Python too
    visit()
    assert count[None] == 8 and total[None] == 5.0   # blocks 1 and 7, 4 cells each
    kill(1)
    assert x[5] == 0.0 and x[30] == 3.0               # a pointer cell's data is recycled zeroed
    count[None], total[None] = 0, 0.0
    visit()
    assert count[None] == 4 and total[None] == 3.0


def test_bitmasked_is_active_activate_and_deactivate_all():
    x = qd.field(qd.i32)
    bm = qd.root.dense(qd.i, 4).bitmasked(qd.j, 6)
    bm.place(x)
    hits = qd.field(qd.i32, shape=())

    @qd.kernel
    def run():
        qd.activate(bm, [1, 2])
        x[3, 5] = 7

    @qd.kernel
    def probe():
        for i, j in qd.ndrange(4, 6):
            hits[None] += qd.is_active(x.parent(), [i, j]) * (10 * i + j)

    run()
    probe()
    assert hits[None] == 12 + 35
    qd.root.deactivate_all()
    hits[None] = 0
    probe()
    assert hits[None] == 0 and x[3, 5] == 7       # bitmasked keeps the data, only the bits go


def test_fill_inside_a_kernel_and_on_sparse_fields():
    v = qd.Vector.field(2, qd.f32, shape=(3, 4))
    s = qd.field(qd.i32)
    ptr = qd.root.pointer(qd.i, 4)
    ptr.dense(qd.i, 2).place(s)

    @qd.kernel
    def k(a: qd.f32):
        v.fill(a)
        s[3] = 1
        s.fill(9)     # only active cells: block 1

    k(1.5)
    assert np.all(v.to_numpy() == 1.5)
    np.testing.assert_array_equal(s.to_numpy(), [0, 0, 9, 9, 0, 0, 0, 0])


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("dt,tol", [(qd.f32, 2e-5), (qd.f64, 1e-10)])
def test_svd_and_polar_decompose_follow_quadrants_conventions(n, dt, tol):
    A, U, S, V, R, P = (qd.Matrix.field(n, n, dtype=dt, shape=()) for _ in range(6))

    @qd.kernel
    def run():
        U[None], S[None], V[None] = qd.svd(A[None], dt)
        R[None], P[None] = qd.polar_decompose(A[None], dt)

    rng = np.random.default_rng(7 + n)
    npdt = np.float32 if dt == qd.f32 else np.float64
    cases = [rng.standard_normal((n, n)) for _ in range(4)]
    cases[1][0] *= -1   # a negative determinant
    for a in cases:
        A.from_numpy(a.astype(npdt))
        run()
        u, s, v, r, p = U.to_numpy(), S.to_numpy(), V.to_numpy(), R.to_numpy(), P.to_numpy()
        np.testing.assert_allclose(u @ s @ v.T, a, atol=tol * 10)
        np.testing.assert_allclose(u.T @ u, np.eye(n), atol=tol * 10)
        assert np.all(np.diff(np.diag(s)) <= tol)                      # descending
        np.testing.assert_allclose(np.abs(np.diag(s)), np.linalg.svd(a, compute_uv=False), atol=tol * 10)
        if n == 3:   # Quadrants: det(U) = det(V) = +1, det(A)'s sign is in sigma
            assert np.linalg.det(u) == pytest.approx(1, abs=tol * 10)
            assert np.linalg.det(v) == pytest.approx(1, abs=tol * 10)
        np.testing.assert_allclose(r @ p, a, atol=tol * 10)
        np.testing.assert_allclose(p, p.T, atol=tol * 10)


def test_one_field_for_two_template_parameters_compiles_an_aliased_specialisation():
    f, out = qd.field(qd.f32, shape=8), qd.field(qd.f32, shape=8)

    @qd.kernel
    def advect(qf: qd.template(), vf: qd.template(), nf: qd.template()):
        for i in qf:
            nf[i] = qf[i] + vf[i]

    f.from_numpy(np.arange(8, dtype=np.float32))
    advect(f, f, out)
    np.testing.assert_array_equal(out.to_numpy(), 2 * np.arange(8))
    aliased = advect.spec_for((f, f, out))
    plain = advect.spec_for((f, out, out.__class__(qd.f32, 8)))
    assert aliased != plain
    ptx = build_task_module(advect.tasks(aliased)[0], CodegenOptions("nvptx", None)).text
    entry = next(line for line in ptx.splitlines() if line.startswith("define"))
    assert entry.count("noalias") == 1        # nf keeps the promise; qf and vf may alias
    entry = next(line for line in build_task_module(advect.tasks(plain)[0], CodegenOptions("nvptx", None)).text
                 .splitlines() if line.startswith("define"))
    assert entry.count("noalias") == 3


def test_held_out_forms_break_chained_tuples_4d_and_numpy_constants():
    x = qd.field(qd.i32, shape=8)

    @qd.kernel
    def serial_break():
        qd.loop_config(serialize=True)
        for i in range(8):
            if x[i] < 0:
                break
            x[i] = 1

    @qd.kernel
    def static_break():
        if qd.static(True):
            for i in qd.static(range(6)):
                x[i] += 10
                if qd.static(i == 2):
                    break

    @qd.kernel
    def chained() -> qd.i32:
        (a, b) = (c, d) = (1, 2)
        return a + b * 10 + c * 100 + d * 1000 + np.array(3) * 10000

    x[4] = -1
    serial_break()
    static_break()
    assert x.to_numpy().tolist() == [11, 11, 11, 1, -1, 0, 0, 0]
    assert chained() == 32121
    a4 = qd.ndarray(qd.f32, shape=(2, 3, 4, 5))

    @qd.kernel
    def four(a: qd.types.ndarray(ndim=4)):
        for i, j, k, l in a:
            a[i, j, k, l] = i * 1000 + j * 100 + k * 10 + l

    four(a4)
    assert a4.to_numpy()[1, 2, 3, 4] == 1234.0
