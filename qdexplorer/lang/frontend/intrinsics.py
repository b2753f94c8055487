"""`qd.*` intrinsics inside kernels: math (`qd.sqrt`, `qd.floor`...), atomics, and the block-level
SIMT features (thread indices, barriers, shared arrays)."""
from __future__ import annotations

import ast

from .. import intrinsics as I
from ... import ir
from ...ir.errors import QuadrantsSyntaxError, QuadrantsTypeError
from ...ir.dtypes import as_dtype, f16, f32, f64, i32, i64, promote, u1, u8, u16, u32, u64
from .values import broadcast, ATOMIC_OPS, F16_MATH_GIVES_F32, FLOAT_ONLY_MATH, Py, Vec, cast, default_types, is_number
from .base import LoweringBase

ROUNDING = ("floor", "ceil", "round")
UNSIGNED = {8: u8, 16: u16, 32: u32, 64: u64}


# Quadrants refuses an integer operand for these (`qd.sin(i)` is a QuadrantsTypeError there); sqrt,
# exp, log and rsqrt take one and compute in f32
REAL_ONLY = {"sin", "cos", "tan", "tanh", "asin", "acos"}


class IntrinsicLowering(LoweringBase):
    """Mixin for `TaskBuilder`: lowers calls of `qd.*` intrinsic objects."""

    def intrinsic(self, f: I.Intrinsic, node):
        if f.kind == "math":
            return self.math_call(f, node)
        if f.kind == "select":
            if len(node.args) != 3:
                self.err(node, "qd.select(cond, a, b) takes three arguments")
            c, a, b = (self.value(x) for x in node.args)
            if any(isinstance(v, Vec) for v in (c, a, b)):
                n = next(len(v.items) for v in (c, a, b) if isinstance(v, Vec))
                shape = next(v.shape for v in (c, a, b) if isinstance(v, Vec))
                col = lambda v: v.items if isinstance(v, Vec) else broadcast(v, n)  # noqa: E731
                return Vec([self.select_of(x, y, z, node) for x, y, z in zip(col(c), col(a), col(b))], shape)
            return self.select_of(c, a, b, node)
        if f.kind == "atomic" and f.name == "atomic_cas":
            return self.atomic_cas_call(node)
        if f.kind == "bit_cast":
            return self.bit_cast_call(node)
        if f.kind == "clock":
            if node.args or node.keywords:
                self.err(node, "qd.clock_counter() takes no arguments")
            return ir.MathCall("clock", (), i64)
        if f.kind == "atomic":
            if len(node.args) != 2:
                self.err(node, f"qd.{f.name}(x[i], value) takes two arguments")
            target = node.args[0]
            if isinstance(target, ast.Name) and self.visible(target.id) is None and self.is_gtemp(target.id):
                arr = self.kscope.gtemp(target.id)
                if arr is None:
                    self.err(target, f"kernel-scope variable '{target.id}' is updated before it is assigned")
                if arr.ndim > 1:  # a kernel-scope vector or matrix: componentwise (it was refused)
                    cur = self.element_vec(arr, (ir.Const(0, i32),))
                    return self.member_atomic(f, cur, list(cur.items), target, node)
                val = cast(self.commit(self.value(node.args[1]), node, like=arr.dtype), arr.dtype)
                return ir.AtomicRMW(ATOMIC_OPS[f.name], arr, (ir.Const(0, i32),), val)
            if isinstance(target, ast.Name):
                return self.local_atomic(f, target, node)
            if isinstance(target, ast.Attribute):  # a struct member: s[i].v, s[i].inner.p, s.v[i].x
                cur = self.value(target)
                loads = cur.items if isinstance(cur, Vec) else [cur]
                if loads and all(isinstance(x, ir.Load) for x in loads):
                    return self.member_atomic(f, cur, loads, target, node)
            if not isinstance(target, ast.Subscript):
                self.err(target, f"qd.{f.name}'s first argument must be a variable or an array element like x[i]")
            arr = self.value(target.value)
            if isinstance(arr, Vec) and arr.items and all(isinstance(it, ir.Load) for it in arr.items):
                # qd.atomic_min(x[i][d], v): a component of an array-of-vectors element (voxel_example1's bbox)
                keys = self.component_keys(target.slice.elts if isinstance(target.slice, ast.Tuple)
                                           else [target.slice])
                picked = self.vec_pick_loads(arr, keys, target)
                if len(picked.items) != 1:
                    self.err(target, f"qd.{f.name} needs one component here, got {len(picked.items)}")
                ld = picked.items[0]
                val = cast(self.commit(self.value(node.args[1]), node, like=ld.array.dtype), ld.array.dtype)
                return ir.AtomicRMW(ATOMIC_OPS[f.name], ld.array, ld.indices, val, self.at(target))
            if not isinstance(arr, (ir.ArrayArg, ir.SharedArray)):
                self.err(target, f"qd.{f.name} needs an ndarray or shared-array element")
            idx = self.indices(arr, target.slice, partial=True)
            if ATOMIC_OPS[f.name] in ("and", "or", "xor") and not arr.dtype.is_int:
                self.err(node, f"qd.{f.name} needs an integer array, got {arr.dtype!r}", QuadrantsTypeError)
            value = self.value(node.args[1])
            if len(idx) < arr.ndim:  # an element of an array of vectors: componentwise, old values a vector
                elem = self.element_vec(arr, idx)
                vals = value.items if isinstance(value, Vec) else broadcast(value, len(elem.items))
                if len(vals) != len(elem.items):
                    self.err(node, f"qd.{f.name}: the value has {len(vals)} components, the element "
                                   f"{len(elem.items)}", QuadrantsTypeError)
                return Vec([ir.AtomicRMW(ATOMIC_OPS[f.name], arr, ld.indices, x, self.at(target))
                            for ld, x in zip(elem.items, self.staged(vals, arr.dtype, node))], elem.shape)
            val = cast(self.commit(value, node, like=arr.dtype), arr.dtype)
            return ir.AtomicRMW(ATOMIC_OPS[f.name], arr, idx, val, self.at(target))
        if f.kind == "random":
            return self.random_call(f, node)
        if f.kind == "snode":
            return self.snode_call(f, node)
        if f.kind == "bit_shr":
            return self.bit_shr(node)
        if f.kind == "bits":
            return self.bits_of(f, self.value(self.one_arg(node)), node)
        if f.kind == "simt":
            self.require_block_features(node, f"qd.simt.block.{f.name}()")
            return ir.SimtIndex(f.name)
        if f.kind == "barrier":
            self.require_block_features(node, f"qd.simt.block.{f.name}()")
            self.emit(ir.Barrier())
            return Py(None)
        if f.kind == "stop_grad":
            arr = self.value(self.one_arg(node))
            if not isinstance(arr, ir.ArrayArg):
                self.err(node, "qd.stop_grad(x) takes a field")
            self.stop_grad.add(arr.name)
            return Py(None)
        if f.kind in ("hint", "static_assert", "static_print", "one", "raw"):
            return self.misc_intrinsic(f, node)
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

    def atomic_cas_call(self, node):
        """`qd.atomic_cas(x[i], expected, desired)`: the old value; `desired` is written only where the
        element equalled `expected` (a local compares and assigns in place: one thread owns it)."""
        if len(node.args) != 3 or node.keywords:
            self.err(node, "qd.atomic_cas(x[i], expected, desired) takes three arguments")
        target = node.args[0]
        if isinstance(target, ast.Name):
            cur = self.lookup(target.id, target)
            if not isinstance(cur, ir.LocalRef):
                self.err(target, "qd.atomic_cas needs a local variable or an array element")
            dt = cur.local.dtype
            self.require_int_cas(dt, node)
            old = self.new_local("old", dt, cur)
            exp, new = (cast(self.commit(self.value(a), node, like=dt), dt) for a in node.args[1:])
            self.emit(ir.If(ir.Compare("==", ir.LocalRef(old), exp, u1), [ir.Assign(cur.local, new)], []))
            return ir.LocalRef(old)
        if not isinstance(target, ast.Subscript):
            self.err(target, "qd.atomic_cas's first argument must be a variable or an array element like x[i]")
        arr = self.value(target.value)
        if not isinstance(arr, (ir.ArrayArg, ir.SharedArray)):
            self.err(target, "qd.atomic_cas needs an ndarray, field or shared-array element")
        idx = self.indices(arr, target.slice)
        self.require_int_cas(arr.dtype, node)
        exp, new = (cast(self.commit(self.value(a), node, like=arr.dtype), arr.dtype) for a in node.args[1:])
        return ir.AtomicRMW("cas", arr, idx, new, self.at(target), expected=exp)

    def require_int_cas(self, dt, node):
        if not dt.is_int:  # as Quadrants: "'atomic_cas' requires integer operands"
            self.err(node, f"'atomic_cas' requires integer operands, got {dt!r} (compare the bits: "
                           f"qd.bit_cast(x, qd.i32))", QuadrantsTypeError)

    def bit_cast_call(self, node):
        """`qd.bit_cast(x, dtype)`: x's bits read as `dtype` (same width)."""
        if len(node.args) != 2:
            self.err(node, "qd.bit_cast(x, dtype) takes two arguments")
        dt = as_dtype(self.eval_static(node.args[1]))
        v = self.value(node.args[0])
        if dt is None or isinstance(v, Vec):
            self.err(node, "qd.bit_cast(x, dtype) takes a scalar and a qd dtype", QuadrantsTypeError)
        e = self.commit(v, node)
        if e.dtype.bits != dt.bits:
            self.err(node, f"qd.bit_cast: {e.dtype!r} and {dt!r} differ in width", QuadrantsTypeError)
        return ir.UnOp("bitcast", e, dt)

    def volatile_load(self, node):
        """`qd.volatile_load(x[i])`: the element of a field or ndarray, read (checked as Quadrants checks
        the argument: an element of global memory, not a whole field, a local or an expression). Every
        task here runs on one stream and reads memory afresh at each such load in program order."""
        if len(node.args) != 1 or node.keywords:
            self.err(node, "qd.volatile_load(x[i]) takes one argument, an element of a field or ndarray",
                     QuadrantsSyntaxError)
        arg = node.args[0]
        v = self.value(arg)
        if isinstance(arg, (ast.Name, ast.Attribute)) and isinstance(v, ir.ArrayArg):
            self.err(arg, "qd.volatile_load cannot take a Field directly; pass one element: qd.volatile_load(x[i])",
                     QuadrantsSyntaxError)
        if isinstance(v, Vec) and not all(isinstance(x, ir.Load) for x in v.items):
            self.err(arg, "qd.volatile_load cannot read a local array (a kernel-local vector or matrix): only "
                          "global memory (a field or ndarray element) is seen by other threads", QuadrantsTypeError)
        if not isinstance(arg, ast.Subscript):
            self.err(arg, "qd.volatile_load takes an lvalue: an element of a field or ndarray (x[i]), not an "
                          "expression", QuadrantsSyntaxError)
        return v

    def misc_intrinsic(self, f: I.Intrinsic, node):
        """Hints (`qd.assume_in_range`, `qd.volatile_load` give their value; `qd.block_local`,
        `qd.cache_read_only`, `qd.no_activate` change nothing where every tree is dense storage),
        compile-time `qd.static_assert` / `qd.static_print`, `qd.one(x)`, and C-style
        `qd.raw_div` / `qd.raw_mod` (truncating, the remainder takes the dividend's sign)."""
        if f.kind == "static_assert":
            if node.args and isinstance(node.args[0], ast.Name) and isinstance(
                    self.value(node.args[0]), (ir.Expr, ir.Local)) and not isinstance(self.value(node.args[0]), ir.Const):
                self.err(node.args[0], f"Static assert with non-static condition: '{node.args[0].id}' is a kernel "
                                       f"variable (known only at run time); test it with an assert, or use a "
                                       f"compile-time value", QuadrantsTypeError)
            args = [self.eval_static(a) for a in node.args]
            if not args[0]:
                self.err(node, str(args[1]) if len(args) > 1 else "qd.static_assert failed")
            return Py(None)
        if f.kind == "static_print":
            print(*[self.eval_static(a) for a in node.args])
            return Py(None)
        if f.kind == "hint":
            if f.name == "volatile_load":
                return self.volatile_load(node)
            if f.name == "assume_in_range":
                return self.value(node.args[0])
            return Py(None)
        if f.kind == "one":
            v = self.value(self.one_arg(node))
            one = lambda x: (Py(type(x.value)(1)) if is_number(x) else  # noqa: E731
                             ir.Const(1.0 if self.commit(x, node).dtype.is_float else 1, self.commit(x, node).dtype))
            return Vec([one(x) for x in v.items], v.shape) if isinstance(v, Vec) else one(v)
        if len(node.args) != 2:
            self.err(node, f"qd.{f.name}(a, b) takes two arguments")
        a, b = (self.value(x) for x in node.args)
        op = "rdiv" if f.name == "raw_div" else "rmod"

        def raw(x, y):
            if is_number(x) and is_number(y):
                return Py(f(x.value, y.value))
            ex, ey = self.pair(x, y, node)
            dt = promote(ex.dtype, ey.dtype)
            if op == "rdiv" and dt.is_float:
                return ir.BinOp("/", cast(ex, dt), cast(ey, dt), dt)
            return ir.BinOp(op, cast(ex, dt), cast(ey, dt), dt)
        if isinstance(a, Vec) or isinstance(b, Vec):
            return self.vec_binop_with(raw, a, b, node, f"qd.{f.name}")
        return raw(a, b)

    def bits_of(self, f: I.Intrinsic, v, node):
        """`qd.math.popcnt/clz/ffs(x)`: an i32 count over x's unsigned bit pattern (componentwise on
        vectors); `clz(0)` is x's width and `ffs(0)` is 0, as in Quadrants."""
        if isinstance(v, Vec):
            return Vec([self.bits_of(f, x, node) for x in v.items], v.shape)
        e = self.commit(v, node)
        if not e.dtype.is_int:
            self.err(node, f"qd.math.{f.name}() takes integral inputs only, got {e.dtype!r}", QuadrantsTypeError)
        return ir.MathCall(f.name, (e,), i32)

    def bit_shr(self, node):
        """`qd.bit_shr(x, n)`: shift right filling with zeros (`>>` on a signed x copies the sign)."""
        if len(node.args) != 2:
            self.err(node, "qd.bit_shr(x, n) takes two arguments")
        x, n = (self.value(a) for a in node.args)
        if isinstance(x, Vec) or isinstance(n, Vec):
            return self.vec_binop_with(lambda p, q: self.logical_shr(p, q, node), x, n, node)
        return self.logical_shr(x, n, node)

    def logical_shr(self, x, n, node):
        ex, en = self.pair(x, n, node)
        if not (ex.dtype.is_int and en.dtype.is_int):
            self.err(node, "qd.bit_shr needs integer operands", QuadrantsTypeError)
        dt = ex.dtype
        if dt.kind == "u":
            return ir.BinOp(">>", ex, cast(en, dt), dt)
        udt = UNSIGNED[dt.bits]
        return ir.Cast(ir.BinOp(">>", ir.Cast(ex, udt), cast(en, udt), udt), dt)

    def select_of(self, c, a, b, node):
        ea, eb = self.pair(a, b, node)
        dt = promote(ea.dtype, eb.dtype)
        cond = self.commit(c, node)
        cond = cond if cond.dtype == u1 else ir.Compare("!=", cond, ir.Const(0.0 if cond.dtype.is_float else 0,
                                                                            cond.dtype), u1)
        return ir.Select(cond, cast(ea, dt), cast(eb, dt), dt)

    def math_call(self, f: I.Intrinsic, node):
        nargs = f.nargs or 1
        args = [self.value(a) for a in node.args]
        out_dt = None
        dt_node = node.args[1] if f.name in ROUNDING and len(args) == 2 else \
            next((k.value for k in node.keywords if k.arg == "dtype"), None) if f.name in ROUNDING else None
        if node.keywords and (dt_node is None or len(node.keywords) > 1):
            self.err(node, f"qd.{f.name}() takes no keyword arguments" + (" but dtype=" if f.name in ROUNDING else ""))
        if dt_node is not None:  # qd.floor(x, qd.i32) / qd.floor(x, dtype=qd.u32): the result's dtype
            out_dt = as_dtype(self.eval_static(dt_node))
            if out_dt is None:
                self.err(dt_node, f"qd.{f.name}'s dtype argument must be a dtype", QuadrantsTypeError)
            args = args[:1]
        if len(args) != nargs:
            self.err(node, f"qd.{f.name}() takes {nargs} argument(s)")
        return self.apply_math(f, args, node, out_dt)

    def apply_math(self, f: I.Intrinsic, args, node, out_dt=None):
        vecs = [a for a in args if isinstance(a, Vec)]
        if vecs:  # componentwise, scalars broadcast
            n = len(vecs[0].items)
            cols = [a.items if isinstance(a, Vec) else broadcast(a, n) for a in args]
            return Vec([self.apply_math(f, list(xs), node, out_dt) for xs in zip(*cols)], vecs[0].shape)
        if all(is_number(a) for a in args) and out_dt is None:
            return Py(f(*[a.value for a in args]))
        if f.name == "pow" and len(args) == 2 and out_dt is None:  # qd.pow(x, n) is x ** n in Quadrants
            return self.binop("**", args[0], args[1], node)
        es = [self.commit(a, node) for a in args]
        if len(es) == 2:
            es = list(self.pair(args[0], args[1], node))
        dt = es[0].dtype if len(es) == 1 else promote(es[0].dtype, es[1].dtype)
        if (f.name in ROUNDING or f.name in REAL_ONLY) and not dt.is_float:
            self.err(node, f"'{f.name}' takes real inputs only, got {dt!r} (cast it: qd.{f.name}(qd.f32(x)))",
                     QuadrantsTypeError)
        if f.name in FLOAT_ONLY_MATH and not dt.is_float:  # in qd.init's default_fp, as Quadrants
            dt = f64 if dt == i64 else default_types()[1]
        if dt == f16:  # computed in f32; rounded back to f16, except atan2, which Quadrants leaves an f32
            out_dt = out_dt or (None if f.name in F16_MATH_GIVES_F32 else f16)
            dt = f32
        r = ir.MathCall(f.name, tuple(cast(e, dt) for e in es), dt)
        return cast(r, out_dt) if out_dt is not None else r

    def local_atomic(self, f: I.Intrinsic, target, node):
        """`qd.atomic_add(s, v)` on a local: a plain update (a local belongs to one thread); returns the old value."""
        cur = self.lookup(target.id, target)
        if isinstance(cur, Vec) and cur.items and all(isinstance(x, ir.LocalRef) for x in cur.items):
            return self.local_vec_atomic(f, cur, node)
        if not isinstance(cur, ir.LocalRef):
            self.err(target, f"qd.{f.name} needs a local variable or an array element; '{target.id}' is neither")
        dt = cur.local.dtype
        old = self.new_local("old", dt, cur)
        val = cast(self.commit(self.value(node.args[1]), node, like=dt), dt)
        kind = ATOMIC_OPS[f.name]
        if kind == "xchg":
            self.emit(ir.Assign(cur.local, val))
            return ir.LocalRef(old)
        op = {"add": "+", "sub": "-", "min": "min", "max": "max", "and": "&", "or": "|", "xor": "^", "mul": "*"}[kind]
        self.emit(ir.Assign(cur.local, ir.BinOp(op, ir.LocalRef(old), val, dt)))
        return ir.LocalRef(old)

    def local_vec_atomic(self, f: I.Intrinsic, cur: Vec, node):
        """`qd.atomic_add(v, w)` on a local vector or matrix (Quadrants accepts it; difftest class "vector"):
        every component updated from the right-hand side read whole first (`qd.atomic_add(v, v.zxy)`);
        returns the old vector. A scalar right-hand side is broadcast."""
        rhs = self.value(node.args[1])
        if isinstance(rhs, Vec) and rhs.shape != cur.shape:
            self.err(node, f"qd.{f.name} of a {'x'.join(map(str, cur.shape))} vector/matrix with a "
                           f"{'x'.join(map(str, rhs.shape))} one", QuadrantsTypeError)
        vals = rhs.items if isinstance(rhs, Vec) else broadcast(rhs, len(cur.items))
        kind = ATOMIC_OPS[f.name]
        op = {"add": "+", "sub": "-", "min": "min", "max": "max", "and": "&", "or": "|", "xor": "^",
              "mul": "*"}.get(kind)
        olds = [self.new_local("old", x.local.dtype, x) for x in cur.items]
        news = []
        for old, v in zip(olds, vals):
            val = cast(self.commit(v, node, like=old.dtype), old.dtype)
            news.append(self.new_local("new", old.dtype, val if kind == "xchg" or op is None else
                                       ir.BinOp(op, ir.LocalRef(old), val, old.dtype)))
        for x, new in zip(cur.items, news):  # only once every new component is computed
            self.emit(ir.Assign(x.local, ir.LocalRef(new)))
        return Vec([ir.LocalRef(o) for o in olds], cur.shape)

    def member_atomic(self, f: I.Intrinsic, cur, loads: list, target, node):
        """`qd.atomic_add(s[i].v, w)` on a struct member (difftest class "struct": a nested member was
        refused), or on a kernel-scope vector read in a loop: one atomic per component, the operand read
        whole first (`staged`); the old value(s)."""
        value = self.value(node.args[1])
        vals = value.items if isinstance(value, Vec) else broadcast(value, len(loads))
        if len(vals) != len(loads):
            self.err(node, f"qd.{f.name}: the value has {len(vals)} components, the member {len(loads)}",
                     QuadrantsTypeError)
        dt = loads[0].array.dtype
        if ATOMIC_OPS[f.name] in ("and", "or", "xor") and not dt.is_int:
            self.err(node, f"qd.{f.name} needs an integer member, got {dt!r}", QuadrantsTypeError)
        rmws = [ir.AtomicRMW(ATOMIC_OPS[f.name], ld.array, ld.indices, x, self.at(target))
                for ld, x in zip(loads, self.staged(vals, dt, node))]
        return Vec(rmws, cur.shape) if isinstance(cur, Vec) else rmws[0]
