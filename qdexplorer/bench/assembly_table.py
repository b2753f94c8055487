"""The assembly-mode comparison as rows: what `benchmarks/assembly_modes.py` prints, flattened.

One row per (project, mode) with the figures a person compares side by side. The window's table
and bars and the benchmark README read these rows, so the JSON is interpreted in one place. GPU
columns are None where the run had no GPU (or that mode failed to load).
"""
from __future__ import annotations

import json
from pathlib import Path

from ..compiler.safe_files import UnsafePathError, read_input

COLUMNS = [  # (key, header, unit)
    ("cold_s", "cold compile", "s"),
    ("warm_s", "warm unchanged", "s"),
    ("edit_s", "warm one-task edit", "s"),
    ("disk_kb", "on disk", "KiB"),
    ("load_fresh_ms", "load, driver cache fresh", "ms"),
    ("load_warm_ms", "load, driver cache warm", "ms"),
    ("load_off_ms", "load, driver cache off", "ms"),
    ("first_fresh_ms", "first launches, cache fresh", "ms"),
    ("first_warm_ms", "first launches, cache warm", "ms"),
    ("lookup_us", "entry lookup per task", "µs"),
    ("launch_us", "steady launch (host)", "µs"),
    ("kernel_ms", "kernel time, all tasks", "ms"),
]


def _get(d, *path):
    for p in path:
        if not isinstance(d, dict) or d.get(p) is None:
            return None
        d = d[p]
    return d


def _r(v, nd=3):
    return None if v is None else round(float(v), nd)


def rows(doc: dict) -> list[dict]:
    out = []
    for row in doc.get("rows", []):
        for mode in doc.get("modes", []):
            cell = row.get(mode) or {}
            comp, gpu = cell.get("compile") or {}, cell.get("gpu") or {}
            fresh, warm, off = (gpu.get(k) or {} for k in ("driver_cache_fresh", "driver_cache_warm",
                                                            "driver_cache_off"))
            disk = comp.get("disk_bytes_total")
            errors = [comp.get("error")] + [g.get("error") and str(g["error"]) for g in (fresh, warm, off)] + \
                [("; ".join(g["load_errors"]) if g.get("load_errors") else None) for g in (fresh, warm, off)]
            out.append({
                "project": row.get("project"), "mode": mode,
                "cold_s": _r(_get(comp, "cold", "seconds")), "warm_s": _r(_get(comp, "warm_unchanged", "seconds"), 4),
                "edit_s": _r(_get(comp, "warm_one_edit", "seconds")),
                "disk_kb": None if disk is None else round(disk / 1024, 1),
                "load_fresh_ms": _r(fresh.get("load_ms"), 2), "load_warm_ms": _r(warm.get("load_ms"), 2),
                "load_off_ms": _r(off.get("load_ms"), 2),
                "first_fresh_ms": _r(fresh.get("first_launch_ms_total"), 2),
                "first_warm_ms": _r(warm.get("first_launch_ms_total"), 2),
                "lookup_us": _r(warm.get("lookup_us_per_task"), 2), "launch_us": _r(warm.get("steady_launch_us_median"), 2),
                "kernel_ms": _r(warm.get("kernel_ms_total"), 4),
                "error": next((e for e in errors if e), None),
            })
    return out


def load(path: str | Path) -> list[dict]:
    """Rows from a saved `assembly_modes.py` JSON file (a clear error for anything else)."""
    try:
        doc = json.loads(read_input(Path(path), 64 << 20, "assembly_modes.py output"))
    except (OSError, ValueError, UnsafePathError) as e:
        raise ValueError(f"{path}: not a readable assembly_modes.py JSON document ({e})") from None
    if not isinstance(doc, dict) or doc.get("benchmark") != "assembly_modes":
        raise ValueError(f"{path}: not the output of benchmarks/assembly_modes.py (no \"benchmark\": \"assembly_modes\")")
    return rows(doc)


def markdown(rs: list[dict]) -> str:
    """The rows as a Markdown table (benchmarks/README.md)."""
    head = ["project", "mode"] + [f"{h} ({u})" for _, h, u in COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rs:
        cells = [r["project"], r["mode"]] + ["—" if r[k] is None else f"{r[k]:g}" for k, _, _ in COLUMNS]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)
