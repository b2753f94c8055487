"""Bandwidth of saxpy and copy: qdexplorer vs CuPy ElementwiseKernel vs PyTorch vs cuMemcpyDtoD, and
of every bandwidth-bound kernel (`--kernels`) as a fraction of the device-to-device copy of this run.

Each variant is timed with CUDA events on its own stream, median of REPS after WARMUP launches.
qdexplorer is measured with the launch path the app uses (CudaBackend.launch), with its default
codegen (4 indices per thread per grid-stride step) and with plain one-index grid-stride loops.

`kernels`: copy, saxpy, the 5-point stencil, the sum (a reduction), the tiled transpose and the three
kernels of the 1M-particle step (sim_programs.py's forces, integrate, bounce on arrays, n fixed as
there), each at vector 4 (the default) and 1, in bytes that must move (each input read once, each
output written once) per second, over the `cuMemcpyDtoD` rate of the largest size of the run (the
physical ceiling; the goal is >= 0.8). The particle kernels run at 2^20 (what the step runs; 12 MB,
inside L2) and 2^24 (from DRAM).
"""
import argparse

import numpy as np

from _common import emit, event_timed, summary

WARMUP, REPS = 5, 30


def ours(kernel, args, vector, be):
    from qdexplorer.compiler.cache import PtxCache
    from qdexplorer.compiler.pool import InlineCompiler
    from qdexplorer.compiler.pipeline import Pipeline
    from qdexplorer.lang.calls.bounds import trip_counts
    spec = kernel.spec_for(tuple(args[n] for n in kernel.arg_names))
    pipe = Pipeline(InlineCompiler(), PtxCache(offline=False), "sm_90", vector=vector)
    tasks = kernel.tasks(spec)
    (ct,) = pipe.compile(tasks, "nvptx")
    be.modules.load(ct.spec, ct.output, f"{ct.load_hash}-{vector}", unit=f"{ct.task}-{ct.load_hash[:12]}-v{vector}")
    prep = be.prepare(args, trip_counts(tasks, args))
    for _ in range(WARMUP):
        be.launch(ct.task, prep)
    be.finish(prep)
    timings = [be.launch(ct.task, prep) for _ in range(REPS)]
    be.finish(prep)
    out = {k: np.empty_like(v) for k, v in args.items() if isinstance(v, np.ndarray)}
    be.fetch(prep, out)
    be.memory.free_all()
    return [t.ms for t in timings], out




