"""Generated against edited: two runs of the same program, and each task's launch times side by side."""
from __future__ import annotations

import statistics

from .edits import EditFolder, confirm_used, prepare_load
from .program import run_program


# Quadrants' kernel profiler: CUDA events (about 0.5 µs) on CUDA, a host clock in microseconds elsewhere
RESOLUTION_MS = {"cuda": 0.0005}


def compare_runs(baseline, edited, load: dict | None = None) -> list[dict]:
    """One row per task of the baseline that launched in either run: medians, minimums, edited/generated,
    and the verdict of bench/stats.py (bootstrap CI of the ratio, Mann–Whitney p, drift threshold)."""
    from ..bench.stats import compare_samples, default_threshold
    backend = "cuda" if baseline.arch == "cuda" else "cpu"
    threshold = default_threshold([backend], interleaved=False)
    edited_tasks = {e["task"]: e for e in (load or {}).get("edits", [])}
    rows = []
    for t in baseline.tasks():
        a, b = baseline.launches.get(t.name, []), edited.launches.get(t.name, [])
        if not a and not b:
            continue
        ma = statistics.median(a) if a else None
        mb = statistics.median(b) if b else None
        e = edited_tasks.get(t.name)
        rows.append({"task": t.name, "stable_name": t.stable_name, "kernel": t.kernel,
                     "edited": e is not None, "state": e["state"] if e else None,
                     "used": e.get("used") if e else None,
                     "generated": {"launches": len(a), "median_ms": ma, "min_ms": min(a) if a else None},
                     "edited_run": {"launches": len(b), "median_ms": mb, "min_ms": min(b) if b else None},
                     "ratio": (mb / ma) if ma and mb is not None else None,
                     "stats": compare_samples(t.name, a, b, RESOLUTION_MS.get(backend, 0.001),
                                              threshold=threshold).to_dict() if a and b else None})
    return rows


def edit_and_rerun(script, edit_folder, kind: str = "ptx", args=(), arch=None, timeout=300.0, python=None,
                   baseline=None, dump_dir=None, keep_children: bool = False) -> dict:
    """Baseline run with dumps (unless given), then the run that loads the edits; never raises for a
    failing program: each run carries its own error."""
    edits = EditFolder(edit_folder, kind)
    if baseline is None:
        baseline = run_program(script, args, arch=arch, timeout=timeout, python=python, dump_dir=dump_dir,
                               keep_children=keep_children)
    if not baseline.ok:
        return {"baseline": baseline, "edited": None, "load": None, "comparison": []}
    load = prepare_load(edits, baseline)
    edited = run_program(script, args, arch=arch, timeout=timeout, python=python, load=load,
                         keep_children=keep_children)
    confirm_used(load, edited)
    return {"baseline": baseline, "edited": edited, "load": load,
            "comparison": compare_runs(baseline, edited, load)}
