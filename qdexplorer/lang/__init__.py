"""The kernel language: `import qdexplorer.lang as qd`.

Quadrants' surface, so a Quadrants kernel ports by changing its import line.
"""
from ..ir.dtypes import (DType, f16, f32, f64, float16, float32, float64, i8, i16, i32, i64, int8, int16, int32,  # noqa: F401
                         int64, u1, u8, u16, u32, u64, uint8, uint16, uint32, uint64)
from .qd_types import NDArray, types  # noqa: F401
from .quant import BitpackedFields  # noqa: F401
from .field import Field, Ndarray  # noqa: F401
from .host.buffer_view import BufferView  # noqa: F401
from .alloc import field, ndarray  # noqa: F401
from .template import Template, template  # noqa: F401
from .struct_types import Layout, Struct, StructField, dataclass  # noqa: F401
from .vector_types import Matrix, Vector  # noqa: F401
from .kernel import Func, Kernel, Workload, func, kernel, workload  # noqa: F401
from .func import data_oriented, real_func, ref  # noqa: F401
from .compat import experimental  # noqa: F401
from .tensor import Backend, MatrixTensor, Tensor, VectorTensor, tensor, wrap  # noqa: F401
from .intrinsics import (acos, asin, atan, atan2, atomic_add, atomic_and, atomic_max, atomic_min,  # noqa: F401
                         atomic_or, atomic_sub, atomic_xor, bit_shr, zero,
                         cast, ceil, cos, exp, floor, grouped, log, loop_config, ndrange, random, randn, select, pow,
                         round, rsqrt, simt,
                         sin, sqrt, static, tan, tanh)
from .intrinsics import abs, max, min  # noqa: F401,A004
import sys as _sys

from . import qdmath as math  # noqa: F401

# `import qdexplorer.lang.math as tm` / `from qdexplorer.lang.math import cmul`, as programs import
# `quadrants.math`; the math library's package is qdmath/ so that no module of this package is named
# like the standard library's `math` (it would shadow it for anything run from this folder)
_sys.modules[__name__ + ".math"] = math
from ..ir.errors import (QdCompileError, QdError, QdRuntimeError, QuadrantsAssertionError,  # noqa: F401
                         QuadrantsCompilationError, QuadrantsIndexError, QuadrantsNameError,
                         QuadrantsRuntimeError, QuadrantsRuntimeTypeError, QuadrantsSyntaxError,
                         QuadrantsTypeError)
from .calls.runtime_api import amdgpu, arm64, cpu, cuda, gpu, init, metal, reset, sync, vulkan, x64  # noqa: F401
from .compat.extension import extension  # noqa: F401
from .autodiff import ad  # noqa: F401
from .snode import SNode, axes, deactivate_all_snodes, root  # noqa: F401
from .qdmath.svd import polar_decompose, svd  # noqa: F401
from .qdmath.solve import solve  # noqa: F401
from .intrinsics import activate, append, deactivate, is_active, length, rescale_index  # noqa: F401
from .intrinsics import atomic_cas, atomic_exchange, atomic_mul, bit_cast, clock_counter  # noqa: F401
from .host.clock import clock_freq_hz  # noqa: F401
from .intrinsics import (assume_in_range, block_local, cache_read_only, no_activate, one, raw_div,  # noqa: F401
                         raw_mod, static_assert, static_print, stop_grad, volatile_load)
from .compat.host_api import (CRITICAL, DEBUG, ERROR, INFO, TRACE, WARN, MatrixField, MatrixNdarray, ScalarField,  # noqa: F401
                              ScalarNdarray, VectorNdarray, dump_compile_config, is_extension_enabled,
                              is_logging_effective, pure, set_logging_level, DeviceCapability, Format, get_addr)
from .compat.perf_dispatch import perf_dispatch  # noqa: F401
from .qdmath.frexp import frexp  # noqa: F401
from .qdmath.eig import eig  # noqa: F401
from .qdmath.sym_eig import make_spd as _make_spd, sym_eig_general as _sym_eig_general  # noqa: E402
from .func import func as _func  # noqa: E402
from .calls.runtime_api import float_type as _float_type  # noqa: E402


@_func
def sym_eig(A, dt=None):
    """`qd.sym_eig(A, dt)`: eigenvalues ascending and eigenvectors (columns) of a symmetric n x n matrix,
    2 <= n <= 6, by Quadrants' cyclic Jacobi; `dt` defaults to the program's default float."""
    return _sym_eig_general(A, static(_float_type(dt)))


@_func
def make_spd(A, dt=None):
    """`qd.make_spd(A, dt)`: A with its negative eigenvalues clamped to 0 (Quadrants' projection)."""
    return _make_spd(A, static(_float_type(dt)))
global_thread_idx = simt.block.global_thread_idx  # CUDA's thread index (the block helpers' own)
from ..ir.dtypes import u1 as uint1  # noqa: F401
from .kernel import func as pyfunc  # noqa: F401  - a @qd.func is callable from Python as well
x86_64 = x64
python = "python"  # Quadrants' python arch: qd.init(arch=qd.python) runs on the CPU backend here
from .host.streams import Event, Stream, create_event, create_stream, stream_parallel  # noqa: F401,E402
from .compat.graph_api import graph  # noqa: F401,E402
from .compat import host_api as _logging  # noqa: F401,E402 - Quadrants' qd._logging (set_logging_level, is_logging_effective)
from .compat.graph_api import do_while as graph_do_while, parallel as graph_parallel  # noqa: F401,E402
from .compat.graph_api import parallel_context as graph_parallel_context  # noqa: F401,E402
from .compat import profiler  # noqa: F401,E402
from . import linalg  # noqa: F401,E402
from . import algorithms  # noqa: F401,E402
from . import tools  # noqa: F401,E402
from . import sparse_grid as sparse  # noqa: F401,E402
from .compat.builder_type import sparse_matrix_builder  # noqa: F401,E402
from .host.fields_builder import FieldsBuilder  # noqa: F401,E402
from .compat.lang_namespace import lang  # noqa: F401,E402
from .compat.config_view import cfg  # noqa: F401,E402
_sys.modules[__name__ + ".lang"] = lang

i, j, k, l = axes(0), axes(1), axes(2), axes(3)  # noqa: E741
ij, ik, il, jk, jl, kl = axes(0, 1), axes(0, 2), axes(0, 3), axes(1, 2), axes(1, 3), axes(2, 3)
ijk, ijl, ikl, jkl, ijkl = axes(0, 1, 2), axes(0, 1, 3), axes(0, 2, 3), axes(1, 2, 3), axes(0, 1, 2, 3)

from .compat import surface as _compat

__getattr__ = _compat.module_getattr("qd", __name__)
