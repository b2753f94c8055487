# corpus: genesis_gjk_utils
# source: github:Genesis-Embodied-AI/Genesis@7bf5f6a7bf2946efc3a1e93667700011456078b5 genesis/engine/solvers/rigid/collider/gjk_utils.py genesis/engine/solvers/rigid/collider/utils.py genesis/engine/solvers/rigid/collider/constants.py
# license: Apache-2.0
# area: rigid
# port: collider/gjk_utils.py copied verbatim from func_ray_triangle_intersection on, with func_det3 (utils.py) and RETURN_CODE (constants.py) verbatim; array_class -> stand-in in field mode; GJKInfo -> data_oriented holder of FLOAT_MIN/FLOAT_MIN_SQ scalar fields; `gs` -> stand-in namespace; driver kernel over 1024 numpy-seeded triangles/tetrahedra (half the points placed on the triangle); checksum lines added
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


from enum import IntEnum

# ---- stand-in for genesis.utils.array_class in field mode (gs.use_ndarray False): struct args are qd.template() ----
array_class = types.SimpleNamespace(GeomsState=qd.template(), GeomsInfo=qd.template(), GJKInfo=qd.template(), RigidGlobalInfo=qd.template())


@qd.data_oriented
class StandInStruct:
    def __init__(self, **fields):
        for k, v in fields.items():
            setattr(self, k, v)


# ---- genesis/constants.py: GEOM_TYPE (verbatim) ----
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

# ---- genesis/engine/solvers/rigid/collider/constants.py: RETURN_CODE (verbatim) ----
class RETURN_CODE(IntEnum):
    """
    Return codes for the general subroutines used in GJK and EPA algorithms.
    """

    SUCCESS = 0
    FAIL = 1


# ---- genesis/engine/solvers/rigid/collider/utils.py: func_det3 (verbatim) ----
@qd.func
def func_det3(
    v1,
    v2,
    v3,
):
    """
    Compute the determinant of a 3x3 matrix M = [v1 | v2 | v3].
    """
    return (
        v1[0] * (v2[1] * v3[2] - v2[2] * v3[1])
        - v1[1] * (v2[0] * v3[2] - v2[2] * v3[0])
        + v1[2] * (v2[0] * v3[1] - v2[1] * v3[0])
    )


# ---- genesis/engine/solvers/rigid/collider/gjk_utils.py (verbatim from func_ray_triangle_intersection on) ----
@qd.func
def func_ray_triangle_intersection(
    ray_v1,
    ray_v2,
    tri_v1,
    tri_v2,
    tri_v3,
):
    """
    Check if the ray intersects the triangle.

    Returns
    -------
    int
        True if the ray intersects the triangle, otherwise False.
    """
    ray = ray_v2 - ray_v1

    # Signed volumes of the tetrahedrons formed by the ray and triangle edges
    vols = gs.qd_vec3(0.0, 0.0, 0.0)
    for i in range(3):
        v1, v2 = gs.qd_vec3(0.0, 0.0, 0.0), gs.qd_vec3(0.0, 0.0, 0.0)
        if i == 0:
            v1, v2 = tri_v1 - ray_v1, tri_v2 - ray_v1
        if i == 1:
            v1, v2 = tri_v2 - ray_v1, tri_v3 - ray_v1
        elif i == 2:
            v1, v2 = tri_v3 - ray_v1, tri_v1 - ray_v1
        vols[i] = func_det3(v1, v2, ray)

    return (vols >= 0.0).all() or (vols <= 0.0).all()


