"""What of Quadrants 1.3.3's public surface qdexplorer.lang refuses, and what it supports only in part.

`benchmarks/api_surface.py` walks real Quadrants' names and writes docs/compatibility.md from these
two tables; the modules and classes of this package consult `REFUSED` in their `__getattr__`, so a
program that reaches for a refused name gets one line naming it, the program's own file:line and
what to do, never a bare AttributeError. Keys are the names as the doc lists them: `qd.X`,
`qd.linalg.X`, and for instances `field.X`, `ndarray.X`, `matrix.X`, `snode.X`, `kernel.X`, ...
"""
from __future__ import annotations

from ...ir.errors import QdError
from ..calls.caller import caller as _caller


class NotSupportedError(QdError, AttributeError):
    """A Quadrants name qdexplorer.lang leaves out. An AttributeError too, so `hasattr` and
    `getattr(x, name, default)` still answer False / the default."""


_DEVICE_ONLY = "qdexplorer runs one stream in order (CPU or one CUDA stream)"
_MESH = "Quadrants' mesh support (qd.Mesh, mesh-for loops) is not in qdexplorer; store the mesh in fields"

REFUSED: dict[str, str] = {
    # the tensor wrapper of newer Quadrants (the `suite` helper's part of issue 29)
    # devices, streams, graphs
    "qd.GraphStatus": "CUDA graphs are not built by qdexplorer; call the kernels directly",
    "qd.checkpoint": "CUDA graphs are not built by qdexplorer; split the kernel in two",
    "qd.interop": "Metal interop is not in qdexplorer (no Metal backend)",
    "qd.Mesh": _MESH,
    "qd.MeshInstance": _MESH,
    "qd.mesh_local": _MESH,
    "qd.mesh_patch_idx": _MESH,
    "qd.math.fns": "loop over the bits (qd.math.ffs gives the lowest set one)",
}

_FIELDS = ("field", "vector_field", "matrix_field", "struct_field")
_NDARRAYS = ("ndarray", "vector_ndarray", "matrix_ndarray")
_FWD = "forward-mode autodiff (.dual) is not supported; use reverse mode (needs_grad=True, qd.ad.Tape)"
_INTERNAL = "an internal hook of Quadrants' runtime; programs have no use for it here"


INTERNAL: set[str] = set()  # refused names that are hooks of Quadrants' runtime, not API: listed apart


def _each(surfaces, attr: str, todo: str):
    for s in surfaces:
        REFUSED[f"{s}.{attr}"] = todo
        if todo is _INTERNAL:
            INTERNAL.add(f"{s}.{attr}")


_each(_FIELDS, "vars", _INTERNAL)
_each(_FIELDS[:3], "host_accessors", _INTERNAL)
_each(_FIELDS[1:3], "ptr", _INTERNAL)
_each(_NDARRAYS, "host_accessor", _INTERNAL)
_each(_NDARRAYS, "get_type", _INTERNAL)
_each(("snode",), "ptr", _INTERNAL)
for _t in ("vector_type", "matrix_type", "struct_type"):
    for _a in ("from_kernel_struct_ret", "set_kernel_struct_args", "from_quadrants_object", "tensor_type"):
        _each((_t,), _a, _INTERNAL)
REFUSED["kernel.resume"] = "CUDA graphs (qd.checkpoint) are not built by qdexplorer; call the kernel again"
_each(("kernel",), "wrapper", _INTERNAL)

PARTIAL: dict[str, str] = {
    "qd.BitpackedFields": "each field is stored unpacked (Quadrants' values, no memory saved)",
    "snode.quant_array": "a dense container of unpacked elements (Quadrants' values, no memory saved)",
    "qd.tensor": "returns the qd.field / qd.ndarray itself (no wrapper object); layout= is checked and "
                 "reported by x.layout, storage stays in canonical order",
    "qd.Tensor": "an annotation taking a field or an ndarray (specialised per call); isinstance() holds for both",
    "qd.wrap": "returns the field or ndarray itself",
    "qd.arm64": "named; qd.init(arch=qd.arm64) falls back to qd.cpu, as an unsupported arch does in Quadrants",
    "qd.Stream": "every call runs in program order on one stream: Quadrants' results, without the overlap",
    "qd.Event": "record/wait are ordered trivially (one stream); synchronize waits for all work",
    "qd.create_stream": "see qd.Stream", "qd.create_event": "see qd.Event",
    "qd.stream_parallel": "the block's loops run one after the other",
    "qd.profiler.print_kernel_profiler_info": "wall clock per kernel call with the device synchronised (the first "
                                               "call includes compiling), not per-task CUDA events (qdexplorer "
                                               "bench gives those)",
    "qd.profiler.query_kernel_profiler_info": "see print_kernel_profiler_info",
    "qd.profiler.get_kernel_profiler_total_time": "see print_kernel_profiler_info",
    "qd.profiler.CuptiMetric": "accepted; CUPTI metrics are not collected",
    "qd.profiler.get_predefined_cupti_metrics": "returns no metrics",
    "qd.profiler.set_kernel_profiler_metrics": "accepted; CUPTI metrics are not collected",
    "qd.profiler.collect_kernel_profiler_metrics": "accepted; CUPTI metrics are not collected",
    "qd.profiler.set_kernel_profiler_toolkit": "only 'default'",
}
REFUSED.update({
    "qd.profiler.print_memory_profiler_info": "qdexplorer does not track device memory per allocation",
    "qd.profiler.print_scoped_profiler_info": "time host code with time.perf_counter",
    "qd.profiler.clear_scoped_profiler_info": "time host code with time.perf_counter",
})
_ALG = ("one thread runs it (Quadrants runs block-wide phases on GPUs and refuses it on the CPU); the scratch "
        "buffer is accepted and unused")
