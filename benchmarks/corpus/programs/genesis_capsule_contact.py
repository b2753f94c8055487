# corpus: genesis_capsule_contact
# source: github:Genesis-Embodied-AI/Genesis@7bf5f6a7bf2946efc3a1e93667700011456078b5 genesis/engine/solvers/rigid/collider/capsule_contact.py genesis/engine/solvers/rigid/collider/utils.py genesis/utils/geom.py genesis/constants.py
# license: Apache-2.0
# area: rigid
# port: collider/capsule_contact.py copied verbatim from func_capsule_capsule_contact on; its helpers func_closest_points_on_segments (utils.py), qd_*_cross_vec/qd_transform_by_quat_fast (geom.py) and GEOM_TYPE (constants.py) verbatim, bound to stand-in module namespaces utils/gu; array_class -> stand-in in field mode; `gs` -> stand-in namespace (+ GEOM_TYPE); driver kernel over all pairs of 64 numpy-seeded spheres/capsules (incl. coincident and parallel ones); checksum lines added
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

gs.GEOM_TYPE = GEOM_TYPE

# ---- genesis/utils/geom.py: qd_i_cross_vec .. qd_transform_by_quat_fast (verbatim), as module gu ----
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

gu = types.SimpleNamespace(qd_i_cross_vec=qd_i_cross_vec, qd_j_cross_vec=qd_j_cross_vec, qd_k_cross_vec=qd_k_cross_vec,
                           qd_transform_by_quat_fast=qd_transform_by_quat_fast)

# ---- genesis/engine/solvers/rigid/collider/utils.py: func_closest_points_on_segments (verbatim), as module utils ----
@qd.func
def func_closest_points_on_segments(
    seg_a_p1,
    seg_a_p2,
    seg_b_p1,
    seg_b_p2,
    EPS,
):
    """
    Compute closest points on two line segments using analytical solution.

    References
    ----------
    Real-Time Collision Detection by Christer Ericson, Chapter 5.1.9
    """
    segment_a_dir = seg_a_p2 - seg_a_p1
    segment_b_dir = seg_b_p2 - seg_b_p1
    vec_between_segment_origins = seg_a_p1 - seg_b_p1

    a_squared_len = segment_a_dir.dot(segment_a_dir)
    dot_product_dir = segment_a_dir.dot(segment_b_dir)
    b_squared_len = segment_b_dir.dot(segment_b_dir)
    d = segment_a_dir.dot(vec_between_segment_origins)
    e = segment_b_dir.dot(vec_between_segment_origins)

    denom = a_squared_len * b_squared_len - dot_product_dir * dot_product_dir

    s = gs.qd_float(0.0)
    t = gs.qd_float(0.0)

    if denom < EPS:
        # Segments are parallel or one/both are degenerate
        s = 0.0
        if b_squared_len > EPS:
            t = qd.math.clamp(e / b_squared_len, 0.0, 1.0)
        else:
            t = 0.0
    else:
        # General case: solve for optimal parameters
        s = (dot_product_dir * e - b_squared_len * d) / denom
        t = (a_squared_len * e - dot_product_dir * d) / denom

        s = qd.math.clamp(s, 0.0, 1.0)

        # Recompute t for clamped s
        t = qd.math.clamp((dot_product_dir * s + e) / b_squared_len if b_squared_len > EPS else 0.0, 0.0, 1.0)

        # Recompute s for clamped t (ensures we're on segment boundaries)
        s_new = qd.math.clamp((dot_product_dir * t - d) / a_squared_len if a_squared_len > EPS else 0.0, 0.0, 1.0)

        # Use refined s if it improves the solution
        if a_squared_len > EPS:
            s = s_new

    seg_a_closest = seg_a_p1 + s * segment_a_dir
    seg_b_closest = seg_b_p1 + t * segment_b_dir

    return seg_a_closest, seg_b_closest

utils = types.SimpleNamespace(func_closest_points_on_segments=func_closest_points_on_segments)

