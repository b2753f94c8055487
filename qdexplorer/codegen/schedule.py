"""How a range_for's index space is spread over threads: grid-stride loops and coarsening.

On CUDA every thread walks the flattened index space with a grid stride; with coarsening it
takes `vector` adjacent indices per step so loads and stores merge (ld.global.v4). On the host
the caller hands each thread a `[lo, hi)` chunk and the loop walks it with stride 1.
"""
from __future__ import annotations

from llvmlite import ir as L

from .. import ir
from .abi import I1, I32, I64
from .emitter_base import EmitterBase


def coarsening(task: ir.Task, nv: bool, vector: int, heavy_math: bool = False) -> int:
    """Indices per thread per grid-stride step; only plain CUDA range_for tasks are coarsened.

    Coarsening pays only where LLVM can merge each thread's adjacent accesses into one vector
    access (`ld.global.nc.v4`): a 1-D loop whose every array access is `a[i]` or `a[i ± c]` (or a
    loop-invariant element). Anywhere else each of the `vector` indices is a scalar access, and
    since neighbouring lanes are then `vector` elements apart, every warp-wide load touches
    `vector` times as many sectors: the 4096² 5-point stencil ran 1.5x slower coarsened
    (L1/L2-bound, 89%/91% of throughput), a particle step over (n, 2) arrays 1.8x slower.

    A body that inlines libdevice (hundreds of instructions per call, with slow-path branches)
    is compute-bound, so merging its loads gains nothing while `vector` + 1 copies of the body
    (the unrolled step and the tail loop) multiply the PTX: 63 KB instead of 13.5 KB for the
    demo's math_mix, three times the driver JIT time and twice the LLVM time. Measured on the H200
    (accurate sin·exp, 2^26, sinf's slow path out of line): 0.336 ms coarsened by 4, 0.194 by 2,
    0.192 uncoarsened.

    With HEAVY_MATH_COARSENING, such a body is coarsened all the same when its loads and stores can be
    issued together (`streamed`): the `vector` indices' loads first, as one vector load, then the bodies,
    then the stores, so a thread keeps 16 bytes in flight instead of 4 (Triton's shape for torch.compile's
    sin·exp).
    """
    if nv and task.type == "range_for" and not task.serialize and not task.uses_block_features \
            and contiguous(task) and (not heavy_math or (HEAVY_MATH_COARSENING and streamed(task) is not None)):
        return max(1, vector)
    if nv and task.type == "range_for" and not task.serialize and not task.uses_block_features \
            and not heavy_math and STACKED_ROWS and stacked_rows(task):
        return max(1, vector)
    return 1


STACKED_ROWS = True   # benchmarks' A/B: a 2-D stencil's thread takes `vector` rows of one column
STACKED_STRAIGHT = True   # benchmarks' A/B: a step whose rows are all inside runs them with no guard between


def stacked_rows(task: ir.Task) -> bool:
    """A 2-D loop whose every global access is at (i ± c, j ± c') or invariant, with plain loads and
    stores only, and some array read at two rows (a stencil): each thread then takes `vector` consecutive rows of one column, the lanes
    of a warp still adjacent columns, so row i + 1 of step k is row i of step k + 1 and is loaded once
    (the loads of the later copies sit under the earlier ones' guard: LLVM reuses them). The 8192²
    5-point stencil read each row three times through L2 one index a thread (0.69 of the copy rate)."""
    if len(task.ranges) != 2 or len(task.loop_vars) != 2 or task.has_calls:
        return False
    vi, vj = task.loop_vars
    if any(isinstance(n, ir.Assign) and n.local in (vi, vj) for n in ir.walk(task.body)) or \
            any(isinstance(n, (ir.AtomicRMW, ir.Break, ir.Return)) for n in ir.walk(task.body)):
        return False

    def near(e, var) -> bool:
        if isinstance(e, ir.LocalRef):
            return e.local is var
        if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
            return (near(e.lhs, var) and isinstance(e.rhs, ir.Const)) or \
                (e.op == "+" and isinstance(e.lhs, ir.Const) and near(e.rhs, var))
        return isinstance(e, ir.Cast) and e.dtype.is_int and near(e.operand, var)

    def invariant(e) -> bool:
        return not any(isinstance(n, (ir.LocalRef, ir.Load, ir.SimtIndex)) for n in ir.walk(e))

    rows: dict[str, set] = {}   # array -> the row expressions it is loaded at
    for n in ir.walk(task.body):
        if isinstance(n, (ir.Load, ir.Store)) and isinstance(n.array, ir.ArrayArg):
            idx = n.indices
            if not ((len(idx) == 2 and near(idx[0], vi) and near(idx[1], vj)) or all(invariant(i) for i in idx)):
                return False
            if isinstance(n, ir.Load) and len(idx) == 2:
                rows.setdefault(n.array.name, set()).add(idx[0])
    return any(len(r) > 1 for r in rows.values())   # some row is read again by the next: a stencil


