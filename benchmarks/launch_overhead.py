"""Host cost of one timed launch of an empty task: qdexplorer's launch path vs bare loops.

qdexplorer's path records a CUDA event pair around every launch (that is what feeds the
timing plots) and reads each elapsed time back; `timed=False` launches without events. Its
native path (the default; QDEXPLORER_NATIVE_LAUNCH=0 turns it off) makes those driver calls
from JIT-compiled native code (one ctypes call a launch, one per 1024 read-backs:
`runtime/cuda/native_launch.py`); the `_cuda_python` loops are the same launches through
cuda-python (the fallback, and a device worker's first 1024). The
peers: a bare `cuLaunchKernel` loop through cuda-python (no timing), the same through ctypes,
and cuda-python with an event pair around each launch (never read back).
(A ctypes hot path for the event calls was tried and measured slower: 8.6 µs vs 7.6 µs.)

`bare_with_events_and_elapsed_read`: the same bare loop over a pool of event pairs, reading every
launch's elapsed time back each 1024 launches, as the timed launch does (the least a per-launch GPU
time costs). The host is noisy, so the loops that the ratios compare (ours untimed / bare, ours timed /
bare with events) run in ROUNDS interleaved rounds of N launches each, the order rotating every
round; each figure is the median over rounds, and the spread (min, max) of the per-round ratios
is printed beside it.
"""
import os
import time

os.environ["QDEXPLORER_NATIVE_LAUNCH"] = "1"   # both paths are measured

import numpy as np

from _common import emit

N = 20000
ROUNDS, N_ROUND = 9, 5000


def per_launch_us(fn, sync, n=N):
    for _ in range(200):
        fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    sync()
    return (time.perf_counter() - t0) / n * 1e6