# ---- genesis/engine/solvers/rigid/collider/capsule_contact.py (verbatim from func_capsule_capsule_contact on) ----
@qd.func
def func_capsule_capsule_contact(
    i_ga,
    i_gb,
    ga_pos,
    ga_quat,
    gb_pos,
    gb_quat,
    geoms_info: array_class.GeomsInfo,
    rigid_global_info: array_class.RigidGlobalInfo,
):
    """
    Analytical capsule-capsule collision detection.

    A capsule is defined as a line segment plus a radius (swept sphere).
    Collision between two capsules reduces to:
      1. Find closest points on the two line segments (analytical)
      2. Check if distance < sum of radii
      3. Compute contact point and normal

    Parameters
    ----------
    ga_pos, ga_quat : Position and orientation of capsule A (may be perturbed for multi-contact).
    gb_pos, gb_quat : Position and orientation of capsule B (may be perturbed for multi-contact).
    """
    EPS = rigid_global_info.EPS[None]

    # Get capsule A parameters
    pos_a = ga_pos
    quat_a = ga_quat
    radius_a = geoms_info.data[i_ga][0]
    halflength_a = 0.5 * geoms_info.data[i_ga][1]

    # Get capsule B parameters
    pos_b = gb_pos
    quat_b = gb_quat
    radius_b = geoms_info.data[i_gb][0]
    halflength_b = 0.5 * geoms_info.data[i_gb][1]

    # Capsules are aligned along local Z-axis by convention
    local_z_unit = qd.Vector([0.0, 0.0, 1.0], dt=gs.qd_float)

    # Get segment axes in world space
    axis_a_unit = gu.qd_transform_by_quat_fast(local_z_unit, quat_a)
    axis_b_unit = gu.qd_transform_by_quat_fast(local_z_unit, quat_b)

    # Compute segment endpoints in world space
    P1 = pos_a - halflength_a * axis_a_unit
    P2 = pos_a + halflength_a * axis_a_unit
    Q1 = pos_b - halflength_b * axis_b_unit
    Q2 = pos_b + halflength_b * axis_b_unit

    Pa, Pb = utils.func_closest_points_on_segments(P1, P2, Q1, Q2, EPS)

    # from B to A
    diff = Pa - Pb
    dist_sq = diff.dot(diff)
    combined_radius = radius_a + radius_b
    combined_radius_sq = combined_radius * combined_radius

    is_col = False
    normal_unit = qd.Vector([1.0, 0.0, 0.0], dt=gs.qd_float)
    contact_pos = qd.Vector.zero(gs.qd_float, 3)
    penetration = gs.qd_float(0.0)
    if dist_sq < combined_radius_sq:
        is_col = True
        dist = qd.sqrt(dist_sq)

        # Compute contact normal (from B to A, pointing into geom A)
        if dist > EPS:
            normal_unit = diff / dist
        else:
            # Segments are coincident, use arbitrary perpendicular direction
            # Try cross product with axis_a first
            normal_dir = axis_a_unit.cross(axis_b_unit)
            normal_dir_len = normal_dir.dot(normal_dir)
            if normal_dir_len > EPS:
                normal_unit = normal_dir / normal_dir_len
            else:
                # Axes are parallel, use any perpendicular
                if qd.abs(axis_a_unit[0]) < 0.9:
                    normal_unit = gu.qd_i_cross_vec(axis_a_unit)
                else:
                    normal_unit = gu.qd_j_cross_vec(axis_a_unit)

        penetration = combined_radius - dist
        # Contact position at midpoint between surfaces
        contact_pos = Pa - radius_a * normal_unit + gs.qd_float(0.5) * penetration * normal_unit

    return is_col, normal_unit, contact_pos, penetration


@qd.func
def func_sphere_capsule_contact(
    i_ga,
    i_gb,
    ga_pos,
    ga_quat,
    gb_pos,
    gb_quat,
    geoms_info: array_class.GeomsInfo,
    rigid_global_info: array_class.RigidGlobalInfo,
):
    """
    Analytical sphere-capsule collision detection.

    A sphere-capsule collision reduces to:
      1. Find closest point on the capsule's line segment to sphere center
      2. Check if distance < sum of radii
      3. Compute contact point and normal

    Parameters
    ----------
    ga_pos, ga_quat : Position and orientation of geom A (may be perturbed for multi-contact).
    gb_pos, gb_quat : Position and orientation of geom B (may be perturbed for multi-contact).
    """
    EPS = rigid_global_info.EPS[None]

    # Ensure sphere is always i_ga and capsule is i_gb
    normal_dir = 1
    sphere_center = ga_pos
    capsule_center = gb_pos
    capsule_q = gb_quat
    if geoms_info.type[i_gb] == gs.GEOM_TYPE.SPHERE:
        i_ga, i_gb = i_gb, i_ga
        sphere_center = gb_pos
        capsule_center = ga_pos
        capsule_q = ga_quat
        normal_dir = -1

    sphere_radius = geoms_info.data[i_ga][0]

    capsule_quat = capsule_q
    capsule_radius = geoms_info.data[i_gb][0]
    capsule_halflength = 0.5 * geoms_info.data[i_gb][1]

    # Capsule is aligned along local Z-axis
    local_z_unit = qd.Vector([0.0, 0.0, 1.0], dt=gs.qd_float)
    capsule_axis = gu.qd_transform_by_quat_fast(local_z_unit, capsule_quat)

    # Compute capsule segment endpoints
    P1 = capsule_center - capsule_halflength * capsule_axis
    P2 = capsule_center + capsule_halflength * capsule_axis

    # Find closest point on capsule segment to sphere center
    # Using parametric form: P(t) = P1 + t*(P2-P1), t ∈ [0,1]
    segment_vec = P2 - P1
    segment_length_sq = segment_vec.dot(segment_vec)

    # Project sphere center onto segment
    # Default for degenerate case
    t = gs.qd_float(0.5)
    if segment_length_sq > EPS:
        t = (sphere_center - P1).dot(segment_vec) / segment_length_sq
        t = qd.math.clamp(t, 0.0, 1.0)

    closest_point = P1 + t * segment_vec

    # Compute distance from sphere center to closest point
    diff = sphere_center - closest_point
    dist_sq = diff.dot(diff)
    combined_radius = sphere_radius + capsule_radius
    combined_radius_sq = combined_radius * combined_radius

    is_col = False
    normal_unit = qd.Vector([1.0, 0.0, 0.0], dt=gs.qd_float)
    contact_pos = qd.Vector.zero(gs.qd_float, 3)
    penetration = gs.qd_float(0.0)
    if dist_sq < combined_radius_sq:
        is_col = True
        dist = qd.sqrt(dist_sq)

        # Compute contact normal (from capsule to sphere, i.e., B to A)
        if dist > EPS:
            normal_unit = diff / dist
        else:
            # Sphere center is exactly on capsule axis
            # Use any perpendicular direction to the capsule axis
            if qd.abs(capsule_axis[0]) < 0.9:
                normal_unit = gu.qd_i_cross_vec(capsule_axis)
            else:
                normal_unit = gu.qd_j_cross_vec(capsule_axis)

        penetration = combined_radius - dist
        # Contact position at midpoint between surfaces
        contact_pos = sphere_center - (sphere_radius - 0.5 * penetration) * normal_unit

    return is_col, normal_unit * normal_dir, contact_pos, penetration

