# corpus: genesis_sdf
# source: github:Genesis-Embodied-AI/Genesis@7bf5f6a7bf2946efc3a1e93667700011456078b5 genesis/utils/sdf.py genesis/utils/array_class.py genesis/utils/geom.py genesis/constants.py
# license: Apache-2.0
# area: rigid
# port: sdf.py copied verbatim from sdf_kernel_init_geom_fields on; from array_class.py the field-mode aliases, AutoInitMeta, StructSDFGeomInfo/StructSDFInfo and their get_* builders verbatim; the Quadrants section of geom.py verbatim (as module gu); GEOM_TYPE/PARA_LEVEL from constants.py verbatim; `gs` -> stand-in namespace; scene: sphere, plane and two mesh geoms whose SDF grids (values, gradients, closest verts) are built with numpy, 2 batches of numpy-seeded poses, 500 query points through sdf_func_world / grad_world / normal_world / find_closest_vert; checksum lines added
import math
import types

import numpy as np
import quadrants as qd

# ---- stand-in for `import genesis as gs`: what genesis.init(precision="32") sets on the CPU ----
gs = types.SimpleNamespace()
gs.qd_float, gs.np_float = qd.f32, np.float32
gs.qd_int, gs.np_int = qd.i32, np.int32
gs.qd_bool, gs.np_bool = qd.u1, np.bool_
gs.qd_vec2 = qd.types.vector(2, gs.qd_float)
gs.qd_vec3 = qd.types.vector(3, gs.qd_float)
gs.qd_vec4 = qd.types.vector(4, gs.qd_float)
gs.qd_vec6 = qd.types.vector(6, gs.qd_float)
gs.qd_vec7 = qd.types.vector(7, gs.qd_float)
gs.qd_vec11 = qd.types.vector(11, gs.qd_float)
gs.qd_mat3 = qd.types.matrix(3, 3, gs.qd_float)
gs.qd_mat4 = qd.types.matrix(4, 4, gs.qd_float)
gs.qd_ivec2 = qd.types.vector(2, gs.qd_int)
gs.qd_ivec3 = qd.types.vector(3, gs.qd_int)
gs.qd_ivec4 = qd.types.vector(4, gs.qd_int)
gs.EPS = float(max(1e-15, np.finfo(gs.np_float).eps))
gs.raise_exception = lambda msg="": (_ for _ in ()).throw(RuntimeError(msg))

# the qd.init kwargs genesis.init() passes on the CPU (arch cpu, debug off, seed unset)
qd.init(
    arch=qd.cpu,
    enable_fallback=False,
    debug=False,
    check_out_of_bound=False,
    force_scalarize_matrix=True,
    advanced_optimization=True,
    cfg_optimization=False,
    fast_math=True,
    default_ip=gs.qd_int,
    default_fp=gs.qd_float,
    unrolling_limit=100,
    cpu_max_num_threads=1,
)

def report(label, arr):
    a = np.asarray(arr)
    if a.dtype.kind in "iub":
        a = a.astype(np.int64)
        print(f"checksum {label}", int(a.sum()))
        print(f"checksum {label}_w", int((a.ravel() * (np.arange(a.size) % 97 + 1)).sum()))
    else:
        a = a.astype(np.float64)
        fin = np.isfinite(a)
        # signed sums of fields like pressure cancel to ~0 and are brittle under rtol: use magnitudes
        w = (np.arange(a.size) % 89 + 1).reshape(a.shape)
        print(f"checksum {label}_abs", repr(float(np.abs(a[fin]).sum())))
        print(f"checksum {label}_sq", repr(float(np.square(a[fin]).sum())))
        print(f"checksum {label}_wabs", repr(float(np.abs(a * w)[fin].sum())))
        if not fin.all():
            print(f"checksum {label}_nonfinite", int((~fin).sum()))


import dataclasses
from enum import IntEnum
from functools import partial

from typing_extensions import dataclass_transform

# ---- genesis/constants.py: GEOM_TYPE, PARA_LEVEL (verbatim) ----
class GEOM_TYPE(IntEnum):
    # Beware PLANE must be the first geometry type as this is assumed by MPR collision detection.
    PLANE = 0
    SPHERE = 1
    ELLIPSOID = 2
    CYLINDER = 3
    CAPSULE = 4
    BOX = 5
    MESH = 6
    TERRAIN = 7

class PARA_LEVEL(IntEnum):
    NEVER = 0  # when using cpu
    PARTIAL = 1  # when using gpu for non-batched scene
    ALL = 2  # when using gpu for batched scene

gs.GEOM_TYPE = GEOM_TYPE
gs.PARA_LEVEL = PARA_LEVEL
gs.use_ndarray = False

# ---- genesis/utils/array_class.py, field mode (gs.use_ndarray False) ----
V_ANNOTATION = qd.types.ndarray() if gs.use_ndarray else qd.template
V = qd.ndarray if gs.use_ndarray else qd.field
V_VEC = qd.Vector.ndarray if gs.use_ndarray else qd.Vector.field
V_MAT = qd.Matrix.ndarray if gs.use_ndarray else qd.Matrix.field
DATA_ORIENTED = partial(dataclasses.dataclass, frozen=True) if gs.use_ndarray else qd.data_oriented

