"""What a compiled task is beyond its PTX: the optimised LLVM IR, the SASS, the registers and
occupancy. Questions the code views ask on demand, each answered from the task's latest compile;
grouped here so the Engine's own surface stays commands (compile, run, override) and state.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..compiler import ptxas
from ..compiler.artifacts import CompiledTask
from ..compiler.pipeline import Pipeline
from ..compiler.resources import estimate_resources
from ..compiler.sass import SassListing, disassemble as disassemble_sass
from ..events import Event, ResourcesEstimated


class TaskCode:
    """`engine.code`: reads the Engine's compile results through `compiled_for`."""

    def __init__(self, compiled_for: Callable[[str, str], CompiledTask | None], pipeline: Pipeline,
                 emit: Callable[[Event], None]):
        self._compiled_for, self._pipeline, self._emit = compiled_for, pipeline, emit

    def optimised_ll(self, task: str) -> str:
        """The task's module after the -O3 pipeline the PTX stage runs (in a pool worker, never here)."""
        ct = self._compiled_for(task, "nvptx")
        if ct is None or "ll" not in ct.used:
            return f"; {task} is not compiled yet"
        return self._pipeline.optimised_ll(ct)

    def sass(self, task: str, arch: str | None = None, generated: bool = False) -> SassListing | str:
        """SASS of the PTX in use (override included; `generated`: of the compiler's own PTX) for `arch`
        (default: the task's), with each line's PTX and source line, via ptxas + nvdisasm (the
        `qdexplorer[sass]` wheels or a toolkit); a `// why not` text when there is none."""
        ct = self._compiled_for(task, "nvptx")
        if ct is None or not ct.ptx:
            return f"// {task} has no PTX yet"
        gen = ct.produced.get("ptx")
        ptx = (gen.text if gen is not None else "") if generated else ct.ptx
        if not ptx:
            return f"// {task} has no generated PTX"
        try:
            return disassemble_sass(ptx, arch or ct.arch)
        except ptxas.PtxasNotFound as e:
            return f"// SASS is not available on this machine: {e}."
        except ValueError as e:
            return f"// no SASS for {arch or ct.arch}: {e}"

    def resources(self, task: str) -> dict[str, Any]:
        """Registers, spills and occupancy of the task's PTX in use, from `ptxas -v` at its block size
        (no GPU needed); also reported as a ResourcesEstimated event. {} before it is compiled."""
        ct = self._compiled_for(task, "nvptx")
        if ct is None or not ct.ok:
            return {}
        res = estimate_resources(ct)
        self._emit(ResourcesEstimated(task, res))
        return res
