"""The Python side of a CUDA launch, without a GPU: launch_overhead.py's loops against a libcuda whose
calls cost nothing (`fake_libcuda.c`, built here with cc), so each loop's time is its Python and
binding overhead alone.

On a GPU every loop also pays the driver's own work, the same for all of them (the same calls on the
same events), so the differences printed here in µs are what separates the loops there; the ratios
are not (the driver's microseconds are missing from both sides). What it is for: a machine or a
session with no GPU time left (issue 34, round 3). `CudaBackend.launch` runs with a hand-made
context (the fake driver has no modules), both launch paths: the native one (`native_launch.py`) and
the cuda-python one (the fallback; the native one is the default, QDEXPLORER_NATIVE_LAUNCH=0 turns it off).

Usage: python benchmarks/launch_host_cost.py [--rounds 9] [--launches 5000]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from _common import emit

HERE = Path(__file__).resolve().parent


def per_launch_us(fn, sync, n):
    for _ in range(200):
        fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    sync()
    return (time.perf_counter() - t0) / n * 1e6


def loops():
    # lazy: the CUDA bindings, and the modules that need them, only when this benchmark runs
    from cuda.bindings import driver as cu
    from qdexplorer.runtime.cuda.backend import CudaBackend
    from qdexplorer.runtime.cuda.launch_state import CudaPrepared
    from qdexplorer.runtime.cuda.native_launch import NativeLauncher, driver_entry_points
    from qdexplorer.runtime.cuda.timing import LaunchTimer
    stream, f, addr = cu.CUstream(7), cu.CUfunction(1234), 0
    be = object.__new__(CudaBackend)   # no context: the fake driver has none to give
    be.timer = LaunchTimer(stream)
    native = be.timer.native = NativeLauncher(driver_entry_points())
    native.self_check(stream)
    be.ctx = SimpleNamespace(stream=stream)
    be.modules = SimpleNamespace(specs={"t": SimpleNamespace(kernel="k", debug=False, task="t")},
                                 composite=SimpleNamespace(function=lambda t: f))
    be.params = SimpleNamespace(params=lambda spec, prep: (addr, None, 1, 1))
    prep, prep_py = CudaPrepared({}, {"t": 1}, native=native), CudaPrepared({}, {"t": 1}, native=None)
    sync = lambda: cu.cuStreamSynchronize(stream)  # noqa: E731
    ev = [cu.cuEventCreate(0)[1] for _ in range(2)]

    def bare_timed():
        cu.cuEventRecord(ev[0], stream)
        cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, addr, 0)
        cu.cuEventRecord(ev[1], stream)
    pool = [(cu.cuEventCreate(0)[1], cu.cuEventCreate(0)[1]) for _ in range(1024)]
    pending: list = []

    def bare_timed_read():   # as launch_overhead.py's: every launch's time read back, 1024 at a time
        pair = pool[len(pending)]
        cu.cuEventRecord(pair[0], stream)
        cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, addr, 0)
        cu.cuEventRecord(pair[1], stream)
        pending.append(pair)
        if len(pending) == len(pool):
            read_back()

    def read_back():
        if pending:
            cu.cuEventSynchronize(pending[-1][1])
            [cu.cuEventElapsedTime(a, b)[1] for a, b in pending]
            pending.clear()
    return {"qdexplorer_timed_launch_us": (lambda: be.launch("t", prep), lambda: be.finish(prep)),
            "qdexplorer_untimed_launch_us": (lambda: be.launch("t", prep, timed=False), lambda: be.finish(prep)),
            "qdexplorer_timed_launch_cuda_python_us": (lambda: be.launch("t", prep_py), lambda: be.finish(prep_py)),
            "qdexplorer_untimed_launch_cuda_python_us": (lambda: be.launch("t", prep_py, timed=False),
                                                         lambda: be.finish(prep_py)),
            "bare_cuLaunchKernel_cuda_python_us":
                (lambda: cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, addr, 0), sync),
            "bare_cuLaunchKernel_cuda_python_with_events_us": (bare_timed, sync),
            "bare_with_events_and_elapsed_read_us": (bare_timed_read, read_back)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--launches", type=int, default=5000)
    a = ap.parse_args()
    if not os.environ.get("QDX_FAKE_LIBCUDA"):   # build the fake driver, then run again with it first on the path
        lib = Path(tempfile.mkdtemp(prefix="qdx-fake-cuda-"))
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(lib / "libcuda.so.1"), str(HERE / "fake_libcuda.c")],
                       check=True)
        env = dict(os.environ, QDX_FAKE_LIBCUDA=str(lib), LD_LIBRARY_PATH=f"{lib}:{os.environ.get('LD_LIBRARY_PATH', '')}",
                   PYTHONPATH=f"{HERE.parent}:{os.environ.get('PYTHONPATH', '')}")
        sys.exit(subprocess.run([sys.executable, __file__, *sys.argv[1:]], env=env).returncode)
    ls = loops()
    names = list(ls)
    rounds: dict[str, list[float]] = {k: [] for k in names}
    for r in range(a.rounds):   # interleaved, the order rotating, as launch_overhead.py does
        for k in names[r % len(names):] + names[:r % len(names)]:
            rounds[k].append(per_launch_us(*ls[k], n=a.launches))
    med = {k: round(float(np.median(v)), 3) for k, v in rounds.items()}
    pairs = {"timed_vs_bare_with_events_read_back": ("qdexplorer_timed_launch_us", "bare_with_events_and_elapsed_read_us"),
             "cuda_python_path_timed_vs_bare_with_events_read_back": ("qdexplorer_timed_launch_cuda_python_us",
                                                                      "bare_with_events_and_elapsed_read_us"),
             "untimed_vs_bare": ("qdexplorer_untimed_launch_us", "bare_cuLaunchKernel_cuda_python_us"),
             "cuda_python_path_untimed_vs_bare": ("qdexplorer_untimed_launch_cuda_python_us",
                                                  "bare_cuLaunchKernel_cuda_python_us")}
    diff = {}
    for label, (ours, peer) in pairs.items():
        per_round = [x - y for x, y in zip(rounds[ours], rounds[peer])]
        diff[label] = {"median_us": round(float(np.median(per_round)), 3), "min_us": round(min(per_round), 3),
                       "max_us": round(max(per_round), 3)}
    emit({"benchmark": "launch_host_cost", "driver": "fake (calls cost nothing)", "rounds": a.rounds,
          "launches_per_round": a.launches, "median_us": med, "ours_minus_peer_us": diff})


if __name__ == "__main__":
    main()
