"""The global-atomic histogram, qdexplorer beside Quadrants, with the bins at the same addresses.

`bins[x[i]] += 1` over 2^24 uniform values into 256 int32 bins is bound by the L2 atomic units that
own the bins' 1 KB, and which units own it depends on the address: the same CUDA kernel written by
hand (CuPy) takes 4.33 ms with the bins at one offset and 2.08 ms at another (see
benchmarks/README.md). Each language's allocator puts its bins wherever it likes, so a comparison
of the two must give both the same bins. Here both take PyTorch tensors: one 4 MB pool per process
(2 MiB-aligned by PyTorch's allocator) and the bins at each offset below, the kernel source shared.
Quadrants runs in a child process (`--side quadrants`), as in kernel_suite.py.

Usage (GPU machine): python benchmarks/atomic_placement.py [--reps 9]
"""
import argparse
import json
import subprocess
import sys
import time

import numpy as np
from _common import emit, machine

N = 1 << 24
OFFSETS = (0, 128, 256, 384, 512, 640, 768, 896, 1024, 1536)


def side(name: str, reps: int) -> dict:
    import torch
    if name == "qdexplorer":
        import qdexplorer.lang as qd
        qd.init(arch=qd.cuda)
    else:
        import quadrants as qd
        qd.init(arch=qd.cuda, offline_cache=False, log_level="error")
    I1 = qd.types.ndarray(dtype=qd.i32, ndim=1)

    @qd.kernel
    def histogram(x: I1, bins: I1):
        for i in range(x.shape[0]):
            bins[x[i]] += 1

    x0 = np.random.default_rng(0).integers(0, 256, N).astype(np.int32)
    x = torch.from_numpy(x0).cuda()
    pool = torch.zeros(1 << 20, dtype=torch.int32, device="cuda")
    out: dict = {"version": getattr(qd, "__version__", ""), "pool_mod_2MiB": pool.data_ptr() % (2 << 20), "ms": {}}
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for off in OFFSETS:
        bins = pool[off // 4: off // 4 + 256]
        bins.zero_()
        histogram(x, bins)
        torch.cuda.synchronize()
        ok = bool((bins.cpu().numpy() == np.bincount(x0, minlength=256)).all())
        ms, wall = [], []
        for _ in range(reps):
            t0 = time.perf_counter()
            start.record()
            histogram(x, bins)
            end.record()
            qd.sync()
            torch.cuda.synchronize()
            wall.append((time.perf_counter() - t0) * 1e3)
            ms.append(start.elapsed_time(end))
        out["ms"][str(off)] = {"median": round(float(np.median(wall)), 4), "events": round(float(np.median(ms)), 4),
                               "counts_ok": ok}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--side", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.side:
        print(json.dumps(side(a.side, a.reps)))
        return
    ours = side("qdexplorer", a.reps)
    p = subprocess.run([sys.executable, __file__, "--side", "quadrants", "--reps", str(a.reps)],
                       capture_output=True, text=True, timeout=600, check=False)
    peer = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else \
        {"error": (p.stderr.strip().splitlines() or [str(p.returncode)])[-1]}
    rows = []
    for off in map(str, OFFSETS):
        row = {"bins_offset_bytes": int(off), "qdexplorer_ms": ours["ms"][off]["median"],
               "qdexplorer_event_ms": ours["ms"][off]["events"],
               "counts_ok": ours["ms"][off]["counts_ok"]}
        q = peer.get("ms", {}).get(off)
        if q:
            row["quadrants_ms"] = q["median"]
            row["quadrants_counts_ok"] = q["counts_ok"]
            row["time_over_quadrants"] = round(row["qdexplorer_ms"] / q["median"], 3)
        rows.append(row)
    ratios = [r["time_over_quadrants"] for r in rows if "time_over_quadrants" in r]
    emit({"benchmark": "atomic_placement", "what": "256-bin global-atomic histogram of 2^24 int32, "
          "wall ms per synchronised call (each side's call cost included: tens of µs), bins at the same pool "
          "offsets on both sides", "rows": rows,
          "geomean_time_over_quadrants": round(float(np.exp(np.mean(np.log(ratios)))), 3) if ratios else None,
          "max_time_over_quadrants": max(ratios) if ratios else None,
          "pool_mod_2MiB": {"qdexplorer": ours["pool_mod_2MiB"], "quadrants": peer.get("pool_mod_2MiB")},
          "quadrants": peer.get("version", peer.get("error")), "machine": machine()})


if __name__ == "__main__":
    main()
