"""Reductions: atomics into one loop-invariant element, accumulated privately, combined once.

`out[0] += x[i]` in a range_for is Quadrants' natural reduction, and written literally it sends
every index's atomic to one address (16 million atomics for 2^24 elements, ~850x slower than
`x.sum()`). When every access a task makes to an ndarray is a statement-level atomic of one
kind (add/sub, min, max, and, or, xor) into an element whose index does not depend on the loop,
the atomic is a reduction: each thread keeps a private accumulator, and after the loop

- on CUDA the block combines its threads (warp `shfl.sync` butterfly, then the warps' partials
  through shared memory) and issues one atomic per block;
- on the host each `[lo, hi)` chunk issues one atomic.

Semantics: the final atomics use the same operation, so integers are exact and min/max are
exact; float sums are reassociated (a per-thread sequential sum, then a tree), within the usual
reassociation error, as Quadrants' thread-local reductions are, except in a serialized loop
(`qd.loop_config(serialize=True)`), whose float sums stay in index order as in Quadrants. An atomic whose old value is used is an expression, not a statement, and
keeps the plain form, as does any array that is also loaded, stored or indexed by the loop.
A block whose partial is the operation's identity skips its atomic (adding 0 or taking the min
with +inf changes nothing), so an empty loop touches nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir as L

from .. import ir
from ..ir.dtypes import DType
from .abi import I32, I64, SHARED_PTR, lltype
from .statements import StatementEmitter

# Statement-level atomic op -> the op that combines partials (a `sub` partial is a running
# difference, combined by adding it).
COMBINE = {"add": "add", "sub": "add", "min": "min", "max": "max", "and": "and", "or": "or", "xor": "xor"}
# Index expressions built only from these are the same for every index of the loop.
_INVARIANT = (ir.Const, ir.ScalarArg, ir.Shape, ir.BinOp, ir.UnOp, ir.Cast, ir.Compare, ir.Select)
WARP = 32
MAX_WARPS = 1024 // WARP


@dataclass(frozen=True)
class Reduction:
    """One reduced element: `array[indices]`, combined with `op`."""
    array: ir.ArrayArg
    indices: tuple
    op: str  # add min max and or xor

    @property
    def dtype(self) -> DType:
        return self.array.dtype

    def describe(self) -> str:
        return f"{self.array.name}[{', '.join(_show(i) for i in self.indices)}] {self.op} ({self.dtype.name})"


def find_reductions(task: ir.Task, host: bool = False) -> dict[tuple, Reduction]:
    """The task's reductions keyed by (array name, indices); {} when the task has none.

    Only parallel range_for tasks without block-level code qualify (a task that manages its
    own shared memory and barriers keeps its atomics as written). On the host a float sum
    qualifies only where Quadrants keeps one in thread-local storage too (its make_thread_local
    pass: a 0-D field, `loss[None] += ...`, or a kernel-scope variable): into any other element
    (`h.grad[t, j] += ...`, as reverse-mode autodiff writes for every read of `h[t, j]`, or
    `out[0] += ...` on an ndarray) Quadrants adds in index order with a single thread, and a
    private sum regrouped the last bits (a differentiable robot trained to a loss 0.4% off).
    """
    if task.type != "range_for" or task.uses_block_features or task.has_calls:
        return {}
    found: dict[tuple, Reduction] = {}
    spoiled: set[str] = set()
    claimed: set[int] = set()  # ids of the AtomicRMW nodes that are statement-level reductions
    for node in ir.walk(task.body):
        if isinstance(node, ir.ExprStmt) and isinstance(node.value, ir.AtomicRMW):
            a = node.value
            if not isinstance(a.array, ir.ArrayArg) or a.op not in COMBINE or not invariant(a.indices):
                continue
            claimed.add(id(a))
            key = (a.array.name, a.indices)
            r = found.get(key)
            if r is None:
                found[key] = Reduction(a.array, a.indices, COMBINE[a.op])
            elif r.op != COMBINE[a.op]:
                spoiled.add(a.array.name)  # add and max into one element: keep both plain
    # Any other use of a reduced array (a load, a store, an atomic whose old value is used, an
    # atomic at a loop-dependent index) would observe the deferred updates: keep it plain.
    for node in ir.walk([task.body, task.ranges]):
        if isinstance(node, (ir.Load, ir.Store, ir.AtomicRMW)) and id(node) not in claimed \
                and isinstance(node.array, ir.ArrayArg):
            spoiled.add(node.array.name)
    # A serialized loop adds floats in index order in Quadrants (fast_math=False); a private sum from
    # 0 added once at the end regroups them (12 + sixteen f16 1.414s is 34.53 in order, 34.59 regrouped)
    inexact = {k for k, r in found.items() if (task.serialize or host and not _thread_local(task, r.array))
               and r.dtype.is_float and r.op == "add"}
    return {k: r for k, r in found.items() if r.array.name not in spoiled and k not in inexact}


def _thread_local(task: ir.Task, array: ir.ArrayArg) -> bool:
    """Whether Quadrants would sum into `array` through thread-local storage on the CPU."""
    for imp in task.implicit:
        if imp.name == array.name:
            return imp.role == "gtmp" or imp.role == "field" and imp.zero_d
    return False


def invariant(indices) -> bool:
    return all(isinstance(n, _INVARIANT) for n in ir.walk(list(indices)))


def _show(e) -> str:
    if isinstance(e, ir.Const):
        return repr(e.value)
    if isinstance(e, ir.ScalarArg):
        return e.name
    if isinstance(e, ir.Shape):
        return f"{e.array.name}.shape[{e.axis}]"
    return "…"


def identity(op: str, dt: DType) -> L.Constant:
    t = lltype(dt)
    if dt.is_float:
        v = {"add": 0.0, "min": float("inf"), "max": float("-inf")}[op]
        return L.Constant(t, v)
    lo, hi = (-(1 << (dt.bits - 1)), (1 << (dt.bits - 1)) - 1) if dt.kind == "i" else (0, (1 << dt.bits) - 1)
    v = {"add": 0, "or": 0, "xor": 0, "and": -1, "min": hi, "max": lo}[op]
    return L.Constant(t, v & ((1 << dt.bits) - 1))


class ReductionEmitter(StatementEmitter):
    """Mixin of the task emitter: private accumulators, then one atomic per block or chunk."""

    def reduction_begin(self):
        self.reductions = find_reductions(self.t, host=not self.nv)
        for k, (key, r) in enumerate(self.reductions.items()):
            slot = self.alloca_b.alloca(lltype(r.dtype), name=f"acc{k}")
            self.b.store(identity(r.op, r.dtype), slot)
            self.accumulators[key] = slot
        if self.reductions:
            how = ("per chunk, 1 atomic per chunk" if not self.nv else
                   "one thread, 1 atomic" if self.t.serialize else "warp+block, 1 atomic per block")
            for r in self.reductions.values():
                self.log.append(f"reduction: {how}: {r.describe()}")

    def s_ExprStmt(self, s):
        a = s.value
        slot = None
        if isinstance(a, ir.AtomicRMW) and self.accumulators:
            slot = self.accumulators.get((a.array.name, a.indices))
        if slot is None:
            return super().s_ExprStmt(s)
        v = self.expr(a.value)
        acc = self.b.load(slot, typ=v.type)
        if a.op == "sub":
            new = self.b.fsub(acc, v) if a.dtype.is_float else self.b.sub(acc, v)
        else:
            new = self.combine(COMBINE[a.op], a.dtype, acc, v)
        self.b.store(new, slot)

    def combine(self, op, dt, x, y):
        b = self.b
        if dt.is_float:
            if op == "add":
                return b.fadd(x, y)
            return self.float_intrinsic("llvm.minnum" if op == "min" else "llvm.maxnum", dt, [x, y])
        if op == "add":
            return b.add(x, y)
        if op in ("and", "or", "xor"):
            return {"and": b.and_, "or": b.or_, "xor": b.xor}[op](x, y)
        signed = dt.kind == "i"
        cmp = (b.icmp_signed if signed else b.icmp_unsigned)("<" if op == "min" else ">", x, y)
        return b.select(cmp, x, y)

    def reduction_end(self):
        if not self.reductions:
            return
        items = [(r, self.b.load(self.accumulators[key], typ=lltype(r.dtype))) for key, r in self.reductions.items()]
        if not self.nv or self.t.serialize:  # a host chunk or the one thread of a serialized loop
            for r, v in items:
                self.final_atomic(r, v)
            return
        b = self.b
        tid, ntid = self.sreg("tid.x"), self.sreg("ntid.x")
        whole_warps = b.icmp_unsigned("==", b.and_(ntid, I32(WARP - 1)), I32(0))
        block_bb, thread_bb, done = (self.fn.append_basic_block(n) for n in ("red.block", "red.thread", "red.done"))
        b.cbranch(whole_warps, block_bb, thread_bb)
        # A block with a partial warp (block_dim not a multiple of 32) cannot run a full-mask
        # shuffle: each thread issues its own atomic, still one per thread instead of per index.
        b.position_at_end(thread_bb)
        for r, v in items:
            self.final_atomic(r, v)
        b.branch(done)
        b.position_at_end(block_bb)
        lane, warp = b.and_(tid, I32(WARP - 1)), b.lshr(tid, I32(5))
        scratch = []
        for k, (r, v) in enumerate(items):
            v = self.warp_reduce(r, v)
            g = L.GlobalVariable(self.m, L.ArrayType(lltype(r.dtype), MAX_WARPS), f"{self.t.name}.__reduce{k}",
                                 addrspace=3)
            g.linkage, g.align = "internal", 16
            g.initializer = L.Constant(g.value_type, L.Undefined)
            scratch.append(g)
            with b.if_then(b.icmp_unsigned("==", lane, I32(0))):
                b.store(v, self._shared_elem(g, warp))
        self.s_Barrier(None)
        with b.if_then(b.icmp_unsigned("==", warp, I32(0))):
            nwarps = b.lshr(ntid, I32(5))
            for (r, _), g in zip(items, scratch):
                mine = b.load(self._shared_elem(g, lane), typ=lltype(r.dtype))
                v = b.select(b.icmp_unsigned("<", lane, nwarps), mine, identity(r.op, r.dtype))
                v = self.warp_reduce(r, v)
                with b.if_then(b.icmp_unsigned("==", lane, I32(0))):
                    self.final_atomic(r, v)
        b.branch(done)
        b.position_at_end(done)

    def _shared_elem(self, g, index):
        p = self.b.gep(g, [I32(0), index], inbounds=True, source_etype=g.value_type)
        p.type = SHARED_PTR
        return p

    def warp_reduce(self, r: Reduction, v):
        """Butterfly over the 32 lanes: after it every lane holds the warp's combined value."""
        for offset in (16, 8, 4, 2, 1):
            v = self.combine(r.op, r.dtype, v, self.shuffle_xor(v, offset))
        return v

    def shuffle_xor(self, v, offset):
        b = self.b
        if v.type == L.FloatType():
            f = self.intrinsic("llvm.nvvm.shfl.sync.bfly.f32", v.type, [I32, v.type, I32, I32])
            return b.call(f, [I32(-1), v, I32(offset), I32(WARP - 1)])
        f = self.intrinsic("llvm.nvvm.shfl.sync.bfly.i32", I32, [I32, I32, I32, I32])
        if v.type == I32:
            return b.call(f, [I32(-1), v, I32(offset), I32(WARP - 1)])
        # 64-bit values move as two 32-bit halves
        bits = b.bitcast(v, I64) if v.type != I64 else v
        lo, hi = b.trunc(bits, I32), b.trunc(b.lshr(bits, I64(32)), I32)
        lo = b.call(f, [I32(-1), lo, I32(offset), I32(WARP - 1)])
        hi = b.call(f, [I32(-1), hi, I32(offset), I32(WARP - 1)])
        joined = b.or_(b.zext(lo, I64), b.shl(b.zext(hi, I64), I64(32)))
        return b.bitcast(joined, v.type) if v.type != I64 else joined

    def final_atomic(self, r: Reduction, v):
        """One atomic of the partial `v`, skipped when it is the identity (it would change nothing)."""
        b = self.b
        ident = identity(r.op, r.dtype)
        if r.dtype.is_float:
            nontrivial = b.fcmp_unordered("!=", v, ident)
        else:
            nontrivial = b.icmp_unsigned("!=", v, ident)
        with b.if_then(nontrivial):
            ptr = self.address(r.array, r.indices)
            dt = r.dtype
            if dt.is_float:
                op = {"add": "fadd", "min": "fmin", "max": "fmax"}[r.op]
            else:
                op = {"add": "add", "and": "and", "or": "or", "xor": "xor",
                      "min": "min" if dt.kind == "i" else "umin", "max": "max" if dt.kind == "i" else "umax"}[r.op]
            b.atomic_rmw(op, ptr, v, "monotonic")

