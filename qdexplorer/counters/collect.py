"""Profile one task: probe, cache, the child under ncu, the report read into a record.

The caller (the engine) has already compiled the kernel and built its inputs exactly as a
benchmark run does; here they are written for the child, and the task's own PTX is swapped for
a copy whose line table names the PTX (`ptx_loc`), so the counters land on PTX lines.
"""
from __future__ import annotations

import hashlib
import pickle
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.device_api import LoadItem, RunJob
from . import command, probe as P
from .cache import CountersCache, profile_key
from .model import NoCounters
from .presets import preset as get_preset
from .ptx_loc import with_ptx_line_table
from .record import TaskCounters
from .report import ReaderMissing, ReportError, read_report

BAD_REPORT, NO_READER = "bad_report", P.NO_READER
LARGE_BYTES = 256 << 20   # writable data above this makes replay slow enough to say so


@dataclass
class CountersResult:
    """What a request for counters gave: a record, or the state and one line saying why not."""
    task: str
    preset: str
    state: str                       # 'ok' or why not (probe states, command states, 'bad_report')
    message: str = ""
    record: TaskCounters | None = None
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    report: str = ""                 # the .ncu-rep kept in the cache (open it in Nsight Compute)
    fallback: NoCounters | None = None   # what needs no counters, when there are none

    @property
    def ok(self) -> bool:
        return self.state == "ok" and self.record is not None


def writable_bytes(args: dict[str, Any]) -> int:
    return sum(v.nbytes for v in args.values() if isinstance(v, np.ndarray) and v.flags.writeable)


def replay_warning(args: dict[str, Any], passes: int) -> str:
    n = writable_bytes(args)
    if n < LARGE_BYTES:
        return ""
    return (f"the task's arrays hold {n / (1 << 20):.0f} MiB: ncu saves and restores the writable ones "
            f"around each of its ~{passes} replay passes, so profiling takes longer")


def _profiled_items(items: list[LoadItem], task: str, ptx_path: Path) -> tuple[list[LoadItem], bool]:
    """`items` with the task's PTX replaced by its PTX-line-table copy (only a task loaded as its
    own PTX module: in the whole and culink modes the lines are mapped from SASS instead)."""
    out, swapped = [], False
    for it in items:
        if it.spec.task == task and it.kind in ("", "ptx") and (it.unit or task) == task:
            ptx = it.code.decode(errors="replace")
            out.append(replace(it, code=with_ptx_line_table(ptx, str(ptx_path)).encode(), tag=it.tag + "+lines"))
            swapped = True
        else:
            out.append(it)
    return out, swapped


def collect(items: list[LoadItem], job: RunJob, args: dict[str, Any], task: str, preset: str, ptx: str,
            cache: CountersCache, setting: str | None = None, gpu_reason: str | None = None,
            timeout: float = command.TIMEOUT_S, fresh: bool = False, seed: int = 0, variant: str = "") -> CountersResult:
    p = get_preset(preset)
    cap = P.probe(setting, "cuda", gpu_reason)
    if not cap.ok:
        return CountersResult(task, preset, cap.state, cap.message)
    key = profile_key(task=task, preset=preset, ncu=cap.version, workload=job.workload, trips=job.trips,
                      seed=seed, modules=sorted(hashlib.sha256(it.code).hexdigest() for it in items),
                      block=[it.spec.block for it in items if it.spec.task == task])
    warn = replay_warning(args, p.passes)
    if not fresh and (rec := cache.get(key)) is not None:
        rep = cache.report_path(key)
        return CountersResult(task, preset, "ok", record=rec, warnings=[], report=str(rep or ""))
    work = Path(tempfile.mkdtemp(prefix="qdexplorer-counters-"))
    try:
        ptx_path = work / f"{task}.ptx"
        ptx_path.write_text(ptx)
        profiled, swapped = _profiled_items(items, task, ptx_path)
        req = work / "request.pkl"
        with open(req, "wb") as f:
            pickle.dump({"backend": "cuda", "items": profiled, "job": replace(job, repeat=1, warmup=0, flush_l2=False),
                         "args": args, "task": task}, f)
        report = work / "report.ncu-rep"
        out = command.run_ncu(command.ncu_argv(cap.ncu, task, p, report, req, _has_nvtx()), report, timeout)
        if out.state in (P.RESTRICTED, P.CONTAINER):
            P.learn(setting, "cuda", P.Capability(out.state, out.message, cap.ncu, cap.version))
        if out.state != command.OK:
            return CountersResult(task, preset, out.state, out.message, warnings=[w for w in [warn] if w],
                                  seconds=out.seconds)
        try:
            rec = read_report(report, task, preset, ptx, str(ptx_path) if swapped else "")
        except ReaderMissing as e:
            return CountersResult(task, preset, NO_READER, str(e), seconds=out.seconds)
        except ReportError as e:
            return CountersResult(task, preset, BAD_REPORT, str(e), seconds=out.seconds)
        rec.ncu_version, rec.workload, rec.variant = cap.version, job.workload, variant
        rec.ptx_sha = hashlib.sha256(ptx.encode()).hexdigest()[:16]
        rec.passes = rec.passes or out.passes
        cache.put(key, rec, report)
        rep = cache.report_path(key)
        return CountersResult(task, preset, "ok", record=rec, warnings=[w for w in [warn] if w], seconds=out.seconds,
                              report=str(rep or ""))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _has_nvtx() -> bool:
    import importlib.util
    return importlib.util.find_spec("nvtx") is not None
