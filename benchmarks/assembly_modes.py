"""The three assembly modes side by side: whole (one PTX module per kernel), per_task (B: one PTX
module per task behind the composite) and culink (A: per-task relocatable cubins from ptxas,
cuLinked into one module per kernel).

For the bundled demo and generated kernels of K = 8/32/128 tasks (benchmarks/warm_edit.py's
generator), per mode:
- compile, from an empty cache folder with the compile pool already running: cold, warm with
  nothing changed, warm after a one-task edit (the K kernels: one task's source; the demo: one
  task's LLVM IR, through an LLVM-IR override, since the bundled sources are not ours to edit);
- bytes on disk in the cache folder after the cold compile, per namespace; the total counts what
  assembly needs (sm_XX: PTX, sm_XX-cubin: cubins), not the compile index that `show` reads;
- on CUDA only (else null), each in a fresh process as an app start would be, with the driver's
  compute cache in a fresh folder (CUDA_CACHE_PATH), again warm in that folder, and off
  (CUDA_CACHE_DISABLE=1): module load of every task, first launch of each task (launch + sync),
  and once per mode: entry lookup (cuModuleGetFunction per task), steady host launch cost
  (untimed cuLaunchKernel, enqueue only), and kernel time per task (CUDA events, median).

Usage: python benchmarks/assembly_modes.py [--k 8 32 128] [--no-demo] [--workers N]
"""
import argparse
import json
import os
import pickle
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import ROOT, emit
from warm_edit import source

MODES = ("whole", "per_task", "culink")
STEADY_N = 200      # untimed launches per task for the host launch cost
RUNTIME_N = 10      # timed launches per task for the kernel time
K_ELEMS = 1 << 20   # array size for the generated kernels


def disk_bytes(folder: Path) -> dict:
    out: dict = {}
    for p in folder.rglob("*"):
        if p.is_file():
            ns = p.relative_to(folder).parts[0]
            out[ns] = out.get(ns, 0) + p.stat().st_size
    return out


def final_tiers(compiled) -> dict:
    """Cache tier of each compile unit's final artifact (a whole-module unit counts once)."""
    seen, tiers = set(), {}
    for ct in compiled:
        key = ct.unit if ct.final_kind != "cubin" else ct.task
        if key not in seen:
            seen.add(key)
            tiers[ct.tier] = tiers.get(ct.tier, 0) + 1
    return tiers


def compile_phases(proj: Path, mode: str, edit, workers, tmp: Path):
    from qdexplorer.engine import Engine
    cache = tmp / f"cache-{mode}"
    eng = Engine(proj, in_process=False, cache_dir=str(cache), mode=mode, workers=workers)
    try:
        t0 = time.perf_counter()
        eng.warm_up()
        out = {"pool_start_s": round(time.perf_counter() - t0, 4)}
        compiled = kts = None
        for phase in ("cold", "warm_unchanged", "warm_one_edit"):
            if phase == "warm_one_edit":
                edit(eng)
            t0 = time.perf_counter()
            eng.refresh()
            kts, compiled = eng.compile(target="nvptx")
            dt = time.perf_counter() - t0
            bad = [ct for ct in compiled if not ct.ok]
            if bad:
                out["error"] = f"{bad[0].task}: {bad[0].error}"[:400]
                return out, None, None
            out[phase] = {"seconds": round(dt, 4), "tiers": final_tiers(compiled)}
            if phase == "cold":
                out["disk_bytes"] = disk_bytes(cache)
                # what assembly needs: PTX and cubins (the compile index and its LLVM text are for `show`)
                out["disk_bytes_total"] = sum(v for ns, v in out["disk_bytes"].items() if ns.startswith("sm_"))
        return out, compiled, kts
    finally:
        eng.close()


def jobs_for(eng_project, kts, generated: bool):
    """What to launch: each workload's tasks with its arguments (the K kernels: x, y of K_ELEMS)."""
    from qdexplorer.lang.calls.bounds import trip_counts
    tasks = {kt.kernel: kt.tasks for kt in kts}
    if generated:
        rng = np.random.default_rng(0)
        args = {"x": rng.standard_normal(K_ELEMS).astype(np.float32),
                "y": rng.standard_normal(K_ELEMS).astype(np.float32)}
        return [("big", [t.name for t in tasks["big"]], args, trip_counts(tasks["big"], args))]
    jobs = []
    for wl in eng_project.workloads.values():
        ts = tasks.get(wl.kernel.name)
        if not ts:
            continue
        args = wl.make_args(0)
        jobs.append((wl.name, [t.name for t in ts], args, trip_counts(ts, args)))
    return jobs


