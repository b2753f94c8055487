"""Structs inside kernels, lowered to one value per member before the IR (as vectors are lowered to
one scalar per component): a struct field is one array per member (`StructArr`), an element or a
local struct is a `StructVal`, and its members are ordinary scalars and vectors.

Reading `f[i].pos` loads only that member; `f[i] = Particle(...)` and `f[i].mass += m` store
members (atomically in a parallel loop, like any field element); `s = f[i]` copies the members into
locals; `Particle(pos=..., mass=...)` builds a value (missing members are zero); a `@qd.dataclass`
method is inlined with a copy of its struct as `self`, as Quadrants passes structs by value.
"""
from __future__ import annotations

import ast
import math

import numpy as np

from ... import ir
from ...ir.errors import QuadrantsSyntaxError, QuadrantsTypeError
from ..struct_types import StructType, unpacked_member_name
from ...ir.dtypes import f32
from ..vector_types import VectorType
from .base import LoweringBase, Value
from .values import broadcast, BoundMethod, Py, Seq, StructArr, StructVal, UnpackedRef, Vec, cast, is_number
from .vectors import components

_AUG_ATOMIC = {ast.Add: "add", ast.Sub: "sub", ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}


class StructLowering(LoweringBase):
    """Mixin for `TaskBuilder`: struct fields, struct values, their members and methods."""

    def struct_element(self, arr: StructArr, idx_node: ast.AST, node: ast.AST) -> StructVal:
        """`f[i, j]`: where each member of element (i, j) lives, and its current value."""
        members: dict = {}
        cells: dict = {}
        for k, m in arr.members.items():
            if isinstance(m, StructArr):
                members[k] = self.struct_element(m, idx_node, node)
                continue
            idx = self.indices(m, idx_node, partial=True)
            cells[k] = (m, idx)
            members[k] = self.element_vec(m, idx) if len(idx) < m.ndim else ir.Load(m, idx, self.at(node))
        return StructVal(arr.stype, members, cells)

    def struct_member(self, s: StructVal, attr: str, node: ast.AST) -> Value:
        if attr in s.members:
            return s.members[attr]
        group = getattr(s.stype, "_unpacked_groups", {}).get(attr)
        if group is not None:
            return UnpackedRef(s, attr, group[0])
        methods = getattr(s.stype, "methods", {})
        if attr in methods:
            return Py(BoundMethod(methods[attr], s))
        self.err(node, f"struct {getattr(s.stype, 'name', '')} has no member or method '{attr}' "
                       f"(members: {', '.join(s.members)})", QuadrantsSyntaxError)

    def unpacked_member(self, ref: UnpackedRef, idx_node: ast.AST) -> str:
        """The member `ref.struct._{group}{i}` that `obj.{group}[i]` names; `i` must be known at compile time."""
        k = self.value(idx_node)
        if not (isinstance(k, Py) and isinstance(k.value, (int, np.integer)) and not isinstance(k.value, bool)):
            self.err(idx_node, f"unpacked vector {ref.group}[i] requires a python-int index (possibly via "
                               f"qd.static); got a runtime index", QuadrantsSyntaxError)
        i = int(k.value)
        if not 0 <= i < ref.count:
            self.err(idx_node, f"unpacked vector index out of bounds: {ref.group}[{i}] (count={ref.count})",
                     QuadrantsSyntaxError)
        return unpacked_member_name(ref.group, i)

    def construct_struct(self, stype: StructType, node: ast.Call) -> StructVal:
        """`Particle(pos, vel, mass=1.0)`: positional members in order, then keywords; the rest zero."""
        names = list(stype.members)
        if len(node.args) > len(names):
            self.err(node, f"{stype.name}() takes at most {len(names)} members, got {len(node.args)}")
        given: dict[str, ast.expr] = dict(zip(names, node.args))
        for kw in node.keywords:
            if kw.arg not in stype.members or kw.arg in given:
                self.err(kw, f"{stype.name}(): unexpected or repeated member '{kw.arg}' "
                             f"(members: {', '.join(names)})", QuadrantsSyntaxError)
            given[kw.arg] = kw.value
        values = {k: self.value(given[k]) if k in given else Py(0) for k in names}
        return StructVal(stype, {k: self.as_member(stype.members[k], values[k], node) for k in names})

    def struct_literal(self, node: ast.Call) -> StructVal:
        """`qd.Struct(a=1, b=v)` / `qd.Struct({"a": 1, "line": {...}})` in a kernel: an anonymous struct
        whose members take their values' types (nested dicts are nested structs)."""
        if len(node.args) > 1 or (node.args and not isinstance(node.args[0], ast.Dict)):
            self.err(node, "qd.Struct(...) in a kernel takes a dict literal or keyword members")
        pairs: list[tuple[str, ast.expr]] = [(kw.arg, kw.value) for kw in node.keywords if kw.arg is not None]
        if node.args:
            d = node.args[0]
            assert isinstance(d, ast.Dict)
            for k, v in zip(d.keys, d.values):
                if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                    self.err(d, "qd.Struct({...}) needs string keys")
                pairs.append((k.value, v))
        return self.anonymous_struct(pairs, node)

    def anonymous_struct(self, pairs: list, node: ast.AST) -> StructVal:
        members: dict = {}
        for k, v_node in pairs:
            if isinstance(v_node, ast.Dict):
                members[k] = self.anonymous_struct([(kk.value, vv) for kk, vv in zip(v_node.keys, v_node.values)
                                                    if isinstance(kk, ast.Constant)], node)
                continue
            v = self.value(v_node)
            members[k] = v if isinstance(v, (Vec, StructVal)) else self.commit(v, v_node)
        return StructVal(None, members)

    def as_member(self, t, v: Value, node: ast.AST) -> Value:
        """`v` converted to member type `t`: a scalar dtype, a vector/matrix type or a struct type."""
        if isinstance(t, StructType):
            if isinstance(v, StructVal):
                return v
            if isinstance(v, (Vec, Seq, list)) or (isinstance(v, Py) and not is_number(v)):
                self.err(node, f"a {t.name} member needs a {t.name} value", QuadrantsTypeError)
            # a scalar sets the first member, the rest are zero (Quadrants' constructor)
            return StructVal(t, {k: self.as_member(mt, v if j == 0 else Py(0), node)
                                 for j, (k, mt) in enumerate(t.members.items())})
        if isinstance(t, VectorType):
            dt = t.dtype or f32
            n = math.prod(t.shape)
            if isinstance(v, Py) and isinstance(v.value, (tuple, list)) or isinstance(v, list):
                v = Vec(components(v))  # `(1, 1, 1)` for a vec3 member
            items = v.items if isinstance(v, Vec) else broadcast(v, n)
            if len(items) != n:
                self.err(node, f"a {t!r} member needs {n} components, got {len(items)}", QuadrantsTypeError)
            return Vec([cast(self.commit(x, node, like=dt), dt) for x in items], t.shape)
        if isinstance(v, (Vec, StructVal)):
            self.err(node, f"a {t!r} member needs a scalar value", QuadrantsTypeError)
        return cast(self.commit(v, node, like=t), t)

    def struct_local(self, s: StructVal, name: str) -> StructVal:
        """A copy of `s` in locals of its own (`p = f[i]`, a func's struct argument)."""
        members: dict = {}
        for k, v in s.members.items():
            if isinstance(v, StructVal):
                members[k] = self.struct_local(v, f"{name}_{k}")
            elif isinstance(v, Vec):
                members[k] = self.vec_local(v, f"{name}_{k}")
            else:
                e = self.commit(v, None)
                members[k] = ir.LocalRef(self.new_local(f"{name}_{k}", e.dtype, e))
        return StructVal(s.stype, members)

    def store_struct(self, target: StructVal, v: Value, node: ast.AST):
        """`f[i] = s` / `p = s` on an existing struct: every member."""
        if not isinstance(v, StructVal) or list(v.members) != list(target.members):
            self.err(node, f"assigning to a {getattr(target.stype, 'name', 'struct')} needs a value of that "
                           f"struct type", QuadrantsTypeError)
        staged = self.struct_local(v, "tmp") if target.cells is not None else v  # f[i] = f[j]: read first
        for k in target.members:
            self.store_member(target, k, staged.members[k], node)

    def store_member(self, s: StructVal, k: str, v: Value, node: ast.AST):
        """`s.k = v` on a field element (a store) or a local struct (an assignment)."""
        cur = s.members[k]
        if isinstance(cur, StructVal):
            return self.store_struct(cur, v, node)
        t = s.stype.members[k] if isinstance(s.stype, StructType) else None
        if s.cells is not None:
            arr, idx = s.cells[k]
            if isinstance(cur, Vec):
                value = self.as_member(t, v, node) if t is not None else v
                for ld, x in zip(cur.items, self.staged(value.items, arr.dtype, node)):
                    self.emit(ir.Store(arr, ld.indices, x, self.at(node)))
                return
            self.emit(ir.Store(arr, idx, cast(self.commit(v, node, like=arr.dtype), arr.dtype), self.at(node)))
            return
        if isinstance(cur, Vec):
            return self.assign_vec(cur, self.as_member(t, v, node) if t is not None else v, node)
        self.assign_ref(cur, v, node)

    def update_member(self, s: StructVal, k: str, op: str, aug: ast.AugAssign):
        """`s.k op= v`: an atomic on a field element in a parallel loop (Quadrants' rule), else a
        read-modify-write."""
        cur = s.members[k]
        rhs = self.value(aug.value)
        if s.cells is not None and self.in_parallel and type(aug.op) in _AUG_ATOMIC and not isinstance(cur, StructVal):
            arr, idx = s.cells[k]
            if arr.dtype.is_int or type(aug.op) in (ast.Add, ast.Sub):
                loads = cur.items if isinstance(cur, Vec) else [cur]
                vals = rhs.items if isinstance(rhs, Vec) else broadcast(rhs, len(loads))
                for ld, x in zip(loads, self.staged(vals, arr.dtype, aug)):
                    self.emit(ir.ExprStmt(ir.AtomicRMW(_AUG_ATOMIC[type(aug.op)], arr, ld.indices, x,
                                                       self.at(aug.target))))
                return
        self.store_member(s, k, self.binop(op, cur, rhs, aug), aug)

    def call_method(self, m: BoundMethod, node: ast.Call) -> Value:
        return self.inline_func(m.func, node, self_value=self.struct_local(m.self_value, "self"))
