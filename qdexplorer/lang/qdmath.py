"""`qd.math`: the math functions kernels may call (accurate libdevice/libm versions), and the small
vector and matrix types and functions (`vec3`, `dot`, `cross`, `normalize`...)."""
from .intrinsics import (acos, asin, atan, atan2, ceil, cos, exp, floor, log, pow, round, rsqrt,  # noqa: F401
                         sin, sqrt, tan, tanh)
from .intrinsics import abs, max, min  # noqa: F401,A004
import math as _m

pi = _m.pi
e = _m.e
inf = _m.inf

import numpy as _np

from .intrinsics import Intrinsic as _Intrinsic
from .vector_types import ivec2, ivec3, ivec4, mat2, mat3, mat4, vec2, vec3, vec4  # noqa: F401,E402

dot = _Intrinsic("dot", "vecmath", lambda a, b: _np.dot(a, b))
cross = _Intrinsic("cross", "vecmath", lambda a, b: _np.cross(a, b))
normalize = _Intrinsic("normalize", "vecmath", lambda a: _np.asarray(a) / _np.linalg.norm(a))
length = _Intrinsic("length", "vecmath", lambda a: float(_np.linalg.norm(a)))
clamp = _Intrinsic("clamp", "vecmath", lambda x, lo, hi: _np.clip(x, lo, hi))
mix = _Intrinsic("mix", "vecmath", lambda x, y, a: x * (1 - a) + y * a)
transpose = _Intrinsic("transpose", "vecmath", lambda m: _np.transpose(m))
determinant = _Intrinsic("determinant", "vecmath", lambda m: float(_np.linalg.det(m)))
