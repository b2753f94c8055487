"""Scatters into a small array, counted per block in shared memory and added to it once per block.

`bins[x[i]] += 1` sends one global atomic per index, and all of them land on the few L2 slices
that own the array's addresses: on the H200, 256 int32 bins take 4.33 ms for 2^24 indices (the
same kernel in CUDA C through CuPy: 4.34 ms; Quadrants: 4.37 ms), and the time halves or doubles
with where the allocator put the bins. The remedy a CUDA programmer writes by hand, and what
`histogram_shared` in the kernel suite does, is privatization: each block keeps its own copy of
the array in shared memory, its threads update that copy (shared atomics, spread over 32 banks),
and at the end the block adds its non-zero counts to the global array, one atomic per element.

A task qualifies when an array is touched only by statement-level atomics of one kind (their old
values unused), at indices that depend on the loop (an invariant index is a reduction:
reduction.py), with a 32-bit element type (integer add/sub/min/max/and/or/xor, f32 add), in a
parallel CUDA range_for without block-level code, `return` or debug checks. Whether the array
fits (at most `CAP` elements) is known only at launch, so the loop is emitted twice: the block
takes the privatized copy when every privatized array fits, else the plain one. An index
outside the array goes to global memory as before, never to another shared slot. The launch
then uses one wave of blocks (`one_wave`), so each block's flush serves as many indices as it can.

Semantics are those of the atomics: integers exact, min/max exact, f32 sums reassociated (the
order of atomics was never fixed).
"""
from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir as L

from .. import ir
from .abi import I32, I64, SHARED_PTR, lltype
from .expressions import RED_OPS, scatter_only
from .reduction import COMBINE, invariant, identity
from .statements import StatementEmitter

CAP = 2048          # elements of one privatized copy (8 KB): 256-bin histograms and far larger fit
MAX_ARRAYS = 2      # privatized arrays per task (16 KB of shared memory at most)
_OK_TYPES = {"i32", "u32", "f32"}


@dataclass(frozen=True)
class Private:
    array: ir.ArrayArg
    op: str  # the combining op: add min max and or xor

    def describe(self) -> str:
        return f"{self.array.name} {self.op} ({self.array.dtype.name})"


def find_private(task: ir.Task, nv: bool, debug: bool) -> list[Private]:
    """The arrays of `task` to privatize ([] when none, or when the task does not qualify)."""
    if not nv or debug or task.type != "range_for" or task.serialize or task.uses_block_features \
            or task.has_calls:
        return []
    if task.loop_vars and task.loop_vars[0].dtype.bits == 64:
        return []
    if any(isinstance(n, (ir.Return, ir.Break)) for n in ir.walk(task.body)):
        return []
    only = scatter_only(task)
    ops: dict[str, set] = {}
    arrays: dict[str, ir.ArrayArg] = {}
    bad: set[str] = set()
    for n in ir.walk(task.body):
        if not (isinstance(n, ir.ExprStmt) and isinstance(n.value, ir.AtomicRMW)):
            continue
        a = n.value
        arr = a.array
        if not isinstance(arr, ir.ArrayArg) or arr.name not in only:
            continue
        arrays[arr.name] = arr
        ok = (arr.dtype.name in _OK_TYPES and a.op in COMBINE and not invariant(a.indices)
              and (not arr.dtype.is_float or a.op in ("add", "sub"))
              and all(getattr(i, "dtype", None) is None or i.dtype.bits <= 32 for i in a.indices)
              and not any(isinstance(m, ir.AtomicRMW) for m in ir.walk([list(a.indices), a.value])))
        if not ok:
            bad.add(arr.name)
        ops.setdefault(arr.name, set()).add(COMBINE[a.op])
    out = [Private(arrays[k], next(iter(v))) for k, v in ops.items() if k not in bad and len(v) == 1]
    return out[:MAX_ARRAYS]


