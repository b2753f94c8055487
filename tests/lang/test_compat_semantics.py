"""Issue 11, first part: results that differ from Quadrants, and code Quadrants rejects."""
import importlib.util

import numpy as np
import pytest

import qdexplorer.lang as qd

I1 = qd.types.ndarray(dtype=qd.i32, ndim=1)
F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)


def kernel_from_text(tmp_path, text, name="k"):
    """A kernel defined in a real file (kernels need their source), imported as a module."""
    f = tmp_path / f"mod_{abs(hash(text))}.py"
    f.write_text("import qdexplorer.lang as qd\n\n@qd.kernel\n" + text)
    spec = importlib.util.spec_from_file_location(f.stem, f)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def test_and_or_return_an_operand_like_python(arch):
    @qd.kernel
    def k(a: I1, b: I1, out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i in range(a.shape[0]):
            out[i, 0] = a[i] and b[i]
            out[i, 1] = a[i] or b[i]
            out[i, 2] = (a[i] > 0) and b[i]
            out[i, 3] = a[i] and b[i] and 7
            out[i, 4] = 0 or a[i]

    a = np.array([2, 0, 5, -1, 0], np.int32)
    b = np.array([3, 3, 0, 4, 0], np.int32)
    out = np.zeros((5, 5), np.int32)
    k(a, b, out)
    ref = np.array([[int(x and y), int(x or y), int((x > 0) and y), int(x and y and 7), int(0 or x)]
                    for x, y in zip(a.tolist(), b.tolist())])
    np.testing.assert_array_equal(out, ref)


def test_and_or_mixing_float_and_int_is_a_type_error(cpu):
    @qd.kernel
    def k(x: F1, n: qd.i32):
        x[0] = x[0] or n

    with pytest.raises(qd.QuadrantsTypeError, match=r"unsupported operand type\(s\) for '\|\|': 'f32' and 'i32'"):
        k(np.zeros(1, np.float32), 1)


@pytest.mark.parametrize("body", ["a = 1", "a: qd.i32 = 1", "a += 1", "x = x"])
def test_assigning_a_kernel_argument_is_a_syntax_error(cpu, tmp_path, body):
    kern = kernel_from_text(tmp_path, f"def k(a: qd.i32, x: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n    {body}\n")
    with pytest.raises(qd.QuadrantsSyntaxError, match="Kernel argument \"a\" is immutable in the kernel|Kernel argument \"x\" is immutable") as ei:
        kern(1, np.zeros(1, np.int32))
    assert isinstance(ei.value, qd.QuadrantsCompilationError) and isinstance(ei.value, SyntaxError)


def test_reannotating_a_local_with_another_type_is_an_error(cpu):
    @qd.kernel
    def same(out: I1):
        v: qd.i32 = 1
        v: qd.i32 = 2  # noqa: F842 - the same type is an assignment, as in Quadrants
        out[0] = v

    out = np.zeros(1, np.int32)
    same(out)
    assert out[0] == 2

    @qd.kernel
    def other(out: I1):
        v = 1
        if out[0] > 0:
            v: qd.f32 = 2.0
        out[0] = v

    with pytest.raises(qd.QuadrantsSyntaxError, match="already declared as qd.i32"):
        other(out)


def test_floor_of_an_integer_is_a_type_error_and_floor_takes_a_dtype(cpu):
    @qd.kernel
    def bad(a: qd.i32, out: I1):
        out[0] = qd.floor(a)

    with pytest.raises(qd.QuadrantsTypeError, match="takes real inputs only"):
        bad(1, np.zeros(1, np.int32))

    @qd.kernel
    def good(x: F1, out: I1):
        for i in range(x.shape[0]):
            out[i] = qd.floor(x[i], qd.i32) * 100 + qd.ceil(x[i], int) * 10 + qd.round(x[i], qd.i32)

    x = np.array([1.2, -1.5, 2.5, 3.7], np.float32)
    out = np.zeros(4, np.int32)
    good(x, out)
    ref = np.floor(x) * 100 + np.ceil(x) * 10 + np.copysign(np.floor(np.abs(x) + 0.5), x)
    np.testing.assert_array_equal(out, ref.astype(np.int32))


def test_a_float_for_an_integer_argument_is_a_runtime_type_error(cpu):
    @qd.kernel
    def k(a: qd.i32, out: F1):
        out[0] = 1.0

    with pytest.raises(qd.QuadrantsRuntimeTypeError, match="got the float 1.5") as ei:
        k(1.5, np.zeros(1, np.float32))
    assert isinstance(ei.value, TypeError) and isinstance(ei.value, qd.QuadrantsRuntimeError)
    k(np.int64(3), np.zeros(1, np.float32))  # NumPy integers are fine


def test_error_class_family_matches_quadrants():
    assert qd.QuadrantsCompilationError is qd.QdCompileError
    assert qd.QuadrantsRuntimeError is qd.QdRuntimeError
    for cls, base in [(qd.QuadrantsSyntaxError, SyntaxError), (qd.QuadrantsTypeError, TypeError),
                      (qd.QuadrantsNameError, NameError), (qd.QuadrantsIndexError, IndexError)]:
        assert issubclass(cls, qd.QuadrantsCompilationError) and issubclass(cls, base)
    assert issubclass(qd.QuadrantsAssertionError, AssertionError)
    assert issubclass(qd.QuadrantsRuntimeTypeError, qd.QuadrantsRuntimeError)


def test_asserts_check_only_in_debug_mode(tmp_path):
    k = kernel_from_text(tmp_path, "def k(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                   "    for i in x:\n"
                                   "        assert x[i] < 3, 'x must stay small'\n")
    x = np.arange(5, dtype=np.int32)
    qd.init(arch=qd.cpu)
    try:
        k(x)  # compiled out, as in Quadrants without debug
        qd.init(arch=qd.cpu, debug=True)
        with pytest.raises(qd.QuadrantsAssertionError, match=r"mod_\d+\.py:6: assertion failed: assert x\[i\] < 3, "
                                                             r"'x must stay small': x must stay small"):
            k(x)
        k(np.zeros(3, np.int32))  # passes
    finally:
        qd.reset()
        qd.init(arch=qd.cpu)
        qd.reset()


def test_more_scalar_dtypes(arch):
    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.i8, ndim=1), b: qd.types.ndarray(dtype=qd.u16, ndim=1),
          h: qd.types.ndarray(dtype=qd.f16, ndim=1), u: qd.types.ndarray(dtype=qd.u64, ndim=1),
          c: qd.types.ndarray(dtype=qd.u8, ndim=1), d: qd.types.ndarray(dtype=qd.i16, ndim=1), s: qd.i8):
        for i in a:
            a[i] = a[i] * 2 + s
            b[i] = b[i] + 1000
            h[i] = h[i] * 1.5 + qd.sqrt(h[i])
            u[i] = u[i] * 3
            c[i] = c[i] + 250
            d[i] = d[i] - 30000

    n = 6
    a, b = np.arange(n, dtype=np.int8), np.arange(n, dtype=np.uint16)
    h, u = np.arange(n, dtype=np.float16), np.arange(n, dtype=np.uint64) + (1 << 40)
    c, d = np.arange(n, dtype=np.uint8), np.arange(n, dtype=np.int16)
    ref = [a * 2 + 3, b + 1000, h * np.float16(1.5) + np.sqrt(h),  # each f16 op rounds, as in NumPy
           u * 3, (c.astype(np.int32) + 250).astype(np.uint8), (d.astype(np.int32) - 30000).astype(np.int16)]
    k(a, b, h, u, c, d, 3)
    for got, want in zip((a, b, h, u, c, d), ref):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_scalar_arguments_of_every_width_reach_the_kernel(arch):
    """Each scalar type in its own parameter slot (CUDA script calls pack them into one reused buffer)."""
    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.f64, ndim=1), a: qd.i8, b: qd.u8, c: qd.i16, d: qd.u16, e: qd.i32,
          f: qd.u32, g: qd.i64, h: qd.u64, x: qd.f32, y: qd.f64):
        for i in range(1):
            out[0], out[1], out[2], out[3], out[4] = a, b, c, d, e
            out[5], out[6], out[7], out[8], out[9] = f, g, h, x, y

    vals = (-5, 200, -30000, 60000, -2_000_000_000, 4_000_000_000, -(1 << 40), (1 << 40) + 7, 1.5, 2.0 ** -30)
    for _ in range(2):  # twice: the second call reuses the first call's parameter buffer
        out = np.zeros(10)
        k(out, *vals)
        np.testing.assert_array_equal(out, np.array(vals, dtype=np.float64))
        vals = tuple(v * 2 if isinstance(v, float) else v for v in vals[:8]) + (3.0, 0.25)
    out = np.zeros(10)
    k(out, 0, 0, 0, 0, 0, 0, 0, 0, 1e39, 0.0)  # beyond f32: inf, as C converts it
    assert out[8] == np.inf


