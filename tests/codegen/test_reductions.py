"""Atomics into one loop-invariant element become reductions: private accumulators, then one
atomic per block (CUDA: warp butterfly + shared memory) or per chunk (CPU). Checked in the PTX
and, on every backend present, against NumPy."""
import re

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module
from qdexplorer.compiler.stages import CompileRequest, compile_module

F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)
I1 = qd.types.ndarray(dtype=qd.i32, ndim=1)


def ptx_of(kernel, *args):
    task = kernel.tasks()[-1]
    tm = build_task_module(task, CodegenOptions("nvptx"))
    res = compile_module(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,)))
    assert res.ok, res.error
    return tm, res.output.decode()


@qd.kernel
def total(x: F1, out: F1):
    for i in range(x.shape[0]):
        out[0] += x[i]


def test_sum_ptx_has_butterfly_shared_stage_and_one_atomic():
    tm, ptx = ptx_of(total)
    assert tm.log == ["reduction: warp+block, 1 atomic per block: out[0] add (f32)"]
    # two butterflies of five steps: within each warp, then over the warps' partials
    assert len(re.findall(r"shfl\.sync\.bfly\.b32", ptx)) == 10
    assert "bar.sync" in ptx and re.search(r"\.shared \.align 16 \.b8 \S+reduce0\[128\]", ptx)
    assert len(re.findall(r"atom\.global\.add\.f32", ptx)) == 1
    # the atomic comes after the grid-stride loops: every load of x happens before it
    assert ptx.index("atom.global") > ptx.rindex("ld.global")


def test_atomic_whose_old_value_is_used_stays_plain():
    @qd.kernel
    def ticket(out: I1, counter: I1):
        for i in range(out.shape[0]):
            out[i] = qd.atomic_add(counter[0], 1)

    tm, ptx = ptx_of(ticket)
    assert not tm.log and "shfl.sync" not in ptx
    assert re.search(r"atom\.global\.add\.u32", ptx)


def test_array_also_read_or_indexed_by_the_loop_stays_plain():
    @qd.kernel
    def hist(x: I1, bins: I1):
        for i in range(x.shape[0]):
            bins[x[i] % 4] += 1  # index depends on the loop: a histogram, not a reduction

    @qd.kernel
    def peek(x: F1, out: F1):
        for i in range(x.shape[0]):
            out[0] += x[i]
            out[1] = out[0]  # reads the running value: deferring the atomic would change it

    @qd.kernel
    def mixed(x: F1, out: F1):
        for i in range(x.shape[0]):
            out[0] += x[i]
            qd.atomic_max(out[0], x[i])

    for k in (hist, peek, mixed):
        tm, ptx = ptx_of(k)
        assert not any(line.startswith("reduction") for line in tm.log) and "shfl.sync" not in ptx, k.name
    assert ptx_of(hist)[0].log[0].startswith("privatized scatter: bins add")  # privatize.py's case instead