class PrivatizeEmitter(StatementEmitter):
    """Mixin of the task emitter: the privatized loop beside the plain one."""

    private: dict = {}  # array name -> (Private, shared global) while the privatized loop is emitted

    def privatized_range_for(self, privs: list[Private]):
        b = self.b
        sizes = {}
        fits = None
        for p in privs:
            shape = self.arrays[p.array.name][1]
            size = shape[0]
            for d in shape[1:]:
                size = b.mul(size, d)
            sizes[p.array.name] = size
            ok = b.icmp_unsigned("<=", size, I32(CAP))
            fits = ok if fits is None else b.and_(fits, ok)
        priv_bb, plain_bb, done = (self.fn.append_basic_block(n) for n in ("priv", "plain", "priv.done"))
        b.cbranch(fits, priv_bb, plain_bb)
        b.position_at_end(plain_bb)
        self.range_for()
        b.branch(done)
        b.position_at_end(priv_bb)
        tid, ntid = self.sreg("tid.x"), self.sreg("ntid.x")
        table = {}
        for k, p in enumerate(privs):
            g = L.GlobalVariable(self.m, L.ArrayType(lltype(p.array.dtype), CAP), f"{self.t.name}.__private{k}",
                                 addrspace=3)
            g.linkage, g.align = "internal", 16
            g.initializer = L.Constant(g.value_type, L.Undefined)
            table[p.array.name] = (p, g, sizes[p.array.name])
            self._block_loop(tid, ntid, sizes[p.array.name],
                             lambda j, p=p, g=g: self.b.store(identity(p.op, p.array.dtype), self._elem(g, j)))
        self.s_Barrier(None)
        self.private = table
        try:
            self.range_for()
        finally:
            self.private = {}
        self.s_Barrier(None)
        for p, g, size in table.values():
            self._block_loop(tid, ntid, size, lambda j, p=p, g=g: self._flush(p, g, j))
        self.b.branch(done)
        self.b.position_at_end(done)
        for p in privs:
            self.log.append(f"privatized scatter: {p.describe()} counted per block in shared memory when it has "
                            f"at most {CAP} elements, then 1 atomic per element per block; one wave of blocks")

    def _elem(self, g, j):
        p = self.b.gep(g, [I32(0), j], inbounds=True, source_etype=g.value_type)
        p.type = SHARED_PTR
        return p

    def _block_loop(self, tid, ntid, end, body):
        """for (j = tid; j < end; j += ntid) body(j): the block's threads share the elements."""
        b = self.b
        j = self.alloca_b.alloca(I32, name="pj")
        b.store(tid, j)
        head, work, out = (self.fn.append_basic_block(n) for n in ("pj.head", "pj.body", "pj.exit"))
        b.branch(head)
        b.position_at_end(head)
        b.cbranch(b.icmp_unsigned("<", b.load(j, typ=I32), end), work, out)
        b.position_at_end(work)
        v = b.load(j, typ=I32)
        body(v)
        self.b.store(self.b.add(v, ntid), j)
        self.b.branch(head)
        self.b.position_at_end(out)

    def _flush(self, p: Private, g, j):
        b = self.b
        dt = p.array.dtype
        v = b.load(self._elem(g, j), typ=lltype(dt))
        ident = identity(p.op, dt)
        nonzero = b.fcmp_unordered("!=", v, ident) if dt.is_float else b.icmp_unsigned("!=", v, ident)
        with b.if_then(nonzero):
            ptr = b.gep(self.arrays[p.array.name][0], [b.zext(j, I64)], inbounds=True, source_etype=lltype(dt))
            self._red(ptr, v, p.op, dt)

    def s_ExprStmt(self, s):
        a = s.value
        entry = self.private.get(a.array.name) if self.private and isinstance(a, ir.AtomicRMW) else None
        if entry is None or a.array.name in self.wide:  # 64-bit offsets: the plain atomic
            return super().s_ExprStmt(s)
        p, g, size = entry
        b = self.b
        shape = self.arrays[a.array.name][1]
        idx = [self.expr(i) for i in a.indices]
        lin = self.linear(a.array, idx, shape)
        v = self.expr(a.value)
        dt = a.array.dtype
        if a.op == "sub":  # a running difference, combined by adding it (as reduction.py does)
            v = b.fneg(v) if dt.is_float else b.neg(v)
        op = _llvm_op(p.op, dt)
        inside = b.icmp_unsigned("<", lin, size)
        with b.if_else(inside) as (shared, outside):
            with shared:
                b.atomic_rmw(op, self._elem(g, lin), v, "monotonic")
            with outside:  # out of the array: where the plain loop would have written
                ptr = b.gep(self.arrays[a.array.name][0], [b.sext(lin, I64)], inbounds=True, source_etype=lltype(dt))
                self._red(ptr, v, p.op, dt)

    def _red(self, ptr, v, op: str, dt):
        """A global atomic nobody waits for: PTX `red` (see `atomic_reduce`); the array is only
        scattered into, so no memory clobber is needed."""
        suffix, reg = RED_OPS[(op, dt.name)]
        gptr = self.b.addrspacecast(ptr, L.PointerType(addrspace=1))
        asm = L.InlineAsm(L.FunctionType(L.VoidType(), [gptr.type, v.type]), f"red.global.{suffix} [$0], $1;",
                          f"l,{reg}", side_effect=True)
        self.b.call(asm, [gptr, v])


def _llvm_op(op: str, dt) -> str:
    if dt.is_float:
        return "fadd"
    return {"add": "add", "and": "and", "or": "or", "xor": "xor",
            "min": "min" if dt.kind == "i" else "umin", "max": "max" if dt.kind == "i" else "umax"}[op]
