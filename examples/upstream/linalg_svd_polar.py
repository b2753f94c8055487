# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/linalg_per_thread.md lines 108-115 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/linalg_per_thread.md lines 170-173 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Closest rotation to a 3x3 matrix (ARAP); 2x2 polar decomposition for shape matching
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu)
import numpy as np
# <<< added

@qd.func
def closest_rotation(A: qd.types.matrix(3, 3, qd.f64)) -> qd.types.matrix(3, 3, qd.f64):
    U, S, V = qd.svd(A, dt=qd.f64)
    R = U @ V.transpose()
    if R.determinant() < 0.0:
        V[:, 2] *= -1.0
        R = U @ V.transpose()
    return R

@qd.func
def shape_match(A: qd.types.matrix(2, 2, qd.f32)) -> qd.types.matrix(2, 2, qd.f32):
    R, _ = qd.polar_decompose(A)
    return R

# >>> added for the comparison (not upstream)
@qd.kernel
def run(A: qd.types.NDArray[qd.types.matrix(3, 3, qd.f64), 1], R: qd.types.NDArray[qd.types.matrix(3, 3, qd.f64), 1],
        B: qd.types.NDArray[qd.types.matrix(2, 2, qd.f32), 1], Q: qd.types.NDArray[qd.types.matrix(2, 2, qd.f32), 1]) -> None:
    for i in range(A.shape[0]):
        R[i] = closest_rotation(A[i])
        Q[i] = shape_match(B[i])


rng = np.random.default_rng(7)
n = 32
A = qd.ndarray(qd.types.matrix(3, 3, qd.f64), shape=(n,))
A.from_numpy(rng.standard_normal((n, 3, 3)))
B = qd.ndarray(qd.types.matrix(2, 2, qd.f32), shape=(n,))
B.from_numpy(rng.standard_normal((n, 2, 2)).astype(np.float32))
R = qd.ndarray(qd.types.matrix(3, 3, qd.f64), shape=(n,))
Q = qd.ndarray(qd.types.matrix(2, 2, qd.f32), shape=(n,))
run(A, R, B, Q)
r, q = R.to_numpy(), Q.to_numpy()
print("det R", np.round(np.linalg.det(r), 6).tolist()[:4], "sum R", float(r.sum()))
print("det Q", np.round(np.linalg.det(q), 4).tolist()[:4], "sum Q", float(q.sum()))
# <<< added
