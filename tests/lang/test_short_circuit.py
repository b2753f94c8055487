"""Issue 11: `and` / `or` short-circuit, as in Quadrants (`short_circuit_operators=True`, its default).

`a and b` lowers to `result = a; if result: result = b` (and `or` to `if not result`), so the value of
`b` is computed only when Python would evaluate it: the guard `i < n and x[i] > 0` never loads `x[n]`.
But Quadrants' front end builds every operand before it combines them (build_BoolOp), so the statements
of a `@qd.func` (or an atomic, a qd.random, a `:=`) in `b` run on every path; the same for both sides of
`a if c else b`. Checked against real Quadrants 1.3.3 (tests/lang/syntax_cases.py:
boolop_short_circuit, boolop_and_ifexp_build_every_operand): this file said, until then, that such a
func ran only when Python would call it. A right side that can neither fault nor have effects keeps
the branch-free form (a select), whose IR is unchanged.
"""
import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer import ir

I1 = qd.types.ndarray(dtype=qd.i32, ndim=1)
F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def debug_arch(request):
    """Debug mode (every ndarray access bounds-checked) on every backend."""
    qd.init(arch=request.param, debug=True)
    yield qd
    qd.reset()


@qd.func
def bump(c: I1, k: qd.i32, v: qd.i32) -> qd.i32:
    """Count one evaluation in c[k], give v back."""
    qd.atomic_add(c[k], 1)
    return v


def py_bump(c, k, v):
    c[k] += 1
    return v


def test_and_guard_does_not_load_past_the_end_in_debug_mode(debug_arch):
    @qd.kernel
    def guarded(x: I1, out: I1):
        for i in range(out.shape[0]):  # the loop is longer than x
            if i < x.shape[0] and x[i] > 0:
                out[i] = 1
            out[i] += 10 * (i >= x.shape[0] or x[i] < 0)
            out[i] += 100 * (i < x.shape[0] and x[i])

    x = np.array([3, -2, 0, 5], np.int32)
    out = np.zeros(7, np.int32)
    guarded(x, out)  # before short-circuiting, debug mode reported x index 4 on axis 0
    n = len(x)
    ref = [int(i < n and x[i] > 0) + 10 * int(i >= n or x[i] < 0) + 100 * int(i < n and x[i])
           for i in range(len(out))]
    np.testing.assert_array_equal(out, ref)


def test_float_guard_in_a_while_loop_in_debug_mode(debug_arch):
    @qd.kernel
    def first_small(x: F1, out: I1):
        for t in range(out.shape[0]):
            j = t
            while j < x.shape[0] and x[j] >= 0.5:  # stops at the end of x without loading past it
                j += 1
            out[t] = j

    x = np.array([0.9, 0.7, 0.1, 0.8, 0.6], np.float32)
    out = np.zeros(5, np.int32)
    first_small(x, out)
    ref = []
    for t in range(5):
        j = t
        while j < len(x) and x[j] >= 0.5:
            j += 1
        ref.append(j)
    np.testing.assert_array_equal(out, ref)


def test_a_func_on_the_right_runs_on_every_path_as_in_quadrants(arch):
    @qd.kernel
    def k(a: I1, c: I1, out: I1):
        for i in range(a.shape[0]):
            out[i] = a[i] or bump(c, 0, 7)
            out[i] += 100 * (a[i] and bump(c, 1, 3))

    a = np.array([2, 0, 5, 0, 0, -1], np.int32)
    c, out = np.zeros(2, np.int32), np.zeros(6, np.int32)
    k(a, c, out)
    cr = [0, 0]
    ref = [(int(x) or py_bump(cr, 0, 7)) + 100 * (int(x) and py_bump(cr, 1, 3)) for x in a]
    np.testing.assert_array_equal(out, ref)
    assert cr == [3, 3]  # what Python would call
    assert c.tolist() == [6, 6]  # Quadrants 1.3.3 builds bump's statements for every element, either way


