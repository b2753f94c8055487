"""Anything outside the subset is one clear error at file:line:col, never a compiler traceback."""
import re
import textwrap

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.ir.errors import QdCompileError
from qdexplorer.project.loader import ProjectError, load_project

CASES = {
    "lambda": ("y = (lambda v: v)(x[i])", "unsupported expression 'lambda'"),
    "setcomp": ("y = {v for v in range(3)}", "unsupported expression 'set comprehension'"),
    "listcomp_runtime": ("y = [v for v in range(x.shape[0] + i)]", "a list comprehension in a kernel iterates "
                                                                    "over a compile-time sequence"),
    "try": ("try:\n                x[i] = 1.0\n            except Exception:\n                pass", "Unsupported node \"Try\""),
    "with": ("with open('f') as fh:\n                pass", "'with ... as ...' is not supported in Quadrants kernels"),
    "with_other": ("with open('f'):\n                pass", "'with' in Quadrants kernels only supports qd.stream_parallel()"),
    "raise": ("raise ValueError()", "Unsupported node \"Raise\""),
    "for_else": ("for j in range(2):\n                pass\n            else:\n                pass",
                 "'else' clause for 'for' not supported"),
    "loop_var_declared": ("j = 0\n            for j in range(2):\n                pass",
                          "Variable 'j' is already declared in the outer scope and cannot be used as loop variable"),
    "nested_static": ("for j in qd.static(qd.static(range(2))):\n                pass", "'qd.static' cannot be nested"),
    "static_break_runtime_if": ("for j in qd.static(range(2)):\n                if x[i] > 0:\n                    break",
                                "You are trying to `break` a static `for` loop"),
    "undefined": ("x[i] = nope", "name 'nope' is not defined"),
    "break_top": ("break", "'break' is not allowed in the top-level parallel loop"),
    "python_call": ("x[i] = open(1)", "calling open is not supported"),
    "bad_index_count": ("x[i, i] = 1.0", "'x' has 1 dimension(s) but is indexed with 2"),
    "float_index": ("x[1.5] = 1.0", "array index must be an integer"),
    "string": ("x[i] = 'a'", "expected a scalar value"),
    "nested_def": ("def g():\n                pass", "Function definition is not allowed in 'qd.kernel'"),
    "bitwise_float": ("x[i] = x[i] & 1", "unsupported operand type(s) for '&'"),
    "kernel_in_kernel": ("other(x)", "cannot be called from inside a kernel"),
    "struct_for_inner": ("for j in qd.grouped(other):\n                pass", "an inner qd.grouped() takes"),
    "shared_cpu_serial": ("pass\n        qd.simt.block.sync()", "only allowed inside a parallel for loop"),
    "vec_cast_not_a_dtype": ("x[i] = qd.math.vec2(1.0, 2.0).cast('f32')[0]", "v.cast(dtype) needs a qd dtype"),
    "numpy_twin_in_qd_math": ("x[i] = np.dot(x[i], x[i])", "calling dot is not supported inside a kernel; "
                                                             "use qd.math.dot"),
}


