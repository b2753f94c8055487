"""The Quadrants peer of script_calls.py, in its own process (two CUDA runtimes in one process
would share and perturb one context). Prints {log2: {variant: [ms per call...]}} as JSON.

Usage: python _quadrants_calls.py --log2 16 20 24 --calls 200
"""
import argparse
import json

import numpy as np

from _common import per_call_ms, queued_ms
import sim_programs as sp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log2", type=int, nargs="+", required=True)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--sim", type=int, nargs="*", default=[], help="particle-program sizes to time")
    ap.add_argument("--sim-steps", type=int, default=1000)
    a = ap.parse_args()
    import quadrants as qd
    qd.init(arch=qd.cuda, offline_cache=False, log_level="error")
    F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)

    @qd.kernel
    def axpy(x: F1, y: F1, alpha: qd.f32):
        for i in range(x.shape[0]):
            y[i] = alpha * x[i] + y[i]

    out = {"version": qd.__version__, "rows": {}}
    for lg in a.log2:
        n = 1 << lg
        x0 = np.random.default_rng(0).random(n, dtype=np.float32)
        variants = {}
        xs, ys = x0.copy(), np.zeros(n, np.float32)
        variants["numpy"] = lambda: axpy(xs, ys, 1.0)
        xq, yq = qd.ndarray(qd.f32, shape=(n,)), qd.ndarray(qd.f32, shape=(n,))
        xq.from_numpy(x0)
        yq.fill(0)
        variants["qd.ndarray"] = lambda: axpy(xq, yq, 1.0)
        try:
            import torch
            xt, yt = torch.from_numpy(x0).cuda(), torch.zeros(n, device="cuda")
            variants["torch_tensor"] = lambda: axpy(xt, yt, 1.0)
        except ImportError:
            pass
        row = out["rows"][str(lg)] = {}
        for name, fn in variants.items():
            for _ in range(5):
                fn()
            qd.sync()
            row[name] = per_call_ms(fn, qd.sync, a.calls)
        row["qd.ndarray, queued"] = queued_ms(lambda: axpy(xq, yq, 1.0), qd.sync, a.calls)
        np.testing.assert_allclose(yq.to_numpy(), (5 + 2 * a.calls) * x0, rtol=1e-4)
    ks = sp.define(qd)
    out["sim"] = {}
    for n in a.sim:
        r = sp.run_particles(qd, ks, n, a.sim_steps, qd.sync)
        out["sim"][str(n)] = {"ms_per_step": r["ms_per_step"], "energies": r["energies"],
                              "init_error": r["init_error"]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