def stacked_loads(task: ir.Task) -> list:
    """The loads a stacked step may issue for all its rows before any body: those of arrays the task never
    writes (nothing the bodies store can change them), in the body's leading statements (before any branch,
    loop or jump: what every index runs). `stacked_rows` has checked that their indices are the loop
    variables plus constants, or invariant, and that no statement assigns a loop variable."""
    if task.may_alias or not STACKED_STRAIGHT:
        return []
    return lead_loads(task, lambda idx: True)


def lead_loads(task: ir.Task, where) -> list:
    """The loads of arrays the task never writes, with indices `where` accepts, in the body's leading
    statements: those before any branch, select, short-circuit, atomic, loop or jump (what every index runs)."""
    written = {n.array.name for n in ir.walk(task.body) if isinstance(n, (ir.Store, ir.AtomicRMW))}
    loads: list = []
    for st in task.body:
        if not isinstance(st, (ir.Assign, ir.Store, ir.ExprStmt)) or \
                any(isinstance(n, (ir.Select, ir.AtomicRMW)) or (isinstance(n, ir.BinOp) and n.op in ("and", "or"))
                    for n in ir.walk(st)):
            break
        loads += [n for n in ir.walk(st) if isinstance(n, ir.Load) and isinstance(n.array, ir.ArrayArg)
                  and n.array.name not in written and where(n.indices) and n not in loads]
    return loads


HEAVY_MATH_COARSENING = True   # benchmarks/kernel_suite.py turns it off for its A/B


def streamed(task: ir.Task) -> tuple[list, list] | None:
    """(loads, stores) of a coarsened step that can be issued apart from the bodies: the loads at the
    loop index of arrays the task never writes, in the body's leading statements (those before any
    branch, loop or jump: what every index runs), and the trailing stores at the loop index into arrays
    nothing else in the task touches. None when there are no such loads or stores."""
    if len(task.loop_vars) != 1 or task.may_alias or task.has_calls or \
            any(isinstance(n, (ir.Continue, ir.Break, ir.Return)) for n in ir.walk(task.body)):
        return None   # (a jump past the trailing stores would leave their values undefined)
    var = task.loop_vars[0]
    if any(isinstance(n, ir.Assign) and n.local is var for n in ir.walk(task.body)):
        return None   # a preloaded `x[i]` stands for every `x[i]` of the body: i must keep its value
    at_i = lambda idx: len(idx) == 1 and isinstance(idx[0], ir.LocalRef) and idx[0].local is var  # noqa: E731
    loads = lead_loads(task, at_i)
    stores: list = []
    for st in reversed(task.body):
        if not (isinstance(st, ir.Store) and isinstance(st.array, ir.ArrayArg) and at_i(st.indices)):
            break
        touched = [n for n in ir.walk(task.body) if isinstance(n, (ir.Load, ir.Store, ir.AtomicRMW))
                   and getattr(n, "array", None) == st.array]
        if len(touched) != 1 or any(isinstance(n, (ir.Load, ir.AtomicRMW)) for n in ir.walk(st.value)
                                    if getattr(n, "array", None) == st.array):
            break
        stores.insert(0, st)
    return (loads, stores) if loads and stores else None


