"""Straight-line statements: expressions, assignments (plain, annotated, tuple, augmented) and `if`.

Augmented updates of array elements in a parallel loop are atomic (Quadrants' rule).
"""
from __future__ import annotations

import ast
import re

from .. import intrinsics as I
from ... import ir
from ..calls import runtime_api
from ...ir.errors import QdCompileError, QuadrantsSyntaxError, QuadrantsTypeError
from ...ir.dtypes import as_dtype, f64, i32, u1
from ..tasks.toplevel import check_with
from .values import broadcast, BINOPS, BufView, KDict, Py, py_value, Seq, ShapeTuple, StructArr, StructVal, UnpackedRef, Vec, \
    cast, is_number, tensor_type_name, truthy
from .vectors import SWIZZLE, components
from .base import LoweringBase
from .kernel_scope import ASSERT_VALUES
from ..field import Storage
from ..struct_types import StructField, StructType
from ..vector_types import VectorType

_AUG_ATOMIC = {ast.Add: "add", ast.Sub: "sub", ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}


class StatementLowering(LoweringBase):
    """Mixin for `TaskBuilder`: lowers simple statements into the current block."""

    def s_Expr(self, node):
        if isinstance(node.value, ast.Constant) and (isinstance(node.value.value, str) or node.value.value is ...):
            return  # docstring or comment string; `...` as a statement (a body that does nothing)
        v = self.value(node.value)
        if isinstance(v, ir.Expr):
            self.emit(ir.ExprStmt(v))
        elif isinstance(v, Vec):  # qd.atomic_add(x[i], vec): one atomic per component
            for item in v.items:
                if isinstance(item, ir.AtomicRMW):
                    self.emit(ir.ExprStmt(item))

    def s_Pass(self, node):
        pass

    def s_Assign(self, node):
        if len(node.targets) > 1:  # a = b = 7, (a, b) = (c, d) = (1, 2): evaluate once, assign left to right
            v = self.value(node.value)
            if isinstance(v, ir.Expr) and not isinstance(v, ir.Const):
                v = ir.LocalRef(self.new_local("chain", v.dtype, v))
            elif isinstance(v, Vec):
                v = self.vec_local(v, "chain")
            elif isinstance(v, list):
                v = self.unpack_temps(v, node)
            for t in node.targets:
                if isinstance(t, (ast.Tuple, ast.List)):
                    self.unpack_assign(t, v, node)
                else:
                    self.assign(t, v, node)
            return
        target = node.targets[0]
        if isinstance(target, (ast.Subscript, ast.Attribute)) and self.is_static_call(node.value):
            self.err(node, "Static assign cannot be used on elements in arrays (assign qd.static(...) to a name, "
                           "then store that)", QuadrantsSyntaxError)
        if isinstance(target, (ast.Tuple, ast.List)):
            return self.unpack_assign(target, self.value(node.value), node)
        if isinstance(target, ast.Name) and self.lookup_or_none(target.id) is None and \
                target.id not in self.kscope.gtemp_names and self.is_static_call(node.value):
            # `N = qd.static(A.n)`: a compile-time value, as Quadrants keeps it (a Python value, not a variable)
            self.frame.scopes[-1][target.id] = self.value(node.value)
            return
        self.assign(target, self.value(node.value), node)

    def field_of_py(self, v, node):
        """`FIELDS[s][i] = x` (s a qd.static loop variable): a field reached through a Python list or tuple
        is stored into as that field, as it is read (exprs/subscripts.py, v_Subscript_of); it was refused."""
        if isinstance(v, Py) and isinstance(v.value, (Storage, StructField)):
            arr = self.global_value(v.value, getattr(v.value, "name", "") or "field", node)
            return v if isinstance(arr, Py) else arr
        return v

    def lookup_or_none(self, name):
        for scope in reversed(self.frame.scopes):
            if name in scope:
                return scope[name]
        return None

    def is_static_call(self, node) -> bool:
        if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
            return False
        try:
            return self.eval_static(node.func) is I.static
        except QdCompileError:
            return False

    def unpack_assign(self, target, vals, node):
        """`a, b = ...`: from a tuple of values, a vector (its components or rows), or a constant tuple."""
        if isinstance(vals, Vec):
            vals = list(vals.items) if len(vals.shape) == 1 else \
                [Vec(vals.items[r * vals.shape[1]:(r + 1) * vals.shape[1]]) for r in range(vals.shape[0])]
        if isinstance(vals, Py) and isinstance(vals.value, (tuple, list)):  # a constant tuple or list
            vals = [py_value(v) for v in vals.value]
        if isinstance(vals, ShapeTuple):  # `a, b = x.shape`
            vals = [ir.Shape(vals.array, k) for k in range(vals.ndim)]
        if isinstance(vals, Seq):
            vals = list(vals.items)
        if not isinstance(vals, list) or len(vals) != len(target.elts):
            self.err(node, "tuple assignment needs a tuple of the same length on the right")
        for t_node, v in zip(target.elts, self.unpack_temps(vals, node)):
            self.assign(t_node, v, node)

    def unpack_temps(self, vals: list, node) -> list:
        """The values of a tuple, each read once into a temporary before any is assigned (`a, b = b, a`)."""
        temps = [self.commit(v, node) if isinstance(v, ir.Expr) or is_number(v) else v for v in vals]
        return [ir.LocalRef(self.new_local("tup", t.dtype, t)) if isinstance(t, ir.Expr) else
                (self.vec_local(t, "tup") if isinstance(t, Vec) else
                 self.struct_local(t, "tup") if isinstance(t, StructVal) else t) for t in temps]

    def s_AnnAssign(self, node):
        if node.value is not None and self.is_static_call(node.value):
            self.err(node, "Static assign cannot be used on annotated assignment", QuadrantsSyntaxError)
        dt = as_dtype(self.eval_static(node.annotation))
        if dt is None or not isinstance(node.target, ast.Name):
            self.err(node, "annotated assignment needs a name and a qd scalar type (x: qd.f32 = ...)")
        if node.value is None:
            self.err(node, "annotated declaration needs an initial value")
        existing = self.visible(node.target.id)
        self.refuse_kernel_arg(node.target, existing)
        if existing is None and self.is_gtemp(node.target.id):
            return self.store_gtemp(node.target.id, self.value(node.value), node, dt)
        if isinstance(existing, ir.Local):
            if existing.dtype != dt:
                self.err(node, f"'{node.target.id}' is already declared as {existing.dtype!r}; a variable keeps "
                               f"its type (use another name for the {dt!r} value)", QuadrantsSyntaxError)
            return self.assign(node.target, self.value(node.value), node)
        loc = self.new_local(node.target.id, dt, self.commit(self.value(node.value), node, like=dt))
        self.frame.scopes[-1][node.target.id] = loc

    def assign(self, target, v, node):
        if isinstance(target, ast.Name):
            existing = self.visible(target.id)
            self.refuse_kernel_arg(target, existing)
            if isinstance(v, Py) and isinstance(v.value, (VectorType, StructType)):  # `v3 = qd.types.vector(3, ...)`
                self.err(node, f"Invalid constant scalar data type: {type(v.value)} (a type is not a kernel value, "
                               f"as in Quadrants; make it a global)", QuadrantsTypeError)
            if existing is None and self.is_gtemp(target.id):
                return self.store_gtemp(target.id, v, node)
            if isinstance(existing, ir.Local):
                self.emit(ir.Assign(existing, cast(self.commit(v, node, like=existing.dtype), existing.dtype)))
                return
            if isinstance(existing, Vec) and existing.items and all(isinstance(it, ir.Load) for it in existing.items) \
                    and len({id(it.array) for it in existing.items}) == 1:
                # `M = ...` on a @qd.func's qd.template() parameter bound to `x[p]`: Quadrants assigns through
                # it, storing into the caller's element (games201hw implicit_mpm's makePD)
                return self.store_vec(existing.items[0].array, existing, v, node)
            if isinstance(existing, Vec):
                return self.assign_vec(existing, v, node)
            if isinstance(existing, StructVal):
                return self.store_struct(existing, v, node)
            if isinstance(v, StructVal):  # `p = f[i]`: a copy, as Quadrants' structs are values
                self.frame.scopes[-1][target.id] = self.struct_local(v, target.id)
                return
            if isinstance(v, Vec):
                self.frame.scopes[-1][target.id] = self.vec_local(v, target.id)
                return
            if isinstance(v, KDict):  # a dict of kernel values (already held in locals)
                self.frame.scopes[-1][target.id] = v
                return
            if isinstance(v, (list, Seq)):  # a list of kernel values: one local per item
                items = v.items if isinstance(v, Seq) else v
                self.frame.scopes[-1][target.id] = Seq([self.item_local(x, f"{target.id}{k}", node)
                                                        for k, x in enumerate(items)])
                return
            if isinstance(v, Py) and isinstance(v.value, str):  # Quadrants' expr_init of a str
                self.err(node, f"Invalid constant scalar data type: <class 'str'> (a string can be a kernel variable "
                               f"only at compile time: {target.id} = qd.static(...) is refused too; use the "
                               f"string literal where it is needed)", QuadrantsTypeError)
            if isinstance(v, (ir.ArrayArg, ir.SharedArray, ShapeTuple, BufView)) or (isinstance(v, Py) and not is_number(v)):
                self.frame.scopes[-1][target.id] = v
                return
            e = self.commit(v, node)
            self.frame.scopes[-1][target.id] = self.new_local(target.id, e.dtype, e)
            return
        if isinstance(target, ast.Subscript):
            arr = self.field_of_py(self.value(target.value), target.value)
            if isinstance(arr, UnpackedRef):  # obj.r[i] = x: obj._r{i}
                return self.store_member(arr.struct, self.unpacked_member(arr, target.slice), v, node)
            if isinstance(arr, StructArr):  # f[i] = Particle(...): every member
                return self.store_struct(self.struct_element(arr, target.slice, target), v, node)
            if isinstance(arr, Seq):  # `verts[1] = verts[2]` on a list of kernel values: into that item's local
                return self.store_seq_item(arr, target, v, node)
            if isinstance(arr, Vec):  # v[i] = x on a vector variable, or x[i][j] = y on an array of vectors
                sel = self.vec_slice_keys(arr, target.slice, target)
                if sel is not None:  # T[:3, :3] = R, T[:3, 3] = t, v[:2] = w: component by component
                    return self.store_components(arr, sel[0], self.slice_values(v, len(sel[0]), node), target, node)
                keys = self.component_keys(target.slice.elts if isinstance(target.slice, ast.Tuple)
                                           else [target.slice])
                return self.store_components(arr, [keys], [v], target, node)
            if isinstance(arr, BufView):  # v[i] = x: element offset + i of the view's array
                idx = self.view_index(arr, target.slice, target)
                arr = arr.array
            elif not isinstance(arr, (ir.ArrayArg, ir.SharedArray)):
                self.err(target, "only ndarray and shared-array elements can be assigned")
            else:
                idx = self.indices(arr, target.slice, partial=True)
            if len(idx) < arr.ndim:
                return self.store_vec(arr, self.element_vec(arr, idx), v, node)
            self.emit(ir.Store(arr, idx, cast(self.commit(v, node, like=arr.dtype), arr.dtype), self.at(target)))
            return
        if isinstance(target, ast.Attribute):
            base = self.value(target.value)
            if isinstance(base, StructVal):
                if target.attr not in base.members:
                    self.struct_member(base, target.attr, target)  # the error naming the members
                    self.err(target, f"cannot assign to the method '{target.attr}'")
                return self.store_member(base, target.attr, v, node)
            if isinstance(base, Vec) and all(c in SWIZZLE for c in target.attr) and len(base.shape) == 1:
                n = base.shape[0]
                if any(SWIZZLE[c] >= n for c in target.attr):
                    group = next((g for g in ("xyzw", "rgba", "stpq") if target.attr[0] in g), "xyzw")
                    self.err(target, f"vec{n} only has attributes={tuple(group[:n])}, got={tuple(target.attr)}",
                             QuadrantsSyntaxError)
            if isinstance(base, Vec) and len(target.attr) == 1 and target.attr in SWIZZLE:
                keys = [Py(SWIZZLE[target.attr])]
                if all(isinstance(it, ir.Load) for it in base.items):
                    return self.store_vec(base.items[0].array, self.vec_pick_loads(base, keys, target), v, node)
                return self.vec_assign_component(base, keys, v, node)
            if isinstance(base, Vec) and len(target.attr) > 1 and all(c in SWIZZLE for c in target.attr):
                return self.assign_swizzle(base, target, v, node)
        self.err(target, f"cannot assign to '{type(target).__name__}' in a kernel")

    def assign_swizzle(self, base: Vec, target, v, node):
        """`v.xy = w` / `v.rgb = 1`: each named component, from values read before any is written."""
        attr = target.attr
        if isinstance(v, Vec) and len(v.items) != len(attr):
            self.err(node, f"cannot assign a {len(v.items)}-vector to the swizzle '.{attr}'", QuadrantsTypeError)
        vals = v.items if isinstance(v, Vec) else broadcast(v, len(attr))
        temps = [ir.LocalRef(self.new_local("swz", e.dtype, e)) for e in (self.commit(x, node) for x in vals)]
        for c, t in zip(attr, temps):
            keys = [Py(SWIZZLE[c])]
            if all(isinstance(it, ir.Load) for it in base.items):
                self.store_vec(base.items[0].array, self.vec_pick_loads(base, keys, target), t, node)
            else:
                self.vec_assign_component(base, keys, t, node)

    def store_seq_item(self, seq: Seq, target: ast.Subscript, v, node):
        """`w[k] = x` with `w` a list of kernel values and `k` known when compiling: the item's variable
        takes the value at run time, as Quadrants assigns the variable the list holds."""
        try:
            k = self.eval_static(target.slice)
            item = seq.items[k]
        except (QdCompileError, TypeError, IndexError):
            self.err(target, f"a list of kernel values takes a compile-time index in range(len) "
                             f"(0..{len(seq.items) - 1}) when assigned")
        if isinstance(item, Vec):
            return self.assign_vec(item, v, node)
        if isinstance(item, StructVal):
            return self.store_struct(item, v, node)
        if not isinstance(item, ir.LocalRef):
            self.err(target, "this item of the list is a compile-time value and cannot be assigned")
        self.emit(ir.Assign(item.local, cast(self.commit(v, node, like=item.local.dtype), item.local.dtype)))

    def item_local(self, v, name: str, node):
        """A copy of `v` in locals of its own (a compile-time value stays one)."""
        if isinstance(v, Vec):
            return self.vec_local(v, name)
        if isinstance(v, (list, Seq)):
            return Seq([self.item_local(x, f"{name}_{k}", node) for k, x in enumerate(
                v.items if isinstance(v, Seq) else v)])
        if isinstance(v, (ir.ArrayArg, ir.SharedArray, ShapeTuple)) or (isinstance(v, Py) and not is_number(v)):
            return v
        e = self.commit(v, node)
        return ir.LocalRef(self.new_local(name, e.dtype, e))

    def assign_vec(self, existing: Vec, v, node):
        if isinstance(v, (list, Seq)) or (isinstance(v, Py) and isinstance(v.value, (list, tuple))):
            items = components(v.items if isinstance(v, Seq) else v)  # `R = [i + p, j, k]` to a vector variable
            if len(items) != len(existing.items):
                self.err(node, f"cannot assign a list of {len(items)} values to "
                               f"'{tensor_type_name(existing.items, existing.shape)}'", QuadrantsTypeError)
            v = Vec(items, existing.shape)
        vals = v.items if isinstance(v, Vec) else broadcast(v, len(existing.items))
        if isinstance(v, Vec) and v.shape != existing.shape:
            self.err(node, f"cannot assign '{tensor_type_name(v.items, v.shape)}' to "
                           f"'{tensor_type_name(existing.items, existing.shape)}' (a {v.shape} value to a "
                           f"{existing.shape} variable)", QuadrantsTypeError)
        vals = [self.commit(x, node) for x in vals]
        temps = [ir.LocalRef(self.new_local("vtmp", x.dtype, x)) for x in vals]  # v = v.yx reads before writing
        for t, x in zip(existing.items, temps):
            self.assign_ref(t, x, node)

    def store_components(self, arr: Vec, keys_list: list, vals: list, target, node):
        """Assign `vals[n]` to the component `keys_list[n]` of a vector variable, or through the
        loads of an array-of-vectors element."""
        for keys, x in zip(keys_list, vals):
            if all(isinstance(it, ir.Load) for it in arr.items):
                self.store_vec(arr.items[0].array, self.vec_pick_loads(arr, keys, target), x, node)
            else:
                self.vec_assign_component(arr, keys, x, node)

    def slice_values(self, v, n: int, node) -> list:
        """The `n` values a slice assignment stores: a vector's or matrix's components in row-major
        order, or one scalar broadcast."""
        if isinstance(v, list) or (isinstance(v, Py) and isinstance(v.value, (tuple, list))):
            v = Vec(components(v))
        if not isinstance(v, Vec):
            return broadcast(v, n)
        if len(v.items) != n:
            self.err(node, f"cannot store {len(v.items)} components into a slice of {n}", QuadrantsTypeError)
        return list(v.items)

    def staged(self, vals: list, dtype, node) -> list:
        """The components of a vector value about to be written one by one, each computed (cast to the
        element type) and held in a local before the first write: `v[i] -= v[i].dot(n) * n` and
        `v[i] = v[i].zxy` read all of v[i] as it was, as Quadrants' one tensor store or atomic does,
        never a half-updated v[i] (a silent wrong answer otherwise)."""
        vals = [cast(self.commit(x, node, like=dtype), dtype) for x in vals]
        if len(vals) < 2:
            return vals
        return [ir.LocalRef(self.new_local("st", x.dtype, x)) for x in vals]

    def store_vec(self, arr, target: Vec, v, node):
        """Store a vector (or one scalar, broadcast) into the array elements that `target` loads.
        A list or tuple (`x[i] = [a, b]`, `m[i] = ((1, 0), (0, 1))`) is taken component by component
        in row-major order, as Quadrants takes it."""
        if isinstance(v, Seq):  # a list variable (a func's list argument)
            v = list(v.items)
        if isinstance(v, list) or (isinstance(v, Py) and isinstance(v.value, (tuple, list))):
            v = Vec(components(v))
        vals = v.items if isinstance(v, Vec) else broadcast(v, len(target.items))
        if len(vals) != len(target.items):
            got = tensor_type_name(vals, v.shape if isinstance(v, Vec) else (len(vals),))
            want = f"[Tensor ({', '.join(map(str, target.shape))}) {arr.dtype.name}]"
            self.err(node, f"cannot assign '{got}' to '{want}' (cannot store {len(vals)} components into "
                           f"{len(target.items)})", QuadrantsTypeError)
        for ld, x in zip(target.items, self.staged(vals, arr.dtype, node)):
            self.emit(ir.Store(ld.array, ld.indices, x))

    def vec_pick_loads(self, v: Vec, keys, node):
        """The component loads `v[keys]` names, as a Vec (to store through them); a dynamic component
        index becomes part of the array index."""
        if not all(is_number(k) for k in keys):
            first = v.items[0]
            prefix = first.indices[:len(first.indices) - len(v.shape)]
            idx = tuple(cast(self.commit(k, node, like=i32), i32) for k in keys)
            if len(idx) == len(v.shape):
                return Vec([ir.Load(first.array, prefix + idx)])
            return Vec([ir.Load(first.array, prefix + idx + (ir.Const(c, i32),)) for c in range(v.shape[1])])
        picked = self.vec_pick(v, keys, node)
        return picked if isinstance(picked, Vec) else Vec([picked])

    def is_gtemp(self, name) -> bool:
        return len(self.frames) == 1 and name in self.kscope.gtemp_names

    def store_gtemp(self, name, v, node, dt=None):
        """A kernel-scope local that another task reads lives in a global temporary."""
        if isinstance(v, BufView):  # a view made in one task, used in another: its window's two scalars
            self.kscope.view_arrays[name] = v.array
            for part, x in (("offset", v.offset), ("size", v.size)):
                arr = self.kscope.make_gtemp(f"{name}.{part}", i32)
                self.emit(ir.Store(arr, (ir.Const(0, i32),), cast(x, i32)))
            return
        if isinstance(v, Vec):
            dt0 = self.commit(v.items[0], node).dtype
            arr = self.kscope.make_gtemp(name, dt0, v.shape)
            return self.store_vec(arr, self.element_vec(arr, (ir.Const(0, i32),)), v, node)
        e = self.commit(v, node, like=dt)
        arr = self.kscope.make_gtemp(name, dt or e.dtype)
        if dt is not None and arr.dtype != dt:
            self.err(node, f"'{name}' is already declared as {arr.dtype!r}", QuadrantsSyntaxError)
        self.emit(ir.Store(arr, (ir.Const(0, i32),), cast(e, arr.dtype)))

    def visible(self, name):
        """What `name` is bound to in the current function's scopes, or None."""
        for scope in reversed(self.frame.scopes):
            if name in scope:
                return scope[name]
        return None

    def refuse_kernel_arg(self, target, existing):
        if len(self.frames) == 1 and existing is not None and target.id in self.kscope.arg_values and \
                self.frames[0].scopes[0].get(target.id) is existing:
            self.err(target, f'Kernel argument "{target.id}" is immutable in the kernel. If you want to change its '
                             f"value, please create a new variable: kernel argument '{target.id}' cannot be assigned "
                             f"(Quadrants passes arguments read-only); copy it into a local first: "
                             f"{target.id}_ = {target.id}", QuadrantsSyntaxError)

    def s_AugAssign(self, node):
        target = node.target
        op = BINOPS.get(type(node.op))
        if op is None:
            self.err(node, "unsupported augmented assignment")
        if isinstance(target, ast.Attribute):
            base = self.value(target.value)
            if isinstance(base, StructVal):
                if target.attr not in base.members:
                    self.struct_member(base, target.attr, target)
                    self.err(target, f"cannot update the method '{target.attr}'")
                return self.update_member(base, target.attr, op, node)
        if isinstance(target, ast.Attribute) and len(target.attr) > 1 and all(c in SWIZZLE for c in target.attr):
            # `v.rgb += 1` is `v.rgb = v.rgb + 1`
            load = ast.copy_location(ast.Attribute(target.value, target.attr, ast.Load()), target)
            value = ast.copy_location(ast.BinOp(load, node.op, node.value), node)
            return self.s_Assign(ast.copy_location(ast.Assign([target], value), node))
        if isinstance(target, ast.Attribute) and len(target.attr) == 1 and target.attr in SWIZZLE:
            # `v.y -= d` (a vector local, or an element of an array of vectors) is `v[1] -= d`
            component = ast.copy_location(ast.Subscript(target.value, ast.copy_location(
                ast.Constant(SWIZZLE[target.attr]), target), ast.Store()), target)
            return self.s_AugAssign(ast.copy_location(ast.AugAssign(component, node.op, node.value), node))
        if isinstance(target, ast.Subscript) and isinstance(target.value, (ast.Name, ast.Attribute)):
            base = self.value(target.value)  # a qd.linalg.SparseMatrixBuilder (which sits above the frontend)
            if isinstance(base, UnpackedRef):  # obj.r[i] += x: obj._r{i}
                return self.update_member(base.struct, self.unpacked_member(base, target.slice), op, node)
            if isinstance(base, Py) and getattr(type(base.value), "qd_triplet_builder", False):
                return self.builder_add(base.value, target, node, op)
        if isinstance(target, ast.Subscript) or isinstance(target, ast.Name):
            handled = self.aug_vec(node, op)
            if handled:
                return
        gtemp = isinstance(target, ast.Name) and self.visible(target.id) is None and self.is_gtemp(target.id)
        if isinstance(target, ast.Subscript) or gtemp:
            if gtemp:
                arr = self.kscope.gtemp(target.id)
                if arr is None:
                    self.err(target, f"kernel-scope variable '{target.id}' is updated before it is assigned")
                idx: tuple[ir.Expr, ...] = (ir.Const(0, i32),)
            else:
                arr = self.field_of_py(self.value(target.value), target.value)
                if isinstance(arr, BufView):
                    idx = self.view_index(arr, target.slice, target)
                    arr = arr.array
                elif not isinstance(arr, (ir.ArrayArg, ir.SharedArray)):
                    self.err(target, "only ndarray and shared-array elements can be updated")
                else:
                    idx = self.indices(arr, target.slice)
            rhs = self.value(node.value)
            if self.in_parallel and type(node.op) in _AUG_ATOMIC and (arr.dtype.is_int or type(node.op) in
                                                                      (ast.Add, ast.Sub)):
                val = cast(self.commit(rhs, node, like=arr.dtype), arr.dtype)
                self.emit(ir.ExprStmt(ir.AtomicRMW(_AUG_ATOMIC[type(node.op)], arr, idx, val, self.at(target))))
                return
            new = self.binop(op, ir.Load(arr, idx, self.at(target)), self.atomic_operand(node, rhs, arr.dtype), node)
            self.emit(ir.Store(arr, idx, cast(new, arr.dtype), self.at(target)))
            return
        if isinstance(target, ast.Name):
            self.refuse_kernel_arg(target, self.visible(target.id))
            cur = self.lookup(target.id, target)
            if not isinstance(cur, ir.LocalRef):
                self.err(target, f"'{target.id}' is not a kernel variable that can be updated")
            rhs = self.atomic_operand(node, self.value(node.value), cur.local.dtype)
            new = self.binop(op, cur, rhs, node)
            self.emit(ir.Assign(cur.local, cast(new, cur.local.dtype)))
            return
        self.err(target, "unsupported augmented-assignment target")

    def atomic_operand(self, node, rhs, dt):
        """`x += v`, `-=`, `&=`, `|=`, `^=` are atomic operations in Quadrants, on a local as on an array
        element, serial or parallel: `v` is cast to x's type first (an i32 `w += -0.5` adds 0, not
        -0.5 then truncates); the other operators compute `x op v` and cast the result."""
        if type(node.op) not in _AUG_ATOMIC or not isinstance(rhs, ir.Expr) and not is_number(rhs):
            return rhs
        return cast(self.commit(rhs, node, like=dt), dt)

    def aug_vec(self, node, op) -> bool:
        """`v += w` on vector variables and on array-of-vector elements; False if no vector is involved."""
        target = node.target
        if isinstance(target, ast.Name):
            cur = self.visible(target.id)
            if cur is None and self.is_gtemp(target.id):
                arr = self.kscope.gtemp(target.id)
                if arr is None or arr.ndim == 1:
                    return False
                loads = self.element_vec(arr, (ir.Const(0, i32),))
                base = None
            elif not isinstance(cur, Vec):
                return False
            else:
                rhs = self.atomic_vec_operand(node, self.value(node.value), _vec_dtype(cur))
                self.assign_vec(cur, self.binop(op, cur, rhs, node), node)
                return True
        else:
            base = self.field_of_py(self.value(target.value), target.value)
        if base is None:
            pass
        elif isinstance(base, Vec):
            sel = self.vec_slice_keys(base, target.slice, target)
            if sel is not None:  # V[:, 2] *= -1.0: each selected component
                rhs = self.value(node.value)
                vals = self.slice_values(rhs, len(sel[0]), node)
                news = [self.binop(op, self.vec_pick(base, k, node), x, node) for k, x in zip(sel[0], vals)]
                self.store_components(base, sel[0], news, target, node)
                return True
            keys = self.component_keys(target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice])
            if all(isinstance(it, ir.Load) for it in base.items):
                loads = self.vec_pick_loads(base, keys, target)
            else:
                cur = self.vec_pick(base, keys, node)
                rhs = self.atomic_vec_operand(node, self.value(node.value), _vec_dtype(cur))
                self.vec_assign_component(base, keys, self.binop(op, cur, rhs, node), node)
                return True
        elif isinstance(base, ir.ArrayArg):
            idx = self.indices(base, target.slice, partial=True)
            if len(idx) == base.ndim:
                return False
            loads = self.element_vec(base, idx)
        else:
            return False
        rhs = self.value(node.value)
        vals = rhs.items if isinstance(rhs, Vec) else broadcast(rhs, len(loads.items))
        arr = loads.items[0].array
        if self.in_parallel and type(node.op) in _AUG_ATOMIC:
            for ld, x in zip(loads.items, self.staged(vals, arr.dtype, node)):
                self.emit(ir.ExprStmt(ir.AtomicRMW(_AUG_ATOMIC[type(node.op)], arr, ld.indices, x)))
            return True
        self.store_vec(arr, loads, self.binop(op, loads, self.atomic_vec_operand(node, rhs, arr.dtype), node), node)
        return True

    def atomic_vec_operand(self, node, rhs, dt):
        """atomic_operand for each component of a vector value (or a scalar broadcast to a vector)."""
        if dt is None or type(node.op) not in _AUG_ATOMIC:
            return rhs
        if isinstance(rhs, Vec):
            return Vec([self.atomic_operand(node, x, dt) for x in rhs.items], rhs.shape)
        return self.atomic_operand(node, rhs, dt)

    def s_With(self, node):
        """`with qd.stream_parallel():` below a kernel's top level: its statements, in order (one
        stream runs everything, lang/host/streams.py); anything else is Quadrants' QuadrantsSyntaxError."""
        check_with(node, self.frame.env, self.frame.src, in_kernel=len(self.frames) == 1)
        for s in node.body:
            self.stmt(s)

    def s_If(self, node):
        test = node.test
        if isinstance(test, ast.Call) and isinstance(self.value(test.func), Py) and \
                self.value(test.func).value is I.static:
            cond = self.eval_static(self.one_arg(test))
            for s in (node.body if cond else node.orelse):
                self.stmt(s)
            return
        c = self.value(test)
        if is_number(c):
            c = ir.Const(int(bool(c.value)), u1)
        cond = truthy(self.condition(c, test))
        self.runtime_nesting += 1
        try:
            then, orelse = self.block(node.body), self.block(node.orelse)
        finally:
            self.runtime_nesting -= 1
        self.emit(ir.If(cond, then, orelse))

    def condition(self, c, test) -> ir.Expr:
        """The test of a runtime `if` / `while`: an integer, as Quadrants requires (`if x:` of a float is
        its QuadrantsTypeError, not an implicit `x != 0`)."""
        e = self.commit(c, test)
        if e.dtype.is_float:
            self.err(test, f"`if` conditions must be an integer; found {e.dtype.name}. Consider using `if x != 0` "
                           f"instead of `if x` for float values.", QuadrantsTypeError)
        return e

    def s_Assert(self, node):
        """Compiled only under `qd.init(debug=True)`, as in Quadrants: a failed assert records its site in
        the kernel's assert flag, and the call raises `QuadrantsAssertionError` when the kernel returns."""
        msg = node.msg
        if not (msg is None or isinstance(msg, (ast.Constant, ast.JoinedStr)) or _percent_message(msg) is not None
                or (isinstance(msg, ast.Call) and isinstance(msg.func, ast.Attribute) and msg.func.attr == "format"
                    and isinstance(msg.func.value, ast.Constant) and isinstance(msg.func.value.value, str))):
            self.err(msg, f"assert info must be constant or formatted string, not {type(msg).__name__} "
                          f"'{ast.unparse(msg)}'", QuadrantsSyntaxError)
        if not runtime_api.debug():  # not checked, but its test still runs (Quadrants: a func it calls may store)
            t = self.value(node.test)
            if not isinstance(t, Py):
                self.emit(ir.ExprStmt(self.commit(t, node.test)))
            return
        cond = truthy(self.commit(self.value(node.test), node.test))
        flag = self.kscope.assert_flag()
        self.out.append([])  # an f-string message's values: evaluated only when the assert fails
        ints = None
        pct = _percent_message(node.msg)
        if pct is not None:  # assert c, "x[%d] got %f" % (i, v): Quadrants formats the values at run time
            template, args = pct
            vals = [self.commit(self.value(a), a) for a in args[:ASSERT_VALUES]]
            store = self.kscope.assert_values()
            for k, x in enumerate(vals):
                self.emit(ir.Store(store, (ir.Const(k, i32),), cast(x, f64)))
            file, line, _, text = self.frame.src.where(node)
            head = f"{file}:{line}: assertion failed: {text.strip()}".replace("{", "{{").replace("}", "}}")
            self.kscope.assert_sites.append((f"{head}: {template}", [x.dtype.is_int for x in vals]))
            self.emit(ir.Store(flag, (ir.Const(0, i32),), ir.Const(len(self.kscope.assert_sites), i32)))
            self.emit(ir.If(ir.UnOp("not", cond, u1), self.out.pop(), []))
            return
        if isinstance(node.msg, ast.JoinedStr):
            fields = [v for v in node.msg.values if isinstance(v, ast.FormattedValue)][:ASSERT_VALUES]
            vals = [self.commit(self.value(v.value), v.value) for v in fields]
            ints = [x.dtype.is_int for x in vals]
            store = self.kscope.assert_values()
            for k, x in enumerate(vals):
                self.emit(ir.Store(store, (ir.Const(k, i32),), cast(x, f64)))
        site = self.kscope.assert_site(self.frame.src, node, ints)
        self.emit(ir.Store(flag, (ir.Const(0, i32),), ir.Const(site, i32)))
        first = ir.Compare("==", ir.Load(flag, (ir.Const(0, i32),)), ir.Const(0, i32), u1)  # the first failure
        self.emit(ir.If(ir.UnOp("not", cond, u1), [ir.If(first, self.out.pop(), [])], []))  # is the one reported



