"""Expression lowering: names, attributes, subscripts and operators → typed Task IR expressions.

Calls live in `calls.py` and `intrinsics.py`; the value rules (weak literals, casts) in `values.py`.
"""
from __future__ import annotations

import ast
import dataclasses
from types import ModuleType
from typing import Any
from itertools import product

from ... import ir
from .. import intrinsics as I
from ..calls import runtime_api
from ...ir.errors import QdCompileError, QuadrantsIndexError, QuadrantsSyntaxError, QuadrantsTypeError
from ...ir.dtypes import DType, f16, f32, f64, i32, i64, int_range, u1, promote
from .values import broadcast, BINOPS, CMPOPS, BufView, KDict, Py, DictKey, Seq, ShapeTuple, StructArr, StructVal, UnpackedRef, Vec, cast, default_types, fold, is_number, literal, operand_literal, py_value, truthy
from .base import LoweringBase, Value


_OVERFLOW = ("+", "-", "*", "<<")  # the integer operations debug mode checks for overflow, as Quadrants


class ExprLowering(LoweringBase):
    """Mixin for `TaskBuilder`: turns AST expressions into IR, emitting statements as needed."""

    # -- helpers the builder provides: err, lookup, emit, new_local, eval_static, inline_func,
    #    in_parallel, shared_array

    def expr(self, node) -> ir.Expr:
        """Lower `node` and commit it to a typed IR expression."""
        return self.commit(self.value(node), node)

    def commit(self, v, node, like: DType | None = None) -> ir.Expr:
        if isinstance(v, ir.Expr):
            return v
        if is_number(v):
            return literal(v.value, like)
        if isinstance(v, Vec):
            self.err(node, f"expected a scalar value here, got a {'x'.join(map(str, v.shape))} vector/matrix",
                     QuadrantsTypeError)
        if isinstance(v, (list, Seq)):
            n = len(v.items if isinstance(v, Seq) else v)
            self.err(node, f"expected a scalar value here, got a list of {n} values", QuadrantsTypeError)
        what = "an ndarray" if isinstance(v, (ir.ArrayArg, ir.SharedArray)) else repr(getattr(v, "value", v))
        self.err(node, f"expected a scalar value here, got {what}")

    def value(self, node):
        method = getattr(self, "v_" + type(node).__name__, None)
        if method is None:
            what = _EXPR_NAMES.get(type(node).__name__, f"'{type(node).__name__}'")
            self.err(node, f"unsupported expression {what} in a kernel")
        return method(node)

    # ---- leaves
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

    def v_Tuple(self, node):
        items = [self.value(e) for e in node.elts]
        if all(isinstance(i, Py) for i in items):
            return Py(tuple(i.value for i in items))
        return items  # a tuple of runtime values; only valid as an assignment source

    v_List = v_Tuple

    def v_ListComp(self, node):
        """`[w[i] * x for i in range(3)]`: a list of kernel values, unrolled; its iterable (and any
        `if`) must be known at compile time, as for a `qd.static` loop."""
        out: list = []
        self.comprehension(node.generators, 0, lambda: out.append(self.value(node.elt)))
        return out

    def comprehension(self, gens, k: int, body) -> None:
        """The `for`s of a comprehension, nested left to right (`[i * j for i in range(2) for j in
        range(i)]`), each iterable known at compile time or a kernel vector (its components), each `if`
        a compile-time test, as Quadrants unrolls them (process_generators)."""
        if k == len(gens):
            body()
            return
        gen = gens[k]
        if gen.is_async:
            self.err(gen.iter, "an async comprehension is not supported in a kernel")
        try:
            items = list(self.eval_static(gen.iter))  # Python values
            wrap: Any = py_value
        except (QdCompileError, TypeError):
            try:
                v = self.value(gen.iter)
            except QdCompileError:
                v = None
            if not isinstance(v, Vec):
                self.err(gen.iter, "a list comprehension in a kernel iterates over a compile-time sequence "
                                   "(range(3), a tuple, qd.static(...)) or a vector; use a for loop for a runtime one")
            items, wrap = list(v.items), (lambda x: x)  # kernel values, as they are
        names = self.frame.src.target_names(gen.target)
        for item in items:
            vals = item if len(names) > 1 else (item,)
            self.frame.scopes.append({n.id: wrap(x) for n, x in zip(names, vals)})
            try:
                if all(self.static_truth(c) for c in gen.ifs):
                    self.comprehension(gens, k + 1, body)
            finally:
                self.frame.scopes.pop()

    def v_Dict(self, node):
        """`{"a": x, "b": y}`: keys known at compile time, values evaluated now into locals."""
        if any(k is None for k in node.keys):
            self.err(node, "**unpacking in a dict literal is not supported in a kernel")
        return KDict({self.dict_key(k): self.held(self.value(v), node) for k, v in zip(node.keys, node.values)})

    def v_DictComp(self, node):
        """`{k: v for j in range(3) if ...}`: unrolled like a list comprehension (compile-time iterable)."""
        out: dict = {}
        for scope in self.comprehension_scopes(node):
            self.frame.scopes.append(scope)
            try:
                if all(self.static_truth(c) for c in node.generators[0].ifs):
                    out[self.dict_key(node.key)] = self.held(self.value(node.value), node)
            finally:
                self.frame.scopes.pop()
        return KDict(out)

    def comprehension_scopes(self, node) -> list[dict]:
        gens = node.generators
        if len(gens) != 1 or gens[0].is_async:
            self.err(node, "a comprehension in a kernel takes one 'for'")
        try:
            items = list(self.eval_static(gens[0].iter))
        except (QdCompileError, TypeError):
            self.err(gens[0].iter, "a comprehension in a kernel iterates over a compile-time sequence "
                                   "(range(3), a tuple, qd.static(...)); use a for loop for a runtime one")
        names = self.frame.src.target_names(gens[0].target)
        return [{n.id: py_value(x) for n, x in zip(names, item if len(names) > 1 else (item,))} for item in items]

    def dict_key(self, node):
        k = self.value(node)
        if isinstance(k, Py):
            try:
                hash(k.value)
                return k.value
            except TypeError:
                self.err(node, f"a dict key must be hashable, got {type(k.value).__name__}")
        return DictKey(k)

    def held(self, v, node):
        """A value kept in a container: a kernel scalar or vector in a local, a compile-time one as it is."""
        if isinstance(v, Vec):
            return self.vec_local(v, "item")
        if isinstance(v, ir.Expr):
            return ir.LocalRef(self.new_local("item", v.dtype, v))
        return v

    def static_truth(self, cond) -> bool:
        v = self.value(cond)
        if isinstance(v, ir.Const):
            return bool(v.value)
        if not is_number(v):
            self.err(cond, "the 'if' of a list comprehension in a kernel must be known at compile time")
        return bool(v.value)

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
            from ..field import Storage
            from ..struct_types import StructField
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

    # ---- operators
    def v_BinOp(self, node):
        op = BINOPS.get(type(node.op))
        if op is None:
            self.err(node, f"operator {type(node.op).__name__} is not supported")
        a, b = self.value(node.left), self.value(node.right)
        if is_number(a) and is_number(b) and op != "@":
            return Py(fold(op, a.value, b.value))
        sa, sb = _py_seq(a), _py_seq(b)  # `[0.0] * 3`, `[a, b] + [c]`: Python's list operators, as in Quadrants
        if op == "*" and (sa is None) != (sb is None) and is_number(b if sb is None else a) and \
                isinstance((b if sb is None else a).value, int):
            items = (sa if sb is None else sb) * (b if sb is None else a).value
        elif op == "+" and sa is not None and sb is not None:
            items = sa + sb
        else:
            return self.binop(op, a, b, node)
        return Py(tuple(x.value for x in items)) if all(isinstance(x, Py) for x in items) else items

    def check_negative_exponent(self, exp: ir.Expr, node) -> None:
        """Quadrants' debug mode raises QuadrantsRuntimeError for `int ** negative int` (the result
        would not be an integer); the call fails the way a failed assert does."""
        e = self.commit(exp, node)
        site = self.kscope.check_site(self.frame.src, node, "Negative exponent in pow(int, int) is not allowed")
        flag = self.kscope.assert_flag()
        self.emit(ir.If(ir.Compare("<", e, ir.Const(0, e.dtype), u1),
                        [ir.Store(flag, (ir.Const(0, i32),), ir.Const(site, i32))], []))

    def weakened_pow(self, base: ir.Expr, n: float, dt: DType, node) -> Value | None:
        """`x ** c` for a constant c, as Quadrants' algebraic simplifier rewrites it before anything
        else sees it (so before autodiff too): c = 1 is x, 0 is 1, 0.5 is sqrt(x), a whole c in
        [1, 32] is exponentiation by squaring (x * (x * x) for 3, (x * x) * (x * x) for 4), -c is 1 /
        that; None for any other c. Each power is a local, as each is one statement there, so that
        reverse mode sums its adjoints in Quadrants' order."""
        n = float(n)
        if n == 0.5:
            return self.apply_math(I.sqrt, [cast(base, dt)], node)
        if n != round(n) or abs(n) > 32:
            return None
        if n == 0:
            return ir.Const(1.0, dt)
        k, bit, result = int(abs(n)), 1, None
        base = cast(base, dt)
        # the base itself where it is a variable already (its adjoint then takes each product's share
        # in turn, as Quadrants' base statement does), else computed once into a local
        p: Value = base if isinstance(base, (ir.LocalRef, ir.Const)) else ir.LocalRef(self.new_local("pow", dt, base))
        while True:
            if k & bit:
                result = p if result is None else ir.LocalRef(self.new_local(
                    "pow", dt, self.commit(self.binop("*", result, p, node), node)))
            bit <<= 1
            if bit > k:
                break
            p = ir.LocalRef(self.new_local("pow", dt, self.commit(self.binop("*", p, p, node), node)))
        return result if n > 0 else self.binop("/", ir.Const(1.0, dt), result, node)

    def binop(self, op, a, b, node) -> Value:
        if isinstance(a, (ir.ArrayArg, StructArr)) or isinstance(b, (ir.ArrayArg, StructArr)):
            self.err(node, f"unsupported operand type(s) for {op}: a whole field or ndarray is not a value in a "
                           f"kernel; index it (x[i], x[None] for a 0-d one)", QuadrantsTypeError)
        if isinstance(a, Vec) != isinstance(b, Vec):  # v + [x, y, z]: the list is a vector, as in Quadrants
            a, b = (_as_vec(x) if isinstance(x, list) or (isinstance(x, Py) and isinstance(x.value, (list, tuple)))
                    else x for x in (a, b))
        if isinstance(a, Vec) or isinstance(b, Vec) or op == "@":
            return self.vec_binop(op, a, b, node)
        ea, eb = self.pair(a, b, node)
        if ea.dtype == u1 and (eb.dtype == u1 or op in ("<<", ">>")) and op in ("+", "-", "*", "<<", ">>"):
            # u1 op u1 is a u1 in Quadrants (a comparison's type), computed in one bit: (a < b) + (b < c) is 0
            # when both hold, (a < b) - (b < c) is 1 when just one does, (a < b) << 1 is 0
            wide = ir.BinOp(op, cast(ea, i32), cast(eb, i32), i32)
            return ir.Compare("!=", ir.BinOp("&", wide, ir.Const(1, i32), i32), ir.Const(0, i32), u1)
        dt = promote(ea.dtype, eb.dtype)
        if op in ("<<", ">>") and ea.dtype.is_int and eb.dtype.is_int:
            dt = ea.dtype  # a shift keeps its left operand's type in Quadrants: u8(255) << 4 is 240
        if op == "**" and eb.dtype.is_int and (ea.dtype.is_int or ea.dtype.is_float):
            dt = ea.dtype  # an integral exponent keeps the base's type (qd.pow's rule): u8(9) ** 4 is 161
        if op == "**" and dt.is_int:  # integer ** integer stays an integer, as in Quadrants (never via float)
            if runtime_api.debug() and eb.dtype.kind == "i":
                self.check_negative_exponent(cast(eb, dt), node)
            ex = eb
            if eb.dtype.kind == "i" and not (isinstance(eb, ir.Const) and eb.value >= 0):
                # Quadrants 1.3.3 on the CPU (no debug): a negative exponent counts by its magnitude,
                # 9 ** -4 is 6561 and 2 ** -1 is 2 (its docs say 1; the compiled code squares |e| times)
                ex = ir.UnOp("abs", eb, eb.dtype)
            return ir.MathCall("ipow", (cast(ea, dt), cast(ex, dt)), dt)
        if op in ("/", "**") and not dt.is_float:  # integers divide in qd.init's default_fp, as Quadrants
            dt = f64 if dt == i64 else default_types()[1]
        if op == "**":
            n = b.value if is_number(b) else eb.value if isinstance(eb, ir.Const) else None
            weak = self.weakened_pow(ea, n, dt, node) if isinstance(n, (int, float)) else None
            if weak is not None:
                return weak
            if is_number(b) and isinstance(b.value, int) and not isinstance(b.value, bool):
                eb = ir.Const(b.value, i32 if -2**31 <= b.value < 2**31 else i64)  # a literal stays an integer
            if eb.dtype.is_int:  # Quadrants' demote_operations: a loop of squarings, 1 / it for a negative one
                return ir.MathCall("fipow", (cast(ea, dt), eb), dt)
        if op in ("&", "|", "^", "<<", ">>") and not dt.is_int:
            self.err(node, f"unsupported operand type(s) for '{op}': '{ea.dtype.name}' and '{eb.dtype.name}' "
                           f"(bitwise operator '{op}' needs integer operands, got {dt!r})", QuadrantsTypeError)
        if dt == f16:  # half precision is a storage type: compute in f32, round the result, as GPUs do;
            # an integer operand becomes an f16 first, as in Quadrants (u16 60149 is 60160 in f16, and
            # 60160 - 15.25 rounds to 60160; through f32 alone it was 60128)
            wa, wb = cast(cast(ea, f16), f32), cast(cast(eb, f16), f32)
            if op in ("//", "%"):
                return self.half_floor_div_mod(op, wa, wb, node)
            return cast(self.binop(op, wa, wb, node), f16)
        if op == "**":
            return ir.MathCall("pow", (cast(ea, dt), cast(eb, dt)), dt)
        if op in _OVERFLOW and dt.is_int and dt != u1 and runtime_api.debug():
            return self.checked_int_op(op, cast(ea, dt), cast(eb, dt), dt, node)
        return ir.BinOp(op, cast(ea, dt), cast(eb, dt), dt)

    def half_floor_div_mod(self, op, wa, wb, node) -> ir.Expr:
        """f16 `//` and `%` as Quadrants computes them, each step rounded to f16: a // b is
        floor(f16(a / b)) (50880 // 38 is 1339, not 1338), a % b is f16(a - f16(b * (a // b)))."""
        la = ir.LocalRef(self.new_local("h", f32, wa))
        lb = ir.LocalRef(self.new_local("h", f32, wb))
        quot = cast(cast(self.binop("/", la, lb, node), f16), f32)
        floor = cast(self.binop("//", quot, ir.Const(1.0, f32), node), f16)  # floor(q / 1) is floor(q)
        if op == "//":
            return floor
        prod = cast(cast(self.binop("*", lb, cast(floor, f32), node), f16), f32)
        return cast(self.binop("-", la, prod, node), f16)

    def checked_int_op(self, op: str, a: ir.Expr, b: ir.Expr, dt, node) -> ir.Expr:
        """Debug mode, as Quadrants: an integer `+ - * <<` that overflows its type prints
        "Addition overflow detected in File ..., line N, in f:" with the line, and the kernel goes on
        with the wrapped value."""
        def held(e: ir.Expr, name: str) -> ir.Expr:
            return e if isinstance(e, (ir.Const, ir.LocalRef, ir.ScalarArg)) else ir.LocalRef(self.new_local(name, dt, e))
        a, b = held(a, "ova"), held(b, "ovb")
        r = ir.LocalRef(self.new_local("ovr", dt, ir.BinOp(op, a, b, dt)))
        signed, zero = dt.kind == "i", ir.Const(0, dt)

        def cmp(o, x, y):
            return ir.Compare(o, x, y, u1)

        def both(x, y):
            return ir.BinOp("and", x, y, u1)
        if op == "+":
            bad = cmp("<", ir.BinOp("&", ir.BinOp("^", r, a, dt), ir.BinOp("^", r, b, dt), dt), zero) if signed \
                else cmp("<", r, a)
        elif op == "-":
            bad = cmp("<", ir.BinOp("&", ir.BinOp("^", a, b, dt), ir.BinOp("^", a, r, dt), dt), zero) if signed \
                else cmp("<", a, b)
        elif op == "*":  # r / a != b, with a = 0 (never overflows) and, signed, a = -1 (only b = MIN) apart
            minus1 = cmp("==", a, ir.Const(-1, dt)) if signed else ir.Const(0, u1)
            unsafe = ir.BinOp("or", cmp("==", a, zero), minus1, u1)
            safe_a = ir.Select(unsafe, ir.Const(1, dt), a, dt)
            wrong = cmp("!=", ir.BinOp("//", r, safe_a, dt), b)
            at_min = cmp("==", b, ir.Const(int_range(dt)[0], dt)) if signed else ir.Const(0, u1)
            bad = both(cmp("!=", a, zero), ir.Select(minus1, at_min, wrong, u1))
        else:  # <<: shifting back does not give the operand
            bad = cmp("!=", ir.BinOp(">>", r, b, dt), a)
        file, line, col, text = self.frame.src.where(node)
        end = getattr(node, "end_col_offset", None)
        span = max((end - getattr(node, "col_offset", 0)) if end is not None and getattr(node, "end_lineno", None)
                   == getattr(node, "lineno", None) else 1, 1)
        fn = getattr(self.frame.src.fn, "__name__", self.kernel_name)
        what = {"+": "Addition", "-": "Subtraction", "*": "Multiplication", "<<": "Shift left"}[op]
        msg = (f'{what} overflow detected in File "{file}", line {line}, in {fn}:\n{text.rstrip()}\n'
               f"{' ' * col}{'^' * span}\n\n")
        self.emit(ir.If(bad, [ir.Print((msg,))], []))
        return r

    def pair(self, a, b, node):
        if is_number(a) and not is_number(b):
            eb = self.commit(b, node)
            return operand_literal(a.value, eb.dtype), eb
        if is_number(b) and not is_number(a):
            ea = self.commit(a, node)
            return ea, operand_literal(b.value, ea.dtype)
        return self.commit(a, node), self.commit(b, node)

    def v_UnaryOp(self, node):
        v = self.value(node.operand)
        if isinstance(v, Vec):
            return Vec([self.unary(node, x) for x in v.items], v.shape)
        return self.unary(node, v)

    def unary(self, node, v):
        if is_number(v):
            return Py({ast.USub: lambda x: -x, ast.UAdd: lambda x: x, ast.Not: lambda x: not x,
                       ast.Invert: lambda x: ~x}[type(node.op)](v.value))
        e = self.commit(v, node)
        if e.dtype == u1 and isinstance(node.op, (ast.USub, ast.Invert)):  # one bit: -p is p, ~p is not p
            return e if isinstance(node.op, ast.USub) else ir.UnOp("not", e, u1)
        if isinstance(node.op, ast.USub):
            return ir.UnOp("neg", e, e.dtype)
        if isinstance(node.op, ast.UAdd):
            return e
        if isinstance(node.op, ast.Not):
            if e.dtype.is_float:  # Quadrants' logical_not is integral-only (`not 1.0` is a type error)
                self.err(node, f"'not' (logical_not) takes integral inputs only, got {e.dtype!r}", QuadrantsTypeError)
            return ir.UnOp("not", truthy(e), u1)
        if not e.dtype.is_int:
            self.err(node, f"'~' (bit_not) takes integral inputs only, got {e.dtype!r}", QuadrantsTypeError)
        return ir.UnOp("bitnot", e, e.dtype)

    def v_Compare(self, node):
        for op in node.ops:  # Python's identity and membership tests are compile-time only, as in Quadrants
            if isinstance(op, (ast.Is, ast.IsNot)):
                self.err(node, f'Operator "{"is" if isinstance(op, ast.Is) else "is not"}" in Quadrants scope is not '
                               f"supported. (write qd.static(a is None) for a compile-time test)", QuadrantsSyntaxError)
            if isinstance(op, (ast.In, ast.NotIn)):
                self.err(node, f'"{type(op).__name__}" is only supported inside `qd.static`. (write '
                               f"qd.static(a in (...)) for a compile-time test)", QuadrantsSyntaxError)
        result: Any = None
        left = self.value(node.left)
        if isinstance(left, Py) and (not is_number(left) or any(type(op) not in CMPOPS for op in node.ops)):
            return self.static_compare(node, left)
        for op, right_node in zip(node.ops, node.comparators):
            opname = CMPOPS.get(type(op))
            if opname is None:
                self.err(node, f"comparison '{type(op).__name__}' is not supported in kernels")
            right = self.value(right_node)
            if isinstance(left, Vec) or isinstance(right, Vec) or isinstance(result, Vec):
                # `a <= x <= b` of vectors: componentwise comparisons joined componentwise, as Quadrants
                # lowers a chain to `(a <= x) and (x <= b)` on each component
                step = self.vec_binop(opname, left, right, node) if isinstance(left, Vec) or isinstance(right, Vec) \
                    else cast(self.commit(self.scalar_binop(opname, left, right, node), node), i32)
                result = step if result is None else self.vec_binop_with(
                    lambda p, q: self.binop("&", cast(self.commit(p, node), i32), cast(self.commit(q, node), i32), node),
                    result if isinstance(result, Vec) else cast(result, i32), step, node, "a chained comparison")
                left = right
                continue
            c: ir.Expr
            if is_number(left) and is_number(right):
                holds = eval(f"a {opname} b", {}, {"a": left.value, "b": right.value})  # noqa: S307
                c = ir.Const(int(holds), u1)
            else:
                ea, eb = self.pair(left, right, node)
                dt = promote(ea.dtype, eb.dtype)
                c = ir.Compare(opname, cast(ea, dt), cast(eb, dt), u1)
            result = c if result is None else ir.BinOp("and", result, c, u1)
            left = right
        return result

    def static_compare(self, node, left: Py) -> Py:
        """A comparison of compile-time values that are not numbers (`if dt == qd.f32:` on a closure
        dtype, `mode == "fast"`): Python decides it, as a `qd.static(...)` would."""
        values = [left.value]
        for c in node.comparators:
            v = self.value(c)
            if not isinstance(v, Py):
                self.err(c, f"cannot compare the compile-time value {left.value!r} with a kernel value")
            values.append(v.value)
        names = [f"v{k}" for k in range(len(values))]
        text = names[0] + "".join(f" {_PY_CMPOPS[type(op)]} {n}" for op, n in zip(node.ops, names[1:]))
        try:
            return Py(bool(eval(text, {}, dict(zip(names, values)))))  # noqa: S307
        except Exception as e:  # noqa: BLE001 - reported at the user's line
            self.err(node, f"comparing compile-time values failed: {type(e).__name__}: {e}")

    def v_BoolOp(self, node):
        """`a and b` / `a or b` give an operand's value, as in Python and Quadrants (`2 and 3` is 3), and
        short-circuit as Quadrants does by default (`short_circuit_operators=True`): `b` runs only when
        `a` does not decide, so `i < n and x[i] > 0` never loads `x[n]`, and a `@qd.func` in `b` with
        side effects runs only when Python would call it. A `b` that can neither fault nor have effects
        keeps the branch-free form (a select, or `and`/`or` of two u1), which gives the same result."""
        is_and = isinstance(node.op, ast.And)
        word = "and" if is_and else "or"
        acc = self.value(node.values[0])
        for v_node in node.values[1:]:
            eager = self.effectful(v_node)
            if is_number(acc):  # decided at compile time, like Python's short circuit
                if bool(acc.value) == is_and:
                    acc = self.value(v_node)
                elif eager:  # Quadrants builds every operand: a func's statements run all the same, but
                    # its simplifier drops what is unused and has no effect before any check is added
                    # (`False and explode()` never bounds-checks explode's a[-1] under debug=True)
                    self.out.append([])
                    try:
                        self.value(v_node)
                    finally:
                        for s in _effects_only(self.out.pop()):
                            self.emit(s)
                continue
            self.out.append([])  # the statements `b` needs run only when `a` does not decide
            made = len(self.made_locals)
            try:
                v = self.value(v_node)
                vec = isinstance(acc, Vec) or isinstance(v, Vec)
                a, b = (None, None) if vec else self.pair(acc, v, node)
            finally:
                b_stmts = self.out.pop()
            if eager:  # Quadrants builds `b` before it combines: a @qd.func's statements (and an atomic's, a
                # qd.random's, a `:=`) run whether or not `a` decides; only b's value is taken lazily
                for s in b_stmts:
                    self.emit(s)
                b_stmts = []
            if vec:  # `(I < lo and v < 0) or ...` of vectors: componentwise, both sides built, as
                for s in b_stmts:  # Quadrants' logical_and/or of two tensors (games201hw implicit_mpm)
                    self.emit(s)
                acc = self.vec_binop_with(lambda x, y: self.boolop_pair(word, x, y, node), acc, v, node, word)
                continue
            assert a is not None and b is not None
            both_u1 = a.dtype.kind == "b" and b.dtype.kind == "b"
            if a.dtype.is_float or b.dtype.is_float:  # Quadrants' logical_and/or take integers only
                self.err(node, f"unsupported operand type(s) for '{'&&' if is_and else '||'}': '{a.dtype.name}' and "
                               f"'{b.dtype.name}' (write `x != 0` for a float operand of '{word}')", QuadrantsTypeError)
            temps = {id(loc) for loc in self.made_locals[made:]}
            if _pure(b) and all(isinstance(s, ir.Assign) and id(s.local) in temps and _pure(s.value)
                                for s in b_stmts):
                # nothing to skip (at most pure temporaries of `b`, e.g. a nested and/or, `x ** 2`):
                # the branch-free form is equivalent, and stays what it always was
                for s in b_stmts:
                    self.emit(s)
                if both_u1:
                    acc = ir.BinOp(word, a, b, u1)
                    continue
                dt = promote(a.dtype, b.dtype)
                first = ir.LocalRef(self.new_local("boolop", dt, cast(a, dt)))
                then, other = (cast(b, dt), first) if is_and else (first, cast(b, dt))
                acc = ir.Select(truthy(first), then, other, dt)
                continue
            # Quadrants' lowering (frontend_ir.cpp, logical_and/or): result = a; if result [not]: result = b
            dt = u1 if both_u1 else promote(a.dtype, b.dtype)
            res = self.new_local("boolop", dt, cast(a, dt))  # a u1 result lives in an i32 local
            ref = ir.LocalRef(res)
            run_b = b_stmts + [ir.Assign(res, cast(b, res.dtype))]
            self.emit(ir.If(truthy(ref), run_b, []) if is_and else ir.If(truthy(ref), [], run_b))
            acc = truthy(ref) if both_u1 else ref
        return acc

    def v_NamedExpr(self, node):
        """`(y := e)`: assigns `y` as `y = e` does (a new variable, or a store into an existing one) and is
        the variable's value, as Quadrants' build_NamedExpr."""
        if self.is_static_call(node.value):
            self.frame.scopes[-1][node.target.id] = self.value(node.value)
        else:
            self.assign(node.target, self.value(node.value), node)
        return self.v_Name(ast.copy_location(ast.Name(node.target.id, ast.Load()), node))

    def check_pure(self, node) -> None:
        """A pure kernel (`@qd.kernel(pure=True)` or fastcache=True) reads no global number, string or field by
        name in its own body, as Quadrants checks (its fast cache keys on the arguments only); an UPPERCASE
        global only warns there, and so passes here."""
        from ..field import Field
        from ..struct_types import StructField
        from ..tasks.source import flat_env
        if any(node.id in scope for scope in self.frame.scopes) or node.id.upper() == node.id:
            return
        env = flat_env(self.frame.env)
        if node.id in env and isinstance(env[node.id], (int, float, str, Field, StructField)):
            v = env[node.id]
            self.err(node, f"[PURE.VIOLATION] WARNING: Accessing global variable {node.id} {type(v)} {node.id} is in "
                           f"global vars, therefore violates pure (pass it as a kernel argument)", QdCompileError)

    def effectful(self, node) -> bool:
        """Whether `node` calls a @qd.func, an atomic or qd.random, or assigns (`:=`): Quadrants' front end
        builds such an operand's statements where it meets it, so they run even where `and` / `or` /
        `a if c else b` take another operand's value (only plain expressions are evaluated lazily)."""
        from ..func import BoundFunc, Func
        from .. import intrinsics as I
        for n in ast.walk(node):
            if isinstance(n, ast.NamedExpr):
                return True
            if not isinstance(n, ast.Call) or not isinstance(n.func, (ast.Name, ast.Attribute)):
                continue
            self.out.append([])
            try:
                f = self.value(n.func)
            except QdCompileError:
                continue
            finally:
                self.out.pop()
            f = getattr(f, "value", None)
            if isinstance(f, (Func, BoundFunc)) or (isinstance(f, I.Intrinsic) and f.kind in ("atomic", "random")):
                return True
        return False
    def boolop_pair(self, word: str, x, y, node) -> ir.Expr:
        """One component of a vector `and`/`or`: two u1 combine; integers give an operand's value."""
        a, b = self.pair(x, y, node)
        if a.dtype.is_float or b.dtype.is_float:
            self.err(node, f"'{word}' of vectors needs integer or comparison components, got {a.dtype!r} and "
                           f"{b.dtype!r}", QuadrantsTypeError)
        if a.dtype.kind == "b" and b.dtype.kind == "b":
            return ir.BinOp(word, a, b, u1)
        dt = promote(a.dtype, b.dtype)
        first = ir.LocalRef(self.new_local("boolop", dt, cast(a, dt)))
        then, other = (cast(b, dt), first) if word == "and" else (first, cast(b, dt))
        return ir.Select(truthy(first), then, other, dt)

    def v_IfExp(self, node):
        """`a if c else b` evaluates only the chosen side, as in Python and Quadrants (`make_ifte`), so
        `x[i] if i < n else 0` never loads `x[n]`; two sides that can neither fault nor have effects
        keep the branch-free select."""
        c = self.value(node.test)
        if is_number(c):  # Quadrants builds both sides first (the test's being static or not), then the
            # chosen side again for its value: both are checked, and a @qd.func's statements in them run (the
            # chosen side's twice: `f() if qd.static(True) else g()` calls f twice and g once there)
            built = []
            for side in (node.body, node.orelse):
                eager = self.effectful(side)
                if not eager:
                    self.out.append([])
                try:
                    built.append(self.value(side))
                finally:
                    if not eager:
                        self.out.pop()
            if any(isinstance(v, Vec) for v in built) and not (
                    all(isinstance(v, Vec) for v in built) and built[0].shape == built[1].shape) and \
                    not any(is_number(v) for v in built):  # Quadrants selects between tensor sides first
                self.err(node, "Cannot broadcast tensor to tensor: the two sides of `a if qd.static(c) else b` are "
                               "vectors of different shapes", QuadrantsTypeError)
            return self.value(node.body if c.value else node.orelse)
        if isinstance(c, Vec):
            self.err(node.test, 'a vector condition in `a if c else b` is ambiguous. Please use "qd.select" instead.',
                     QuadrantsSyntaxError)
        cond = truthy(self.commit(c, node))
        made = len(self.made_locals)
        sides = []
        for side in (node.body, node.orelse):
            self.out.append([])
            try:
                v = self.value(side)
            finally:
                stmts = self.out.pop()
            if self.effectful(side):  # as in `a and b`: a func's statements run on either branch in Quadrants
                for st in stmts:
                    self.emit(st)
                stmts = []
            sides.append((v, stmts))
        (va, a_stmts), (vb, b_stmts) = sides
        if isinstance(va, Vec) or isinstance(vb, Vec):
            return self.ifexp_vec(cond, va, a_stmts, vb, b_stmts, node)
        a, b = self.pair(va, vb, node)
        dt = promote(a.dtype, b.dtype)
        temps = {id(loc) for loc in self.made_locals[made:]}
        if _pure(a) and _pure(b) and all(isinstance(st, ir.Assign) and id(st.local) in temps and _pure(st.value)
                                         for st in a_stmts + b_stmts):
            for st in a_stmts + b_stmts:
                self.emit(st)
            return ir.Select(cond, cast(a, dt), cast(b, dt), dt)
        res = self.new_local("ifexp", dt)  # a u1 result lives in an i32 local
        self.emit(ir.If(cond, a_stmts + [ir.Assign(res, cast(a, res.dtype))],
                        b_stmts + [ir.Assign(res, cast(b, res.dtype))]))
        return truthy(ir.LocalRef(res)) if dt.kind == "b" else ir.LocalRef(res)


    def ifexp_vec(self, cond, va, a_stmts, vb, b_stmts, node):
        """`v if c else 0` with a vector side: each component chosen by the scalar `c`, only the
        chosen side evaluated (a scalar side broadcasts)."""
        shape = (va if isinstance(va, Vec) else vb).shape
        n = len((va if isinstance(va, Vec) else vb).items)
        for v in (va, vb):
            if isinstance(v, Vec) and len(v.items) != n:
                self.err(node, "Cannot broadcast tensor to tensor: the two sides of `a if c else b` are vectors "
                               "of different sizes", QuadrantsTypeError)
        branches = []
        results: list = []
        for v, stmts in ((va, a_stmts), (vb, b_stmts)):
            self.out.append(stmts)
            try:
                items = [self.commit(x, node) for x in (v.items if isinstance(v, Vec) else broadcast(v, n))]
            finally:
                self.out.pop()
            branches.append((items, stmts))
        for k in range(n):
            dt = promote(branches[0][0][k].dtype, branches[1][0][k].dtype)
            results.append(self.new_local("ifexp", dt))
        for items, stmts in branches:
            stmts += [ir.Assign(r, cast(x, r.dtype)) for r, x in zip(results, items)]
        self.emit(ir.If(cond, branches[0][1], branches[1][1]))
        return Vec([ir.LocalRef(r) for r in results], shape)


