"""Reverse-mode autodiff (`kernel.grad`, `qd.ad.Tape`): gradients against closed forms and
central finite differences (f64, so the comparison is tight), and the refusals' messages."""
import re
import math

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.engine import Engine
from qdexplorer.lang.autodiff.reverse import AutodiffError


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


@qd.func
def _f0(x):
    return qd.sin(x)


@qd.func
def _f1(x):
    return qd.cos(x)


@qd.func
def _f2(x):
    return qd.exp(x)


@qd.func
def _f3(x):
    return qd.log(x)


@qd.func
def _f4(x):
    return qd.tanh(x)


@qd.func
def _f5(x):
    return qd.sqrt(x)


@qd.func
def _f6(x):
    return qd.abs(-x)


@qd.func
def _f7(x):
    return x ** 3


@qd.func
def _f8(x):
    return x ** 2.5


@qd.func
def _f9(x):
    return 1 / x


_C04 = float(np.float32(0.4))


@qd.func
def _f10(x):
    return qd.atan2(x, 0.4)


@qd.func
def _f11(x):
    return qd.max(x, 0.5)


@qd.func
def _f12(x):
    return qd.min(x, 0.5)


@qd.func
def _f13(x):
    return qd.asin(x)


UNARY = [
    (_f0, math.cos),
    (_f1, lambda v: -math.sin(v)),
    (_f2, math.exp),
    (_f3, lambda v: 1 / v),
    (_f4, lambda v: 1 - math.tanh(v) ** 2),
    (_f5, lambda v: 0.5 / math.sqrt(v)),
    (_f6, lambda v: 1.0),
    (_f7, lambda v: 3 * v * v),
    (_f8, lambda v: 2.5 * v ** 1.5),
    (_f9, lambda v: -1 / v ** 2),
    (_f10, lambda v: _C04 / (_C04 * _C04 + v * v)),  # the literal 0.4 is default_fp (f32), as in Quadrants
    (_f11, lambda v: 0.0),
    (_f12, lambda v: 1.0),
    (_f13, lambda v: 1 / math.sqrt(1 - v * v)),
]


@pytest.mark.parametrize("k", range(len(UNARY)))
def test_unary_closed_form(k):
    f, df = UNARY[k]
    x = qd.field(qd.f64, shape=2, needs_grad=True)
    y = qd.field(qd.f64, shape=2, needs_grad=True)

    @qd.kernel
    def apply():
        for i in x:
            y[i] = f(x[i])

    x.from_numpy(np.array([0.234, 0.4]))
    apply()
    y.grad.fill(1.0)
    apply.grad()
    assert np.allclose(x.grad.to_numpy(), [df(0.234), df(0.4)], rtol=1e-10)
    assert np.all(y.grad.to_numpy() == 0)  # a store's adjoint is consumed, as Quadrants does