@dataclass_transform(eq_default=True, order_default=True, kw_only_default=False, frozen_default=True)
class AutoInitMeta(type):
    def __new__(cls, name, bases, namespace):
        names = tuple(namespace["__annotations__"].keys())
        defaults = {k: namespace[k] for k in names if k in namespace}

        def __init__(self, *args, **kwargs):
            # Initialize assigned arguments from defaults
            assigned = defaults.copy()

            # Assign positional arguments
            if len(args) > len(names):
                raise TypeError(f"{name}() takes {len(names)} positional arguments but {len(args)} were given")
            for key, value in zip(names, args):
                assigned[key] = value

            # Assign keyword arguments
            for key, value in kwargs.items():
                if key not in names:
                    raise TypeError(f"{name}() got unexpected keyword argument '{key}'")
                if key in names[: len(args)]:
                    raise TypeError(f"{name}() got multiple values for argument '{key}'")
                assigned[key] = value

            # Check for missing arguments
            for key in names:
                if key not in assigned:
                    raise TypeError(f"{name}() missing required argument: '{key}'")

            # Set attributes
            for key, value in assigned.items():
                setattr(self, key, value)

        namespace["__init__"] = __init__

        return super().__new__(cls, name, bases, namespace)


BASE_METACLASS = type if gs.use_ndarray else AutoInitMeta

@DATA_ORIENTED
class StructSDFGeomInfo(metaclass=BASE_METACLASS):
    T_mesh_to_sdf: V_ANNOTATION
    sdf_res: V_ANNOTATION
    sdf_max: V_ANNOTATION
    sdf_cell_size: V_ANNOTATION
    sdf_cell_start: V_ANNOTATION


def get_sdf_geom_info(n_geoms):
    return StructSDFGeomInfo(
        T_mesh_to_sdf=V_MAT(n=4, m=4, dtype=gs.qd_float, shape=(n_geoms,)),
        sdf_res=V_VEC(3, dtype=gs.qd_int, shape=(n_geoms,)),
        sdf_max=V(dtype=gs.qd_float, shape=(n_geoms,)),
        sdf_cell_size=V(dtype=gs.qd_float, shape=(n_geoms,)),
        sdf_cell_start=V(dtype=gs.qd_int, shape=(n_geoms,)),
    )


@DATA_ORIENTED
class StructSDFInfo(metaclass=BASE_METACLASS):
    geoms_info: StructSDFGeomInfo
    geoms_sdf_start: V_ANNOTATION
    geoms_sdf_val: V_ANNOTATION
    geoms_sdf_grad: V_ANNOTATION
    geoms_sdf_closest_vert: V_ANNOTATION


def get_sdf_info(n_geoms, n_cells):
    if math.prod((n_cells, 3)) > np.iinfo(np.int32).max:
        gs.raise_exception(
            f"SDF Gradient shape (n_cells={n_cells}, 3) is too large. Consider manually setting larger "
            "'sdf_cell_size' in 'gs.materials.Rigid' options."
        )

    return StructSDFInfo(
        geoms_info=get_sdf_geom_info(max(n_geoms, 1)),
        geoms_sdf_start=V(dtype=gs.qd_int, shape=(max(n_geoms, 1),)),
        geoms_sdf_val=V(dtype=gs.qd_float, shape=(max(n_cells, 1),)),
        geoms_sdf_grad=V_VEC(3, dtype=gs.qd_float, shape=(max(n_cells, 1),)),
        geoms_sdf_closest_vert=V(dtype=gs.qd_int, shape=(max(n_cells, 1),)),
    )

array_class = types.SimpleNamespace(
    SDFInfo=qd.template(), GeomsState=qd.template(), GeomsInfo=qd.template(), RigidGlobalInfo=qd.template(),
    get_sdf_info=get_sdf_info,
)

# ---- genesis/utils/geom.py, Quadrants section (verbatim), as module gu ----
@qd.func
def qd_i_cross_vec(vec):
    return qd.Vector([0.0, -vec[2], vec[1]], dt=gs.qd_float)


@qd.func
def qd_j_cross_vec(vec):
    return qd.Vector([vec[2], 0.0, -vec[0]], dt=gs.qd_float)


@qd.func
def qd_k_cross_vec(vec):
    return qd.Vector([-vec[1], vec[0], 0.0], dt=gs.qd_float)


@qd.func
def qd_transform_by_quat_fast(v, quat):
    """
    Assumptions:
    - quat must be normalized
    """
    q_w, q_x, q_y, q_z = quat
    u = qd.Vector([q_x, q_y, q_z])
    t = 2.0 * u.cross(v)
    return v + q_w * t + u.cross(t)


@qd.func
def qd_xyz_to_quat(xyz):
    """
    Convert intrinsic x-y-z Euler angles to quaternion.
    """
    ai, aj, ak = 0.5 * xyz[2], -0.5 * xyz[1], 0.5 * xyz[0]
    si, sj, sk = qd.sin(ai), qd.sin(aj), qd.sin(ak)
    ci, cj, ck = qd.cos(ai), qd.cos(aj), qd.cos(ak)
    cc, cs = ci * ck, ci * sk
    sc, ss = si * ck, si * sk

    quat = qd.Vector(
        [
            +cj * cc + sj * ss,
            +cj * cs - sj * sc,
            -cj * ss - sj * cc,
            +cj * sc - sj * cs,
        ],
        dt=gs.qd_float,
    )
    return quat


@qd.func
def qd_R_to_xyz(R, eps):
    """
    Convert a rotation matrix into intrinsic x-y-z Euler angles.
    """
    xyz = qd.Vector.zero(gs.qd_float, 3)

    cy = qd.sqrt(R[2, 2] ** 2 + R[1, 2] ** 2)
    if cy > eps:
        xyz[0] = -qd.atan2(R[1, 2], R[2, 2])
        xyz[1] = -qd.atan2(-R[0, 2], cy)
        xyz[2] = -qd.atan2(R[0, 1], R[0, 0])
    else:
        xyz[0] = 0.0
        xyz[1] = -qd.atan2(-R[0, 2], cy)
        xyz[2] = -qd.atan2(-R[1, 0], R[1, 1])
    return xyz


