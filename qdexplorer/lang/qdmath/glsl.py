"""GLSL-style functions of `qd.math` (`fract`, `step`, `smoothstep`, `sign`, `log2`, `mod`,
`reflect`, ...), written in the kernel language as Quadrants writes them: each is a `@qd.func`,
inlined where it is called, and works componentwise on vectors. The formulas are Quadrants'
(quadrants/math/mathimpl.py), so results agree to rounding."""
from __future__ import annotations

import math as _m

from ..func import func
from ..intrinsics import abs, cast, cos, floor, log, sin, sqrt, static  # noqa: A004
from .vec import clamp
from ..vector_types import vec2

pi = _m.pi
inf = _m.inf


@func
def step(edge, x):
    """0.0 where x < edge, else 1.0."""
    return cast(x >= edge, float)


@func
def fract(x):
    """The fractional part, x - floor(x)."""
    return x - floor(x)


@func
def smoothstep(edge0, edge1, x):
    """Hermite interpolation between 0 and 1 as x goes from edge0 to edge1."""
    t = clamp((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


@func
def sign(x):
    """-1.0, 0.0 or 1.0."""
    return cast(x >= 0.0, float) - cast(x <= 0.0, float)


@func
def log2(x):
    return log(x) / static(log(2.0))


@func
def mod(x, y):
    """x modulo y with the sign of y: x - y * floor(x / y)."""
    return x - y * floor(x / y)


@func
def degrees(x):
    return x * static(180.0 / pi)


@func
def radians(x):
    return x * static(pi / 180.0)


@func
def distance(x, y):
    return (x - y).norm()


@func
def reflect(x, n):
    """The reflection of incident x off the surface of (unit) normal n."""
    k = x.dot(n)
    return x - 2.0 * k * n


@func
def refract(x, n, eta):
    """The refraction of incident x through the surface of (unit) normal n, for the ratio eta of
    indices of refraction; the zero vector on total internal reflection."""
    dxn = x.dot(n)
    result = x * 0.0
    k = 1.0 - eta * eta * (1.0 - dxn * dxn)
    if k >= 0.0:
        result = eta * x - (eta * dxn + sqrt(k)) * n
    return result


@func
def vdir(ang):
    """The unit 2-D vector at angle ang."""
    return vec2(cos(ang), sin(ang))


@func
def isnan(x):
    return x != x


@func
def isinf(x):
    return abs(x) == inf
