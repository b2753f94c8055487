"""What of Quadrants 1.3.3's public surface qdexplorer.lang refuses, and what it supports only in part.

`benchmarks/api_surface.py` walks real Quadrants' names and writes docs/compatibility.md from these
two tables; the modules and classes of this package consult `REFUSED` in their `__getattr__`, so a
program that reaches for a refused name gets one line naming it, the program's own file:line and
what to do, never a bare AttributeError. Keys are the names as the doc lists them: `qd.X`,
`qd.linalg.X`, and for instances `field.X`, `ndarray.X`, `matrix.X`, `snode.X`, `kernel.X`, ...
"""
from __future__ import annotations

from .errors import QdError
from .field import _caller


class NotSupportedError(QdError, AttributeError):
    """A Quadrants name qdexplorer.lang leaves out. An AttributeError too, so `hasattr` and
    `getattr(x, name, default)` still answer False / the default."""


_DEVICE_ONLY = "qdexplorer runs one stream in order (CPU or one CUDA stream)"
_MESH = "Quadrants' mesh support (qd.Mesh, mesh-for loops) is not in qdexplorer; store the mesh in fields"

REFUSED: dict[str, str] = {
    # the tensor wrapper of newer Quadrants (the `suite` helper's part of issue 29)
    "qd.Backend": "allocate with qd.field or qd.ndarray",
    "qd.Tensor": "annotate with qd.template() or qd.types.NDArray",
    "qd.tensor": "allocate with qd.field or qd.ndarray",
    "qd.wrap": "pass the field or ndarray itself",
    "qd.MatrixTensor": "use qd.Matrix.field / qd.Matrix.ndarray",
    "qd.VectorTensor": "use qd.Vector.field / qd.Vector.ndarray",
    "qd.BufferView": "pass the field or ndarray itself",
    "qd.real_func": "use @qd.func (inlined)",
    "qd.experimental": "use @qd.func (inlined) for real_func",
    "qd.sparse_matrix_builder": "use qd.types.sparse_matrix_builder() as the annotation",
    "qd.BitpackedFields": "quantized types are not supported; use full-width dtypes",
    "qd.arm64": "use qd.cpu",
    # devices, streams, graphs
    "qd.Stream": _DEVICE_ONLY + "; drop the stream",
    "qd.Event": _DEVICE_ONLY + "; drop the event",
    "qd.create_stream": _DEVICE_ONLY + "; drop the stream",
    "qd.create_event": _DEVICE_ONLY + "; drop the event",
    "qd.stream_parallel": _DEVICE_ONLY + "; write the loops one after the other",
    "qd.graph": "CUDA graphs are not built by qdexplorer; call the kernels directly",
    "qd.graph_do_while": "CUDA graphs are not built by qdexplorer; loop in Python",
    "qd.graph_parallel": "CUDA graphs are not built by qdexplorer; call the kernels directly",
    "qd.graph_parallel_context": "CUDA graphs are not built by qdexplorer; call the kernels directly",
    "qd.GraphStatus": "CUDA graphs are not built by qdexplorer; call the kernels directly",
    "qd.checkpoint": "CUDA graphs are not built by qdexplorer; split the kernel in two",
    "qd.DeviceCapability": "qdexplorer targets one device kind per backend; drop the capability query",
    "qd.interop": "Metal interop is not in qdexplorer (no Metal backend)",
    "qd.get_addr": "raw addresses are not exposed; index the field",
    "qd.clock_counter": "time kernels with qdexplorer's own per-task timings (qdexplorer bench)",
    "qd.clock_freq_hz": "time kernels with qdexplorer's own per-task timings (qdexplorer bench)",
    "qd.global_thread_idx": "use the loop index of the top-level for (each index is one thread's work)",
    "qd.perf_dispatch": "register one implementation and call it",
    "qd.profiler": "use qdexplorer's per-task timings (`qdexplorer bench`, the window's plots)",
    "qd.tools": "write files with NumPy (to_numpy()) or meshio",
    "qd.Mesh": _MESH,
    "qd.MeshInstance": _MESH,
    "qd.mesh_local": _MESH,
    "qd.mesh_patch_idx": _MESH,
    "qd.algorithms": "write the loop with atomics, or qd.loop_config(serialize=True)",
    "qd.sparse": "use pointer/bitmasked SNodes (qd.root.pointer)",
    "qd.eig": "use qd.sym_eig for symmetric matrices, or NumPy outside kernels",
    "qd.Format": "a Vulkan image format; qdexplorer has no Vulkan backend",
    "qd.stop_grad": "compute the value in a separate kernel without needs_grad",
}

PARTIAL: dict[str, str] = {}


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
        if f"{prefix}.{name}" in REFUSED:
            raise refuse(f"{prefix}.{name}")
        raise AttributeError(f"module '{module_name}' has no attribute '{name}'")
    return __getattr__


def refuse_attr(surface: str, obj, name: str):
    """For a class's `__getattr__`: the refusal of `surface.name` if it is listed, else the usual error."""
    if f"{surface}.{name}" in REFUSED:
        raise refuse(f"{surface}.{name}")
    raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