@qd.func
def qd_rotvec_to_R(rotvec, eps):
    R = qd.Matrix.identity(gs.qd_float, 3)

    angle = rotvec.norm()
    if angle > eps:
        c = qd.cos(angle)
        s = qd.sqrt(1.0 - c**2)
        t = 1.0 - c
        x, y, z = rotvec / angle

        R = qd.Matrix(
            [
                [t * x * x + c, t * x * y - z * s, t * x * z + y * s],
                [t * x * y + z * s, t * y * y + c, t * y * z - x * s],
                [t * x * z - y * s, t * y * z + x * s, t * z * z + c],
            ],
            dt=gs.qd_float,
        )

    return R


@qd.func
def qd_rotvec_to_quat(rotvec, eps):
    quat = qd.Vector.zero(gs.qd_float, 4)

    # We need to use [norm_sqr] instead of [norm] to avoid nan gradients in the backward pass. Even when theta = 0,
    # the gradient of [norm] operation is computed and used (note that the gradient becomes NaN when theta = 0). This
    # is seemd to be a bug in Quadrants autodiff @TODO: change back after the bug is fixed.
    thetasq = rotvec.norm_sqr()
    if thetasq > (eps**2):
        theta = qd.sqrt(thetasq)
        theta_half = 0.5 * theta
        c, s = qd.cos(theta_half), qd.sin(theta_half)

        quat[0] = c
        xyz = s / theta * rotvec
        for i in qd.static(range(3)):
            quat[i + 1] = xyz[i]

        # First order quaternion normalization is accurate enough yet necessary
        quat *= 0.5 * (3.0 - quat.norm_sqr())
    else:
        quat[0] = 1.0

    return quat


@qd.func
def qd_quat_to_R(quat, eps):
    """
    Converts quaternion to 3x3 rotation matrix.
    """
    R = qd.Matrix.identity(gs.qd_float, 3)

    d = quat.norm_sqr()
    if d > eps:
        s = 2.0 / d
        w, x, y, z = quat
        xs, ys, zs = x * s, y * s, z * s
        wx, wy, wz = w * xs, w * ys, w * zs
        xx, xy, xz = x * xs, x * ys, x * zs
        yy, yz, zz = y * ys, y * zs, z * zs

        R = qd.Matrix(
            [
                [1.0 - (yy + zz), xy - wz, xz + wy],
                [xy + wz, 1.0 - (xx + zz), yz - wx],
                [xz - wy, yz + wx, 1.0 - (xx + yy)],
            ],
            dt=gs.qd_float,
        )

    return R


@qd.func
def qd_quat_to_xyz(quat, eps):
    """
    Convert a quaternion into intrinsic x-y-z Euler angles.
    """
    roll = gs.qd_float(0.0)
    pitch = gs.qd_float(0.0)
    yaw = gs.qd_float(0.0)

    quat_norm_sqr = quat.norm_sqr()
    if quat_norm_sqr > eps:
        s = 2.0 / quat_norm_sqr
        q_w, q_x, q_y, q_z = quat
        q_xs, q_ys, q_zs = q_x * s, q_y * s, q_z * s
        q_wx, q_wy, q_wz = q_w * q_xs, q_w * q_ys, q_w * q_zs
        q_xx, q_xy, q_xz = q_x * q_xs, q_x * q_ys, q_x * q_zs
        q_yy, q_yz, q_zz = q_y * q_ys, q_y * q_zs, q_z * q_zs

        sinycosp = q_wz - q_xy
        cosycosp = 1.0 - (q_yy + q_zz)
        cosp = qd.sqrt(cosycosp**2 + sinycosp**2)

        pitch = qd.atan2(q_xz + q_wy, cosp)
        if cosp > eps:
            roll = qd.atan2(q_wx - q_yz, 1.0 - (q_xx + q_yy))
            yaw = qd.atan2(sinycosp, cosycosp)
        else:
            yaw = qd.atan2(q_wz + q_xy, 1.0 - (q_xx + q_zz))

    return qd.Vector([roll, pitch, yaw], dt=gs.qd_float)


@qd.func
def qd_quat_to_rotvec(quat, eps):
    q_w, q_x, q_y, q_z = quat
    rotvec = qd.Vector([q_x, q_y, q_z], dt=gs.qd_float)

    s2 = rotvec.norm()
    if s2 > eps:
        angle = 2.0 * qd.atan2(s2, qd.abs(q_w))
        inv_sinc = angle / s2
        rotvec = (-1.0 if q_w < 0.0 else 1.0) * inv_sinc * rotvec

    return rotvec


@qd.func
def qd_trans_quat_to_T(trans, quat, eps):
    T = qd.Matrix.identity(gs.qd_float, 4)
    T[:3, :3] = qd_quat_to_R(quat, eps)
    T[:3, 3] = trans
    return T


@qd.func
def qd_inv_quat(quat):
    return qd.Vector([quat[0], -quat[1], -quat[2], -quat[3]], dt=gs.qd_float)


@qd.func
def qd_quat_mul_axis(q, axis):
    return qd.Vector(
        [
            -q[1] * axis[0] - q[2] * axis[1] - q[3] * axis[2],
            +q[0] * axis[0] + q[2] * axis[2] - q[3] * axis[1],
            +q[0] * axis[1] + q[3] * axis[0] - q[1] * axis[2],
            +q[0] * axis[2] + q[1] * axis[1] - q[2] * axis[0],
        ]
    )


@qd.func
def qd_quat_mul(u, v):
    vu = u.outer_product(v)
    w = vu[0, 0] - vu[1, 1] - vu[2, 2] - vu[3, 3]
    x = vu[0, 1] + vu[1, 0] + vu[2, 3] - vu[3, 2]
    y = vu[0, 2] - vu[1, 3] + vu[2, 0] + vu[3, 1]
    z = vu[0, 3] + vu[1, 2] - vu[2, 1] + vu[3, 0]
    return qd.Vector([w, x, y, z], dt=gs.qd_float)


