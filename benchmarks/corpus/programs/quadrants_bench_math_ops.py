# corpus: quadrants_bench_math_ops
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 benchmarks/microbenchmarks/math_opts.py benchmarks/microbenchmarks/_items.py
# license: Apache-2.0
# area: misc
# port: unary_ops_throughput_default verbatim; the MathOps item list copied verbatim; framework replaced by a loop over the 14 ops in f32 and 6 of them in f64 (all 28 cases take 35 s) with element_num 16384 -> 256 and thread_for_loop 8 (smallest), one call (no timing repeats), qd.init(arch=qd.cpu) per case; the fill_random kernel runs, then data overwritten with numpy-seeded values in [0.1, 0.9); checksum lines (finite sum and non-finite count) added
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

def unary_ops_throughput_default(arch, repeat, math_op, dtype, element_num, thread_for_loop, get_metric):
    local_data_num = 16  # enough data to fill the instruction pipeline
    global_vector = qd.Vector.field(local_data_num, dtype, element_num)

    @qd.kernel
    def op_throughput():
        for e in global_vector:
            local_vector = global_vector[e]
            # loop
            for j in range(thread_for_loop):
                for k in qd.static(range(local_data_num)):
                    local_vector[k] = math_op(local_vector[k])
            # epilogue
            global_vector[e] = local_vector

    @qd.kernel
    def fill_random():
        for e in global_vector:
            for i in qd.static(range(local_data_num)):
                global_vector[e][i] = qd.random()

    fill_random()
    return get_metric(repeat, op_throughput)


MATH_OPS = {
    # Trigonometric
    "sin": qd.sin,
    "cos": qd.cos,
    "tan": qd.tan,
    "asin": qd.asin,
    "acos": qd.acos,
    "tanh": qd.tanh,
    # Other arithmetic
    "sqrt": qd.sqrt,
    "rsqrt": qd.rsqrt,  # A fast version for `1 / qd.sqrt(x)`.
    "exp": qd.exp,
    "log": qd.log,
    "round": qd.round,
    "floor": qd.floor,
    "ceil": qd.ceil,
    "abs": qd.abs,
}

_orig_field = qd.Vector.field


def _capture(*args, **kwargs):
    f = _orig_field(*args, **kwargs)
    _captured.append(f)
    return f


CASES = [(o, "f32") for o in MATH_OPS] + [(o, "f64") for o in ("sin", "tanh", "rsqrt", "exp", "log", "round")]
for opname, dname in CASES:
    op = MATH_OPS[opname]
    if True:
        dtype = DTYPES[dname]
        qd.init(arch=qd.cpu)
        _captured = []
        qd.Vector.field = _capture
        try:
            calls = []

            def metric(repeat, func, *args):
                calls.append(func)
                return None

            unary_ops_throughput_default("x64", 1, op, dtype, 256, 8, metric)
        finally:
            qd.Vector.field = _orig_field
        gv = _captured[0]
        gv.from_numpy((0.1 + 0.8 * _rng.random((256, 16))).astype(_NP[dtype]))
        calls[0]()
        report(f"{opname}_{dname}", gv.to_numpy())
