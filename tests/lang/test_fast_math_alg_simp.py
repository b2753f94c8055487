"""Quadrants' fast-math algebraic simplification (its alg_simp pass), against Quadrants.

Under fast math (Quadrants' default) Quadrants folds, before LLVM, `x - x` to 0, `x * 0` to 0,
`x / x` to 1 and `x == x` to true where both operands are one value after its CSE (two loads of
one element in one block with no store between, a forwarded local, one pure expression). The
folded terms leave the float sums LLVM then reassociates: difftaichi_rigid_body's 30-term sum was
28 terms in Quadrants. With x = 0 every fold shows as 1 where the division would be NaN, so each
case below says whether Quadrants saw one value. With fast_math=False nothing is folded.
"""
import numpy as np
import pytest

from tests.lang.quadrants_oracle import implementations

CASES = 16


def _same_value_cases(qd):
    n = 4
    x = qd.field(qd.f32, shape=n)
    y = qd.field(qd.f32, shape=n)
    w = qd.field(qd.f32, shape=n)
    out = qd.field(qd.f32, shape=(CASES, n))

    @qd.func
    def load(i):
        return x[i]

    @qd.kernel
    def k():
        for i in range(n):
            out[0, i] = x[i] / x[i]                  # one expression
            a = x[i]
            out[1, i] = a / x[i]                     # a forwarded local, the same load
            b = x[i]
            y[i] = 3.0
            out[2, i] = b / x[i]                     # a store to another field between
            c = x[i]
            if y[i] > 10.0:
                y[i] = 2.0
            out[3, i] = c / x[i]                     # an `if` between that does not store to x
            d = x[i]
            if i >= 0:
                out[4, i] = d / x[i]                 # a load in an inner block: not merged
            e = x[i]
            qd.atomic_add(y[i], 1.0)
            out[5, i] = e / x[i]                     # an atomic on another field between
            f = w[i] * 3.0
            out[6, i] = f / (w[i] * 3.0)             # a pure expression of merged loads
            g = x[i]
            g = g + 0.0
            out[7, i] = g / x[i]                     # g + 0 is g
            for j in range(2):
                out[8, i] = x[i] / x[i]              # in a loop body
            h = x[i]
            for j in range(2):
                out[9, i] = h / x[i]                 # a load in a loop body: not merged
            out[10, i] = qd.sqrt(x[i]) / qd.sqrt(x[i])
            out[11, i] = load(i) / load(i)           # an inlined qd.func
            out[12, i] = qd.cast(x[i] < x[i], qd.f32) + 1.0
            out[13, i] = (x[i] - x[i]) / (x[i] - x[i])
            s = 0.0
            for j in range(3):
                s = x[i]
                out[14, i] = s / x[i]                # a local assigned in the loop, read there
            out[15, i] = s / x[i]                    # ... and after it: not forwarded
            x[(i + 1) % n] = 0.0                     # a store to x itself (after everything: x stays 0)

    k()
    return out.to_numpy()


def test_the_same_value_folds_as_in_quadrants():
    got = []
    for qd in implementations():
        qd.init(arch=qd.cpu, fast_math=True)
        try:
            got.append(_same_value_cases(qd))
        finally:
            qd.reset()
    if len(got) < 2:
        pytest.skip("Quadrants is not installed")
    ours, theirs = got
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_array_equal(np.nan_to_num(ours), np.nan_to_num(theirs))
    assert np.isnan(theirs[4]).all() and (theirs[0] == 1).all()   # the oracle folds some, not all


def test_without_fast_math_nothing_folds():
    import qdexplorer.lang as qd
    qd.init(arch=qd.cpu, fast_math=False)
    try:
        out = _same_value_cases(qd)
    finally:
        qd.reset()
    assert np.isnan(out[[0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 13, 14, 15]]).all()
    assert (out[12] == 1).all()


