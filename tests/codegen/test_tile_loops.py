"""How a register-blocked shared-memory tile loop lowers on NVPTX: the multiply-adds of its unrolled
`qd.static` loops become fma under fast math, and its reads of a shared row at x, x+1, x+2, x+3
become one 128-bit ld.shared.v4 (shared pointers are 32 bits wide, so the index needs no sign
extension and the loads are provably consecutive). The GPU timings are in benchmarks/kernel_suite.py."""
import re

import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module
from qdexplorer.compiler.stages import CompileRequest, compile_module

F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)
F2 = qd.types.ndarray(dtype=qd.f32, ndim=2)


@qd.kernel
def blocked(a: F2, b: F2, c: F2):
    # the register tile of benchmarks/suite_kernels.py's matmul_blocked: 8x8 outputs per thread,
    # rows tm..tm+3 and tm+64..tm+67 of a 128-wide shared slab, double-buffered (cur)
    qd.loop_config(block_dim=256)
    for g in range(c.shape[0] * c.shape[1] // 64):
        sa = qd.simt.block.SharedArray((2, 8, 132), qd.f32)
        sb = qd.simt.block.SharedArray((2, 8, 128), qd.f32)
        t = qd.simt.block.thread_idx()
        tm = (t // 16) * 4
        tn = (t % 16) * 4
        cur = g // 256 % 2
        for q in qd.static(range(4)):
            sa[cur, t % 8, t // 8 + 32 * q] = a[t // 8 + 32 * q, t % 8]
            sb[cur, t // 128 + 2 * q, t % 128] = b[t // 128 + 2 * q, t % 128]
        qd.simt.block.sync()
        acc = qd.Matrix.zero(qd.f32, 8, 8)
        ra = qd.Vector.zero(qd.f32, 8)
        rb = qd.Vector.zero(qd.f32, 8)
        for kk in qd.static(range(8)):
            for i in qd.static(range(4)):
                ra[i] = sa[cur, kk, tm + i]
                ra[i + 4] = sa[cur, kk, tm + 64 + i]
                rb[i] = sb[cur, kk, tn + i]
                rb[i + 4] = sb[cur, kk, tn + 64 + i]
            for i in qd.static(range(8)):
                for j in qd.static(range(8)):
                    acc[i, j] += ra[i] * rb[j]
        for i in qd.static(range(8)):
            for j in qd.static(range(8)):
                c[tm + i % 4 + i // 4 * 64, tn + j % 4 + j // 4 * 64] = acc[i, j]


@qd.kernel
def axpy(x: F1, y: F1, out: F1, s: qd.f32):
    for i in range(x.shape[0]):
        out[i] = s * x[i] + y[i]


def ptx(kernel, fast):
    task = kernel.tasks()[0]
    tm = build_task_module(task, CodegenOptions("nvptx", None, fast_math=fast))
    res = compile_module(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,), fast_math=fast))
    assert res.ok, res.error
    return res.output.decode()


def count(text, insn):
    return len(re.findall(rf"^\s*{re.escape(insn)}\s", text, re.M))


def test_register_tile_reads_shared_rows_128_bits_at_a_time():
    text = ptx(blocked, True)
    # 8 k steps x (ra: 2 x 4 floats + rb: 2 x 4 floats) = 32 vector loads, no 64-bit ones; at most one
    # scalar reload per k step (LLVM folds (t >> 2 & 252) + 3 into t >> 2 | 3, which the vectorizer
    # no longer sees as the fourth of the row, though its v4 load already holds it)
    assert count(text, "ld.shared.v4.b32") + count(text, "ld.shared.v4.f32") == 32, text
    assert count(text, "ld.shared.v2.b32") == 0
    assert count(text, "ld.shared.b32") + count(text, "ld.shared.f32") <= 8
    assert ".shared .align 16" in text


def test_fast_math_fuses_the_register_tile_multiply_adds():
    text = ptx(blocked, True)
    assert count(text, "fma.rn.ftz.f32") == 8 * 64       # every acc += ra * rb of the unrolled loops
    assert count(text, "mul.rn.ftz.f32") == 0 and count(text, "add.rn.ftz.f32") == 0


def test_without_fast_math_a_multiply_add_stays_two_roundings():
    on, off = ptx(axpy, True), ptx(axpy, False)
    assert "fma.rn.ftz.f32" in on
    assert "fma.rn" not in off and "mul.rn.f32" in off and "add.rn.f32" in off
