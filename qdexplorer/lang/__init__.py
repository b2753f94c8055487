"""The kernel language: `import qdexplorer.lang as qd`.

Quadrants' surface, so a Quadrants kernel ports by changing its import line.
"""
from .types import (DType, NDArray, f32, f64, float32, float64, i32, i64, int32, int64,  # noqa: F401
                    types, u32, uint32)
from .field import Field, Ndarray, field, ndarray  # noqa: F401
from .template import template  # noqa: F401
from .vector_types import Matrix, Vector  # noqa: F401
from .kernel import Func, Kernel, Workload, func, kernel, workload  # noqa: F401
from .intrinsics import (acos, asin, atan, atan2, atomic_add, atomic_and, atomic_max, atomic_min,  # noqa: F401
                         atomic_or, atomic_sub, atomic_xor,
                         cast, ceil, cos, exp, floor, grouped, log, loop_config, ndrange, pow, round, rsqrt, simt,
                         sin, sqrt, static, tan, tanh)
from .intrinsics import abs, max, min  # noqa: F401,A004
from . import qdmath as math  # noqa: F401
from .errors import (QdCompileError, QdError, QdRuntimeError, QuadrantsAssertionError,  # noqa: F401
                     QuadrantsCompilationError, QuadrantsIndexError, QuadrantsNameError, QuadrantsRuntimeError,
                     QuadrantsRuntimeTypeError, QuadrantsSyntaxError, QuadrantsTypeError)
from .runtime_api import cpu, cuda, gpu, init, reset  # noqa: F401
