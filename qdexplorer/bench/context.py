"""What a run measured: device, driver, compile mode, code hashes, project revision.

Two runs are comparable only if you know what differed between them, so everything that could
explain a difference is recorded: the hash of each task's loaded code and of its generated PTX
(an override shows up as a different loaded hash), the timer's resolution, the git revision.
"""
from __future__ import annotations

import base64
import dataclasses
import datetime
import hashlib
import platform
import subprocess
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..compiler.artifacts import CompiledTask
from ..runtime.cuda.detect import cuda_status
from ..version import __version__
from .engine_api import BenchEngine

CUDA_EVENT_RESOLUTION_MS = 0.0005   # cuEventElapsedTime: "a resolution of around 0.5 microseconds"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def clock_resolution_ms(clock=time.perf_counter, samples: int = 200) -> float:
    """The smallest step `clock` shows here (what a CPU launch timing can resolve)."""
    best = float("inf")
    for _ in range(samples):
        t0 = clock()
        t1 = clock()
        while t1 == t0:
            t1 = clock()
        best = min(best, t1 - t0)
    return best * 1e3


def timer_resolution_ms(backend: str) -> float:
    return CUDA_EVENT_RESOLUTION_MS if backend == "cuda" else clock_resolution_ms()


def git_state(folder: Path) -> dict | None:
    """{'revision', 'dirty'} of the git checkout holding `folder`, or None outside git."""
    def git(*args):
        return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, errors="replace", timeout=10)
    try:
        rev = git("rev-parse", "HEAD")
        if rev.returncode != 0:
            return None
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".")
        return {"revision": rev.stdout.strip(), "dirty": bool(dirty.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return None


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def task_hashes(compiled: list[CompiledTask]) -> dict[str, dict[str, str]]:
    """Per task: sha256 of what was loaded, of what the compiler generated, and the override state."""
    out = {}
    for ct in compiled:
        entry = {"loaded_sha256": _sha(ct.output), "generated_sha256": _sha(ct.generated or ct.output),
                 "target": ct.target, "cache_key": ct.key[:16]}
        if ct.override:
            entry["override"] = ct.override
            entry["override_sha256"] = _sha(ct.output)
        out[ct.task] = entry
    return out


def pack_text(text: str) -> str:
    """A code text as saved with a run: zlib, then base64 (a demo task's PTX: ~1 KB instead of ~5)."""
    return base64.b64encode(zlib.compress(text.encode(), 9)).decode("ascii")


def unpack_text(blob: str) -> str:
    return zlib.decompress(base64.b64decode(blob)).decode()


def task_code(compiled: Sequence[CompiledTask], engine: BenchEngine | None = None) -> dict[str, dict[str, str]]:
    """Per task, the code text the run measured, packed: the PTX in use (override included) for GPU runs;
    for CPU runs the host LLVM IR in use and, where the engine has the task's GPU compile too (the window
    always does), its PTX. What a report diffs between two runs, long after the code changed."""
    out = {}
    for ct in compiled:
        entry = {}
        if ct.target == "nvptx" and ct.ptx:
            entry["ptx"] = pack_text(ct.ptx)
        else:
            gpu = engine.compiled_for(ct.task, "nvptx") if engine is not None else None
            if gpu is not None and gpu.ok and gpu.ptx:
                entry["ptx"] = pack_text(gpu.ptx)
            if ct.ll:
                entry["ll"] = pack_text(ct.ll)
        if entry:
            out[ct.task] = entry
    return out


@dataclass
class RunContext:
    """Everything that could explain a difference between two runs. Saved as JSON with the run;
    keys it does not know (from a newer or older qdexplorer) are kept in `extra`, never dropped."""
    backend: str = ""
    time: str = ""
    qdexplorer: str = ""
    arch: str = ""
    mode: str = ""
    project: str = ""
    project_name: str = ""
    python: str = ""
    platform: str = ""
    device: str = ""
    driver: str | int = ""
    sm_count: int | None = None
    timer_resolution_ms: float = 0.0
    cpu_timer_resolution_ms: float | None = None
    tasks: dict[str, dict[str, str]] = field(default_factory=dict)
    code: dict[str, dict[str, str]] = field(default_factory=dict)   # task -> {'ptx'|'ll': pack_text(...)}
    git: dict[str, Any] | None = None
    workloads: list[str] = field(default_factory=list)
    warmup: int = 0
    repeat: int = 0
    seed: int = 0
    rounds: int | None = None
    per_round: int | None = None
    interleaved_with: str | None = None
    pair: str | None = None        # shared by the two sides of one interleaved comparison: their
                                   # rounds were measured side by side, round i of A next to round i of B
    l2_flush: bool = False
    clocks_mhz: dict[str, Any] = field(default_factory=dict)   # clocks.clock_summary: busy SM/memory MHz while timing
    skipped: dict[str, str] = field(default_factory=dict)
    streaming: bool = False        # saved while streaming (its end may never have come)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "extra"}
        return d | self.extra

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunContext:
        names = {f.name for f in dataclasses.fields(cls)} - {"extra"}
        known = {k: v for k, v in d.items() if k in names}
        return cls(**known, extra={k: v for k, v in d.items() if k not in names})


def collect(engine: BenchEngine, compiled: Sequence[CompiledTask] = (), **extra: Any) -> RunContext:
    """The context of a run made by `engine` on the tasks in `compiled`."""
    backend = engine.backend
    project = engine.project
    ctx = RunContext(backend=backend, time=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                     qdexplorer=__version__, arch=engine.arch, mode=engine.mode, project=str(project.path),
                     project_name=project.name, python=platform.python_version(), platform=platform.platform(),
                     timer_resolution_ms=timer_resolution_ms(backend), tasks=task_hashes(list(compiled)),
                     code=task_code(compiled, engine))
    if engine.cluster:   # a Ray actor, perhaps on another machine: describe its device, not this one
        info = engine.device_info()
        ctx.device, ctx.driver, ctx.sm_count = str(info.get("device", "")), info.get("driver", ""), \
            info.get("sm_count")
        ctx.extra["placement"] = {"cluster": engine.cluster, "host": info.get("host"), "node": info.get("node"),
                                  "gpu": info.get("gpu"), "label": info.get("label")}
    elif backend == "cuda":
        st = cuda_status()
        ctx.device, ctx.driver, ctx.sm_count = st.name, st.driver_version, st.sm_count
    else:
        ctx.device = cpu_name()
    if backend != "cuda":
        ctx.cpu_timer_resolution_ms = clock_resolution_ms(time.thread_time)
    folder = project.path if project.path.is_dir() else project.path.parent
    ctx.git = git_state(folder)
    for k, v in extra.items():
        if hasattr(ctx, k) and k != "extra":
            setattr(ctx, k, v)
        else:
            ctx.extra[k] = v
    return ctx
