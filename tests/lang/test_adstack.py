"""Quadrants' adstack: reverse-mode autodiff through dynamic loops whose carried locals are used
non-linearly (`qd.init(ad_stack_experimental_enabled=True)`). Expected values are real Quadrants
1.3.3's on the CPU (measured with the same kernels), or closed forms / finite differences."""
import math

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer import ir


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu, ad_stack_experimental_enabled=True)
    yield
    qd.reset()


def test_nested_loops_with_branches_match_quadrants():
    x = qd.field(qd.f64, shape=3, needs_grad=True)
    y = qd.field(qd.f64, shape=3, needs_grad=True)
    n = qd.field(qd.i32, shape=3)

    @qd.kernel
    def nested():
        for i in x:
            v = x[i]
            w = 0.5
            for j in range(n[i]):
                if v > 0.8:
                    v = qd.sin(v) * w
                else:
                    v = v * v + 0.3
                for k in range(j):  # an inner stack, refilled at each outer iteration's reverse
                    w = w * qd.cos(v) + 0.1
            y[i] = v * w

    x.from_numpy(np.array([0.3, 0.9, 1.4]))
    n.from_numpy(np.array([3, 4, 5], dtype=np.int32))
    nested()
    y.grad.fill(1.0)
    nested.grad()
    # Quadrants 1.3.3 (w is an f32 local there too: 0.5 is a default_fp literal)
    np.testing.assert_allclose(y.to_numpy(), [0.3071312522234648, 0.3500462358177974, 0.3146543707341628],
                               rtol=1e-12)
    np.testing.assert_allclose(x.grad.to_numpy(), [0.10854174911111018, -0.015729583494826636,
                                                   -0.052540156647669055], rtol=1e-6)


def test_power_loop_and_vector_components_each_get_a_stack():
    x = qd.field(qd.f32, shape=2, needs_grad=True)
    y = qd.field(qd.f32, shape=2, needs_grad=True)
    m = qd.field(qd.i32, shape=())

    @qd.kernel
    def power():
        for i in x:
            r = 1.0
            q = qd.Vector([x[i], x[i] * 0.5])
            for _ in range(m[None]):
                r = r * x[i]
                q = qd.Vector([q[0] * q[0], q[1] + q[0] * 0.1])  # two locals named q: two stacks
            y[i] = r + q[1]

    xv = np.array([0.3, 0.7], np.float32)
    x.from_numpy(xv)
    m[None] = 2
    power()
    y.grad.fill(1.0)
    power.grad()
    # r = x^2, q[1] = 0.6 x + 0.1 x^2 after two iterations
    np.testing.assert_allclose(x.grad.to_numpy(), 2 * xv + 0.6 + 0.2 * xv, rtol=1e-5)


def test_while_loop_against_finite_differences():
    x = qd.field(qd.f64, shape=2, needs_grad=True)
    y = qd.field(qd.f64, shape=2, needs_grad=True)

    @qd.kernel
    def grow():
        for i in x:
            v = x[i]
            while v < 3.0:
                v = v * v + qd.sin(v)
            y[i] = v

    def value(xs):
        x.from_numpy(xs)
        grow()
        return y.to_numpy()

    xv = np.array([0.4, 1.1])
    x.from_numpy(xv)
    grow()
    y.grad.fill(1.0)
    grow.grad()
    eps = 1e-7
    fd = (value(xv + eps) - value(xv - eps)) / (2 * eps)
    np.testing.assert_allclose(x.grad.to_numpy(), fd, rtol=1e-6)


def _overflowing():
    x = qd.field(qd.f32, shape=4, needs_grad=True)
    y = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def compute():
        for i in x:
            v = x[i]
            for _ in range(64):
                y[None] += qd.sin(v)
                v = v + 1.0

    x.fill(0.1)
    compute()
    y.grad[None] = 1.0
    return compute, x