def _sum_with_dropped_terms(qd):
    """A 30-term sum two of whose terms are w * 0 * c (rigid_body's nn1): Quadrants sums 28."""
    n = 4096
    m = 14
    a = qd.field(qd.f32, shape=(n, m))
    x = qd.field(qd.f32, shape=n)
    y = qd.field(qd.f32, shape=n)
    v = qd.field(qd.f32, shape=n)
    wts = qd.field(qd.f32, shape=m + 2)
    out = qd.field(qd.f32, shape=(4, n))

    @qd.kernel
    def go():
        for i in range(n):
            s = 0.0
            for j in qd.static(range(m)):
                s += wts[j] * a[i, j]
            s += wts[m] * (x[i] - x[i]) * 0.05       # folded: one load of x[i]
            s += wts[m + 1] * (v[i] * 0) * 0.05       # folded: v * 0
            out[0, i] = s
            t = y[i] * 2.0 + v[i] * 1.0 + v[i] / 4.0 + 0.0 * y[i]
            out[1, i] = t + a[i, 0] + a[i, 1] + a[i, 2]
            d = x[i] - x[i]
            out[2, i] = a[i, 3] + d * a[i, 4] + a[i, 5] + a[i, 6] + d + a[i, 7]
            out[3, i] = qd.cast(x[i] == x[i], qd.f32) * a[i, 8] + a[i, 9] + a[i, 10]

    rng = np.random.default_rng(3)
    for f, shape in ((a, (n, m)), (x, (n,)), (y, (n,)), (v, (n,)), (wts, (m + 2,))):
        f.from_numpy(rng.uniform(-1, 1, shape).astype(np.float32))
    go()
    return out.to_numpy()


def _ours_and_quadrants(program):
    got = []
    for qd in implementations():
        qd.init(arch=qd.cpu, fast_math=True)
        try:
            got.append(program(qd))
        finally:
            qd.reset()
    if len(got) < 2:
        pytest.skip("Quadrants is not installed")
    return got


@pytest.mark.parametrize("row", [0, 2, 3])
def test_sums_with_folded_terms_round_as_in_quadrants(row):
    ours, theirs = _ours_and_quadrants(_sum_with_dropped_terms)
    assert ours[row].tobytes() == theirs[row].tobytes(), \
        f"row {row}: {(ours[row] != theirs[row]).sum()} of {ours.shape[1]} differ"


@pytest.mark.xfail(reason="not modelled: row 1's fadd chain is Quadrants' in the optimized LLVM IR, and the "
                          "backend's machine combiner reassociates it by its operands' depths: Quadrants' "
                          "optimized IR, compiled with our target machine (or its JIT's: the same code), sums "
                          "as Quadrants does, so the code generator's options are not the cause; the depths "
                          "differ because every Quadrants load goes through the root pointer it reloads from "
                          "the context each iteration, where ours takes one pointer argument per field")
def test_sums_with_folded_terms_row_1():
    ours, theirs = _ours_and_quadrants(_sum_with_dropped_terms)
    assert ours[1].tobytes() == theirs[1].tobytes()


def _constant_chains(qd):
    """Quadrants' binary_op_simplify: `(a op1 c1) op2 c2` is `a op1 (c1 op2' c2)` under fast math, the
    constants folded (a division of them where it divides): `(x / 7) * 3` is `x * (1 / (7 / 3))`,
    not LLVM's `x * ((1 / 7) * 3)` (3,299 of 4,096 values one ulp off)."""
    n = 4096
    x = qd.field(qd.f32, shape=n)
    out = qd.field(qd.f32, shape=(8, n))
    dt, m, dx = 0.0003, 0.7, 1 / 129

    @qd.kernel
    def go():
        for i in range(n):
            out[0, i] = x[i] * dt / m
            out[1, i] = x[i] / dx / 3.0
            out[2, i] = (x[i] / 7.0) * 3.0
            out[3, i] = 0.3 * x[i] * 0.01 * 1.7
            out[4, i] = (x[i] - 0.1) + 0.37
            out[5, i] = x[i] * 2.0 / 3.0
            out[6, i] = 2.0 * (x[i] * 0.5 - 0.1) / 0.9
            out[7, i] = (x[i] + 0.1) * 0.0 + x[i] * 1.0 / 1.0

    x.from_numpy(np.random.default_rng(3).uniform(-10, 10, n).astype(np.float32))
    go()
    return out.to_numpy()


