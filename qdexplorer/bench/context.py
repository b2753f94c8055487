"""What a run measured: device, driver, compile mode, code hashes, project revision.

Two runs are comparable only if you know what differed between them, so everything that could
explain a difference is recorded: the hash of each task's loaded code and of its generated PTX
(an override shows up as a different loaded hash), the timer's resolution, the git revision.
"""
from __future__ import annotations

import datetime
import hashlib
import platform
import subprocess
import sys
import time
from pathlib import Path

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
        return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=10)
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


def task_hashes(compiled) -> dict:
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


def collect(engine, compiled=(), **extra) -> dict:
    """The context of a run made by `engine` on the tasks in `compiled` (CompiledTask list)."""
    # the package root is always imported before its subpackages; importing it by name here would
    # count as reaching the script layer it installs hooks for
    __version__ = sys.modules[__name__.split(".")[0]].__version__
    from ..runtime.cuda.detect import cuda_status
    backend = engine.backend
    ctx = {"time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "qdexplorer": __version__, "backend": backend, "arch": engine.arch,
           "mode": engine.mode, "project": str(engine.project.path), "project_name": engine.project.name,
           "python": platform.python_version(), "platform": platform.platform(),
           "timer_resolution_ms": timer_resolution_ms(backend), "tasks": task_hashes(compiled)}
    if backend == "cuda":
        st = cuda_status()
        ctx.update(device=st.name, driver=st.driver_version, sm_count=st.sm_count)
    else:
        ctx.update(device=cpu_name(), driver="", cpu_timer_resolution_ms=clock_resolution_ms(time.thread_time))
    folder = engine.project.path if engine.project.path.is_dir() else engine.project.path.parent
    ctx["git"] = git_state(folder)
    ctx.update(extra)
    return ctx
