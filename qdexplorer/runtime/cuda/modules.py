"""The tasks' code on the device: one CUmodule per load unit (driver JIT of PTX, no toolkit),
behind the composite that resolves entry points by name.

Assembly modes (see docs/assembly_modes.md): per_task (B) loads one PTX module per task behind
the composite; whole loads one PTX module per kernel; culink (A) links a kernel's relocatable
cubins (ptxas, offline) into one module with cuLink (`load_linked`, `culink.py`).
"""
from __future__ import annotations

import re
from typing import Any

from cuda.bindings import driver as cu

from ...machine.launch_spec import LaunchSpec
from .composite import CompositeModule
from .context import CudaContext
from .culink import link_cubins
from .driver import CudaError, check

LOG_SIZE = 1 << 16


class CudaModules:
    def __init__(self, ctx: CudaContext):
        self.ctx = ctx
        self.composite = CompositeModule()
        self.specs: dict[str, LaunchSpec] = {}
        self.units: dict[str, tuple[str, str]] = {}   # unit -> (tag, ptx hash) of what is loaded
        self.task_unit: dict[str, str] = {}
        self.logs: dict[str, str] = {}
        self.cubins: dict[str, dict[str, bytes]] = {}  # culink unit -> task -> relocatable cubin
        self.linked_bytes: dict[str, int] = {}

    def load(self, spec: LaunchSpec, code: bytes, tag: str = "", unit: str = "") -> None:
        unit = unit or spec.task
        if self.units.get(unit, (None,))[0] != tag or unit not in self.composite.modules:
            mod, log = self.load_ptx(code, spec.task)
            entries = {spec.task} if unit == spec.task else _entries(code)
            self.composite.replace(unit, mod, entries)
            self.units[unit] = (tag, "")
            self.logs[spec.task] = log
        self.specs[spec.task] = spec
        self.task_unit[spec.task] = unit
        self.composite.function(spec.task)  # resolve now, so a missing entry fails at load

    def load_linked(self, unit: str, items: list[tuple[LaunchSpec, bytes, str]]) -> None:
        """Assembly mode culink: (re)link `unit` from its tasks' relocatable cubins into one module.

        `items` are the tasks whose cubin is new; the unit's other tasks keep theirs, so a
        one-task edit relinks the kernel from cubins already here (no ptxas, no JIT)."""
        parts = dict(self.cubins.get(unit, {}))
        for spec, cubin, _tag in items:
            parts[spec.task] = cubin
        mod, log, nbytes = link_cubins(sorted(parts.items()))  # a failed link keeps the previous module
        self.cubins[unit] = parts
        self.composite.replace(unit, mod, set(parts))
        self.units[unit] = (",".join(tag for _, _, tag in items), "")
        self.linked_bytes[unit] = nbytes
        for spec, _cubin, _tag in items:
            self.specs[spec.task] = spec
            self.task_unit[spec.task] = unit
            self.logs[spec.task] = log
        for spec, _cubin, _tag in items:
            self.composite.function(spec.task)  # resolve now, so a missing entry fails at load

    def load_ptx(self, ptx: bytes, task: str = "") -> tuple[Any, str]:
        """cuModuleLoadDataEx with the JIT info and error logs captured."""
        data = ptx.replace(b"\x00", b"") + b"\x00"
        info, err_log = bytearray(LOG_SIZE), bytearray(LOG_SIZE)
        O = cu.CUjit_option
        opts = [O.CU_JIT_INFO_LOG_BUFFER, O.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, O.CU_JIT_ERROR_LOG_BUFFER,
                O.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, O.CU_JIT_LOG_VERBOSE]
        vals = [info, LOG_SIZE, err_log, LOG_SIZE, 1]
        err, mod = cu.cuModuleLoadDataEx(data, len(opts), opts, vals)
        text = lambda b: bytes(b).split(b"\0")[0].decode(errors="replace").strip()  # noqa: E731
        if err != cu.CUresult.CUDA_SUCCESS:
            raise CudaError("cuModuleLoadDataEx", err, text(err_log) or text(info))
        return mod, text(info)

    def loaded(self, task: str) -> bool:
        return task in self.specs and task in self.composite

    def unload(self, task: str) -> None:
        unit = self.task_unit.pop(task, None)
        self.specs.pop(task, None)
        if unit is not None:
            self.cubins.get(unit, {}).pop(task, None)
        if unit is not None and unit not in self.task_unit.values():
            self.composite.remove(unit)
            self.units.pop(unit, None)
            self.cubins.pop(unit, None)

    def resources(self, task: str) -> dict[str, Any]:
        f = self.composite.function(task)
        A = cu.CUfunction_attribute
        g = lambda a: check("cuFuncGetAttribute", cu.cuFuncGetAttribute(a, f))  # noqa: E731
        block = self.specs[task].block
        active = check("cuOccupancyMaxActiveBlocksPerMultiprocessor",
                       cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(f, block, 0))
        return {"registers": g(A.CU_FUNC_ATTRIBUTE_NUM_REGS),
                "static_shared_bytes": g(A.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
                "local_bytes": g(A.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
                "max_threads_per_block": g(A.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
                "block": block, "active_blocks_per_sm": active,
                "occupancy": round(active * block / self.ctx.max_threads_per_sm, 4),
                "jit_log": self.logs.get(task, "")}

    def close(self) -> None:
        self.composite.close()


def _entries(ptx: bytes) -> set[str]:
    return {m.decode() for m in re.findall(rb"\.entry\s+([A-Za-z_$][\w$]*)", ptx)}