def contiguous(task: ir.Task) -> bool:
    """Whether every global access of a 1-D range_for is at the loop index (+ a constant) or invariant.

    An atomic whose result is unused may go anywhere (a histogram's `bins[x[i]] += 1`): it becomes a
    `red`, which the thread does not wait for, so its address costs no merged load; coarsening then
    merges the loads that feed it (`x[i]`, as ld.global.nc.v4) and queues `vector` reds per step."""
    if len(task.ranges) != 1:
        return False
    var = task.loop_vars[0]

    def at_index(e) -> bool:
        if isinstance(e, ir.LocalRef):
            return e.local is var
        if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
            return (at_index(e.lhs) and isinstance(e.rhs, ir.Const)) or \
                (e.op == "+" and isinstance(e.lhs, ir.Const) and at_index(e.rhs))
        return isinstance(e, ir.Cast) and e.dtype.is_int and at_index(e.operand)

    def invariant(e) -> bool:
        return not any(isinstance(n, (ir.LocalRef, ir.Load, ir.AtomicRMW, ir.SimtIndex)) for n in ir.walk(e))

    scatters = {id(n.value) for n in ir.walk(task.body)
                if isinstance(n, ir.ExprStmt) and isinstance(n.value, ir.AtomicRMW)}
    for n in ir.walk(task.body):
        if id(n) in scatters:  # `bins[x[i]] += 1`: a fire-and-forget `red` at any address
            continue
        if isinstance(n, (ir.Load, ir.Store, ir.AtomicRMW)) and isinstance(n.array, ir.ArrayArg):
            if not ((len(n.indices) == 1 and at_index(n.indices[0])) or all(invariant(i) for i in n.indices)):
                return False
    return True


