"""`qd.sym_eig`, `qd.eig`, `qd.svd`, `qd.polar_decompose` and `qd.make_spd` without `dt` compute in
the program's default float, as Quadrants' do: under `qd.init(default_fp=qd.f64)` they are accurate
to f64 (they computed in f32, silently losing half the digits)."""
import numpy as np

import qdexplorer.lang as qd


def test_decompositions_without_dt_use_the_default_float():
    qd.init(arch=qd.cpu, default_fp=qd.f64, fast_math=False)
    try:
        dt = qd.f64
        A = qd.Matrix.field(2, 2, dtype=dt, shape=())
        B = qd.Matrix.field(3, 3, dtype=dt, shape=())
        v = qd.Vector.field(2, dtype=dt, shape=())
        w = qd.Matrix.field(2, 2, dtype=dt, shape=())
        ev = qd.Matrix.field(2, 2, dtype=dt, shape=())
        ew = qd.Matrix.field(4, 2, dtype=dt, shape=())
        U, S, V = (qd.Matrix.field(3, 3, dtype=dt, shape=()) for _ in range(3))
        A[None] = [[5, 3], [3, 2]]
        B[None] = [[2.0, 0.3, 0.1], [0.4, 1.5, 0.2], [0.3, 0.1, 1.1]]

        @qd.kernel
        def solve():
            v[None], w[None] = qd.sym_eig(A[None])
            ev[None], ew[None] = qd.eig(A[None])
            U[None], S[None], V[None] = qd.svd(B[None])

        solve()
        want = np.sort(np.linalg.eigvalsh(A.to_numpy()))
        np.testing.assert_allclose(np.sort(v.to_numpy()), want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.sort(ev.to_numpy()[:, 0]), want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(U.to_numpy() @ S.to_numpy() @ V.to_numpy().T, B.to_numpy(), atol=1e-12)
    finally:
        qd.reset()
