"""Names and attributes in a kernel: what `x`, `x.attr` and `(y := e)` are.

A name resolves through `lookup` (base/names.py) and is read here as the kernel sees it (a local
holding a comparison is a u1, a pure kernel may not read globals); an attribute depends on what it
is taken of (an array, a vector, a struct, a BufferView, a dict, a Python object), and each of those
is delegated to the mixin that knows the value.
"""
from __future__ import annotations

import ast
from types import ModuleType
from typing import Any

from .... import ir
from ....ir.errors import QdCompileError
from ...field import Field
from ...struct_types import StructField
from ...tasks.source import flat_env
from ..values import BufView, KDict, Py, ShapeTuple, StructArr, StructVal, Vec, truthy
from ..base import LoweringBase


class NameLowering(LoweringBase):
    """`v_Name`, `v_Attribute`, `v_NamedExpr` and constants."""

    def v_Constant(self, node):
        if isinstance(node.value, (int, float, bool)):
            return Py(node.value)
        if isinstance(node.value, str) or node.value is None:
            return Py(node.value)
        self.err(node, f"unsupported constant {node.value!r}")

    def v_Name(self, node):
        if self.__dict__.get("pure") and len(self.frames) == 1:
            self.check_pure(node)
        v = self.lookup(node.id, node)
        bools = self.__dict__.get("bool_locals", ())
        if isinstance(v, ir.LocalRef) and id(v.local) in bools:
            return truthy(v)  # a variable holding a comparison is a u1, as in Quadrants
        if isinstance(v, Vec) and any(isinstance(x, ir.LocalRef) and id(x.local) in bools for x in v.items):
            return Vec([truthy(x) if isinstance(x, ir.LocalRef) and id(x.local) in bools else x for x in v.items],
                       v.shape)  # ... and a vector of comparisons a vector of u1
        return v

    def check_pure(self, node) -> None:
        """A pure kernel (`@qd.kernel(pure=True)` or fastcache=True) reads no global number, string or field by
        name in its own body, as Quadrants checks (its fast cache keys on the arguments only); an UPPERCASE
        global only warns there, and so passes here."""
        if any(node.id in scope for scope in self.frame.scopes) or node.id.upper() == node.id:
            return
        env = flat_env(self.frame.env)
        if node.id in env and isinstance(env[node.id], (int, float, str, Field, StructField)):
            v = env[node.id]
            self.err(node, f"[PURE.VIOLATION] WARNING: Accessing global variable {node.id} {type(v)} {node.id} is in "
                           f"global vars, therefore violates pure (pass it as a kernel argument)", QdCompileError)

    def v_NamedExpr(self, node):
        """`(y := e)`: assigns `y` as `y = e` does (a new variable, or a store into an existing one) and is
        the variable's value, as Quadrants' build_NamedExpr."""
        if self.is_static_call(node.value):
            self.frame.scopes[-1][node.target.id] = self.value(node.value)
        else:
            self.assign(node.target, self.value(node.value), node)
        return self.v_Name(ast.copy_location(ast.Name(node.target.id, ast.Load()), node))

    def v_Attribute(self, node):
        listed = self.list_method(node)  # x[i].append(v) on a dynamic SNode's field (sparse.py)
        if listed is not None:
            return listed
        base = self.value(node.value)
        if isinstance(base, ir.ArrayArg) and node.attr == "shape":
            return ShapeTuple(base, base.ndim - self.user_ndim(base))
        if isinstance(base, ir.ArrayArg):
            return self.array_attr(base, node.attr, node)
        if isinstance(base, Vec):
            return self.vec_attr(base, node.attr, node)
        if isinstance(base, StructVal):
            return self.struct_member(base, node.attr, node)
        if isinstance(base, BufView):
            return self.view_attr(base, node.attr, node)
        if isinstance(base, KDict):
            if node.attr not in ("keys", "values", "items"):
                self.err(node, f"a dict in a kernel has keys(), values() and items(), not '{node.attr}'")
            return Py(getattr(base, node.attr))
        if isinstance(base, StructArr):
            if node.attr in ("grad", "dual") and node.attr not in base.members:  # s.grad[i].a: the adjoints' arrays
                return self.struct_adjoint(base, node.attr, node)
            if node.attr == "shape" and "shape" not in base.members:  # s.shape: its first member's index shape
                first = next(iter(base.members.values()))
                while isinstance(first, StructArr):
                    first = next(iter(first.members.values()))
                return ShapeTuple(first, first.ndim - self.user_ndim(first))
            if node.attr not in base.members:
                self.err(node, f"struct field has no member '{node.attr}' (members: {', '.join(base.members)})")
            return base.members[node.attr]
        if isinstance(base, ir.SharedArray) and node.attr == "shape":
            return Py(base.shape)
        if isinstance(base, Py):
            try:
                return self.global_value(getattr(base.value, node.attr), node.attr, node)
            except AttributeError as e:  # a module says which (and qd names what it leaves out, and why)
                self.err(node, str(e) if isinstance(base.value, ModuleType) else
                         f"{type(base.value).__name__} value {base.value!r} has no attribute '{node.attr}'")
        self.err(node, f"attribute '.{node.attr}' is not supported on this value")

    def struct_adjoint(self, arr: StructArr, which: str, node) -> StructArr:
        members: dict[str, Any] = {}
        for k, m in arr.members.items():
            if isinstance(m, StructArr):
                members[k] = self.struct_adjoint(m, which, node)
                continue
            fld = self.kscope.field_objs.get(m.name)
            adj = getattr(fld.adjoints, which) if fld is not None else None
            if adj is not None:
                members[k] = self.kscope.field_arg(adj, adj.name or which)
        if not members:
            self.err(node, f"this struct field has no .{which} (make it with needs_{which}=True; a struct field "
                           f"passed as a qd.template() argument has none in kernels)")
        return StructArr(arr.stype, members)
