# corpus: quadrants_misc_async_weaken_access
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 misc/test_async_weaken_access.py
# license: Apache-2.0
# area: sparse
# port: qd.init() -> qd.init(arch=qd.cpu); y activated/seeded from python scope (was never written); checksum lines added
import quadrants as qd

qd.init(arch=qd.cpu)

x = qd.field(qd.i32)
y = qd.field(qd.i32)

qd.root.pointer(qd.ij, 4).dense(qd.ij, 8).place(x, y)


@qd.kernel
def copy():
    for i, j in y:
        x[i, j] = y[i, j]


for k in range(40):
    y[(k * 7) % 32, (k * 13) % 32] = k * 3 + 1

copy()

xs = x.to_numpy()
print("checksum x_sum", int(xs.sum()))
print("checksum x_w", int(sum(int(xs[i, j]) * (i * 32 + j) for i in range(32) for j in range(32))))
