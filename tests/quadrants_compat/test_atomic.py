import math

import numpy as np
import pytest

import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils

n = 128


def run_atomic_add_global_case(vartype, step, valproc=lambda x: x):
    x = qd.field(vartype)
    y = qd.field(vartype)
    c = qd.field(vartype)

    qd.root.dense(qd.i, n).place(x, y)
    qd.root.place(c)

    # Make Quadrants correctly infer the type
    # TODO: Quadrants seems to treat numpy.int32 as a float type, fix that.
    init_ck = 0 if vartype == qd.i32 else 0.0

    @qd.kernel
    def func():
        ck = init_ck
        for i in range(n):
            x[i] = qd.atomic_add(c[None], step)
            y[i] = qd.atomic_add(ck, step)

    func()

    assert valproc(c[None]) == n * step
    x_actual = sorted(x.to_numpy())
    y_actual = sorted(y.to_numpy())
    expect = [i * step for i in range(n)]
    for xa, ya, e in zip(x_actual, y_actual, expect):
        print(xa, ya, e)
        assert valproc(xa) == e
        assert valproc(ya) == e


@test_utils.test(arch=[qd.cpu, qd.cuda, qd.amdgpu])
def test_atomic_min_max_uint():
    x = qd.field(qd.u64, shape=100)

    @qd.kernel
    def test0():
        for I in x:
            x[I] = 0
        x[1] = qd.cast(1, qd.u64) << 63
        for I in x:
            qd.atomic_max(x[0], x[I])

    test0()
    assert x[0] == 9223372036854775808

    @qd.kernel
    def test1():
        for I in x:
            x[I] = qd.cast(1, qd.u64) << 63
        x[1] = 100
        for I in x:
            qd.atomic_min(x[0], x[I])

    test1()
    assert x[0] == 100


@test_utils.test()
def test_local_atomic_with_if():
    ret = qd.field(dtype=qd.i32, shape=())

    @qd.kernel
    def test():
        if True:
            x = 0
            x += 1
            ret[None] = x

    test()
    assert ret[None] == 1


@test_utils.test()
def test_atomic_max_f32():
    @qd.kernel
    def max_kernel() -> qd.f32:
        x = -1000.0
        for i in range(1, 20):
            qd.atomic_max(x, -qd.f32(i))

        return x

    assert max_kernel() == -1.0


# Pins the doc claim that atomic_mul works (via CAS loop) under multi-thread contention on every GPU backend, for
# both ints and floats including f64. Existing coverage is single-thread only (test_atomic_mul_f32,
# test_atomic_mul_expr_evaled). Values chosen so the product is representable exactly in i32 / f32 / f64.


# Pins the doc claim that floating-point atomic_min / atomic_max use minNum / maxNum-style NaN semantics: when
# exactly one operand is NaN, the non-NaN value is written back. Asserted on every GPU backend and both arg orders.
# CPU is intentionally out of scope here -- the doc explicitly warns that the CPU CAS path uses naive < / >
# comparisons with order-dependent results.


# Pins the doc claim that vector/matrix arguments to atomic ops fan out to one scalar atomic per component (no
# all-or-nothing guarantee across components, but every component must be summed exactly).


def _skip_if_no_int64_atomic_rmw(dtype):
    """Skip when the device cannot do general-purpose 64-bit integer atomic RMW.

    Metal sets ``spirv_has_atomic_int64=1`` on Apple7+ / Mac2 in ``metal_device.mm`` (the gate is misnamed
    ``feature_floating_point_atomics``), but MSL only exposes 64-bit atomics as ``atomic_fetch_min/max`` on
    ``uint64`` starting at Apple9 (M3+, A17+); ``atomic_add`` / ``and`` / ``or`` / ``xor`` are not available at
    all. The pipeline create then fails with RhiResult=-1 ("SPIR-V shader was rejected by the backend"). Tightening
    the Metal cap itself is intentionally out of scope here -- the cap is consumed by adstack fallbacks in
    ``runtime/gfx`` and lowering it needs a separate audit -- so we just skip the affected dtypes on Metal instead.
    """
    if dtype not in (qd.i64, qd.u64):
        return
    if qd.cfg.arch == qd.metal:
        pytest.skip("Metal lacks general-purpose 64-bit integer atomic RMW (MSL atomic_long fetch_add/and/or/xor)")
    if qd.cfg.arch == qd.vulkan:
        caps = qd.lang.impl.get_runtime().prog.get_device_caps()
        if not caps.get(qd._lib.core.DeviceCapability.spirv_has_atomic_int64):
            pytest.skip("Vulkan device does not advertise spirv_has_atomic_int64")


# Pins the doc-table claim that atomic_add is "yes" on every integer dtype (i32 / u32 / i64 / u64) on every GPU
# backend. Existing coverage only exercises i32 (run_atomic_add_global_case) and u64 min/max
# (test_atomic_min_max_uint).


# Pins the doc-table claim that atomic_and / atomic_or / atomic_xor are "yes" on every integer dtype on every GPU
# backend. Existing coverage only exercises i32 (test_atomic_{and,or,xor}_expr_evaled).


# Pins the doc claim that bitwise atomics on float dtypes raise a type error at compile time (atomics page: "Integer
# dtypes only -- passing f32 / f64 raises a type error at compile time"). Enforced by the is_integral check in
# AtomicOpExpression::type_check (quadrants/ir/frontend_ir.cpp) for bit_and / bit_or / bit_xor.


# Pins the documented semantics of qd.atomic_exchange: unconditionally write `val` into `dest` and return the
# old value of `dest`. Single-thread sanity, all primitive dtypes that the codegen path supports today (i32,
# u32, i64, u64, f32, f64). f16 xchg falls through the f16 CAS path in codegen_llvm.cpp's real_type_atomic
# and is deferred (see TODO in real_type_atomic / shared_float_atomic).


