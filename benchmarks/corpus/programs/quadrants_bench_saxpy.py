# corpus: quadrants_bench_saxpy
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 benchmarks/microbenchmarks/saxpy.py benchmarks/microbenchmarks/_utils.py
# license: Apache-2.0
# area: misc
# port: bench functions verbatim; _utils helpers copied verbatim; benchmark framework (plan, items, metric executor with timing) replaced by a loop over the plan's cases at the smallest data size with qd.init(arch=qd.cpu) per case as the framework does; after each original qd.random fill the data is overwritten with numpy-seeded values (qd.random differs between implementations); checksum lines of the outputs added
import numpy as np

import quadrants as qd

# ---- from benchmarks/microbenchmarks/_utils.py (verbatim) ----
def dtype_size(qd_dtype):
    dtype_size_dict = {qd.i32: 4, qd.i64: 8, qd.f32: 4, qd.f64: 8}
    if qd_dtype not in dtype_size_dict:
        raise RuntimeError("Unsupported qd.dtype: " + str(type(qd_dtype)))
    else:
        return dtype_size_dict[qd_dtype]


def scaled_repeat_times(arch: str, datasize, repeat=1):
    if (arch == "cuda") | (arch == "vulkan") | (arch == "opengl"):
        repeat *= 10
    if datasize <= 4 * 1024 * 1024:
        repeat *= 10
    return repeat


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
# ---- end of _utils.py ----

# ---- stand-in scaffolding ----
_rng = np.random.default_rng(1234)
_NP = {qd.i32: np.int32, qd.i64: np.int64, qd.f32: np.float32, qd.f64: np.float64}


def _overwrite_with_numpy(dst, dtype):
    # qd.random differs between implementations: after the original random fill ran, overwrite with seeded data
    # (small integers, and multiples of 1/8 for floats, so sums are exact in any order)
    shape = tuple(dst.shape)
    v = _rng.integers(0, 64, size=shape)
    if dtype in (qd.f32, qd.f64):
        v = v / 8.0
    dst.from_numpy(v.astype(_NP[dtype]))


def _fill_random_then_numpy(dst, dtype, container):
    fill_random(dst, dtype, container)
    _overwrite_with_numpy(dst, dtype)


def get_metric(repeat, func, *args):
    # stand-in for end2end_executor: run `repeat` times, no timing
    for i in range(repeat):
        func(*args)
    return args


def report(label, arr):
    a = np.asarray(arr)
    if a.dtype.kind in "iu":
        print(f"checksum {label}", int(a.astype(np.int64).sum()))
    else:
        a = a.astype(np.float64)
        fin = np.isfinite(a)
        print(f"checksum {label}", repr(float(a[fin].sum())))
        if not fin.all():
            print(f"checksum {label}_nonfinite", int((~fin).sum()))


DTYPES = {"i32": qd.i32, "i64": qd.i64, "f32": qd.f32, "f64": qd.f64}
DSIZE = 4**2 * 1024  # the smallest DataSize item (16KB)

def saxpy_default(arch, repeat, container, dtype, dsize, get_metric):
    repeat = scaled_repeat_times(arch, dsize, repeat)
    num_elements = dsize // dtype_size(dtype) // 3  # z=x+y

    x = container(dtype, num_elements)
    y = container(dtype, num_elements)
    z = container(dtype, num_elements)

    @qd.kernel
    def saxpy_field(z: qd.template(), x: qd.template(), y: qd.template()):
        for i in z:
            z[i] = 17 * x[i] + y[i]

    @qd.kernel
    def saxpy_array(z: qd.types.ndarray(), x: qd.types.ndarray(), y: qd.types.ndarray()):
        for i in z:
            z[i] = 17 * x[i] + y[i]

    _fill_random_then_numpy(x, dtype, container)
    _fill_random_then_numpy(y, dtype, container)
    func = saxpy_field if container == qd.field else saxpy_array
    return get_metric(repeat, func, z, x, y)


for cont_name, container in (("field", qd.field), ("ndarray", qd.ndarray)):
    for dname, dtype in DTYPES.items():
        qd.init(arch=qd.cpu)
        z, x, y = saxpy_default("x64", 1, container, dtype, DSIZE, get_metric)
        report(f"{cont_name}_{dname}", z.to_numpy())
