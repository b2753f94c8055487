"""Subscripts in a kernel: `x[i, j]` of an array (with its offsets, clamping and element vectors),
`v[k]` of a vector, `s[i]` of a struct field, `x.shape[k]`, and compile-time ones (a dict, a list of
kernel values, a Python sequence).

Array indices are checked and lowered in one place (`indices`), so a field's offset= and an ndarray's
boundary="clamp" apply the same wherever an array is indexed.
"""
from __future__ import annotations

import ast
from itertools import product
from typing import Any

from .... import ir
from ....ir.errors import QuadrantsIndexError
from ....ir.dtypes import i32, u1
from ...field import Storage
from ...struct_types import StructField
from ..values import BufView, KDict, Py, Seq, ShapeTuple, StructArr, UnpackedRef, Vec, cast, is_number, py_value
from ..base import LoweringBase


class SubscriptLowering(LoweringBase):
    """`v_Subscript`, and the array indexing every mixin shares (`indices`, `element_vec`)."""

    def v_Subscript(self, node):
        if isinstance(node.value, ast.Subscript) and isinstance(node.value.value, ast.Name):
            arr = self.value(node.value.value)
            if isinstance(arr, ir.ArrayArg) and arr.name in self.kscope.clamped and self.elem_shape(arr):
                return self.clamped_component(arr, node)
        return self.v_Subscript_of(self.value(node.value), node)

    def v_Subscript_of(self, base, node):
        idx_node = node.slice
        if isinstance(base, ShapeTuple):
            k = self.eval_static(idx_node)
            if not isinstance(k, int) or not (-base.ndim <= k < base.ndim):
                self.err(idx_node, f"shape index must be a constant in range(-{base.ndim}, "
                                   f"{base.ndim}), got {k!r}", QuadrantsIndexError)
            return ir.Shape(base.array, k % base.ndim)
        if isinstance(base, Vec):
            return self.vec_subscript(base, node)
        if isinstance(base, BufView):
            return self.view_subscript(base, node)
        if isinstance(base, UnpackedRef):
            return base.struct.members[self.unpacked_member(base, idx_node)]
        if isinstance(base, StructArr):
            return self.struct_element(base, idx_node, node)
        if isinstance(base, KDict):
            key = self.value(idx_node)
            k = key.value if isinstance(key, Py) else None
            if not isinstance(key, Py) or k not in base.entries:
                self.err(node, f"this dict has no key {k!r} (keys: {', '.join(map(repr, base.entries))}); a dict "
                               "in a kernel takes compile-time keys", QuadrantsIndexError)
            return base.entries[k]
        if isinstance(base, list):  # `[a, b, c][k]`, `[f(j) for j in range(3)][k]`
            base = Seq(base)
        if isinstance(base, Seq):
            key = self.value(idx_node) if not isinstance(idx_node, ast.Slice) else None
            k = key.value if isinstance(key, Py) and is_number(key) else None
            if not isinstance(k, int) or isinstance(k, bool):
                self.err(node, "a list of kernel values takes compile-time indices (a constant, or a "
                               "qd.static loop variable)", QuadrantsIndexError)
            if not -len(base.items) <= k < len(base.items):
                self.err(node, f"index {k} is out of range for a list of {len(base.items)} values",
                         QuadrantsIndexError)
            return base.items[k]
        if isinstance(base, (ir.ArrayArg, ir.SharedArray)):
            idx = self.indices(base, idx_node, partial=True)
            if len(idx) < base.ndim:  # an array of vectors: x[i] is the whole vector
                return self.element_vec(base, idx)
            return ir.Load(base, idx, self.at(node))
        if isinstance(base, Py):
            if isinstance(base.value, (Storage, StructField)):  # FIELDS[0][i]: a field reached through a tuple
                arr = self.global_value(base.value, getattr(base.value, "name", "") or "field", node.value)
                if not isinstance(arr, Py):
                    return self.v_Subscript_of(arr, node)
            k = self.eval_static(idx_node)
            seq: Any = base.value
            try:
                return py_value(seq[k])
            except Exception as e:  # noqa: BLE001 - report the Python error at the user's line
                self.err(node, f"compile-time subscript failed: {e}")
        self.err(node, "only ndarrays, shared arrays and x.shape can be subscripted in a kernel")

    def clamped_component(self, arr: ir.ArrayArg, node: ast.Subscript) -> ir.Expr:
        """`x[i, j][k]` of a boundary="clamp" ndarray of vectors/matrices: the component index is
        clamped into the element as well, as Quadrants clamps every axis of the access."""
        assert isinstance(node.value, ast.Subscript)
        outer = self.indices(arr, node.value.slice, partial=True)
        shape = self.elem_shape(arr)
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(outer) + len(elts) != arr.ndim:
            self.err(node, f"a {'x'.join(map(str, shape))} element of '{arr.name}' takes {len(shape)} "
                           f"index(es), got {len(elts)}", QuadrantsIndexError)
        # Quadrants clamps the element's flat (row-major) component index: m[2, 0] of a 2x2 is m[1, 1]
        flat: ir.Expr = ir.Const(0, i32)
        for e, n in zip(elts, shape):
            x = cast(self.commit(self.value(e), e, like=i32), i32)
            flat = ir.BinOp("+", ir.BinOp("*", flat, ir.Const(n, i32), i32), x, i32)
        size = 1
        for n in shape:
            size *= n
        lo = self.minmax_pair("max", flat, ir.Const(0, i32), node)
        flat_var = self.new_local("comp", i32, self.minmax_pair("min", lo, ir.Const(size - 1, i32), node))
        comps: list[ir.Expr] = []
        rest = size
        for n in shape:
            rest //= n
            comps.append(ir.BinOp("rmod", ir.BinOp("rdiv", ir.LocalRef(flat_var), ir.Const(rest, i32), i32),
                                  ir.Const(n, i32), i32))
        return ir.Load(arr, outer + tuple(comps), self.at(node))

    def element_vec(self, arr, idx) -> Vec:
        shape = self.elem_shape(arr)
        return Vec([ir.Load(arr, idx + tuple(ir.Const(c, i32) for c in comp))
                    for comp in product(*[range(n) for n in shape])], shape)

    def elem_shape(self, arr) -> tuple:
        k = arr.ndim - self.user_ndim(arr) if isinstance(arr, ir.ArrayArg) else 0
        return tuple(self.kscope.elem_shapes.get(arr.name, ())) if k else ()

    def indices(self, arr, idx_node, partial=False) -> tuple[ir.Expr, ...]:
        user = self.user_ndim(arr) if isinstance(arr, ir.ArrayArg) else arr.ndim
        empty = (isinstance(idx_node, ast.Constant) and idx_node.value is None) or \
            (isinstance(idx_node, ast.Tuple) and not idx_node.elts)
        if empty and user <= 1:
            return (ir.Const(0, i32),)  # x[None] / x[()]: a 0-d field or ndarray, stored as one element
        elts = idx_node.elts if isinstance(idx_node, ast.Tuple) else [idx_node]
        vals: list = []
        for e in elts:
            v = self.value(e)
            tup = v.value if isinstance(v, Py) and isinstance(v.value, tuple) else None
            if isinstance(v, Seq) or tup is not None:  # `I = (i, j, k); x[I, b]`: its items spread
                items: list = v.items if isinstance(v, Seq) else [py_value(x) for x in tup or ()]
                for x in items:
                    vals += [(y, e) for y in x.items] if isinstance(x, Vec) else [(x, e)]
                continue
            vals += [(x, e) for x in v.items] if isinstance(v, Vec) else [(v, e)]  # x[I] with I from qd.grouped
        if not vals and user <= 1 and arr.ndim <= 1:
            return (ir.Const(0, i32),)  # x[I] with I from qd.grouped(qd.ndrange()): the 0-d index
        if partial and len(vals) == user and user < arr.ndim:
            pass  # x[i] of an array of vectors: the caller loads the components
        elif user < arr.ndim and len(vals) > user and isinstance(arr, ir.ArrayArg):
            # v[i, k] of a field / ndarray of vectors: Quadrants indexes the element apart (v[i][k])
            kind = "Field" if self.kscope.field_objs.get(arr.name) is not None else "Ndarray"
            self.err(idx_node, f"{kind} with dim {user} accessed with indices of dim {len(vals)} ('{arr.name}' holds "
                               f"vectors or matrices: index the element apart, as {arr.name}[i][k])",
                     QuadrantsIndexError)
        elif len(vals) != arr.ndim:
            self.err(idx_node, f"'{arr.name}' has {arr.ndim} dimension(s) but is indexed with {len(vals)}",
                     QuadrantsIndexError)
        out = []
        off = self.kscope.offsets.get(arr.name, ()) if isinstance(arr, ir.ArrayArg) else ()
        for k, (v, e) in enumerate(vals):
            x = self.commit(v, e, like=i32)
            if not x.dtype.is_int and x.dtype != u1:
                self.err(e, f"array index must be an integer, got {x.dtype!r}")
            x = cast(x, i32)
            if k < len(off) and off[k]:  # a field with offset=: element `off` is stored first
                x = ir.BinOp("-", x, ir.Const(off[k], i32), i32)
            out.append(x)
        if isinstance(arr, ir.ArrayArg) and arr.name in self.kscope.clamped:  # boundary="clamp"
            for k in range(min(user, len(out))):  # the array's own axes; element components stay as given
                hi = ir.BinOp("-", ir.Shape(arr, k), ir.Const(1, i32), i32)
                lo = self.minmax_pair("max", out[k], ir.Const(0, i32), idx_node)
                out[k] = self.minmax_pair("min", lo, hi, idx_node)
        return tuple(out)
