"""A cold `qdexplorer compile` of a project with many tasks: wall time and peak memory, one JSON document.

Generates a project of `--tasks` kernels of one range_for task each (a few arithmetic lines and a
branch), spread over files of `--per-file` kernels (a file stays well under the kernel-file size
bound), and compiles it in a fresh process with an empty cache folder, as a user's first
`qdexplorer compile` would. Memory is read from /proc while it runs: the command's own peak RSS
(VmHWM), and the peak of the whole process tree (the command and its compile-pool workers)
summed at each 0.2 s sample.

    python benchmarks/many_tasks.py [--tasks 10000] [--per-file 1000] [--target nvptx] [--tree CHECKOUT]

`--tree` compiles with another checkout's qdexplorer (an older commit in a `git worktree`), so that
old and new code are measured by the same generator on the same machine. The load average before
and after the run is recorded, since on a shared machine it moves the wall time more than anything.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from _common import ROOT, machine

KERNEL = """
@qd.kernel
def k{i}(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for j in range(x.shape[0]):
        v = x[j] * {a} + {i}.0
        if v > 0.5:
            v = v - 1.0
        y[j] = v * v + x[j]
"""


def write_project(folder: str, tasks: int, per_file: int) -> int:
    os.makedirs(folder, exist_ok=True)
    files = 0
    for start in range(0, tasks, per_file):
        with open(os.path.join(folder, f"kernels_{files:03d}.py"), "w") as fh:
            fh.write("import qdexplorer.lang as qd\n")
            for i in range(start, min(tasks, start + per_file)):
                fh.write(KERNEL.format(i=i, a=1.0 + (i % 7) * 0.125))
        files += 1
    return files


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def _kb(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _commit(tree: str) -> str | None:
    try:
        return subprocess.run(["git", "-C", tree, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=10000)
    ap.add_argument("--per-file", type=int, default=1000)
    ap.add_argument("--target", default="nvptx", choices=("nvptx", "host"))
    ap.add_argument("--timeout", type=float, default=1500)
    ap.add_argument("--tree", default=ROOT, help="checkout whose qdexplorer compiles (default: this one)")
    a = ap.parse_args()
    tree = os.path.abspath(a.tree)
    load_before = os.getloadavg()
    root = tempfile.mkdtemp(prefix="qdx-many-")
    proj = os.path.join(root, "proj")
    files = write_project(proj, a.tasks, a.per_file)
    env = dict(os.environ, PYTHONPATH=tree + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "qdexplorer.cli", "compile", proj, "--target", a.target, "--cache-dir",
           os.path.join(root, "cache"), "--json"]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=root)
    main_hwm = tree_peak = 0
    import threading
    out: dict = {}
    reader = threading.Thread(target=lambda: out.update(zip(("stdout", "stderr"), p.communicate())), daemon=True)
    reader.start()
    while reader.is_alive() and time.perf_counter() - t0 < a.timeout:
        main_hwm = max(main_hwm, _kb(p.pid, "VmHWM"))
        tree_peak = max(tree_peak, sum(_kb(q, "VmRSS") for q in _tree(p.pid)))
        reader.join(0.2)
    if reader.is_alive():
        p.kill()
        reader.join()
    seconds = time.perf_counter() - t0
    tasks_listed = errors = None
    try:
        doc = json.loads(out.get("stdout") or b"{}")
        tasks_listed = len(doc.get("tasks", []))
        errors = sum(1 for t in doc.get("tasks", []) if t.get("error"))
    except ValueError:
        pass
    print(json.dumps({"benchmark": "many_tasks", "tasks": a.tasks, "files": files, "target": a.target,
                      "returncode": p.returncode, "seconds": round(seconds, 1),
                      "peak_rss_main_mb": round(main_hwm / 1024, 1), "peak_rss_tree_mb": round(tree_peak / 1024, 1),
                      "tasks_listed": tasks_listed, "tree": tree, "commit": _commit(tree),
                      "loadavg_before": [round(x, 2) for x in load_before],
                      "loadavg_after": [round(x, 2) for x in os.getloadavg()], "task_errors": errors,
                      "stderr_tail": (out.get("stderr") or b"").decode()[-800:],
                      "machine": machine()}, indent=2))
    shutil.rmtree(root, ignore_errors=True)
    return 0 if p.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
