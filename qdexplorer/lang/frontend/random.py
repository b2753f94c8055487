"""`qd.random(dtype)` and `qd.randn(dtype)` in kernels: one counter-based stream per thread.

Each thread of a task (one index of a parallel loop; the one thread of a serial task) starts its
stream at `h = mix(mix(key + (task + 1)·γ) + i₀) ...` over its loop indices, where `key` is a
scalar parameter the host sets per call from `qd.init(random_seed=...)` and a call counter
(`runtime_api.next_random_key`), `γ` is SplitMix64's increment and `mix` its finaliser (a
bijection of 64-bit words). Draw k of that thread is `mix(h + k·γ)`: SplitMix64 started at a
hashed state, so values depend only on (seed, call number, task, loop index, draw number), never
on the launch configuration, and are bit-identical on the CPU and on CUDA.

From the 64 bits: f32 is the top 24 bits times 2^-24 (uniform on [0, 1), every multiple of 2^-24),
f64 the top 53 times 2^-53; 32-bit integers are the top 32 bits (the full range, negatives
included for i32, as Quadrants'), 64-bit ones all 64. `qd.randn` is Quadrants' Box–Muller form,
`sqrt(-2 log(1 - u₁)) · cos(2π u₂)`, two uniform draws per value.
"""
from __future__ import annotations

import ast
import math

from .. import intrinsics as I
from ... import ir
from ...ir.errors import QuadrantsTypeError
from ..calls.splitmix import GOLDEN, LAST_SHIFT, MIX
from ...ir.dtypes import as_dtype, f16, f32, f64, u64
from .base import LoweringBase
from .values import default_types


class RandomLowering(LoweringBase):
    """Mixin for `TaskBuilder`: lowers `qd.random` / `qd.randn` to the thread's SplitMix64 stream."""

    def random_call(self, f: I.Intrinsic, node: ast.Call):
        if len(node.args) + len(node.keywords) > 1 or any(k.arg not in ("dtype", "dt") for k in node.keywords):
            self.err(node, f"qd.{f.name}() takes one argument, the dtype")
        given = node.args or [k.value for k in node.keywords]
        spec = self.eval_static(given[0]) if given else None
        if f.name == "randn":
            dt = default_types()[1] if spec is None else as_dtype(spec)  # default_fp, as in Quadrants
            if dt not in (f32, f64):
                self.err(node, f"qd.randn() draws f32 or f64 values, got {spec!r}", QuadrantsTypeError)
            return self.gaussian(dt)
        dt = default_types()[1] if spec is None or spec is float else as_dtype(spec)
        if dt is None or dt == f16:
            self.err(node, f"qd.random() takes a qd scalar type other than f16 (qd.f32, qd.f64, qd.i32, ...), "
                           f"got {spec!r}", QuadrantsTypeError)
        return self.uniform(dt)

    def uniform(self, dt) -> ir.Expr:
        bits = self.draw_bits()
        if dt.is_float:
            keep = 24 if dt == f32 else 53
            top = ir.Cast(_u64(">>", bits, 64 - keep), dt)
            return ir.BinOp("*", top, ir.Const(2.0 ** -keep, dt), dt)
        return ir.Cast(bits if dt.bits == 64 else _u64(">>", bits, 32), dt)

    def gaussian(self, dt) -> ir.Expr:
        u1 = ir.BinOp("-", ir.Const(1.0, dt), self.uniform(dt), dt)
        u2 = self.uniform(dt)
        r = ir.MathCall("sqrt", (ir.BinOp("*", ir.Const(-2.0, dt), ir.MathCall("log", (u1,), dt), dt),), dt)
        c = ir.MathCall("cos", (ir.BinOp("*", ir.Const(math.tau, dt), u2, dt),), dt)
        return ir.LocalRef(self.new_local("randn", dt, ir.BinOp("*", r, c, dt)))

    def draw_bits(self) -> ir.Expr:
        """The thread's next 64 random bits; its stream starts at the task body's first statement."""
        state = self.rng_state
        if state is None:
            state = self.rng_state = self.start_stream()
        ref = ir.LocalRef(state)
        self.emit(ir.Assign(state, _u64("+", ref, GOLDEN)))
        return self.mix(ref)

    def start_stream(self) -> ir.Local:
        self.out.append([])
        try:
            salt = ir.Const((self.task_index + 1) * GOLDEN % (1 << 64), u64)
            h = self.mix(ir.BinOp("+", self.kscope.random_key(), salt, u64))
            for v in self.thread_ids:
                h = self.mix(ir.BinOp("+", h, ir.Cast(v, u64), u64))
            state = ir.Local(f"rng_state.{next(self.counter)}", u64)
            self.emit(ir.Assign(state, h))
        finally:
            start = self.out.pop()
        self.out[0][0:0] = start  # before anything else the thread runs
        return state

    def mix(self, e: ir.Expr) -> ir.Expr:
        """SplitMix64's finaliser, one temporary per round (the IR is a tree: no value is shared)."""
        z = ir.LocalRef(self.new_local("mix", u64, e))
        for shift, mul in MIX:
            z = ir.LocalRef(self.new_local("mix", u64, _u64("*", _xorshift(z, shift), mul)))
        return ir.LocalRef(self.new_local("mix", u64, _xorshift(z, LAST_SHIFT)))


def _u64(op: str, e: ir.Expr, k: int) -> ir.Expr:
    return ir.BinOp(op, e, ir.Const(k, u64), u64)


def _xorshift(z: ir.Expr, k: int) -> ir.Expr:
    return ir.BinOp("^", z, _u64(">>", z, k), u64)
