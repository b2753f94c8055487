"""Peak memory of `qdexplorer run --repeat N` (the issue's "memory flat over run --repeat 1000"), one JSON document.

Runs the bundled demo (or PROJECT) on the CPU backend with a warm cache folder (compiled once
first, untimed), `--repeat` 10 and then 1000, and reads /proc every 0.2 s while each runs: the
command's own peak RSS (VmHWM) and the peak of its process tree (the command, its device worker
and any compile-pool worker) summed at each sample. Flat means the two repeats peak alike.

    python benchmarks/run_memory.py [--tree CHECKOUT] [--repeats 10 1000] [PROJECT]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from _common import ROOT
from many_tasks import _commit, _kb, _tree


def measure(cmd: list[str], env: dict, cwd: str, timeout: float) -> dict:
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    out: dict = {}
    reader = threading.Thread(target=lambda: out.update(zip(("stdout", "stderr"), p.communicate())), daemon=True)
    reader.start()
    main_hwm = tree_peak = 0
    while reader.is_alive() and time.perf_counter() - t0 < timeout:
        main_hwm = max(main_hwm, _kb(p.pid, "VmHWM"))
        tree_peak = max(tree_peak, sum(_kb(q, "VmRSS") for q in _tree(p.pid)))
        reader.join(0.2)
    if reader.is_alive():
        p.kill()
        reader.join()
    return {"returncode": p.returncode, "seconds": round(time.perf_counter() - t0, 1),
            "peak_rss_main_mb": round(main_hwm / 1024, 1), "peak_rss_tree_mb": round(tree_peak / 1024, 1),
            "stderr_tail": (out.get("stderr") or b"").decode()[-300:]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("project", nargs="?", default=None)
    ap.add_argument("--tree", default=ROOT, help="checkout whose qdexplorer runs (default: this one)")
    ap.add_argument("--repeats", type=int, nargs="+", default=[10, 1000])
    ap.add_argument("--timeout", type=float, default=900)
    a = ap.parse_args()
    tree = os.path.abspath(a.tree)
    root = tempfile.mkdtemp(prefix="qdx-runmem-")
    env = dict(os.environ, PYTHONPATH=tree + os.pathsep + os.environ.get("PYTHONPATH", ""))
    base = [sys.executable, "-m", "qdexplorer.cli"]
    proj = [a.project] if a.project else []
    cache = ["--cache-dir", os.path.join(root, "cache")]
    subprocess.run(base + ["compile", *proj, "--target", "host", *cache], env=env, cwd=root,
                   capture_output=True, timeout=a.timeout)
    rows = {}
    for n in a.repeats:
        load = os.getloadavg()
        rows[n] = measure(base + ["run", *proj, "--backend", "cpu", "--repeat", str(n), *cache], env, root, a.timeout)
        rows[n]["loadavg_before"] = [round(x, 2) for x in load]
    shutil.rmtree(root, ignore_errors=True)
    print(json.dumps({"benchmark": "run_memory", "tree": tree, "commit": _commit(tree), "project": a.project or "demo",
                      "runs": rows}, indent=2))
    return 0 if all(r["returncode"] == 0 for r in rows.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
