"""Kernels' and funcs' arguments, `@qd.real_func`, and what Quadrants says when a call does not fit.

Expected values and messages are real Quadrants 1.3.3's on the CPU (each case was run under both)."""
import pytest

import qdexplorer.lang as qd


def test_call_mistakes_use_quadrants_words(cpu):
    @qd.kernel
    def k(a: qd.i32, b: qd.i32) -> qd.i32:
        return a + b

    @qd.func
    def f(a, b):
        return a + b

    @qd.kernel
    def calls_f() -> qd.i32:
        return f(1, 2, 3)

    @qd.kernel
    def calls_f_twice_a() -> qd.i32:
        return f(1, a=2)

    for call, words in ((lambda: k(1), "Missing argument 'b'"), (lambda: k(b=1), "Missing argument 'a'"),
                        (lambda: k(1, 2, c=3), "Unexpected argument 'c'"), (lambda: k(1, 2, 3), "Too many arguments"),
                        (calls_f, "Too many arguments"), (calls_f_twice_a, "Multiple values for argument 'a'")):
        with pytest.raises(qd.QuadrantsSyntaxError, match=words) as e:
            call()
        assert isinstance(e.value, TypeError)  # Python's own binding error is one, and programs catch it
        assert str(e.value).startswith(__file__)
    assert k(1, b=2) == 3


