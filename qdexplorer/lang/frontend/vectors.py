"""Small vectors and matrices in kernels, lowered to one scalar per component (Quadrants' `qd.Vector`,
`qd.Matrix`, `qd.math.vec3`...): no vector type reaches the IR, so codegen is unchanged."""
from __future__ import annotations

import ast

from .. import ir
from ..errors import QuadrantsIndexError
from ..types import i32, u1
from .values import Py, Vec, cast, is_number


class VectorLowering:
    """Mixin for `TaskBuilder`: component access and arithmetic on `Vec` values."""

    def vec_subscript(self, v: Vec, node):
        idx = node.slice
        elts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
        if len(elts) > len(v.shape):
            self.err(node, f"a {'x'.join(map(str, v.shape))} value takes at most {len(v.shape)} indices",
                     QuadrantsIndexError)
        keys = [self.value(e) for e in elts]
        rows = v.shape[1] if len(v.shape) == 2 else 1
        if len(v.shape) == 2 and len(keys) == 1:  # m[i]: row i
            return self._pick([Vec(v.items[r * rows:(r + 1) * rows]) for r in range(v.shape[0])], keys[0], node)
        if len(keys) == 2:
            flat = keys[0]
            if is_number(flat) and is_number(keys[1]):
                return self._pick(v.items, Py(flat.value * rows + keys[1].value), node)
            k0 = self.commit(keys[0], node, like=i32)
            k1 = self.commit(keys[1], node, like=i32)
            flat = ir.BinOp("+", ir.BinOp("*", cast(k0, i32), ir.Const(rows, i32), i32), cast(k1, i32), i32)
            return self._pick(v.items, flat, node)
        return self._pick(v.items, keys[0], node)

    def _pick(self, items, key, node):
        if is_number(key):
            k = key.value
            if not isinstance(k, int) or not -len(items) <= k < len(items):
                self.err(node, f"index {k!r} is out of range for {len(items)} components", QuadrantsIndexError)
            return items[k]
        k = cast(self.commit(key, node, like=i32), i32)
        if any(isinstance(it, Vec) for it in items):
            self.err(node, "a matrix row index must be a compile-time constant")
        items = [self.commit(it, node) for it in items]
        acc = items[-1]
        dt = acc.dtype
        for j in range(len(items) - 2, -1, -1):
            acc = ir.Select(ir.Compare("==", k, ir.Const(j, i32), u1), cast(items[j], dt), acc, dt)
        return acc
