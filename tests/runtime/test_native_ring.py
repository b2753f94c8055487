"""The native launch path's bookkeeping without a GPU: which time goes to which launch across ring
refills, two argument sets interleaved, refused launches left uncounted. CI has no GPU, so here the
JIT-compiled code calls a stand-in driver compiled from benchmarks/fake_libcuda.c (its events read a
clock that the n-th launch advances by 1 + n % 7, so each launch's own events give it a time of its
own); `test_native_launch.py` checks the same on a real GPU. The last test makes a whole CudaBackend on
the stand-in, loaded by cuda-python as libcuda.so.1, and runs both timing paths, debug mode and faults."""
import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from qdexplorer.runtime.cuda import native_launch as nl
from qdexplorer.runtime.cuda.backend import CudaBackend
from qdexplorer.runtime.cuda.driver import CudaError
from qdexplorer.runtime.cuda.launch_state import CudaPrepared, HotLaunch
from qdexplorer.runtime.cuda.timing import LaunchTimer

FAKE = Path(__file__).resolve().parents[2] / "benchmarks" / "fake_libcuda.c"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the stand-in driver")
    lib = tmp_path_factory.mktemp("fake") / "libfakecuda.so"
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(lib), str(FAKE)], check=True)
    return lib


@pytest.fixture
def stand_in(built, tmp_path):
    """A fresh copy per test (a copy is loaded anew: its clock and launch count start at 0)."""
    lib = tmp_path / "libfakecuda.so"
    shutil.copy(built, lib)
    so = ctypes.CDLL(str(lib))
    return nl.NativeLauncher({k: ctypes.cast(getattr(so, k), ctypes.c_void_p).value for k in nl._CALLS})


def _backend(native):
    """A CudaBackend with what a launch reads and nothing else: no context (the stand-in has none)."""
    be = object.__new__(CudaBackend)
    be.timer = LaunchTimer(7)
    be.timer.native = native
    be.ctx = SimpleNamespace(stream=7)
    be.modules = SimpleNamespace(specs={t: SimpleNamespace(kernel="k_" + t, debug=False, task=t) for t in "ab"},
                                 composite=SimpleNamespace(function=lambda t: {"a": 1, "b": 2}[t]))
    be.params = SimpleNamespace(params=lambda spec, prep: (0, None, 4, 128))
    return be


def test_every_launch_gets_its_own_time_across_refills_and_argument_sets(stand_in):
    be = _backend(stand_in)
    one, two = CudaPrepared({}, {"a": 1, "b": 1}, native=stand_in), CudaPrepared({}, {"a": 1}, native=stand_in)
    order = np.random.default_rng(3).random(2 * nl.RING + 300) < 0.5
    timings, launches_before = [], []
    count = 0
    for i, b in enumerate(order):
        timings.append(be.launch("b" if b else "a", one))
        count += 1
        launches_before.append(count)
        if i % 5 == 0:   # another argument set between, with a ring of its own
            be.launch("a", two)
            count += 1
        if i % 9 == 0:   # untimed: launched, no events
            be.launch("a", one, timed=False)
            count += 1
    be.finish(one)
    be.finish(two)
    assert [t.task for t in timings] == ["b" if b else "a" for b in order]
    assert [t.ms for t in timings] == [1.0 + n % 7 for n in launches_before]   # a shift by one misses them all
    assert one.ring is None and two.ring is None and not one.pending and len(be.timer.rings) == 2


def test_a_refused_launch_raises_and_is_not_counted(stand_in):
    be = _backend(stand_in)
    prep = CudaPrepared({}, {"a": 1}, native=stand_in)
    first = be.launch("a", prep)
    prep.hot["a"].block_words[3] = 128 << 32   # grid 0: the stand-in refuses it with CUDA_ERROR_INVALID_VALUE, as the driver does
    for timed in (True, False):
        with pytest.raises(CudaError, match="cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE"):
            be.launch("a", prep, timed=timed)
    assert prep.ring.count == 1 and prep.pending == [first]
    prep.ring.words[1] = 1   # a ring at capacity: refused on the native side, never counted
    with pytest.raises(RuntimeError, match="ring full"):
        be.launch("a", prep)
    prep.ring.words[1] = nl.RING
    be.finish(prep)
    assert first.ms == 2.0 and prep.ring is None   # the first launch: 1 + 1 % 7


