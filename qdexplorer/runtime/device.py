"""The device side: one backend (cpu or cuda) behind load / run messages.

`LocalDevice` runs in whatever process holds it: the device worker process for the app and
the CLI, or the script's own process for `qd.init()` + kernel calls. Messages and results are
plain dataclasses, so the same calls cross a process boundary unchanged.
"""
from __future__ import annotations

import copy
import time
import traceback
from dataclasses import dataclass, field

import numpy as np

from .launch import LaunchSpec, LaunchTiming


@dataclass
class LoadItem:
    spec: LaunchSpec
    output: bytes          # PTX (nvptx) or object file (host)
    tag: str = ""          # identity of what is loaded (hash), to skip reloading the same code
    unit: str = ""         # load unit (task, or whole-module name)


@dataclass
class LoadResult:
    task: str
    ok: bool
    ms: float = 0.0
    error: str = ""
    resources: dict = field(default_factory=dict)
    reused: bool = False


@dataclass
class WorkloadResult:
    workload: str
    kernel: str
    backend: str
    ok: bool
    check_error: str | None = None
    error: str = ""
    fault_task: str = ""
    timings: list[LaunchTiming] = field(default_factory=list)
    seconds: float = 0.0
    skipped: str = ""      # why the workload did not run on this backend (e.g. CUDA-only tasks)

    @property
    def status(self) -> str:
        if self.skipped:
            return "skipped"
        if self.error:
            return "error"
        return "passed" if self.ok else "failed"


class DeviceFault(Exception):
    """A sticky device error: the context is unusable and the process must be replaced."""

    def __init__(self, task: str, message: str):
        super().__init__(message)
        self.task = task


def make_backend(name: str, **opts):
    if name == "cpu":
        from .cpu import CpuBackend
        return CpuBackend(threads=opts.get("threads"))
    if name == "cuda":
        from .cuda.backend import CudaBackend
        return CudaBackend(device=opts.get("device", 0))
    raise ValueError(f"unknown backend {name!r} (cpu or cuda)")


class LocalDevice:
    def __init__(self, backend: str = "cpu", **opts):
        self.backend_name = backend
        self.backend = make_backend(backend, **opts)
        self.tags: dict[str, str] = {}

    def info(self) -> dict:
        return getattr(self.backend, "info", lambda: {"backend": self.backend_name})()

    def load(self, items: list[LoadItem]) -> list[LoadResult]:
        out = []
        for it in items:
            name = it.spec.task
            if self.tags.get(name) == it.tag and self.backend.loaded(name):
                out.append(LoadResult(name, True, reused=True, resources=self._resources(name)))
                continue
            t0 = time.perf_counter()
            try:
                self.backend.load(it.spec, it.output, it.tag, unit=it.unit)
            except DeviceFault:
                raise  # the context is gone: the worker must die, not report a load error
            except Exception as e:  # noqa: BLE001 - reported against the task; previous module is kept
                out.append(LoadResult(name, False, (time.perf_counter() - t0) * 1e3, str(e)))
                continue
            self.tags[name] = it.tag
            out.append(LoadResult(name, True, (time.perf_counter() - t0) * 1e3, resources=self._resources(name)))
        return out

    def _resources(self, task) -> dict:
        res = getattr(self.backend, "resources", None)
        return res(task) if res else {}

    def unload(self, tasks: list[str]):
        for t in tasks:
            self.backend.unload(t)
            self.tags.pop(t, None)

    def run_args(self, tasks: list[str], args: dict, repeat: int = 1, workload: str = "") -> list[LaunchTiming]:
        """Run `tasks` in order on `args` (NumPy arrays updated in place)."""
        prepared = self.backend.prepare(args)
        timings = []
        try:
            for rep in range(repeat):
                for t in tasks:
                    tm = self._launch(t, prepared)
                    tm.repeat, tm.workload = rep, workload
                    timings.append(tm)
            self.backend.fetch(prepared, args)
        finally:
            self.backend.release(prepared)
        return timings

    def run_args_copy(self, tasks, args, repeat=1, workload=""):
        """`run_args` for callers in another process: returns the updated arrays too."""
        timings = self.run_args(tasks, args, repeat, workload)
        return timings, {k: v for k, v in args.items() if isinstance(v, np.ndarray)}

    def _launch(self, task, prepared):
        if not self.backend.loaded(task):
            raise RuntimeError(f"task {task} is not loaded (its compile or load failed)")
        return self.backend.launch(task, prepared)

    def run_workload(self, project_dir: str, workload: str, tasks: list[str], repeat: int = 1,
                     seed: int = 0) -> WorkloadResult:
        t0 = time.perf_counter()
        from ..project.loader import load_project
        proj = load_project(project_dir)
        wl = proj.workload(workload)
        res = WorkloadResult(workload, wl.kernel.name, self.backend_name, ok=False)
        try:
            args = wl.make_args(seed)
        except Exception as e:  # noqa: BLE001
            res.error = f"workload '{workload}' failed to build its inputs: {type(e).__name__}: {e}"
            return res
        before = {k: (v.copy() if isinstance(v, np.ndarray) else copy.copy(v)) for k, v in args.items()}
        prepared = self.backend.prepare(args)
        try:
            for rep in range(repeat):
                for t in tasks:
                    try:
                        tm = self._launch(t, prepared)
                    except DeviceFault:
                        raise  # as in load(): the worker must die
                    except Exception as e:  # noqa: BLE001
                        res.error, res.fault_task = f"{t}: {e}", t
                        return res
                    tm.repeat, tm.workload = rep, workload
                    res.timings.append(tm)
                if rep == 0:
                    self.backend.fetch(prepared, args)  # waits for the launches: a fault surfaces here
                    try:
                        res.check_error = wl.run_check(before, args)
                    except Exception:  # noqa: BLE001 - a broken check is the user's bug; show where
                        res.check_error = "check raised: " + traceback.format_exc(limit=-1).strip()
        finally:
            self.backend.release(prepared)
        res.ok = res.check_error is None and not res.error
        res.seconds = time.perf_counter() - t0
        return res

    def close(self):
        self.backend.close()
