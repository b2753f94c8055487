# corpus: quadrants_misc_spmv_linear_solve
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 misc/spMv_linear_solve.py
# license: Apache-2.0
# area: misc
# port: arch x64 -> cpu; kernel, SpMV and solver calls verbatim; prints replaced by checksum lines
import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)

n = 8

K = qd.linalg.SparseMatrixBuilder(n, n, max_num_triplets=100)
b = qd.field(qd.f32, shape=n)


@qd.kernel
def fill(A: qd.types.sparse_matrix_builder(), b: qd.template(), interval: qd.i32):
    for i in range(n):
        A[i, i] += 2.0

        if i % interval == 0:
            b[i] += 1.0


fill(K, b, 3)

A = K.build()
print("checksum A_diag", repr(sum(float(A[i, i]) for i in range(n))))
print("checksum b", repr(float(b.to_numpy().sum())))

x = A @ b
print("checksum spmv", " ".join(repr(float(v)) for v in np.asarray(x)))

solver = qd.linalg.SparseSolver(solver_type="LLT")
solver.analyze_pattern(A)
solver.factorize(A)
x = solver.solve(b)
print("checksum solve", " ".join(repr(float(v)) for v in np.asarray(x)))
isSuccess = solver.info()
print("checksum success", int(bool(isSuccess)))
