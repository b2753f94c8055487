# corpus: quadrants_bench_matrix_ops
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 benchmarks/microbenchmarks/matrix_ops.py
# license: Apache-2.0
# area: misc
# port: matrix_operations_default and the matrix_add/mul/mma funcs verbatim; framework replaced by 4 of the plan's cases (each op with 2x2 f32, and mat_mma 3x3 i32; all 24 take over 2 minutes to compile), element_num 16384 -> 16, one call (no timing repeats), qd.init(arch=qd.cpu) per case; the original fill kernels loop over qd.static(range(m, n)) which is empty, so matrices stay zero as upstream; global_matrixC captured via a wrapper of qd.Matrix.field for the checksum
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

def matrix_operations_default(arch, repeat, matrix_op, block_mn, element_num, dtype, get_metric):
    m, n = block_mn
    global_matrixA = qd.Matrix.field(m, n, dtype, shape=element_num)
    global_matrixB = qd.Matrix.field(m, n, dtype, shape=element_num)
    global_matrixC = qd.Matrix.field(m, n, dtype, shape=element_num)

    @qd.kernel
    def fill_matrixA():
        for e in global_matrixA:
            for i, j in qd.static(range(m, n)):
                global_matrixA[e][i, j] = qd.random(dtype)

    @qd.kernel
    def fill_matrixB():
        for e in global_matrixB:
            for i, j in qd.static(range(m, n)):
                global_matrixB[e][i, j] = qd.random(dtype)

    @qd.kernel
    def op_throughput():
        for e in range(element_num):
            # prelogue
            A = global_matrixA[e]
            B = global_matrixB[e]
            C = qd.Matrix.zero(dtype, m, n)
            C = matrix_op(C, A, B)  # C += A@B
            # loop
            for i in range(2048):
                for j in qd.static(range(4)):  # 16*4*4=256
                    A = matrix_op(A, C, B)  # A += C@B
                    C = matrix_op(C, A, B)  # C += A@B
                    B = matrix_op(B, A, C)  # B += A@C
                    C = matrix_op(C, A, B)  # C += A@B
            # epilogue
            global_matrixC[e] = C

    fill_matrixA()
    fill_matrixB()
    return get_metric(repeat, op_throughput)


@qd.func
def matrix_add(C, A, B):
    C = A + B
    return C


@qd.func
def matrix_mul(C, A, B):
    C = A @ B
    return C


@qd.func
def matrix_mma(C, A, B):
    """matrix multiply and add"""
    C = A @ B + C
    return C


_orig_mfield = qd.Matrix.field


def _capture(*args, **kwargs):
    f = _orig_mfield(*args, **kwargs)
    _captured.append(f)
    return f


OPS = {"mat_add": matrix_add, "mat_mul": matrix_mul, "mat_mma": matrix_mma}
CASES = [(opname, (2, 2), "f32") for opname in OPS] + [("mat_mma", (3, 3), "i32")]
for opname, mn, dname in CASES:
    op = OPS[opname]
    if True:
        if True:
            qd.init(arch=qd.cpu)
            _captured = []
            qd.Matrix.field = _capture
            try:
                matrix_operations_default("x64", 1, op, mn, 16, DTYPES[dname], get_metric)
            finally:
                qd.Matrix.field = _orig_mfield
            report(f"{opname}_{mn[0]}{mn[1]}_{dname}", _captured[2].to_numpy())