def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log2", type=int, nargs="+", default=[26, 27, 28])
    ap.add_argument("--kernels", action="store_true", help="every bandwidth-bound kernel against the copy rate")
    ap.add_argument("--explore", action="store_true", help="with --kernels: every vector width and grid shape")
    a = ap.parse_args()
    from cuda.bindings import driver as cu
    from qdexplorer.project.loader import load_project
    from qdexplorer.runtime.cuda.backend import CudaBackend
    demo = load_project(None)
    saxpy, copy = demo.kernels["saxpy"], demo.kernels["copy"]
    be = CudaBackend()
    rows = []
    for lg in a.log2:
        n = 1 << lg
        x = np.full(n, 1.5, np.float32)
        y = np.full(n, 0.25, np.float32)
        row = {"n": n, "log2": lg}
        for vec in (4, 8, 1):
            ms, out = ours(saxpy, {"x": x, "y": y, "a": 2.0}, vec, be)
            # every launch ran y = 2x + y again on the device: check the arithmetic once
            expect = 0.25 + (WARMUP + REPS) * 3.0
            assert np.allclose(out["y"][[0, n // 2, n - 1]], expect), out["y"][:4]
            row[f"qdexplorer_saxpy_v{vec}"] = _bw(ms, 12 * n)
            ms, out = ours(copy, {"src": x, "dst": np.zeros_like(x)}, vec, be)
            assert out["dst"][n - 1] == 1.5
            row[f"qdexplorer_copy_v{vec}"] = _bw(ms, 8 * n)
        dsrc = check(cu.cuMemAlloc(4 * n))
        ddst = check(cu.cuMemAlloc(4 * n))
        ev = [check(cu.cuEventCreate(0)) for _ in range(2)]
        ms = []
        for i in range(WARMUP + REPS):
            check(cu.cuEventRecord(ev[0], be.ctx.stream))
            check(cu.cuMemcpyDtoDAsync(ddst, dsrc, 4 * n, be.ctx.stream))
            check(cu.cuEventRecord(ev[1], be.ctx.stream))
            check(cu.cuEventSynchronize(ev[1]))
            if i >= WARMUP:
                ms.append(check(cu.cuEventElapsedTime(ev[0], ev[1])))
        row["cuMemcpyDtoD"] = _bw(ms, 8 * n)
        cu.cuMemFree(dsrc)
        cu.cuMemFree(ddst)
        try:
            import cupy as cp
            ker = cp.ElementwiseKernel("float32 x, float32 a", "float32 y", "y = a * x + y", "qdx_saxpy")
            cpy = cp.ElementwiseKernel("float32 x", "float32 y", "y = x", "qdx_copy")
            cx, cy = cp.asarray(x), cp.asarray(y)
            el = cp.cuda.get_elapsed_time
            row["cupy_saxpy"] = _bw(event_timed(lambda: ker(cx, np.float32(2.0), cy), cp.cuda.Stream.null.synchronize,
                                          cp.cuda.Event, el), 12 * n)
            row["cupy_copy"] = _bw(event_timed(lambda: cpy(cx, cy), cp.cuda.Stream.null.synchronize, cp.cuda.Event, el),
                                   8 * n)
            del cx, cy
            cp.get_default_memory_pool().free_all_blocks()
        except ImportError as e:
            row["cupy"] = f"unavailable: {e}"
        try:
            import torch
            tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
            ev_t = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
            el = lambda a, b: a.elapsed_time(b)  # noqa: E731
            row["torch_saxpy"] = _bw(event_timed(lambda: ty.add_(tx, alpha=2.0), torch.cuda.synchronize, ev_t, el), 12 * n)
            row["torch_copy"] = _bw(event_timed(lambda: ty.copy_(tx), torch.cuda.synchronize, ev_t, el), 8 * n)
            del tx, ty
            torch.cuda.empty_cache()
        except ImportError as e:
            row["torch"] = f"unavailable: {e}"
        peers = [row[k]["TBps"] for k in ("cupy_saxpy", "torch_saxpy") if isinstance(row.get(k), dict)]
        q = row["qdexplorer_saxpy_v4"]["TBps"]
        row["saxpy_vs_best_peer"] = round(q / max(peers), 3) if peers else None
        row["saxpy_vs_copy_bandwidth"] = round(q / row["cuMemcpyDtoD"]["TBps"], 3)
        row["copy_vs_copy_bandwidth"] = round(row["qdexplorer_copy_v4"]["TBps"] / row["cuMemcpyDtoD"]["TBps"], 3)
        rows.append(row)
    copy_tbps = rows[-1]["cuMemcpyDtoD"]["TBps"]
    kernels = kernel_table(be, copy_tbps, explore=a.explore) if a.kernels else None
    be.close()
    emit({"benchmark": "cuda_bandwidth", "reps": REPS, "rows": rows, "copy_TBps": copy_tbps, "kernels": kernels,
          "goal_of_copy": 0.8})


def step_kernels(qd, n):
    """sim_programs.py's particle step on ndarrays, with n a constant as there (its `% n` a mask)."""
    F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)

    @qd.func
    def spring(p: qd.f32, c: qd.f32) -> qd.f32:
        d = c - p
        return d * (1.0 / (1.0 + d * d))

    @qd.kernel
    def forces(x: F1, v: F1, f: F1, k: qd.f32):
        for i in range(n):
            left = x[(i + n - 1) % n]
            right = x[(i + 1) % n]
            f[i] = k * (spring(x[i], left) + spring(x[i], right)) - 0.01 * v[i]

    @qd.kernel
    def integrate(x: F1, v: F1, f: F1, dt: qd.f32):
        for i in range(n):
            v[i] += dt * f[i]
            x[i] += dt * v[i]

    @qd.kernel
    def bounce(x: F1, v: F1):
        for i in range(n):
            if x[i] > 3.0:
                x[i] = 6.0 - x[i]
                v[i] = -v[i]
            if x[i] < -3.0:
                x[i] = -6.0 - x[i]
                v[i] = -v[i]
    return forces, integrate, bounce


def copy_rate(be, nbytes) -> dict:
    """`cuMemcpyDtoD` moving `nbytes` in all (half read, half written): the physical ceiling at a
    kernel's own size, where a launch's fixed costs weigh as they weigh on the kernel (a 12 MB step
    kernel cannot reach the rate of a 1 GB copy, and neither can the copy of 12 MB)."""
    from cuda.bindings import driver as cu
    half = max(4, nbytes // 2)
    dsrc, ddst = check(cu.cuMemAlloc(half)), check(cu.cuMemAlloc(half))
    ev = [check(cu.cuEventCreate(0)) for _ in range(2)]
    ms = []
    for i in range(WARMUP + REPS):
        check(cu.cuEventRecord(ev[0], be.ctx.stream))
        check(cu.cuMemcpyDtoDAsync(ddst, dsrc, half, be.ctx.stream))
        check(cu.cuEventRecord(ev[1], be.ctx.stream))
        check(cu.cuEventSynchronize(ev[1]))
        if i >= WARMUP:
            ms.append(check(cu.cuEventElapsedTime(ev[0], ev[1])))
    cu.cuMemFree(dsrc)
    cu.cuMemFree(ddst)
    return _bw(ms, 2 * half)


def kernel_table(be, copy_tbps, vectors=(4, 1), explore=False):
    """Every bandwidth-bound kernel's TB/s (bytes that must move) and its fraction of the copy rate.
    Also each against the copy of its own byte count (`of_copy_same_size`). `explore`: every launch
    shape the code generator offers (vector 1/2/4/8, the grid capped at two waves of resident blocks
    or one index per thread), to find where the rate is lost."""
    import qdexplorer.lang as qd
    from qdexplorer.project.loader import load_project
    from suite_kernels import define
    ks, demo = define(qd), load_project(None)
    rng = np.random.default_rng(0)
    n1, side, big = 1 << 27, 8192, 1 << 26
    cases = [("copy", demo.kernels["copy"], lambda: {"src": rng.random(n1, dtype=np.float32),
                                                     "dst": np.zeros(n1, np.float32)}, 8 * n1),
             ("saxpy", demo.kernels["saxpy"], lambda: {"x": rng.random(n1, dtype=np.float32),
                                                       "y": rng.random(n1, dtype=np.float32), "a": 2.0}, 12 * n1),
             ("stencil_8192^2", ks["stencil"], lambda: {"u": rng.random((side, side), dtype=np.float32),
                                                        "out": np.zeros((side, side), np.float32)}, 8 * side * side),
             ("sum_2^26", ks["total"], lambda: {"x": rng.random(big, dtype=np.float32),
                                                "out": np.zeros(1, np.float32)}, 4 * big),
             ("transpose_tiled_8192^2", ks["transpose_tiled"], lambda: {"a": rng.random((side, side), dtype=np.float32),
                                                                        "b": np.zeros((side, side), np.float32)},
              8 * side * side)]
    for lg in (20, 24):
        n = 1 << lg
        fo, it, bo = step_kernels(qd, n)
        xs = lambda n=n: (np.sin(np.arange(n, dtype=np.float32) * np.float32(0.37)) * 2).astype(np.float32)  # noqa: E731
        cases += [(f"particle_forces_2^{lg}", fo, lambda n=n, xs=xs: {"x": xs(), "v": np.zeros(n, np.float32),
                                                                      "f": np.zeros(n, np.float32), "k": 2.0}, 12 * n),
                  (f"particle_integrate_2^{lg}", it, lambda n=n, xs=xs: {"x": xs(), "v": np.zeros(n, np.float32),
                                                                         "f": np.ones(n, np.float32), "dt": 0.01}, 20 * n),
                  # x in [-2, 2] never bounces: bounce reads x and writes nothing (4 bytes an element)
                  (f"particle_bounce_2^{lg}", bo, lambda n=n, xs=xs: {"x": xs(), "v": np.ones(n, np.float32)}, 4 * n)]
    out = {}
    shapes = [(v, cap) for v in ((1, 2, 4, 8) if explore else vectors) for cap in ((True, False) if explore else (True,))]
    for name, kernel, make, nbytes in cases:
        row = {"bytes": nbytes}
        same = copy_rate(be, nbytes)
        row["copy_same_size_TBps"] = same["TBps"]
        for vec, capped in shapes:
            key = f"v{vec}" + ("" if capped else "_uncapped")
            saved = be.ctx.saturating_grid
            if not capped:
                be.ctx.saturating_grid = 1 << 30
            try:
                args = make()
                ms, res = ours(kernel, args, vec, be)
                if name.startswith("stencil"):
                    stencil_check(args["u"], res["out"])
                bw = _bw(ms, nbytes)
                row[key] = bw | {"of_copy": round(bw["TBps"] / copy_tbps, 3),
                                 "of_copy_same_size": round(bw["TBps"] / same["TBps"], 3)}
            except Exception as e:  # noqa: BLE001 - report, keep the other kernels
                row[key] = f"{type(e).__name__}: {e}"[:300]
            finally:
                be.ctx.saturating_grid = saved
        if name.startswith("stencil"):   # A/B: its rows always in the guarded form (schedule.STACKED_STRAIGHT)
            from qdexplorer.codegen import schedule
            schedule.STACKED_STRAIGHT = False
            try:
                args = make()
                ms, res = ours(kernel, args, 4, be)
                stencil_check(args["u"], res["out"])
                bw = _bw(ms, nbytes)
                row["v4_guarded"] = bw | {"of_copy": round(bw["TBps"] / copy_tbps, 3),
                                          "of_copy_same_size": round(bw["TBps"] / same["TBps"], 3)}
            finally:
                schedule.STACKED_STRAIGHT = True
        best = [row[k]["of_copy"] for k in row if isinstance(row[k], dict)]
        row["best_of_copy"] = max(best) if best else None
        same_best = [row[k]["of_copy_same_size"] for k in row if isinstance(row[k], dict)]
        row["best_of_copy_same_size"] = max(same_best) if same_best else None
        out[name] = row
    return out


def stencil_check(u, out):
    """The 5-point stencil's interior, against NumPy (a wrong answer is no bandwidth figure)."""
    want = np.float32(0.2) * ((((u[1:-1, 1:-1] + u[:-2, 1:-1]) + u[2:, 1:-1]) + u[1:-1, :-2]) + u[1:-1, 2:])
    np.testing.assert_allclose(out[1:-1, 1:-1], want, rtol=2e-6, atol=1e-7)


def check(res):
    err, *rest = res
    if int(err) != 0:
        raise RuntimeError(str(err))
    return rest[0] if rest else None


def _bw(ms, nbytes):
    s = summary(ms)
    s["TBps"] = round(nbytes / (s["median_ms"] * 1e-3) / 1e12, 3)
    return s


if __name__ == "__main__":
    main()
