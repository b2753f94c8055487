# corpus: genesis_geom_transform
# source: github:Genesis-Embodied-AI/Genesis@7bf5f6a7bf2946efc3a1e93667700011456078b5 genesis/utils/geom.py
# license: Apache-2.0
# area: rigid
# port: the Quadrants section of geom.py (all @qd.func helpers, lines 18-439) copied verbatim; `import genesis as gs` -> stand-in namespace with the precision-32 dtypes and EPS, and qd.init(arch=qd.cpu) with the kwargs genesis.init passes; driver kernels over numpy-seeded inputs (random rotations/vectors) call the funcs; checksum lines added
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

# ---- genesis/utils/geom.py, Quadrants section (verbatim) ----
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

# ---- stand-in driver ----
N = 512
rng = np.random.default_rng(11)
q_np = rng.standard_normal((N, 4)).astype(np.float32)
q_np /= np.linalg.norm(q_np, axis=1, keepdims=True)
t_np = rng.standard_normal((N, 3)).astype(np.float32)
p_np = rng.standard_normal((N, 3)).astype(np.float32)
a_np = rng.standard_normal((N, 3)).astype(np.float32)
n_np = rng.standard_normal((N, 3)).astype(np.float32)
n_np /= np.linalg.norm(n_np, axis=1, keepdims=True)
I_np = np.einsum("nij,nkj->nik", rng.standard_normal((N, 3, 3)), rng.standard_normal((N, 3, 3))).astype(np.float32)
m_np = rng.uniform(0.5, 3.0, N).astype(np.float32)
params_np = np.tile(np.array([0.02, 1.0, 0.9, 0.95, 0.001, 0.5, 2.0], np.float32), (N, 1))
pen_np = rng.uniform(-0.003, 0.0, N).astype(np.float32)

q = qd.Vector.field(4, gs.qd_float, shape=N)
t = qd.Vector.field(3, gs.qd_float, shape=N)
p = qd.Vector.field(3, gs.qd_float, shape=N)
a = qd.Vector.field(3, gs.qd_float, shape=N)
nrm = qd.Vector.field(3, gs.qd_float, shape=N)
inertia = qd.Matrix.field(3, 3, gs.qd_float, shape=N)
mass = qd.field(gs.qd_float, shape=N)
params = qd.Vector.field(7, gs.qd_float, shape=N)
pen = qd.field(gs.qd_float, shape=N)
for f, d in ((q, q_np), (t, t_np), (p, p_np), (a, a_np), (nrm, n_np), (inertia, I_np), (mass, m_np), (params, params_np), (pen, pen_np)):
    f.from_numpy(d)

o_vec = qd.Vector.field(3, gs.qd_float, shape=(N, 16))
o_quat = qd.Vector.field(4, gs.qd_float, shape=N)
o_mat = qd.Matrix.field(3, 3, gs.qd_float, shape=N)
o_s = qd.field(gs.qd_float, shape=(N, 4))


@qd.kernel
def run_transform(eps: gs.qd_float):
    for i in range(N):
        T = qd_trans_quat_to_T(t[i], q[i], eps)
        o_vec[i, 0] = qd_transform_by_T(p[i], T)
        o_vec[i, 1] = qd_inv_transform_by_T(p[i], T)
        o_vec[i, 2] = qd_transform_by_trans_quat(p[i], t[i], q[i])
        o_vec[i, 3] = qd_inv_transform_by_trans_quat(p[i], t[i], q[i])
        ang, vel = qd_transform_motion_by_trans_quat(a[i], p[i], t[i], q[i])
        o_vec[i, 4] = ang
        o_vec[i, 5] = vel
        ang2, vel2 = qd_inv_transform_motion_by_trans_quat(a[i], p[i], t[i], q[i])
        o_vec[i, 6] = ang2
        o_vec[i, 7] = vel2
        pos3, quat3 = qd_transform_pos_quat_by_trans_quat(p[i], q[i], t[i], q[(i + 1) % N])
        o_vec[i, 8] = pos3
        o_quat[i] = quat3
        I2, tr2, qq, m2 = qd_transform_inertia_by_trans_quat(inertia[i], mass[i], t[i], q[i], eps)
        o_mat[i] = I2
        o_vec[i, 9] = tr2
        b, c = qd_orthogonals(nrm[i])
        o_vec[i, 10] = b
        o_vec[i, 11] = c
        ang4, vel4 = inertial_mul(p[i], inertia[i], mass[i], a[i], t[i])
        o_vec[i, 12] = ang4 + vel4
        ang5, vel5 = motion_cross_force(a[i], p[i], t[i], nrm[i])
        o_vec[i, 13] = ang5 - vel5
        ang6, vel6 = motion_cross_motion(a[i], p[i], t[i], nrm[i])
        o_vec[i, 14] = ang6 + 2.0 * vel6
        o_vec[i, 15] = qd_nowhere() * 1e-6
        imp, aref = imp_aref(params[i], pen[i], a[i][0], pen[i])
        o_s[i, 0] = imp
        o_s[i, 1] = aref
        o_s[i, 2] = qd_tet_vol(p[i], t[i], a[i], nrm[i])
        o_s[i, 3] = m2


run_transform(gs.EPS)
report("vec", o_vec.to_numpy())
report("quat", o_quat.to_numpy())
report("mat", o_mat.to_numpy())
report("s", o_s.to_numpy())
