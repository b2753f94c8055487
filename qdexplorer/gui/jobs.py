"""Work the window sends to the engine thread beyond compile and run: optimised IR and SASS of a task.

Plain functions of the engine; they touch no widget (results come back through the bridge).
"""
from __future__ import annotations

from ..codegen.math_lib import libdevice_path
from ..compiler import ptxas
from ..compiler.stages import CompileRequest


def optimised_ll(eng, task: str) -> str:
    """The task's module after the -O3 pipeline the PTX stage runs (in a pool worker, never here)."""
    ct = eng.compiled.get(f"nvptx:{task}")
    if ct is None or "ll" not in ct.used:
        return f"; {task} is not compiled yet"
    p, mod = eng.pipeline, ct.module
    needs = bool(mod is not None and mod.needs_libdevice)
    req = CompileRequest(task, "nvptx", (ct.used["ll"].text,), (mod.entry if mod else task,), p.arch, p.ptx_isa, 3,
                         libdevice_path() if needs else None, p.fast_math, emit="ll")
    res = eng.compiler.compile([req])[0]
    return res.output.decode(errors="replace") if res.ok else f"; optimisation failed: {res.error}"


def sass(eng, task: str) -> str:
    """SASS of the PTX in use (override included), via ptxas + nvdisasm/cuobjdump; else why not."""
    ct = eng.compiled.get(f"nvptx:{task}")
    if ct is None or not ct.ptx:
        return f"// {task} has no PTX yet"
    try:
        return ptxas.disassemble_sass(ct.ptx, ct.arch)
    except (ptxas.PtxasNotFound, ValueError) as e:
        return (f"// SASS is not available on this machine: {e}.\n// Install a CUDA toolkit with nvdisasm "
                f"(PATH, CUDA_HOME or /usr/local/cuda*); on a GPU machine it is usually there.")
