"""Language features the upstream programs (examples/upstream/) needed, each checked on its own:
matrix slices, `@qd.func(requires_top_level=True)`, `qd.solve`, f-string assert messages,
`place(x, x.grad)` and `qd.root.lazy_grad()`, `if qd.static(template)` around a top-level loop,
`template_primitives=False`, `qd.Layout`; and the left-out ones failing in one line at the
caller's file:line."""
import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True, params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def backend(request):
    """Every test on the CPU, and on CUDA where a GPU exists (the frontend is shared; the f64 assert
    values array and the slices' stores go through each backend's codegen)."""
    qd.init(arch=request.param)
    yield request.param
    qd.reset()


def test_static_if_on_a_template_argument_around_a_top_level_loop():
    a = qd.field(qd.i32, shape=4)

    @qd.kernel
    def k(enable: qd.template(), n: int, a: qd.template()):
        if qd.static(enable):
            for i in range(n):
                a[i] += 1

    k(True, 4, a)
    k(False, 4, a)
    k(True, 2, a)
    assert a.to_numpy().tolist() == [2, 2, 1, 1]


def test_matrix_slices_read_assign_and_update():
    out = qd.ndarray(qd.types.matrix(4, 4, qd.f32), shape=(1,))
    col = qd.ndarray(qd.f32, shape=(4,))

    @qd.kernel
    def k(out: qd.types.NDArray[qd.types.matrix(4, 4, qd.f32), 1], col: qd.types.NDArray[qd.f32, 1]):
        T = qd.Matrix.identity(qd.f32, 4)
        T[:3, :3] = qd.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
        T[:3, 3] = qd.Vector([10.0, 11.0, 12.0])
        T[:, 0] *= -1.0
        c = T[1:3, 1]
        m = T[:2, 2:]
        col[0], col[1], col[2], col[3] = c[0], c[1], m[0, 0], m[1, 1]
        out[0] = T

    k(out, col)
    want = np.array([[-1, 2, 3, 10], [-4, 5, 6, 11], [-7, 8, 9, 12], [0, 0, 0, 1]], np.float32)
    np.testing.assert_array_equal(out.to_numpy()[0], want)
    assert col.to_numpy().tolist() == [5.0, 8.0, 3.0, 11.0]


def test_a_slice_beside_a_runtime_index():
    """`m[:, j]` with j a kernel value picks the column at run time, as Quadrants does (it was refused)."""
    @qd.kernel
    def k(j: int) -> qd.f32:
        m = qd.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
        v = m[:, j]
        return v[0] + v[2] * 10

    assert [k(0), k(1), k(2)] == [71.0, 82.0, 93.0]


def test_requires_top_level_funcs_are_refused_inside_runtime_control_flow():
    arr = qd.field(qd.i32, shape=8)

    @qd.func(requires_top_level=True)
    def op(arr: qd.template(), n: qd.i32):
        for i in range(n):
            arr[i] += 1

    @qd.func
    def helper(arr: qd.template(), n: qd.i32):
        op(arr, n)

    @qd.kernel
    def good(arr: qd.template(), n: qd.i32):
        helper(arr, n)
        for _ in qd.static(range(2)):
            op(arr, n)

    @qd.kernel
    def bad(arr: qd.template(), n: qd.i32, flag: qd.i32):
        if flag > 0:
            helper(arr, n)

    good(arr, 3)
    assert arr.to_numpy().tolist() == [3, 3, 3, 0, 0, 0, 0, 0]
    with pytest.raises(qd.QuadrantsSyntaxError, match="requires_top_level.*through 'helper'"):
        bad(arr, 3, 1)


@pytest.mark.parametrize("n", [2, 3])
def test_solve_matches_numpy_with_pivoting(n):
    rng = np.random.default_rng(n)
    A = rng.standard_normal((16, n, n)).astype(np.float64)
    A[:, 0, 0] = 0.0  # the first pivot must be swapped
    b = rng.standard_normal((16, n))
    Aq = qd.ndarray(qd.types.matrix(n, n, qd.f64), shape=(16,))
    bq = qd.ndarray(qd.types.vector(n, qd.f64), shape=(16,))
    xq = qd.ndarray(qd.types.vector(n, qd.f64), shape=(16,))
    Aq.from_numpy(A)
    bq.from_numpy(b)

    @qd.kernel
    def k(A: qd.types.NDArray[qd.types.matrix(n, n, qd.f64), 1], b: qd.types.NDArray[qd.types.vector(n, qd.f64), 1],
          x: qd.types.NDArray[qd.types.vector(n, qd.f64), 1]):
        for i in range(A.shape[0]):
            x[i] = qd.solve(A[i], b[i], qd.f64)

    k(Aq, bq, xq)
    np.testing.assert_allclose(xq.to_numpy(), np.linalg.solve(A, b[..., None])[..., 0], rtol=1e-9, atol=1e-9)