@qd.func
def func_triangle_affine_coords(
    point,
    tri_v1,
    tri_v2,
    tri_v3,
):
    """
    Compute the affine coordinates of the point with respect to the triangle.
    """
    # Compute minors of the triangle vertices
    ms = gs.qd_vec3(0.0, 0.0, 0.0)
    for i in qd.static(range(3)):
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        if i == 1:
            i1, i2 = i2, i1

        ms[i] = (
            tri_v2[i1] * tri_v3[i2]
            - tri_v2[i2] * tri_v3[i1]
            - tri_v1[i1] * tri_v3[i2]
            + tri_v1[i2] * tri_v3[i1]
            + tri_v1[i1] * tri_v2[i2]
            - tri_v1[i2] * tri_v2[i1]
        )

    # Exclude one of the axes with the largest projection using the minors of the above linear system.
    m_max = gs.qd_float(0.0)
    i_x, i_y = gs.qd_int(0), gs.qd_int(0)
    absms = qd.abs(ms)
    for i in range(3):
        if absms[i] >= absms[(i + 1) % 3] and absms[i] >= absms[(i + 2) % 3]:
            # Remove the i-th row
            m_max = ms[i]
            i_x, i_y = (i + 1) % 3, (i + 2) % 3
            if i == 1:
                i_x, i_y = i_y, i_x
            break

    cs = gs.qd_vec3(0.0, 0.0, 0.0)
    for i in range(3):
        tv1, tv2 = tri_v2, tri_v3
        if i == 1:
            tv1, tv2 = tri_v3, tri_v1
        elif i == 2:
            tv1, tv2 = tri_v1, tri_v2

        # Corresponds to the signed area of 2-simplex (triangle): (point, tv1, tv2)
        cs[i] = (
            point[i_x] * tv1[i_y]
            + point[i_y] * tv2[i_x]
            + tv1[i_x] * tv2[i_y]
            - point[i_x] * tv2[i_y]
            - point[i_y] * tv1[i_x]
            - tv2[i_x] * tv1[i_y]
        )

    # Affine coordinates are computed as: [ l1, l2, l3 ] = [ C1 / m_max, C2 / m_max, C3 / m_max ]
    return cs / m_max


@qd.func
def func_point_triangle_intersection(
    gjk_info: array_class.GJKInfo,
    point,
    tri_v1,
    tri_v2,
    tri_v3,
):
    """
    Check if the point is inside the triangle.
    """
    is_inside = False
    # Compute the affine coordinates of the point with respect to the triangle
    _lambda = func_triangle_affine_coords(point, tri_v1, tri_v2, tri_v3)

    # If any of the affine coordinates is negative, the point is outside the triangle
    if (_lambda >= 0).all():
        # Check if the point predicted by the affine coordinates is equal to the point itself
        pred = tri_v1 * _lambda[0] + tri_v2 * _lambda[1] + tri_v3 * _lambda[2]
        diff = pred - point
        is_inside = diff.norm_sqr() < gjk_info.FLOAT_MIN_SQ[None]

    return is_inside


@qd.func
def func_point_plane_same_side(
    point,
    plane_v1,
    plane_v2,
    plane_v3,
):
    """
    Check if the point is on the same side of the plane as the origin.
    """
    # Compute the normal of the plane
    edge1 = plane_v2 - plane_v1
    edge2 = plane_v3 - plane_v1
    normal = edge1.cross(edge2)

    diff1 = point - plane_v1
    dot1 = normal.dot(diff1)

    # origin - plane_v1
    diff2 = -plane_v1
    dot2 = normal.dot(diff2)

    return RETURN_CODE.SUCCESS if dot1 * dot2 > 0 else RETURN_CODE.FAIL


@qd.func
def func_origin_tetra_intersection(
    tet_v1,
    tet_v2,
    tet_v3,
    tet_v4,
):
    """
    Check if the origin is inside the tetrahedron.
    """
    flag = RETURN_CODE.SUCCESS
    for i in range(4):
        v1, v2, v3, v4 = tet_v1, tet_v2, tet_v3, tet_v4
        if i == 1:
            v1, v2, v3, v4 = tet_v2, tet_v3, tet_v4, tet_v1
        elif i == 2:
            v1, v2, v3, v4 = tet_v3, tet_v4, tet_v1, tet_v2
        elif i == 3:
            v1, v2, v3, v4 = tet_v4, tet_v1, tet_v2, tet_v3
        flag = func_point_plane_same_side(v1, v2, v3, v4)
        if flag == RETURN_CODE.FAIL:
            break
    return flag