def test_overflow_raises_and_a_larger_stack_gives_quadrants_gradient():
    qd.init(arch=qd.cpu, ad_stack_experimental_enabled=True, ad_stack_size=32)
    compute, x = _overflowing()
    with pytest.raises(qd.QuadrantsAssertionError, match=r"Adstack overflow: .*qd.init\(ad_stack_size=N\)"):
        compute.grad()
    qd.init(arch=qd.cpu, ad_stack_experimental_enabled=True, ad_stack_size=64)
    compute, x = _overflowing()
    compute.grad()
    assert x.grad[0] == pytest.approx(1.1307517290115356, rel=1e-6)  # Quadrants 1.3.3
    assert x.grad[0] == pytest.approx(sum(math.cos(0.1 + k) for k in range(64)), rel=1e-5)


def test_accumulating_loops_take_no_stack():
    """A loop whose carried floats only accumulate re-runs forwards in the reverse pass (Quadrants'
    test_large_for_loops_fixed_stack_size: ad_stack_size=1 and ten million iterations)."""
    qd.init(arch=qd.cpu, ad_stack_experimental_enabled=True, ad_stack_size=1)
    x = qd.field(qd.f32, shape=(), needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def k():
        for i in range(5):
            for j in range(200):
                s = 0.0
                for c in range(10):
                    s += qd.sin(x[None]) * c
                loss[None] += s

    with qd.ad.Tape(loss=loss):
        k()
    assert x.grad[None] == pytest.approx(5 * 200 * 45 * math.cos(0.0))
    assert not any(isinstance(n, ir.Load) and isinstance(n.array, ir.LocalArray)
                   for t in k.grad.tasks() for n in ir.walk(t.body))


def test_without_the_adstack_quadrants_refusal_names_the_loop():
    qd.init(arch=qd.cpu)
    x = qd.field(qd.f32, shape=2, needs_grad=True)
    y = qd.field(qd.f32, shape=2, needs_grad=True)

    @qd.kernel
    def k():
        for i in x:
            v = x[i]
            for _ in range(3):
                v = v * v
            y[i] = v

    k()
    with pytest.raises(qd.QuadrantsCompilationError, match="Cannot use non static range in Backwards mode") as e:
        k.grad()
    assert e.value.line == k.line + 4


@pytest.mark.parametrize("adstack", [False, True])
def test_stores_into_a_field_with_a_gradient_reverse_the_iterations(adstack):
    """`out[i] = out[i - 1] + x` in a dynamic loop: the adjoint runs down the chain only when the
    reverse visits the iterations last first (Quadrants: x.grad = n); stack or no stack."""
    qd.init(arch=qd.cpu, ad_stack_experimental_enabled=adstack)
    n = 4
    x = qd.field(qd.f32, shape=(), needs_grad=True)
    out = qd.field(qd.f32, shape=n, needs_grad=True)

    @qd.kernel
    def chain():
        for _ in range(1):
            for i in range(n):
                if i == 0:
                    out[i] = x[None]
                else:
                    out[i] = out[i - 1] + x[None]

    x[None] = 1.0
    chain()
    out.grad[n - 1] = 1.0
    if not adstack:  # as Quadrants: a range loop inside a loop needs the adstack
        with pytest.raises(qd.QuadrantsCompilationError, match="non static range"):
            chain.grad()
        return
    chain.grad()
    assert x.grad[None] == 4.0


def test_cross_iteration_read_after_write_in_the_parallel_loop_is_refused_as_in_quadrants():
    n = 4
    x = qd.field(qd.f32, shape=(), needs_grad=True)
    out = qd.field(qd.f32, shape=(n, 2), needs_grad=True)

    @qd.kernel
    def siblings():  # another component of the same row, and in place: no dependency across iterations
        for i in range(n):
            out[i, 0] = out[i, 1] * x[None]
            out[i, 1] = out[i, 1] + x[None]

    @qd.kernel
    def chain():
        for i in range(1, n):
            out[i, 0] = out[i - 1, 0] + x[None]

    out.fill(1.0)
    siblings()
    out.grad.fill(1.0)
    siblings.grad()
    assert x.grad[None] == pytest.approx(n * (1.0 + 1.0))
    with pytest.raises(RuntimeError, match=r"Cross-iteration read-after-write on the `needs_grad` global field "
                                           r"`out`") as e:
        chain.grad()
    assert e.value.line == chain.line + 3


def test_a_tuple_of_indices_spreads_into_a_subscript_and_its_gradient_matches_quadrants():
    vec3 = qd.types.vector(3, qd.f32)
    data = qd.field(dtype=vec3, shape=(2,), needs_grad=True)
    field = qd.field(dtype=vec3, shape=(2, 2, 2, 1), needs_grad=True)
    data[0] = qd.Vector([1.0, 1.0, 1.0])

    @qd.kernel
    def k(data: qd.template(), field: qd.template()):
        for _ in qd.ndrange(1):
            base = qd.floor(data[0]).cast(qd.i32)  # an index vector, then one more index
            field[base, 0] += data[0]
        for ii, jj, kk, i_b in qd.ndrange(2, 2, 2, 1):
            I = (ii, jj, kk)  # a tuple of indices, then one more index
            if field[I, i_b][0] > 0.0:
                field[I, i_b] = field[I, i_b] / field[I, i_b]
        for _ in qd.ndrange(1):
            base = qd.floor(data[0]).cast(qd.i32)
            data[1] = data[0] + field[base, 0]

    field[1, 1, 1, 0] = qd.Vector([1.0, 1.0, 1.0])
    k(data, field)
    data.grad[1] = qd.Vector([1.0, 1.0, 1.0])
    k.grad(data, field)
    # Quadrants 1.3.3
    assert data.to_numpy().tolist() == [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]
    assert data.grad.to_numpy().tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]