@qd.func
def qd_transform_quat_by_quat(v, u):
    """Transforms quat_v by quat_u.

    This is equivalent to quatmul(quat_u, quat_v) or R_u @ R_v
    """
    vec = qd_quat_mul(u, v)
    return vec.normalized()


@qd.func
def qd_transform_by_quat(v, quat):
    q_w, q_x, q_y, q_z = quat
    q_xx, q_xy, q_xz, q_wx = q_x * q_x, q_x * q_y, q_x * q_z, q_x * q_w
    q_yy, q_yz, q_wy = q_y * q_y, q_y * q_z, q_y * q_w
    q_zz, q_wz = q_z * q_z, q_z * q_w
    q_ww = q_w * q_w

    return qd.Vector(
        [
            v.x * (q_xx + q_ww - q_yy - q_zz) + v.y * (2.0 * q_xy - 2.0 * q_wz) + v.z * (2.0 * q_xz + 2.0 * q_wy),
            v.x * (2.0 * q_wz + 2.0 * q_xy) + v.y * (q_ww - q_xx + q_yy - q_zz) + v.z * (-2.0 * q_wx + 2.0 * q_yz),
            v.x * (-2.0 * q_wy + 2.0 * q_xz) + v.y * (2.0 * q_wx + 2.0 * q_yz) + v.z * (q_ww - q_xx - q_yy + q_zz),
        ],
        dt=gs.qd_float,
    ) / (q_ww + q_xx + q_yy + q_zz)


@qd.func
def qd_inv_transform_by_quat(v, quat):
    return qd_transform_by_quat(v, qd_inv_quat(quat))


@qd.func
def qd_transform_by_T(pos, T):
    return T[:3, :3] @ pos + T[:3, 3]


@qd.func
def qd_inv_transform_by_T(pos, T):
    return T[:3, :3].transpose() @ (pos - T[:3, 3])


@qd.func
def qd_transform_by_trans_quat(pos, trans, quat):
    return qd_transform_by_quat(pos, quat) + trans


@qd.func
def qd_inv_transform_by_trans_quat(pos, trans, quat):
    return qd_transform_by_quat(pos - trans, qd_inv_quat(quat))


@qd.func
def qd_transform_motion_by_trans_quat(m_ang, m_vel, trans, quat):
    quat_inv = qd_inv_quat(quat)
    ang = qd_transform_by_quat(m_ang, quat_inv)
    vel = qd_transform_by_quat(m_vel - trans.cross(m_ang), quat_inv)
    return ang, vel


@qd.func
def qd_inv_transform_motion_by_trans_quat(m_ang, m_vel, trans, quat):
    ang = qd_transform_by_quat(m_ang, quat)
    vel = qd_transform_by_quat(m_vel, quat) + trans.cross(ang)
    return ang, vel


@qd.func
def qd_transform_pos_quat_by_trans_quat(pos, quat, t_trans, t_quat):
    new_pos = t_trans + qd_transform_by_quat(pos, t_quat)
    new_quat = qd_transform_quat_by_quat(quat, t_quat)
    return new_pos, new_quat


@qd.func
def qd_transform_inertia_by_trans_quat(i_inertial, i_mass, trans, quat, eps):
    x, y, z = trans.x, trans.y, trans.z
    xx, xy, xz, yy, yz, zz = x * x, x * y, x * z, y * y, y * z, z * z
    hhT = qd.Matrix(
        [
            [yy + zz, -xy, -xz],
            [-xy, xx + zz, -yz],
            [-xz, -yz, xx + yy],
        ]
    )

    R = qd_quat_to_R(quat, eps)
    i = R @ i_inertial @ R.transpose() + hhT * i_mass
    trans = trans * i_mass

    return i, trans, quat, i_mass


@qd.func
def qd_normalize(v, eps):
    return v / (v.norm(eps))


@qd.func
def qd_identity_quat():
    return qd.Vector([1.0, 0.0, 0.0, 0.0], dt=gs.qd_float)


@qd.func
def qd_vec3(val):
    return qd.Vector([val, val, val], dt=gs.qd_float)


@qd.func
def qd_nowhere():
    # let's inject a bit of humor here
    return qd.Vector([-2333333, -6666666, -5201314], dt=gs.qd_float)


@qd.func
def qd_tet_vol(p0, p1, p2, p3):
    return (p1 - p0).cross(p2 - p0).dot(p3 - p0) / 6.0


@qd.func
def inertial_mul(pos, i, mass, vel, ang):
    _ang = i @ ang + pos.cross(vel)
    _vel = mass * vel - pos.cross(ang)
    return _ang, _vel


@qd.func
def motion_cross_force(m_ang, m_vel, f_ang, f_vel):
    vel = m_ang.cross(f_vel)
    ang = m_ang.cross(f_ang) + m_vel.cross(f_vel)
    return ang, vel


@qd.func
def motion_cross_motion(s_ang, s_vel, m_ang, m_vel):
    vel = s_ang.cross(m_vel) + s_vel.cross(m_ang)
    ang = s_ang.cross(m_ang)
    return ang, vel


@qd.func
def qd_orthogonals(a):
    """
    Returns orthogonal vectors `b` and `c`, given a normal vector `a`.

    Note that `a` is assumed to be normalized.
    """
    b = qd.Vector.zero(gs.qd_float, 3)
    if qd.abs(a[1]) < 0.5:
        b[0] = -a[0] * a[1]
        b[1] = 1.0 - a[1] ** 2
        b[2] = -a[2] * a[1]
    else:
        b[0] = -a[0] * a[2]
        b[1] = -a[1] * a[2]
        b[2] = 1.0 - a[2] ** 2
    b = b.normalized()
    return b.cross(a), b


