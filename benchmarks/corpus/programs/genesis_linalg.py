# corpus: genesis_linalg
# source: github:Genesis-Embodied-AI/Genesis@7bf5f6a7bf2946efc3a1e93667700011456078b5 genesis/utils/linalg.py
# license: Apache-2.0
# area: rigid
# port: linalg.py copied verbatim (mat_mul, mat_mul_vec, mat_inverse, mat_add, mat_transpose, mat_add_eye, mat_mask); `gs` -> stand-in namespace; driver kernel over 64 batches of numpy-seeded 6x6 matrices in (n, m, B) fields; checksum lines added
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


# ---- genesis/utils/linalg.py (verbatim) ----
@qd.func
def mat_mul(A, B, res, n, m, l, i_b):
    """
    Performs matrix multiplication between matrices A and B and stores the result in res.

    Args:
        A (qd.field): The first matrix of shape (n, m, B).
        B (qd.field): The second matrix of shape (m, l, B).
        res (qd.field): The result matrix of shape (n, l, B).
        n (int): The number of rows in matrix A and res.
        m (int): The number of columns in matrix A and rows in matrix B.
        l (int): The number of columns in matrix B and res.
        i_b (int): batch index.
    """
    for i in range(n):
        for j in range(l):
            res[i, j, i_b] = 0
            for k in range(m):
                res[i, j, i_b] += A[i, k, i_b] * B[k, j, i_b]


@qd.func
def mat_mul_vec(mat, vec, res, n, m, i_b):
    for i in range(n):
        res[i, i_b] = 0
        for j in range(m):
            res[i, i_b] += mat[i, j, i_b] * vec[j, i_b]
    return res


@qd.func
def mat_inverse(mat, L, U, y, res, n, i_b):
    """
    Inverse via LU decomposition
    """
    # LU decomposition
    for i in range(n):
        L[i, i, i_b] = 1
        for j in range(i, n):
            tmp = mat[i, j, i_b]
            for k in range(i):
                tmp -= L[i, k, i_b] * U[k, j, i_b]
            U[i, j, i_b] = tmp

        for j in range(i + 1, n):
            tmp = mat[j, i, i_b]
            for k in range(i):
                tmp -= L[j, k, i_b] * U[k, i, i_b]
            L[j, i, i_b] = tmp / U[i, i, i_b]

    # Forward and backward substitution for each column k of the identity matrix
    for k in range(n):
        # Forward substitution
        for i in range(n):
            tmp = gs.qd_float(0.0)
            for j in range(i):
                tmp += L[i, j, i_b] * y[k, j, i_b]
            if i == k:
                y[k, i, i_b] = 1 - tmp
            else:
                y[k, i, i_b] = -tmp

        # Backward substitution
        for i_ in range(n):
            i = n - 1 - i_
            tmp = gs.qd_float(0.0)
            for j in range(i + 1, n):
                tmp += U[i, j, i_b] * res[j, k, i_b]
            res[i, k, i_b] = (y[k, i, i_b] - tmp) / U[i, i, i_b]


@qd.func
def mat_add(A, B, n, m, i_b):
    for i in range(n):
        for k in range(m):
            A[i, k, i_b] += B[i, k, i_b]


@qd.func
def mat_transpose(A, B, n, m, i_b):
    for i in range(n):
        for k in range(m):
            B[k, i, i_b] = A[i, k, i_b]


@qd.func
def mat_add_eye(A, x, n, i_b):
    for i in range(n):
        A[i, i, i_b] += x


@qd.func
def mat_mask(A, mask, n, m, i_b):
    for i in range(n):
        for j in range(m):
            A[i, j, i_b] *= mask[i]


# ---- stand-in driver: batched 6x6 systems in fields of shape (n, m, B) as Genesis lays them out ----
n, B = 6, 64
rng = np.random.default_rng(51)
A_np = (rng.standard_normal((n, n, B)) + 4.0 * np.eye(n)[:, :, None]).astype(np.float32)
Bm_np = rng.standard_normal((n, n, B)).astype(np.float32)
v_np = rng.standard_normal((n, B)).astype(np.float32)
mask_np = (np.arange(n) % 2 == 0).astype(np.float32) + 0.5


def f(*shape):
    return qd.field(gs.qd_float, shape=shape)


A, Bm, res, L_, U_, y, inv, AT, prod = f(n, n, B), f(n, n, B), f(n, n, B), f(n, n, B), f(n, n, B), f(n, n, B), f(n, n, B), f(n, n, B), f(n, n, B)
vec, mv = f(n, B), f(n, B)
mask = f(n)
A.from_numpy(A_np)
Bm.from_numpy(Bm_np)
vec.from_numpy(v_np)
mask.from_numpy(mask_np)


@qd.kernel
def run():
    for i_b in range(B):
        mat_mul(A, Bm, res, n, n, n, i_b)
        mat_mul_vec(A, vec, mv, n, n, i_b)
        mat_inverse(A, L_, U_, y, inv, n, i_b)
        mat_mul(A, inv, prod, n, n, n, i_b)
        mat_transpose(A, AT, n, n, i_b)
        mat_add(AT, Bm, n, n, i_b)
        mat_add_eye(AT, 0.5, n, i_b)
        mat_mask(AT, mask, n, n, i_b)


run()
report("AB", res.to_numpy())
report("Av", mv.to_numpy())
report("inv", inv.to_numpy())
report("A_inv_A", prod.to_numpy())
report("L", L_.to_numpy())
report("U", U_.to_numpy())
report("AT", AT.to_numpy())