def test_an_integer_carried_by_an_accumulating_loop_and_a_stacked_inner_one():
    """The outer loop only accumulates (no stack), the inner one needs a stack and also advances `c`,
    which the outer loop carries: each inner iteration must replay with its own `c`."""
    qd.init(arch=qd.cpu, ad_stack_experimental_enabled=True, default_fp=qd.f64)
    x = qd.field(qd.f64, shape=2, needs_grad=True)
    y = qd.field(qd.f64, shape=2, needs_grad=True)

    @qd.kernel
    def k():
        for i in x:
            c = 0
            s = 0.0
            for j in range(3):
                v = x[i]
                for kk in range(2):
                    v = v * v * 0.5 + c * 0.1
                    c += 1
                s += v
            y[i] = s

    x.from_numpy(np.array([0.3, 0.8]))
    k()
    y.grad.fill(1.0)
    k.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), [0.2205, 1.2480000000000002], rtol=1e-12)  # Quadrants 1.3.3


def test_adaptive_size_fits_a_constant_trip_count_beyond_the_default():
    """ad_stack_size=0 (Quadrants' adaptive default): a loop of a constant trip count gets a stack of
    exactly that many entries, so 3000 iterations need no ad_stack_size (the default holds 1024)."""
    qd.init(arch=qd.cpu, ad_stack_experimental_enabled=True, default_fp=qd.f64)
    x = qd.field(qd.f64, shape=2, needs_grad=True)
    y = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def k():
        for i in x:
            v = x[i]
            for _ in range(3000):
                y[None] += qd.sin(v) * 1e-3
                v = v + 1e-3
            for j in range(2, 5):
                v = v * v
            y[None] += v

    x.fill(0.1)
    k()
    y.grad[None] = 1.0
    k.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), [22010.03403312] * 2, rtol=1e-10)  # Quadrants 1.3.3 (f64)
    sizes = sorted({n.array.size for t in k.grad.tasks() for n in ir.walk(t.body)
                    if isinstance(n, ir.Store) and isinstance(n.array, ir.LocalArray)})
    assert sizes == [3, 3000]


def test_adaptive_size_grows_the_stacks_of_a_long_runtime_loop_and_keeps_the_gradients_right():
    """A trip count read at run time (5000 > the 1024 default) under ad_stack_size=0: the overflowing
    call's gradients are put back and it runs again with larger stacks, as Quadrants' adaptive size
    never overflows. The gradient accumulates once onto what x.grad held."""
    x = qd.field(qd.f64, shape=4, needs_grad=True)
    y = qd.field(qd.f64, shape=(), needs_grad=True)
    m = qd.field(qd.i32, shape=())

    @qd.kernel
    def k():
        for i in x:
            v = x[i]
            for _ in range(m[None]):
                y[None] += qd.sin(v) * 0.001
                v = v + 0.001

    x.fill(0.1)
    m[None] = 5000
    k()
    y.grad[None] = 1.0
    x.grad.fill(0.25)
    k.grad()
    expected = sum(math.cos(0.1 + 0.001 * j) * 0.001 for j in range(5000))
    np.testing.assert_allclose(x.grad.to_numpy(), [0.25 + expected] * 4, rtol=1e-6)
    assert y.grad[None] == 1.0
    k.grad()  # the larger stacks are kept: no overflow, one more accumulation
    np.testing.assert_allclose(x.grad.to_numpy(), [0.25 + 2 * expected] * 4, rtol=1e-6)