@qd.func
def imp_aref(params, neg_penetration, vel, pos):
    timeconst, dampratio, dmin, dmax, width, mid, power = params

    imp_x = qd.abs(neg_penetration) / width
    imp_a = (1.0 / mid ** (power - 1)) * imp_x**power
    imp_b = 1.0 - (1.0 / (1.0 - mid) ** (power - 1)) * (1.0 - imp_x) ** power
    imp_y = imp_a if imp_x < mid else imp_b

    imp = dmin + imp_y * (dmax - dmin)
    imp = qd.math.clamp(imp, dmin, dmax)
    imp = dmax if imp_x > 1.0 else imp

    b = 2.0 / (dmax * timeconst)
    k = 1.0 / (dmax * dmax * timeconst * timeconst * dampratio * dampratio)

    aref = -b * vel - k * imp * pos

    return imp, aref

gu = types.SimpleNamespace(**{k: v for k, v in dict(globals()).items() if k.startswith("qd_")})

# ---- genesis/utils/sdf.py (verbatim from sdf_kernel_init_geom_fields on) ----
@qd.kernel
def sdf_kernel_init_geom_fields(
    geoms_T_mesh_to_sdf: qd.types.ndarray(),
    geoms_sdf_res: qd.types.ndarray(),
    geoms_sdf_cell_start: qd.types.ndarray(),
    geoms_sdf_val: qd.types.ndarray(),
    geoms_sdf_grad: qd.types.ndarray(),
    geoms_sdf_max: qd.types.ndarray(),
    geoms_sdf_cell_size: qd.types.ndarray(),
    geoms_sdf_closest_vert: qd.types.ndarray(),
    static_rigid_sim_config: qd.template(),
    sdf_info: array_class.SDFInfo,
):
    n_geoms = sdf_info.geoms_sdf_start.shape[0]
    n_cells = sdf_info.geoms_sdf_val.shape[0]

    qd.loop_config(serialize=qd.static(static_rigid_sim_config.para_level < gs.PARA_LEVEL.ALL))
    for i in range(n_geoms):
        for j, k in qd.static(qd.ndrange(4, 4)):
            sdf_info.geoms_info.T_mesh_to_sdf[i][j, k] = geoms_T_mesh_to_sdf[i, j, k]

        for j in qd.static(range(3)):
            sdf_info.geoms_info.sdf_res[i][j] = geoms_sdf_res[i, j]

        sdf_info.geoms_info.sdf_cell_start[i] = geoms_sdf_cell_start[i]
        sdf_info.geoms_info.sdf_max[i] = geoms_sdf_max[i]
        sdf_info.geoms_info.sdf_cell_size[i] = geoms_sdf_cell_size[i]

    for i in range(n_cells):
        sdf_info.geoms_sdf_val[i] = geoms_sdf_val[i]
        sdf_info.geoms_sdf_closest_vert[i] = geoms_sdf_closest_vert[i]
        for j in qd.static(range(3)):
            sdf_info.geoms_sdf_grad[i][j] = geoms_sdf_grad[i, j]


@qd.func
def sdf_func_world(
    geoms_state: array_class.GeomsState,
    geoms_info: array_class.GeomsInfo,
    sdf_info: array_class.SDFInfo,
    pos_world,
    geom_idx,
    batch_idx,
):
    """
    sdf value from world coordinate
    """

    g_pos = geoms_state.pos[geom_idx, batch_idx]
    g_quat = geoms_state.quat[geom_idx, batch_idx]

    return sdf_func_world_local(
        geoms_info=geoms_info,
        sdf_info=sdf_info,
        pos_world=pos_world,
        geom_idx=geom_idx,
        geom_pos=g_pos,
        geom_quat=g_quat,
    )


@qd.func
def sdf_func_world_local(
    geoms_info: array_class.GeomsInfo,
    sdf_info: array_class.SDFInfo,
    pos_world: qd.types.vector(3, dtype=gs.qd_float),
    geom_idx,
    geom_pos: qd.types.vector(3, dtype=gs.qd_float),
    geom_quat: qd.types.vector(4, dtype=gs.qd_float),
):
    """
    Computes SDF value from world coordinate, using provided geometry pose
    instead of reading from geoms_state.
    """
    sd = gs.qd_float(0.0)

    if geoms_info.type[geom_idx] == gs.GEOM_TYPE.SPHERE:
        sd = (pos_world - geom_pos).norm() - geoms_info.data[geom_idx][0]

    elif geoms_info.type[geom_idx] == gs.GEOM_TYPE.PLANE:
        pos_mesh = gu.qd_inv_transform_by_trans_quat(pos_world, geom_pos, geom_quat)
        geom_data = geoms_info.data[geom_idx]
        plane_normal = gs.qd_vec3([geom_data[0], geom_data[1], geom_data[2]])
        sd = pos_mesh.dot(plane_normal)

    else:
        pos_mesh = gu.qd_inv_transform_by_trans_quat(pos_world, geom_pos, geom_quat)
        pos_sdf = gu.qd_transform_by_T(pos_mesh, sdf_info.geoms_info.T_mesh_to_sdf[geom_idx])
        sd = sdf_func_sdf(sdf_info, pos_sdf, geom_idx)

    return sd


@qd.func
def sdf_func_sdf(sdf_info: array_class.SDFInfo, pos_sdf, geom_idx):
    """
    sdf value at sdf frame coordinate.
    Note that the stored sdf magnitude is already w.r.t world/mesh frame.
    """
    signed_dist = gs.qd_float(0.0)
    if sdf_func_is_outside_sdf_grid(sdf_info, pos_sdf, geom_idx):
        signed_dist = sdf_func_proxy_sdf(sdf_info, pos_sdf, geom_idx)
    else:
        signed_dist = sdf_func_true_sdf(sdf_info, pos_sdf, geom_idx)
    return signed_dist


