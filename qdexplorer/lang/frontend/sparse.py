"""SNode trees inside kernels: cell activity (`qd.is_active`, `qd.activate`, `qd.deactivate`,
`qd.rescale_index`), activation by writes, struct-for over active cells, and the field methods a
kernel may call (`x.fill(v)`, `x.parent()`, `x.snode`).

Every container is dense storage (see snode.py); a pointer or bitmasked container adds an i32 mask
field, one cell per container cell, which these constructs read and write like any field: the
masks become implicit arrays of the tasks that touch them, so each task module stays
self-contained.
"""
from __future__ import annotations

import ast
import dataclasses
import math

from .. import intrinsics as I
from ... import ir
from ..field import Field
from ..snode import SNode
from ...ir.errors import QuadrantsTypeError
from ...ir.dtypes import i32, u1
from .base import LoweringBase
from .values import Py, StructArr, StructVal, Vec, cast

_PURE = (ir.Const, ir.LocalRef, ir.ScalarArg, ir.Shape)


class ArrayMethod:
    """`x.fill` of a field inside a kernel, before it is called."""

    def __init__(self, arr: ir.ArrayArg, name: str):
        self.arr, self.name = arr, name


class ListMethod:
    """`x[I].append` / `.length` / `.deactivate` of a field in a dynamic SNode (`x.append` for a
    1-d one), before it is called: the list is cell `I` of the dynamic node's parent."""

    def __init__(self, snode: SNode, idx: list, name: str):
        self.snode, self.idx, self.name = snode, idx, name


LIST_METHODS = ("append", "length", "deactivate")


