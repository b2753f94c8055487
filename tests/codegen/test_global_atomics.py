"""Global atomics whose result nobody reads (a histogram's `bins[x[i]] += 1`) compile to PTX `red`,
which the thread does not wait on, and the loads feeding them are coarsened like any contiguous
loop; an atomic whose old value is used stays `atom`. Checked in the PTX and, through ptxas when it
is installed, in the SASS-level instruction count of the loop."""
import re

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module
from qdexplorer.compiler.stages import CompileRequest, compile_module

I1 = qd.types.ndarray(dtype=qd.i32, ndim=1)
F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)
U64 = qd.types.ndarray(dtype=qd.u64, ndim=1)


def ptx_of(kernel, vector=4):
    task = kernel.tasks()[-1]
    tm = build_task_module(task, CodegenOptions("nvptx", vector=vector))
    res = compile_module(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,)))
    assert res.ok, res.error
    return res.output.decode()


@qd.kernel
def histogram(x: I1, bins: I1):
    for i in range(x.shape[0]):
        bins[x[i]] += 1


def test_histogram_uses_red_and_coarsens_the_loads():
    """Both copies of the loop (privatize.py): the plain one sends `red`s; the privatized one counts
    with shared atomics and flushes with `red`s; no global `atom` waits for a value anywhere."""
    ptx = ptx_of(histogram)
    assert "atom.global" not in ptx
    # 4 indices per thread per step (coarsened), plus the tail loop's one, in each copy
    assert len(re.findall(r"atom\.shared\.add\.u32", ptx)) == 5
    # plain copy 5, privatized copy's out-of-range fallbacks 5, its flush 1
    assert len(re.findall(r"red\.global\.add\.u32 \[%rd\d+\], %r\d+;", ptx)) == 11
    assert len(re.findall(r"ld\.global\.nc\.b32", ptx)) == 10
    # the bins' address is 64-bit (sign-extended index), computed once per element
    assert "cvta.to.global" in ptx


def test_uncoarsened_histogram_has_one_red_per_copy():
    ptx = ptx_of(histogram, vector=1)
    assert len(re.findall(r"red\.global\.add\.u32", ptx)) == 3 and "atom.global" not in ptx
    assert len(re.findall(r"atom\.shared\.add\.u32", ptx)) == 1


def test_every_red_form():
    @qd.kernel
    def scatter(x: I1, f: F1, ib: I1, fb: F1, wide: U64):
        for i in range(x.shape[0]):
            j = x[i] % 8
            qd.atomic_sub(ib[j], 3)
            qd.atomic_max(ib[j + 8], x[i])
            qd.atomic_min(ib[j + 16], x[i])
            qd.atomic_or(ib[j + 24], x[i])
            fb[j] += f[i]
            qd.atomic_add(wide[j], qd.u64(1))

    ptx = ptx_of(scatter, vector=1)
    for form in ("add.u32", "max.s32", "min.s32", "or.b32", "add.f32", "add.u64"):
        assert f"red.global.{form}" in ptx, form
    assert "atom.global" not in ptx
    # fb is counted per block in shared memory (privatize.py); ib mixes four ops and wide is 64-bit
    assert re.findall(r"atom\.shared\.\w+\.\w+", ptx) == ["atom.shared.add.f32"]
    # atomic_sub is an add of the negated value
    assert re.search(r"neg\.s32|sub\.s32\s+%r\d+, 0,|mov\.b32\s+%r\d+, -3", ptx)


def test_used_result_and_reread_array_keep_atom_and_order():
    @qd.kernel
    def ticket(x: I1, bins: I1, out: I1):
        for i in range(x.shape[0]):
            out[i] = qd.atomic_add(bins[x[i]], 1)

    @qd.kernel
    def reread(x: I1, bins: I1, out: I1):
        for i in range(x.shape[0]):
            bins[x[i]] += 1
            out[i] = bins[x[i]]

    ptx = ptx_of(ticket)
    assert re.search(r"atom\.global\.add\.u32\s+%r\d+", ptx) and "red." not in ptx
    ptx = ptx_of(reread, vector=1)
    # the red is kept before the load of the same array (the asm clobbers memory here)
    assert ptx.index("red.global.add.u32") < ptx.rindex("ld.global")


def test_histogram_counts_on_the_cpu():
    """The host path keeps its atomicrmw: same counts as NumPy."""
    qd.init(arch=qd.cpu)
    x = np.random.default_rng(1).integers(0, 256, 50_000).astype(np.int32)
    bins = np.zeros(256, np.int32)
    histogram(x, bins)
    np.testing.assert_array_equal(bins, np.bincount(x, minlength=256))


@pytest.mark.cuda
def test_histogram_counts_on_cuda():
    qd.init(arch=qd.cuda)
    x = np.random.default_rng(2).integers(0, 256, 1 << 20).astype(np.int32)
    xq, bq = qd.ndarray(qd.i32, shape=x.shape), qd.ndarray(qd.i32, shape=(256,))
    xq.from_numpy(x)
    histogram(xq, bq)
    histogram(xq, bq)
    np.testing.assert_array_equal(bq.to_numpy(), 2 * np.bincount(x, minlength=256))