@qd.func
def sdf_func_is_outside_sdf_grid(sdf_info: array_class.SDFInfo, pos_sdf, geom_idx):
    res = sdf_info.geoms_info.sdf_res[geom_idx]
    return (pos_sdf >= res - 1).any() or (pos_sdf <= 0).any()


@qd.func
def sdf_func_proxy_sdf(sdf_info: array_class.SDFInfo, pos_sdf, geom_idx):
    """
    Use distance to center as a proxy sdf, strictly greater than any point inside the cube to ensure value comparison is valid. Only considers region outside of cube.
    """
    center = (sdf_info.geoms_info.sdf_res[geom_idx] - 1) / 2.0
    sd = (pos_sdf - center).norm() / sdf_info.geoms_info.sdf_cell_size[geom_idx]
    return sd + sdf_info.geoms_info.sdf_max[geom_idx]


@qd.func
def sdf_func_true_sdf(sdf_info: array_class.SDFInfo, pos_sdf, geom_idx):
    """
    True sdf interpolated using stored sdf grid.
    """
    geom_sdf_res = sdf_info.geoms_info.sdf_res[geom_idx]
    base = qd.min(qd.floor(pos_sdf, gs.qd_int), geom_sdf_res - 2)
    signed_dist = gs.qd_float(0.0)
    for offset in qd.grouped(qd.ndrange(2, 2, 2)):
        pos_cell = base + offset
        w_xyz = 1 - qd.abs(pos_sdf - pos_cell)
        w = w_xyz[0] * w_xyz[1] * w_xyz[2]
        signed_dist = (
            signed_dist
            + w * sdf_info.geoms_sdf_val[sdf_func_ravel_cell_idx(sdf_info, pos_cell, geom_sdf_res, geom_idx)]
        )

    return signed_dist


@qd.func
def sdf_func_ravel_cell_idx(sdf_info: array_class.SDFInfo, cell_idx, sdf_res, geom_idx):
    return (
        sdf_info.geoms_info.sdf_cell_start[geom_idx]
        + cell_idx[0] * sdf_res[1] * sdf_res[2]
        + cell_idx[1] * sdf_res[2]
        + cell_idx[2]
    )


@qd.func
def sdf_func_grad_world(
    geoms_state: array_class.GeomsState,
    geoms_info: array_class.GeomsInfo,
    rigid_global_info: array_class.RigidGlobalInfo,
    collider_static_config: qd.template(),
    sdf_info: array_class.SDFInfo,
    pos_world,
    geom_idx,
    batch_idx,
):
    g_pos = geoms_state.pos[geom_idx, batch_idx]
    g_quat = geoms_state.quat[geom_idx, batch_idx]

    return sdf_func_grad_world_local(
        geoms_info=geoms_info,
        rigid_global_info=rigid_global_info,
        collider_static_config=collider_static_config,
        sdf_info=sdf_info,
        pos_world=pos_world,
        geom_idx=geom_idx,
        geom_pos=g_pos,
        geom_quat=g_quat,
    )


@qd.func
def sdf_func_grad(
    geoms_info: array_class.GeomsInfo,
    rigid_global_info: array_class.RigidGlobalInfo,
    collider_static_config: qd.template(),
    sdf_info: array_class.SDFInfo,
    pos_sdf,
    geom_idx,
):
    """
    sdf grad at sdf frame coordinate.
    Note that the stored sdf magnitude is already w.r.t world/mesh frame.
    """
    grad_sdf = qd.Vector.zero(gs.qd_float, 3)
    if sdf_func_is_outside_sdf_grid(sdf_info, pos_sdf, geom_idx):
        grad_sdf = sdf_func_proxy_grad(rigid_global_info, sdf_info, pos_sdf, geom_idx)
    else:
        grad_sdf = sdf_func_true_grad(geoms_info, collider_static_config, sdf_info, pos_sdf, geom_idx)
    return grad_sdf


@qd.func
def sdf_func_proxy_grad(
    rigid_global_info: array_class.RigidGlobalInfo, sdf_info: array_class.SDFInfo, pos_sdf, geom_idx
):
    """
    Use direction to sdf center to approximate gradient direction.
    Only considers region outside of cube.
    """
    center = (sdf_info.geoms_info.sdf_res[geom_idx] - 1) / 2.0
    proxy_sdf_grad = gu.qd_normalize(pos_sdf - center, rigid_global_info.EPS[None])
    return proxy_sdf_grad


@qd.func
def sdf_func_true_grad(
    geoms_info: array_class.GeomsInfo,
    collider_static_config: qd.template(),
    sdf_info: array_class.SDFInfo,
    pos_sdf,
    geom_idx,
):
    """
    True sdf grad interpolated using stored sdf grad grid.
    """
    sdf_grad_sdf = qd.Vector.zero(gs.qd_float, 3)
    if geoms_info.type[geom_idx] == gs.GEOM_TYPE.TERRAIN:  # Terrain uses finite difference
        if qd.static(collider_static_config.has_terrain):  # for speed up compilation
            # since we are in sdf frame, delta can be a relatively big value
            delta = gs.qd_float(1e-2)

            for i in qd.static(range(3)):
                inc = pos_sdf
                dec = pos_sdf
                inc[i] += delta
                dec[i] -= delta
                sdf_grad_sdf[i] = (
                    sdf_func_true_sdf(sdf_info, inc, geom_idx) - sdf_func_true_sdf(sdf_info, dec, geom_idx)
                ) / (2 * delta)

    else:
        geom_sdf_res = sdf_info.geoms_info.sdf_res[geom_idx]
        base = qd.min(qd.floor(pos_sdf, gs.qd_int), geom_sdf_res - 2)
        for offset in qd.grouped(qd.ndrange(2, 2, 2)):
            pos_cell = base + offset
            w_xyz = 1 - qd.abs(pos_sdf - pos_cell)
            w = w_xyz[0] * w_xyz[1] * w_xyz[2]
            sdf_grad_sdf = (
                sdf_grad_sdf
                + w * sdf_info.geoms_sdf_grad[sdf_func_ravel_cell_idx(sdf_info, pos_cell, geom_sdf_res, geom_idx)]
            )

    return sdf_grad_sdf


