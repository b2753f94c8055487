# corpus: genesis_collider_utils
# source: github:Genesis-Embodied-AI/Genesis@7bf5f6a7bf2946efc3a1e93667700011456078b5 genesis/engine/solvers/rigid/collider/utils.py genesis/constants.py
# license: Apache-2.0
# area: rigid
# port: collider/utils.py copied verbatim from func_closest_points_on_segments on; GEOM_TYPE copied verbatim from genesis/constants.py; array_class -> stand-in in field mode (struct annotations qd.template(), structs are data_oriented holders of fields); `gs` -> stand-in namespace; driver kernel over 1024 numpy-seeded segment pairs (some degenerate/parallel) and 16 geoms in 2 batches; checksum lines added
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

# ---- genesis/engine/solvers/rigid/collider/utils.py (verbatim from func_closest_points_on_segments on) ----
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


@qd.func
def func_point_in_geom_aabb(
    geoms_state: array_class.GeomsState,
    i_g: qd.i32,
    i_b: qd.i32,
    point: qd.types.vector(3, qd.f32),
    expansion: qd.f32 = 0.0,
):
    aabb_min = geoms_state.aabb_min[i_g, i_b] - expansion
    aabb_max = geoms_state.aabb_max[i_g, i_b] + expansion
    return (point > aabb_min).all() and (point < aabb_max).all()


@qd.func
def func_is_geom_aabbs_overlap(geoms_state: array_class.GeomsState, i_ga, i_gb, i_b):
    return not (
        (geoms_state.aabb_max[i_ga, i_b] <= geoms_state.aabb_min[i_gb, i_b]).any()
        or (geoms_state.aabb_min[i_ga, i_b] >= geoms_state.aabb_max[i_gb, i_b]).any()
    )


@qd.func
def func_is_discrete_geom(
    geoms_info: array_class.GeomsInfo,
    i_g,
):
    """
    Check if the given geom is a discrete geometry.
    """
    geom_type = geoms_info.type[i_g]
    return geom_type == GEOM_TYPE.MESH or geom_type == GEOM_TYPE.BOX


@qd.func
def func_is_discrete_geoms(
    geoms_info: array_class.GeomsInfo,
    i_ga,
    i_gb,
):
    """
    Check if the given geoms are discrete geometries.
    """
    return func_is_discrete_geom(geoms_info, i_ga) and func_is_discrete_geom(geoms_info, i_gb)


@qd.func
def func_is_equal_vec(a, b, eps):
    """
    Check if two vectors are equal within a small tolerance.
    """
    return (qd.abs(a - b) < eps).all()

N = 1024
rng = np.random.default_rng(41)


def vecs(n, scale=1.0):
    return (rng.standard_normal((n, 3)) * scale).astype(np.float32)


def vfield(a):
    f = qd.field(gs.qd_vec3, shape=(a.shape[0],))
    f.from_numpy(a)
    return f

pa1, pa2, pb1, pb2 = (vfield(vecs(N)) for _ in range(4))
# some degenerate and parallel segments
d = vecs(N)
pa2_np = pa1.to_numpy().copy()
pa2_np[::7] = pa1.to_numpy()[::7]
pa2_np[3::7] = pa1.to_numpy()[3::7] + d[3::7]
pb1_np = pb1.to_numpy()
pb2_np = pb2.to_numpy().copy()
pb2_np[3::7] = pb1_np[3::7] + 2.0 * d[3::7]
pa2.from_numpy(pa2_np)
pb2.from_numpy(pb2_np)

n_g, n_b = 16, 2
lo = rng.uniform(-1.0, 0.5, (n_g, n_b, 3)).astype(np.float32)
geoms_state = StandInStruct(aabb_min=qd.field(gs.qd_vec3, shape=(n_g, n_b)), aabb_max=qd.field(gs.qd_vec3, shape=(n_g, n_b)))
geoms_state.aabb_min.from_numpy(lo)
geoms_state.aabb_max.from_numpy(lo + rng.uniform(0.1, 0.8, (n_g, n_b, 3)).astype(np.float32))
geoms_info = StandInStruct(type=qd.field(gs.qd_int, shape=(n_g,)))
geoms_info.type.from_numpy((np.arange(n_g) % 8).astype(np.int32))

o_pts = qd.field(gs.qd_vec3, shape=(N, 2))
o_s = qd.field(gs.qd_float, shape=(N,))
o_i = qd.field(gs.qd_int, shape=(N, 4))


@qd.kernel
def run(eps: gs.qd_float):
    for i in range(N):
        a, b = func_closest_points_on_segments(pa1[i], pa2[i], pb1[i], pb2[i], eps)
        o_pts[i, 0] = a
        o_pts[i, 1] = b
        o_s[i] = func_det3(pa1[i], pb1[i], pb2[i])
        i_g = i % n_g
        i_b = (i // n_g) % n_b
        o_i[i, 0] = qd.cast(func_point_in_geom_aabb(geoms_state, i_g, i_b, pa1[i] * 0.5), gs.qd_int)
        o_i[i, 1] = qd.cast(func_is_geom_aabbs_overlap(geoms_state, i_g, (i // 3) % n_g, i_b), gs.qd_int)
        o_i[i, 2] = qd.cast(func_is_discrete_geoms(geoms_info, i_g, (i // 5) % n_g), gs.qd_int)
        o_i[i, 3] = qd.cast(func_is_equal_vec(a, b, 0.3), gs.qd_int)


run(gs.EPS)
report("pts", o_pts.to_numpy())
report("det3", o_s.to_numpy())
report("flags", o_i.to_numpy())
