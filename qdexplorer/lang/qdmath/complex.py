"""`qd.math`'s complex numbers as vec2 (real, imaginary): `cmul`, `cdiv`, `cconj`, `cinv`, `csqrt`,
`cpow`, `cexp`, `clog`, written in the kernel language with Quadrants' formulas
(quadrants/math/_complex.py)."""
from __future__ import annotations

from ..func import func
from ..intrinsics import atan2, cos, exp, log, pow, sin, sqrt  # noqa: A004
from .vec import dot
from ..vector_types import vec2


@func
def cmul(z1, z2):
    x1, y1 = z1[0], z1[1]
    x2, y2 = z2[0], z2[1]
    return vec2(x1 * x2 - y1 * y2, x1 * y2 + x2 * y1)


@func
def cconj(z):
    return vec2(z[0], -z[1])


@func
def cdiv(z1, z2):
    x1, y1 = z1[0], z1[1]
    x2, y2 = z2[0], z2[1]
    return vec2(x1 * x2 + y1 * y2, -x1 * y2 + x2 * y1) / dot(z2, z2)


@func
def csqrt(z):
    result = vec2(0.0)
    if any(z):
        r = sqrt(z.norm())
        a = atan2(z[1], z[0])
        result = r * vec2(cos(a / 2.0), sin(a / 2.0))
    return result


@func
def cinv(z):
    return cconj(z) / dot(z, z)


@func
def cpow(z, n):
    result = vec2(0.0)
    if any(z):
        r2 = dot(z, z)
        a = atan2(z[1], z[0]) * n
        result = pow(r2, n / 2.0) * vec2(cos(a), sin(a))
    return result


@func
def cexp(z):
    r = exp(z[0])
    return vec2(r * cos(z[1]), r * sin(z[1]))


@func
def clog(z):
    ang = atan2(z[1], z[0])
    r2 = dot(z, z)
    return vec2(log(r2) / 2.0, ang)