def _vec_dtype(v):
    """The element type of a vector value whose components are typed expressions (None otherwise)."""
    if isinstance(v, Vec) and v.items and all(isinstance(x, ir.Expr) for x in v.items):
        return v.items[0].dtype if v.items[0].dtype.kind != "b" else None
    if isinstance(v, ir.Expr):
        return v.dtype
    return None


_PERCENT = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)([diufFeEgGxXs%])")


def _percent_message(msg) -> tuple | None:
    """`"x[%d] = %f" % (i, v)` as (a str.format template of the values, their AST nodes), or None."""
    if not (isinstance(msg, ast.BinOp) and isinstance(msg.op, ast.Mod) and isinstance(msg.left, ast.Constant)
            and isinstance(msg.left.value, str)):
        return None
    args = list(msg.right.elts) if isinstance(msg.right, ast.Tuple) else [msg.right]
    out, k, pos = [], 0, 0
    text = msg.left.value
    for m in _PERCENT.finditer(text):
        out.append(text[pos:m.start()].replace("{", "{{").replace("}", "}}"))
        flags, conv = m.group(1), m.group(2)
        if conv == "%":
            out.append("%")
        else:
            conv = {"i": "d", "u": "d", "s": ""}.get(conv, conv)
            out.append("{%d%s}" % (k, ":" + flags + conv if flags or conv else ""))
            k += 1
        pos = m.end()
    out.append(text[pos:].replace("{", "{{").replace("}", "}}"))
    if k != len(args):
        return None
    return "".join(out), args