@qd.func
def func_project_origin_to_plane(
    gjk_info: array_class.GJKInfo,
    v1,
    v2,
    v3,
):
    """
    Project the origin onto the plane defined by the simplex vertices.
    """
    point, flag = gs.qd_vec3(0, 0, 0), RETURN_CODE.SUCCESS

    d21 = v2 - v1
    d31 = v3 - v1
    d32 = v3 - v2

    for i in range(3):
        n = gs.qd_vec3(0, 0, 0)
        v = gs.qd_vec3(0, 0, 0)
        if i == 0:
            # Normal = (v1 - v2) x (v3 - v2)
            n = d32.cross(d21)
            v = v2
        elif i == 1:
            # Normal = (v2 - v1) x (v3 - v1)
            n = d21.cross(d31)
            v = v1
        else:
            # Normal = (v1 - v3) x (v2 - v3)
            n = d31.cross(d32)
            v = v3
        nv = n.dot(v)
        nn = n.norm_sqr()
        if nn == 0:
            # Zero normal, cannot project.
            flag = RETURN_CODE.FAIL
            break
        elif nn > gjk_info.FLOAT_MIN[None]:
            point = n * (nv / nn)
            flag = RETURN_CODE.SUCCESS
            break

        # Last fallback if no valid normal was found
        if i == 2:
            # If the normal is still unreliable, cannot project.
            if nn < gjk_info.FLOAT_MIN[None]:
                flag = RETURN_CODE.FAIL
            else:
                point = n * (nv / nn)
                flag = RETURN_CODE.SUCCESS

    return point, flag

N = 1024
rng = np.random.default_rng(41)


def vecs(n, scale=1.0):
    return (rng.standard_normal((n, 3)) * scale).astype(np.float32)


def vfield(a):
    f = qd.field(gs.qd_vec3, shape=(a.shape[0],))
    f.from_numpy(a)
    return f

v1, v2, v3, v4, p = (vfield(vecs(N)) for _ in range(5))
# points on the triangles for a share of the cases
bary = rng.dirichlet((1.0, 1.0, 1.0), N).astype(np.float32)
on_tri = (bary[:, :1] * v1.to_numpy() + bary[:, 1:2] * v2.to_numpy() + bary[:, 2:] * v3.to_numpy()).astype(np.float32)
p_np = p.to_numpy()
p_np[::2] = on_tri[::2]
p.from_numpy(p_np)
gjk_info = StandInStruct(FLOAT_MIN=qd.field(gs.qd_float, shape=()), FLOAT_MIN_SQ=qd.field(gs.qd_float, shape=()))
gjk_info.FLOAT_MIN[None] = 1e-15
gjk_info.FLOAT_MIN_SQ[None] = 1e-6

o_v = qd.field(gs.qd_vec3, shape=(N, 2))
o_i = qd.field(gs.qd_int, shape=(N, 5))


@qd.kernel
def run():
    for i in range(N):
        o_i[i, 0] = qd.cast(func_ray_triangle_intersection(p[i], v4[i], v1[i], v2[i], v3[i]), gs.qd_int)
        o_v[i, 0] = func_triangle_affine_coords(p[i], v1[i], v2[i], v3[i])
        o_i[i, 1] = qd.cast(func_point_triangle_intersection(gjk_info, p[i], v1[i], v2[i], v3[i]), gs.qd_int)
        o_i[i, 2] = func_point_plane_same_side(v4[i], v1[i], v2[i], v3[i])
        o_i[i, 3] = func_origin_tetra_intersection(v1[i], v2[i], v3[i], v4[i])
        pt, flag = func_project_origin_to_plane(gjk_info, v1[i], v2[i], v3[i])
        o_v[i, 1] = pt
        o_i[i, 4] = flag


run()
report("vec", o_v.to_numpy())
report("flags", o_i.to_numpy())
