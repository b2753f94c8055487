# corpus: quadrants_misc_sparse_matrix
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 misc/sparse_matrix.py
# license: Apache-2.0
# area: misc
# port: arch x64 -> cpu; kernel and matrix operations verbatim; the prints of each matrix replaced by checksum lines of its dense entries (K.print_triplets dropped)
import quadrants as qd

qd.init(arch=qd.cpu)

n = 8

K = qd.linalg.SparseMatrixBuilder(n, n, max_num_triplets=100, dtype=qd.f32, storage_format="col_major")
f = qd.linalg.SparseMatrixBuilder(n, 1, max_num_triplets=100, dtype=qd.f32, storage_format="col_major")


@qd.kernel
def fill(
    A: qd.types.sparse_matrix_builder(),
    b: qd.types.sparse_matrix_builder(),
    interval: qd.i32,
):
    for i in range(n):
        if i > 0:
            A[i - 1, i] += -2.0
            A[i, i] += 1.0
        if i < n - 1:
            A[i + 1, i] += -1.0
            A[i, i] += 1.0

        if i % interval == 0:
            b[i, 0] += 1.0


def dense(M, rows=n, cols=n):
    return [float(M[i, j]) for i in range(rows) for j in range(cols)]


def show(label, M, rows=n, cols=n):
    d = dense(M, rows, cols)
    print(f"checksum {label}_sum", repr(sum(d)))
    print(f"checksum {label}_w", repr(sum(v * (k + 1) for k, v in enumerate(d))))


fill(K, f, 3)

A = K.build()
show("A", A)
show("f", f.build(), n, 1)

B = A + A
show("B", B)

B += A
show("B2", B)

C = B - A
show("C", C)

C -= A
show("C2", C)

D = A * 3.0
show("D", D)

D = 3.0 * A
show("D2", D)

E = D.transpose()
show("E", E)

F = E @ A
show("F", F)

print("checksum F00", repr(float(F[0, 0])))
