"""`qd.math` (`import qdexplorer.lang.math as tm`, as Quadrants programs `import quadrants.math`):
the math functions kernels may call (accurate libdevice/libm versions), the small vector and matrix
types, and Quadrants' GLSL-style, transform, bit and complex-number functions."""
import math as _m

from ...ir import dtypes as _t
from ..vector_types import matrix as _matrix, vector as _vector

from ..intrinsics import (acos, asin, atan, atan2, ceil, clz, cos, exp, ffs, floor, log, popcnt, pow,  # noqa: F401
                         round, rsqrt, sin, sqrt, tan, tanh)
from ..intrinsics import abs, max, min  # noqa: F401,A004
from .complex import cconj, cdiv, cexp, cinv, clog, cmul, cpow, csqrt  # noqa: F401
from .glsl import (degrees, distance, fract, isinf, isnan, log2, mod, radians, reflect, refract,  # noqa: F401
                        sign, smoothstep, step, vdir)
from .transforms import (eye, rot_by_axis, rot_yaw_pitch_roll, rotation2d, rotation3d, scale,  # noqa: F401
                              translate)
from .vec import clamp, cross, determinant, dot, inverse, length, mix, normalize, transpose  # noqa: F401
from ..vector_types import (ivec2, ivec3, ivec4, mat2, mat3, mat4, uvec2, uvec3, uvec4, vec2, vec3,  # noqa: F401
                           vec4)



def _retype(default_ip, default_fp):
    """`qd.init(default_ip=qd.i64, default_fp=qd.f64)`: `qd.math.ivec2`, `vec2`, `mat2`, ... take the
    new default types, as Quadrants' do (`uvec` the unsigned one of default_ip's width)."""
    ip, fp = default_ip or _t.i32, default_fp or _t.f32
    up = _t.u64 if ip == _t.i64 else _t.u32
    for n in (2, 3, 4):
        globals().update({f"vec{n}": _vector(n, fp), f"ivec{n}": _vector(n, ip), f"uvec{n}": _vector(n, up),
                          f"mat{n}": _matrix(n, n, fp)})


from ..calls import runtime_api as _runtime_api  # noqa: E402

_runtime_api.on_init(_retype)

pi = _m.pi
e = _m.e
inf = _m.inf
nan = _m.nan


from ..compat import surface as _compat  # noqa: E402

__getattr__ = _compat.module_getattr("qd.math", "qdexplorer.lang.math")
