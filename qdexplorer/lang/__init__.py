"""The kernel language: `import qdexplorer.lang as qd`.

Quadrants' surface, so a Quadrants kernel ports by changing its import line.
"""
from .types import (DType, f16, f32, f64, float16, float32, float64, i8, i16, i32, i64,  # noqa: F401
                    int8, int16, int32, int64, u1, u8, u16, u32, u64, uint8, uint16, uint32, uint64)
from .qd_types import NDArray, types  # noqa: F401
from .field import Field, Ndarray, _caller  # noqa: F401
from .alloc import field, ndarray  # noqa: F401
from .template import Template, template  # noqa: F401
from .struct_types import Layout, Struct, StructField, dataclass  # noqa: F401
from .vector_types import Matrix, Vector  # noqa: F401
from .kernel import Func, Kernel, Workload, func, kernel, workload  # noqa: F401
from .func import data_oriented  # noqa: F401
from .tensor import Backend, Tensor, tensor, wrap  # noqa: F401
from .log_levels import CRITICAL, DEBUG, ERROR, INFO, TRACE, WARN, set_logging_level  # noqa: F401
from .intrinsics import (acos, asin, atan, atan2, atomic_add, atomic_and, atomic_max, atomic_min,  # noqa: F401
                         atomic_or, atomic_sub, atomic_xor, bit_shr, block_local, one, zero,
                         cast, ceil, cos, exp, floor, grouped, log, loop_config, ndrange, random, randn, select, pow,
                         round, rsqrt, simt,
                         sin, sqrt, static, tan, tanh)
from .intrinsics import abs, max, min  # noqa: F401,A004
import sys as _sys

from . import qdmath as math  # noqa: F401

# `import qdexplorer.lang.math as tm` / `from qdexplorer.lang.math import cmul`, as programs import
# `quadrants.math`; the file is qdmath.py so that no module of this package is named like the
# standard library's `math` (it would shadow it for anything run from this folder)
_sys.modules[__name__ + ".math"] = math
from .errors import (QdCompileError, QdError, QdRuntimeError, QuadrantsAssertionError,  # noqa: F401
                     QuadrantsCompilationError, QuadrantsIndexError, QuadrantsNameError, QuadrantsRuntimeError,
                     QuadrantsRuntimeTypeError, QuadrantsSyntaxError, QuadrantsTypeError)
from .runtime_api import amdgpu, arm64, cpu, cuda, gpu, init, metal, reset, sync, vulkan, x64  # noqa: F401
from .extension import extension  # noqa: F401
from . import ad  # noqa: F401
from .snode import SNode, axes, root  # noqa: F401
from .math_svd import polar_decompose, svd  # noqa: F401
from .math_solve import solve  # noqa: F401
from .intrinsics import activate, append, deactivate, is_active, length, rescale_index  # noqa: F401

i, j, k, l = axes(0), axes(1), axes(2), axes(3)  # noqa: E741
ij, ik, il, jk, jl, kl = axes(0, 1), axes(0, 2), axes(0, 3), axes(1, 2), axes(1, 3), axes(2, 3)
ijk, ijl, ikl, jkl, ijkl = axes(0, 1, 2), axes(0, 1, 3), axes(0, 2, 3), axes(1, 2, 3), axes(0, 1, 2, 3)

_LEFT_OUT = {  # name: (what it is, what to do instead)
    "real_func": ("@qd.real_func", "use @qd.func (inlined)"),
    "sparse_matrix_builder": ("a sparse matrix", ""),
    "quant": ("a quantized type", ""),
    "algorithms": ("qd.algorithms (device-wide reduce/scan/sort on block shared memory)", "write the loop with atomics, or qd.loop_config(serialize=True)"),
}


def __getattr__(name):
    """Quadrants names qdexplorer leaves out fail with what to do instead, not a bare AttributeError."""
    if name in _LEFT_OUT:
        what, instead = _LEFT_OUT[name]
        file, line = _caller()
        raise AttributeError(f"{file}:{line}: qd.{name}: {what} is not supported by qdexplorer"
                             + (f"; {instead}" if instead else "") + " (see docs/language.md)")
    raise AttributeError(f"module 'qdexplorer.lang' has no attribute '{name}'")
