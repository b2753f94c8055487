"""Does the clock warning fire when it should, and only then? One JSON document, under a minute.

Issue 20's false alarm compared an idle clock before a run with a busy one after it, so it fired
on every GPU run. This check makes two real `bench` runs on CUDA of a kernel long enough (about a
millisecond a launch) for NVML to see the GPU busy while launches are timed:

- `normal`: after the GPU has been left idle for a few seconds (its clock drops to idle), a plain
  run: it must give no warning;
- `competing`: the same run, with a competing GPU load (PyTorch, else CuPy, else a second
  qdexplorer engine: fp16 matmuls, or the same kernel, in a loop) started in another process
  halfway through the rounds: it must warn (the busy SM clock moved, another process started using
  the GPU, or both).

`ok` is true when the normal run was sampled busy and gave no warning and the competing run
warned. Needs CUDA and NVML; `--out DIR` also writes clock_warning_check.json there.

    python benchmarks/clock_warning_check.py [--out DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from _common import ROOT, machine

SOURCE = """
import numpy as np
import qdexplorer.lang as qd


@qd.kernel
def spin(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        acc = x[i]
        for j in range({steps}):
            acc = acc * 0.9999 + 0.0001
        x[i] = acc


@qd.workload(spin)
def spin_1m(rng):
    return dict(x=rng.standard_normal(1 << 20, dtype=np.float32))
"""

# the competing load: waits for "go" on stdin, then loops on the GPU until stdin closes; says "busy"
# once its first batch of work has finished (its CUDA context exists and the GPU is loaded)
COMPETITOR = r"""
import sys, threading
kind, project = sys.argv[1], sys.argv[2]
done = threading.Event()
if kind == "torch":
    import torch
elif kind == "cupy":
    import cupy
else:
    from qdexplorer.engine import Engine
    eng = Engine(project, backend=sys.argv[3])
    eng.compile()
sys.stdin.readline()
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
first = True
if kind == "torch":
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    while not done.is_set():
        for _ in range(10):
            b = a @ a
        torch.cuda.synchronize()
        if first:
            print("busy", flush=True); first = False
elif kind == "cupy":
    a = cupy.random.standard_normal((8192, 8192), dtype=cupy.float32).astype(cupy.float16)
    while not done.is_set():
        for _ in range(10):
            b = a @ a
        cupy.cuda.Device().synchronize()
        if first:
            print("busy", flush=True); first = False
else:
    while not done.is_set():
        eng.run(["spin_1m"], repeat=5)
        if first:
            print("busy", flush=True); first = False
"""


def _competitor_kind() -> str:
    for mod in ("torch", "cupy"):
        p = subprocess.run([sys.executable, "-c", f"import {mod}; assert {mod}.cuda.is_available()" if mod == "torch"
                            else f"import {mod}; {mod}.cuda.runtime.getDeviceCount()"], capture_output=True,
                           timeout=60)
        if p.returncode == 0:
            return mod
    return "qdexplorer"


def _run(eng, rounds, repeat, on_round=None):
    from qdexplorer.bench.runner import bench
    t0 = time.perf_counter()
    run = bench(eng, ["spin_1m"], repeat=repeat, rounds=rounds, on_round=on_round)
    c = run.context.clocks_mhz
    return {"status": run.status, "message": run.message, "clocks_mhz": c,
            "busy_samples": c.get("busy_samples", 0), "seconds": round(time.perf_counter() - t0, 2),
            "median_ms": round(float(sorted(ln.ms for ln in run.launches)[len(run.launches) // 2]), 4)}


def _warned(message: str) -> bool:
    return "SM clock moved" in message or "another process started using the GPU" in message


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=100000, help="dependent steps per element (about 1 ms a launch)")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=300, help="timed launches per run")
    ap.add_argument("--idle", type=float, default=4.0, help="seconds the GPU is left idle before the normal run")
    ap.add_argument("--out", default=None)
    ap.add_argument("--backend", default="cuda", choices=("cuda", "cpu"),
                    help="cpu: walk through the steps without a GPU (nothing is sampled, so never ok)")
    a = ap.parse_args()
    t0 = time.perf_counter()
    sys.path.insert(0, ROOT)
    from qdexplorer.bench.clocks import NvmlClocks
    from qdexplorer.engine import Engine
    if not NvmlClocks().available and a.backend == "cuda":
        print(json.dumps({"benchmark": "clock_warning_check", "ok": False, "error": "no NVML here"}))
        return 1
    folder = tempfile.mkdtemp(prefix="qdx-clockcheck-")
    with open(os.path.join(folder, "kernels.py"), "w") as fh:
        fh.write(SOURCE.format(steps=a.steps))
    kind = _competitor_kind() if a.backend == "cuda" else "qdexplorer"
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    comp = subprocess.Popen([sys.executable, "-c", COMPETITOR, kind, folder, a.backend], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)   # imports now, loads the GPU on "go"
    doc = {"benchmark": "clock_warning_check", "competitor": kind, "steps": a.steps, "rounds": a.rounds,
           "repeat": a.repeat}
    try:
        with Engine(folder, backend=a.backend, cache_dir=os.path.join(folder, "cache")) as eng:
            eng.compile()
            eng.run(["spin_1m"], repeat=1)   # worker started and module loaded before the idle wait
            time.sleep(a.idle)               # the GPU idles: its clock falls back (345 MHz on an H200)
            idle = NvmlClocks()()
            doc["idle_sm_mhz_before"] = idle.sm if idle else None
            doc["normal"] = _run(eng, a.rounds, a.repeat)
            started = {}

            def halfway(done, total):
                if done == total // 2 and not started:
                    comp.stdin.write("go\n")
                    comp.stdin.flush()
                    started["line"] = comp.stdout.readline().strip()   # "busy": it is loading the GPU now
                    started["at_round"] = done
            doc["competing"] = _run(eng, a.rounds, a.repeat, halfway)
            doc["competing"]["competitor_started"] = started
    finally:
        try:
            comp.stdin.close()
        except OSError:
            pass
        try:
            comp.wait(20)
        except subprocess.TimeoutExpired:
            comp.kill()
    n, c = doc["normal"], doc["competing"]
    doc["normal_warned"] = _warned(n["message"])
    doc["competing_warned"] = _warned(c["message"])
    doc["ok"] = bool(n["busy_samples"] >= 4 and not doc["normal_warned"] and doc["competing_warned"])
    doc["seconds"] = round(time.perf_counter() - t0, 1)
    doc["machine"] = machine()
    text = json.dumps(doc, indent=2)
    print(text)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "clock_warning_check.json"), "w") as fh:
            fh.write(text)
    return 0 if doc["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
