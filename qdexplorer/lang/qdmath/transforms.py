"""`qd.math`'s 2-D and 3-D transform matrices (`translate`, `scale`, `rot_by_axis`,
`rot_yaw_pitch_roll`, `rotation2d`, `rotation3d`) and `eye`, written in the kernel language with
Quadrants' formulas (quadrants/math/mathimpl.py)."""
from __future__ import annotations

from ..func import func
from ..intrinsics import cos, sin
from ..template import template
from .vec import normalize
from ..vector_types import Matrix, mat2, mat4


@func
def translate(dx, dy, dz):
    return mat4([[1.0, 0.0, 0.0, dx], [0.0, 1.0, 0.0, dy], [0.0, 0.0, 1.0, dz], [0.0, 0.0, 0.0, 1.0]])


@func
def scale(sx, sy, sz):
    return mat4([[sx, 0.0, 0.0, 0.0], [0.0, sy, 0.0, 0.0], [0.0, 0.0, sz, 0.0], [0.0, 0.0, 0.0, 1.0]])


@func
def rot_by_axis(axis, ang):
    """The 4x4 rotation by ang radians around axis."""
    c = cos(ang)
    s = sin(ang)
    axis = normalize(axis)
    temp = (1 - c) * axis
    return mat4([[c + temp[0] * axis[0], temp[0] * axis[1] + s * axis[2], temp[0] * axis[2] - s * axis[1], 0.0],
                 [temp[1] * axis[0] - s * axis[2], c + temp[1] * axis[1], temp[1] * axis[2] + s * axis[0], 0.0],
                 [temp[2] * axis[0] + s * axis[1], temp[2] * axis[1] - s * axis[0], c + temp[2] * axis[2], 0.0],
                 [0.0, 0.0, 0.0, 1.0]])


@func
def rot_yaw_pitch_roll(yaw, pitch, roll):
    ch = cos(yaw)
    sh = sin(yaw)
    cp = cos(pitch)
    sp = sin(pitch)
    cb = cos(roll)
    sb = sin(roll)
    return mat4([[ch * cb + sh * sp * sb, sb * cp, -sh * cb + ch * sp * sb, 0.0],
                 [-ch * sb + sh * sp * cb, cb * cp, sb * sh + ch * sp * cb, 0.0],
                 [sh * cp, -sp, ch * cp, 0.0],
                 [0.0, 0.0, 0.0, 1.0]])


@func
def rotation2d(ang):
    ca, sa = cos(ang), sin(ang)
    return mat2([[ca, -sa], [sa, ca]])


@func
def rotation3d(ang_x, ang_y, ang_z):
    return rot_yaw_pitch_roll(ang_z, ang_x, ang_y)


@func
def eye(n: template()):  # type: ignore[valid-type]  # the kernel language's annotation, not a type
    """The n x n identity (n known at compile time)."""
    return Matrix.identity(float, n)