def test_real_func_recursion_is_a_real_call(cpu):
    """How deep it recurses is known only at run time, so the call cannot be inlined."""
    @qd.real_func
    def tri(n: qd.i32) -> qd.i32:
        if n == 0:
            return 0
        return tri(n - 1) + n

    @qd.real_func
    def total(f: qd.template(), lo: qd.i32, hi: qd.i32) -> qd.i32:
        if lo == hi:
            return f[lo]
        else:
            return total(f, lo, (lo + hi) // 2) + total(f, (lo + hi) // 2 + 1, hi)

    @qd.real_func
    def scale(v: qd.math.vec2, n: qd.i32) -> qd.math.vec2:
        r = v
        if n > 0:
            r = scale(v * 2.0, n - 1)
        return r

    f = qd.field(qd.i32, shape=100)
    f.from_numpy(__import__("numpy").arange(100, dtype="int32"))
    out = qd.field(qd.f32, shape=(8, 2))

    @qd.kernel
    def run(n: qd.i32) -> qd.i32:
        return tri(n) + total(f, 0, 99)

    @qd.kernel
    def each(n: qd.i32):
        for i in range(8):  # a parallel task calls it too: each task's module has its own copy
            out[i, 0], out[i, 1] = scale(qd.math.vec2(1.0, 0.5), i % n)

    assert run(100) == 5050 + 99 * 50
    assert run(3) == 6 + 99 * 50
    each(4)
    assert out.to_numpy().tolist() == [[2.0 ** (i % 4), 0.5 * 2.0 ** (i % 4)] for i in range(8)]


def test_real_func_typed_frame(cpu):
    @qd.real_func
    def add(a: qd.f32, b: qd.f32) -> qd.f32:  # arguments converted to the annotation
        return a + b

    @qd.real_func
    def first_over(a: qd.i32) -> qd.i32:  # `return` inside a loop
        s = 0
        for i in range(100):
            if i == a + 1:
                return s
            s = s + i
        return s

    @qd.real_func
    def double(a: qd.ref(qd.f32)):  # the caller's variable, by reference
        a += a

    @qd.kernel
    def k(a: qd.i32) -> qd.f32:
        x = 5.0
        double(x)
        return add(1, 2) + first_over(a) + x  # 3 + s + 10

    assert k(10) == 3 + 55 + 10
    assert k(200) == 3 + 99 * 50 + 10


def test_real_func_annotation_errors(cpu):
    with pytest.raises(qd.QuadrantsSyntaxError, match="must be type annotated"):
        @qd.real_func
        def untyped(a, b: qd.i32) -> qd.i32:
            return a + b

    @qd.real_func
    def no_result_type(a: qd.i32, b: qd.i32):
        return a + b

    @qd.kernel
    def k():
        no_result_type(30, 2)

    with pytest.raises(qd.QuadrantsCompilationError, match="return value must be annotated") as e:
        k()
    assert e.value.file == __file__


def test_template_parameter_is_the_callers_variable(cpu):
    """A `qd.template()` parameter of a @qd.func is the caller's variable; an unannotated one a copy."""
    @qd.func
    def set_t(x: qd.template()):
        x = 1

    @qd.func
    def inc_t(x: qd.template()):
        x += 1

    @qd.func
    def set_copy(x):
        x = 1

    @qd.kernel
    def k() -> qd.i32:
        a = 0
        set_t(a)
        b = 0
        inc_t(b)
        c = 0
        set_copy(c)
        return a * 100 + b * 10 + c

    assert k() == 110


def test_recursive_real_func_compiles_for_nvptx(tmp_path):
    """The out-of-line function is a `.func` of the task's own PTX, which calls itself."""
    from qdexplorer.engine import Engine
    (tmp_path / "k.py").write_text(
        "import qdexplorer.lang as qd\n\n"
        "@qd.real_func\ndef tri(n: qd.i32) -> qd.i32:\n    if n == 0:\n        return 0\n    return tri(n - 1) + n\n\n"
        "@qd.kernel\ndef k(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
        "    for i in range(x.shape[0]):\n        x[i] = tri(x[i])\n")
    with Engine(tmp_path, in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        eng.refresh()
        _, compiled = eng.compile(target="nvptx")
        ptx = compiled[0].ptx
    assert ".func" in ptx and ptx.count("call.uni") + ptx.count("call ") >= 1, ptx[:2000]


def test_argument_type_errors_use_quadrants_words(cpu):
    @qd.kernel
    def takes_int(a: qd.i32):
        pass

    @qd.kernel
    def takes_array(a: qd.types.ndarray()):
        pass

    sphere = qd.types.struct(center=qd.math.vec3, radius=float)
    circle = qd.types.struct(center=qd.math.vec2, radius=float)

    @qd.kernel
    def takes_sphere(s: sphere) -> qd.f32:
        return s.radius

    with pytest.raises(qd.QuadrantsRuntimeTypeError, match=r"Argument \(0,\) \(type=<class 'float'>\) cannot be "
                                                            r"converted into required type i32"):
        takes_int(1.2)
    with pytest.raises(qd.QuadrantsRuntimeTypeError, match="Invalid type for argument a, got 1.2"):
        takes_array(1.2)
    with pytest.raises(qd.QuadrantsRuntimeTypeError, match="cannot be converted into required type.*center.*2 comp"):
        takes_sphere(circle(center=qd.math.vec2([1, 2]), radius=2.5))
    assert takes_sphere(sphere(center=qd.math.vec3([1, 2, 3]), radius=2.5)) == 2.5


def test_u1_scalar_argument(cpu):
    """A `qd.u1` kernel argument runs on the CPU (it was refused at load); any int passes by its truth."""
    x = qd.field(qd.i32, shape=2)

    @qd.real_func
    def inc(f: qd.template()):
        f[1] += 1

    @qd.kernel
    def k(a: qd.u1):
        x[0] = 7 if a else 3
        if a:
            inc(x)

    for a, want in ((True, [7, 1]), (False, [3, 1]), (2, [7, 2]), (0, [3, 2])):
        k(a)
        assert x.to_numpy().tolist() == want


def test_a_top_level_return_ends_the_kernel(cpu):
    """`return` in a `qd.static` if ends the kernel there: it gave 3 for foo(1) (a silent wrong answer)."""
    out = qd.field(qd.i32, shape=())

    @qd.kernel
    def foo(a: qd.template()) -> qd.i32:
        if qd.static(a == 1):
            return 1
        elif qd.static(a == 2):
            return 2
        for i in range(4):  # a task after the returns: runs only when neither returned
            out[None] += 1
        return 3

    out[None] = 0
    assert (foo(1), foo(2), out[None]) == (1, 2, 0)
    assert (foo(123), out[None]) == (3, 4)


def test_a_declared_result_needs_a_return(cpu):
    @qd.kernel
    def k() -> qd.i32:
        pass

    @qd.func
    def f() -> qd.i32:
        pass

    @qd.kernel
    def calls_f() -> qd.i32:
        return f()

    with pytest.raises(qd.QuadrantsSyntaxError, match="Kernel has a return type but does not have a return statement"):
        k()
    with pytest.raises(qd.QuadrantsCompilationError, match="Function has a return type but does not have a return "
                                                           "statement"):
        calls_f()


def test_kernels_return_structs_and_tuples(cpu):
    s0 = qd.types.struct(a=qd.math.vec3, b=qd.i16)
    s1 = qd.types.struct(a=qd.f32, b=s0)
    f = qd.types.struct(a=qd.i32).field(shape=1)

    @qd.real_func
    def pair(x: qd.f32) -> tuple[qd.f32, s0]:
        return x * 2, s0(a=qd.math.vec3([100, 0.2, 3]), b=65537)

    @qd.kernel
    def nested() -> s1:
        return s1(a=1, b=s0(a=qd.math.vec3([100, 0.2, 3]), b=65537))

    @qd.kernel
    def both(x: qd.f32) -> tuple[qd.f32, s0]:
        return pair(x)

    @qd.kernel
    def element() -> qd.types.struct(a=qd.i32):
        return f[0]

    @qd.kernel
    def wrong() -> s0:
        return s1(a=1, b=s0(a=qd.math.vec3([1, 2, 3]), b=1))

    r = nested()
    assert r.a == 1.0 and r.b.b == 1 and r.b.a.tolist() == pytest.approx([100, 0.2, 3])
    x, s = both(1.5)
    assert x == 3.0 and s.b == 1 and s.a[0] == 100.0
    f[0].a = 7
    assert element().a == 7
    with pytest.raises(qd.QuadrantsCompilationError, match="returns"):
        wrong()


def test_real_func_methods_of_data_oriented_classes(cpu):
    """`self` needs no annotation on a method; a recursive method is a real call with its object bound."""
    @qd.data_oriented
    class Grid:
        def __init__(self, n):
            self.val = qd.field(qd.i32, shape=n)

        @qd.real_func
        def depth_sum(self, i: qd.i32) -> qd.i32:
            r = self.val[i]
            if i > 0:
                r += self.depth_sum(i - 1)
            return r

        @qd.kernel
        def fill(self) -> qd.i32:
            for i in self.val:
                self.val[i] = i
            return self.depth_sum(9)

    assert Grid(10).fill() == 45
