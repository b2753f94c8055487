"""Python-scope vectors and matrices as Quadrants computes them: `qd.max(4, v)`, `qd.cos(v)`,
`qd.select(c, a, b)` componentwise (a bare `max` would compare the number with the whole vector and
silently give 4); `x[i] op y[i]` of matrix fields a qd.Matrix with `.to_numpy()`; `m.entries` a NumPy
array; and `operator.add(a, b)` / `qd.lang.ops.add(a, b)` in kernels as the operator itself. Each
program runs under qdexplorer.lang and, where installed, real Quadrants, with the same numbers."""
import operator

import numpy as np
import pytest

import qdexplorer.lang as ours


def _implementations():
    yield ours
    try:
        import quadrants as real
    except ImportError:
        return
    yield real


def _run_both(program):
    results = []
    for qd in _implementations():
        qd.init(arch=qd.cpu)
        try:
            results.append([np.asarray(r) for r in program(qd)])
        finally:
            qd.reset()
    for r in results[1:]:
        for a, b in zip(results[0], r):
            np.testing.assert_allclose(a, b, rtol=1e-6)
    return results[0]


def test_intrinsics_apply_componentwise_to_python_scope_vectors():
    def program(qd):
        v = qd.Vector([3, 4, 5])
        return [qd.max(4, v).to_numpy(), qd.min(v, 4).to_numpy(), qd.cos(qd.Vector([2, 3])).to_numpy(),
                qd.atan2(qd.Vector([2, 3]), qd.Vector([3, 4])).to_numpy(),
                qd.select(qd.Vector([1, 0]), qd.Vector([2, 3]), qd.Vector([4, 5])).to_numpy(),
                qd.max(2, 3), qd.sqrt(4.0)]

    mx, mn, cos, atan2, sel, m2, sq = _run_both(program)
    assert mx.tolist() == [4, 4, 5] and mn.tolist() == [3, 4, 4] and sel.tolist() == [2, 5]
    np.testing.assert_allclose(cos, np.cos([2, 3]), rtol=1e-6)
    np.testing.assert_allclose(atan2, np.arctan2([2, 3], [3, 4]), rtol=1e-6)
    assert m2 == 3 and sq == 2.0


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.matmul])
def test_arithmetic_on_field_elements_gives_a_matrix(op):
    def program(qd):
        t1 = qd.Matrix.field(2, 2, dtype=qd.i32, shape=())
        t2 = qd.Matrix.field(2, 2, dtype=qd.i32, shape=())
        t1[None], t2[None] = [[1, 2], [3, 4]], [[5, 6], [7, 8]]
        c = op(t1[None], t2[None])
        return [c.to_numpy(), t1[None] < [[2, 2], [2, 2]], -t1[None], qd.Vector([1.0, 2.0]).entries]

    c, lt, neg, entries = _run_both(program)
    want = op(np.array([[1, 2], [3, 4]]), np.array([[5, 6], [7, 8]]))
    assert c.tolist() == want.tolist() and lt.tolist() == [[True, False], [False, False]]
    assert neg.tolist() == [[-1, -2], [-3, -4]] and entries.tolist() == [1.0, 2.0]


def test_operator_functions_in_kernels_are_the_operators():
    def program(qd):
        m1, m2 = qd.Matrix([[1, 2], [3, 4]]), qd.Matrix([[5, 6], [7, 8]])
        r = qd.Matrix.field(2, 2, dtype=qd.i32, shape=3)
        x = qd.field(qd.i32, shape=4)

        @qd.kernel
        def run(t: qd.i32):
            r[0] = operator.add(m1, m2)
            r[1] = operator.matmul(m1, m2)
            r[2] = qd.lang.ops.sub(m2, m1)
            x[0] = operator.neg(t)
            x[1] = operator.lt(t, 3)
            x[2] = operator.lshift(t, 2)
            x[3] = qd.lang.ops.add(t, 1)

        run(5)
        return [r.to_numpy(), x.to_numpy()]

    r, x = _run_both(program)
    assert r[1].tolist() == [[19, 22], [43, 50]] and x.tolist() == [-5, 0, 20, 6]
