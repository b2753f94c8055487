"""Our language against theirs: the same program's tasks as Quadrants and `qdexplorer.lang` make them.

Quadrants computes a range_for's bounds in a serial task of its own when nothing else precedes the
loop (`$4 : global store [tmp var <- shape]`); qdexplorer.lang computes bounds at launch. So
Quadrants' bound-only serial tasks (recognised in the `after_offload` CHI IR) are set aside before
the task lists are compared by type and loop name, in order.
"""
from __future__ import annotations

import json
import os
import statistics
import shutil
import sys
from pathlib import Path

from ..compiler.safe_files import private_temp_folder
from ..compiler.ptxas import validate
from .dumps import is_bound_setup, offloaded_blocks
from .process_group import run_group
from .program import check_script

CHILD = Path(__file__).with_name("ours_child.py")
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def run_ours(script, args=(), arch: str | None = "cpu", timeout: float = 300.0, keep_children: bool = False) -> dict:
    """Run SCRIPT with `import quadrants` meaning qdexplorer.lang; {'kernels': [...], 'error': ...}.
    Run as the Quadrants run is: in its own process group, which nothing outlives."""
    script = check_script(script)
    result_dir = private_temp_folder("qdx-ours-")   # nobody else can plant or swap the result
    result = str(result_dir / "result.json")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(PACKAGE_ROOT), os.environ.get("PYTHONPATH")])))
    try:
        p = run_group([sys.executable, str(CHILD), result, arch or "", str(script), *map(str, args)], env,
                      timeout=timeout, keep_children=keep_children, what="the program under qdexplorer.lang")
        if p.timed_out:
            return {"kernels": [], "error": f"timed out after {timeout:g} s under qdexplorer.lang"}
        try:
            with open(result) as fh:
                out = json.load(fh)
        except (OSError, ValueError):
            out = {"kernels": [], "error": f"exited with status {p.returncode}: {p.stderr.strip()[-2000:]}"}
    finally:
        shutil.rmtree(result_dir, ignore_errors=True)
    out["stdout"], out["stderr"] = p.stdout, p.stderr
    return out


def comparable_tasks(kernel) -> list:
    """A Quadrants kernel's tasks without its bound-only serial tasks."""
    blocks = offloaded_blocks(kernel.stage_text("after_offload"))
    if len(blocks) != len(kernel.tasks):
        return list(kernel.tasks)
    return [t for t, b in zip(kernel.tasks, blocks) if not is_bound_setup(b)]


def _median(v):
    return statistics.median(v) if v else None


def compare_with_ours(run, ours: dict) -> list[dict]:
    """Per Quadrants kernel of the program: whether the task lists match, and the tasks side by side."""
    pool: dict[str, list] = {}
    for k in ours.get("kernels", []):
        pool.setdefault(k["kernel"], []).append(k)
    rows = []
    for k in run.kernels:
        if k.internal:
            continue
        mine = pool.get(k.func, [])
        o = mine.pop(0) if mine else None
        theirs = comparable_tasks(k)
        ours_tasks = o["tasks"] if o else []
        match = o is not None and [(t.type, t.loop_name) for t in theirs] == \
            [(t["type"], t["loop_name"]) for t in ours_tasks]
        pairs = []
        for i in range(max(len(theirs), len(ours_tasks))):
            t = theirs[i] if i < len(theirs) else None
            u = ours_tasks[i] if i < len(ours_tasks) else None
            pairs.append({
                "quadrants": t.name if t else None, "ours": u["name"] if u else None,
                "type": t.type if t else (u["type"] if u else ""),
                "quadrants_ptx_bytes": _size(t.files.get("ptx")) if t else None,
                "quadrants_llvm_bytes": _size(t.files.get("llvm")) if t else None,
                "ours_ptx_bytes": u["ptx_bytes"] if u else None,
                "quadrants_registers": registers(t.text("ptx"), t.name) if t else None,
                "ours_registers": u.get("registers") if u else None,
                "quadrants_median_ms": _median(t.launches_ms) if t else None,
                "ours_median_ms": _median(u["launches_ms"]) if u else None})
        rows.append({"kernel": k.name, "func": k.func, "match": match,
                     "set_aside": [t.name for t in k.tasks if t not in theirs],
                     "error": (o or {}).get("error") or (None if o else "not called under qdexplorer.lang"),
                     "tasks": pairs})
    return rows


def registers(ptx: str, entry: str) -> int | None:
    """Registers per thread of `entry` from `ptxas -v` (None without ptxas, or when it refuses the PTX)."""
    if not ptx:
        return None
    try:
        rep = validate(ptx)
    except Exception:  # noqa: BLE001 - registers are a nicety; ptxas may be missing
        return None
    res = rep.resources.get(entry) or (next(iter(rep.resources.values())) if len(rep.resources) == 1 else None)
    return res.registers if res is not None else None


def _size(path):
    try:
        return os.path.getsize(path) if path else None
    except OSError:
        return None
