"""Anything outside the subset is one clear error at file:line:col, never a compiler traceback."""
import re
import textwrap

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.lang.errors import QdCompileError
from qdexplorer.project.loader import ProjectError, load_project

CASES = {
    "lambda": ("y = (lambda v: v)(x[i])", "unsupported expression 'lambda'"),
    "setcomp": ("y = {v for v in range(3)}", "unsupported expression 'set comprehension'"),
    "listcomp_runtime": ("y = [v for v in range(x.shape[0] + i)]", "a list comprehension in a kernel iterates "
                                                                    "over a compile-time sequence"),
    "try": ("try:\n                x[i] = 1.0\n            except Exception:\n                pass", "unsupported statement 'Try'"),
    "with": ("with open('f') as fh:\n                pass", "'with ... as ...' is not supported in Quadrants kernels"),
    "undefined": ("x[i] = nope", "name 'nope' is not defined"),
    "break_top": ("break", "'break' is not allowed in the top-level parallel loop"),
    "python_call": ("x[i] = open(1)", "calling open is not supported"),
    "bad_index_count": ("x[i, i] = 1.0", "'x' has 1 dimension(s) but is indexed with 2"),
    "float_index": ("x[1.5] = 1.0", "array index must be an integer"),
    "string": ("x[i] = 'a'", "expected a scalar value"),
    "nested_def": ("def g():\n                pass", "unsupported statement 'FunctionDef'"),
    "bitwise_float": ("x[i] = x[i] & 1", "bitwise operator '&' needs integer operands"),
    "kernel_in_kernel": ("other(x)", "cannot be called from inside a kernel"),
    "struct_for_inner": ("for j in x:\n                pass", "inner for loops must iterate over range"),
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
    assert str(ei.value).splitlines()[-1].strip() == "^"


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

    with pytest.raises(QdCompileError, match="must be directly followed by a for loop"):
        k2.tasks()


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
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha' .*x, y, a"):
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
