# corpus: quadrants_misc_tensor_access
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 misc/benchmark_tensor_access.py
# license: Apache-2.0
# area: misc
# port: qd.init(arch=qd.cpu) added (original relied on default init); python-scope loops 1M -> 20k; libm ctypes/math.sin timing loops dropped (pure Python, no Quadrants); x seeded with numpy before laplace; timing prints replaced by checksum lines
import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)

x, y = qd.field(qd.f32), qd.field(qd.f32)


@qd.kernel
def laplace():
    for i, j in x:
        y[i, j] = 4.0 * x[i, j] - x[i - 1, j] - x[i + 1, j] - x[i, j - 1] - x[i, j + 1]


qd.root.dense(qd.ij, (16, 16)).place(x).place(y)

x.from_numpy(np.random.default_rng(0).random((16, 16), dtype=np.float32))
laplace()

N = 20000
for i in range(N):
    x[i & 7, i & 7] = 1.0

N = 20000
a = 0
for i in range(N):
    a += x[i & 15, i & 15]

laplace()
print("checksum a", repr(float(a)))
print("checksum y", repr(float(y.to_numpy().astype(np.float64).sum())))
print("checksum y_abs", repr(float(np.abs(y.to_numpy()).astype(np.float64).sum())))
