"""Small host-side names of Quadrants' top level: logging levels, configuration queries, the
`qd.ScalarField`/`qd.MatrixField`/... classes programs test with `isinstance`, and decorators
that change nothing here (`qd.pure`: every kernel is already cached by its source)."""
from __future__ import annotations

import enum
import json

import numpy as np

from ..calls import runtime_api
from ..field import Field, Ndarray, element_index, flat_index
from ..host.field_components import ScalarComponent
from ..struct_types import StructField

TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL = "trace", "debug", "info", "warn", "error", "critical"
_LEVELS = [TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL]
_level = {"now": INFO}


def set_logging_level(level: str):
    """`qd.set_logging_level(qd.WARN)`: qdexplorer's own messages are warnings and errors, so this
    only records the level that `is_logging_effective` answers from."""
    if level not in _LEVELS:
        raise ValueError(f"qd.set_logging_level: unknown level {level!r}; use one of qd.TRACE ... qd.CRITICAL")
    _level["now"] = level


def is_logging_effective(level: str) -> bool:
    return _LEVELS.index(level) >= _LEVELS.index(_level["now"])


def dump_compile_config() -> None:
    """Print the options kernels compile with (Quadrants prints its compile config)."""
    print(json.dumps(runtime_api.settings(), sort_keys=True))


def is_extension_enabled(ext) -> bool:
    """Only `data64` (f64/i64 everywhere) of Quadrants' extensions is in qdexplorer."""
    return getattr(ext, "name", str(ext)) == "data64"


def pure(fn):
    """`@qd.pure`: Quadrants' hint that a kernel reads no Python globals that change; kernels here are
    keyed by their source and the values they capture, so it changes nothing."""
    return fn


class DeviceCapability:
    """`qd.DeviceCapability`: the SPIR-V capability names of Quadrants' Vulkan backend, which qdexplorer
    does not have; named so that code querying them imports."""
    spirv_has_atomic_float, spirv_has_atomic_float16, spirv_has_atomic_float16_add = 0, 1, 2


Format = enum.IntEnum("Format", ["unknown", "r8", "rg8", "rgba8", "rgba8srgb", "bgra8", "bgra8srgb", "r8u", "rg8u",
                                 "rgba8u", "r8i", "rg8i", "rgba8i", "r16", "rg16", "rgb16", "rgba16", "r16u", "rg16u",
                                 "rgb16u", "rgba16u", "r16i", "rg16i", "rgb16i", "rgba16i", "r16f", "rg16f", "rgb16f",
                                 "rgba16f", "r32u", "rg32u", "rgb32u", "rgba32u", "r32i", "rg32i", "rgb32i", "rgba32i",
                                 "r32f", "rg32f", "rgb32f", "rgba32f", "depth16", "depth24stencil8", "depth32f"],
                      start=0)
Format.__doc__ = "`qd.Format`: Quadrants' texture formats, named (qdexplorer has no textures)."


class _KindMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, cls._base) and cls._test(obj)  # type: ignore[attr-defined]


def _kind(name: str, base: type | tuple, test) -> type:
    return _KindMeta(name, (), {"_base": base, "_test": staticmethod(test),
                                "__doc__": f"`qd.{name}`: for isinstance checks ({getattr(base, '__name__', 'Field')} with that element kind)."})


# x.get_scalar_field(i) of a vector field is a ScalarField in Quadrants (difftaichi smoke's soa() recurses on it)
ScalarField = _kind("ScalarField", (Field, ScalarComponent), lambda f: not f.elem_shape)
MatrixField = _kind("MatrixField", Field, lambda f: bool(f.elem_shape))
ScalarNdarray = _kind("ScalarNdarray", Ndarray, lambda a: not a.elem_shape)
VectorNdarray = _kind("VectorNdarray", Ndarray, lambda a: len(a.elem_shape) == 1)
MatrixNdarray = _kind("MatrixNdarray", Ndarray, lambda a: len(a.elem_shape) == 2)
__all__ = ["StructField"]


def get_addr(f, indices) -> int:
    """`qd.get_addr(x, [i, j])`: the address of element (i, j) where kernels read it: the device copy on
    CUDA, the host storage on the CPU backend (which is what its tasks use)."""
    idx = element_index(f, tuple(indices) if isinstance(indices, (list, tuple)) else indices)
    flat = flat_index(f, idx)  # a field nested out of axis order: its memory's order
    per_elem = int(np.prod(f.elem_shape)) if f.elem_shape else 1
    mirror = f.residency.mirror
    base = getattr(mirror, "ptr", None) if mirror is not None else None
    if base is None:
        base = f.host().ctypes.data
    return int(base) + flat * per_elem * f.storage.itemsize
