"""Kernel calls from a script on CUDA: what a call costs with each kind of array argument.

A Quadrants time-step loop calls the same kernels thousands of times on arrays that live on the
GPU. This measures wall time per call of `y = a*x + y` from Python (`qd.init(arch=qd.cuda)`), with
the arguments as NumPy arrays (copied in and out around every call), as `qd.ndarray`s (kept on
the device), as PyTorch CUDA tensors and as CuPy arrays (passed by pointer), against PyTorch's
own `y.add_(x, alpha=a)` in the same loop, synchronised after each call like ours, and against
Quadrants itself (same kernel, same three kinds of argument) when it is installed. It also reports
the bytes the backend copied per call (its transfer counters) and the effective bandwidth.

A second table times a whole program: the fields-and-func particle simulation of
sim_programs.py (three kernels a step, a `@qd.func`, an energy reduction read back every 100 steps)
at 4096 and 2^20 elements, beside Quadrants running the same program; the energies must agree.

Usage (GPU machine): python benchmarks/script_calls.py [--log2 20 24] [--calls 200] [--sim 4096 1048576]
"""
import argparse

import numpy as np

from _common import emit, per_call_ms, queued_ms, summary
import sim_programs as sp

WARMUP = 5


def quadrants_peer(a, rows, sims):
    """Quadrants' own per-call cost for the same kernel and arguments, if it is installed (in a
    child process: see _quadrants_calls.py)."""
    import importlib.util
    import json
    import os
    import subprocess
    import sys
    if importlib.util.find_spec("quadrants") is None:
        for row in rows:
            row["quadrants"] = "not installed"
        return
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run([sys.executable, os.path.join(here, "_quadrants_calls.py"), "--log2",
                        *map(str, a.log2), "--calls", str(a.calls), "--sim", *map(str, a.sim),
                        "--sim-steps", str(a.sim_steps)], capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        for row in rows:
            row["quadrants"] = f"failed: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else p.returncode}"
        return
    got = json.loads(p.stdout.strip().splitlines()[-1])
    for n, peer in got.get("sim", {}).items():
        ours = sims.get(n)
        if ours is not None:
            ours["quadrants_ms_per_step"] = peer["ms_per_step"]
            ours["time_over_quadrants"] = round(ours["ms_per_step"] / peer["ms_per_step"], 3)
            ours["energies_agree"] = bool(np.allclose(ours.pop("energies"), peer["energies"], rtol=1e-3))
            ours["quadrants_init_error"] = peer.get("init_error")
    for row in rows:
        for name, ms in got["rows"].get(str(row["log2"]), {}).items():
            s = summary(ms) if isinstance(ms, list) else {"median_ms": ms, "n": a.calls}
            s["effective_GBps"] = round(12 * row["n"] / (s["median_ms"] * 1e-3) / 1e9, 1)
            row["variants"][f"peer:quadrants {got['version']} {name}"] = s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log2", type=int, nargs="+", default=[16, 20, 24])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--sim", type=int, nargs="*", default=[4096, 1 << 20])
    ap.add_argument("--sim-steps", type=int, default=1000)
    a = ap.parse_args()
    import qdexplorer.lang as qd
    from qdexplorer import script
    qd.init(arch=qd.cuda)
    F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)

    @qd.kernel
    def axpy(x: F1, y: F1, alpha: qd.f32):
        for i in range(x.shape[0]):
            y[i] = alpha * x[i] + y[i]

    def counters():
        return dict(script.runner().device.backend.memory.transfers)

    rows = []
    for lg in a.log2:
        n = 1 << lg
        x0 = np.random.default_rng(0).random(n, dtype=np.float32)
        row = {"n": n, "log2": lg, "bytes_per_call_kernel": 12 * n}
        variants = {}

        xs, ys = x0.copy(), np.zeros(n, np.float32)
        variants["numpy"] = (lambda: axpy(xs, ys, 1.0), lambda: None)
        xq, yq = qd.ndarray(qd.f32, shape=(n,)), qd.ndarray(qd.f32, shape=(n,))
        xq.from_numpy(x0)
        yq.fill(0)
        variants["qd.ndarray"] = (lambda: axpy(xq, yq, 1.0), qd.sync)
        try:
            import torch
            xt, yt = torch.from_numpy(x0).cuda(), torch.zeros(n, device="cuda")
            variants["torch_tensor"] = (lambda: axpy(xt, yt, 1.0), torch.cuda.synchronize)
            xp, yp = xt.clone(), torch.zeros(n, device="cuda")
            variants["peer:torch.add_"] = (lambda: yp.add_(xp, alpha=1.0), torch.cuda.synchronize)
        except ImportError:
            row["torch"] = "not installed"
        try:
            import cupy as cp
            xc, yc = cp.asarray(x0), cp.zeros(n, dtype=cp.float32)
            variants["cupy_array"] = (lambda: axpy(xc, yc, 1.0), cp.cuda.runtime.deviceSynchronize)
        except ImportError:
            row["cupy"] = "not installed"
        for name, (fn, sync) in variants.items():
            for _ in range(WARMUP):  # the first call compiles, and uploads what Python wrote
                fn()
            sync()
            c0 = counters()
            ms = per_call_ms(fn, sync, a.calls)
            c1 = counters()
            s = summary(ms)
            s["copied_bytes_per_call"] = {k: (c1[k] - c0[k]) // a.calls for k in c1}
            s["effective_GBps"] = round(12 * n / (s["median_ms"] * 1e-3) / 1e9, 1)
            variants_out = row.setdefault("variants", {})
            variants_out[name] = s
        # a time-step loop: calls queued back to back, one qd.sync() at the end (calls on device
        # arrays do not wait for their kernels, as in Quadrants)
        per = queued_ms(lambda: axpy(xq, yq, 1.0), qd.sync, a.calls)
        row["variants"]["qd.ndarray, queued"] = {"median_ms": per, "n": a.calls, "copied_bytes_per_call": {},
                                                 "effective_GBps": round(12 * n / (per * 1e-3) / 1e9, 1)}
        # the results are right, whichever way the arrays came in
        total = WARMUP + 2 * a.calls
        np.testing.assert_allclose(ys, (WARMUP + a.calls) * x0, rtol=1e-4)
        np.testing.assert_allclose(yq.to_numpy(), total * x0, rtol=1e-4)
        if "torch_tensor" in variants:
            np.testing.assert_allclose(yt.cpu().numpy(), (WARMUP + a.calls) * x0, rtol=1e-4)
        rows.append(row)
    ks = sp.define(qd)
    sims = {}
    for n in a.sim:
        r = sp.run_particles(qd, ks, n, a.sim_steps, qd.sync)
        sims[str(n)] = {"ms_per_step": r["ms_per_step"], "energies": r["energies"], "init_error": r["init_error"]}
    quadrants_peer(a, rows, sims)
    for row in rows:
        best = row["variants"]
        if "peer:torch.add_" in best:
            peer = best["peer:torch.add_"]["median_ms"]
            row["vs_torch"] = {k: round(v["median_ms"] / peer, 2) for k, v in best.items()}
    emit({"benchmark": "script_calls", "what": "wall ms per kernel call from Python, saxpy f32, synchronised",
          "rows": rows, "particle_program": sims})


if __name__ == "__main__":
    main()
