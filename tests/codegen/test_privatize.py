"""Scatters into small arrays counted per block in shared memory (codegen/privatize.py): which
tasks qualify (checked in the module and its PTX, here), and that the counts are exact on CUDA,
on both sides of the size cap and for every op it takes (on the GPU machine)."""
import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module
from qdexplorer.codegen.privatize import CAP
from qdexplorer.compiler.pipeline import launch_spec
from qdexplorer.compiler.stages import CompileRequest, compile_module

I1 = qd.types.ndarray(dtype=qd.i32, ndim=1)
I2 = qd.types.ndarray(dtype=qd.i32, ndim=2)
F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)
I64 = qd.types.ndarray(dtype=qd.i64, ndim=1)


def module(kernel, **opts):
    task = kernel.tasks()[-1]
    tm = build_task_module(task, CodegenOptions("nvptx", **opts))
    res = compile_module(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,)))
    assert res.ok, res.error
    return task, tm, res.output.decode()


@qd.kernel
def histogram(x: I1, bins: I1):
    for i in range(x.shape[0]):
        bins[x[i]] += 1


@qd.kernel
def grid2d(x: I1, y: I1, cells: I2):
    for i in range(x.shape[0]):
        cells[y[i], x[i]] += 1


@qd.kernel
def ops(x: I1, lo: I1, hi: I1):
    for i in range(x.shape[0]):
        j = x[i] % 64
        qd.atomic_min(lo[j], x[i])
        qd.atomic_max(hi[j], x[i])


@qd.kernel
def subs(x: I1, f: F1, neg: I1, fsum: F1):
    for i in range(x.shape[0]):
        j = x[i] % 64
        neg[j] -= 2
        fsum[j] += f[i]


def test_a_histogram_is_privatized_and_launched_one_wave():
    task, tm, ptx = module(histogram)
    assert tm.one_wave and launch_spec(task, tm).one_wave
    assert tm.log == [f"privatized scatter: bins add (i32) counted per block in shared memory when it has at most "
                      f"{CAP} elements, then 1 atomic per element per block; one wave of blocks"]
    assert f".shared .align 16 .b8 {task.name.replace('.', '_$_')}___private0[{4 * CAP}]" in ptx \
        or f"___private0[{4 * CAP}]" in ptx
    assert ptx.count("bar.sync") == 2          # after zeroing the copy, before flushing it
    assert "atom.shared.add.u32" in ptx and "atom.global" not in ptx


def test_two_dimensional_and_two_arrays():
    _, tm, ptx = module(grid2d)
    assert tm.one_wave and "cells add (i32)" in tm.log[0]
    _, tm, ptx = module(subs)
    assert tm.one_wave and len(tm.log) == 2
    assert "atom.shared.add.u32" in ptx and "atom.shared.add.f32" in ptx   # the sub is an add of -2
    _, tm, ptx = module(ops)
    assert "atom.shared.min.s32" in ptx and "atom.shared.max.s32" in ptx


def test_what_stays_plain():
    @qd.kernel
    def ticket(x: I1, bins: I1, out: I1):        # the old value is used
        for i in range(x.shape[0]):
            out[i] = qd.atomic_add(bins[x[i]], 1)

    @qd.kernel
    def reread(x: I1, bins: I1, out: I1):        # the array is also read
        for i in range(x.shape[0]):
            bins[x[i]] += 1
            out[i] = bins[0]

    @qd.kernel
    def wide(x: I1, bins: I64):                  # 64-bit elements
        for i in range(x.shape[0]):
            bins[x[i]] += 1

    @qd.kernel
    def fmax(x: I1, f: F1, m: F1):               # float min/max: no shared form taken
        for i in range(x.shape[0]):
            qd.atomic_max(m[x[i]], f[i])

    @qd.kernel
    def mixed(x: I1, bins: I1):                  # two kinds of update into one array
        for i in range(x.shape[0]):
            bins[x[i]] += 1
            qd.atomic_max(bins[x[i] + 1], 3)

    @qd.kernel
    def serial_hist(x: I1, bins: I1):            # one thread: nothing to share
        qd.loop_config(serialize=True)
        for i in range(x.shape[0]):
            bins[x[i]] += 1

    for k in (ticket, reread, wide, fmax, mixed, serial_hist):
        _, tm, ptx = module(k)
        assert not tm.one_wave and "shared" not in ptx and "bar.sync" not in ptx, k.name
    _, tm, ptx = module(histogram, debug=True)   # bounds-checked: every access stays where it is checked
    assert not tm.one_wave and "bar.sync" not in ptx


def test_the_host_module_is_unchanged():
    tm = build_task_module(histogram.tasks()[-1], CodegenOptions("host"))
    assert not tm.one_wave and "addrspace(3)" not in tm.text


def test_counts_on_the_cpu():
    qd.init(arch=qd.cpu)
    x = np.random.default_rng(2).integers(0, 256, 100_000).astype(np.int32)
    bins = np.zeros(256, np.int32)
    histogram(x, bins)
    np.testing.assert_array_equal(bins, np.bincount(x, minlength=256))


@pytest.mark.cuda
@pytest.mark.parametrize("nbins", [1, 256, CAP, CAP + 1, 50_000])
def test_cuda_histogram_is_exact_on_both_sides_of_the_cap(nbins):
    qd.init(arch=qd.cuda)
    rng = np.random.default_rng(nbins)
    x = rng.integers(0, nbins, 1 << 21).astype(np.int32)
    x[:4096] = 0                                   # a hot bin: thousands of updates to one address
    xq, bins = qd.ndarray(qd.i32, shape=x.shape), qd.ndarray(qd.i32, shape=(nbins,))
    xq.from_numpy(x)
    histogram(xq, bins)
    histogram(xq, bins)                            # adds to what is there, as the plain loop does
    np.testing.assert_array_equal(bins.to_numpy(), 2 * np.bincount(x, minlength=nbins))


@pytest.mark.cuda
def test_cuda_two_dimensional_ops_and_odd_sizes():
    qd.init(arch=qd.cuda)
    rng = np.random.default_rng(5)
    n = 300_001                                    # not a multiple of any block or vector width
    x, y = rng.integers(0, 40, n).astype(np.int32), rng.integers(0, 30, n).astype(np.int32)
    cells = np.zeros((30, 40), np.int32)
    grid2d(x, y, cells)
    expect = np.zeros((30, 40), np.int64)
    np.add.at(expect, (y, x), 1)
    np.testing.assert_array_equal(cells, expect)
    v = rng.integers(-1000, 1000, n).astype(np.int32)
    f = rng.random(n, dtype=np.float32)
    lo, hi = np.full(64, 10**6, np.int32), np.full(64, -10**6, np.int32)
    neg, fsum = np.zeros(64, np.int32), np.zeros(64, np.float32)
    ops(v, lo, hi)
    subs(v, f, neg, fsum)
    j = v % 64
    np.testing.assert_array_equal(lo, [v[j == k].min() for k in range(64)])
    np.testing.assert_array_equal(hi, [v[j == k].max() for k in range(64)])
    np.testing.assert_array_equal(neg, -2 * np.bincount(j, minlength=64))
    np.testing.assert_allclose(fsum, np.bincount(j, weights=f, minlength=64), rtol=1e-4)