@qd.func
def sdf_func_normal_world(
    geoms_state: array_class.GeomsState,
    geoms_info: array_class.GeomsInfo,
    rigid_global_info: array_class.RigidGlobalInfo,
    collider_static_config: qd.template(),
    sdf_info: array_class.SDFInfo,
    pos_world,
    geom_idx,
    batch_idx,
):
    g_pos = geoms_state.pos[geom_idx, batch_idx]
    g_quat = geoms_state.quat[geom_idx, batch_idx]

    return sdf_func_normal_world_local(
        geoms_info=geoms_info,
        rigid_global_info=rigid_global_info,
        collider_static_config=collider_static_config,
        sdf_info=sdf_info,
        pos_world=pos_world,
        geom_idx=geom_idx,
        geom_pos=g_pos,
        geom_quat=g_quat,
    )


@qd.func
def sdf_func_normal_world_local(
    geoms_info: array_class.GeomsInfo,
    rigid_global_info: array_class.RigidGlobalInfo,
    collider_static_config: qd.template(),
    sdf_info: array_class.SDFInfo,
    pos_world: qd.types.vector(3, dtype=gs.qd_float),
    geom_idx,
    geom_pos: qd.types.vector(3, dtype=gs.qd_float),
    geom_quat: qd.types.vector(4, dtype=gs.qd_float),
):
    """
    Computes normalized SDF gradient (surface normal) in world coordinates,
    using provided geometry pose instead of reading from geoms_state.
    """
    return gu.qd_normalize(
        sdf_func_grad_world_local(
            geoms_info,
            rigid_global_info,
            collider_static_config,
            sdf_info,
            pos_world,
            geom_idx,
            geom_pos,
            geom_quat,
        ),
        rigid_global_info.EPS[None],
    )


@qd.func
def sdf_func_grad_world_local(
    geoms_info: array_class.GeomsInfo,
    rigid_global_info: array_class.RigidGlobalInfo,
    collider_static_config: qd.template(),
    sdf_info: array_class.SDFInfo,
    pos_world: qd.types.vector(3, dtype=gs.qd_float),
    geom_idx,
    geom_pos: qd.types.vector(3, dtype=gs.qd_float),
    geom_quat: qd.types.vector(4, dtype=gs.qd_float),
):
    """
    Computes SDF gradient in world coordinates, using provided geometry pose
    instead of reading from geoms_state.
    """
    EPS = rigid_global_info.EPS[None]

    grad_world = qd.Vector.zero(gs.qd_float, 3)

    if geoms_info.type[geom_idx] == gs.GEOM_TYPE.SPHERE:
        grad_world = gu.qd_normalize(pos_world - geom_pos, EPS)

    elif geoms_info.type[geom_idx] == gs.GEOM_TYPE.PLANE:
        geom_data = geoms_info.data[geom_idx]
        plane_normal = gs.qd_vec3([geom_data[0], geom_data[1], geom_data[2]])
        grad_world = gu.qd_transform_by_quat(plane_normal, geom_quat)

    else:
        pos_mesh = gu.qd_inv_transform_by_trans_quat(pos_world, geom_pos, geom_quat)
        pos_sdf = gu.qd_transform_by_T(pos_mesh, sdf_info.geoms_info.T_mesh_to_sdf[geom_idx])
        grad_sdf = sdf_func_grad(geoms_info, rigid_global_info, collider_static_config, sdf_info, pos_sdf, geom_idx)

        grad_mesh = grad_sdf  # no rotation between mesh and sdf frame
        grad_world = gu.qd_transform_by_quat(grad_mesh, geom_quat)

    return grad_world


@qd.func
def sdf_func_find_closest_vert(
    geoms_state: array_class.GeomsState,
    geoms_info: array_class.GeomsInfo,
    sdf_info: array_class.SDFInfo,
    pos_world,
    geom_idx,
    i_b,
):
    """
    Returns vert of geom that's closest to pos_world
    """
    g_pos = geoms_state.pos[geom_idx, i_b]
    g_quat = geoms_state.quat[geom_idx, i_b]
    geom_sdf_res = sdf_info.geoms_info.sdf_res[geom_idx]
    pos_mesh = gu.qd_inv_transform_by_trans_quat(pos_world, g_pos, g_quat)
    pos_sdf = gu.qd_transform_by_T(pos_mesh, sdf_info.geoms_info.T_mesh_to_sdf[geom_idx])
    nearest_cell = qd.cast(qd.min(qd.max(pos_sdf, 0), geom_sdf_res - 1), gs.qd_int)
    return (
        sdf_info.geoms_sdf_closest_vert[sdf_func_ravel_cell_idx(sdf_info, nearest_cell, geom_sdf_res, geom_idx)]
        + geoms_info.vert_start[geom_idx]
    )


# ---- stand-in scene: 4 geoms (sphere, plane, two meshes with numpy-built SDF grids) in 2 batches ----
n_g, n_b = 4, 2
rng = np.random.default_rng(91)


