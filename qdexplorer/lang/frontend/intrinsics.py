"""`qd.*` intrinsics inside kernels: math (`qd.sqrt`, `qd.floor`...), atomics, and the block-level
SIMT features (thread indices, barriers, shared arrays)."""
from __future__ import annotations

import ast

from .. import intrinsics as I
from .. import ir
from ..types import as_dtype, f32, f64, i64, promote
from .values import ATOMIC_OPS, FLOAT_ONLY_MATH, Py, cast, is_number


class IntrinsicLowering:
    """Mixin for `TaskBuilder`: lowers calls of `qd.*` intrinsic objects."""

    def intrinsic(self, f: I.Intrinsic, node):
        if f.kind == "math":
            args = [self.value(a) for a in node.args]
            if len(args) != (f.nargs or 1):
                self.err(node, f"qd.{f.name}() takes {f.nargs or 1} argument(s)")
            if all(is_number(a) for a in args):
                return Py(f(*[a.value for a in args]))
            es = [self.commit(a, node) for a in args]
            if len(es) == 2:
                es = list(self.pair(*args, node))
            dt = es[0].dtype if len(es) == 1 else promote(es[0].dtype, es[1].dtype)
            if f.name in FLOAT_ONLY_MATH and not dt.is_float:
                dt = f64 if dt == i64 else f32
            if f.name in ("floor", "ceil", "round") and not dt.is_float:
                return es[0]
            return ir.MathCall(f.name, tuple(cast(e, dt) for e in es), dt)
        if f.kind == "atomic":
            if len(node.args) != 2:
                self.err(node, f"qd.{f.name}(x[i], value) takes two arguments")
            target = node.args[0]
            if not isinstance(target, ast.Subscript):
                self.err(target, f"qd.{f.name}'s first argument must be an array element like x[i]")
            arr = self.value(target.value)
            if not isinstance(arr, (ir.ArrayArg, ir.SharedArray)):
                self.err(target, f"qd.{f.name} needs an ndarray or shared-array element")
            idx = self.indices(arr, target.slice)
            val = cast(self.commit(self.value(node.args[1]), node, like=arr.dtype), arr.dtype)
            return ir.AtomicRMW(ATOMIC_OPS[f.name], arr, idx, val)
        if f.kind == "simt":
            self.require_block_features(node, f"qd.simt.block.{f.name}()")
            return ir.SimtIndex(f.name)
        if f.kind == "barrier":
            self.require_block_features(node, f"qd.simt.block.{f.name}()")
            self.emit(ir.Barrier())
            return Py(None)
        if f.kind == "shared":
            self.require_block_features(node, "qd.simt.block.SharedArray")
            if len(node.args) != 2:
                self.err(node, "SharedArray(shape, dtype) takes two arguments")
            shape = self.eval_static(node.args[0])
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            dt = as_dtype(self.eval_static(node.args[1]))
            if dt is None or not shape or not all(isinstance(s, int) and s > 0 for s in shape):
                self.err(node, "SharedArray needs a constant positive shape and a qd dtype")
            return self.shared_array(shape, dt)
        self.err(node, f"qd.{f.name}() is not supported here")