@qd.kernel
def int_total(x: qd.types.ndarray(dtype=qd.i32, ndim=1), out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
    for i in range(x.shape[0]):
        out[0] += x[i]


def test_host_module_accumulates_exact_sums_per_chunk():
    task = int_total.tasks()[0]
    tm = build_task_module(task, CodegenOptions("host"))
    assert tm.log == ["reduction: per chunk, 1 atomic per chunk: out[0] add (i32)"]
    assert tm.text.count("atomicrmw") == 1
    res = compile_module(CompileRequest(task.name, "host", (tm.text,), (tm.entry,)))
    assert res.ok, res.error


def test_host_float_sum_into_an_array_element_keeps_quadrants_order():
    """Quadrants keeps a float sum in thread-local storage only for a 0-D field (`loss[None]`) or a
    kernel-scope variable; into `out[0]` of an ndarray, or `h.grad[t, j]` in reverse mode, it adds in
    index order (one thread), so the host does too: regrouped, the last bits differed."""
    task = total.tasks()[0]
    tm = build_task_module(task, CodegenOptions("host"))
    assert not any(line.startswith("reduction:") for line in tm.log)
    loss = qd.field(qd.f32, shape=())

    @qd.kernel
    def field_total(x: F1):
        for i in range(x.shape[0]):
            loss[None] += x[i]

    tm0 = build_task_module(field_total.tasks(field_total.spec_for((np.zeros(4, np.float32),)))[0],
                            CodegenOptions("host"))
    assert any(line.startswith("reduction: per chunk") for line in tm0.log), tm0.log


def test_64_bit_values_shuffle_as_two_halves():
    @qd.kernel
    def s64(x: qd.types.ndarray(dtype=qd.f64, ndim=1), out: qd.types.ndarray(dtype=qd.f64, ndim=1)):
        for i in range(x.shape[0]):
            out[0] += x[i]

    _, ptx = ptx_of(s64)
    assert len(re.findall(r"shfl\.sync\.bfly\.b32", ptx)) == 20
    assert len(re.findall(r"atom\.global\.add\.f64", ptx)) == 1


# ---- results, on every backend present ---------------------------------------------------

def test_float_sum_within_reassociation_error(arch):
    x = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    out = np.zeros(1, np.float32)
    total(x, out)
    ref = x.astype(np.float64).sum()
    # error bound of a blocked sum: a few ulps of sum(|x|)
    assert abs(out[0] - ref) <= 1e-6 * np.abs(x).sum()


def test_integer_reductions_are_exact_min_max_too(arch):
    @qd.kernel
    def ints(a: I1, b: qd.types.ndarray(dtype=qd.i64, ndim=1), u: qd.types.ndarray(dtype=qd.u32, ndim=1),
             si: I1, s64: qd.types.ndarray(dtype=qd.i64, ndim=1), su: qd.types.ndarray(dtype=qd.u32, ndim=1)):
        for i in range(a.shape[0]):
            si[0] += a[i]
            qd.atomic_min(si[1], a[i])
            qd.atomic_max(si[2], a[i])
            s64[0] += b[i]
            qd.atomic_min(s64[1], b[i])
            su[0] -= u[i]  # unsigned wraparound is exact too
            qd.atomic_max(su[1], u[i])
            qd.atomic_min(su[2], u[i])

    rng = np.random.default_rng(1)
    n = 300_001  # not a multiple of anything the launcher picks
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    b = rng.integers(-(1 << 40), 1 << 40, n).astype(np.int64)
    u = rng.integers(1, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    si = np.array([7, 1 << 30, -(1 << 30)], np.int32)
    s64 = np.array([5, 1 << 62], np.int64)
    su = np.array([3, 0, 0xFFFFFFFF], np.uint32)
    ints(a, b, u, si, s64, su)
    assert si.tolist() == [7 + int(a.sum()), int(a.min()), int(a.max())]
    assert s64.tolist() == [5 + int(b.sum()), int(b.min())]
    assert su.tolist() == [(3 - int(u.astype(np.int64).sum())) % (1 << 32), int(u.max()), int(u.min())]


def test_conditional_and_several_reductions_over_ndrange(arch):
    @qd.kernel
    def stats(a: qd.types.ndarray(dtype=qd.f32, ndim=2), out: F1, k: qd.i32):
        for i, j in qd.ndrange(a.shape[0], a.shape[1]):
            v = a[i, j]
            if v > 0:
                out[k] += v
            else:
                out[k + 1] -= v
            qd.atomic_max(out[2], v)
            qd.atomic_min(out[3], v)

    a = np.random.default_rng(2).uniform(-1, 1, (513, 257)).astype(np.float32)
    out = np.array([0, 0, -np.inf, np.inf], np.float32)
    stats(a, out, 0)
    np.testing.assert_allclose(out[:2], [a[a > 0].sum(), -a[a <= 0].sum()], rtol=1e-5)
    assert out[2] == a.max() and out[3] == a.min()


def test_empty_loop_leaves_the_target_alone(arch):
    x = np.zeros(0, np.float32)
    out = np.array([-0.0], np.float32)
    total(x, out)
    assert out[0] == 0 and np.signbit(out[0])  # not even +0.0 was added


def test_odd_block_dim_falls_back_to_one_atomic_per_thread(arch):
    @qd.kernel
    def odd(x: I1, out: I1):
        qd.loop_config(block_dim=48)  # not a whole number of warps
        for i in range(x.shape[0]):
            out[0] += x[i]

    x = np.arange(100_000, dtype=np.int32) % 7
    out = np.zeros(1, np.int32)
    odd(x, out)
    assert out[0] == int(x.sum())


def test_bitwise_reductions_and_augmented_bit_ops(arch):
    @qd.kernel
    def bits(a: qd.types.ndarray(dtype=qd.u32, ndim=1), m: qd.types.ndarray(dtype=qd.u32, ndim=1),
             olds: qd.types.ndarray(dtype=qd.u32, ndim=1)):
        for i in range(a.shape[0]):
            qd.atomic_and(m[0], a[i])
            m[1] |= a[i]  # augmented bit ops in a parallel loop are atomic, as in Quadrants
            qd.atomic_xor(m[2], a[i])
            olds[i] = qd.atomic_or(m[3], a[i] & 1)  # old value used: stays a plain atomic

    a = np.random.default_rng(4).integers(0, 1 << 32, 100_003, dtype=np.uint64).astype(np.uint32)
    a[::2] |= 0x80000001  # keep some bits set in every element for the AND
    m = np.array([0xFFFFFFFF, 0, 0, 0], np.uint32)
    olds = np.zeros_like(a)
    bits(a, m, olds)
    assert m.tolist() == [int(np.bitwise_and.reduce(a)), int(np.bitwise_or.reduce(a)),
                          int(np.bitwise_xor.reduce(a)), int(np.bitwise_or.reduce(a & 1))]
    assert set(olds.tolist()) <= {0, 1}
    # m is also the target of an atomic whose old value is used: the whole array stays plain
    assert not build_task_module(bits.tasks()[0], CodegenOptions("nvptx")).log


def test_bitwise_atomics_on_floats_are_an_error():
    with pytest.raises(qd.QdCompileError, match="qd.atomic_or needs an integer array"):
        @qd.kernel
        def bad(x: F1):
            for i in range(x.shape[0]):
                qd.atomic_or(x[0], 1.0)
        bad.tasks()


def test_bitwise_reduction_ptx():
    @qd.kernel
    def anyset(a: I1, m: I1):
        for i in range(a.shape[0]):
            m[0] |= a[i]
            qd.atomic_and(m[1], a[i])

    tm, ptx = ptx_of(anyset)
    assert tm.log == ["reduction: warp+block, 1 atomic per block: m[0] or (i32)",
                      "reduction: warp+block, 1 atomic per block: m[1] and (i32)"]
    # one atomic site per reduction for whole-warp blocks, one for the odd-block fallback
    assert 1 <= len(re.findall(r"atom\.global\.or\.b32", ptx)) <= 2
    assert 1 <= len(re.findall(r"atom\.global\.and\.b32", ptx)) <= 2
    assert "shfl.sync.bfly" in ptx


def test_kernel_scope_local_updated_in_the_loop_is_a_reduction(arch):
    @qd.kernel
    def norm2(x: F1) -> qd.f32:
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i] * x[i]
        return s

    loop = [t for t in norm2.tasks() if t.type == "range_for"][0]
    log = build_task_module(loop, CodegenOptions("nvptx")).log
    assert len(log) == 1 and log[0].startswith("reduction: warp+block, 1 atomic per block:")
    x = np.random.default_rng(5).standard_normal(1 << 18).astype(np.float32)
    ref = float((x.astype(np.float64) ** 2).sum())
    assert abs(norm2(x) - ref) <= 1e-4 * ref  # per-chunk sums are sequential on the CPU: ~sqrt(n) ulps
