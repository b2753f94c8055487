"""Real kernel shapes, side by side in one run: qdexplorer vs PyTorch (eager and torch.compile),
CuPy where it has an equivalent, and Quadrants where it is installed.

Every peer works on device-resident data; each time is the CUDA-event median of REPS launches
after WARMUP (Quadrants, in its own process: wall clock around kernel + qd.sync(), median).
qdexplorer uses the app's own timed launch path (Pipeline, then CudaBackend.launch, one event pair per task
launch; a kernel's time is the sum over its tasks). Each qdexplorer result is checked once
against NumPy before it is timed. Prints one JSON document; benchmarks/README.md has the table.

    python benchmarks/kernel_suite.py [--only stencil,wave,...] [--no-compile] [--no-quadrants]
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

from _common import ROOT, emit, event_timed, summary

WARMUP, REPS = 5, 30
N2D = 4096            # stencil / transpose side
N_WAVE = 1 << 26
N_SUM = 1 << 24
N_MM = 2048
N_PART = 1 << 22
N_HIST = 1 << 24
MATMULS = ("matmul_tiled", "matmul_blocked")  # 2048^3 f32 beside cuBLAS SGEMM
CASES = ("stencil", "wave", "total", "transpose", "transpose_tiled", "matmul_tiled", "matmul_blocked", "particles",
         "histogram", "histogram_shared")
HIST_THREADS = 132 * 8 * 256  # histogram_shared: 8 blocks of 256 threads per SM, each walking x by this stride


# ---- qdexplorer ---------------------------------------------------------------------------

class Qdx:
    """Compile a kernel's tasks with the app's CompileService, load them, launch them timed."""

    def __init__(self, arch):
        from qdexplorer.runtime.cuda.backend import CudaBackend
        self.be, self.arch = CudaBackend(), arch

    def run(self, kernel, args: dict, fast_math=True, check=None, vector=4):
        from qdexplorer.compiler.cache import PtxCache
        from qdexplorer.compiler.pipeline import Pipeline
        from qdexplorer.compiler.pool import InlineCompiler
        from qdexplorer.lang.calls.bounds import trip_counts
        spec = kernel.spec_for(tuple(args[n] for n in kernel.arg_names))
        pipe = Pipeline(InlineCompiler(), PtxCache(offline=False), self.arch, fast_math=fast_math, vector=vector)
        tasks = kernel.tasks(spec)
        compiled = pipe.compile(tasks, "nvptx")
        names, log = [], []
        for ct in compiled:
            if not ct.ok:
                raise RuntimeError(f"{ct.task}: {ct.error}")
            tag = f"{ct.load_hash}-{int(fast_math)}-{vector}"
            self.be.modules.load(ct.spec, ct.output, tag, unit=f"{ct.task}-{tag}")
            names.append(ct.task)
            log += [line for line in list(ct.module.log if ct.module else []) + list(ct.log)
                    if "libdevice:" not in line]
        prep = self.be.prepare(args, trip_counts(tasks, args))
        for t in names:  # one checked run from the given inputs
            self.be.launch(t, prep)
        out = {k: np.empty_like(v) for k, v in args.items() if isinstance(v, np.ndarray)}
        self.be.fetch(prep, out)
        if check:
            check(out)
        for _ in range(WARMUP):
            for t in names:
                self.be.launch(t, prep)
        self.be.finish(prep)
        reps = [[self.be.launch(t, prep) for t in names] for _ in range(REPS)]
        self.be.finish(prep)
        self.be.memory.free_all()
        return [sum(x.ms for x in rep) for rep in reps], out, log


# ---- peers --------------------------------------------------------------------------------



def torch_peers(case, data, compile_too):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 matmul means fp32 (cuBLAS SGEMM)
    d = {k: torch.from_numpy(v).cuda() if isinstance(v, np.ndarray) else v for k, v in data.items()}
    ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    el = lambda a, b: a.elapsed_time(b)  # noqa: E731
    fns = {}
    if case == "stencil":
        u, out = d["u"], d["out"]

        def f():
            out[1:-1, 1:-1] = 0.2 * (u[1:-1, 1:-1] + u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        fns["torch"] = f
    elif case == "wave":
        x, y = d["x"], d["y"]

        def f():
            torch.mul(torch.sin(x), torch.exp(-x * x), out=y)
        fns["torch"] = f
    elif case == "total":
        x = d["x"]
        fns["torch"] = lambda: x.sum()
    elif case in ("transpose", "transpose_tiled"):
        a, b = d["a"], d["b"]
        fns["torch"] = lambda: b.copy_(a.t())
    elif case in MATMULS:
        a, b, c = d["a"], d["b"], d["c"]
        fns["torch"] = lambda: torch.mm(a, b, out=c)
    elif case == "particles":
        pos, vel, stats, dt = d["pos"], d["vel"], d["stats"], d["dt"]

        def f():
            vy = vel[:, 1] - 9.8 * dt
            vx = vel[:, 0]
            px = pos[:, 0] + vx * dt
            py = pos[:, 1] + vy * dt
            low = py < 0
            py = torch.where(low, -py, py)
            vy = torch.where(low, -vy * 0.9, vy)
            pos[:, 0] = px
            pos[:, 1] = py
            vel[:, 1] = vy
            stats[0] += (0.5 * (vx * vx + vy * vy)).sum()
            stats[1] = torch.maximum(stats[1], py.max())
        fns["torch"] = f
    elif case in ("histogram", "histogram_shared"):
        x = d["x"]
        fns["torch"] = lambda: torch.bincount(x, minlength=256)
    res = {"torch": event_timed(fns["torch"], torch.cuda.synchronize, ev, el)}
    if compile_too and case not in MATMULS:
        try:
            g = torch.compile(fns["torch"])
            t0 = time.perf_counter()
            for _ in range(3):
                g()
            torch.cuda.synchronize()
            res["torch_compile_s"] = round(time.perf_counter() - t0, 1)
            res["torch_compile"] = event_timed(g, torch.cuda.synchronize, ev, el)
            if case == "wave":  # the accuracy of what was timed, beside ours (same inputs, same measure)
                g()
                torch.cuda.synchronize()
                res["torch_compile_wave_error"] = wave_error(data["x"], d["y"].cpu().numpy())
        except Exception as e:  # noqa: BLE001 - report, don't lose the other figures
            res["torch_compile_error"] = f"{type(e).__name__}: {e}"[:300]
    del d
    torch.cuda.empty_cache()
    return res


def cupy_peers(case, data):
    import cupy as cp
    d = {k: cp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in data.items()}
    el = cp.cuda.get_elapsed_time
    sync = cp.cuda.Stream.null.synchronize
    fns = {}
    if case == "stencil":
        u, out = d["u"], d["out"]

        def f():
            out[1:-1, 1:-1] = 0.2 * (u[1:-1, 1:-1] + u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        fns["cupy"] = f
    elif case == "wave":
        x, y = d["x"], d["y"]
        k = cp.ElementwiseKernel("float32 x", "float32 y", "y = sinf(x) * expf(-x * x)", "qdx_wave")
        kf = cp.ElementwiseKernel("float32 x", "float32 y", "y = __sinf(x) * __expf(-x * x)", "qdx_wave_fast")
        fns["cupy"] = lambda: k(x, y)
        fns["cupy_fast_intrinsics"] = lambda: kf(x, y)
    elif case == "total":
        fns["cupy"] = lambda: d["x"].sum()
    elif case in ("transpose", "transpose_tiled"):
        a, b = d["a"], d["b"]
        fns["cupy"] = lambda: cp.copyto(b, a.T)
    elif case in MATMULS:
        a, b, c = d["a"], d["b"], d["c"]
        fns["cupy"] = lambda: cp.matmul(a, b, out=c)
    elif case in ("histogram", "histogram_shared"):
        fns["cupy"] = lambda: cp.bincount(d["x"], minlength=256)
    res = {k: event_timed(f, sync, cp.cuda.Event, el) for k, f in fns.items()}
    del d
    cp.get_default_memory_pool().free_all_blocks()
    return res


def quadrants_child(cases):
    """Run in a process of its own: Quadrants owns its CUDA context and runtime."""
    try:
        import quadrants as qd
    except ImportError as e:
        print(json.dumps({"error": f"quadrants is not importable: {e}"}))
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from suite_kernels import define
    qd.init(arch=qd.cuda, offline_cache=False)
    ks = define(qd)
    out = {}
    for case in cases:
        data = inputs(case)
        try:
            arrs = {}
            for k, v in data.items():
                if isinstance(v, np.ndarray):
                    a = qd.ndarray(dtype={np.float32: qd.f32, np.int32: qd.i32}[v.dtype.type], shape=v.shape)
                    a.from_numpy(v)
                    arrs[k] = a
                else:
                    arrs[k] = v
            kernel = ks[case]
            args = [arrs[n] for n in _arg_names(case)]
            for _ in range(WARMUP):
                kernel(*args)
            qd.sync()
            ms = []
            for _ in range(REPS):
                t0 = time.perf_counter()
                kernel(*args)
                qd.sync()
                ms.append((time.perf_counter() - t0) * 1e3)
            out[case] = ms
        except Exception as e:  # noqa: BLE001
            out[case] = f"{type(e).__name__}: {str(e)[-400:]}"
    print(json.dumps(out))


def _arg_names(case):
    return {"stencil": ["u", "out"], "wave": ["x", "y"], "total": ["x", "out"], "transpose": ["a", "b"],
            "transpose_tiled": ["a", "b"], "matmul_tiled": ["a", "b", "c"], "matmul_blocked": ["a", "b", "c"],
            "particles": ["pos", "vel", "stats", "dt"], "histogram": ["x", "bins"],
            "histogram_shared": ["x", "bins", "nthreads"]}[case]


# ---- inputs and NumPy checks ---------------------------------------------------------------

def inputs(case):
    rng = np.random.default_rng(0)
    if case == "stencil":
        u = rng.standard_normal((N2D, N2D), dtype=np.float32)
        return dict(u=u, out=np.zeros_like(u))
    if case == "wave":
        return dict(x=rng.uniform(-4, 4, N_WAVE).astype(np.float32), y=np.zeros(N_WAVE, np.float32))
    if case == "total":
        return dict(x=rng.uniform(-1, 1, N_SUM).astype(np.float32), out=np.zeros(1, np.float32))
    if case in ("transpose", "transpose_tiled"):
        a = rng.standard_normal((N2D, N2D), dtype=np.float32)
        return dict(a=a, b=np.zeros_like(a))
    if case in MATMULS:
        return dict(a=rng.standard_normal((N_MM, N_MM), dtype=np.float32),
                    b=rng.standard_normal((N_MM, N_MM), dtype=np.float32), c=np.zeros((N_MM, N_MM), np.float32))
    if case == "particles":
        return dict(pos=rng.uniform(0, 1, (N_PART, 2)).astype(np.float32),
                    vel=rng.standard_normal((N_PART, 2), dtype=np.float32),
                    stats=np.array([0.0, -1e30], np.float32), dt=0.01)
    if case == "histogram":
        return dict(x=rng.integers(0, 256, N_HIST).astype(np.int32), bins=np.zeros(256, np.int32))
    if case == "histogram_shared":
        return dict(inputs("histogram"), nthreads=HIST_THREADS)
    raise KeyError(case)


def wave_rounds(q, ks, rounds):
    """Accurate sin·exp, qdexplorer and torch.compile alternating round by round (REPS launches each):
    their times drift with the GPU's clocks over seconds, so figures taken minutes apart vary by a few
    percent; the ratio of all samples' medians, and the per-round ratios' spread."""
    import torch
    data = inputs("wave")
    x = torch.from_numpy(data["x"]).cuda()
    y = torch.empty_like(x)
    g = torch.compile(lambda: torch.mul(torch.sin(x), torch.exp(-x * x), out=y))
    for _ in range(3):
        g()
    ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    ours, theirs, per_round = [], [], []
    for _ in range(rounds):
        ms, _, _ = q.run(ks["wave"], data, fast_math=False)
        tc = event_timed(g, torch.cuda.synchronize, ev, lambda a, b: a.elapsed_time(b))
        ours += ms
        theirs += tc
        per_round.append(float(np.median(ms) / np.median(tc)))
    return {"qdexplorer_median_ms": float(np.median(ours)), "torch_compile_median_ms": float(np.median(theirs)),
            "ratio": round(float(np.median(ours) / np.median(theirs)), 3),
            "per_round_ratio": [round(r, 3) for r in per_round], "rounds": rounds}


def wave_error(x, y):
    """Max error of a sin(x)·exp(-x²) output against float64 NumPy: in ulp of the float32 result (the
    spacing at the true value) and absolute."""
    x = x.astype(np.float64)
    ref = np.sin(x) * np.exp(-x * x)
    ulp = np.abs(y - ref) / np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    return {"max_ulp": round(float(ulp.max()), 3), "p99.99_ulp": round(float(np.quantile(ulp, 0.9999)), 3),
            "max_abs": float(np.abs(y - ref).max())}


def checker(case, data):
    def close(a, b, rtol, atol=0.0):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)

    if case == "stencil":
        u = data["u"]
        ref = 0.2 * (u[1:-1, 1:-1] + u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        return lambda o: close(o["out"][1:-1, 1:-1], ref, 1e-5, 1e-6)
    if case == "wave":
        x = data["x"].astype(np.float64)
        return lambda o: close(o["y"], np.sin(x) * np.exp(-x * x), 0, 2e-6)
    if case == "total":
        x = data["x"].astype(np.float64)
        return lambda o: close(o["out"][0], x.sum(), 0, 1e-6 * np.abs(x).sum())
    if case in ("transpose", "transpose_tiled"):
        return lambda o: np.testing.assert_array_equal(o["b"], data["a"].T)
    if case in MATMULS:
        ref = data["a"].astype(np.float64) @ data["b"].astype(np.float64)
        return lambda o: close(o["c"], ref, 1e-3, 1e-3)
    if case == "particles":
        pos, vel = data["pos"], data["vel"]
        vy = vel[:, 1] - np.float32(9.8 * 0.01)
        py = pos[:, 1] + vy * np.float32(0.01)
        vy = np.where(py < 0, -vy * np.float32(0.9), vy)
        py = np.abs(py)
        e = (0.5 * (vel[:, 0].astype(np.float64) ** 2 + vy.astype(np.float64) ** 2)).sum()
        return lambda o: (close(o["pos"][:, 1], py, 1e-5, 1e-6), close(o["stats"][0], e, 1e-5),
                          close(o["stats"][1], py.max(), 1e-6))
    if case in ("histogram", "histogram_shared"):
        return lambda o: np.testing.assert_array_equal(o["bins"], np.bincount(data["x"], minlength=256))
    raise KeyError(case)


def accuracy(q, ks):
    """Max error of qdexplorer's f32 sin and exp, fast math on and off, against float64 NumPy."""
    x = np.concatenate([np.linspace(-100, 100, 1 << 22, dtype=np.float32),
                        np.random.default_rng(1).uniform(-np.pi, np.pi, 1 << 20).astype(np.float32)])
    ref_s = np.sin(x.astype(np.float64))
    ref_e = np.exp(x.astype(np.float64) * 0.25)  # exp over [-25, 25]
    res = {}
    for fast in (True, False):
        _, o, _ = q.run(ks["accuracy"], dict(x=x, s=np.zeros_like(x), e=np.zeros_like(x)), fast_math=fast)
        ulp_s = np.abs(o["s"] - ref_s) / np.spacing(np.abs(ref_s).astype(np.float32))
        ulp_e = np.abs(o["e"] - ref_e) / np.spacing(ref_e.astype(np.float32))
        small = np.abs(x) <= np.pi
        res["fast_math_on" if fast else "fast_math_off"] = {
            "sin_max_abs_err_[-100,100]": float(np.abs(o["s"] - ref_s).max()),
            "sin_max_ulp_[-pi,pi]": float(ulp_s[small].max()),
            "sin_max_ulp_[-100,100]_where_|sin|>=2^-6": float(ulp_s[np.abs(ref_s) >= 2 ** -6].max()),
            "exp_max_ulp_[-25,25]": float(ulp_e.max())}
    return res


