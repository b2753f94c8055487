"""Clears the profiler and re-initialises Quadrants halfway: the explorer must still see every launch."""
import numpy as np
import quadrants as qd


@qd.kernel
def inc(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        x[i] += 1.0


x = np.zeros(16, np.float32)
qd.init(arch=qd.cpu, kernel_profiler=False)  # the explorer turns the profiler on anyway
for _ in range(3):
    inc(x)
qd.profiler.clear_kernel_profiler_info()  # e.g. dropping warm-up launches
inc(x)
qd.reset()
qd.init(arch=qd.cpu)
inc(x)
print("x0 =", x[0])