_EXPR_NAMES = {"SetComp": "'set comprehension'",
               "DictComp": "'dict comprehension'", "GeneratorExp": "'generator expression'",
               "Lambda": "'lambda'", "JoinedStr": "'f-string'", "Dict": "'dict'", "Set": "'set'",
               "NamedExpr": "'assignment expression (:=)'", "Await": "'await'", "Yield": "'yield'",
               "YieldFrom": "'yield from'", "Starred": "'*unpacking'", "Slice": "'slice'"}

# Expressions that can neither fault nor have side effects (loads can fault out of bounds, atomics and
# inlined calls have effects); integer division and modulo fault on a zero (or -1 overflow) divisor.
_PURE = (ir.Const, ir.ScalarArg, ir.Shape, ir.LocalRef, ir.BinOp, ir.UnOp, ir.Compare, ir.Cast, ir.Select,
         ir.MathCall, ir.SimtIndex)


_PY_CMPOPS = {**CMPOPS, ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


def _effects_only(stmts: list) -> list:
    """`stmts` without the assignments of effect-free values (loads included) to locals nothing left
    reads, and without blocks left holding nothing but their return: what Quadrants' dead-code
    elimination drops of an operand whose value is discarded, before its debug checks are added."""
    def droppable(s, read) -> bool:
        return isinstance(s, ir.Assign) and id(s.local) not in read and all(
            isinstance(n, _PURE + (ir.Load,)) or not isinstance(n, ir.Expr) for n in ir.walk(s.value))

    def prune(body: list, read: set) -> list:
        out = []
        for s in body:
            if droppable(s, read):
                continue
            if isinstance(s, ir.Block):
                inner = prune(list(s.body), read)
                if all(isinstance(x, ir.Return) for x in inner):
                    continue
                s = dataclasses.replace(s, body=inner)
            out.append(s)
        return out

    keep = list(stmts)
    while True:
        read = {id(n.local) for n in ir.walk(keep) if isinstance(n, ir.LocalRef)}
        pruned = prune(keep, read)
        if len(list(ir.walk(pruned))) == len(list(ir.walk(keep))):
            return pruned
        keep = pruned


def _pure(e: ir.Expr) -> bool:
    for n in ir.walk(e):
        if not isinstance(n, _PURE):
            return False
        if isinstance(n, ir.BinOp) and n.op in ("//", "%", "rdiv", "rmod") and n.dtype.is_int and \
                not (isinstance(n.rhs, ir.Const) and n.rhs.value not in (0, -1)):
            return False
    return True


def _py_seq(x) -> list | None:
    """The items of a Python list or tuple value in a kernel (constant or not), else None."""
    if isinstance(x, list):
        return x
    if isinstance(x, Py) and isinstance(x.value, (list, tuple)):
        return [Py(v) for v in x.value]
    return None


def _as_vec(x) -> Vec:
    """A list or tuple of values as a vector (a list of rows as a matrix)."""
    from .vectors import components
    rows: Any = x.value if isinstance(x, Py) else x
    items = components(x)
    if rows and all(isinstance(r, (list, tuple)) for r in rows) and len(items) == len(rows) * len(rows[0]):
        return Vec(items, (len(rows), len(rows[0])))
    return Vec(items)
