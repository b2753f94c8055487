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
    code = ("from qdexplorer.lang.module_paths import alias_quadrants; alias_quadrants()\n"
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