def test_select_and_bitwise_atomics(arch):
    @qd.kernel
    def k(x: I1, flags: I1):
        for i in x:
            x[i] = qd.select(x[i] > 2, x[i] * 10, -x[i])
            qd.atomic_or(flags[0], 1 << i)
            qd.atomic_and(flags[1], ~(1 << i))
            qd.atomic_xor(flags[2], 1)

    x = np.arange(6, dtype=np.int32)
    flags = np.array([0, -1, 0], np.int32)
    k(x, flags)
    np.testing.assert_array_equal(x, np.where(np.arange(6) > 2, np.arange(6) * 10, -np.arange(6)))
    assert flags.tolist() == [0b111111, ~0b111111, 0]


def test_print_in_kernels_uses_quadrants_formats(cpu, capfd):
    @qd.kernel
    def k(a: qd.i32, b: qd.f32, c: qd.f64, x: I1):
        print("a =", a, "b =", b, c, a > 0)
        for i in x:
            if i == 1:
                print(f"x[{i}] = {x[i]} 100%", qd.math.vec2(1.5, 2.0), sep=" | ")

    k(3, 1.5, 2.25, np.array([5, 7, 9], np.int32))
    out = capfd.readouterr().out
    assert out == "a = 3 b = 1.500000 2.250000000000 1\nx[1] = 7 100% | [1.500000, 2.000000]\n"


