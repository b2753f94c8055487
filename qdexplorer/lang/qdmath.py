"""`qd.math`: the math functions kernels may call (accurate libdevice/libm versions)."""
from .intrinsics import (acos, asin, atan, atan2, ceil, cos, exp, floor, log, pow, round, rsqrt,  # noqa: F401
                         sin, sqrt, tan, tanh)
from .intrinsics import abs, max, min  # noqa: F401,A004
import math as _m

pi = _m.pi
e = _m.e
inf = _m.inf