N = 1024
rng = np.random.default_rng(41)


def vecs(n, scale=1.0):
    return (rng.standard_normal((n, 3)) * scale).astype(np.float32)


def vfield(a):
    f = qd.field(gs.qd_vec3, shape=(a.shape[0],))
    f.from_numpy(a)
    return f

n_g = 64
types_np = np.where(np.arange(n_g) % 3 == 0, GEOM_TYPE.SPHERE, GEOM_TYPE.CAPSULE).astype(np.int32)
data_np = np.zeros((n_g, 7), np.float32)
data_np[:, 0] = rng.uniform(0.05, 0.3, n_g)
data_np[:, 1] = rng.uniform(0.1, 1.0, n_g)
geoms_info = StandInStruct(type=qd.field(gs.qd_int, shape=(n_g,)), data=qd.field(gs.qd_vec7, shape=(n_g,)))
geoms_info.type.from_numpy(types_np)
geoms_info.data.from_numpy(data_np)
rigid_global_info = StandInStruct(EPS=qd.field(gs.qd_float, shape=()))
rigid_global_info.EPS[None] = gs.EPS
pos = vfield(rng.uniform(-0.6, 0.6, (n_g, 3)).astype(np.float32))
q_np = rng.standard_normal((n_g, 4)).astype(np.float32)
q_np /= np.linalg.norm(q_np, axis=1, keepdims=True)
quat = qd.field(gs.qd_vec4, shape=(n_g,))
quat.from_numpy(q_np)
# a few coincident / parallel pairs
pos_np = pos.to_numpy(); pos_np[1] = pos_np[2]; pos.from_numpy(pos_np)
qq = quat.to_numpy(); qq[2] = qq[1]; qq[5] = qq[4]; quat.from_numpy(qq)

o_col = qd.field(gs.qd_int, shape=(n_g, n_g))
o_n = qd.field(gs.qd_vec3, shape=(n_g, n_g))
o_p = qd.field(gs.qd_vec3, shape=(n_g, n_g))
o_pen = qd.field(gs.qd_float, shape=(n_g, n_g))


@qd.kernel
def run():
    for i_ga, i_gb in qd.ndrange(n_g, n_g):
        if i_ga != i_gb:
            ta = geoms_info.type[i_ga]
            tb = geoms_info.type[i_gb]
            if ta == GEOM_TYPE.CAPSULE and tb == GEOM_TYPE.CAPSULE:
                is_col, n, cp, pen = func_capsule_capsule_contact(
                    i_ga, i_gb, pos[i_ga], quat[i_ga], pos[i_gb], quat[i_gb], geoms_info, rigid_global_info
                )
                o_col[i_ga, i_gb] = qd.cast(is_col, gs.qd_int)
                o_n[i_ga, i_gb] = n
                o_p[i_ga, i_gb] = cp
                o_pen[i_ga, i_gb] = pen
            elif ta == GEOM_TYPE.SPHERE and tb == GEOM_TYPE.CAPSULE or ta == GEOM_TYPE.CAPSULE and tb == GEOM_TYPE.SPHERE:
                is_col, n, cp, pen = func_sphere_capsule_contact(
                    i_ga, i_gb, pos[i_ga], quat[i_ga], pos[i_gb], quat[i_gb], geoms_info, rigid_global_info
                )
                o_col[i_ga, i_gb] = qd.cast(is_col, gs.qd_int) * 2
                o_n[i_ga, i_gb] = n
                o_p[i_ga, i_gb] = cp
                o_pen[i_ga, i_gb] = pen


run()
report("col", o_col.to_numpy())
report("normal", o_n.to_numpy())
report("pos", o_p.to_numpy())
report("pen", o_pen.to_numpy())
