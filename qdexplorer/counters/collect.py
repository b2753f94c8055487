"""Profile one task: probe, cache, the child under ncu, the report read into a record.

The caller (the engine) has already compiled the kernel and built its inputs exactly as a
benchmark run does; here they are written for the child, and the task's own PTX is swapped for
a copy whose line table names the PTX (`compiler/ptx_lines.with_ptx_line_table`), so the
counters land on PTX lines.
"""
from __future__ import annotations

import hashlib
import pickle
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..compiler.safe_files import check_task_name, private_temp_folder, write_file
from ..runtime.device_api import LoadItem, RunJob
from . import command, probe as P
from .cache import CountersCache, profile_key
from .model import NoCounters
from .presets import preset as get_preset
from ..compiler.ptx_lines import with_ptx_line_table
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
    repeats: list[TaskCounters] = field(default_factory=list)   # every profile asked for (record is the first)

    @property
    def records(self) -> list[TaskCounters]:
        """The side's repeated profiles, for an A/B's verdicts (`diff`): one when none were asked for."""
        return self.repeats or ([self.record] if self.record is not None else [])

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


@dataclass
class ProfileRequest:
    """What the machine with the GPU needs to profile one task: plain, picklable records (a Ray
    task carries it to another node as it is)."""
    items: list[LoadItem]
    job: RunJob
    args: dict[str, Any]
    task: str
    preset: str
    ptx: str
    setting: str | None = None
    timeout: float = command.TIMEOUT_S


@dataclass
class ProfileReply:
    state: str
    message: str = ""
    report: bytes = b""          # the .ncu-rep, as bytes: read where the user is, no toolkit needed there
    ptx_path: str = ""           # the file the profiled PTX's line table named ('' when it had none)
    seconds: float = 0.0
    passes: int = 0


def profile_here(req: ProfileRequest, gpu_reason: str | None = None) -> ProfileReply:
    """Run the child under ncu on this machine and return its report as bytes (or why there is none)."""
    cap = P.probe(req.setting, "cuda", gpu_reason)
    if not cap.ok:
        return ProfileReply(cap.state, cap.message)
    p = get_preset(req.preset)
    work = private_temp_folder("qdexplorer-counters-")
    try:
        ptx_path = write_file(work / f"{check_task_name(req.task)}.ptx", req.ptx)
        profiled, swapped = _profiled_items(req.items, req.task, ptx_path)
        path = write_file(work / "request.pkl", pickle.dumps({
            "backend": "cuda", "items": profiled, "args": req.args, "task": req.task,
            "job": replace(req.job, repeat=1, warmup=0, flush_l2=False)}))
        report = work / "report.ncu-rep"
        out = command.run_ncu(command.ncu_argv(cap.ncu, req.task, p, report, path, _has_nvtx()), report, req.timeout)
        if out.state in (P.RESTRICTED, P.CONTAINER):
            P.learn(req.setting, "cuda", P.Capability(out.state, out.message, cap.ncu, cap.version))
        if out.state != command.OK:
            return ProfileReply(out.state, out.message, seconds=out.seconds)
        return ProfileReply("ok", report=report.read_bytes(), ptx_path=str(ptx_path) if swapped else "",
                            seconds=out.seconds, passes=out.passes)
    finally:
        shutil.rmtree(work, ignore_errors=True)


class Profiler(Protocol):
    """Where profiles are made: this machine (`LocalProfiler`) or a node of a Ray cluster."""
    def probe(self) -> P.Capability: ...
    def profile(self, req: ProfileRequest) -> ProfileReply: ...


class LocalProfiler:
    def __init__(self, setting: str | None = None, gpu_reason: str | None = None):
        self.setting, self.gpu_reason = setting, gpu_reason

    def probe(self) -> P.Capability:
        return P.probe(self.setting, "cuda", self.gpu_reason)

    def profile(self, req: ProfileRequest) -> ProfileReply:
        return profile_here(req, self.gpu_reason)


def collect(items: list[LoadItem], job: RunJob, args: dict[str, Any], task: str, preset: str, ptx: str,
            cache: CountersCache, setting: str | None = None, profiler: Profiler | None = None,
            timeout: float = command.TIMEOUT_S, fresh: bool = False, seed: int = 0, variant: str = "",
            repeat: int = 0) -> CountersResult:
    """One profile of `task`: made by `profiler` (default: this machine), read and cached here.
    `repeat` > 0: another profile of the same launch, cached under its own key (an A/B's repeats)."""
    p = get_preset(preset)
    where = profiler or LocalProfiler(setting)
    cap = where.probe()
    if not cap.ok:
        return CountersResult(task, preset, cap.state, cap.message)
    key = profile_key(task=task, preset=preset, ncu=cap.version, workload=job.workload, trips=job.trips,
                      seed=seed, modules=sorted(hashlib.sha256(it.code).hexdigest() for it in items),
                      block=[it.spec.block for it in items if it.spec.task == task],
                      **({"repeat": repeat} if repeat else {}))
    warn = [w for w in [replay_warning(args, p.passes)] if w]
    if not fresh and (rec := cache.get(key)) is not None:
        rep = cache.report_path(key)
        return CountersResult(task, preset, "ok", record=rec, report=str(rep or ""))
    warn += cache.problems   # a bad entry: said once, and profiled again
    try:
        import ncu_report  # noqa: F401 - a profile nobody here can read is not worth making
    except ImportError:
        return CountersResult(task, preset, NO_READER, P.MESSAGES[P.NO_READER])
    reply = where.profile(ProfileRequest(items, job, args, task, preset, ptx, setting, timeout))
    if reply.state != "ok":
        return CountersResult(task, preset, reply.state, reply.message, warnings=warn, seconds=reply.seconds)
    work = private_temp_folder("qdexplorer-counters-read-")
    try:
        report = write_file(work / "report.ncu-rep", reply.report)
        try:
            rec = read_report(report, task, preset, ptx, reply.ptx_path)
        except ReaderMissing as e:
            return CountersResult(task, preset, NO_READER, str(e), seconds=reply.seconds)
        except ReportError as e:
            return CountersResult(task, preset, BAD_REPORT, str(e), seconds=reply.seconds)
        rec.ncu_version, rec.workload, rec.variant = cap.version, job.workload, variant
        rec.passes = rec.passes or reply.passes
        cache.put(key, rec, report)
        rep = cache.report_path(key)
        return CountersResult(task, preset, "ok", record=rec, warnings=warn, seconds=reply.seconds,
                              report=str(rep or ""))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _has_nvtx() -> bool:
    import importlib.util
    return importlib.util.find_spec("nvtx") is not None