for _n in ("exclusive_scan_add", "exclusive_scan_min", "exclusive_scan_max", "select", "reduce_by_key_add", "sort"):
    PARTIAL[f"qd.algorithms.{_n}"] = _ALG + (" ; keys compare whole (end_bit below the key width is not honoured)"
                                             if _n == "sort" else "")
for _n in ("reduce_add", "reduce_min", "reduce_max"):
    PARTIAL[f"qd.algorithms.{_n}"] = "atomic updates of out[0] (float sums equal Quadrants' to rounding); scratch unused"
for _n in ("exclusive_scan_scratch_slots", "reduce_scratch_slots", "sort_scratch_slots", "select_scratch_slots",
           "reduce_by_key_scratch_slots"):
    PARTIAL[f"qd.algorithms.{_n}"] = "a size enough here (the scratch is unused), not Quadrants' exact count"
PARTIAL["qd.global_thread_idx"] = "CUDA only (as qd.simt.block.global_thread_idx); the CPU backend refuses it"
PARTIAL["qd.frexp"] = "written in the language (log2, then a correction step); Quadrants' CPU backend aborts on it"
PARTIAL["qd.get_addr"] = "the element's address where kernels read it (host storage on the CPU, the device copy on CUDA)"
PARTIAL["qd.clock_freq_hz"] = "measured once per backend (two kernel calls 50 ms apart)"
PARTIAL["qd.DeviceCapability"] = "the names only: qdexplorer has no Vulkan/SPIR-V backend"
PARTIAL["qd.Format"] = "the names only: qdexplorer has no textures"
PARTIAL["qd.python"] = "qd.init(arch=qd.python) runs on the CPU backend"
PARTIAL["qd.perf_dispatch"] = "times the compatible implementations per geometry (wall clock, device synchronised) and " \
                              "keeps the fastest, as Quadrants; the timing is qdexplorer's own"
PARTIAL["qd.sparse.usage"] = "a Python function over the activity mask (Quadrants' is a kernel): the same number"
PARTIAL["qd.algorithms.PrefixSumExecutor"] = "on the host with NumPy (Quadrants runs it on CUDA/Vulkan only)"
PARTIAL["qd.algorithms.parallel_sort"] = "on the host with NumPy, stable (Quadrants' odd-even merge sort is not)"
for _s in _FIELDS + _NDARRAYS:
    PARTIAL[f"{_s}.to_dlpack"] = "shares the host storage on the CPU backend; on CUDA it exports a host copy"
    PARTIAL[f"{_s}.layout"] = "accepted and reported; storage is one array per member either way"


class NotSupportedUse(QdError, NotImplementedError):
    """A use of a Quadrants name that qdexplorer.lang refuses (an argument such as `offset=`)."""


def refuse_use(what: str, todo: str) -> NotSupportedUse:
    """The one-line error for a refused use, at the user's line: "`what` is not supported ... ; todo"."""
    file, line = _caller()
    return NotSupportedUse(f"`{what}` is not supported by qdexplorer.lang ({file}:{line}); {todo}")


def message(name: str, file: str, line: int) -> str:
    todo = REFUSED.get(name, "see docs/compatibility.md")
    return f"`{name}` is not supported by qdexplorer.lang ({file}:{line}); {todo}"


def refuse(name: str) -> NotSupportedError:
    """The error for a refused name, at the user's line that reached for it."""
    file, line = _caller()
    return NotSupportedError(message(name, file, line))


def module_getattr(prefix: str, module_name: str):
    """A module `__getattr__` that refuses the Quadrants names listed under `prefix` and says
    'no attribute' for anything else."""
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(f"module '{module_name}' has no attribute '{name}'")
        if f"{prefix}.{name}" in REFUSED:
            raise refuse(f"{prefix}.{name}")
        raise unknown(f"{prefix}.{name}")
    return __getattr__


def unknown(name: str) -> NotSupportedError:
    """A name neither qdexplorer.lang nor Quadrants 1.3.3's public API has (a typo, or one of
    Quadrants' implementation modules): still one line at the user's line."""
    file, line = _caller()
    return NotSupportedError(f"`{name}` is not a name of qdexplorer.lang ({file}:{line}); docs/compatibility.md "
                             f"lists Quadrants' public names and what qdexplorer does with each")


def refuse_attr(surface: str, obj, name: str):
    """For a class's `__getattr__`: the refusal of `surface.name` if it is listed, else the usual error."""
    if f"{surface}.{name}" in REFUSED:
        raise refuse(f"{surface}.{name}")
    if surface.startswith("qd."):  # a namespace object (qd.types): one line, as a module gives
        raise unknown(f"{surface}.{name}")
    raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
