"""Small Quadrants names that whole upstream test files needed at import: qd.one, loop_unique,
DType.to_string, the logging levels, quadrants.types.enums and quadrants.lang.ops."""
import subprocess
import sys

import pytest

import qdexplorer.lang as qd
from qdexplorer.lang.intrinsics import loop_unique


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_one_and_loop_unique_in_a_kernel():
    x = qd.field(qd.f32, shape=3)
    v = qd.Vector.field(2, qd.i32, shape=3)
    idx = qd.field(qd.i32, shape=3)
    hits = qd.field(qd.i32, shape=3)

    @qd.kernel
    def k():
        for i in range(3):
            x[i] = qd.one(x[i]) * 2.5
            v[i] = qd.one(v[i]) * 3
            hits[loop_unique(idx[i])] += 1

    idx.from_numpy(__import__("numpy").array([2, 0, 1], "int32"))
    k()
    assert x.to_numpy().tolist() == [2.5] * 3 and v.to_numpy().tolist() == [[3, 3]] * 3
    assert hits.to_numpy().tolist() == [1, 1, 1]
    assert qd.one(4.0) == 1.0


def test_dtype_names_and_logging_levels():
    assert qd.f32.to_string() == "f32" and qd.u8.to_string() == "u8"
    qd.set_logging_level(qd.DEBUG)
    qd.set_logging_level(qd.INFO)
    with pytest.raises(ValueError, match="unknown level"):
        qd.set_logging_level("loud")


