"""`qd.random` / `qd.randn` in kernels: the documented stream (frontend/random.py), its
distributions, and its independence across threads, draws, tasks, calls and seeds.

The statistical checks use sizes and tolerances that a correct generator passes with overwhelming
probability (z-scores below 5 for every check); since the stream is deterministic per seed, a pass
is also reproducible. The first test pins the exact bits, so the CPU and CUDA (which compile the
same IR) draw the same numbers for the same seed and call sequence."""
import math
import runpy

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.lang.calls.splitmix import GOLDEN, MASK64, mix64


def _stream(seed: int, call: int, task: int, index: int, draws: int) -> list[int]:
    """The 64-bit words thread `index` of task `task` draws in call number `call` since qd.init."""
    key = mix64((seed * GOLDEN + call) & MASK64)
    h = mix64(mix64((key + (task + 1) * GOLDEN) & MASK64) + index & MASK64)
    return [mix64((h + k * GOLDEN) & MASK64) for k in range(1, draws + 1)]


def test_the_stream_is_the_documented_splitmix64_one(arch):
    out = qd.field(qd.u64, shape=(16, 3))
    low = qd.field(qd.i32, shape=16)
    unit = qd.field(qd.f32, shape=16)

    @qd.kernel
    def draw():
        low[0] = 0                           # task 0 (serial): draws nothing
        for i in range(16):                  # task 1
            for k in range(3):
                out[i, k] = qd.random(qd.u64)
        for i in range(16):                  # task 2
            low[i] = qd.random(qd.i32)
            unit[i] = qd.random()

    draw()   # call 1
    draw()   # call 2: what is checked
    want = np.array([_stream(0, 2, 1, i, 3) for i in range(16)], np.uint64)
    np.testing.assert_array_equal(out.to_numpy(), want)
    second = [_stream(0, 2, 2, i, 2) for i in range(16)]
    np.testing.assert_array_equal(low.to_numpy(), np.array([w >> 32 for w, _ in second], np.uint64).astype(np.uint32)
                                  .view(np.int32))
    np.testing.assert_array_equal(unit.to_numpy(), np.array([(u >> 40) * 2.0 ** -24 for _, u in second], np.float32))


def test_uniform_floats_fill_the_unit_interval_evenly(arch):
    n = 1 << 20
    x = qd.field(qd.f32, shape=n)
    y = qd.field(qd.f64, shape=n)

    @qd.kernel
    def fill():
        for i in x:
            x[i] = qd.random()
            y[i] = qd.random(qd.f64)

    fill()
    for a, step in ((x.to_numpy().astype(np.float64), 2.0 ** -24), (y.to_numpy(), 2.0 ** -53)):
        assert a.min() >= 0.0 and a.max() < 1.0
        assert np.all(np.mod(a, step) == 0)  # every value a multiple of the resolution
        for k in (1, 2, 3, 4):  # E[u^k] = 1/(k+1); sd of the mean of n draws < 0.3/sqrt(n)
            assert abs((a ** k).mean() - 1 / (k + 1)) < 5 * 0.3 / math.sqrt(n)
        counts = np.bincount((a * 256).astype(int), minlength=256)  # chi-square, 255 dof: mean 255, sd 22.6
        chi2 = ((counts - n / 256) ** 2 / (n / 256)).sum()
        assert chi2 < 255 + 5 * 22.6


def test_integers_cover_the_full_width(arch):
    n = 1 << 18
    a = qd.field(qd.i32, shape=n)
    b = qd.field(qd.i64, shape=n)
    c = qd.field(qd.u32, shape=n)

    @qd.kernel
    def fill():
        for i in a:
            a[i] = qd.random(qd.i32)
            b[i] = qd.random(qd.i64)
            c[i] = qd.random(qd.u32)

    fill()
    for v, lo, span in ((a, -2.0 ** 31, 2.0 ** 32), (b, -2.0 ** 63, 2.0 ** 64), (c, 0.0, 2.0 ** 32)):
        u = (v.to_numpy().astype(np.float64) - lo) / span  # uniform on [0, 1) when every bit is fair
        assert abs(u.mean() - 0.5) < 5 * 0.29 / math.sqrt(n)
        assert abs((u ** 2).mean() - 1 / 3) < 5 * 0.3 / math.sqrt(n)
    bits = np.unpackbits(a.to_numpy().view(np.uint8))  # every bit of the i32s set half the time
    assert abs(bits.mean() - 0.5) < 5 * 0.5 / math.sqrt(bits.size)
    assert (a.to_numpy() < 0).any()


