# Vendored from https://github.com/Genesis-Embodied-AI/Genesis (Apache License 2.0; copyright the Genesis authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   genesis/utils/raycast_qd.py lines 124-225 at commit 7bf5f6a7bf2946efc3a1e93667700011456078b5
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import types

import numpy as np
import quadrants as qd

qd.init(arch=qd.gpu)
gs = types.SimpleNamespace(qd_float=qd.f32, qd_int=qd.i32, qd_vec3=qd.types.vector(3, qd.f32))  # genesis' precision 32
# <<< added

@qd.func
def ray_triangle_intersection(
    ray_start: gs.qd_vec3,
    ray_dir: gs.qd_vec3,
    v0: gs.qd_vec3,
    v1: gs.qd_vec3,
    v2: gs.qd_vec3,
    eps: float,
):
    """
    Moller-Trumbore ray-triangle intersection.

    Returns
    -------
    result : qd.math.vec4
        (t, u, v, hit) where hit=1.0 if intersection found, 0.0 otherwise
    """
    result = qd.Vector.zero(gs.qd_float, 4)

    edge1 = v1 - v0
    edge2 = v2 - v0

    # Begin calculating determinant - also used to calculate u parameter
    h = ray_dir.cross(edge2)
    a = edge1.dot(h)

    # Check all conditions in sequence without early returns
    valid = True

    t = gs.qd_float(0.0)
    u = gs.qd_float(0.0)
    v = gs.qd_float(0.0)
    f = gs.qd_float(0.0)
    s = qd.Vector.zero(gs.qd_float, 3)
    q = qd.Vector.zero(gs.qd_float, 3)

    # If determinant is near zero, ray lies in plane of triangle
    if qd.abs(a) < eps:
        valid = False

    if valid:
        f = gs.qd_float(1.0) / a
        s = ray_start - v0
        u = f * s.dot(h)

        if u < 0.0 or u > 1.0:
            valid = False

    if valid:
        q = s.cross(edge1)
        v = f * ray_dir.dot(q)

        if v < 0.0 or u + v > 1.0:
            valid = False

    if valid:
        # At this stage we can compute t to find out where the intersection point is on the line
        t = f * edge2.dot(q)

        # Ray intersection
        if t <= eps:
            valid = False

    if valid:
        result = qd.math.vec4(t, u, v, gs.qd_float(1.0))

    return result


@qd.func
def ray_aabb_intersection(
    ray_start: gs.qd_vec3,
    ray_dir: gs.qd_vec3,
    aabb_min: gs.qd_vec3,
    aabb_max: gs.qd_vec3,
    eps: float,
):
    """
    Fast ray-AABB intersection test.
    Returns the t value of intersection, or -1.0 if no intersection.
    """
    result = -1.0

    # Use the slab method for ray-AABB intersection
    sign = qd.select(ray_dir >= 0.0, 1.0, -1.0)
    ray_dir = sign * qd.max(qd.abs(ray_dir), eps)
    inv_dir = 1.0 / ray_dir

    t1 = (aabb_min - ray_start) * inv_dir
    t2 = (aabb_max - ray_start) * inv_dir

    tmin = qd.min(t1, t2)
    tmax = qd.max(t1, t2)

    t_near = qd.max(tmin.x, tmin.y, tmin.z, gs.qd_float(0.0))
    t_far = qd.min(tmax.x, tmax.y, tmax.z)

    # Check if ray intersects AABB
    if t_near <= t_far:
        result = t_near

    return result

# >>> added for the comparison (not upstream)
EPS = 1e-6


@qd.kernel
def cast(o: qd.types.NDArray[gs.qd_vec3, 1], d: qd.types.NDArray[gs.qd_vec3, 1],
         tri: qd.types.NDArray[qd.types.matrix(3, 3, qd.f32), 1], box: qd.types.NDArray[gs.qd_vec3, 2],
         out: qd.types.NDArray[qd.f32, 2]) -> None:
    for i in range(o.shape[0]):
        closest = gs.qd_float(1e9)
        hits = 0
        for j in range(tri.shape[0]):
            T = tri[j]
            r = ray_triangle_intersection(o[i], d[i], T[0, :], T[1, :], T[2, :], EPS)
            if r[3] > 0.0:
                hits += 1
                closest = qd.min(closest, r[0])
        t_box = ray_aabb_intersection(o[i], d[i], box[i, 0], box[i, 1], EPS)
        out[i, 0] = hits
        out[i, 1] = closest if hits > 0 else -1.0
        out[i, 2] = t_box


rng = np.random.default_rng(23)
n, m = 512, 64
o = qd.ndarray(gs.qd_vec3, shape=(n,))
o.from_numpy(rng.uniform(-4, -3, (n, 3)).astype(np.float32))
d = qd.ndarray(gs.qd_vec3, shape=(n,))
dirs = rng.uniform(0.2, 1.0, (n, 3))
d.from_numpy((dirs / np.linalg.norm(dirs, axis=1, keepdims=True)).astype(np.float32))
tri = qd.ndarray(qd.types.matrix(3, 3, qd.f32), shape=(m,))
tri.from_numpy(rng.uniform(-2, 2, (m, 3, 3)).astype(np.float32))
box = qd.ndarray(gs.qd_vec3, shape=(n, 2))
lo = rng.uniform(-1, 0.5, (n, 3))
box.from_numpy(np.stack([lo, lo + rng.uniform(0.1, 2.0, (n, 3))], axis=1).astype(np.float32))
out = qd.ndarray(qd.f32, shape=(n, 3))
cast(o, d, tri, box, out)
r = out.to_numpy().astype(np.float64)
print("triangle hits", int(r[:, 0].sum()), "rays that hit", int((r[:, 0] > 0).sum()))
print("closest t sum", float(r[r[:, 0] > 0, 1].sum()))
print("boxes hit", int((r[:, 2] >= 0).sum()), "box t sum", float(r[r[:, 2] >= 0, 2].sum()))

# <<< added
