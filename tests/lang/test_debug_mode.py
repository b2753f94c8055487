"""Debug mode: every ndarray access is bounds-checked and reported with kernel, task, file:line, index, shape."""
import importlib.util
import textwrap

import numpy as np
import pytest

from qdexplorer.runtime.debug import OutOfBounds
from tests.cli.test_cli import cli

KERNELS = textwrap.dedent("""\
    import qdexplorer.lang as qd

    @qd.kernel
    def shift(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            y[i] = x[i + 1]

    @qd.kernel
    def back(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            y[i] = x[i - 1]

    @qd.kernel
    def spread(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i * 2] = 1.0

    @qd.kernel
    def grid(a: qd.types.ndarray(dtype=qd.f32, ndim=2)):
        for i, j in qd.ndrange(a.shape[0], a.shape[1]):
            a[i, j + 1] += 1.0

    @qd.kernel
    def tally(h: qd.types.ndarray(dtype=qd.i32, ndim=1), k: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(k.shape[0]):
            qd.atomic_add(h[k[i]], 1)

    @qd.kernel
    def fine(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] * 2.0 + 1.0
    """)


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def dbg(request, tmp_path):
    import qdexplorer.lang as qd
    qd.init(arch=request.param, debug=True)
    (tmp_path / "dk.py").write_text(KERNELS)
    spec = importlib.util.spec_from_file_location("dk_debug", tmp_path / "dk.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    m.path = str(tmp_path / "dk.py")
    yield m
    qd.reset()


def test_off_by_one_read_is_caught_with_its_line_index_and_shape(dbg):
    x, y = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    with pytest.raises(OutOfBounds) as e:
        dbg.shift(x, y)
    msg = str(e.value)
    assert "kernel shift" in msg and "task shift_kernel_0_range_for" in msg
    assert f"{dbg.path}:6" in msg and "x index 8 on axis 0" in msg and "shape (8,)" in msg


def test_both_checks_say_out_of_bound_access_as_quadrants_does(dbg):
    """Quadrants' users match `AssertionError, match="Out of bound access"`: the launch-time check
    and the pre-launch range check (a loop running past an argument) both fit."""
    with pytest.raises(AssertionError, match="Out of bound access"):
        dbg.shift(np.arange(8, dtype=np.float32), np.zeros(8, np.float32))
    import qdexplorer.lang as qd

    @qd.kernel
    def write_oob(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(10):
            a[i] = 1.0

    with pytest.raises(AssertionError, match="Out of bound access"):
        write_oob(qd.ndarray(qd.f32, shape=(4,)))


def test_negative_index_store_and_second_axis(dbg):
    with pytest.raises(OutOfBounds, match=r"x index -1 on axis 0.*shape \(8,\)"):
        dbg.back(np.ones(8, np.float32), np.zeros(8, np.float32))
    x = np.zeros(8, np.float32)
    with pytest.raises(OutOfBounds, match=rf"{dbg.path}:16: x index (8|10|12|14) on axis 0"):
        dbg.spread(x)
    with pytest.raises(OutOfBounds, match=rf"{dbg.path}:21: a index 5 on axis 1.*shape \(4, 5\)"):
        dbg.grid(np.zeros((4, 5), np.float32))


def test_atomics_are_checked_too(dbg):
    with pytest.raises(OutOfBounds, match=rf"{dbg.path}:26: h index 7 on axis 0"):
        dbg.tally(np.zeros(4, np.int32), np.array([0, 1, 7, 2], np.int32))


def test_in_bounds_kernels_give_the_same_results(dbg):
    x = np.arange(1 << 16, dtype=np.float32)
    dbg.fine(x)
    np.testing.assert_array_equal(x, np.arange(1 << 16, dtype=np.float32) * 2 + 1)


WORKLOAD = textwrap.dedent("""\

    import numpy as np

    @qd.workload(shift)
    def w(rng):
        return dict(x=np.arange(8, dtype=np.float32), y=np.zeros(8, np.float32))
    """)


def test_cli_debug_flag_and_toml_setting(tmp_path):
    (tmp_path / "k.py").write_text(KERNELS + WORKLOAD)
    p = cli("run", str(tmp_path))
    assert p.returncode == 0 and "PASSED" in p.stdout   # release mode reads past the end, unnoticed
    p = cli("run", str(tmp_path), "--debug")
    assert p.returncode == 1 and "out-of-bounds access in kernel shift" in p.stdout and "k.py:6" in p.stdout
    assert "Out of bound access" in p.stdout  # Quadrants' words, which its users match
    (tmp_path / "qdexplorer.toml").write_text("[project]\ndebug = true\n")
    p = cli("run", str(tmp_path))
    assert p.returncode == 1 and "x index 8 on axis 0" in p.stdout


REPEATED = textwrap.dedent("""\
    import qdexplorer.lang as qd

    @qd.kernel
    def pick(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1), k: qd.i32):
        for i in range(y.shape[0]):
            assert x[i] >= 0.0, "negative input"
            y[i] = x[i + k]
    """)


@pytest.mark.parametrize("arch", ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def test_repeated_calls_take_the_fast_path_and_still_check_every_launch(tmp_path, arch):
    """Debug mode keeps the per-signature call plans (a time-step loop of tiny launches was 2-3x
    Quadrants' debug mode on the checked path): each launch still reads its out-of-bounds record,
    an assert that failed before the bad access is the error reported, and a failed launch leaves
    the next one clean."""
    import qdexplorer.lang as qd
    from qdexplorer import script
    from qdexplorer.ir.errors import QuadrantsAssertionError
    qd.init(arch=arch, debug=True)
    try:
        (tmp_path / "rk.py").write_text(REPEATED.replace("assert", "#") if arch == "cuda" else REPEATED)
        spec = importlib.util.spec_from_file_location("rk_debug", tmp_path / "rk.py")
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        x, y = qd.ndarray(qd.f32, shape=(9,)), qd.ndarray(qd.f32, shape=(8,))
        x.from_numpy(np.arange(9, dtype=np.float32))
        m.pick(x, y, 0)
        m.pick(x, y, 1)
        assert any(k[0] is m.pick for k in script.runner().fast), "the second call took the checked path"
        np.testing.assert_array_equal(y.to_numpy(), np.arange(1, 9, dtype=np.float32))
        with pytest.raises(OutOfBounds, match=rf"{tmp_path / 'rk.py'}:7: x index 9 on axis 0.*shape \(9,\)"):
            m.pick(x, y, 2)
        m.pick(x, y, 0)  # the record was cleared: an in-bounds call after a failed one passes
        np.testing.assert_array_equal(y.to_numpy(), np.arange(8, dtype=np.float32))
        if arch == "cuda":  # an assert's flag comes back per call: CUDA calls with asserts take the checked path
            return
        x.from_numpy(np.array([-1] + list(range(1, 9)), np.float32))
        with pytest.raises(QuadrantsAssertionError, match="negative input") as e:
            m.pick(x, y, 2)  # the assert at i = 0 fails before the access at i = 7 runs past the end
        assert not isinstance(e.value, OutOfBounds)
    finally:
        qd.reset()
