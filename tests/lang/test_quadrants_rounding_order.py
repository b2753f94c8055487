"""Floats rounded in Quadrants' order: powers, reverse-mode adjoints, host sums into elements.

Each class here was a silent difference from Quadrants 1.3.3 in the last bits, which training loops
and simulations amplify (a differentiable mass-spring robot ended its training 0.4% off):
- `x ** n` of a constant n: Quadrants' algebraic simplifier rewrites it before anything else sees
  it (x * (x * x) for 3, (x * x) * (x * x) for 4, 1 / that for -n, sqrt for 0.5; a whole n past 32
  or an integer variable a loop of squarings), never the pow function; `qd.pow(x, n)` is the same;
- reverse mode: adjoints summed in reverse program order, statement by statement (a node, then its
  right operand, then its left), with Quadrants' formulas (`log`: adj / x; `rsqrt`: r * (r * r);
  min/max: a tie goes to the right operand; x^(n-1) with n - 1 a float);
- on the host a float sum into an array element is added in index order (Quadrants keeps per-thread
  sums only for 0-D fields), so `h.grad[t, j]` from two iterations is not regrouped.
The expected digests are what real Quadrants 1.3.3 printed for the same programs on the CPU with
`fast_math=False, cpu_max_num_threads=1` (the kernels are written to have no common subexpression
between their terms: Quadrants' CSE, which also decides adjoint order, is not modelled)."""
import hashlib

import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.fixture
def q():
    qd.init(arch=qd.cpu, fast_math=False, cpu_max_num_threads=1)
    yield qd
    qd.reset()


def digest(a) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def test_constant_powers_are_quadrants_multiplications(q):
    N = 256
    a = qd.field(qd.f32, shape=(N,))
    y = qd.field(qd.f32, shape=(N, 8))

    @qd.kernel
    def k():
        for i in range(N):
            x = a[i]
            y[i, 0] = x ** 4
            y[i, 1] = x ** 13
            y[i, 2] = x ** 32.0
            y[i, 3] = x ** -5
            y[i, 4] = x ** 33
            y[i, 5] = qd.pow(x, 6)
            y[i, 6] = x ** 0.5
            y[i, 7] = x ** 2.5

    a.from_numpy((np.random.default_rng(3).random(N) * 1.5 + 0.3).astype(np.float32))
    k()
    assert digest(y.to_numpy()) == "ce10d07bd1f60291"


def test_reverse_mode_adjoints_in_quadrants_order(q):
    N, J = 64, 8
    a = qd.field(qd.f32, shape=(N,), needs_grad=True)
    b = qd.field(qd.f32, shape=(N,), needs_grad=True)
    h = qd.field(qd.f32, shape=(2, J), needs_grad=True)
    y = qd.field(qd.f32, shape=(N,), needs_grad=True)

    @qd.kernel
    def k(t: qd.i32):
        for i in range(N):
            x, z = a[i], b[i]
            s = 0.0
            for j in qd.static(range(J)):
                s += h[t, j] * x
            u = (x * z - 1.0) * z / (x + 1.5) * x
            v = qd.log(z * 3.0 + 1.0) * x + qd.rsqrt(z * x + 0.1) + qd.min(x, z) * qd.max(z, x)
            w = x ** 7 + z ** -3 + qd.pow(z + 0.5, x) + x ** 0.5 * 0.0 + x ** 39
            y[i] = qd.tanh(s) + u + v
            y[i] += w * 1e-3

    rng = np.random.default_rng(7)
    a.from_numpy((rng.random(N) + 0.2).astype(np.float32))
    b.from_numpy((rng.random(N) + 0.3).astype(np.float32))
    bv = b.to_numpy()
    bv[::5] = a.to_numpy()[::5]  # ties for min / max
    b.from_numpy(bv)
    h.from_numpy(rng.standard_normal((2, J)).astype(np.float32))
    y.grad.from_numpy(rng.standard_normal(N).astype(np.float32))
    k(1)
    k.grad(1)
    assert digest(y.to_numpy()) == "59382a45cdf30925"
    assert digest(a.grad.to_numpy()) == "34c51119a7732e49"
    assert digest(b.grad.to_numpy()) == "df105b9d6070c744"


def test_host_adjoint_sums_into_an_element_keep_index_order(q):
    NI, NJ, T = 2, 32, 8
    w = qd.field(qd.f32, shape=(NI, NJ), needs_grad=True)
    h = qd.field(qd.f32, shape=(T, NJ), needs_grad=True)
    act = qd.field(qd.f32, shape=(T, NI), needs_grad=True)

    @qd.kernel
    def nn(t: qd.i32):
        for i in range(NI):
            s = 0.0
            for j in qd.static(range(NJ)):
                s += w[i, j] * h[t, j]
            act[t, i] = qd.tanh(s)

    rng = np.random.default_rng(0)
    w.from_numpy(rng.standard_normal((NI, NJ)).astype(np.float32) * 0.3)
    h.from_numpy(rng.standard_normal((T, NJ)).astype(np.float32) * 0.3)
    h.grad.from_numpy(rng.standard_normal((T, NJ)).astype(np.float32) * 0.3)
    act.grad.from_numpy(rng.standard_normal((T, NI)).astype(np.float32))
    nn.grad(5)
    assert digest(h.grad.to_numpy()) == "49b4967864d4072b"


def test_two_lambdas_on_one_line_are_two_functions(q):
    """`{'sq': lambda x: x * x, 'tri': lambda x: x * 3.0}` inlined in two kernels: each its own body
    (the second kernel ran the first lambda, and its gradient was 4 where Quadrants gives 3)."""
    a = qd.field(qd.f32, shape=(4,), needs_grad=True)
    y = qd.field(qd.f32, shape=(4,), needs_grad=True)
    ops = {'sq': lambda x: x * x, 'tri': lambda x: x * 3.0}
    got = []
    for f in ops.values():
        @qd.kernel
        def k():
            for i in range(4):
                y[i] = f(a[i])

        a.fill(2.0)
        y.grad.fill(1.0)
        a.grad.fill(0)
        k()
        k.grad()
        got.append((y[0], a.grad[0]))
    assert got == [(4.0, 4.0), (6.0, 3.0)]