def test_randn_is_standard_normal(arch):
    n = 1 << 20
    g = qd.field(qd.f32, shape=n)
    h = qd.field(qd.f64, shape=n // 4)

    @qd.kernel
    def fill():
        for i in g:
            g[i] = qd.randn()
        for i in h:
            h[i] = qd.randn(qd.f64)

    fill()
    for a in (g.to_numpy().astype(np.float64), h.to_numpy()):
        m = len(a)
        assert abs(a.mean()) < 5 / math.sqrt(m)
        assert abs(a.var() - 1) < 5 * math.sqrt(2 / m)
        assert abs((a ** 4).mean() - 3) < 5 * math.sqrt(96 / m)   # kurtosis: var of z^4 is 96
        # the normal CDF at a few points
        for t, p in ((-1.0, 0.158655), (0.0, 0.5), (1.5, 0.933193)):
            assert abs((a < t).mean() - p) < 5 * 0.5 / math.sqrt(m)


def test_threads_and_successive_draws_are_uncorrelated(arch):
    n = 1 << 18
    first = qd.field(qd.f32, shape=n)
    second = qd.field(qd.f32, shape=n)
    prod = qd.field(qd.f32, shape=n)

    @qd.kernel
    def fill():
        for i in first:
            first[i] = qd.random()
            second[i] = qd.random()
        for i in prod:
            prod[i] = qd.random() * qd.random()   # upstream's independent-product check

    fill()
    a, b = first.to_numpy(), second.to_numpy()
    lim = 5 / math.sqrt(n)  # correlation coefficients of independent samples: sd 1/sqrt(n)
    assert abs(np.corrcoef(a, b)[0, 1]) < lim              # draw k and k+1 of one thread
    assert abs(np.corrcoef(a[:-1], a[1:])[0, 1]) < lim     # neighbouring threads
    assert abs(np.corrcoef(a[: n // 2], a[n // 2:])[0, 1]) < lim
    quads = np.bincount((a < 0.5) * 2 + (b < 0.5), minlength=4)  # upstream's 2-d distribution check
    assert np.all(np.abs(quads - n / 4) < 5 * math.sqrt(n * 3 / 16))
    assert abs(prod.to_numpy().mean() - 0.25) < 5 * 0.22 / math.sqrt(n)


def test_calls_seeds_and_tasks_get_their_own_streams_and_a_seed_repeats():
    def run(seed, calls):
        qd.init(arch=qd.cpu, random_seed=seed)
        x = qd.field(qd.f32, shape=(2, 1024))

        @qd.kernel
        def fill():
            for i in range(1024):
                x[0, i] = qd.random()
            for i in range(1024):
                x[1, i] = qd.random()

        out = []
        for _ in range(calls):
            fill()
            out.append(x.to_numpy())
        qd.reset()
        return out

    a1, a2 = run(0, 2)
    b1, = run(1, 1)
    c1, c2 = run(0, 2)
    np.testing.assert_array_equal(a1, c1)   # the same seed and calls: the same numbers
    np.testing.assert_array_equal(a2, c2)
    assert np.mean(a1 == a2) < 0.01         # another call
    assert np.mean(a1 == b1) < 0.01         # another seed
    assert np.mean(a1[0] == a1[1]) < 0.01   # another task of the same call


def test_a_thread_draws_the_same_numbers_however_the_loop_is_scheduled(cpu):
    """Streams follow loop indices, not threads: a serialized loop draws what the parallel one does."""
    par = qd.field(qd.f32, shape=(64, 4))
    ser = qd.field(qd.f32, shape=(64, 4))

    @qd.kernel
    def parallel():
        for i, j in qd.ndrange(64, 4):
            par[i, j] = qd.random()

    @qd.kernel
    def serial():
        qd.loop_config(serialize=True)
        for i, j in qd.ndrange(64, 4):
            ser[i, j] = qd.random()

    qd.init(arch=qd.cpu, random_seed=5)
    parallel()
    qd.init(arch=qd.cpu, random_seed=5)
    serial()
    np.testing.assert_array_equal(par.to_numpy(), ser.to_numpy())


def test_draws_in_funcs_branches_and_serial_tasks(arch):
    out = qd.field(qd.f32, shape=8)
    count = qd.field(qd.i32, shape=())

    @qd.func
    def jitter(v):
        return v + 0.5 * (qd.random() - 0.5)

    @qd.kernel
    def k():
        total = 0
        for r in range(1000):   # a loop inside a serial task: 1000 different draws
            if qd.random() < 0.25:
                total += 1
        count[None] = total
        for i in out:
            out[i] = jitter(float(i)) if i % 2 == 0 else qd.random() + 10

    k()
    assert 150 < count[None] < 350   # binomial(1000, 1/4): mean 250, sd 13.7
    o = out.to_numpy()
    assert np.all(np.abs(o[::2] - np.arange(0, 8, 2)) <= 0.25)
    assert np.all((o[1::2] >= 10) & (o[1::2] < 11))
    assert len(set(o[1::2].tolist())) == 4


@pytest.mark.parametrize("call, msg", [("qd.random(qd.f16)", r"qd.random\(\) takes a qd scalar type other than f16"),
                                       ("qd.random(qd.f32, 2)", r"qd.random\(\) takes one argument"),
                                       ("qd.randn(qd.i32)", r"qd.randn\(\) draws f32 or f64 values")])
def test_bad_random_calls_are_errors_at_the_line(cpu, tmp_path, call, msg):
    path = tmp_path / "bad_random.py"
    path.write_text(f"import qdexplorer.lang as qd\nx = qd.field(qd.f32, shape=4)\n\n\n@qd.kernel\ndef k():\n"
                    f"    for i in x:\n        x[i] = {call}\n")
    kern = runpy.run_path(str(path))["k"]
    with pytest.raises(qd.QdCompileError, match=msg) as e:
        kern()
    assert e.value.file == str(path) and e.value.line == 8


def test_random_outside_a_kernel_says_where_it_works():
    with pytest.raises(RuntimeError, match=r"qd.random\(\) can only be called inside a @qd.kernel"):
        qd.random()
