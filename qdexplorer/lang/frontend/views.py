"""`qd.BufferView` inside kernels: `v[i]`, `v.size`, `v.offset`, `v.subview(a, n)`, `v[a:b]` and
`BufferView(arr, offset, size)`, lowered onto the backing array (lang/host/buffer_view.py).

`v[i]` is element `offset + i` of the array. Under `qd.init(debug=True)` each access, subview and
constructed view is checked as Quadrants checks it, with Quadrants' message (its kernel, thread,
values and the call stack of kernel and funcs), and a failure ends the call with
`QuadrantsAssertionError`; without debug nothing is checked, as in Quadrants.
"""
from __future__ import annotations

import ast

from ... import ir
from ..calls import runtime_api
from ...ir.errors import QuadrantsSyntaxError
from ...ir.dtypes import f64, i32, u1
from .base import LoweringBase
from .kernel_scope import ASSERT_VALUES
from .values import BufView, Py, ViewMethod, cast


class ViewLowering(LoweringBase):
    """Mixin for `TaskBuilder`: BufferView values."""

    def view_attr(self, v: BufView, attr: str, node):
        if attr == "size":
            return v.size
        if attr == "offset":
            return v.offset
        if attr == "shape":
            return [v.size]
        if attr == "subview":
            return Py(ViewMethod(v, attr))
        self.err(node, f"a BufferView has no attribute '{attr}' in kernels (it has size, offset, shape, subview)")

    def view_int(self, x, node) -> ir.Expr:
        e = self.commit(self.value(x) if isinstance(x, ast.AST) else x, node, like=i32)
        if not e.dtype.is_int:
            self.err(node, f"a BufferView offset, size or index must be an integer, got {e.dtype!r}")
        return cast(e, i32)

    def view_index(self, v: BufView, idx_node, node) -> tuple:
        """The backing array's index of element `idx_node` of the view (checked in debug mode)."""
        if isinstance(idx_node, ast.Slice):
            self.err(node, "a BufferView slice makes a view (sub = v[a:b]); it cannot be stored to or loaded")
        elts = idx_node.elts if isinstance(idx_node, ast.Tuple) else [idx_node]
        i = self.view_int(elts[0], elts[0])
        rest = tuple(self.view_int(e, e) for e in elts[1:])
        if runtime_api.debug():
            self.view_check(node, [ir.Compare("<", i, ir.Const(0, i32), u1), ir.Compare(">=", i, v.size, u1)],
                            "BufferView Out Of Range: kernel[{kernel}] tid={{0}}, got index {{1}} (offset={{2}}, "
                            "size={{3}}).", [self.view_tid(), i, v.offset, v.size])
        return (ir.BinOp("+", v.offset, i, i32),) + rest

    def view_subscript(self, v: BufView, node):
        """`v[i]` read (a vector element gives its components), or `v[a:b]`, a subview."""
        if isinstance(node.slice, ast.Slice):
            sl = node.slice
            if sl.step is not None:
                self.err(node, "BufferView slicing in kernels does not support an explicit step (write v[a:b])",
                         QuadrantsSyntaxError)
            start = self.view_int(sl.lower, sl.lower) if sl.lower is not None else ir.Const(0, i32)
            stop = self.view_int(sl.upper, sl.upper) if sl.upper is not None else v.size
            return self.subview(v, start, ir.BinOp("-", stop, start, i32), node)
        idx = self.view_index(v, node.slice, node)
        if len(idx) < v.array.ndim:
            return self.element_vec(v.array, idx)
        return ir.Load(v.array, idx, self.at(node))

    def subview(self, v: BufView, offset: ir.Expr, size: ir.Expr, node) -> BufView:
        if runtime_api.debug():
            self.view_check(node, [ir.Compare("<", offset, ir.Const(0, i32), u1),
                                   ir.Compare("<", size, ir.Const(0, i32), u1),
                                   ir.Compare(">", ir.BinOp("+", offset, size, i32), v.size, u1)],
                            "BufferView subview Out Of Range: kernel[{kernel}] tid={{0}}, subview offset={{1}}, "
                            "subview size={{2}}, parent size={{3}}.", [self.view_tid(), offset, size, v.size])
        return BufView(v.array, self.view_value(ir.BinOp("+", v.offset, offset, i32), "view_offset"),
                       self.view_value(size, "view_size"))

    def view_value(self, e: ir.Expr, name: str) -> ir.Expr:
        """A computed offset or size, kept in a local so later uses read it, not recompute it."""
        if isinstance(e, (ir.Const, ir.ScalarArg)):
            return e
        return ir.LocalRef(self.new_local(name, i32, e))

    def view_method(self, m: ViewMethod, node: ast.Call):
        if len(node.args) + len(node.keywords) != 2:
            self.err(node, "v.subview(offset, size) takes two arguments")
        kw = {k.arg: k.value for k in node.keywords}
        given = list(node.args) + [kw.get("offset"), kw.get("size")][len(node.args):]
        args = [a for a in given if a is not None]
        if len(args) != 2:
            self.err(node, "v.subview(offset, size) takes the arguments offset and size")
        return self.subview(m.view, self.view_int(args[0], args[0]), self.view_int(args[1], args[1]), node)

    def construct_view(self, node: ast.Call) -> BufView:
        """`BufferView(arr, offset, size)` of a 1-D ndarray argument, inside a kernel."""
        kw = {k.arg: k.value for k in node.keywords}
        given = list(node.args) + [kw.get(n) for n in ("arr", "offset", "size")][len(node.args):]
        args = [a for a in given if a is not None]
        if len(given) != 3 or len(args) != 3:
            self.err(node, "BufferView(arr, offset, size) takes an ndarray, an offset and a size")
        arr = self.value(args[0])
        if not isinstance(arr, ir.ArrayArg) or self.user_ndim(arr) != 1:
            self.err(args[0], "BufferView(arr, offset, size) in a kernel takes a 1-D ndarray argument")
        offset, size = self.view_int(args[1], args[1]), self.view_int(args[2], args[2])
        if runtime_api.debug():
            length = ir.Shape(arr, 0)
            self.view_check(node, [ir.Compare("<", offset, ir.Const(0, i32), u1),
                                   ir.Compare("<", size, ir.Const(0, i32), u1),
                                   ir.Compare(">", ir.BinOp("+", offset, size, i32), length, u1)],
                            "BufferView construction out of range: offset={{0}}, size={{1}}, ndarray "
                            "length={{2}}.", [offset, size, length], stack=False)
        return BufView(arr, self.view_value(offset, "view_offset"), self.view_value(size, "view_size"))

    def view_tid(self) -> ir.Expr:
        return cast(self.thread_ids[0], i32) if self.thread_ids else ir.Const(0, i32)

    def view_callstack(self, node) -> str:
        """Quadrants' callstack of a BufferView message: the kernel, then each func it went through,
        each with the line it was at."""
        lines = []
        for depth, fr in enumerate(self.frames):
            at = getattr(fr, "call_at", None) if depth + 1 < len(self.frames) else None
            where = at or self.at(node)
            name = getattr(fr.src.fn, "__name__", "?")
            lines.append("  " * depth + f"{name} ({where})")
        return "\n".join(lines)

    def view_check(self, node, fails: list, message: str, values: list, stack: bool = True):
        """Debug mode: if any of `fails` holds, the call fails with `message` (its `{k}` fields the
        runtime `values`), as a failed assert does."""
        kernel = getattr(self.frames[0].src.fn, "__name__", self.kernel_name)
        stack_text = self.view_callstack(node).replace("{", "{{").replace("}", "}}")
        text = message.format(kernel=kernel) + (f"\nCallstack:\n{stack_text}" if stack else "")
        ints = [True] * len(values)
        file, line, *_ = self.frame.src.where(node)
        self.kscope.assert_sites.append((f"{file}:{line}: ".replace("{", "{{").replace("}", "}}") + text, ints))
        site = len(self.kscope.assert_sites)
        flag, store = self.kscope.assert_flag(), self.kscope.assert_values()
        body: list[ir.Stmt] = [ir.Store(store, (ir.Const(k, i32),), cast(x, f64))
                               for k, x in enumerate(values[:ASSERT_VALUES])]
        body.append(ir.Store(flag, (ir.Const(0, i32),), ir.Const(site, i32)))
        cond = fails[0]
        for c in fails[1:]:
            cond = ir.BinOp("or", cond, c, u1)
        self.emit(ir.If(cond, body, []))