def test_constant_chains_fold_as_in_quadrants():
    ours, theirs = _ours_and_quadrants(_constant_chains)
    for row in range(ours.shape[0]):
        assert ours[row].tobytes() == theirs[row].tobytes(), \
            f"row {row}: {(ours[row] != theirs[row]).sum()} of {ours.shape[1]} differ"


def _chains_through_locals(qd):
    """binary_op_simplify after Quadrants forwards a local to its reads: `x = (h - r) / h**3;
    -14.3 * x * x` is `(h - r) * (1 / (h**3 / -14.3)) * x` there (taichi_pbf2d's spiky kernel),
    and `q = r / 7; q * 3` is `r * (1 / (7 / 3))`, the division rearranged before alg_simp makes it
    a product (3,110 and 3,216 of 4,096 values one ulp off while ours kept `x * -14.3`)."""
    n = 4096
    r = qd.field(qd.f32, shape=n)
    d = qd.field(qd.f32, shape=n)
    out = qd.field(qd.f32, shape=(3, n))
    h = 1.1

    @qd.kernel
    def go():
        for i in range(n):
            x = (h - r[i]) / (h * h * h)
            g = -14.3 * x * x
            out[0, i] = d[i] * g / r[i]
            y = r[i] * 0.3 + 0.7
            out[1, i] = (y + 0.1) * y
            q = r[i] / 7.0
            out[2, i] = q * 3.0 + q * q

    rng = np.random.default_rng(5)
    r.from_numpy(rng.uniform(0.01, 1.0, n).astype(np.float32))
    d.from_numpy(rng.uniform(-1, 1, n).astype(np.float32))
    go()
    return out.to_numpy()


def _chain_over_a_store(qd):
    """The local's operand stored between its assignment and its read: its load there is another
    value, so the local's operation is not re-read (ours would compute `d * 0.27` from the new d)."""
    n = 4096
    d = qd.field(qd.f32, shape=n)
    out = qd.field(qd.f32, shape=n)

    @qd.kernel
    def go():
        for i in range(n):
            z = d[i] * 0.3
            d[i] = d[i] * 1.7
            out[i] = z * 0.9 + d[i]

    d.from_numpy(np.random.default_rng(5).uniform(-1, 1, n).astype(np.float32))
    go()
    return out.to_numpy()


@pytest.mark.parametrize("program", [_chains_through_locals, _chain_over_a_store])
def test_constant_chains_through_forwarded_locals_fold_as_in_quadrants(program):
    ours, theirs = _ours_and_quadrants(program)
    for row in range(ours.shape[0] if ours.ndim > 1 else 1):
        a, b = (ours[row], theirs[row]) if ours.ndim > 1 else (ours, theirs)
        assert a.tobytes() == b.tobytes(), f"row {row}: {(a != b).sum()} of {a.size} differ"


def _atomics_in_folded_expressions(qd):
    n = 8
    c = qd.field(qd.f32, shape=n)
    out = qd.field(qd.f32, shape=(6, n))

    @qd.kernel
    def go():
        for i in range(n):
            out[0, i] = qd.atomic_add(c[i], 1.0) / 2.0            # a * 0.5: one atomic, not two
            out[1, i] = qd.atomic_add(c[i], 1.0) * 0.0 + 1.0      # folded to 1, and still adds
            out[2, i] = qd.atomic_add(c[i], 1.0) * 1.0
            out[3, i] = qd.atomic_add(c[i], 1.0) - qd.atomic_add(c[i], 1.0)   # two values: not folded
            out[4, i] = qd.atomic_add(c[i], 1.0) / 0.5            # a * 2 is not a + a here
            out[5, i] = c[i]

    go()
    return out.to_numpy()


