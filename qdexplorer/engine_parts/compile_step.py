"""From kernels to compiled tasks: lower each kernel for the argument specialisation it is called
with, compile the tasks in one batch, record the compile index, and let go of tasks that vanished.

Apart from the Engine because it is one walk with its own memory (each kernel's specialisation,
which a run checks its arguments against) and its own side effects (the index, `print_kernel_asm`,
unloading the vanished), none of which the runs or the overrides need to see.
"""
from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from ..compiler.artifacts import CompiledTask
from ..compiler.asm_print import write_ptx
from ..compiler.cache import PtxCache
from ..compiler.compile_index import CompileIndex
from ..compiler.pipeline import Pipeline
from ..events import CompileFinished, Event, KernelLowered, TasksForgotten
from ..ir.errors import QdError
from ..ir.nodes import Task
from ..lang.kernel import Kernel
from ..lang.tasks.fingerprint import TaskMemo
from ..project.loader import Project
from ..session import Session
from .device_place import DevicePlace


@dataclass
class KernelTasks:
    kernel: str
    tasks: list[Task] = field(default_factory=list)
    lower_s: float = 0.0
    error: str = ""


class Compiled(NamedTuple):
    """What one compile produced: the kernels as lowered (with their errors) and each task's result."""
    kernels: list[KernelTasks]
    tasks: list[CompiledTask]


class CompileStep:
    """The Engine's compile; `project` is asked each time, since a refresh replaces it."""

    def __init__(self, project: Callable[[], Project], pipeline: Pipeline, cache: PtxCache, memo: TaskMemo,
                 session: Session, place: DevicePlace, emit: Callable[[Event], None]):
        self.project, self.pipeline, self.cache, self.memo = project, pipeline, cache, memo
        self.session, self.place, self.emit = session, place, emit
        self.specs: dict[str, tuple] = {}   # kernel -> the argument specialisation its tasks were lowered for

    def lower(self, names: list[str] | None = None) -> list[KernelTasks]:
        project = self.project()
        out = []
        for name, k in project.kernels.items():
            if names and name not in names:
                continue
            kt = KernelTasks(name)
            t0 = time.perf_counter()
            try:
                spec = self.specs[name] = self._spec(project, k)
                kt.tasks = k.tasks(spec, memo=self.memo)
            except QdError as e:
                kt.error = str(e)
            kt.lower_s = time.perf_counter() - t0
            self.emit(KernelLowered(name, tuple(kt.tasks), kt.lower_s, kt.error))
            out.append(kt)
        if names:
            unknown = set(names) - {kt.kernel for kt in out}
            if unknown:
                raise QdError(f"no kernel named {', '.join(sorted(unknown))} in {project.path} "
                              f"(known: {', '.join(sorted(project.kernels))})")
        return out

    @staticmethod
    def _spec(project: Project, kernel: Kernel) -> tuple:
        try:
            return kernel.spec_for()
        except QdError:
            wls = project.workloads_for(kernel.name)
            if not wls:
                raise
            args = wls[0].bound_args(0)
            return kernel.spec_for(tuple(args[n] for n in kernel.arg_names))

    def compile(self, kernels: list[str] | None, target: str, arch: str, loaded_target: str) -> Compiled:
        """`loaded_target`: the target the device runs, whose vanished tasks are unloaded too."""
        t0 = time.perf_counter()
        kts = self.lower(kernels)
        lower = {t.name: kt.lower_s / max(1, len(kt.tasks)) for kt in kts for t in kt.tasks}
        # one batch across kernels, so a cold compile fills every pool worker
        compiled = self.pipeline.compile([t for kt in kts for t in kt.tasks], target, lower)
        # what `show` / `override list` read later without importing the project
        CompileIndex(self.cache, self.project().path).record(target, arch, kts, compiled, complete=kernels is None)
        tiers: dict[str, int] = {}
        for ct in compiled:
            tiers[ct.tier] = tiers.get(ct.tier, 0) + 1
        self.emit(CompileFinished(target, len(compiled), tiers, sum(1 for ct in compiled if ct.error)
                                  + sum(1 for kt in kts if kt.error), time.perf_counter() - t0))
        self._forget_vanished(kts, compiled, target, everything=kernels is None, unload=target == loaded_target)
        if self.project().config.print_kernel_asm:
            self._print_asm(kts, compiled, target)
        return Compiled(kts, compiled)

    def _print_asm(self, kts: list[KernelTasks], compiled: list[CompiledTask], target: str) -> None:
        """The project's `print_kernel_asm`: each task's PTX beside the kernels (CPU runs compile it too,
        quietly: those nvptx results are for the files only, not events)."""
        path = self.project().path
        folder = path if path.is_dir() else path.parent
        if target != "nvptx":
            quiet = copy.copy(self.pipeline)
            quiet.on_task = lambda ct: None
            compiled = quiet.compile([t for kt in kts for t in kt.tasks], "nvptx")
        try:
            write_ptx(folder, compiled)
        except OSError as e:
            warnings.warn(f"print_kernel_asm: cannot write PTX into {folder} ({e.strerror or e})", stacklevel=3)

    def _forget_vanished(self, kts: list[KernelTasks], compiled: list[CompiledTask], target: str,
                         everything: bool, unload: bool) -> None:
        """Tasks that no longer exist (a kernel edited or removed) leave the store and the device."""
        alive = {ct.task for ct in compiled}
        lowered = {kt.kernel for kt in kts}
        gone = tuple(task for (tg, task), ct in self.session.compiled.items()
                     if tg == target and task not in alive and (everything or ct.kernel in lowered))
        if gone:
            self.emit(TasksForgotten(target, gone))
        device = self.place.started
        if device is not None and unload:
            drop = [t for t in device.loaded_tasks() if t in gone or (everything and t not in alive)]
            if drop:
                device.unload(drop)
