"""A run out of qdexplorer: CSV (one row per launch), JSON (the whole run), and a trace.

The trace is Chrome's trace-event JSON (object form), which Perfetto's UI and chrome://tracing
open as is: process 1 "launches" has one thread (track) per task with every launch as a
complete ("X") slice; process 2 "compile" has one track per task with its compile stages.
Launch records carry durations, not start times, so slices are laid end to end in launch
order: the trace shows order and length, not the host gaps between launches.
"""
from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path

from ..compiler.safe_files import UnsafePathError, write_file
from ..ir.errors import QdError
from .run import Run

LAUNCH_PID, COMPILE_PID = 1, 2
STAGE_ORDER = ("lower", "codegen", "cache", "ptx", "compile", "load")


def to_csv(run: Run) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["run", "seq", "workload", "kernel", "task", "round", "repeat", "ms", "cpu_ms", "grid", "block"])
    for i, ln in enumerate(run.launches):
        w.writerow([run.label, i, ln.workload, ln.kernel, ln.task, "" if ln.round is None else ln.round, ln.repeat,
                    repr(ln.ms), "" if ln.cpu_ms is None else repr(ln.cpu_ms), ln.grid, ln.block])
    return buf.getvalue()


def to_json(run: Run) -> str:
    return json.dumps(run.to_dict(), indent=1)


def _meta(pid: int, tid: int | None, kind: str, name: str) -> dict:
    ev = {"ph": "M", "pid": pid, "name": kind, "args": {"name": name}}
    if tid is not None:
        ev["tid"] = tid
    return ev


def to_trace(run: Run) -> dict:
    """Trace-event JSON (a dict; `json.dump` it) with launch and compile tracks."""
    events = [_meta(LAUNCH_PID, None, "process_name", f"launches ({run.context.backend or '?'}, "
                                                      f"{run.context.device or '?'})"),
              _meta(COMPILE_PID, None, "process_name", "compile")]
    # compile stages first, each task on its own compile track, all starting at 0
    ctids: dict[str, int] = {}
    t_end = 0.0
    for task, stages in run.compile.items():
        tid = ctids.setdefault(task, len(ctids) + 1)
        events.append(_meta(COMPILE_PID, tid, "thread_name", task))
        ts = 0.0
        order = sorted((s for s in stages if s != "tier"),
                       key=lambda s: STAGE_ORDER.index(s) if s in STAGE_ORDER else len(STAGE_ORDER))
        for stage in order:
            dur = float(stages[stage]) * 1e6
            events.append({"ph": "X", "pid": COMPILE_PID, "tid": tid, "name": stage, "cat": "compile",
                           "ts": round(ts, 3), "dur": round(dur, 3), "args": {"task": task,
                                                                               "tier": stages.get("tier", "")}})
            ts += dur
        t_end = max(t_end, ts)
    # launches after the compile, end to end in launch order, one track per task
    ltids: dict[str, int] = {}
    ts = t_end
    for i, ln in enumerate(run.launches):
        tid = ltids.get(ln.task, 0)
        if not tid:  # track ids start at 1
            tid = ltids[ln.task] = len(ltids) + 1
            events.append(_meta(LAUNCH_PID, tid, "thread_name", ln.task))
            events.append({"ph": "M", "pid": LAUNCH_PID, "tid": tid, "name": "thread_sort_index",
                           "args": {"sort_index": tid}})
        dur = ln.ms * 1e3
        events.append({"ph": "X", "pid": LAUNCH_PID, "tid": tid, "name": ln.task, "cat": "launch",
                       "ts": round(ts, 3), "dur": round(dur, 3),
                       "args": {"seq": i, "workload": ln.workload, "kernel": ln.kernel, "round": ln.round,
                                "repeat": ln.repeat, "ms": ln.ms, "cpu_ms": ln.cpu_ms, "grid": ln.grid,
                                "block": ln.block}})
        ts += dur
    return {"traceEvents": events, "displayTimeUnit": "ms",
            "otherData": {"run": run.label, "status": run.status, "qdexplorer": run.context.qdexplorer,
                          "created": run.context.time}}


def write(run: Run, path, kind: str):
    """Write `run` as kind 'csv' | 'json' | 'perfetto' to `path` (a temp file, then replaced).
    Any failure is one QdError naming `path` (never the temporary file), and the temporary file
    is removed whatever happens."""
    text = {"csv": to_csv, "json": to_json, "perfetto": lambda r: json.dumps(to_trace(r))}[kind](run)
    path = Path(path)
    if path.is_dir():
        raise QdError(f"cannot export to {path}: it is a folder; give a file name, e.g. {path / ('run.' + kind)}")
    if path.exists() and not path.is_file():  # /dev/stdout, a FIFO: write into it, never replace it
        try:
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        except OSError as e:
            raise QdError(f"cannot export to {path}: {e.strerror or e}") from None
        return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_file(path, text)   # a link at `path` is refused, never written through
    except UnsafePathError as e:
        raise QdError(f"cannot export to {path}: {e}") from None
    except OSError as e:
        raise QdError(f"cannot export to {path}: {e.strerror or e}") from None
    return path
