"""Wall time of `Engine.counters` per task on this machine's GPU: the quick and full presets (fresh
profiles under ncu, the child process and replay included) and a cached repeat. Targets: quick ≤ 5 s,
full ≤ 20 s, cached ≤ 0.2 s per task. Prints one JSON document.

    python benchmarks/counters_overhead.py [TASK ...]
"""
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _common import machine

from qdexplorer.counters import probe
from qdexplorer.engine import Engine
from qdexplorer.project.loader import bundled_demo

TASKS = ["saxpy_kernel_0_range_for", "copy_kernel_0_range_for", "jacobi_kernel_0_range_for",
         "particle_step_kernel_3_range_for"]
LIMITS = {"quick": 5.0, "full": 20.0, "cached": 0.2}


def main(tasks):
    cap = probe.probe()
    out = {"machine": machine(), "ncu": cap.ncu, "ncu_version": cap.version, "limits_s": LIMITS, "tasks": {}}
    if not cap.ok:
        out["error"] = cap.message
        print(json.dumps(out, indent=2))
        return 1
    tmp = Path(tempfile.mkdtemp())
    shutil.copytree(bundled_demo(), tmp / "demo")
    with Engine(tmp / "demo", backend="cuda", in_process=True, cache_dir=str(tmp / "cache")) as eng:
        eng.compile(target="nvptx")
        for task in tasks:
            row = {}
            for preset in ("quick", "full"):
                t0 = time.perf_counter()
                res = eng.counters(task, preset, fresh=True)
                row[preset] = {"seconds": round(time.perf_counter() - t0, 3), "state": res.state,
                               "passes": res.record.passes if res.record else 0, "message": res.message}
            t0 = time.perf_counter()
            res = eng.counters(task, "full")
            row["cached"] = {"seconds": round(time.perf_counter() - t0, 4), "cached": bool(res.record and res.record.cached)}
            row["within_limits"] = all(row[k]["seconds"] <= LIMITS[k] for k in LIMITS)
            out["tasks"][task] = row
    out["all_within_limits"] = all(r["within_limits"] for r in out["tasks"].values())
    print(json.dumps(out, indent=2))
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or TASKS))