def test_atomics_in_folded_expressions_run_once():
    ours, theirs = _ours_and_quadrants(_atomics_in_folded_expressions)
    np.testing.assert_array_equal(ours, theirs)
    assert (theirs[5] == 6).all()


def _vector_constant_chains(qd):
    """A vector operation is one tensor statement in Quadrants: binary_op_simplify leaves it, alg_simp
    makes `/ 7` a `* (1 / 7)`, and only once scalarized are the constants rearranged: `3.0 * v / 7.0`
    is v * (3 * (1 / 7)) there, where a scalar's `x * 3.0 / 7.0` is x * (3 / 7)."""
    n = 4096
    x = qd.field(qd.f32, shape=n)
    y = qd.field(qd.f32, shape=n)
    out = qd.field(qd.f32, shape=(8, n))

    @qd.kernel
    def go():
        for i in range(n):
            v = qd.Vector([x[i], y[i]])
            a = 3.0 * v / 7.0
            b = v * 0.3 * 1.7
            c = (v - 0.1) + 0.37
            d = v / 7.0 * 3.0
            f = 2.0 * v / 3.0
            out[0, i] = a[0]
            out[1, i] = a[1]
            out[2, i] = b[0]
            out[3, i] = c[1]
            out[4, i] = d[0]
            out[5, i] = x[i] * 3.0 / 7.0
            out[6, i] = f[0]
            out[7, i] = (v * 3.0)[0] / 7.0

    x.from_numpy(np.random.default_rng(3).uniform(-10, 10, n).astype(np.float32))
    y.from_numpy(np.random.default_rng(4).uniform(-10, 10, n).astype(np.float32))
    go()
    return out.to_numpy()


def test_vector_constant_chains_fold_as_in_quadrants():
    ours, theirs = _ours_and_quadrants(_vector_constant_chains)
    for row in range(ours.shape[0]):
        assert ours[row].tobytes() == theirs[row].tobytes(), \
            f"row {row}: {(ours[row] != theirs[row]).sum()} of {ours.shape[1]} differ"


def _repeated_math_calls(qd):
    """Quadrants' CSE makes a second qd.sin(r[i]) the first one's value (one call, at the first one's
    place); ours called sinf twice, and LLVM, which ranks a sum's terms by where their calls are,
    summed row 0 in another order (2,229 of 4,096 values)."""
    n = 4096
    x = qd.field(qd.f32, shape=n)
    r = qd.field(qd.f32, shape=n)
    w = qd.field(qd.f32, shape=(n, 8))
    out = qd.field(qd.f32, shape=(2, n))

    @qd.kernel
    def go():
        for i in range(n):
            out[0, i] = w[i, 0] * qd.sin(r[i]) + w[i, 1] * qd.cos(r[i]) + w[i, 2] * x[i] \
                + w[i, 3] * qd.sin(r[i]) + w[i, 4] * qd.cos(r[i]) + w[i, 5]
            c = qd.cos(r[i])
            s = qd.sin(r[i])
            out[1, i] = w[i, 6] * c - w[i, 7] * s + qd.sin(r[i]) * x[i] + qd.exp(x[i]) + w[i, 2] \
                + qd.exp(x[i]) * w[i, 1]

    rng = np.random.default_rng(5)
    x.from_numpy(rng.uniform(-1, 1, n).astype(np.float32))
    r.from_numpy(rng.uniform(-3, 3, n).astype(np.float32))
    w.from_numpy(rng.uniform(-1, 1, (n, 8)).astype(np.float32))
    go()
    return out.to_numpy()


def test_repeated_math_calls_are_one_call_as_in_quadrants():
    ours, theirs = _ours_and_quadrants(_repeated_math_calls)
    for row in range(ours.shape[0]):
        assert ours[row].tobytes() == theirs[row].tobytes(), \
            f"row {row}: {(ours[row] != theirs[row]).sum()} of {ours.shape[1]} differ"