@pytest.mark.parametrize("name, hint", [("Mesh", "mesh"), ("interop", "Metal")])
def test_left_out_features_say_so(name, hint):
    with pytest.raises(AttributeError, match=f"`qd.{name}` is not supported by qdexplorer.lang .*{hint}"):
        getattr(qd, name)


def test_qd_init_falls_back_from_backends_qdexplorer_lacks_unless_told_not_to():
    """As Quadrants: an unsupported arch falls back to the CPU with a warning; enable_fallback=False
    makes it an error (a RuntimeError there)."""
    with pytest.warns(UserWarning, match="runs on qd.cpu and qd.cuda only; falling back"):
        assert qd.init(arch=qd.vulkan) == qd.cpu
    with pytest.raises(RuntimeError, match="runs on qd.cpu and qd.cuda only"):
        qd.init(arch=qd.metal, enable_fallback=False)


@pytest.mark.cuda
def test_print_in_kernels_on_cuda(cuda, capfd):
    @qd.kernel
    def k(a: qd.i32, b: qd.f32, x: I1):
        print("a =", a, "b =", b)
        for i in x:
            if i == 1:
                print(f"x[{i}] = {x[i]}", qd.math.vec2(1.5, 2.0))

    k(3, 1.5, np.array([5, 7, 9], np.int32))
    qd.sync()
    out = capfd.readouterr().out
    assert out == "a = 3 b = 1.500000\nx[1] = 7 [1.500000, 2.000000]\n"


def test_none_return_annotation_and_return_none_mean_no_result(arch):
    """`-> None` (which typing.get_type_hints reports as NoneType) and `return None` are Python's
    spellings of "no result"; Quadrants' own examples use both. Expected values: Quadrants 1.3.3."""
    x = qd.field(qd.f32, shape=4)

    @qd.func
    def bump(i: qd.i32) -> None:
        x[i] += 1.0

    @qd.kernel
    def fill(a: qd.f32) -> None:
        for i in x:
            x[i] = a * i
            bump(i)

    @qd.kernel
    def add_ten():
        for i in x:
            x[i] += 10
        return None

    @qd.kernel
    def first() -> None:
        x[0] = 100.0
        return

    assert fill(2.0) is None and add_ten() is None and first() is None
    np.testing.assert_array_equal(x.to_numpy(), [100.0, 13.0, 15.0, 17.0])


def test_compile_time_values_compare_at_compile_time(arch):
    """`if precision == qd.i32:` on a closure dtype (upstream's test_random_int does this) picks a
    branch at compile time, as Python would; so do string comparisons and `qd.static(x is None)` (a
    bare `is` is Quadrants' QuadrantsSyntaxError, test_errors.py)."""
    out = qd.field(qd.f32, shape=3)

    def make(dt, mode, extra):
        @qd.kernel
        def k():
            for i in range(1):
                out[0] = 1.0 if dt == qd.i32 else 2.0
                if mode == "fast":
                    out[1] = 3.0
                else:
                    out[1] = 4.0
                out[2] = 5.0 if qd.static(extra is None) else 6.0
        return k

    make(qd.i32, "fast", None)()
    np.testing.assert_array_equal(out.to_numpy(), [1.0, 3.0, 5.0])
    make(qd.f64, "slow", 7)()
    np.testing.assert_array_equal(out.to_numpy(), [2.0, 4.0, 6.0])
