"""Debug mode (`qd.init(debug=True)`): a program of many tiny launches, qdexplorer beside Quadrants
1.3.3 in the same run (Quadrants in a child process; both on the CPU unless --arch cuda).

- `diffphys`: a differentiable mass-spring chain in the style of Quadrants' diff-physics examples:
  fields with adjoints, a 64-particle step (two kernels: forces, update) run `--steps` times inside `qd.ad.Tape`, a loss,
  the reverse pass, and a gradient-descent update of the spring constant, `--iters` times. Each launch
  does a few hundred flops, so the time is what a launch costs in debug mode.
- `tiny`: `y = a*x + y` over 256 f32 `qd.ndarray` elements, bursts of 200 calls (a time-step loop).

Each is timed after a warm-up iteration (compilation excluded), with debug on and off, by wall clock
and by process CPU time. Each figure is the minimum over `--reps` short bursts (one iteration, 200 calls):
on a loaded machine a short burst is the likeliest to run undisturbed. The results
are compared between the languages (loss and gradient, checksum). Ratios are qdexplorer / Quadrants
(goal for debug mode: <= 1.0).

Usage: python benchmarks/debug_mode.py [--steps 50] [--iters 1] [--reps 20] [--arch cpu]
"""

import argparse
import json
import os
import subprocess
import sys
import time

from _common import emit

N = 64
CALLS = 200  # per timed burst of `tiny`


def define(qd, steps: int):
    x = qd.field(qd.f32, shape=(steps + 1, N), needs_grad=True)
    v = qd.field(qd.f32, shape=(steps + 1, N), needs_grad=True)
    f = qd.field(qd.f32, shape=(steps + 1, N), needs_grad=True)
    k = qd.field(qd.f32, shape=(), needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def init():
        for i in range(N):
            x[0, i] = qd.sin(i * 0.3)
            v[0, i] = 0.0

    @qd.kernel
    def forces(t: qd.i32):  # reads neighbours of x, writes only f: no read-after-write on one field
        for i in range(N):
            left = x[t - 1, (i + N - 1) % N]
            right = x[t - 1, (i + 1) % N]
            f[t, i] = k[None] * (left + right - 2.0 * x[t - 1, i])

    @qd.kernel
    def update(t: qd.i32):
        for i in range(N):
            nv = v[t - 1, i] * 0.995 + f[t, i] * 0.01
            v[t, i] = nv
            x[t, i] = x[t - 1, i] + nv * 0.01

    @qd.kernel
    def compute_loss():
        for i in range(N):
            loss[None] += x[steps, i] * x[steps, i]

    def iteration():
        loss[None] = 0.0
        with qd.ad.Tape(loss=loss):
            init()
            for t in range(1, steps + 1):
                forces(t)
                update(t)
            compute_loss()
        g = k.grad[None]
        k[None] = k[None] - 0.01 * g
        return loss[None], g

    k[None] = 2.0
    return iteration


def diffphys(qd, steps: int, iters: int, reps: int) -> dict:
    it = define(qd, steps)
    it()  # compiles every kernel and its reverse
    best, cpu, trace = [], [], []
    for _ in range(reps):
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(iters):
            trace.append(it())
        qd.sync()
        best.append((time.perf_counter() - t0) / iters * 1e3)
        cpu.append((time.process_time() - c0) / iters * 1e3)
    launches = 2 * (2 * steps + 2)  # forward and reverse: init, the steps, the loss
    return {"ms_per_iter": round(min(best), 3), "cpu_ms_per_iter": round(min(cpu), 3),
            "us_per_launch": round(min(best) * 1e3 / launches, 2),
            "loss": float(trace[-1][0]), "grad": float(trace[-1][1])}


def tiny(qd, reps: int) -> dict:
    F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)

    @qd.kernel
    def axpy(x: F1, y: F1, a: qd.f32):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]
    x, y = qd.ndarray(qd.f32, shape=(256,)), qd.ndarray(qd.f32, shape=(256,))
    x.fill(1.0)
    for _ in range(20):
        axpy(x, y, 0.5)
    best, cpu = [], []
    for _ in range(reps):
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(CALLS):
            axpy(x, y, 0.5)
        qd.sync()
        best.append((time.perf_counter() - t0) / CALLS * 1e6)
        cpu.append((time.process_time() - c0) / CALLS * 1e6)
    return {"us_per_call": round(min(best), 2), "cpu_us_per_call": round(min(cpu), 2), "y0": float(y.to_numpy()[0])}


def side(name: str, a) -> dict:
    out: dict = {}
    for debug in (True, False):
        if name == "qdexplorer":
            import qdexplorer.lang as qd
            qd.init(arch=a.arch, debug=debug)
        else:
            import quadrants as qd
            qd.init(arch=getattr(qd, a.arch), debug=debug, offline_cache=False, log_level="error")
        key = "debug" if debug else "nodebug"
        out[key] = {"diffphys": diffphys(qd, a.steps, a.iters, a.reps), "tiny": tiny(qd, a.reps)}
        if name == "quadrants":
            qd.reset()
            out["imported_from"] = os.path.dirname(qd.__file__)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--iters", type=int, default=1)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--arch", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--side", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.side:
        print(json.dumps(side(a.side, a)))
        return
    t0 = time.perf_counter()
    ours = side("qdexplorer", a)
    # the environment as it is: Quadrants may be importable only through PYTHONPATH (a `pip install
    # --target` folder, as on the GPU machine); no checkout of ours holds a top-level `quadrants`
    env = dict(os.environ)
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--side", "quadrants", "--steps", str(a.steps),
                            "--iters", str(a.iters), "--reps", str(a.reps), "--arch", a.arch],
                           capture_output=True, text=True, timeout=900, env=env)
        peer = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else {"error": p.stderr[-800:]}
    except Exception as e:  # noqa: BLE001 - report, keep our figures
        peer = {"error": f"{type(e).__name__}: {e}"}
    ratios, agree = {}, {}
    if "error" not in peer:
        for mode in ("debug", "nodebug"):
            ratios[mode] = {f"{prog}_{k}": round(ours[mode][prog][k] / peer[mode][prog][k], 3)
                            for prog, keys in (("diffphys", ("ms_per_iter", "cpu_ms_per_iter")),
                                               ("tiny", ("us_per_call", "cpu_us_per_call"))) for k in keys}
            o, q = ours[mode]["diffphys"], peer[mode]["diffphys"]
            agree[mode] = {"loss": abs(o["loss"] - q["loss"]) <= 1e-3 * max(1.0, abs(q["loss"])),
                           "grad": abs(o["grad"] - q["grad"]) <= 1e-3 * max(1.0, abs(q["grad"])),
                           "tiny_y0": ours[mode]["tiny"]["y0"] == peer[mode]["tiny"]["y0"]}
    emit({"benchmark": "debug_mode", "arch": a.arch, "steps": a.steps, "iters": a.iters, "qdexplorer": ours,
          "quadrants": peer, "time_over_quadrants": ratios, "results_agree": agree, "goal_debug": 1.0,
          "seconds": round(time.perf_counter() - t0, 1)})


if __name__ == "__main__":
    main()
