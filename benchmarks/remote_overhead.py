"""What the Ray device costs against the local device worker, measured through the Engine API.

Both sides run the same `LocalDevice` loop; what differs is how a run gets there and back (a
worker process over a pipe and shared memory, or a Ray actor over the object store and `poll`
calls), so the launches themselves should time the same and only the per-run costs differ:

- `connect_s`: joining the cluster (`local` starts one), once per process;
- `start_latency_ms`: from `Engine.run()` to the first timing batch (what a user sees between
  pressing Run and the first plotted point): `cold` with the device not started yet (a worker
  process spawned, or an actor placed and started), `warm` with it up and the task loaded;
- `ray` is the Ray device as it runs by default (requests over the actor's direct socket),
  `ray_actor_calls` the same over Ray actor calls only (QDEXPLORER_RAY_DIRECT=0);
- `per_launch_us` / `per_run_ms`: the host wall time of runs of an almost empty task at two repeat
  counts; the slope is what each further launch costs, the intercept what each run costs;
- `transfer_ms_per_mb`: the slope of a one-launch run's wall time over its array size (1 to 64 MB:
  the arrays go to the device and, at the checkpoint, back);
- `task_median_ms`: the per-launch device times of the demo's saxpy, stencil and reduction
  workloads (CUDA-event time; on the CPU backend each launch's CPU time), local and Ray
  alternating round by round, and their ratio (Ray / local).

On CUDA the two Ray sides are up at once, each asking Ray for half a GPU (QDEXPLORER_RAY_GPU_SHARE=0.5,
unless set), so the benchmark runs on a one-GPU machine: every side launches on the same GPU.

Usage: python benchmarks/remote_overhead.py [--cluster local|auto|ray://HOST:10001] [--backend cuda]
"""
import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import emit

PROBE = """
import numpy as np
import qdexplorer.lang as qd

@qd.kernel
def bump(x: qd.types.ndarray(dtype=qd.f32, ndim=1), n: qd.i32):
    for i in range(n):
        x[i] = x[i] + 1.0

@qd.workload(bump)
def tiny(rng):
    return dict(x=np.zeros(1024, np.float32), n=1)
"""
SIZES_MB = (1, 4, 16, 64)
DEMO = {"cuda": ["saxpy_1m", "jacobi_512", "block_sum_1m"], "cpu": ["saxpy_1m", "jacobi_512", "atomic_sum_256k"]}


def probe_project() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="qdx-remote-"))
    src = PROBE + "".join(f"""
@qd.workload(bump)
def mb{mb}(rng):
    return dict(x=np.zeros({mb} * 262144, np.float32), n=1)
""" for mb in SIZES_MB)
    (folder / "k.py").write_text(src)
    return folder


def first_timing_ms(eng, workload: str, repeat: int = 1) -> tuple[float, float]:
    """(ms from run() to the first timing batch, ms of the whole run)."""
    from qdexplorer.events import LaunchesTimed
    seen = []
    stop = eng.subscribe(lambda e: seen.append(time.perf_counter()) if isinstance(e, LaunchesTimed) and not seen
                         else None)
    t0 = time.perf_counter()
    (res,) = eng.run([workload], repeat=repeat)
    t1 = time.perf_counter()
    stop()
    assert res.status == "passed", (workload, res.status, res.error or res.check_error)
    return (seen[0] - t0) * 1e3, (t1 - t0) * 1e3


def fit(xs, ys) -> tuple[float, float]:
    """Least-squares slope and intercept."""
    slope, icept = np.polyfit(np.asarray(xs, float), np.asarray(ys, float), 1)
    return float(slope), float(icept)


def measure_sides(engines: dict, reps: int, env: dict | None = None) -> dict:
    """Each figure of every side, the sides alternating sample by sample (this machine's load moves
    by the second: measured one side after the other, the ratio was mostly the load). `env`: the
    environment variables a side's device is started with (read when it opens)."""
    names = list(engines)
    for eng in engines.values():
        eng.compile()                   # compile time is not what is measured
    out: dict = {n: {"warm": [], "counts": [], "walls": [], "sizes": [], "mb_walls": []} for n in names}
    cold = {}
    for n in names:  # each device's first start
        saved = {k: os.environ.get(k) for k in (env or {}).get(n, {})}
        os.environ.update((env or {}).get(n, {}))
        try:
            cold[n] = first_timing_ms(engines[n], "tiny")[0]
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def each(fn):
        for r in range(reps):
            for n in names[r % len(names):] + names[:r % len(names)]:
                fn(n, engines[n])
    each(lambda n, e: out[n]["warm"].append(first_timing_ms(e, "tiny")))
    for count in (100, 1000):
        def one(n, e, count=count):
            out[n]["counts"].append(count)
            out[n]["walls"].append(first_timing_ms(e, "tiny", repeat=count)[1])
        each(one)
    for mb in SIZES_MB:
        def size(n, e, mb=mb):
            first_timing_ms(e, f"mb{mb}")  # a first run of each size loads nothing new, but allocates
            out[n]["sizes"].append(mb)
            out[n]["mb_walls"].append(first_timing_ms(e, f"mb{mb}")[1])
        each(size)
    res = {}
    for n in names:
        o = out[n]
        per_launch, per_run = fit(o["counts"], o["walls"])
        per_mb, _ = fit(o["sizes"], o["mb_walls"])
        res[n] = {"start_latency_ms": {"cold": cold[n], "warm": statistics.median(w[0] for w in o["warm"])},
                  "warm_run_ms": statistics.median(w[1] for w in o["warm"]), "per_launch_us": per_launch * 1e3,
                  "per_run_ms": per_run, "transfer_ms_per_mb": per_mb, "device": engines[n].device_info()}
    return res