@qd.data_oriented
class StandInStruct:
    def __init__(self, **fields):
        for k, v in fields.items():
            setattr(self, k, v)


res = [(1, 1, 1), (1, 1, 1), (12, 10, 14), (9, 9, 9)]
cell_size = [1.0, 1.0, 0.02, 0.03]
starts = np.cumsum([0] + [int(np.prod(r)) for r in res])[:-1].astype(np.int32)
n_cells = int(sum(np.prod(r) for r in res))
T = np.zeros((n_g, 4, 4), np.float32)
vals = np.zeros(n_cells, np.float32)
grads = np.zeros((n_cells, 3), np.float32)
closest = np.zeros(n_cells, np.int32)
for g in range(n_g):
    r = np.array(res[g])
    cs = cell_size[g]
    # mesh frame -> sdf grid frame: scale by 1/cell_size and centre the grid
    T[g] = np.eye(4)
    T[g][:3, :3] /= cs
    T[g][:3, 3] = (r - 1) / 2.0
    idx = np.stack(np.meshgrid(*(np.arange(n) for n in r), indexing="ij"), -1).reshape(-1, 3)
    p_mesh = (idx - (r - 1) / 2.0) * cs
    if g == 2:  # ellipsoid-ish blob
        d = np.linalg.norm(p_mesh / np.array([1.0, 0.8, 1.2]), axis=1) - 0.08
    else:  # box
        q = np.abs(p_mesh) - 0.07
        d = np.linalg.norm(np.maximum(q, 0.0), axis=1) + np.minimum(q.max(axis=1), 0.0)
    gr = p_mesh / np.maximum(np.linalg.norm(p_mesh, axis=1, keepdims=True), 1e-6)
    sl = slice(starts[g], starts[g] + len(idx))
    vals[sl] = d
    grads[sl] = gr
    closest[sl] = np.argmin(np.abs(p_mesh), axis=0)[0] + (np.arange(len(idx)) % 17)

sdf_info = array_class.get_sdf_info(n_g, n_cells)


class StandInConfig:  # hashable stand-in for the static config dataclasses passed as templates
    def __init__(self, **kw):
        self.__dict__.update(kw)


static_rigid_sim_config = StandInConfig(para_level=gs.PARA_LEVEL.NEVER)
sdf_kernel_init_geom_fields(
    T, np.array(res, np.int32), starts, vals, grads,
    vals.reshape(-1)[starts].astype(np.float32) * 0 + np.array([np.abs(vals).max()] * n_g, np.float32),
    np.array(cell_size, np.float32), closest, static_rigid_sim_config, sdf_info,
)

geoms_info = StandInStruct(type=qd.field(gs.qd_int, shape=(n_g,)), data=qd.field(gs.qd_vec7, shape=(n_g,)),
                           vert_start=qd.field(gs.qd_int, shape=(n_g,)))
geoms_info.type.from_numpy(np.array([GEOM_TYPE.SPHERE, GEOM_TYPE.PLANE, GEOM_TYPE.MESH, GEOM_TYPE.BOX], np.int32))
data = np.zeros((n_g, 7), np.float32)
data[0, 0] = 0.1
data[1, :3] = [0.0, 0.0, 1.0]
geoms_info.data.from_numpy(data)
geoms_info.vert_start.from_numpy(np.array([0, 10, 100, 1000], np.int32))
geoms_state = StandInStruct(pos=qd.field(gs.qd_vec3, shape=(n_g, n_b)), quat=qd.field(gs.qd_vec4, shape=(n_g, n_b)))
geoms_state.pos.from_numpy(rng.uniform(-0.05, 0.05, (n_g, n_b, 3)).astype(np.float32))
qn = rng.standard_normal((n_g, n_b, 4)).astype(np.float32)
geoms_state.quat.from_numpy((qn / np.linalg.norm(qn, axis=2, keepdims=True)).astype(np.float32))
rigid_global_info = StandInStruct(EPS=qd.field(gs.qd_float, shape=()))
rigid_global_info.EPS[None] = gs.EPS
collider_static_config = StandInConfig(has_terrain=False)

n_q = 500
qpos = qd.field(gs.qd_vec3, shape=(n_q,))
qpos.from_numpy(rng.uniform(-0.2, 0.2, (n_q, 3)).astype(np.float32))
o_sd = qd.field(gs.qd_float, shape=(n_q, n_g, n_b))
o_grad = qd.field(gs.qd_vec3, shape=(n_q, n_g, n_b))
o_nrm = qd.field(gs.qd_vec3, shape=(n_q, n_g, n_b))
o_cv = qd.field(gs.qd_int, shape=(n_q, n_g, n_b))


@qd.kernel
def query(cfg: qd.template()):
    for i_q, i_g, i_b in qd.ndrange(n_q, n_g, n_b):
        p = qpos[i_q]
        o_sd[i_q, i_g, i_b] = sdf_func_world(geoms_state, geoms_info, sdf_info, p, i_g, i_b)
        o_grad[i_q, i_g, i_b] = sdf_func_grad_world(geoms_state, geoms_info, rigid_global_info, cfg, sdf_info, p, i_g, i_b)
        o_nrm[i_q, i_g, i_b] = sdf_func_normal_world(geoms_state, geoms_info, rigid_global_info, cfg, sdf_info, p, i_g, i_b)
        if i_g >= 2:
            o_cv[i_q, i_g, i_b] = sdf_func_find_closest_vert(geoms_state, geoms_info, sdf_info, p, i_g, i_b)


query(collider_static_config)
report("sd", o_sd.to_numpy())
report("grad", o_grad.to_numpy())
report("normal", o_nrm.to_numpy())
report("closest_vert", o_cv.to_numpy())
report("T", sdf_info.geoms_info.T_mesh_to_sdf.to_numpy())
