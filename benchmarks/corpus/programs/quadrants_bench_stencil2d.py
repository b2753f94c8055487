# corpus: quadrants_bench_stencil2d
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 benchmarks/microbenchmarks/stencil2d.py benchmarks/microbenchmarks/_utils.py
# license: Apache-2.0
# area: sparse
# port: qd.block_dim(64) -> qd.loop_config(block_dim=64) (the API rename); otherwise bench functions verbatim; _utils helpers verbatim; framework replaced by a loop over the gather cases (field, ndarray, sparse pointer with bls off/on; all 4 dtypes for field/ndarray, i32 and f32 for sparse) at the smallest 2-D size, qd.init(arch=qd.cpu) per case, one call each; scatter cases not run (they write out of bounds at the grid edge); after the original qd.random fill, data overwritten with numpy-seeded values (qd.random differs between implementations; in the sparse case only the active cells, from python scope); checksum lines over the interior added
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


def _overwrite_active(dst, dtype):
    # sparse case: overwrite only the activated region (4x4 blocks of 8x8) from python scope
    v = _rng.integers(0, 64, size=(32, 32))
    for i in range(32):
        for j in range(32):
            dst[i, j] = float(v[i, j]) / 8.0 if dtype in (qd.f32, qd.f64) else int(v[i, j])



stencil_common = [(0, 0), (0, -1), (0, 1), (1, 0)]


def stencil_2d_default(arch, repeat, scatter, bls, container, dtype, dsize_2d, get_metric):
    dsize = dsize_2d[0] * dsize_2d[1]
    repeat = scaled_repeat_times(arch, dsize, repeat)
    num_elements_2d = (dsize_2d[0] // dtype_size(dtype), dsize_2d[1] // 2)

    y = container(dtype, shape=num_elements_2d)
    x = container(dtype, shape=num_elements_2d)

    @qd.kernel
    def stencil_2d_field(y: qd.template(), x: qd.template()):
        for I in qd.grouped(x):
            if qd.static(scatter):
                for offset in qd.static(stencil_common):
                    y[I + qd.Vector(offset)] += x[I]
            else:  # gather
                s = qd.cast(0.0, dtype)
                for offset in qd.static(stencil_common):
                    s = s + x[I + qd.Vector(offset)]
                y[I] = s

    @qd.kernel
    def stencil_2d_array(y: qd.types.ndarray(), x: qd.types.ndarray()):
        for I in qd.grouped(x):
            if qd.static(scatter):
                for offset in qd.static(stencil_common):
                    y[I + qd.Vector(offset)] += x[I]
            else:  # gather
                s = qd.cast(0.0, dtype)
                for offset in qd.static(stencil_common):
                    s = s + x[I + qd.Vector(offset)]
                y[I] = s

    _fill_random_then_numpy(x, dtype, container)
    func = stencil_2d_field if container == qd.field else stencil_2d_array
    return get_metric(repeat, func, y, x)


def stencil_2d_sparse_bls(arch, repeat, scatter, bls, container, dtype, dsize_2d, get_metric):
    dsize = dsize_2d[0] * dsize_2d[1]
    if dsize <= 4096 or dsize > 67108864:  # 16KB <= dsize <= 64 MB: Sparse-specific parameters
        return None
    repeat = scaled_repeat_times(arch, dsize, 1)  # basic_repeat_time = 1: Sparse-specific parameters
    block_elements_2d = (dsize_2d[0] // dtype_size(dtype) // 8, dsize_2d[1] // 2 // 8)

    block = qd.root.pointer(qd.ij, block_elements_2d)
    y = qd.field(dtype)
    x = qd.field(dtype)
    block.dense(qd.ij, 8).place(y)
    block.dense(qd.ij, 8).place(x)

    @qd.kernel
    def active_all():
        for i, j in qd.ndrange(block_elements_2d[0], block_elements_2d[0]):
            qd.activate(block, [i, j])

    active_all()

    @qd.kernel
    def stencil_2d(y: qd.template(), x: qd.template()):
        # reference: tests/python/bls_test_template.py
        if qd.static(bls and not scatter):
            qd.block_local(x)
        if qd.static(bls and scatter):
            qd.block_local(y)
        qd.loop_config(block_dim=64)  # 8*8=64

        for I in qd.grouped(x):
            if qd.static(scatter):
                for offset in qd.static(stencil_common):
                    y[I + qd.Vector(offset)] += x[I]
            else:  # gather
                s = qd.cast(0.0, dtype)
                for offset in qd.static(stencil_common):
                    s = s + x[I + qd.Vector(offset)]
                y[I] = s

    fill_random(x, dtype, container)
    _overwrite_active(x, dtype)
    return get_metric(repeat, stencil_2d, y, x)


# Only gather cases: scatter writes y[I + offset] out of bounds at the grid's edge (undefined behaviour).
# Checksums over the interior only (gather reads x out of bounds at the edge).
for cont_name, container in (("field", qd.field), ("ndarray", qd.ndarray)):
    for dname, dtype in DTYPES.items():
        qd.init(arch=qd.cpu)
        y, x = stencil_2d_default("x64", 1, False, False, container, dtype, (128, 128), get_metric)
        report(f"gather_{cont_name}_{dname}", y.to_numpy()[1:-1, 1:-1])

_orig_activate_field = qd.field
for bls in (False, True):
    for dname, dtype in (("i32", qd.i32), ("f32", qd.f32)):
        qd.init(arch=qd.cpu)
        y, x = stencil_2d_sparse_bls("x64", 1, False, bls, "sparse", dtype, (128, 128), get_metric)
        a = y.to_numpy()[1:31, 1:31]
        report(f"sparse_gather_bls{int(bls)}_{dname}", a)