# ---- the GPU side: one process per measurement, so the driver starts as an app would
def child(path: str, full: bool):
    from cuda.bindings import driver as cu
    from qdexplorer.runtime.device import LocalDevice
    with open(path, "rb") as fh:
        items, jobs = pickle.load(fh)
    dev = LocalDevice("cuda")
    be = dev.backend
    t0 = time.perf_counter()
    results = dev.load(items)
    out = {"load_ms": (time.perf_counter() - t0) * 1e3,
           "load_errors": [f"{r.task}: {r.error}"[:300] for r in results if not r.ok][:3],
           "modules": len(be.modules.composite.modules),
           "linked_bytes": sum(be.modules.linked_bytes.values()) or None}
    if out["load_errors"]:
        dev.close()
        print(json.dumps(out))
        return
    sync = lambda: cu.cuStreamSynchronize(be.ctx.stream)  # noqa: E731
    first, steady, runtime = {}, {}, {}
    for _name, tasks, args, trips in jobs:
        prep = be.prepare(args, trips)
        for t in tasks:
            if t in first:
                continue
            t0 = time.perf_counter()
            be.launch(t, prep, timed=False)
            sync()
            first[t] = (time.perf_counter() - t0) * 1e3
        if full:
            for t in tasks:
                be.launch(t, prep, timed=False)  # the hot path's params, resolved once
                sync()
                t0 = time.perf_counter()
                for _ in range(STEADY_N):
                    be.launch(t, prep, timed=False)
                steady[t] = (time.perf_counter() - t0) / STEADY_N * 1e6
                sync()
                timings = [be.launch(t, prep) for _ in range(RUNTIME_N)]
                be.finish(prep)
                runtime[t] = statistics.median(tm.ms for tm in timings)
        be.finish(prep)
    out["first_launch_ms_total"] = sum(first.values())
    out["first_launch_ms_median"] = statistics.median(first.values()) if first else None
    if full:
        comp = be.modules.composite
        names = [it.spec.task for it in items]
        comp._memo.clear()
        t0 = time.perf_counter()
        for n in names:
            comp.function(n)
        out["lookup_us_per_task"] = (time.perf_counter() - t0) / len(names) * 1e6
        out["steady_launch_us_median"] = statistics.median(steady.values()) if steady else None
        out["kernel_ms_total"] = sum(runtime.values())
        out["kernel_ms_per_task"] = runtime
    dev.close()
    print(json.dumps(out))


def gpu_phases(items, jobs, tmp: Path) -> dict:
    path = tmp / "gpu.pkl"
    with open(path, "wb") as fh:
        pickle.dump((items, jobs), fh)
    nvcache = tmp / "nvcache"
    shutil.rmtree(nvcache, ignore_errors=True)
    base = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    base.pop("CUDA_CACHE_DISABLE", None)
    conditions = [("driver_cache_fresh", dict(base, CUDA_CACHE_PATH=str(nvcache)), False),
                  ("driver_cache_warm", dict(base, CUDA_CACHE_PATH=str(nvcache)), True),
                  ("driver_cache_off", dict(base, CUDA_CACHE_DISABLE="1"), False)]
    out = {}
    for name, env, full in conditions:
        p = subprocess.run([sys.executable, __file__, "--child", str(path)] + (["--full"] if full else []),
                           env=env, capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            out[name] = {"error": (p.stderr or p.stdout).strip().splitlines()[-1:]}
            continue
        out[name] = json.loads(p.stdout.strip().splitlines()[-1])
    return out


def measure(label: str, proj: Path, edit, generated: bool, workers, gpu: bool) -> dict:
    row = {"project": label}
    for mode in MODES:
        tmp = Path(tempfile.mkdtemp(prefix=f"qdx-modes-{mode}-"))
        try:
            work = tmp / "p"
            shutil.copytree(proj, work, ignore=shutil.ignore_patterns(".qdexplorer", "__pycache__"))
            comp, compiled, kts = compile_phases(work, mode, edit, workers, tmp)
            cell = {"compile": comp, "gpu": None}
            if gpu and compiled is not None:
                from qdexplorer.project.loader import load_project
                from qdexplorer.runtime.device_api import LoadItem
                items = [LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit, ct.final_kind) for ct in compiled]
                cell["gpu"] = gpu_phases(items, jobs_for(load_project(work, reload=True), kts, generated), tmp)
            row[mode] = cell
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return row


def edit_source(k):
    def edit(eng):
        (eng.project.path / "big.py").write_text(source(k, edited=k // 2))
    return edit


def edit_one_ll(eng):
    """One task's LLVM IR changes (a float constant's last bit): its PTX and cubin must be rebuilt."""
    for ct in sorted(eng.session.compiled.values(), key=lambda c: c.task):
        ll = ct.produced["ll"].data
        m = re.search(rb"0x[0-9a-f]{16}", ll) if ct.target == "nvptx" else None
        if m:
            c = m.group(0)  # a double's bits; an f32 constant's last mantissa bit is bit 29
            edited = ll.replace(c, b"0x%016x" % (int(c, 16) ^ (1 << 29)), 1)
            eng.set_override(ct.task, edited, kind="ll", target="nvptx")
            return
    raise RuntimeError("no task with a float constant to edit")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, nargs="*", default=[8, 32, 128])
    ap.add_argument("--no-demo", action="store_true")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--child")
    ap.add_argument("--full", action="store_true")
    a = ap.parse_args()
    if a.child:
        return child(a.child, a.full)
    from qdexplorer.compiler.ptxas import find_ptxas, ptxas_version
    from qdexplorer.project.loader import bundled_demo
    from qdexplorer.runtime.cuda.detect import cuda_status
    gpu = cuda_status().available
    rows = []
    if not a.no_demo:
        rows.append(measure("demo", bundled_demo(), edit_one_ll, False, a.workers, gpu))
    for k in a.k:
        tmp = Path(tempfile.mkdtemp(prefix="qdx-k-"))
        (tmp / "big.py").write_text(source(k))
        try:
            rows.append(measure(f"K={k}", tmp, edit_source(k), True, a.workers, gpu))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    exe = find_ptxas()
    emit({"benchmark": "assembly_modes", "modes": list(MODES), "gpu": gpu, "workers": a.workers or os.cpu_count(),
          "ptxas": {"path": str(exe) if exe else None, "version": ptxas_version(exe) if exe else None},
          "rows": rows})


if __name__ == "__main__":
    main()