# Stress test: N threads each xchg a unique nonzero value into a single shared slot, capturing the returned
# old value into a per-thread record. Atomicity guarantees that the multiset {final slot value} U {captured
# old values} == {initial value} U {all contributed values}, i.e. no value is lost or duplicated. This is the
# canonical "no values lost" check for a swap primitive and is what distinguishes a correct atomic exchange
# from a racy load+store pair.


# Pins that vector-typed atomic_exchange fans out to one scalar OpAtomicExchange per component, mirroring the
# existing fan-out semantics for atomic_add (test_atomic_add_vector_field_fanout). After N exchanges each writing
# the same vector, the slot must equal that vector exactly (last writer wins per component).


# Pins that matrix-typed atomic_exchange fans out to one scalar OpAtomicExchange per component, completing the
# vector + matrix coverage promised in atomics.md ("Vector / matrix arguments fan out per component"). Mirrors
# test_atomic_add_matrix_field_fanout. After N exchanges each writing the same matrix, the slot must equal that
# matrix exactly (last writer wins per element, no all-or-nothing across the 2x3 components).


# Pins the new xchg branch in demote_atomics.cpp's DemoteAtomics::visit(AtomicOpStmt*). Unlike every other atomic
# op (which demotes to load + binop + store), xchg demotes to a bare load + store(val) because the new value is
# independent of the old. When the destination is a thread-local (a Python variable inside a kernel, not a field),
# the atomic has no contention and the demote pass kicks in. Mirrors test_atomic_add_demoted exactly.


# Pins the documented semantics of qd.atomic_cas: returns the prior value of `dest`, swaps in `desired` only when
# the prior value equals `expected`. Single-thread sanity covering both the success path (prior == expected) and
# the failure path (prior != expected) for every integer dtype the codegen path supports today (i32 / u32 /
# i64 / u64). f32 / f64 CAS is currently rejected at compile time -- a separate negative test pins that.


# Stress test for atomic CAS contention: N threads each attempt to flip a slot from INIT to their own unique id.
# Atomicity requires that exactly ONE thread observes prior == INIT (the winner) and all the others observe
# prior == winner_id (their CAS failed because the winner already wrote). Pins both: (a) exactly one thread
# wins, and (b) the slot ends up with the winner's id (no torn writes).


# Pins that a user-built CAS retry loop produces the same result as atomic_add. This is the canonical use case
# for exposing CAS at all -- it lets users build atomic RMW operations the framework doesn't expose natively.
# The loop is bounded (no while-True in kernels) so we run a fixed number of attempts per iteration; with N
# iterations and a small contention factor, the loop converges in O(1) attempts on average.


# Pins the new cas branch in demote_atomics.cpp. Demotes to load + cmp_eq + select(cmp, val, load) + store
# when the destination is a thread-local. Mirrors test_atomic_exchange_demoted; uses the success path to verify
# the swap fires, and the failure path to verify the no-op leg keeps the old value.


# Pins the doc claim that atomic_cas on float dtypes raises a type error at compile time. f32 / f64 CAS is not
# yet wired up (would need the same uint-bitcast trick xchg uses); the type_check carve-out in
# AtomicOpExpression::type_check rejects it cleanly until the lowering lands.


# Pins that atomic_cas on a Vector / Matrix destination is rejected at compile time. The other atomic ops fan
# out to per-component scalar AtomicOpStmts via scalarize / lower_matrix_ptr, but those passes use the 3-arg
# AtomicOpStmt constructor that drops `expected`. Until the scalarizers grow a 4-arg path, refusing tensor
# CAS up front is the correct behaviour. Codex / alanray-tech P1 from PR #690 review.


# Pins that atomic_cas casts `expected` to match the destination element type, so plain Python int literals
# work as the comparator on i64 destinations the same way they do for atomic_add. Without the cast in
# AtomicOpExpression::type_check, this would either trip a backend type-mismatch assertion or silently
# compare-then-corrupt at the codegen layer. Codex / alanray-tech P1 from PR #690 review.


# Pins that passing a raw Field (instead of `field[None]`) to atomic_cas raises a clear QuadrantsSyntaxError
# instead of a confusing AttributeError on x.ptr. Mirrors @writeback_binary's Field guard for the rest of the
# qd.atomic_* family. alanray-tech nit from PR #690 review.


# Pins that atomic_cas works on qd.ndarray elements, not just qd.field. Ndarrays go through a different
# access path (typed-NDArray kernel argument with physical-pointer subscript), so the surface needs to be
# exercised separately. Uses a contention pattern (single winner among N threads) to also verify atomicity
# on the ndarray surface, matching the field-side test_atomic_cas_contention_single_winner.


# Pins that the documented workaround for tensor-CAS rejection actually works: extract a scalar component
# from a Vector field with `vec_field[None][i]` and CAS on that scalar. The MatrixPtrStmt-derived lvalue
# must reach codegen as a normal scalar AtomicOpStmt with `expected` populated. Without this, the docs
# would tell users to do something we don't actually support.


# Pins that the `expected`-cast in AtomicOpExpression::type_check handles signed -> unsigned widening too.
# `qd.atomic_cas(u32_field[None], -1, 0)` passes -1 as a Python int (default i32). The cast must convert
# it through cast_value to u32 (=0xFFFFFFFF), letting the swap-from-sentinel pattern work on unsigned
# fields. Same shape for u64. Complements test_atomic_cas_expected_int_literal_widens_to_i64 which only
# covers the positive i64 case.
