# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/linalg_per_thread.md lines 157-162 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Per-thread linear solve
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu)
import numpy as np
# <<< added

@qd.kernel
def solve_each(A_field: qd.types.NDArray[qd.types.matrix(2, 2, qd.f32), 1],
               b_field: qd.types.NDArray[qd.types.vector(2, qd.f32), 1],
               x_field: qd.types.NDArray[qd.types.vector(2, qd.f32), 1]) -> None:
    for i in range(A_field.shape[0]):
        x_field[i] = qd.solve(A_field[i], b_field[i])

# >>> added for the comparison (not upstream)
n = 16
rng = np.random.default_rng(3)
A = qd.ndarray(qd.types.matrix(2, 2, qd.f32), shape=(n,))
A.from_numpy((rng.standard_normal((n, 2, 2)) + 3 * np.eye(2)).astype(np.float32))
b = qd.ndarray(qd.types.vector(2, qd.f32), shape=(n,))
b.from_numpy(rng.standard_normal((n, 2)).astype(np.float32))
x = qd.ndarray(qd.types.vector(2, qd.f32), shape=(n,))
solve_each(A, b, x)
print("x", x.to_numpy().sum(axis=0).tolist(), x.to_numpy()[0].tolist())
# <<< added
