import cProfile, pstats, time, sys
import numpy as np, torch
import qdexplorer.lang as qd
qd.init(arch=qd.cuda)
F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)
@qd.kernel
def axpy(x: F1, y: F1, a: qd.f32):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]
n = 1 << 16
xq, yq = qd.ndarray(qd.f32, shape=(n,)), qd.ndarray(qd.f32, shape=(n,))
xt, yt = torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")
for name, args in (("ndarray", (xq, yq)), ("torch", (xt, yt))):
    for _ in range(20): axpy(*args, 1.0)
    t = time.perf_counter()
    for _ in range(2000): axpy(*args, 1.0)
    print(name, "us/call", (time.perf_counter() - t) / 2000 * 1e6)
    pr = cProfile.Profile(); pr.enable()
    for _ in range(2000): axpy(*args, 1.0)
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(18)