@qd.kernel
def other(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        x[i] = 0.0


def _make(tmp_path, body, name):
    src = textwrap.dedent(f"""\
    import numpy as np
    import qdexplorer.lang as qd
    from tests.lang.test_errors import other

    @qd.kernel
    def bad(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            {body}
    """)
    f = tmp_path / f"bad_{name}.py"
    f.write_text(src)
    return f


@pytest.mark.parametrize("name", sorted(CASES))
def test_unsupported_construct_points_at_the_line(tmp_path, name):
    body, msg = CASES[name]
    f = _make(tmp_path, body, name)
    proj = load_project(f)
    with pytest.raises(QdCompileError) as ei:
        proj.kernels["bad"].tasks()
    err = ei.value
    assert msg in str(err)
    assert err.file == str(f)
    text = f.read_text().splitlines()
    assert 1 <= err.line <= len(text)
    first = str(err).splitlines()[0]
    assert re.match(rf"{re.escape(str(f))}:\d+:\d+: error: ", first), first
    assert "Traceback" not in str(err)


def test_error_points_at_column(tmp_path):
    f = _make(tmp_path, "x[i] = x[i] + nope", "col")
    with pytest.raises(QdCompileError) as ei:
        load_project(f).kernels["bad"].tasks()
    line = f.read_text().splitlines()[ei.value.line - 1]
    assert line[ei.value.col:].startswith("nope")
    lines = str(ei.value).splitlines()  # Quadrants' form: the line, carets under the name, the message
    assert lines[-2].strip() == "^^^^" and lines[-3][lines[-2].index("^"):].startswith("nope")


def test_loop_locals_do_not_cross_tasks(cpu):
    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            s = 2.0
        x[0] = s

    with pytest.raises(QdCompileError, match="'s' is assigned in another offloaded task"):
        k.tasks()


def test_kernel_return_and_missing_annotation():
    @qd.kernel
    def r(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        return 1

    with pytest.raises(qd.QuadrantsSyntaxError, match="has no return annotation"):
        r.tasks()

    @qd.kernel
    def noann(x):
        for i in range(3):
            pass

    with pytest.raises(QdCompileError, match="needs a type annotation"):
        noann.tasks()


def test_loop_config_misuse():
    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        qd.loop_config(block_dim=4096)
        for i in range(x.shape[0]):
            x[i] = 0.0

    with pytest.raises(QdCompileError, match="block_dim must be an integer in 1..1024"):
        k.tasks()

    @qd.kernel
    def k2(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        qd.loop_config(block_dim=64)
        x[0] = 1.0

    k2.tasks()  # a config no loop takes: unused, as in Quadrants 1.3.3

    @qd.kernel
    def k3(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        qd.loop_config(block_dim=64)
        if x[0] > 0:
            for i in range(4):
                x[i] = 1.0
        for i in range(x.shape[0]):
            x[i] = 0.0

    with pytest.raises(QdCompileError, match="must be followed by its for loop before any other loop"):
        k3.tasks()


def test_project_bad_inputs(tmp_path):
    with pytest.raises(ProjectError, match="project folder not found"):
        load_project(tmp_path / "missing")
    (tmp_path / "syn.py").write_text("import qdexplorer.lang as qd\ndef broken(:\n")
    with pytest.raises(ProjectError, match=r"syn.py:2:\d+: syntax error"):
        load_project(tmp_path)
    (tmp_path / "syn.py").write_text("import qdexplorer.lang as qd\nraise ValueError('boom')\n")
    with pytest.raises(ProjectError, match=r"syn.py:2: error while importing: ValueError: boom"):
        load_project(tmp_path)
    (tmp_path / "syn.py").write_text("x = 1\n")
    with pytest.raises(ProjectError, match="no @qd.kernel found"):
        load_project(tmp_path)
    (tmp_path / "qdexplorer.toml").write_text("[project]\nbogus = 1\n")
    with pytest.raises(ProjectError, match="unknown setting"):
        load_project(tmp_path)


def test_check_failure_is_reported(tmp_path, cpu):
    (tmp_path / "k.py").write_text(textwrap.dedent("""\
        import numpy as np
        import qdexplorer.lang as qd

        @qd.kernel
        def inc(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
            for i in range(x.shape[0]):
                x[i] = x[i] + 1.0

        @qd.workload(inc, check=lambda b, a: np.testing.assert_allclose(a["x"], b["x"] + 2.0))
        def wrong(rng):
            return dict(x=np.zeros(8, np.float32))
        """))
    from qdexplorer.engine import Engine
    with Engine(tmp_path, in_process=True) as eng:
        (res,) = eng.run()
    assert res.status == "failed"
    assert "Not equal to tolerance" in res.check_error
    _ = np


def test_a_compile_error_from_a_call_shows_no_compiler_frames(cpu):
    """What the user sees is their call and the error at file:line:col, not the frontend's stack."""
    import traceback

    @qd.kernel
    def bad(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = {v for v in range(3)}.pop()

    with pytest.raises(QdCompileError, match="unsupported expression 'set comprehension'") as e:
        bad(np.zeros(4, np.float32))
    frames = [f.filename for f in traceback.extract_tb(e.value.__traceback__)]
    assert not any("/lang/frontend/" in f or "/lang/offload" in f or "/script.py" in f for f in frames), frames


def test_call_mistakes_name_what_to_fix(cpu):
    @qd.kernel
    def saxpy(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1), a: qd.f32):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    x = np.zeros(8, np.float32)
    assert saxpy.__name__ == "saxpy" and saxpy.__qualname__.endswith("saxpy")
    with pytest.raises(TypeError, match="(?s)Unexpected argument 'alpha'.*takes x, y, a"):
        saxpy(x, x.copy(), alpha=2.0)
    with pytest.raises(Exception, match=r"np.ascontiguousarray\(x\)"):
        saxpy(np.zeros(16, np.float32)[::2], x, 2.0)

    @qd.kernel
    def uses_numpy(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = np.sin(x[i])

    with pytest.raises(QdCompileError, match="calling sin is not supported inside a kernel; use qd.sin"):
        uses_numpy(x)


def test_block_features_on_the_cpu_say_where_and_how_to_pick_cuda(cpu):
    @qd.kernel
    def blocky(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        qd.loop_config(block_dim=32)
        for i in range(x.shape[0]):
            s = qd.simt.block.SharedArray((32,), qd.f32)
            s[qd.simt.block.thread_idx()] = x[i]
            qd.simt.block.sync()
            x[i] = s[0]

    with pytest.raises(qd.QuadrantsError if hasattr(qd, "QuadrantsError") else Exception) as e:
        blocky(np.zeros(64, np.float32))
    msg = str(e.value)
    assert "test_errors.py:" in msg and "qd.init(arch=qd.cuda)" in msg and msg.count("blocky_kernel_0") == 1


def test_undefined_names_get_the_scoping_hint_only_when_assigned_elsewhere(cpu):
    @qd.kernel
    def scoped(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            if x[i] > 0:
                t = 1.0
            x[i] = t

    @qd.kernel
    def typo(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = nope  # noqa: F821

    x = np.ones(4, np.float32)
    with pytest.raises(QdCompileError, match="name 't' is not defined here .*block-scoped"):
        scoped(x)
    with pytest.raises(QdCompileError, match=r"name 'nope' is not defined \(not an argument") as e:
        typo(x)
    assert "block-scoped" not in str(e.value)


def test_func_returning_a_scalar_then_a_vector_is_a_type_error(cpu):
    @qd.func
    def either(v: qd.f32):
        if v > 0:
            return 1.0
        return qd.math.vec2(1.0, 2.0)

    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = either(x[i])[0]

    with pytest.raises(qd.QuadrantsTypeError, match="'either' returns a scalar elsewhere and a 2 vector/matrix here"):
        k(np.ones(2, np.float32))


def test_quadrants_syntax_errors_of_arguments_and_annotations():
    """A template argument is as immutable as any other; a string annotation naming nothing fails at
    decoration (Quadrants 1.3.3's messages)."""
    qd.init(arch=qd.cpu)

    @qd.kernel
    def foo(a: qd.template()):
        a = 5  # noqa: F841

    with pytest.raises(qd.QuadrantsSyntaxError, match='Kernel argument "a" is immutable in the kernel'):
        foo(1)
    with pytest.raises(qd.QuadrantsSyntaxError, match="annotation"):
        @qd.kernel
        def bad(x: "bar"):  # noqa: F821
            pass
    with pytest.raises(qd.QuadrantsSyntaxError, match="annotation"):
        @qd.func
        def bad_f(x: "foo"):  # noqa: F821
            pass

    @qd.kernel
    def brk():
        for i in range(3):
            break

    with pytest.raises(qd.QuadrantsSyntaxError, match="Cannot break in the outermost loop"):
        brk()


def test_is_and_in_are_compile_time_only_and_static_sees_arrays():
    """`is` / `in` outside qd.static are Quadrants' errors; inside it, an array or field argument is a
    value (`qd.static(value is not None)` on a qd.Tensor argument)."""
    qd.init(arch=qd.cpu)

    @qd.kernel
    def is_(a: qd.template()):
        a is None  # noqa: B015

    with pytest.raises(qd.QuadrantsSyntaxError, match='Operator "is" in Quadrants scope is not supported'):
        is_(None)

    @qd.kernel
    def in_(a: qd.template()) -> qd.i32:
        b = 0
        if a in [qd.i32, qd.u32]:
            b = 1
        return b

    with pytest.raises(qd.QuadrantsCompilationError, match='"In" is only supported inside `qd.static`.'):
        in_(qd.i32)

    @qd.kernel
    def present(value: qd.Tensor) -> qd.i32:
        return 1 if qd.static(value is not None) else 0

    assert (present(None), present(qd.field(qd.i32, shape=(1,))), present(qd.ndarray(qd.i32, shape=(1,)))) == (0, 1, 1)


def test_more_quadrants_checks_and_messages():
    """qd.init's unknown options, a kernel method of a class without @qd.data_oriented, a static loop's
    variable after the loop, and a %-formatted assert message (Quadrants 1.3.3's behaviour)."""
    with pytest.raises(KeyError, match="Unrecognized keyword argument"):
        qd.init(arch=qd.cpu, foo_bar=233)
    qd.init(arch=qd.cpu, debug=True)

    class Plain:
        @qd.kernel
        def run(self):
            pass

    with pytest.raises(qd.QuadrantsSyntaxError, match="Please decorate class Plain with @qd.data_oriented"):
        Plain().run()

    @qd.kernel
    def after_static():
        for i in qd.static(range(3)):
            pass
        print(i)  # noqa: F821

    with pytest.raises(QdCompileError, match="name 'i' is not defined"):
        after_static()
    x = qd.field(qd.i32, shape=4)
    x[2] = 42

    @qd.kernel
    def formatted():
        for i in x:
            assert x[i] == 0, "x[%d] got=%d (%.1f%%)" % (i, x[i], x[i] * 0.5)

    with pytest.raises(AssertionError, match=r"x\[2\] got=42 \(21\.0%\)"):
        formatted()


def test_u1_scalar_arguments_run_on_the_cpu():
    qd.init(arch=qd.cpu)
    x = qd.field(qd.i32, shape=2)

    @qd.kernel
    def f(t: qd.u1, k: qd.i32):
        if t:
            x[0] = k
        else:
            x[1] = k

    f(True, 5)
    f(False, 7)
    assert x.to_numpy().tolist() == [5, 7]


@qd.func
def _inner_undefined():
    t()  # noqa: F821


@qd.func
def _outer_calls_inner():
    _inner_undefined()


def test_errors_carry_quadrants_position_text_through_funcs():
    """After the file:line:col line, Quadrants' form: one `File "...", line N, in f:` block per function
    the kernel went through (the call, then the failing node, with carets), then the message; an undefined
    name is a QuadrantsNameError."""
    qd.init(arch=qd.cpu)

    @qd.kernel
    def k():
        _outer_calls_inner()

    with pytest.raises(qd.QuadrantsNameError) as e:
        k()
    text = str(e.value)
    assert re.match(r".*test_errors\.py:\d+:\d+: error: name 't' is not defined", text.splitlines()[0])
    blocks = re.findall(r'File "[^"]*test_errors\.py", line \d+, in (\w+):\n(.*)\n( *\^+)\n', text)
    assert [(f, src.strip(), len(car.strip())) for f, src, car in blocks] == [
        ("k", "_outer_calls_inner()", len("_outer_calls_inner()")),
        ("_outer_calls_inner", "_inner_undefined()", len("_inner_undefined()")),
        ("_inner_undefined", "t()  # noqa: F821", 1)]
    assert text.endswith("name 't' is not defined (not an argument, a local or a global of this function)")

    @qd.kernel
    def stepped():
        for i in range(1, 2, 3):
            pass

    with pytest.raises(QdCompileError, match=r"for i in range\(1, 2, 3\):\n +\^{24}\nRange should have 1 or 2 "
                                             r"arguments, found 3"):
        stepped()


def test_starred_vectors_in_calls():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def lo() -> qd.i32:
        a = qd.Vector([4, 2, 3])
        b = qd.Vector([5, 1, 6])
        return qd.min(*a, *b) * 10 + max(*b)

    assert lo() == 16


def test_static_assert_of_a_kernel_variable_is_quadrants_type_error():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def foo():
        value = False
        qd.static_assert(value, "Oh, no!")

    with pytest.raises(qd.QuadrantsTypeError, match="Static assert with non-static condition"):
        foo()


def test_init_in_test_mode_returns_the_spec_options():
    cfg = qd.init(arch=qd.cpu, _test_mode=True, log_level="debug")
    assert (cfg.log_level, cfg.gdb_trigger) == ("debug", False)
    assert qd.init(arch=qd.cpu, _test_mode=True, gdb_trigger=True).gdb_trigger is True


def test_init_test_mode_reads_quadrants_environment_variables(monkeypatch):
    monkeypatch.setenv("QD_LOG_LEVEL", "error")
    monkeypatch.setenv("QD_GDB_TRIGGER", "1")
    cfg = qd.init(arch=qd.cpu, _test_mode=True)
    assert (cfg.log_level, cfg.gdb_trigger) == ("error", True)
    assert qd.init(arch=qd.cpu, _test_mode=True, log_level="trace").log_level == "trace"  # an argument wins


def test_volatile_load_takes_an_element_of_global_memory():
    qd.init(arch=qd.cpu)
    flags = qd.field(dtype=qd.i32, shape=4)
    out = qd.field(dtype=qd.i32, shape=4)

    @qd.kernel
    def ok():
        for i in range(4):
            out[i] = qd.volatile_load(flags[i]) + 1

    flags.from_numpy(np.arange(4, dtype=np.int32))
    ok()
    assert out.to_numpy().tolist() == [1, 2, 3, 4]

    @qd.kernel
    def bare():
        y = qd.volatile_load(flags)  # noqa: F841

    @qd.kernel
    def expr():
        x = 1
        y = qd.volatile_load(x + 1)  # noqa: F841

    @qd.kernel
    def local():
        v = qd.Vector([0, 0, 0, 0])
        y = qd.volatile_load(v)  # noqa: F841

    with pytest.raises(qd.QuadrantsSyntaxError, match="Field directly"):
        bare()
    with pytest.raises(qd.QuadrantsSyntaxError, match="lvalue"):
        expr()
    with pytest.raises(qd.QuadrantsTypeError, match="local array"):
        local()


def test_logging_levels_through_quadrants_private_module():
    qd.set_logging_level(qd.DEBUG)
    assert qd._logging.is_logging_effective(qd.DEBUG) and not qd._logging.is_logging_effective(qd.TRACE)
    qd.set_logging_level(qd.INFO)
