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


def test_negative_integer_exponent_raises_in_debug_mode_only():
    """Quadrants' debug mode raises QuadrantsRuntimeError for `int ** negative int` (upstream test_pow)."""
    import pytest

    import qdexplorer.lang as qd
    for debug in (True, False):
        qd.init(arch=qd.cpu, debug=debug)
        z = qd.field(qd.i32, shape=())

        @qd.kernel
        def power(x: qd.i32, y: qd.i32):
            z[None] = x ** y

        power(3, 2)
        assert z[None] == 9
        if debug:
            with pytest.raises(qd.QuadrantsRuntimeError, match=r"test_integer_pow.py:\d+: Negative exponent"):
                power(10, -1)
        else:
            power(10, -1)  # unchecked, as in Quadrants without debug
        qd.reset()
