"""`int ** int` is an exact integer, as in Quadrants; it never takes a float (fast-math) detour."""
import numpy as np

MAX_INT = 2147483647


def test_integer_powers_are_exact(arch):
    qd = arch

    @qd.kernel
    def powers(out: qd.types.ndarray(dtype=qd.i64, ndim=1), masks: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(out.shape[0]):
            out[i] = qd.cast(3, qd.i64) ** i
            masks[i] = MAX_INT - 2 ** i

    n = 31
    out, masks = np.zeros(n, np.int64), np.zeros(n, np.int32)
    powers(out, masks)
    np.testing.assert_array_equal(out, [3 ** i for i in range(n)])
    np.testing.assert_array_equal(masks, [MAX_INT - 2 ** i for i in range(n)])


def test_local_and_reduction_with_integer_powers(arch):
    qd = arch
    A = qd.field(qd.i32, shape=())

    @qd.kernel
    def func():
        a = 1023
        for i in range(10):
            qd.atomic_and(a, MAX_INT - 2 ** i)
        A[None] = a

    func()
    assert A[None] == 0