def main():
    import ctypes
    import textwrap
    import tempfile
    from pathlib import Path
    from cuda.bindings import driver as cu
    from qdexplorer.compiler.pool import InlineCompiler
    from qdexplorer.compiler.pipeline import Pipeline
    from qdexplorer.project.loader import load_project
    from qdexplorer.runtime.cuda.backend import CudaBackend
    d = Path(tempfile.mkdtemp())
    (d / "k.py").write_text(textwrap.dedent("""\
        import qdexplorer.lang as qd
        @qd.kernel
        def empty(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
            pass
        """))
    k = load_project(d / "k.py").kernels["empty"]
    (ct,) = Pipeline(InlineCompiler()).compile(k.tasks(), "nvptx")
    results = {}
    be = CudaBackend()
    be.modules.load(ct.spec, ct.output, ct.load_hash)
    prep = be.prepare({"x": np.zeros(1, np.float32)}, {ct.task: 1})
    assert prep.native is not None, be.timer.native_error
    done = lambda: be.finish(prep)  # noqa: E731
    prep_py = be.prepare({"x": np.zeros(1, np.float32)}, {ct.task: 1})
    prep_py.native = None  # this argument set launches through cuda-python
    done_py = lambda: be.finish(prep_py)  # noqa: E731
    f = be.modules.composite.function(ct.task)
    addr = be.params.params(be.modules.specs[ct.task], prep)[0]
    sync = lambda: cu.cuStreamSynchronize(be.ctx.stream)  # noqa: E731
    ev = [cu.cuEventCreate(0)[1] for _ in range(2)]

    def bare_timed():
        cu.cuEventRecord(ev[0], be.ctx.stream)
        cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, be.ctx.stream, addr, 0)
        cu.cuEventRecord(ev[1], be.ctx.stream)
    pool = [(cu.cuEventCreate(0)[1], cu.cuEventCreate(0)[1]) for _ in range(1024)]
    pending = []

    def bare_timed_read():  # the least code that yields every launch's GPU time: what a timed launch must do
        pair = pool[len(pending)]
        cu.cuEventRecord(pair[0], be.ctx.stream)
        cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, be.ctx.stream, addr, 0)
        cu.cuEventRecord(pair[1], be.ctx.stream)
        pending.append(pair)
        if len(pending) == len(pool):
            read_back()

    def read_back():
        if pending:
            cu.cuEventSynchronize(pending[-1][1])
            times.append([cu.cuEventElapsedTime(a, b)[1] for a, b in pending])
            pending.clear()
    times: list = []
    loops = {"qdexplorer_timed_launch_us": (lambda: be.launch(ct.task, prep), done),
             "qdexplorer_untimed_launch_us": (lambda: be.launch(ct.task, prep, timed=False), done),
             "qdexplorer_timed_launch_cuda_python_us": (lambda: be.launch(ct.task, prep_py), done_py),
             "qdexplorer_untimed_launch_cuda_python_us": (lambda: be.launch(ct.task, prep_py, timed=False), done_py),
             "bare_cuLaunchKernel_cuda_python_us":
                 (lambda: cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, be.ctx.stream, addr, 0), sync),
             "bare_cuLaunchKernel_cuda_python_with_events_us": (bare_timed, sync),
             "bare_with_events_and_elapsed_read_us": (bare_timed_read, read_back)}
    names = list(loops)
    rounds: dict[str, list[float]] = {k: [] for k in names}
    for r in range(ROUNDS):  # interleaved, the order rotating: drift of the host hits every loop alike
        for k in names[r % len(names):] + names[:r % len(names)]:
            rounds[k].append(per_launch_us(*loops[k], n=N_ROUND))
    for k in names:
        results[k] = float(np.median(rounds[k]))
    paired = {"untimed_vs_bare": ("qdexplorer_untimed_launch_us", "bare_cuLaunchKernel_cuda_python_us"),
              "timed_vs_bare_with_events": ("qdexplorer_timed_launch_us",
                                            "bare_cuLaunchKernel_cuda_python_with_events_us"),
              "timed_vs_bare_with_events_read_back": ("qdexplorer_timed_launch_us",
                                                      "bare_with_events_and_elapsed_read_us"),
              "cuda_python_path_untimed_vs_bare": ("qdexplorer_untimed_launch_cuda_python_us",
                                                   "bare_cuLaunchKernel_cuda_python_us"),
              "cuda_python_path_timed_vs_bare_with_events_read_back": ("qdexplorer_timed_launch_cuda_python_us",
                                                                       "bare_with_events_and_elapsed_read_us")}
    spread = {}
    for label, (ours, peer) in paired.items():
        per_round = [a / b for a, b in zip(rounds[ours], rounds[peer])]
        spread[label] = {"median": round(float(np.median(per_round)), 3), "min": round(min(per_round), 3),
                         "max": round(max(per_round), 3)}
    results["per_round_ratio"] = spread
    results["rounds_us"] = {k: [round(x, 3) for x in v] for k, v in rounds.items()}
    launch = ctypes.CDLL("libcuda.so.1").cuLaunchKernel
    launch.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    fh, sh = int(f), int(be.ctx.stream)
    results["bare_cuLaunchKernel_ctypes_us"] = per_launch_us(lambda: launch(fh, 1, 1, 1, 1, 1, 1, 0, sh, addr, None),
                                                             sync)
    # GPU-side duration of the empty task, from the app's own event timings
    ts = [be.launch(ct.task, prep) for _ in range(1000)]
    be.finish(prep)
    results["empty_task_gpu_ms_median"] = float(np.median([t.ms for t in ts]))
    ts = [be.launch(ct.task, prep_py) for _ in range(1000)]
    be.finish(prep_py)
    results["empty_task_gpu_ms_median_cuda_python_path"] = float(np.median([t.ms for t in ts]))
    be.close()
    try:
        import cupy as cp
        rk = cp.RawKernel(r'extern "C" __global__ void empty() {}', "empty")
        results["cupy_rawkernel_launch_us"] = per_launch_us(lambda: rk((1,), (1,), ()), cp.cuda.Stream.null.synchronize)
    except ImportError:
        pass
    base = results["bare_cuLaunchKernel_cuda_python_us"]
    results["ratio_qdexplorer_vs_bare_cuda_python"] = round(results["qdexplorer_timed_launch_us"] / base, 3)
    results["ratio_qdexplorer_untimed_vs_bare_cuda_python"] = round(results["qdexplorer_untimed_launch_us"] / base, 3)
    results["ratio_qdexplorer_vs_bare_with_events"] = round(
        results["qdexplorer_timed_launch_us"] / results["bare_cuLaunchKernel_cuda_python_with_events_us"], 3)
    results["ratio_timed_vs_bare_with_events_and_elapsed_read"] = round(
        results["qdexplorer_timed_launch_us"] / results["bare_with_events_and_elapsed_read_us"], 3)
    emit({"benchmark": "launch_overhead", "launches": N, "rounds": ROUNDS, "launches_per_round": N_ROUND,
          "results": {k: round(v, 3) if isinstance(v, float) else v for k, v in results.items()}})


if __name__ == "__main__":
    main()