class ScheduleEmitter(EmitterBase):
    """Mixin of the task emitter: the loop nest around a range_for's body."""

    def range_for(self):
        b = self.b
        if self.t.loop_vars and self.t.loop_vars[0].dtype.bits == 64:
            ext, begins, total = self.wide_extents()
        else:
            ext, begins = [], []
            for lo, hi in self.t.ranges:
                lo_v, hi_v = self.expr(lo), self.expr(hi)
                d = b.sub(hi_v, lo_v)
                ext.append(b.select(b.icmp_signed("<", d, I32(0)), I32(0), d))
                begins.append(lo_v)
            total = ext[0]
            for e in ext[1:]:
                total = b.mul(total, e)
        if self.nv:
            tid, ctaid = self.sreg("tid.x"), self.sreg("ctaid.x")
            ntid, nctaid = self.sreg("ntid.x"), self.sreg("nctaid.x")
            gtid, stride = b.add(b.mul(ctaid, ntid), tid), b.mul(nctaid, ntid)
            v = self.vector
            if v > 1 and len(ext) == 2:   # stacked rows (stacked_rows): `v` rows of one column a step
                rows = b.udiv(b.add(ext[0], I32(v - 1)), I32(v))
                self.stacked_loop(gtid, stride, b.mul(rows, ext[1]), begins, ext, v)
            elif v > 1:
                # Thread coarsening: each thread takes `v` adjacent indices per grid-stride step, so
                # the load/store vectorizer can merge them (ld.global.v4) and loads overlap stores.
                main_end = b.mul(b.udiv(total, I32(v)), I32(v))
                self.grid_loop(b.mul(gtid, I32(v)), b.mul(stride, I32(v)), main_end, begins, ext, unroll=v)
                self.grid_loop(b.add(main_end, gtid), stride, total, begins, ext)
            else:
                self.grid_loop(gtid, stride, total, begins, ext)
        else:
            lo, hi = self.sig.extra
            end = b.select(b.icmp_signed("<", hi, total), hi, total)
            self.grid_loop(lo, I32(1), end, begins, ext)

    def wide_extents(self):
        """(extents, begins, total) of a loop with 64-bit bounds: the begins stay 64-bit, so the
        index keeps its value; the counts are taken in 64 bits and saturate at 2^31 - 1 (the host
        refuses a launch of more before it starts; only bounds read from arrays reach the limit)."""
        b = self.b
        cap = I64(2**31 - 1)
        ext, begins, total = [], [], I64(1)
        for lo, hi in self.t.ranges:
            lo_v, hi_v = self.expr(lo), self.expr(hi)
            d = b.sub(hi_v, lo_v)
            d = b.select(b.icmp_signed("<", d, I64(0)), I64(0), d)
            d = b.select(b.icmp_signed(">", d, cap), cap, d)
            total = b.mul(total, d)  # each factor is at most 2^31 - 1: no 64-bit overflow
            total = b.select(b.icmp_signed(">", total, cap), cap, total)
            ext.append(b.trunc(d, I32))
            begins.append(lo_v)
        return ext, begins, b.trunc(total, I32)

    def open_strided_loop(self, start, end):
        """The head of `for (idx = start; idx < end; idx += stride)`: its counter and its header,
        latch and exit blocks, the builder left in its body."""
        b = self.b
        idx = self.alloca_b.alloca(I32, name="idx")
        b.store(start, idx)
        head, body = self.fn.append_basic_block("loop"), self.fn.append_basic_block("body")
        latch, exit_ = self.fn.append_basic_block("latch"), self.fn.append_basic_block("exit")
        b.branch(head)
        b.position_at_end(head)
        # unsigned: idx and stride are below 2**31, so idx + stride never wraps and the loop ends
        b.cbranch(b.icmp_unsigned("<", b.load(idx, typ=I32), end), body, exit_)
        b.position_at_end(body)
        return idx, head, latch, exit_

    def close_strided_loop(self, idx, stride, head, latch, exit_):
        """The tail of that loop: `idx += stride` in `latch`, back to the header; the builder left at the exit.
        Returns the back-edge branch (where a loop's `llvm.loop` metadata goes)."""
        b = self.b
        b.position_at_end(latch)
        b.store(b.add(b.load(idx, typ=I32), stride), idx)
        br = b.branch(head)
        b.position_at_end(exit_)
        return br

    def grid_loop(self, start, stride, end, begins, ext, unroll=1):
        """for (idx = start; idx < end; idx += stride) { body(idx) ... body(idx + unroll - 1) }"""
        b = self.b
        idx, head, latch, exit_ = self.open_strided_loop(start, end)
        split = streamed(self.t) if unroll > 1 and self.heavy and self.sig.debug_ptr is None else None
        loaded: list[dict] = []
        if split is not None:   # every index's loads first, adjacent: one vector load each (see coarsening)
            for j in range(unroll):
                self.set_index(idx, j, begins, ext)
                loaded.append({ld: self.e_Load(ld) for ld in split[0]})
        deferred: list = []
        for j in range(unroll):
            nxt = latch if j == unroll - 1 else self.fn.append_basic_block(f"next{j}")
            self.set_index(idx, j, begins, ext)
            self.loops.append((None, nxt))
            if split is None:
                self.stmts(self.t.body)
            else:
                self.preloaded = loaded[j]
                self.stmts(self.t.body[:len(self.t.body) - len(split[1])])
                deferred += [(j, st, self.expr(st.value)) for st in split[1]]
                self.preloaded = None
            self.loops.pop()
            if not b.block.is_terminated:
                b.branch(nxt)
            if nxt is not latch:
                b.position_at_end(nxt)
        if deferred:   # ...and every index's stores last, adjacent again: one vector store each
            assert split is not None   # only a streamed body defers its stores
            b.position_at_end(latch)
            latch = self.fn.append_basic_block("latch.step")
            for st in split[1]:
                for j, s2, v in deferred:
                    if s2 is st:
                        self.set_index(idx, j, begins, ext)
                        b.store(v, self.address(st.array, st.indices, st.where)).align = st.array.dtype.nbytes
            b.branch(latch)
        br = self.close_strided_loop(idx, stride, head, latch, exit_)
        if not self.nv:  # the host's chunk loop stays one index a step, as Quadrants' runs (below)
            br.set_metadata("llvm.loop", self.one_index_per_call())

    def one_index_per_call(self):
        """`llvm.loop` metadata that keeps LLVM from vectorizing, interleaving or unrolling the host's
        chunk loop. Quadrants' CPU runtime calls a range_for's body once per index, so its LLVM never
        does, and a vectorized body's fast-math sums come out in another order (a struct-for's
        `x[i, j] = [i * q - 0.5 + off, ...]`: tests/lang/test_host_range_for_one_index.py)."""
        hints = [self.m.add_metadata(["llvm.loop.vectorize.enable", I1(0)]),
                 self.m.add_metadata(["llvm.loop.interleave.count", I32(1)]),
                 self.m.add_metadata(["llvm.loop.unroll.disable"])]
        # a loop's own node (add_metadata would share it), its first operand the node itself
        md = L.MDValue(self.m, hints, name=str(len(self.m.metadata)))
        md.operands = (md, *hints)
        return md

    def stacked_loop(self, start, stride, end, begins, ext, v):
        """for (idx = start; idx < end; idx += stride): column idx % cols, rows (idx / cols) * v + k for
        k < v while inside the range. A step whose `v` rows all lie inside runs them straight, with no
        guard between copies, so ptxas issues every copy's loads at once (the guarded form waited for
        each row's loads before the next row's guard: three round trips to memory a step for the
        5-point stencil instead of one); the last rows of the range take the guarded form, copy k + 1
        nested in copy k's guard, so it may reuse its loads."""
        b = self.b
        idx, head, latch, exit_ = self.open_strided_loop(start, end)
        cur = b.load(idx, typ=I32)
        col, row0 = b.urem(cur, ext[1]), b.mul(b.udiv(cur, ext[1]), I32(v))
        if STACKED_STRAIGHT:   # row0 < rows < 2^31, so row0 + v does not wrap
            whole, part = self.fn.append_basic_block("rows.whole"), self.fn.append_basic_block("rows.part")
            b.cbranch(b.icmp_unsigned("<=", b.add(row0, I32(v)), ext[0]), whole, part)
            b.position_at_end(whole)
            self.stacked_rows(row0, col, begins, ext, v, latch, guarded=False)
            b.position_at_end(part)
        self.stacked_rows(row0, col, begins, ext, v, latch, guarded=True)
        self.close_strided_loop(idx, stride, head, latch, exit_)

    def stacked_rows(self, row0, col, begins, ext, v, latch, guarded):
        """The body for rows row0 .. row0 + v - 1 of column `col`, then on to `latch`; `guarded`: each
        later row only while inside the range."""
        b = self.b
        loaded: list[dict] = [{} for _ in range(v)]
        lead = [] if self.sig.debug_ptr is not None else stacked_loads(self.t)
        # every row's loads first: one round trip to memory a step. The last row's first, so that the two
        # forms begin differently: LLVM would hoist a common beginning above the choice, and with it the first
        # add, which waits for its loads before the branch (two round trips).
        for k in (reversed(range(v)) if lead and not guarded else ()):
            self.set_rows(row0, col, begins, k)
            loaded[k] = {ld: self.e_Load(ld) for ld in lead}
        for k in range(v):
            if k and guarded:   # row0 + k < rows of the range (row0 itself is, as idx < end)
                go = self.fn.append_basic_block(f"row{k}")
                b.cbranch(b.icmp_unsigned("<", b.add(row0, I32(k)), ext[0]), go, latch)
                b.position_at_end(go)
            nxt = self.fn.append_basic_block(f"next{k}")
            self.set_rows(row0, col, begins, k)
            self.loops.append((None, nxt))
            self.preloaded = loaded[k] or None
            self.stmts(self.t.body)
            self.preloaded = None
            self.loops.pop()
            if not b.block.is_terminated:
                b.branch(nxt)
            b.position_at_end(nxt)
        b.branch(latch)

    def set_rows(self, row0, col, begins, k):
        """The loop variables' values at row row0 + k, column `col` of a stacked step."""
        b = self.b
        for axis, off in ((0, b.add(row0, I32(k)) if k else row0), (1, col)):
            if begins[axis].type != I32:
                off = b.zext(off, begins[axis].type)
            b.store(b.add(begins[axis], off, flags=["nsw"]), self.slot(self.t.loop_vars[axis]))

    def set_index(self, idx, j, begins, ext):
        """The loop variables' values for the step's `j`-th index."""
        b = self.b
        rem = b.load(idx, typ=I32)
        if j:
            rem = b.add(rem, I32(j), flags=["nsw"])
        for k in reversed(range(len(ext))):
            var = self.slot(self.t.loop_vars[k])
            off = rem if k == 0 else b.urem(rem, ext[k])
            if begins[k].type != I32:  # a 64-bit index: the offset is below 2^31
                off = b.zext(off, begins[k].type)
            b.store(b.add(begins[k], off, flags=["nsw"]), var)
            if k:
                rem = b.udiv(rem, ext[k])