def test_loops_branches_funcs_against_finite_differences():
    qd.init(arch=qd.cpu, ad_stack_experimental_enabled=True)  # a dynamic loop inside the parallel one
    n = 6
    x = qd.field(qd.f64, shape=n, needs_grad=True)
    w = qd.Vector.field(3, qd.f64, shape=n, needs_grad=True)
    y = qd.field(qd.f64, shape=n, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.func
    def soft(a):
        return a * qd.sin(a) + qd.sqrt(a * a + 1.0)

    @qd.kernel
    def forward(m: qd.i32):
        for i in range(n):
            s = x[i] * 0.0              # an f64 local (a bare 0.0 is f32)
            for j in range(m):          # a dynamic loop whose carried float only accumulates
                s += x[j] * x[i]
            if x[i] > 0.5:
                s = s * 2
            v = w[i]
            t = soft(s) + v.norm() + qd.exp(x[i]) / (1 + x[i] ** 2)
            for k in qd.static(range(2)):
                t = t * qd.tanh(v[k])
            y[i] = t
            loss[None] += y[i] * y[i]

    rng = np.random.default_rng(1)
    xv, wv = rng.uniform(0.1, 1, n), rng.uniform(0.2, 1, (n, 3))

    def value(xs, ws):
        x.from_numpy(xs)
        w.from_numpy(ws)
        loss[None] = 0
        forward(4)
        return loss[None]

    x.from_numpy(xv)
    w.from_numpy(wv)
    with qd.ad.Tape(loss=loss):
        forward(4)
    gx, gw = x.grad.to_numpy(), w.grad.to_numpy()
    eps = 1e-6
    for i in range(n):
        d = np.zeros(n)
        d[i] = eps
        assert gx[i] == pytest.approx((value(xv + d, wv) - value(xv - d, wv)) / (2 * eps), rel=1e-6)
        for c in range(3):
            e = np.zeros((n, 3))
            e[i, c] = eps
            assert gw[i, c] == pytest.approx((value(xv, wv + e) - value(xv, wv - e)) / (2 * eps), rel=1e-6)


def test_tape_runs_kernels_in_reverse_and_kernel_scope_locals():
    a = qd.field(qd.f32, shape=(), needs_grad=True)
    x = qd.field(qd.f32, shape=4, needs_grad=True)
    z = qd.field(qd.f32, shape=4, needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def scale():
        s = a[None] * 3.0           # a kernel-scope local, kept between the kernel's tasks
        for i in range(4):
            z[i] = s * x[i]

    @qd.kernel
    def total():
        for i in z:
            loss[None] += z[i] ** 2

    a[None] = 2.0
    x.from_numpy(np.arange(4, dtype=np.float32))
    with qd.ad.Tape(loss=loss):
        scale()
        total()
    xs = np.arange(4)
    assert loss[None] == pytest.approx(36 * (xs ** 2).sum())
    assert np.allclose(x.grad.to_numpy(), 2 * 36 * xs)            # d/dx (6x)^2
    assert a.grad[None] == pytest.approx(2 * 9 * a[None] * (xs ** 2).sum())


def test_ndarray_argument_gradient_and_grad_call():
    @qd.kernel
    def sq(arr: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.f32, ndim=0)):
        for i in arr:
            out[None] += arr[i] * arr[i] * 0.5

    arr = qd.ndarray(qd.f32, shape=5, needs_grad=True)
    out = qd.ndarray(qd.f32, shape=(), needs_grad=True)
    arr.from_numpy(np.arange(5, dtype=np.float32) + 1)
    sq(arr, out)
    out.grad.fill(2.0)
    sq.grad(arr, out)
    assert np.allclose(arr.grad.to_numpy(), 2 * (np.arange(5) + 1))


def test_grad_kernel_has_its_own_tasks():
    x = qd.field(qd.f32, shape=8, needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def k():
        for i in x:
            loss[None] += qd.sin(x[i])

    tasks = k.grad.tasks()
    assert [t.name for t in tasks] == ["k_kernel_0_range_for_grad"]
    assert tasks[0].kernel == "k.grad"
    assert {p.name for p in tasks[0].params} == {"x", "x__grad", "loss__grad"}
    assert {a.key for a in tasks[0].implicit} == {x.uid, x.grad.uid, loss.grad.uid}


def test_dynamic_inner_loop_needs_the_adstack_as_in_quadrants():
    """Quadrants refuses a non-static range inside a loop in a reverse-mode kernel unless its adstack is
    on (`ad_stack_experimental_enabled`, off by default): the message and the loop's line, as there."""
    x = qd.field(qd.f32, shape=4, needs_grad=True)
    y = qd.field(qd.f32, shape=4, needs_grad=True)

    @qd.kernel
    def power(n: qd.i32):
        for i in x:
            r = 1.0
            for _ in range(n):
                r = r * x[i]
            y[i] = r

    with pytest.raises(qd.QuadrantsCompilationError, match=r"Cannot use non static range in Backwards mode") as e:
        power.grad(3)
    assert e.value.file == __file__ and e.value.line == power.line + 4


def test_random_in_a_gradient_is_refused_and_needs_grad_on_int():
    x = qd.field(qd.f32, shape=(), needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def noisy():
        loss[None] = x[None] * qd.random()

    with pytest.raises(RuntimeError, match="RandStmt not supported"):
        with qd.ad.Tape(loss=loss):
            noisy()
    with pytest.raises(TypeError, match="i32 is not supported for field"):
        qd.field(qd.i32, shape=3, needs_grad=True)
    with pytest.raises(AttributeError, match="needs_grad=True"):
        qd.field(qd.f32, shape=3).grad  # noqa: B018


def test_clear_all_gradients_and_grad_replaced():
    x = qd.field(qd.f32, shape=3, needs_grad=True)
    total = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def acc(mul: qd.f32):
        for i in x:
            total[None] += x[i] * mul

    @qd.ad.grad_replaced
    def forward(mul):
        acc(mul)
        acc(mul)

    @qd.ad.grad_for(forward)
    def backward(mul):
        acc.grad(mul)

    x.grad.fill(5)
    qd.ad.clear_all_gradients()
    assert np.all(x.grad.to_numpy() == 0)
    with qd.ad.Tape(loss=total):
        forward(4.0)
    assert np.all(x.grad.to_numpy() == 4)  # the hand-written gradient ran once, not twice


def test_project_lists_and_compiles_grad_kernels(tmp_path):
    """A kernel file with needs_grad fields shows `k.grad` beside `k`, with its own compiled task."""
    (tmp_path / "diff.py").write_text(
        "import qdexplorer.lang as qd\n"
        "x = qd.field(qd.f32, shape=64, needs_grad=True)\n"
        "loss = qd.field(qd.f32, shape=(), needs_grad=True)\n\n"
        "@qd.kernel\n"
        "def energy():\n"
        "    for i in x:\n"
        "        loss[None] += qd.sin(x[i]) * x[i]\n")
    with Engine(tmp_path, backend="cpu", workers=1, cache_dir=str(tmp_path / "c")) as eng:
        assert {"energy", "energy.grad"} <= set(eng.project.kernels)
        out = eng.compile(["energy.grad"], target="nvptx")
    assert [t.name for kt in out.kernels for t in kt.tasks] == ["energy_kernel_0_range_for_grad"]
    (ct,) = out.tasks
    # x.grad[i] += ... touches only its own iteration's element: a plain load, add and store (codegen/demote.py)
    ptx = ct.produced["ptx"].data
    assert not ct.error and not re.search(rb"\b(atom|red)\.global", ptx) and re.search(rb"\bst\.global", ptx)


def test_abs_derivative_is_sgn_so_zero_at_zero():
    """Quadrants differentiates |x| as sgn(x): 0 at x == 0 (qdexplorer gave 1 there; upstream test_abs)."""
    x = qd.field(qd.f32, shape=5, needs_grad=True)
    y = qd.field(qd.f32, shape=5, needs_grad=True)
    z = qd.field(qd.f32, shape=5, needs_grad=True)

    @qd.kernel
    def k():
        for i in range(5):
            y[i] = abs(x[i])
            z[i] = qd.abs(x[i]) * 2.0

    x.from_numpy(np.array([-2.0, -0.5, 0.0, 0.5, 3.0], np.float32))
    y.grad.fill(1.0)
    z.grad.fill(1.0)
    k()
    k.grad()
    assert x.grad.to_numpy().tolist() == [-3.0, -3.0, 0.0, 3.0, 3.0]


def test_ndarray_annotated_needs_grad_false_gets_no_gradient():
    """`qd.types.ndarray(needs_grad=False)`: k.grad leaves that argument's .grad at 0, as Quadrants
    (qdexplorer filled it: a silent wrong gradient found by upstream test_ad_ndarray)."""
    @qd.kernel
    def k(x: qd.types.ndarray(needs_grad=False), w: qd.types.ndarray(), y: qd.types.ndarray()):
        for i in range(3):
            y[0] += x[i] * w[i]

    x = qd.ndarray(qd.f32, shape=3, needs_grad=True)
    w = qd.ndarray(qd.f32, shape=3, needs_grad=True)
    y = qd.ndarray(qd.f32, shape=1, needs_grad=True)
    x.from_numpy(np.array([1.0, 2.0, 3.0], np.float32))
    w.from_numpy(np.array([4.0, 5.0, 6.0], np.float32))
    k(x, w, y)
    y.grad.fill(1.0)
    k.grad(x, w, y)
    assert x.grad.to_numpy().tolist() == [0.0, 0.0, 0.0]
    assert w.grad.to_numpy().tolist() == [1.0, 2.0, 3.0]
