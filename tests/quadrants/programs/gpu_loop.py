"""A compute-bound Quadrants program: each element runs a long dependent loop (for PTX edits in a loop).

Usage: python gpu_loop.py [N] [STEPS] [REPEAT]
"""
import sys

import numpy as np
import quadrants as qd


@qd.kernel
def spin(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1), steps: qd.i32):
    for i in range(x.shape[0]):
        acc = x[i]
        for _ in range(steps):
            acc = acc * 0.999 + 0.001
        y[i] = acc


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    qd.init(arch=qd.gpu)
    x = np.full(n, 2.0, np.float32)
    y = np.zeros(n, np.float32)
    for _ in range(repeat):
        spin(x, y, steps)
    qd.sync()
    print(f"y0={y[0]:.6f} expected={1 + 0.999 ** steps:.6f}")
