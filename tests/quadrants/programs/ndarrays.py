"""Quadrants ndarrays: from_numpy/to_numpy run Quadrants' own kernels (ext_arr_to_ndarray...)."""
import numpy as np
import quadrants as qd

qd.init(arch=qd.cpu, offline_cache=True)  # the explorer must turn the cache off anyway


@qd.kernel
def double(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in x:
        x[i] = 2 * x[i]


a = qd.ndarray(qd.f32, shape=(8,))
a.from_numpy(np.arange(8, dtype=np.float32))
double(a)
print(a.to_numpy().sum())