def rescale(idx: list, frm: tuple, to: tuple) -> list:
    """Index `idx` of a container of shape `frm` as an index of one of shape `to` (an ancestor's
    cell divides, a descendant's multiplies), as Quadrants' `qd.rescale_index`."""
    out = list(idx)
    for k in range(min(len(out), len(frm), len(to))):
        if frm[k] > to[k]:
            out[k] = ir.BinOp("//", out[k], ir.Const(frm[k] // to[k], i32), i32)
        elif frm[k] < to[k]:
            out[k] = ir.BinOp("*", out[k], ir.Const(to[k] // frm[k], i32), i32)
    return out[:len(to)]


def cell_of(idx: list, frm: SNode, to: SNode) -> tuple:
    """The index of the cell of container `to` (above `frm`) holding index `idx` of `frm`."""
    return tuple(idx[p] if d == 1 else ir.BinOp("//", idx[p], ir.Const(d, i32), i32) for p, d in frm.cell_map(to))


def _write_target(stmt):
    """(array, indices) a statement writes, if it is a store or a top-level atomic update."""
    if isinstance(stmt, ir.Store):
        return stmt.array, stmt.indices
    value = getattr(stmt, "value", None) if isinstance(stmt, (ir.ExprStmt, ir.Assign)) else None
    if isinstance(value, ir.AtomicRMW):
        return value.array, value.indices
    return None


class SparseLowering(LoweringBase):
    """Mixin for `TaskBuilder`: SNode cell activity and field methods in kernels."""

    # -- writes activate
    def activating(self, stmt):
        target = _write_target(stmt)
        if target is None or not isinstance(target[0], ir.ArrayArg):
            return stmt
        fld = self.kscope.sparse_field(target[0].name)
        if fld is None:
            return stmt
        idx = [e if isinstance(e, _PURE) else ir.LocalRef(self._hoist(e)) for e in target[1]]
        container = fld.snode.parent()
        self.mark(container, idx[:len(fld.shape)], 1, ancestors=True)
        if isinstance(stmt, ir.Store):
            stmt = dataclasses.replace(stmt, indices=tuple(idx))
        else:
            stmt = dataclasses.replace(stmt, value=dataclasses.replace(stmt.value, indices=tuple(idx)))
        return self.within_stored(container, idx[:len(fld.shape)], stmt)

    def within_stored(self, s: SNode, idx: list, stmt):
        """`stmt` (a write at index `idx` of container `s`) only where the dynamic list above holds
        that cell in storage; past it (a list stored shorter than its capacity, snode.py:
        stored_shape) the kernel raises the node's overflow flag instead."""
        for t in s.sparse_path():
            if t.kind == "dynamic" and t.stored_capacity is not None and t.overflow is not None:
                _, k = self.list_of(t, cell_of(idx, s, t))
                flag = self.kscope.field_arg(t.overflow, "dynamic_overflow")
                return ir.If(ir.Compare("<", k, ir.Const(t.stored_capacity, i32), u1), [stmt],
                             [ir.Store(flag, (ir.Const(0, i32),), ir.Const(1, i32))])
        return stmt

    def _hoist(self, e) -> ir.Local:
        loc = self.new_local("cell", e.dtype)  # a u1 is held in an i32 local
        self.out[-1].append(ir.Assign(loc, cast(e, loc.dtype)))
        return loc

    def mask_arr(self, s: SNode) -> ir.ArrayArg:
        """The array recording `s`'s activity: a pointer/bitmasked mask, a dynamic node's lengths."""
        return self.kscope.field_arg(s.state_field(), "dynamic_length" if s.kind == "dynamic" else f"{s.kind}_mask")

    def list_of(self, s: SNode, idx) -> tuple[tuple, ir.Expr]:
        """(index of the lengths field, position in the list) of index `idx` of dynamic node `s`."""
        up, (p, m) = s.list_map()
        cell = tuple(idx[q] if d == 1 else ir.BinOp("//", idx[q], ir.Const(d, i32), i32) for q, d in up)
        k = ir.BinOp("%", idx[p], ir.Const(m, i32), i32) if m else idx[p]
        return (cell or (ir.Const(0, i32),)), k

    def mark(self, s: SNode, idx: list, value: int, ancestors: bool):
        """Set the cell holding index `idx` (of container `s`) in `s`, and with `ancestors` in each
        sparse container above it; a dynamic list grows to hold it (an atomic max of its length)."""
        for t in (s.sparse_path() if ancestors else [s] if s.kind in ("pointer", "bitmasked") else []):
            at = cell_of(idx, s, t)
            if t.kind == "dynamic":
                cell, k = self.list_of(t, at)
                grow = ir.AtomicRMW("max", self.mask_arr(t), cell, ir.BinOp("+", k, ir.Const(1, i32), i32))
                self.out[-1].append(ir.ExprStmt(grow))
            else:
                self.out[-1].append(ir.Store(self.mask_arr(t), at, ir.Const(value, i32)))

    def active_cond(self, s: SNode, idx: list) -> ir.Expr | None:
        """Whether every sparse container on the way to `s` has the cell of `idx` (an index of `s`)
        active, and every dynamic list on the way holds it."""
        cond: ir.Expr | None = None
        for t in s.sparse_path():
            at = cell_of(idx, s, t)
            if t.kind == "dynamic":
                cell, k = self.list_of(t, at)
                c = ir.Compare("<", k, ir.Load(self.mask_arr(t), cell), u1)
            else:
                c = ir.Compare("!=", ir.Load(self.mask_arr(t), at), ir.Const(0, i32), u1)
            cond = c if cond is None else ir.BinOp("and", cond, c, u1)
        return cond

    # -- qd.is_active / activate / deactivate / rescale_index / append / length
    def snode_call(self, f: I.Intrinsic, node: ast.Call):
        if len(node.args) != (3 if f.name in ("rescale_index", "append") else 2) or node.keywords:
            self.err(node, {"rescale_index": "qd.rescale_index(a, b, indices) takes three arguments",
                            "append": "qd.append(snode, indices, value) takes three arguments"}.get(
                f.name, f"qd.{f.name}(snode, indices)"))
        if f.name == "rescale_index":
            a, b = (self.container_shape(x) for x in node.args[:2])
            idx = self.index_list(node.args[2])
            return Vec(rescale(idx, a, b) + idx[len(b):] if len(idx) > len(b) else rescale(idx, a, b))
        s = self.value(node.args[0])
        if not (isinstance(s, Py) and isinstance(s.value, SNode)):
            self.err(node.args[0], f"qd.{f.name}'s first argument must be an SNode (qd.root.pointer(...), x.parent())")
        s = s.value
        idx = self.index_list(node.args[1])
        if f.name in ("append", "length") or (f.name == "deactivate" and s.kind == "dynamic"):
            return self.list_call(f.name, s, idx, node.args[2] if f.name == "append" else None, node)
        if len(idx) != len(s.shape):
            self.err(node.args[1], f"qd.{f.name}: this {s.kind} SNode has {len(s.shape)} index axes, got {len(idx)} "
                                   f"indices")
        # an index outside the container does nothing (Quadrants does not check it; unchecked, the mask
        # store would write past the mask and corrupt memory) and reads as inactive
        idx = [e if isinstance(e, _PURE) else ir.LocalRef(self._hoist(e)) for e in idx]
        inside = self.in_container(idx, s.shape)
        if f.name == "is_active":
            if s.kind not in ("pointer", "bitmasked"):  # Quadrants' words and class
                self.err(node, f"qd.is_active only works on pointer, hash or bitmasked nodes (got a {s.kind} one)",
                         QuadrantsTypeError)
            clamped = tuple(ir.BinOp("max", ir.BinOp("min", e, ir.Const(n - 1, i32), i32), ir.Const(0, i32), i32)
                            for e, n in zip(idx, s.shape))
            return ir.Select(inside, ir.Load(self.mask_arr(s), clamped), ir.Const(0, i32), i32)
        if s.kind == "dynamic":  # Quadrants' runtime crashes on it
            self.err(node, "qd.activate does not take a dynamic SNode: write an element (x[i, j] = v) or append "
                           "one (qd.append)")
        self.out.append([])
        if f.name == "activate":
            self.mark(s, idx, 1, ancestors=True)
        else:
            if s.kind not in ("pointer", "bitmasked"):
                self.err(node, f"qd.deactivate needs a pointer, bitmasked or dynamic SNode, got a {s.kind} one")
            self.mark(s, idx, 0, ancestors=False)
            if s.kind == "pointer":  # Quadrants recycles the cell's memory zero-filled
                self.zero_below(s, s, idx)
        body = self.out.pop()
        self.out[-1].append(ir.If(inside, body, []))
        return Py(None)

    def zero_below(self, s: SNode, owner: SNode, cell: list):
        """Zero every field and activity state under `s` inside cell `cell` of `owner` (`s` itself or,
        for a dynamic node, its parent)."""
        for t in s.subtree_sparse():
            if t is not s:
                self.zero_block(self.mask_arr(t), (), owner.block_map(t.state_owner()), cell)
        for fld in s.subtree_fields():
            self.zero_block(self.kscope.field_arg(fld, fld.name or "field"), fld.elem_shape,
                            owner.block_map(fld.snode), cell)

    def list_call(self, name: str, s: SNode, idx: list, val_node, node):
        """`qd.append(dyn, I, v)`, `qd.length(dyn, I)`, `qd.deactivate(dyn, I)` (also `x[I].append(v)`,
        `x[I].length()`, `x[I].deactivate()`): `I` names the list, a cell of the dynamic node's parent."""
        if s.kind != "dynamic":
            self.err(node, f"qd.{name} needs a dynamic SNode (qd.root.dynamic(...)), got a {s.kind} one")
        parent = s.parent()
        assert parent is not None
        if len(idx) != len(parent.shape):
            self.err(node, f"qd.{name}: the lists of this dynamic SNode are indexed by its parent's "
                           f"{len(parent.shape)} axes, got {len(idx)} indices")
        idx = [e if isinstance(e, _PURE) else ir.LocalRef(self._hoist(e)) for e in idx]
        cell = tuple(idx) or (ir.Const(0, i32),)
        lengths = self.mask_arr(s)
        cap = s.splits[s.dyn_axis]
        if name == "length":
            return ir.Load(lengths, cell)  # past the capacity after dropped appends, as Quadrants counts them
        if name == "deactivate":
            self.out[-1].append(ir.Store(lengths, cell, ir.Const(0, i32)))
            self.zero_below(s, parent, idx)
            return Py(None)
        comps = self.append_values(s, self.value(val_node), val_node)
        slot = self.new_local("slot", i32, ir.AtomicRMW("add", lengths, cell, ir.Const(1, i32)))
        k = ir.LocalRef(slot)
        at: list[ir.Expr] = []
        for spec in s.element_map():  # the element's index: the list's cell, the slot along the list axis
            if spec[0] == "cell":
                at.append(idx[spec[1]])
            else:
                at.append(k if spec[1] is None else
                          ir.BinOp("+", ir.BinOp("*", idx[spec[1]], ir.Const(cap, i32), i32), k, i32))
        for t in s.sparse_path():  # the pointer/bitmasked cells above the list are active now, as in
            if t.kind != "dynamic":  # Quadrants (struct-fors over the list, its siblings, visit them)
                self.out[-1].append(ir.Store(self.mask_arr(t), cell_of(at, s, t), ir.Const(1, i32)))
        stores: list[ir.Stmt] = []
        for arr, comp, v in comps:
            stores.append(ir.Store(arr, tuple(at) + comp, v))
        past: list[ir.Stmt] = []
        if s.stored_capacity is not None and s.overflow is not None:  # fewer cells stored than the capacity
            flag = self.kscope.field_arg(s.overflow, "dynamic_overflow")
            past = [ir.If(ir.Compare("<", k, ir.Const(cap, i32), u1),
                          [ir.Store(flag, (ir.Const(0, i32),), ir.Const(1, i32))], [])]
            cap = s.stored_capacity
        self.out[-1].append(ir.If(ir.Compare("<", k, ir.Const(cap, i32), u1), stores, past))
        return k

    def append_values(self, s: SNode, v, node) -> list:
        """(array, component index, value) for each component of the fields placed in dynamic node
        `s`, in order, taken from the flattened appended value (Quadrants' order)."""
        flat: list = []

        def walk(x):
            if isinstance(x, StructVal):
                for m in x.members.values():
                    walk(m)
            elif isinstance(x, Vec):
                flat.extend(x.items)
            elif isinstance(x, (list, tuple)):
                for y in x:
                    walk(y)
            else:
                flat.append(x)
        walk(v)
        slots = [(f, comp) for f in s.fields for comp in _components(f.elem_shape)]
        if len(slots) != len(flat):
            self.err(node, f"qd.append: the dynamic SNode holds {len(slots)} value(s) per element (its fields' "
                           f"components), the appended value has {len(flat)}")
        out = []
        for (f, comp), x in zip(slots, flat):
            arr = self.kscope.field_arg(f, f.name or "field")
            out.append((arr, comp, self._hoist_value(cast(self.commit(x, node, like=f.dtype), f.dtype))))
        return out

    def list_method(self, node: ast.Attribute):
        """`x[I].append` (and `.length`, `.deactivate`) where `x` lies in a dynamic SNode and `I` has one
        index fewer than `x`, or `x.append` of a 1-d such field, as Quadrants' AST builder reads them;
        None for anything else."""
        if node.attr not in LIST_METHODS:
            return None
        target = node.value.value if isinstance(node.value, ast.Subscript) else node.value
        base = self.value(target)
        while isinstance(base, StructArr):
            base = next(iter(base.members.values()))
        fld = self.kscope.field_objs.get(base.name) if isinstance(base, ir.ArrayArg) else None
        dyn = fld.snode.parent() if fld is not None and fld.sparse else None  # (placed by place() under a dynamic node)
        if fld is None or dyn is None or dyn.kind != "dynamic":
            return None
        idx = self.index_list(node.value.slice) if isinstance(node.value, ast.Subscript) else []
        if len(idx) + 1 != len(fld.shape):
            return None
        return Py(ListMethod(dyn, idx, node.attr))

    def _hoist_value(self, e):
        return e if isinstance(e, _PURE) else cast(ir.LocalRef(self._hoist(e)), e.dtype)

    @staticmethod
    def in_container(idx: list, shape: tuple) -> ir.Expr:
        cond: ir.Expr = ir.Const(1, u1)
        for e, n in zip(idx, shape):
            c = ir.BinOp("and", ir.Compare(">=", e, ir.Const(0, i32), u1), ir.Compare("<", e, ir.Const(n, i32), u1), u1)
            cond = ir.BinOp("and", cond, c, u1)
        return cond

    def container_shape(self, node) -> tuple:
        v = self.value(node)
        if isinstance(v, Py) and isinstance(v.value, (SNode, Field)):
            return tuple(v.value.shape)
        if isinstance(v, ir.ArrayArg) and v.name in self.kscope.field_objs:
            return tuple(self.kscope.field_objs[v.name].shape)
        self.err(node, "qd.rescale_index takes fields or SNodes as its first two arguments")

    def index_list(self, node) -> list:
        v = self.value(node)
        items = v.items if isinstance(v, Vec) else v if isinstance(v, list) else \
            [Py(x) for x in v.value] if isinstance(v, Py) and isinstance(v.value, (tuple, list)) else [v]
        return [cast(self.commit(x, node, like=i32), i32) for x in items]

    def zero_block(self, arr: ir.ArrayArg, elem: tuple, block: list, cell: list):
        """Zero the part of `arr` inside `cell` of a container; `block` is that container's
        `block_map` of the array's own container."""
        ratio = [n for _, n in block]
        base = [ir.BinOp("*", cell[p], ir.Const(n, i32), i32) if p is not None else ir.Const(0, i32)
                for p, n in block]

        def body(flat):
            idx = self.unravel(flat, ratio)
            at = tuple(ir.BinOp("+", b, x, i32) for b, x in zip(base, idx))
            zero = ir.Const(0.0 if arr.dtype.is_float else 0, arr.dtype)
            for comp in _components(elem):
                self.out[-1].append(ir.Store(arr, at + comp, zero))
        self.counted_loop(math.prod(ratio), body)

    def unravel(self, flat: ir.Expr, shape) -> list:
        out, stride = [], math.prod(shape)
        for n in shape:
            stride //= n
            q = ir.BinOp("//", flat, ir.Const(stride, i32), i32) if stride > 1 else flat
            out.append(ir.BinOp("%", q, ir.Const(n, i32), i32))
        return out

    def counted_loop(self, n: int, body):
        """`for c in range(n): body(c)`, built in IR (no user loop variable)."""
        c = self.new_local("c", i32, ir.Const(0, i32))
        ref = ir.LocalRef(c)
        self.out.append([ir.If(ir.Compare(">=", ref, ir.Const(n, i32), u1), [ir.Break()], [])])
        body(ref)
        block = self.out.pop()
        self.out[-1].append(ir.Loop(block, [ir.Assign(c, ir.BinOp("+", ref, ir.Const(1, i32), i32))]))

    # -- `A[i, j] += v` on a qd.linalg.SparseMatrixBuilder (linalg/sparse_matrix.py)
    def builder_add(self, b, target, node, op: str):
        """Append the triplet (i, j, ±v): a slot from an atomic counter, then three stores; triplets past
        the builder's capacity are dropped, as Quadrants' builder drops them."""
        if op not in ("+", "-"):
            self.err(node, "a sparse matrix builder takes A[i, j] += v and A[i, j] -= v only")
        elts = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
        if len(elts) != 2:
            self.err(target, "a sparse matrix builder takes two indices: A[i, j] += v")
        i, j = (cast(self.commit(self.value(e), node, like=i32), i32) for e in elts)
        v = cast(self.commit(self.value(node.value), node, like=b.dtype), b.dtype)
        if op == "-":
            v = ir.UnOp("neg", v, b.dtype)
        vals = [self._hoist(x) for x in (i, j, v)]
        count = self.kscope.field_arg(b.count, "triplet_count")
        k = self.new_local("triplet", i32, ir.AtomicRMW("add", count, (ir.Const(0, i32),), ir.Const(1, i32)))
        slot = (ir.LocalRef(k),)
        stores: list[ir.Stmt] = [ir.Store(self.kscope.field_arg(f, name), slot, ir.LocalRef(x)) for f, name, x in
                                 zip((b.rows, b.cols, b.vals), ("triplet_rows", "triplet_cols", "triplet_vals"), vals)]
        self.out[-1].append(ir.If(ir.Compare("<", ir.LocalRef(k), ir.Const(b.max_num_triplets, i32), u1), stores, []))

    # -- x.fill(v), x.parent(), x.snode inside a kernel
    def array_attr(self, arr: ir.ArrayArg, attr: str, node):
        fld = self.kscope.field_objs.get(arr.name)
        if attr == "fill":
            return Py(ArrayMethod(arr, attr))
        if fld is not None and attr in ("parent", "snode"):
            return Py(getattr(fld, attr))
        if fld is None and attr == "grad":  # a template field's `a.grad`: passed as `a__grad` (kernel.spec_for)
            g = self.kscope.arg_values.get(arr.name + "__grad")
            if isinstance(g, ir.ArrayArg):
                return g
            self.err(node, f"Gradient {arr.name}.grad has not been placed, check whether `needs_grad=True` "
                           f"(the array passed as '{arr.name}' has no gradient)")
        if fld is not None and attr == "grad":  # `x.grad[i]` in a kernel: the adjoint, a field of its own
            if fld.adjoints.grad is None:
                self.err(node, f"Gradient {fld.name or arr.name}.grad has not been placed, check whether "
                               f"`needs_grad=True` (or place x.grad)")
            g = fld.grad
            return self.kscope.field_arg(g, g.name or "grad")
        self.err(node, f"attribute '.{attr}' is not supported on an array in a kernel (.shape, .fill(v) and, "
                       f"for fields, .grad, .parent() and .snode are)")

    def array_method(self, m: ArrayMethod, node: ast.Call):
        """`x.fill(v)` in a kernel: every element (every active one under a sparse container) set to v,
        by the thread that calls it, as a loop."""
        if len(node.args) != 1 or node.keywords:
            self.err(node, "x.fill(value) takes one argument")
        arr = m.arr
        elem = self.kscope.elem_shapes.get(arr.name, ())
        shape_k = arr.ndim - len(elem)
        v = self.value(node.args[0])
        vals = v.items if isinstance(v, Vec) else [v] * max(1, math.prod(elem))
        if len(vals) != max(1, math.prod(elem)):
            self.err(node, f"x.fill: the value has {len(vals)} components, an element {math.prod(elem)}")
        vals = [self._hoist(cast(self.commit(x, node, like=arr.dtype), arr.dtype)) for x in vals]
        fld = self.kscope.field_objs.get(arr.name)
        shape = [ir.Shape(arr, k) for k in range(shape_k)]
        total: ir.Expr = ir.Const(1, i32)
        for s in shape:
            total = ir.BinOp("*", total, s, i32)

        def body(flat):
            idx: list[ir.Expr] = []
            rest = flat
            for k in reversed(range(shape_k)):
                idx.insert(0, ir.BinOp("%", rest, shape[k], i32))
                rest = ir.BinOp("//", rest, shape[k], i32)
            stores: list[ir.Stmt] = [ir.Store(arr, tuple(idx) + comp, cast(ir.LocalRef(x), arr.dtype))
                                     for comp, x in zip(_components(elem), vals)]
            cond = self.active_cond(fld.snode.parent(), idx) if fld is not None and fld.sparse else None
            self.out[-1].extend(stores if cond is None else [ir.If(cond, stores, [])])
        c = self.new_local("c", i32, ir.Const(0, i32))
        ref = ir.LocalRef(c)
        self.out.append([ir.If(ir.Compare(">=", ref, total, u1), [ir.Break()], [])])
        body(ref)
        block = self.out.pop()
        self.out[-1].append(ir.Loop(block, [ir.Assign(c, ir.BinOp("+", ref, ir.Const(1, i32), i32))]))
        return Py(None)


def _components(elem: tuple) -> list:
    """The trailing indices of each component of an element of shape `elem` (one empty one for scalars)."""
    out: list[tuple] = [()]
    for n in elem:
        out = [c + (ir.Const(k, i32),) for c in out for k in range(n)]
    return out