@pytest.mark.parametrize("env, built_native", [(None, True), ("1", True), ("0", False)])
def test_the_native_path_is_the_default_and_cuda_python_the_fallback(monkeypatch, env, built_native):
    """Issue 40: the native path is built unless QDEXPLORER_NATIVE_LAUNCH=0 turns it off; a launcher
    that fails its self-check leaves the cuda-python path serving every launch, and says why."""
    from qdexplorer.runtime.cuda import timing as timing_mod   # CUDA modules load inside tests: collection needs no CUDA bindings
    if env is None:
        monkeypatch.delenv("QDEXPLORER_NATIVE_LAUNCH", raising=False)
    else:
        monkeypatch.setenv("QDEXPLORER_NATIVE_LAUNCH", env)
    checked = []
    launcher = SimpleNamespace(self_check=checked.append)
    monkeypatch.setattr(timing_mod, "native_launcher", lambda: launcher)
    timer = LaunchTimer(7)
    assert (timer.build_native() is launcher) == built_native
    assert checked == ([7] if built_native else [])
    assert timer.native_error == ("" if built_native else "turned off (QDEXPLORER_NATIVE_LAUNCH=0)")

    def refuse(stream):
        raise CudaError("cuEventElapsedTime", 999, "another time than cuda-python's")
    monkeypatch.delenv("QDEXPLORER_NATIVE_LAUNCH", raising=False)
    monkeypatch.setattr(timing_mod, "native_launcher", lambda: SimpleNamespace(self_check=refuse))
    timer = LaunchTimer(7)
    assert timer.build_native() is None and "cuEventElapsedTime" in timer.native_error


def test_a_script_call_launches_natively_with_its_values_packed(built):
    """Issue 40: a script's quick launcher makes its launch one native call on a block made once per
    grid and stream; the stand-in sees the grid, block, stream and the packed kernelParams; an empty
    grid launches nothing."""
    from qdexplorer.machine.launch_spec import ArgSlot, LaunchSpec
    from qdexplorer.runtime.cuda.params import ParamBlocks
    lib = ctypes.CDLL(str(built))   # the module-scoped build: the stand-in's own globals, as loaded
    stand = nl.NativeLauncher({k: ctypes.cast(getattr(lib, k), ctypes.c_void_p).value for k in nl._CALLS})
    grids = {10: 3, 20: 5, 0: 0}
    pb = ParamBlocks(SimpleNamespace(stream=7, grid_of=lambda spec, n: grids.get(n, 1)), None)
    spec = LaunchSpec("t", "k", "range_for", (ArgSlot("x", "array", "ptr", 1), ArgSlot("a", "scalar", "f32")),
                      block_dim=256)
    launch = pb.quick_launcher(spec, 99, {"x": np.zeros(4, np.float32), "a": 1.0}, stand)
    count = ctypes.c_long.in_dll(lib, "launch_count")
    for n, stream in ((10, None), (20, None), (10, 11), (10, None)):
        before = count.value
        launch({"x": (0x1000, (4,)), "a": 2.5}, n, stream)
        assert count.value == before + 1
        assert ctypes.c_uint.in_dll(lib, "last_grid").value == grids[n]
        assert ctypes.c_uint.in_dll(lib, "last_block").value == 256
        assert (ctypes.c_void_p.in_dll(lib, "last_stream").value or 0) == (7 if stream is None else stream)
        params = ctypes.cast(ctypes.c_void_p.in_dll(lib, "last_params").value, ctypes.POINTER(ctypes.c_void_p))
        assert ctypes.cast(params[0], ctypes.POINTER(ctypes.c_uint64))[0] == 0x1000   # x's pointer, then
        assert ctypes.cast(params[1], ctypes.POINTER(ctypes.c_int32))[0] == 4         # its length
        assert ctypes.cast(params[2], ctypes.POINTER(ctypes.c_float))[0] == 2.5       # then a
    launch({"x": (0x1000, (4,)), "a": 1.0}, 0)   # an empty grid: nothing to launch, as before
    assert count.value == before + 1


