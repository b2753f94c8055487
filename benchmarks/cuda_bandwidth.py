"""Bandwidth of saxpy and copy: qdexplorer vs CuPy ElementwiseKernel vs PyTorch vs cuMemcpyDtoD.

Each variant is timed with CUDA events on its own stream, median of REPS after WARMUP launches.
qdexplorer is measured with the launch path the app uses (CudaBackend.launch), with its default
codegen (4 indices per thread per grid-stride step) and with plain one-index grid-stride loops.
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
    be.modules.load(ct.spec, ct.output, f"{ct.load_hash}-{vector}", unit=f"{ct.task}-v{vector}")
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
    be.close()
    emit({"benchmark": "cuda_bandwidth", "reps": REPS, "rows": rows})


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
