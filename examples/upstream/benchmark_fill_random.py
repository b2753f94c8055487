# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   benchmarks/microbenchmarks/_utils.py lines 67-89 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu, random_seed=23)
# <<< added

def fill_random(dst, dtype, container):
    @qd.kernel
    def fill_template(dst: qd.template()):
        for I in qd.grouped(dst):
            dst[I] = qd.random(dtype)

    @qd.kernel
    def fill_1d_array(dst: qd.types.ndarray()):
        for i in dst:
            dst[i] = qd.random(dtype)

    @qd.kernel
    def fill_2d_array(dst: qd.types.ndarray()):
        for i, j in dst:
            dst[i, j] = qd.random(dtype)

    if container == qd.ndarray:
        if len(dst.shape) == 1:
            fill_1d_array(dst)
        elif len(dst.shape) == 2:
            fill_2d_array(dst)
    else:
        fill_template(dst)

# >>> added for the comparison (not upstream)
import numpy as np

n = 1 << 20
f = qd.field(qd.f32, shape=n)
fill_random(f, qd.f32, qd.field)
a = qd.ndarray(qd.f64, shape=(1024, 1024))
fill_random(a, qd.f64, qd.ndarray)
b = qd.ndarray(qd.i32, shape=(n,))
fill_random(b, qd.i32, qd.ndarray)
x, y, k = f.to_numpy().astype(np.float64), a.to_numpy().ravel(), b.to_numpy()
print("f32 field: mean %.4f var %.4f below 0.25 %.4f" % (x.mean(), x.var(), (x < 0.25).mean()))
print("f64 ndarray: mean %.4f var %.4f lag-1 corr %.4f" % (y.mean(), y.var(), np.corrcoef(y[:-1], y[1:])[0, 1]))
print("i32 ndarray: negative %.4f odd %.4f" % ((k < 0).mean(), (k & 1).mean()))
print("ranges ok", bool(x.min() >= 0 and x.max() < 1 and y.min() >= 0 and y.max() < 1))

# <<< added