_ON_THE_STAND_IN = '''
import ctypes
import sys
from functools import partial
import numpy as np
from cuda.bindings import driver as cu
from qdexplorer.machine.launch_spec import ArgSlot, LaunchSpec
from qdexplorer.runtime.cuda.backend import CudaBackend
from qdexplorer.runtime.cuda.launch_state import CudaPrepared, HotLaunch
from qdexplorer.runtime.cuda.native_launch import RING
from qdexplorer.runtime.cuda.timing import NATIVE_AFTER
from qdexplorer.runtime.cuda.driver import CudaError
from qdexplorer.runtime.debug import OutOfBounds
from qdexplorer.runtime.faults import DeviceFault

assert "llvmlite.binding" not in sys.modules   # as in a device worker: no LLVM until NATIVE_AFTER launches
be = CudaBackend()
assert be.timer.stream is be.ctx.stream
for t in "ab":
    be.modules.specs[t] = LaunchSpec(t, "k_" + t, "range_for", (ArgSlot("x", "array", "ptr", 1),
                                                                ArgSlot("a", "scalar", "f32")), block_dim=128)
be.modules.composite.replace("u", cu.CUmodule(0x10), {"a", "b"})   # the stand-in's functions: any name
count = 0


def run(prep, n, seed):
    global count
    order = np.random.default_rng(seed).random(n) < 0.5
    timings, expected = [], []
    for i, b in enumerate(order):
        timings.append(be.launch("b" if b else "a", prep))
        count += 1
        expected.append(1.0 + count % 7)
        if i % 9 == 0:   # untimed: launched, no events, the one record every untimed launch returns
            assert be.launch("a", prep, timed=False) is prep.hot["a"].untimed
            count += 1
    be.finish(prep)
    assert [t.task for t in timings] == ["b" if b else "a" for b in order]
    assert [t.kernel for t in timings] == ["k_b" if b else "k_a" for b in order]
    assert [t.ms for t in timings] == expected, "a launch was given another launch's time"
    assert not prep.pending and prep.ring is None


x = np.arange(8, dtype=np.float32)
prep = be.prepare({"x": x, "a": 2.0}, {"a": 8, "b": 8})
assert isinstance(prep, CudaPrepared) and prep.native is None and not be.timer.native_error
run(prep, NATIVE_AFTER + 300, 1)   # through cuda-python: past one batch of 1,024 pending launches
hot = prep.hot["a"]
assert isinstance(hot, HotLaunch) and hot.go is not None and hot.native is hot.native_timed is None
assert (hot.kernel, hot.grid, hot.block, hot.debug) == ("k_a", 1, 128, False)
assert be.timer.python_timed == NATIVE_AFTER + 300
assert len(be.timer.pairs) == 1024   # each pair reused once its time was read
out = np.zeros(8, np.float32)
be.fetch(prep, {"x": out})
assert (out == x).all()

prep2 = be.prepare({"x": x, "a": 2.0}, {"a": 8, "b": 8})   # enough launches timed: the native path now
assert prep2.native is not None and prep2.native is be.timer.native, be.timer.native_error
run(prep2, 2 * RING + 5, 2)
hot = prep2.hot["a"]
assert hot.go is None and hot.native is not None and hot.native_timed is not None and hot.block_words is not None
assert len(be.timer.rings) == 1 and be.timer.python_timed == NATIVE_AFTER + 300

# debug mode: each launch waited for and its out-of-bounds record read (the stand-in's memory is the host's)
be.modules.specs["d"] = LaunchSpec("d", "k_d", "range_for", (ArgSlot("x", "array", "ptr", 1),), block_dim=128,
                                   debug=True, debug_sites=(("k.py:3", "x"),))
be.modules.composite.replace("v", cu.CUmodule(0x20), {"d"})
for native in (False, True):
    dbg = be.prepare({"x": x}, {"d": 8})
    if not native:
        dbg.native = None   # this argument set launches through cuda-python (as launch_overhead.py's)
    assert be.launch("d", dbg).ms > 0 and be.launch("d", dbg, timed=False) is dbg.hot["d"].untimed
    rec = np.frombuffer((ctypes.c_int64 * 4).from_address(int(be.memory.run_buffer(("__debug__", "d"), 0))), np.int64)
    rec[:] = (1, 9, 8, 0)   # site 1 (x at k.py:3): index 9 of 8 on axis 0
    for timed in (True, False):
        try:
            be.launch("d", dbg, timed=timed)
            raise AssertionError("the recorded out-of-bounds access was not raised")
        except OutOfBounds as e:
            assert "x index 9 on axis 0" in str(e) and "k.py:3" in str(e), e
    assert not dbg.pending and dbg.ring is None   # waited for: the timed launch's time read

# a launch that faults: the wait fails, and the first end event that never completed names its task
lib = ctypes.CDLL("libcuda.so.1")   # the stand-in cuda-python loaded
for native in (False, True):
    f = be.prepare({"x": x, "a": 2.0}, {"a": 8, "b": 8})
    if not native:
        f.native = None
    first = be.launch("a", f)
    be.launch("b", f)
    ctypes.c_float.in_dll(lib, "fail_after").value = ctypes.c_float.in_dll(lib, "clock_").value   # b's end event
    be.launch("a", f)
    ctypes.c_int.in_dll(lib, "fail_code").value = int(cu.CUresult.CUDA_ERROR_ILLEGAL_ADDRESS)
    try:
        be.finish(f)
        raise AssertionError("the fault was not raised")
    except DeviceFault as e:
        assert e.task == "b" and "CUDA_ERROR_ILLEGAL_ADDRESS" in str(e), (native, e.task, e)
    ctypes.c_int.in_dll(lib, "fail_code").value = 0
    assert not f.pending and f.ring is None and first.ms == 0.0

# a launch the driver refuses (the stand-in refuses grid 0), through cuda-python: raised, not counted
f = be.prepare({"x": x, "a": 2.0}, {"a": 8})
f.native = None
be.launch("a", f)
f.hot["a"].go = partial(cu.cuLaunchKernel, cu.CUfunction(0x10), 0, 1, 1, 128, 1, 1, 0, be.ctx.stream, 0, 0)
for timed in (True, False):
    try:
        be.launch("a", f, timed=timed)
        raise AssertionError("the refused launch was not raised")
    except CudaError as e:
        assert "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE" in str(e), e
assert len(f.pending) == 1
be.finish(f)

empty = be.prepare({"x": x, "a": 2.0}, {"a": 0})
t = be.launch("a", empty)
assert t.ms == 0.0 and t.grid == 0 and not empty.pending and empty.hot["a"].go is empty.hot["a"].native is None
assert be.launch("a", empty, timed=False) is empty.hot["a"].untimed
be.close()
print("ok")
'''


def test_a_backend_made_on_the_stand_in_times_each_launch_on_both_paths(built, tmp_path):
    """A CudaBackend made through cuda-python itself, on the stand-in loaded as libcuda.so.1: its
    first argument sets are timed through cuda-python (event pairs from the LaunchTimer's pool),
    the later ones natively once NATIVE_AFTER launches were timed; every timed launch must get its
    own time (a read-back shifted by one misses them all) and an empty grid none; in debug mode a
    recorded out-of-bounds access raises on both paths, timed or not; a faulting launch is named
    by the first end event that never completed, on both paths; a refused launch raises."""
    shutil.copy(built, tmp_path / "libcuda.so.1")
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != "QDEXPLORER_NATIVE_LAUNCH"}
    env.update(LD_LIBRARY_PATH=f"{tmp_path}:{env.get('LD_LIBRARY_PATH', '')}",
               PYTHONPATH=f"{root}:{env.get('PYTHONPATH', '')}")
    p = subprocess.run([sys.executable, "-c", _ON_THE_STAND_IN], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stdout[-3000:] + p.stderr[-3000:]