def test_chained_and_or_take_the_first_deciding_value_and_run_every_func(arch):
    @qd.kernel
    def k(a: I1, b: I1, d: I1, c: I1, out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i in range(a.shape[0]):
            out[i, 0] = bump(c, 0, a[i]) and bump(c, 1, b[i]) and bump(c, 2, d[i])
            out[i, 1] = bump(c, 3, a[i]) or bump(c, 4, b[i]) or bump(c, 5, d[i])
            out[i, 2] = a[i] and b[i] or d[i]

    a = np.array([0, 1, 1, 2, 0, 0, 3], np.int32)
    b = np.array([5, 0, 4, 0, 0, 6, 7], np.int32)
    d = np.array([9, 8, 0, 6, 0, 0, 2], np.int32)
    c, out = np.zeros(6, np.int32), np.zeros((7, 3), np.int32)
    k(a, b, d, c, out)
    cr = [0] * 6
    ref = [[py_bump(cr, 0, x) and py_bump(cr, 1, y) and py_bump(cr, 2, z),
            py_bump(cr, 3, x) or py_bump(cr, 4, y) or py_bump(cr, 5, z),
            x and y or z] for x, y, z in zip(a.tolist(), b.tolist(), d.tolist())]
    np.testing.assert_array_equal(out, ref)
    assert c.tolist() == [7] * 6  # every bump's statements ran for every element, as in Quadrants 1.3.3


def test_values_are_an_operand_like_python(arch):
    @qd.kernel
    def k(a: I1, b: I1, n: qd.i32, m: qd.i32, out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i in range(a.shape[0]):
            out[i, 0] = 2 and 3
            out[i, 1] = 0 or 5  # noqa: SIM222 - the value is the point
            out[i, 2] = a[i] and b[i]
            out[i, 3] = a[i] or b[i]
            out[i, 4] = n and m      # scalar arguments: the branch-free form
            out[i, 5] = a[i] or m
            out[i, 6] = 0 or a[i] and 7

    a = np.array([2, 0, 5, -1, 0], np.int32)
    b = np.array([3, 3, 0, 4, 0], np.int32)
    out = np.zeros((5, 7), np.int32)
    k(a, b, 2, 3, out)
    ref = [[2 and 3, 0 or 5, x and y, x or y, 2 and 3, x or 3, 0 or x and 7]  # noqa: SIM222
           for x, y in zip(a.tolist(), b.tolist())]
    np.testing.assert_array_equal(out, ref)


@qd.func
def fcount(c: I1, k: qd.i32, v: qd.f32) -> qd.f32:
    qd.atomic_add(c[k], 1)
    return v


@qd.func
def above(c: I1, k: qd.i32, v: qd.f32):
    qd.atomic_add(c[k], 1)
    return v > 0.5


def test_bools_and_a_func_on_the_right(arch):
    """u1 `and`/`or` give a u1, and u1 + u1 adds in one bit (Quadrants 1.3.3's output below, from
    the same kernel run under it); `above` runs for every element."""
    @qd.kernel
    def k(x: F1, y: F1, c: I1, flags: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i in range(x.shape[0]):
            p, q = x[i] > 0.5, y[i] > 0.5
            flags[i, 0] = p and q
            flags[i, 1] = p or q
            flags[i, 2] = (x[i] > 0.5) and (y[i] > 0.5)  # u1 and u1 with a load on the right: a u1 result
            flags[i, 3] = (x[i] > 0.5) or above(c, 2, y[i])
            flags[i, 4] = ((x[i] > 0.5) and (y[i] > 0.5)) + ((x[i] > 0.5) or (y[i] > 0.5))  # u1 + u1: 1 + 1 is 0

    x = np.array([0.0, 1.5, 0.0, 2.0, 0.25], np.float32)
    y = np.array([3.0, 0.0, 0.0, 0.75, 1.0], np.float32)
    c, flags = np.zeros(3, np.int32), np.zeros((5, 5), np.int32)
    k(x, y, c, flags)
    assert flags.tolist() == [[0, 1, 0, 1, 1], [0, 1, 0, 1, 1], [0, 0, 0, 0, 0], [1, 1, 1, 1, 0], [0, 1, 0, 1, 1]]
    assert c.tolist() == [0, 0, 5]


def test_float_operands_of_and_or_are_refused_as_in_quadrants(cpu):
    @qd.kernel
    def k(x: F1, y: F1):
        x[0] = x[1] and y[0]

    with pytest.raises(qd.QuadrantsTypeError, match=r"unsupported operand type\(s\) for '&&': 'f32' and 'f32'"):
        k(np.zeros(2, np.float32), np.zeros(1, np.float32))


def test_mixing_float_and_int_is_still_a_type_error_with_a_load_on_the_right(cpu):
    @qd.kernel
    def k(x: F1, n: qd.i32):
        x[0] = n and x[1]

    with pytest.raises(qd.QuadrantsTypeError, match=r"unsupported operand type\(s\) for '&&': 'i32' and 'f32'"):
        k(np.zeros(2, np.float32), 1)


def test_a_pure_right_side_keeps_the_branch_free_ir(cpu):
    """The IR (and so the LLVM IR) of `and`/`or` whose right side cannot fault stays what it was: a local
    for the left operand and a select, or `and`/`or` of two u1; no branch."""
    @qd.kernel
    def pure(n: qd.i32, m: qd.i32, out: I1):
        for i in range(out.shape[0]):
            out[i] = n and m
            out[i] = (n > 0) or (i < m)
            out[i] = n or m % 3
            out[i] = n or (m and i)  # a nested and/or on the right: its temporary is pure, so it stays

    (task,) = pure.tasks()
    assert not any(isinstance(s, ir.If) for s in ir.walk(task.body))
    a0, s0, s1, a2, s2, a3, a4, s3 = task.body
    (i,) = task.loop_vars
    n, m = ir.ScalarArg("n", qd.i32), ir.ScalarArg("m", qd.i32)
    idx = (ir.LocalRef(i),)
    b0, b2 = ir.LocalRef(a0.local), ir.LocalRef(a2.local)
    assert a0.local.dtype == qd.i32 and a0.value == n
    assert s0.value == ir.Select(ir.Compare("!=", b0, ir.Const(0, qd.i32), qd.u1), m, b0, qd.i32)
    assert s1.value == ir.Cast(ir.BinOp("or", ir.Compare(">", n, ir.Const(0, qd.i32), qd.u1),
                                        ir.Compare("<", ir.LocalRef(i), m, qd.u1), qd.u1), qd.i32)
    assert a2.value == n
    assert s2.value == ir.Select(ir.Compare("!=", b2, ir.Const(0, qd.i32), qd.u1), b2,
                                 ir.BinOp("%", m, ir.Const(3, qd.i32), qd.i32), qd.i32)
    b3, b4 = ir.LocalRef(a3.local), ir.LocalRef(a4.local)
    assert a3.value == m and a4.value == n  # the right side's temporary first, as before
    assert s3.value == ir.Select(ir.Compare("!=", b4, ir.Const(0, qd.i32), qd.u1), b4,
                                 ir.Select(ir.Compare("!=", b3, ir.Const(0, qd.i32), qd.u1), ir.LocalRef(i), b3,
                                           qd.i32), qd.i32)
    assert [s.indices for s in (s0, s1, s2, s3)] == [idx] * 4

    from qdexplorer.codegen import CodegenOptions, build_task_module
    text = build_task_module(task, CodegenOptions("host")).text
    assert "then" not in text and "endif" not in text and "select" in text


def test_a_right_side_that_can_fault_or_has_effects_is_branched_around(cpu):
    @qd.kernel
    def k(x: I1, n: qd.i32, m: qd.i32, c: I1, out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i in range(out.shape[0]):
            out[i, 0] = i < n and x[i] > 0   # a load
            out[i, 1] = m and n // m         # integer division by a value that may be zero
            out[i, 2] = n or bump(c, 0, 1)   # an inlined call with an atomic
            t = 0
            out[i, 3] = n or qd.atomic_add(t, 1)  # an update of a local that is not b's own
            out[i, 4] = t

    (task,) = k.tasks()
    assert sum(isinstance(s, ir.If) for s in task.body) == 2  # the load and the division; the func's and the
    # atomic's statements run unconditionally (their values, 1 and the old t, need no branch)
    out, c = np.zeros((3, 5), np.int32), np.zeros(1, np.int32)
    k(np.array([1, 0, 1], np.int32), 5, 0, c, out)  # m == 0: n // m must not run (SIGFPE on the host)
    # Quadrants 1.3.3's output: the func's atomic and the atomic on t run on every path (t is 1), the load
    # and the division only where their value is taken
    assert out.tolist() == [[1, 0, 5, 5, 1], [0, 0, 5, 5, 1], [1, 0, 5, 5, 1]] and c.tolist() == [3]


def test_short_circuit_operators_false_is_refused():
    qd.init(arch=qd.cpu, short_circuit_operators=True)  # Quadrants' default: accepted
    qd.reset()
    with pytest.raises(ValueError, match=r"short_circuit_operators=False.*always short-circuits"):
        qd.init(arch=qd.cpu, short_circuit_operators=False)


def test_conditional_expression_takes_only_the_chosen_value(debug_arch):
    """`x[i] if i < n else 0`, as Python and Quadrants (`make_ifte`) run it: no load of x[n]; a func on
    either side runs on every path, as Quadrants builds both sides first (its counts: 6 and 6)."""
    @qd.kernel
    def pick(x: I1, c: I1, out: I1):
        for i in range(out.shape[0]):  # longer than x
            out[i] = x[i] if i < x.shape[0] else -1
            out[i] += bump(c, 0, 100) if i % 2 == 0 else bump(c, 1, 1000)
            out[i] += (2 if i < 3 else 4)  # pure sides: stays a select

    x = np.array([7, 8, 9], np.int32)
    c = np.zeros(2, np.int32)
    out = np.zeros(6, np.int32)
    pick(x, c, out)
    cc = [0, 0]
    ref = [(x[i] if i < 3 else -1) + (py_bump(cc, 0, 100) if i % 2 == 0 else py_bump(cc, 1, 1000))
           + (2 if i < 3 else 4) for i in range(6)]
    np.testing.assert_array_equal(out, ref)
    assert cc == [3, 3] and c.tolist() == [6, 6]