def test_enums_and_ops_module_paths():
    code = ("from qdexplorer.lang.compat.module_paths import alias_quadrants; alias_quadrants()\n"
            "import quadrants as qd\n"
            "from quadrants.types.enums import AutodiffMode, SNodeGradType\n"
            "from quadrants.lang import ops\n"
            "assert AutodiffMode.REVERSE == 3 and SNodeGradType.DUAL == 2\n"
            "assert ops.sqrt is qd.sqrt and qd.lang.ops is ops and ops.add(2, 3) == 5\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr


def test_init_cuda_without_a_gpu_falls_back_to_the_cpu_unless_told_not_to():
    """Quadrants' qd.init(arch=qd.cuda) falls back to the CPU with a warning (enable_fallback=True)."""
    from qdexplorer.runtime.cuda.detect import cuda_status
    if cuda_status().available:
        pytest.skip("a GPU is here: nothing falls back")
    with pytest.warns(UserWarning, match="falling back to the CPU"):
        assert qd.init(arch=qd.cuda) == qd.cpu
    with pytest.raises(RuntimeError, match="CUDA is unavailable"):
        qd.init(arch=qd.cuda, enable_fallback=False)


@pytest.mark.parametrize("body, what", [("return not x", "'not'"), ("return ~x", "'~'"),
                                        ("return qd.math.ffs(x)", "ffs")])
def test_logical_and_bit_operators_on_floats_are_type_errors(tmp_path, body, what):
    """Quadrants: `not`, `~` and ffs take integral inputs only (upstream test_unary_ops)."""
    src = tmp_path / "k.py"
    src.write_text("import qdexplorer.lang as qd\n\n@qd.kernel\ndef k(x: qd.f32) -> qd.i32:\n    " + body + "\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("k_mod", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(qd.QuadrantsTypeError, match="takes integral inputs only") as e:
        mod.k(1.0)
    assert what in str(e.value)


def test_multi_component_swizzle_assignment_and_stpq():
    """`v.xy = v.yx`, `v.rgb += 1`, `.stp` (upstream test_vector_swizzle)."""
    out = qd.field(qd.f32, shape=6)

    @qd.kernel
    def k():
        u = qd.math.vec3(1, 2, 3)
        u.xy = u.yx           # both read before either is written
        u.zx = qd.math.vec2(7, 8)
        v = qd.math.vec3(0)
        v.rgb += 1
        v.zyx += qd.math.vec3(1, 2, 3)
        out[0], out[1], out[2] = u.x, u.y, u.z
        s = v.stp
        out[3], out[4], out[5] = s[0], s[1], s[2]

    k()
    assert out.to_numpy().tolist() == [8.0, 1.0, 7.0, 4.0, 3.0, 2.0]


@pytest.mark.parametrize("fn", ["sin", "cos", "tan", "tanh", "asin", "acos", "floor"])
def test_trigonometric_of_an_integer_is_a_type_error_as_in_quadrants(fn):
    f = getattr(qd, fn)

    @qd.kernel
    def k(a: qd.i32) -> qd.f32:
        return f(a)

    with pytest.raises(qd.QuadrantsTypeError, match=f"'{fn}' takes real inputs only"):
        k(1)


def test_loop_iterable_chosen_by_a_static_conditional_expression():
    """`for i in range(a) if qd.static(c) else range(b)` (upstream test_adstack): picked at compile time."""
    flag = True
    x = qd.field(qd.i32, shape=4)

    @qd.kernel
    def k(n: qd.i32):
        for i in range(4) if qd.static(flag) else range(2):
            s = 0
            for _ in range(n) if qd.static(not flag) else range(i):
                s += 1
            x[i] = s

    k(10)
    assert x.to_numpy().tolist() == [0, 1, 2, 3]


def test_subnormal_constants_are_flushed_to_zero_as_in_quadrants():
    """Quadrants flushes subnormal f32/f64 constants to 0 (upstream test_fp_flush_to_zero); qdexplorer
    stored 1.4e-45."""
    a = qd.field(qd.f32, shape=3)
    b = qd.field(qd.f64, shape=2)

    @qd.kernel
    def k():
        a[0] = 1e-45
        a[1] = 1e-10 * 1e-35
        a[2] = 1e-30
        b[0] = 1e-323
        b[1] = qd.f64(1e-300)

    k()
    assert a.to_numpy().tolist()[:2] == [0.0, 0.0] and a[2] == pytest.approx(1e-30)
    assert b[0] == 0 and b[1] == pytest.approx(1e-300)


def test_bool_of_a_value_in_a_kernel():
    """`bool(x)` in a kernel is x != 0 (upstream test_bool_type)."""
    @qd.func
    def f(x: qd.u32) -> bool:
        return bool(x)

    @qd.kernel
    def k(a: qd.u32) -> qd.i32:
        return qd.i32(f(a)) * 10 + qd.i32(bool(0)) + qd.i32(f(qd.u32(4_294_967_295)))

    assert k(1000) == 11 and k(0) == 1


def test_an_assert_outside_debug_mode_still_runs_its_test_expression():
    """Quadrants skips the check but still evaluates the test (upstream test_assert_skip); qdexplorer
    dropped the whole statement, so a func's store in it never happened (a silent wrong value)."""
    a = qd.field(qd.i32, shape=())

    @qd.func
    def f1() -> bool:
        a[()] = 5
        return False

    @qd.kernel
    def k1():
        assert f1()
        assert False
        assert True

    k1()
    assert a[()] == 5


def test_conditional_expression_with_vector_sides():
    """`0 if c else v` with a vector side picks every component by the scalar `c`; a vector `c` is a
    QuadrantsSyntaxError pointing to qd.select (upstream test_if)."""
    g = qd.Vector.field(3, qd.f32, shape=4)

    @qd.kernel
    def k():
        for i in range(4):
            g[i] = 0 if i % 2 == 0 else g[i] + qd.math.vec3(1, 2, 3)

    g.fill(1.0)
    k()
    assert g.to_numpy().tolist() == [[0, 0, 0], [2, 3, 4], [0, 0, 0], [2, 3, 4]]

    @qd.kernel
    def bad():
        for i in range(4):
            g[i] = 0 if g[i] > 0 else g[i]

    with pytest.raises(qd.QuadrantsSyntaxError, match='Please use "qd.select" instead'):
        bad()
