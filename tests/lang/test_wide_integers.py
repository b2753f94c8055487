"""Integers never wrap between the caller and the kernel (issue 21): 64-bit loop bounds keep their
value (a 64-bit index where a bound needs it, a refusal naming the value where a launch cannot count
it), and every integer scalar is checked against its own dtype's range."""
import numpy as np
import pytest

from qdexplorer.lang.calls.arg_check import ArgumentError


def test_i64_trip_counts_over_2_31_are_refused_with_the_value_never_wrapped(arch):
    qd = arch

    @qd.kernel
    def count(x: qd.types.ndarray(dtype=qd.i64, ndim=1), n: qd.i64):
        for i in range(n):
            qd.atomic_add(x[0], 1)

    x = np.zeros(1, np.int64)
    for n in (2**32 + 5, 2**31 + 9, 2**40):
        with pytest.raises(ArgumentError, match=f"{n} iterations"):
            count(x, n)
    assert x[0] == 0
    count(x, 1000)
    assert x[0] == 1000


def test_range_with_64_bit_begin_gives_the_real_indices(arch):
    qd = arch

    @qd.kernel
    def index(x: qd.types.ndarray(dtype=qd.i64, ndim=1), lo: qd.i64, hi: qd.i64):
        for i in range(lo, hi):
            x[i - lo] = i

    x = np.zeros(10, np.int64)
    index(x, 2**32, 2**32 + 10)
    np.testing.assert_array_equal(x, np.arange(2**32, 2**32 + 10))

    @qd.kernel
    def index2(x: qd.types.ndarray(dtype=qd.i64, ndim=2), lo: qd.i64):
        for i, j in qd.ndrange((lo, lo + 3), 4):
            x[i - lo, j] = i * 10 + j

    y = np.zeros((3, 4), np.int64)
    index2(y, 2**33)
    np.testing.assert_array_equal(y, (np.arange(2**33, 2**33 + 3)[:, None] * 10 + np.arange(4)))


def test_constant_64_bit_begin_gives_the_real_indices(arch):
    qd = arch

    @qd.kernel
    def index(x: qd.types.ndarray(dtype=qd.i64, ndim=1)):
        for i in range(2**32, 2**32 + 10):
            x[i - 2**32] = i

    x = np.zeros(10, np.int64)
    index(x)
    np.testing.assert_array_equal(x, np.arange(2**32, 2**32 + 10))


def test_inner_loops_keep_64_bit_bounds(arch):
    qd = arch

    @qd.kernel
    def inner(x: qd.types.ndarray(dtype=qd.i64, ndim=1), lo: qd.i64):
        for _ in range(1):
            for i, j in qd.ndrange((lo, lo + 2), 2):
                x[(i - lo) * 2 + j] = i

    x = np.zeros(4, np.int64)
    inner(x, 2**32 + 1)
    np.testing.assert_array_equal(x, [2**32 + 1] * 2 + [2**32 + 2] * 2)


def test_u32_bound_past_i32_is_refused_never_wrapped(arch):
    qd = arch

    @qd.kernel
    def count(x: qd.types.ndarray(dtype=qd.i32, ndim=1), n: qd.u32):
        for i in range(n):
            qd.atomic_add(x[0], 1)

    x = np.zeros(1, np.int32)
    with pytest.raises(ArgumentError, match="3000000000"):
        count(x, 3_000_000_000)
    assert x[0] == 0


@pytest.mark.parametrize("dt, bad, good", [
    ("i8", [300, -129, 128], [127, -128]),
    ("i16", [70000, -32769], [32767]),
    ("u8", [-1, 256], [255]),
    ("u16", [-1, 65536], [65535]),
    ("u64", [-1, 2**64], [2**64 - 1]),
    ("u32", [-1, 2**32], [2**32 - 1]),
])
def test_narrow_integer_scalars_are_checked_against_their_own_range(arch, dt, bad, good):
    qd = arch
    qdt = getattr(qd, dt)

    @qd.kernel
    def put(x: qd.types.ndarray(dtype=qdt, ndim=1), v: qdt):
        for i in range(x.shape[0]):
            x[i] = v

    x = np.zeros(2, qdt.numpy)
    for v in bad:
        with pytest.raises(ArgumentError, match=f"'v' = {v} does not fit in {dt}"):
            put(x, v)
    assert not x.any()
    for v in good:
        put(x, v)
        assert x.tolist() == [v, v]


def test_an_f16_scalar_argument(arch):
    """Own case (issue 21): an f16 scalar parameter failed to load with "load failed: 'f16'"; then it
    was refused on the CPU; Quadrants takes it (issue 29's differential test): the host entry takes
    an f32 and rounds it to half; on CUDA the parameter is a .b16 with the half's bits (it raised
    KeyError 'f16' there, found by the differential test on the H200)."""
    qd = arch

    @qd.kernel
    def put(x: qd.types.ndarray(dtype=qd.f16, ndim=1), v: qd.f16):
        for i in range(x.shape[0]):
            x[i] = v * qd.cast(2.0, qd.f16)

    x = np.zeros(2, np.float16)
    put(x, 1.5)
    assert x.tolist() == [3.0, 3.0]
    put(x, 0.1)  # rounded to half before the product: 2 * f16(0.1)
    assert x.tolist() == [float(np.float16(0.1)) * 2] * 2
