"""Whole programs on the CPU backend, qdexplorer beside Quadrants (CPU) in the same run.

Three figures per side: the per-call cost of a tiny kernel (saxpy over 1024 elements, 2000 calls,
`qd.ndarray` and NumPy arguments), the fields-and-func particle program at 4096 elements (three
kernels a step, an energy reduction read back every 100 steps) and the stable-fluid-like 2-D
program (bilinear advection and Jacobi sweeps, 256x256), from sim_programs.py. Results are
compared between the two languages. Quadrants runs in a child process (`--side quadrants`).

Usage: python benchmarks/cpu_programs.py [--steps 1000] [--fluid-steps 30] [--reps 3]
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

from _common import emit
import sim_programs as sp


def side(name: str, a) -> dict:
    if name == "qdexplorer":
        import qdexplorer.lang as qd
        qd.init(arch=qd.cpu)
    else:
        import quadrants as qd
        qd.init(arch=qd.cpu, offline_cache=False, log_level="error")
    F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)

    @qd.kernel
    def axpy(x: F1, y: F1, alpha: qd.f32):
        for i in range(x.shape[0]):
            y[i] = alpha * x[i] + y[i]

    out: dict = {"version": getattr(qd, "__version__", "")}
    xq, yq = qd.ndarray(qd.f32, shape=(1024,)), qd.ndarray(qd.f32, shape=(1024,))
    xs, ys = np.ones(1024, np.float32), np.zeros(1024, np.float32)
    for label, fn in (("call_us_qd.ndarray", lambda: axpy(xq, yq, 1.0)), ("call_us_numpy", lambda: axpy(xs, ys, 1.0))):
        for _ in range(20):
            fn()
        best = []
        for _ in range(a.reps):
            t0 = time.perf_counter()
            for _ in range(2000):
                fn()
            best.append((time.perf_counter() - t0) / 2000 * 1e6)
        out[label] = round(min(best), 2)
    ks = sp.define(qd)

    def arrays(v):
        t = qd.ndarray(qd.f32, shape=v.shape)
        t.from_numpy(v)
        return t
    runs = [sp.run_particles(qd, ks, 4096, a.steps, qd.sync) for _ in range(a.reps)]
    out["particles_4096_ms_per_step"] = round(min(r["ms_per_step"] for r in runs), 4)
    out["particles_energies"] = runs[0]["energies"]
    out["particles_x_sum"] = float(runs[0]["x"].astype(np.float64).sum())
    fl = [sp.run_fluid(qd, ks, 256, 256, a.fluid_steps, qd.sync, arrays) for _ in range(a.reps)]
    out["fluid_256_ms_per_step"] = round(min(r["ms_per_step"] for r in fl), 4)
    out["fluid_q_sum"] = float(fl[0]["q"].astype(np.float64).sum())
    out["fluid_p_sum"] = float(fl[0]["p"].astype(np.float64).sum())
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--fluid-steps", type=int, default=30)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--side", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.side:
        print(json.dumps(side(a.side, a)))
        return
    ours = side("qdexplorer", a)
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--side", "quadrants", "--steps", str(a.steps),
                            "--fluid-steps", str(a.fluid_steps), "--reps", str(a.reps)],
                           capture_output=True, text=True, timeout=900)
        peer = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else {"error": p.stderr[-600:]}
    except Exception as e:  # noqa: BLE001 - report, keep our figures
        peer = {"error": f"{type(e).__name__}: {e}"}
    ratios, agree = {}, {}
    if "error" not in peer:
        for k in ("call_us_qd.ndarray", "call_us_numpy", "particles_4096_ms_per_step", "fluid_256_ms_per_step"):
            ratios[k] = round(ours[k] / peer[k], 3)  # < 1: qdexplorer is faster
        agree["particles_energies"] = bool(np.allclose(ours["particles_energies"], peer["particles_energies"], rtol=1e-4))
        for k in ("particles_x_sum", "fluid_q_sum", "fluid_p_sum"):
            agree[k] = bool(np.isclose(ours[k], peer[k], rtol=1e-4, atol=1e-3))
    emit({"benchmark": "cpu_programs", "qdexplorer": ours, "quadrants": peer, "time_over_quadrants": ratios,
          "results_agree": agree})


if __name__ == "__main__":
    main()