# ---- main ---------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=",".join(CASES))
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile (slow first compile)")
    ap.add_argument("--compile-only", default=None, help="torch.compile only these cases (comma-separated)")
    ap.add_argument("--no-quadrants", action="store_true")
    ap.add_argument("--quadrants-child", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.quadrants_child:
        return quadrants_child(a.quadrants_child.split(","))
    cases = [c for c in a.only.split(",") if c]
    compiled = lambda case: not a.no_compile and (a.compile_only is None or case in a.compile_only.split(","))  # noqa: E731
    from qdexplorer.runtime.cuda.detect import cuda_status
    st = cuda_status()
    if not st.available:
        emit({"benchmark": "kernel_suite", "skipped": f"CUDA unavailable: {st.reason}"})
        return
    import qdexplorer.lang as qdl
    from suite_kernels import define
    ks = define(qdl)
    q = Qdx(st.arch)
    quad = {}
    if not a.no_quadrants:
        try:  # $QDX_QUADRANTS_SITE: a folder holding quadrants for the child alone (wheels carried)
            path = [os.environ.get("QDX_QUADRANTS_SITE", ""), ROOT, os.environ.get("PYTHONPATH", "")]
            p = subprocess.run([sys.executable, __file__, "--quadrants-child", ",".join(cases)],
                               capture_output=True, text=True, timeout=600,
                               env=dict(os.environ, PYTHONPATH=os.pathsep.join(x for x in path if x)))
            quad = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else \
                {"error": p.stderr[-600:]}
        except Exception as e:  # noqa: BLE001
            quad = {"error": f"{type(e).__name__}: {e}"}
    rows = []
    for case in cases:
        data = inputs(case)
        row = {"case": case}
        variants = [("qdexplorer", True, 4)]
        if case == "wave":  # accurate: libdevice sinf (its slow path out of line) and expf; A/B: inlined,
            # and one index per thread (the grid not capped at 2 waves of resident blocks, as Triton launches)
            variants += [("qdexplorer_fast_math_off", False, 4), ("qdexplorer_fast_math_off_inline_slow_path", False, 4),
                         ("qdexplorer_fast_math_off_uncapped_grid", False, 4),
                         ("qdexplorer_fast_math_off_uncoarsened", False, 4)]   # before issue 40: 1 index a step
        if case in ("stencil", "transpose", "particles", "total", "histogram"):  # 1 index per thread per step
            variants.append(("qdexplorer_v1", True, 1))
        for name, fast, vector in variants:
            from qdexplorer.codegen import math_lowering, schedule
            outlined = math_lowering.OUTLINED
            if name.endswith("_uncoarsened"):
                schedule.HEAVY_MATH_COARSENING = False
            if name.endswith("_inline_slow_path"):  # the code before the outlining, for the A/B
                math_lowering.OUTLINED = set()
            cap = q.be.ctx.saturating_grid
            if name.endswith("_uncapped_grid"):
                q.be.ctx.saturating_grid = 1 << 30
            try:
                ms, out, log = q.run(ks[case], data, fast_math=fast, check=checker(case, data), vector=vector)
                row[name] = summary(ms)
                if case == "wave":
                    row[name + "_error"] = wave_error(data["x"], out["y"])
                row[name + "_log"] = sorted(set(log))
            except Exception as e:  # noqa: BLE001
                row[name] = f"{type(e).__name__}: {e}"[:400]
            finally:
                math_lowering.OUTLINED = outlined
                schedule.HEAVY_MATH_COARSENING = True
                q.be.ctx.saturating_grid = cap
        peers = {}
        try:
            peers.update(torch_peers(case, inputs(case), compiled(case)))
        except ImportError as e:
            row["torch"] = f"unavailable: {e}"
        try:
            peers.update(cupy_peers(case, inputs(case)))
        except ImportError as e:
            row["cupy"] = f"unavailable: {e}"
        for k, v in peers.items():
            row[k] = summary(v) if isinstance(v, list) else v
        qv = quad.get(case)
        if qv is not None:
            row["quadrants_1.3.3"] = summary(qv) if isinstance(qv, list) else qv
        med = lambda k: row[k]["median_ms"] if isinstance(row.get(k), dict) else None  # noqa: E731
        ours = med("qdexplorer")
        ratios = {}
        if med("qdexplorer_v1") and ours:
            ratios["v1_over_v4"] = round(med("qdexplorer_v1") / ours, 3)
        for k in ("torch", "torch_compile", "cupy", "cupy_fast_intrinsics", "quadrants_1.3.3"):
            if ours and med(k):
                ratios[k] = round(ours / med(k), 3)  # < 1: qdexplorer is faster
        if case == "wave" and compiled(case):
            try:
                row["fast_math_off_vs_torch_compile_interleaved"] = wave_rounds(q, ks, 5)
            except Exception as e:  # noqa: BLE001
                row["fast_math_off_vs_torch_compile_interleaved"] = f"{type(e).__name__}: {e}"[:400]
        for k in ("qdexplorer_fast_math_off", "qdexplorer_fast_math_off_inline_slow_path",
                  "qdexplorer_fast_math_off_uncapped_grid", "qdexplorer_fast_math_off_uncoarsened"):
            if case == "wave" and med(k) and med("torch_compile"):
                ratios[k[len("qdexplorer_"):] + "_vs_torch_compile"] = round(med(k) / med("torch_compile"), 3)
        if case in MATMULS and ours and med("torch"):
            ratios["fraction_of_cublas"] = round(med("torch") / ours, 3)
            row["qdexplorer_tflops"] = round(2 * N_MM ** 3 / (ours * 1e-3) / 1e12, 2)
        row["qdexplorer_time_over_peer"] = ratios
        rows.append(row)
        print(json.dumps({"case": case, "qdexplorer": ours, "ratios": ratios}), file=sys.stderr, flush=True)
    acc = accuracy(q, ks) if "wave" in cases else {}
    if "error" in quad:
        rows.append({"quadrants": quad})
    emit({"benchmark": "kernel_suite", "reps": REPS, "warmup": WARMUP, "rows": rows, "math_accuracy": acc})


if __name__ == "__main__":
    main()