def test_an_f_string_assert_message_shows_the_failing_values(backend):
    qd.init(arch=backend, debug=True)
    a = qd.field(qd.i32, shape=10)

    @qd.kernel
    def check(a: qd.template()):
        for i in range(10):
            assert a[i] >= 0, f"negative value {a[i] * 0.5:.2f} at index {i} {{literal}}"

    check(a)
    a[7] = -3
    with pytest.raises(AssertionError, match=r"negative value -1\.50 at index 7 \{literal\}"):
        check(a)


def test_place_x_and_x_grad_then_reverse_mode():
    """Quadrants' autodiff guide: `qd.root.dense(qd.i, 16).place(x, x.grad)` on unplaced fields."""
    x, y = qd.field(qd.f32), qd.field(qd.f32)
    qd.root.dense(qd.i, 16).place(x, x.grad)
    qd.root.place(y, y.grad)

    @qd.kernel
    def compute():
        for i in x:
            y[None] += x[i] * x[i]

    x.from_numpy(np.arange(16, dtype=np.float32))
    with qd.ad.Tape(loss=y):
        compute()
    assert y[None] == 1240.0
    np.testing.assert_array_equal(x.grad.to_numpy(), 2 * np.arange(16, dtype=np.float32))


def test_a_gradient_placed_in_a_container_of_another_shape_is_refused():
    x = qd.field(qd.f32)
    qd.root.dense(qd.i, 4).place(x)
    with pytest.raises(qd.QuadrantsRuntimeError, match="same shape"):
        qd.root.dense(qd.i, 8).place(x.grad)


def test_root_lazy_grad_covers_shape_fields_and_placed_fields():
    a = qd.field(qd.f32, shape=3)
    b = qd.field(qd.f32)
    n = qd.field(qd.i32, shape=3)
    qd.root.dense(qd.i, 5).place(b)
    qd.root.lazy_grad()
    assert a.grad.shape == (3,) and b.grad.shape == (5,)
    with pytest.raises(AttributeError, match="has no gradient"):
        n.grad  # noqa: B018 - integers get none, as in Quadrants


def test_template_primitives_false_sees_the_current_value_and_the_default_bakes():
    def make(runtime: bool):
        deco = qd.data_oriented(template_primitives=False) if runtime else qd.data_oriented

        @deco
        class Sim:
            def __init__(self):
                self.n = 2
                self.x = qd.field(qd.f32, shape=6)

            @qd.kernel
            def step(self):
                for i in range(self.n):
                    self.x[i] += 1.0
        return Sim()

    for runtime, want in ((True, [2, 2, 1, 1, 0, 0]), (False, [2, 2, 0, 0, 0, 0])):
        s = make(runtime)
        s.step()
        s.n = 4
        s.step()
        assert s.x.to_numpy().tolist() == want


def test_layout_is_accepted_for_struct_fields():
    P = qd.types.struct(pos=qd.types.vector(3, qd.f32), mass=qd.f32)
    for layout in (qd.Layout.AOS, qd.Layout.SOA):
        p = P.field(shape=(4,), layout=layout)
        p.mass.fill(2.0)
        assert p.mass.to_numpy().sum() == 8.0


@pytest.mark.parametrize("what, call", [
    ("needs_dual", lambda x: qd.ndarray(qd.f32, shape=3, needs_dual=True)),
    ("checkpoints", lambda x: qd.kernel(checkpoints=True)),
])
def test_left_out_features_fail_in_one_line_at_the_callers_line(what, call):
    x = qd.field(qd.f32, shape=1)
    with pytest.raises((NotImplementedError, AttributeError)) as e:
        call(x)
    msg = str(e.value)
    assert len(msg.splitlines()) == 1 and "not supported by qdexplorer" in msg
    where = f"{__file__}:{call.__code__.co_firstlineno}"
    assert msg.startswith(f"{where}: ") or f"is not supported by qdexplorer.lang ({where})" in msg, msg
    assert what.split()[0].split(".")[-1].lower() in msg.lower()