def task_medians(engines: dict, workloads: list[str], rounds: int, repeat: int) -> dict:
    """Per task: median launch time on each side, the sides alternating round by round."""
    from qdexplorer.events import LaunchesTimed
    times: dict[str, dict[str, list[float]]] = {}

    def keep(side):
        def on(ev):
            if isinstance(ev, LaunchesTimed):   # pass 0 (checked, caches cold) is not counted
                for t in ev.timings:   # CPU: the launch's CPU time, as bench compares (wall time there is
                    if t.repeat > 0:   # mostly the other processes on the machine); CUDA: event time
                        ms = t.cpu_ms if t.cpu_ms is not None else t.ms
                        times.setdefault(t.task, {}).setdefault(side, []).append(ms)
        return on
    for rnd in range(rounds):
        order = list(engines.items()) if rnd % 2 == 0 else list(engines.items())[::-1]
        for side, eng in order:
            stop = eng.subscribe(keep(side))
            res = eng.run(workloads, repeat=repeat + 1)
            stop()
            bad = [r for r in res if r.status not in ("passed", "skipped")]
            assert not bad, [(r.workload, r.error or r.check_error) for r in bad]
    out = {}
    for task, by in times.items():
        if len(by) == 2:
            med = {side: statistics.median(v) for side, v in by.items()}
            out[task] = med | {"ratio": med["ray"] / med["local"], "launches": len(by["ray"])}
    return out


def main():
    from qdexplorer.engine import Engine
    from qdexplorer.runtime.cuda.detect import cuda_status
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cluster", default="local", help="local (default), auto or ray://HOST:10001")
    ap.add_argument("--backend", choices=("cpu", "cuda"), help="default: cuda where a GPU is, else cpu")
    ap.add_argument("--gpu", type=int, default=0, help="CUDA: the GPU both sides run on (default 0)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions of each latency and overhead measurement")
    ap.add_argument("--rounds", type=int, default=6, help="local/Ray rounds for the demo's task times")
    ap.add_argument("--repeat", type=int, default=100, help="timed launches per task and round")
    a = ap.parse_args()
    backend = a.backend or ("cuda" if cuda_status().available else "cpu")
    if backend == "cuda":   # two device actors (direct and actor calls) are up at once: on a one-GPU
        os.environ.setdefault("QDEXPLORER_RAY_GPU_SHARE", "0.5")   # machine each asks for half of it
    cache = tempfile.mkdtemp(prefix="qdx-remote-cache-")
    probe = probe_project()
    where = {"cluster": a.cluster, "gpu": a.gpu if backend == "cuda" else None}
    from qdexplorer.remote import cluster
    t0 = time.perf_counter()
    cluster.connect(a.cluster)   # once per process: not part of a run's start
    connect_s = time.perf_counter() - t0
    with Engine(probe, backend=backend, cache_dir=cache) as local, \
            Engine(probe, backend=backend, cache_dir=cache, **where) as ray, \
            Engine(probe, backend=backend, cache_dir=cache, **where) as ray_calls:
        # ray: requests over the actor's direct socket (the default); ray_actor_calls: over Ray
        # actor calls alone (QDEXPLORER_RAY_DIRECT=0, what a node this machine cannot reach gets)
        sides = measure_sides({"local": local, "ray": ray, "ray_actor_calls": ray_calls}, a.reps,
                              env={"ray_actor_calls": {"QDEXPLORER_RAY_DIRECT": "0"}})
        sides["ray"]["direct"] = ray.device_info()["direct_connection"]
        sides["ray_actor_calls"]["direct"] = ray_calls._the_device().transport.conn is not None
    with Engine(None, backend=backend, cache_dir=cache) as local, \
            Engine(None, backend=backend, cache_dir=cache, **where) as ray:
        tasks = task_medians({"local": local, "ray": ray}, DEMO[backend], a.rounds, a.repeat)
    over = {"warm_run_ms": sides["ray"]["warm_run_ms"] - sides["local"]["warm_run_ms"],
            "per_run_ms": sides["ray"]["per_run_ms"] - sides["local"]["per_run_ms"],
            "cold_start_ratio": sides["ray"]["start_latency_ms"]["cold"] / sides["local"]["start_latency_ms"]["cold"]}
    calls = sides["ray_actor_calls"]
    over_calls = {"warm_run_ms": calls["warm_run_ms"] - sides["local"]["warm_run_ms"],
                  "per_run_ms": calls["per_run_ms"] - sides["local"]["per_run_ms"]}
    emit({"backend": backend, "cluster": a.cluster, "connect_s": connect_s,
          "gpu_share": os.environ.get("QDEXPLORER_RAY_GPU_SHARE") if backend == "cuda" else None, "local": sides["local"],
          "ray": sides["ray"], "ray_actor_calls": calls, "ray_over_local": over,
          "ray_actor_calls_over_local": over_calls, "goal": {"per_run_ms_over": 1.0, "cold_start_ratio": 2.0},
          "task_median_ms": tasks,
          "max_task_ratio_deviation": max(abs(t["ratio"] - 1) for t in tasks.values()) if tasks else None})


if __name__ == "__main__":
    main()
