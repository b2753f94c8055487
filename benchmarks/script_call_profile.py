"""Where a script's kernel call spends its host time: cProfile of back-to-back calls (an empty kernel,
the particle step's field kernels, a qd.ndarray saxpy), the top functions by own time, and each call's
wall time without the profiler. For the next round of host-cost work (issue 40: the 1M-particle step
is host-bound).

    python benchmarks/script_call_profile.py [--arch cuda|cpu] [--calls 3000]
"""
import argparse
import cProfile
import io
import json
import pstats
import time

import sim_programs as sp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="cuda", choices=("cuda", "cpu"))
    ap.add_argument("--calls", type=int, default=3000)
    a = ap.parse_args()
    import qdexplorer.lang as qd
    qd.init(arch=getattr(qd, a.arch))
    F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)

    @qd.kernel
    def nothing():
        pass

    @qd.kernel
    def axpy(x: F1, y: F1, alpha: qd.f32):
        for i in range(x.shape[0]):
            y[i] = alpha * x[i] + y[i]

    init, step, read_energy, _ = sp.define(qd)["particles"](1 << 20)
    init()
    xq, yq = qd.ndarray(qd.f32, shape=(1 << 20,)), qd.ndarray(qd.f32, shape=(1 << 20,))
    cases = {"empty": nothing, "particle_step_3_calls": step, "ndarray_axpy": lambda: axpy(xq, yq, 1.0)}
    out = {}
    for name, fn in cases.items():
        for _ in range(50):
            fn()
        qd.sync()
        t0 = time.perf_counter()
        for _ in range(a.calls):
            fn()
        qd.sync()
        wall = (time.perf_counter() - t0) / a.calls * 1e6
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(a.calls):
            fn()
        qd.sync()
        pr.disable()
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(22)
        out[name] = {"wall_us_per_call": round(wall, 2), "profile": s.getvalue().splitlines()[:40]}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
