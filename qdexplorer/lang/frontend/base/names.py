"""What a name in a kernel or func stands for: a local, a kernel-scope variable another task made, or
a Python global (a field becomes its array, anything else a compile-time value).

One resolver for every mixin, so that a name means the same in an expression, a store and a
`qd.static(...)`; the errors say why a name is not there (another task's local, a block-scoped one).
"""
from __future__ import annotations

import ast

from .... import ir
from ...calls import runtime_api
from ....ir.errors import QuadrantsNameError
from ...field import Storage
from ...struct_types import StructField
from ....ir.dtypes import i32
from ..values import BufView, Py, StructArr, py_value
from .contract import ExprContract
from .diagnostics import Diagnostics


class NameResolution(Diagnostics, ExprContract):
    """Names → values, in the innermost frame's scopes, then the kernel's scope, then Python's."""

    def lookup(self, name, node):
        for scope in reversed(self.frame.scopes):
            if name in scope:
                v = scope[name]
                if isinstance(v, Py) and isinstance(v.value, (Storage, StructField)):  # b = qd.static(a): a field
                    return self.global_value(v.value, name, node)
                return ir.LocalRef(v) if isinstance(v, ir.Local) else v
        if len(self.frames) == 1 and name in self.kscope.view_arrays:  # a BufferView another task made
            off, size = self.kscope.gtemp(f"{name}.offset"), self.kscope.gtemp(f"{name}.size")
            if off is not None and size is not None:
                zero = (ir.Const(0, i32),)
                return BufView(self.kscope.view_arrays[name], ir.Load(off, zero), ir.Load(size, zero))
        if len(self.frames) == 1 and name in self.kscope.gtemp_names:
            arr = self.kscope.gtemp(name)
            if arr is None:
                self.err(node, f"kernel-scope variable '{name}' is used before a task assigns it")
            if arr.ndim > 1:
                return self.element_vec(arr, (ir.Const(0, i32),))
            return ir.Load(arr, (ir.Const(0, i32),))
        if name in self.frame.env:
            self.check_global_float(name, self.frame.env[name], node)
            return self.global_value(self.frame.env[name], name, node)
        fdef = getattr(self.frame.src, "fdef", None)
        line = getattr(node, "lineno", -1)
        top = next((st for st in getattr(fdef, "body", ()) if st.lineno <= line <= (st.end_lineno or st.lineno)), None)
        if len(self.frames) == 1 and name in self.other_task_names and not (top and _assigns(top, name)):
            self.err(node, f"'{name}' is assigned in another offloaded task of this kernel; each top-level "
                           f"loop and each run of top-level statements is its own task, so locals do not "
                           f"cross them (pass the value through an ndarray)")
        if fdef is not None and _assigns(fdef, name):  # it exists, in a block this use cannot see
            self.err(node, f"name '{name}' is not defined here (kernel variables are block-scoped: "
                           f"assign it before the block that uses it)", QuadrantsNameError)
        self.err(node, f"name '{name}' is not defined (not an argument, a local or a global of this function)",
                 QuadrantsNameError)

    def check_global_float(self, name: str, v, node) -> None:
        """`qd.init(raise_on_templated_floats=True)`: a kernel may not read a Python float global (it
        would be baked into the code, so changing it later would silently not take), as Quadrants."""
        if isinstance(v, float) and runtime_api.init_options().get("raise_on_templated_floats"):
            self.err(node, f"Not permitted to access floats as global values: '{name}' is {v!r} "
                           f"(qd.init(raise_on_templated_floats=True)); pass it as an argument")

    def global_value(self, v, name: str, node=None):
        """A Python object a kernel reaches (a global, a closure value, an attribute of one): a field
        becomes its array, a struct field one array per member, anything else a compile-time value."""
        if isinstance(v, Storage) and v.shape is None:
            self.err(node, f"field '{name}' was made without shape= and is not placed: place it in an SNode tree "
                           f"(qd.root.dense(qd.i, n).place({name})) before the kernel runs, or give it a shape=")
        if isinstance(v, Storage):  # a field, or a qd.ndarray reached at compile time (`self.x`)
            return self.kscope.field_arg(v, name)
        if isinstance(v, StructField):
            return StructArr(v.struct_type, {k: self.global_value(m, f"{name}_{k}") for k, m in v.members.items()})
        return py_value(v)


def _assigns(tree, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(tree))
