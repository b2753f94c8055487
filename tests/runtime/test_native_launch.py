"""The timed launch in one native call, and the elapsed times read back later in one loop: each
launch must still get its own GPU time, across the ring's refills, on both launch paths."""
import textwrap

import numpy as np
import pytest

pytestmark = pytest.mark.cuda

SRC = textwrap.dedent("""\
    import qdexplorer.lang as qd
    @qd.kernel
    def scale(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] * 1.0001 + 0.5
    """)


def _backend(tmp_path, monkeypatch, native):
    from qdexplorer.compiler.pipeline import Pipeline
    from qdexplorer.compiler.pool import InlineCompiler
    from qdexplorer.project.loader import load_project
    from qdexplorer.runtime.cuda.backend import CudaBackend
    if native:  # the default: nothing to set
        monkeypatch.delenv("QDEXPLORER_NATIVE_LAUNCH", raising=False)
    else:  # the fallback, turned on by turning the native path off
        monkeypatch.setenv("QDEXPLORER_NATIVE_LAUNCH", "0")
    (tmp_path / "k.py").write_text(SRC)
    (ct,) = Pipeline(InlineCompiler()).compile(load_project(tmp_path / "k.py").kernels["scale"].tasks(), "nvptx")
    be = CudaBackend()
    be.modules.load(ct.spec, ct.output, ct.load_hash)
    return be, ct.task


@pytest.mark.parametrize("native", [True, False], ids=["native", "cuda-python"])
def test_each_launch_gets_its_own_time_across_ring_refills(tmp_path, monkeypatch, native):
    """Big (2^25 elements, tens of µs) and tiny (one element) launches in an irregular order, more
    than one ring's worth: a time read for the wrong launch (shifted, reversed, or left at 0)
    puts a tiny launch's time among the big ones."""
    from qdexplorer.runtime.cuda.native_launch import RING
    be, task = _backend(tmp_path, monkeypatch, native)
    try:
        big = be.prepare({"x": np.ones(1 << 25, np.float32)}, {task: 1 << 25})
        tiny = be.prepare({"x": np.ones(1, np.float32)}, {task: 1})
        assert (big.native is not None) == native and (tiny.native is not None) == native, be.timer.native_error
        pattern = np.random.default_rng(7).random(RING + 100) < 0.3
        timings = []
        for is_big in pattern:
            timings.append(be.launch(task, big if is_big else tiny))
            if native:  # both argument sets time their launches into rings of their own
                assert big.ring is None or big.ring is not tiny.ring
        be.finish(big)
        be.finish(tiny)
        ms = np.array([t.ms for t in timings])
        assert (ms > 0).all()
        # a host hiccup between a tiny launch's start event and its kernel may lengthen a few of them;
        # a time read for the wrong launch would misplace 42% of them (30% big, at random)
        cut = np.sqrt(np.median(ms[pattern]) * np.median(ms[~pattern]))
        assert ((ms > cut) == pattern).mean() > 0.98, (np.median(ms[pattern]), np.median(ms[~pattern]))
        assert all(t.grid == (big if b else tiny).hot[task].grid for t, b in zip(timings, pattern))
        out = np.empty(1, np.float32)
        be.fetch(tiny, {"x": out})
        expected = np.float32(1)
        for _ in range(int((~pattern).sum())):
            expected = np.float32(expected * np.float32(1.0001) + np.float32(0.5))
        assert out[0] == pytest.approx(float(expected), rel=1e-5)
    finally:
        be.close()


def test_the_native_calls_name_the_failing_driver_call(tmp_path, monkeypatch):
    """A launch the driver refuses (1,025 threads a block) is reported as cuLaunchKernel's error,
    and the ring does not count it."""
    from cuda.bindings import driver as cu
    from qdexplorer.runtime.cuda.native_launch import EventRing, decode
    be, task = _backend(tmp_path, monkeypatch, True)
    try:
        prep = be.prepare({"x": np.ones(4, np.float32)}, {task: 4})
        nat = prep.native
        assert nat is not None, be.timer.native_error
        f = be.modules.composite.function(task)
        addr = be.params.params(be.modules.specs[task], prep)[0]
        bad = nat.hot_block(f, be.ctx.stream, addr, 1, 1025)
        assert nat.launch(bad.ctypes.data) == int(cu.CUresult.CUDA_ERROR_INVALID_VALUE)
        ring = EventRing(4)
        code = nat.launch_timed(bad.ctypes.data, ring.addr)
        assert decode(code) == ("cuLaunchKernel", int(cu.CUresult.CUDA_ERROR_INVALID_VALUE))
        assert ring.count == 0
        good = nat.hot_block(f, be.ctx.stream, addr, 1, 128)
        assert [nat.launch_timed(good.ctypes.data, ring.addr) for _ in range(4)] == [1, 2, 3, 4]
        assert decode(nat.launch_timed(good.ctypes.data, ring.addr))[0] == "ring full"
        assert nat.elapsed(ring.addr, ring.out_addr) == 4 and ring.count == 0 and (ring.out > 0).all()
        ring.destroy()
    finally:
        be.close()