def test_a_nested_loop_reading_the_previous_time_slice_is_accepted_as_in_quadrants():
    """difftaichi's wave: `p[t, i, j]` stored inside the nested j-loop from `p[t - 1, i + 1, j]`.
    Quadrants' cross-iteration check looks at the parallel loop's own body only (a nested loop's loads
    and stores are the adstack's business), so it differentiates this; loss and p.grad below are what
    Quadrants 1.3.3 printed (fast_math=False, one thread)."""
    import hashlib
    qd.reset()
    qd.init(arch=qd.cpu, fast_math=False, cpu_max_num_threads=1, ad_stack_experimental_enabled=True)
    n, steps = 8, 5
    p = qd.field(qd.f32, shape=(steps, n, n), needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.func
    def get_p(t, i, j):
        return p[t, i, j] if 0 <= i < n and 0 <= j < n else 0.0

    @qd.kernel
    def fdtd(t: qd.i32):
        for i in range(n):
            for j in range(n):
                lap = get_p(t - 1, i + 1, j) + get_p(t - 1, i - 1, j) + get_p(t - 1, i, j + 1) + \
                    get_p(t - 1, i, j - 1) - 4.0 * p[t - 1, i, j]
                p[t, i, j] = 2.0 * p[t - 1, i, j] - p[t - 2, i, j] + 0.1 * lap

    @qd.kernel
    def compute_loss():
        for i, j in qd.ndrange(n, n):
            loss[None] += p[steps - 1, i, j] * p[steps - 1, i, j]

    rng = np.random.default_rng(0)
    init = np.zeros((steps, n, n), np.float32)
    init[0] = rng.random((n, n))
    init[1] = init[0]
    p.from_numpy(init)
    with qd.ad.Tape(loss=loss):
        for t in range(2, steps):
            fdtd(t)
        compute_loss()
    assert loss[None] == np.float32(13.065770149230957)
    assert hashlib.sha256(p.grad.to_numpy()[:2].tobytes()).hexdigest()[:16] == "7596432b22480f10"


@pytest.mark.parametrize("form, refused", [
    ("for y in range(n):\n        p[t, y, 0] = p[t, y - 1, 0] * 0.5", True),
    ("for y in range(n):\n        p[t + 1, y, 0] = p[t, y - 1, 0] * 0.5", True),
    ("for y in range(n):\n        p[t, y, 0] = p[t, dec_index(y), 0] * 0.5", False),   # an if's local: not seen
    ("for y, x in qd.ndrange(n, n):\n        p[t, y, x] = p[t, y - 1, x] * 0.5", False),  # ndrange: not seen
    ("for y, x in qd.ndrange(n, n):\n        p[t + 1, y, x] = p[t, dec_index(y), x] * 0.5", False),
])
def test_cross_iteration_check_refuses_what_quadrants_refuses(tmp_path, form, refused):
    """Which loops Quadrants 1.3.3's check refuses, seen there: a 1-D range whose index reaches the store and
    the load, directly or through a local assigned once; not an ndrange's indices, nor a local an `if`
    assigns (smoke's dec_index). Where it accepts, both compute the per-iteration adjoint alike."""
    import importlib.util
    src = f'''import qdexplorer.lang as qd
n = 8
p = qd.field(qd.f32, shape=(4, n, n), needs_grad=True)


@qd.func
def dec_index(i):
    res = i - 1
    if res < 0:
        res = n - 1
    return res


@qd.kernel
def k(t: qd.i32):
    {form}
'''
    f = tmp_path / "cross_case.py"
    f.write_text(src)
    spec = importlib.util.spec_from_file_location("cross_case", f)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if refused:
        with pytest.raises(Exception, match="Cross-iteration read-after-write"):
            mod.k.grad(0)
    else:
        mod.k.grad(0)
