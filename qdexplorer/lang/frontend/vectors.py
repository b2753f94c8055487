"""Small vectors and matrices in kernels, lowered to one scalar per component (Quadrants' `qd.Vector`,
`qd.Matrix`, `qd.math.vec3`...): no vector type reaches the IR, so codegen is unchanged.

A `Vec` holds one value per component (row-major for matrices). A vector local is a `Vec` of
`LocalRef`s, so assigning to it or to one component is an ordinary scalar assignment.
"""
from __future__ import annotations

import dataclasses

import ast
import math

from .. import intrinsics as I
from ... import ir
from ..calls import runtime_api
from ...ir.errors import QuadrantsIndexError, QuadrantsTypeError
from ...ir.dtypes import as_dtype, f32, i32, promote, u1
from .values import Py, Vec, VecMethod, broadcast, cast, default_types, fold, is_number, matrix_init
from .base import LoweringBase, Value

EPS_METHODS = ("norm", "norm_inv", "normalized")  # methods that take Quadrants' eps guard
SWIZZLE = {"x": 0, "y": 1, "z": 2, "w": 3, "r": 0, "g": 1, "b": 2, "a": 3, "s": 0, "t": 1, "p": 2, "q": 3}


def components(v) -> list:
    """The scalar components of a vector, or of a (nested) list or tuple of values, row-major."""
    if isinstance(v, Vec):
        return list(v.items)
    if isinstance(v, Py) and isinstance(v.value, (list, tuple)):
        return [x for e in v.value for x in components(Py(e))]
    if isinstance(v, list):
        return [x for e in v for x in components(e)]
    return [v]


TRANSPOSE_OF_VECTOR = ("`transpose()` cannot apply to a vector. If you want something like `a @ b.transpose()`, "
                       "write `a.outer_product(b)` instead.")


def _pick_tree(items: list, k: ir.Expr, first: int, dt) -> ir.Expr:
    """items[k - first] by halving: k below the middle index takes the left half."""
    if len(items) == 1:
        return items[0]
    mid = len(items) // 2
    return ir.Select(ir.Compare("<", k, ir.Const(first + mid, i32), u1), _pick_tree(items[:mid], k, first, dt),
                     _pick_tree(items[mid:], k, first + mid, dt), dt)


class VectorLowering(LoweringBase):
    """Mixin for `TaskBuilder`: building, indexing, arithmetic and methods of `Vec` values."""

    # ---- building
    def make_vec(self, items, shape, dt=None, node=None) -> Vec:
        if dt is not None:
            items = [cast(self.commit(x, node, like=dt), dt) for x in items]
        return Vec(list(items), tuple(shape))

    def vec_literal(self, args, node, dt=None, matrix=False) -> Vec:
        """`qd.Vector([a, b])`, `qd.Matrix([[a, b], [c, d]])`, `vec3(a, b, c)`, `vec3(0)`, `vec3(v2, z)`."""
        flat = components
        shape: tuple[int, ...]
        if matrix:
            given: Value = args if not (len(args) == 1) else args[0]
            given = given.value if isinstance(given, Py) else given
            if isinstance(given, (list, tuple)) and given and all(_scalar_entry(r) for r in given):
                items = [x for r in given for x in flat(r if not isinstance(r, (int, float)) else Py(r))]
                return self.typed_vec(items, (len(items),), dt, node)  # qd.Matrix([a, b, c]): a vector
            rows = [flat(r if not isinstance(r, (list, tuple)) else Py(r)) if not isinstance(r, list) else flat(r)
                    for r in given]
            if not rows or any(len(r) != len(rows[0]) for r in rows):
                self.err(node, "qd.Matrix needs rows of equal length")
            items = [x for r in rows for x in r]
            shape = (len(rows), len(rows[0]))
        else:
            items = [x for a in args for x in flat(a)]
            shape = (len(items),)
        return self.typed_vec(items, shape, dt, node)

    def typed_vec(self, items, shape, dt, node) -> Vec:
        if dt is None:  # Quadrants' _infer_array_dt: every entry's type promoted, a literal's being qd.init's
            ip, fp = default_types()  # default_ip / default_fp (qd.Vector([i, 1.5]) is f32, not i32)
            for x in items:
                t = (fp if isinstance(x.value, float) else ip) if is_number(x) else self.commit(x, node).dtype
                dt = t if dt is None else promote(dt, t)
        return Vec(matrix_init([cast(self.commit(x, node, like=dt), dt) for x in items]), tuple(shape))

    def vec_from_type(self, vt, node) -> Vec:
        args = [self.value(a) for a in node.args]
        size = math.prod(vt.shape)
        flat = []
        for a in args:  # vec3(x, y, z), vec3(v2, z), mat2([[a, b], [c, d]]), mat2(a, b, c, d)
            flat += components(a)
        if len(flat) == 1 and size > 1:
            flat = flat * size
        if len(flat) != size:
            self.err(node, f"{vt!r} takes {size} components, got {len(flat)}")
        return self.typed_vec(flat, vt.shape, vt.dtype, node)

    def vec_local(self, v: Vec, name="v") -> Vec:
        items = [self.commit(x, None) for x in v.items]
        return Vec([ir.LocalRef(self.new_local(name, x.dtype, x)) for x in items], v.shape)

    # ---- indexing
    def vec_slice_keys(self, v: Vec, idx, node):
        """`m[:3, 2]`, `m[1:, :2]`, `v[:2]` as the component keys they select (row-major) and the
        shape of the selection; None when no axis is sliced. Bounds and the other indices must be
        compile-time integers, as in Quadrants."""
        elts = list(idx.elts) if isinstance(idx, ast.Tuple) else [idx]
        if not any(isinstance(e, ast.Slice) for e in elts):
            return None
        if len(elts) != len(v.shape):
            self.err(node, f"a {'x'.join(map(str, v.shape))} value sliced with {len(elts)} indices: give one per axis",
                     QuadrantsIndexError)
        axes: list[list] = []
        shape: list[int] = []
        for e, n in zip(elts, v.shape):
            if isinstance(e, ast.Slice):
                bounds = self.slice_bounds(e, node)
                picked = list(range(*slice(*bounds).indices(n)))
                if not picked:
                    self.err(node, "this slice of the matrix is empty", QuadrantsIndexError)
                axes.append(picked)
                shape.append(len(picked))
            else:
                k = self.value(e)
                if not is_number(k):  # a runtime index beside a slice (m[i, :]): picked at run time
                    ke = self.commit(k, e, like=i32)
                    if not ke.dtype.is_int:
                        self.err(node, "an index beside a slice must be an integer", QuadrantsIndexError)
                    axes.append([ke])
                    continue
                self._check_range(k.value, n, node)
                axes.append([k.value % n])
        key = lambda x: Py(x) if isinstance(x, int) else x  # noqa: E731 - a runtime index stays an expression
        keys = [[key(r), key(c)] for r in axes[0] for c in axes[1]] if len(axes) == 2 else [[key(i)] for i in axes[0]]
        return keys, tuple(shape)

    def slice_bounds(self, e: ast.Slice, node) -> list:
        """A slice's (lower, upper, step), each None or a compile-time int, as Quadrants requires."""
        bounds = []
        for b in (e.lower, e.upper, e.step):
            v = None if b is None else self.value(b)
            if v is not None and not (is_number(v) and isinstance(v.value, int) and not isinstance(v.value, bool)):
                self.err(node, "Quadrants does not support variables in slice now: slice bounds must be "
                               "compile-time integers (constants or qd.static values)", QuadrantsIndexError)
            bounds.append(None if v is None else v.value)
        return bounds

    def vec_subscript(self, v: Vec, node):
        idx = node.slice
        sel = self.vec_slice_keys(v, idx, node) if len(v.shape) == 2 else None
        if sel is not None:  # m[:3, :3] (a matrix), m[:3, 2] / m[1, :] (a vector)
            keys, shape = sel
            return Vec([self.vec_pick(v, k, node) for k in keys], shape)
        if isinstance(idx, ast.Slice):  # v[:2], v[1:], v[::-1]: compile-time bounds, a vector
            if len(v.shape) != 1:
                self.err(node, "only vectors can be sliced in a kernel", QuadrantsIndexError)
            bounds = self.slice_bounds(idx, node)
            items = v.items[slice(*bounds)]
            if not items:
                self.err(node, "this slice of the vector is empty", QuadrantsIndexError)
            return Vec(list(items))
        elts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
        if len(elts) != len(v.shape):  # Quadrants indexes a matrix with both indices (m[i] is no row)
            self.err(node, f"Expected {len(v.shape)} indices, got {len(elts)} (a {'x'.join(map(str, v.shape))} "
                           f"{'vector' if len(v.shape) == 1 else 'matrix'} takes {len(v.shape)} index(es))",
                     QuadrantsIndexError)
        keys = self.component_keys(elts)
        if len(keys) > len(v.shape):
            self.err(node, f"a {'x'.join(map(str, v.shape))} value takes at most {len(v.shape)} indices",
                     QuadrantsIndexError)
        return self.vec_pick(v, keys, node)

    def component_keys(self, elts) -> list:
        """The indices of `v[i, j]`; an index vector (`m[I]`, I from qd.grouped) gives one per component."""
        keys: list = []
        for e in elts:
            k = self.value(e)
            keys += k.items if isinstance(k, Vec) else [k]
        return keys

    def vec_pick(self, v: Vec, keys, node):
        cols = v.shape[1] if len(v.shape) == 2 else 1
        if len(v.shape) == 2 and len(keys) == 1:  # m[i]: row i
            return self._pick([Vec(v.items[r * cols:(r + 1) * cols]) for r in range(v.shape[0])], keys[0], node)
        if len(keys) == 2:
            if is_number(keys[0]) and is_number(keys[1]):
                self._check_range(keys[0].value, v.shape[0], node)
                self._check_range(keys[1].value, cols, node)
                return v.items[keys[0].value * cols + keys[1].value]
            k0 = cast(self.commit(keys[0], node, like=i32), i32)
            k1 = cast(self.commit(keys[1], node, like=i32), i32)
            self.debug_check_index(k0, v.shape[0], v.shape, node)
            self.debug_check_index(k1, cols, v.shape, node)
            flat = ir.BinOp("+", ir.BinOp("*", k0, ir.Const(cols, i32), i32), k1, i32)
            return self._pick(v.items, flat, node, v.shape)
        return self._pick(v.items, keys[0], node)

    def _check_range(self, k, n, node):
        if not isinstance(k, int) or not -n <= k < n:
            self.err(node, f"index {k!r} is out of range for {n} components", QuadrantsIndexError)

    def debug_check_index(self, k: ir.Expr, n: int, shape: tuple, node) -> None:
        """Debug mode: a runtime index into a local vector/matrix outside `range(n)` fails the call
        with Quadrants' words, as its debug mode does (otherwise such an access is unchecked)."""
        if not runtime_api.debug():
            return
        site = self.kscope.check_site(self.frame.src, node, f"Out of bound access to a {list(shape)} matrix "
                                                            f"(an index outside range({n}))")
        flag = self.kscope.assert_flag()
        bad = ir.BinOp("or", ir.Compare("<", k, ir.Const(0, i32), u1), ir.Compare(">=", k, ir.Const(n, i32), u1), u1)
        first = ir.Compare("==", ir.Load(flag, (ir.Const(0, i32),)), ir.Const(0, i32), u1)  # as a failed assert
        self.emit(ir.If(bad, [ir.If(first, [ir.Store(flag, (ir.Const(0, i32),), ir.Const(site, i32))], [])], []))

    def _pick(self, items, key, node, shape: tuple | None = None):
        if is_number(key):
            self._check_range(key.value, len(items), node)
            return items[key.value]
        k = cast(self.commit(key, node, like=i32), i32)
        if shape is None or len(shape) == 1:
            self.debug_check_index(k, len(items), shape or (len(items),), node)
        if any(isinstance(it, Vec) for it in items):
            self.err(node, "a matrix row index must be a compile-time constant (use m[i, j] instead)")
        items = [self.commit(it, node) for it in items]
        acc = items[-1]
        dt = acc.dtype
        if len(items) > 32:  # a long vector (qd.types.vector(1024, ...)): a balanced tree, log2(n) deep
            return _pick_tree([cast(x, dt) for x in items], k, 0, dt)
        for j in range(len(items) - 2, -1, -1):
            acc = ir.Select(ir.Compare("==", k, ir.Const(j, i32), u1), cast(items[j], dt), acc, dt)
        return acc

    def vec_assign_component(self, v: Vec, keys, value, node):
        """`v[i] = x` / `m[i, j] = x` on a vector local (a dynamic index becomes one guarded store each)."""
        cols = v.shape[1] if len(v.shape) == 2 else 1
        if len(v.shape) == 2 and len(keys) == 1:
            if not is_number(keys[0]):
                self.err(node, "a matrix row index must be a compile-time constant")
            targets = v.items[keys[0].value * cols:(keys[0].value + 1) * cols]
            vals = value.items if isinstance(value, Vec) else [value] * cols
            for t, x in zip(targets, vals):
                self.assign_ref(t, x, node)
            return
        if len(keys) == 2:
            if is_number(keys[0]) and is_number(keys[1]):
                return self.assign_ref(v.items[keys[0].value * cols + keys[1].value], value, node)
            k0 = cast(self.commit(keys[0], node, like=i32), i32)
            k1 = cast(self.commit(keys[1], node, like=i32), i32)
            self.debug_check_index(k0, v.shape[0], v.shape, node)
            self.debug_check_index(k1, cols, v.shape, node)
            key: Value = ir.BinOp("+", ir.BinOp("*", k0, ir.Const(cols, i32), i32), k1, i32)
        else:
            key = keys[0]
            if not is_number(key):
                key = cast(self.commit(key, node, like=i32), i32)
                self.debug_check_index(key, len(v.items), v.shape, node)
        if is_number(key):
            self._check_range(key.value, len(v.items), node)
            return self.assign_ref(v.items[key.value], value, node)
        k = cast(self.commit(key, node, like=i32), i32)
        x = self.commit(value, node)
        tmp = ir.LocalRef(self.new_local("elem", x.dtype, x))
        for j, t in enumerate(v.items):
            self.out.append([])
            self.assign_ref(t, tmp, node)
            body = self.out.pop()
            self.emit(ir.If(ir.Compare("==", k, ir.Const(j, i32), u1), body, []))

    def assign_ref(self, target, value, node):
        if not isinstance(target, ir.LocalRef):
            self.err(node, "only components of a vector variable can be assigned")
        dt = target.local.dtype
        self.emit(ir.Assign(target.local, cast(self.commit(value, node, like=dt), dt)))

    def vec_attr(self, v: Vec, attr, node):
        if attr == "n":
            return Py(v.shape[0])
        if attr == "m":
            return Py(v.shape[1] if len(v.shape) == 2 else 1)
        if attr in ("T",):
            return self.vec_transpose(v)
        if attr == "shape":  # `v.shape` / a NumPy constant's `w.shape`: known at compile time
            return Py(tuple(v.shape))
        if all(c in SWIZZLE for c in attr) and len(v.shape) == 1:
            idx = [SWIZZLE[c] for c in attr]
            if max(idx) >= v.shape[0]:
                self.err(node, f"'.{attr}' needs a vector of at least {max(idx) + 1} components")
            return v.items[idx[0]] if len(idx) == 1 else Vec([v.items[i] for i in idx])
        return Py(VecMethod(v, attr))

    # ---- arithmetic
    def vec_binop(self, op, a, b, node):
        if op == "@":
            return self.vec_matmul(a, b, node)
        return self.vec_binop_with(lambda x, y: self.scalar_binop(op, x, y, node), a, b, node, op)

    def vec_binop_with(self, fn, a, b, node, what: str = "this operation") -> Vec:
        """`fn` componentwise over two vectors of one shape, or a vector and a scalar (broadcast); a
        list or tuple of numbers is a vector (`v == [1, 0, 0]`)."""
        a, b = (Vec(components(x)) if isinstance(x, Py) and isinstance(x.value, (list, tuple)) else x for x in (a, b))
        if isinstance(a, Vec) and isinstance(b, Vec) and a.shape != b.shape:
            self.err(node, f"shapes {a.shape} and {b.shape} do not match for '{what}'", QuadrantsTypeError)
        shape = a.shape if isinstance(a, Vec) else b.shape
        n = len(a.items if isinstance(a, Vec) else b.items)
        xs = a.items if isinstance(a, Vec) else broadcast(a, n)
        ys = b.items if isinstance(b, Vec) else broadcast(b, n)
        return Vec([fn(x, y) for x, y in zip(xs, ys)], shape)

    def scalar_binop(self, op, x, y, node):
        if is_number(x) and is_number(y):
            return Py(fold(op, x.value, y.value))
        if op in ("<", "<=", ">", ">=", "==", "!="):
            ea, eb = self.pair(x, y, node)
            dt = promote(ea.dtype, eb.dtype)
            return ir.Compare(op, cast(ea, dt), cast(eb, dt), u1)  # a u1 per component, as Quadrants
        r = self.binop(op, x, y, node)
        if isinstance(r, ir.BinOp) and r.dtype.is_float:
            r = dataclasses.replace(r, vec=True)   # a component of a tensor operation (alg_simp.py)
        return r

    def vec_matmul(self, a, b, node):
        if not (isinstance(a, Vec) and isinstance(b, Vec)):
            self.err(node, "'@' needs two vectors or matrices", QuadrantsTypeError)
        am = a if len(a.shape) == 2 else Vec(a.items, (1, a.shape[0]))
        bm = b if len(b.shape) == 2 else Vec(b.items, (b.shape[0], 1))
        if am.shape[1] != bm.shape[0]:
            self.err(node, f"cannot multiply {a.shape} by {b.shape}", QuadrantsTypeError)
        n, k, m = am.shape[0], am.shape[1], bm.shape[1]
        out = []
        # Quadrants' _matmul_helper sums into `x[0, 0] * y[0, 0] * 0`: products in the operands' type, the sum in
        # that type met by an int literal (default_ip), so u8 @ u8 adds its (wrapped) products in i32
        first = self.binop("*", am.items[0], bm.items[0], node)
        zero = self.binop("*", first, Py(0), node)
        zt = zero.dtype if isinstance(zero, ir.Expr) else None
        for i in range(n):
            for j in range(m):
                acc = None
                for t in range(k):
                    p = self.binop("*", am.items[i * k + t], bm.items[t * m + j], node)
                    if acc is None:
                        acc = cast(self.commit(p, node), zt) if zt is not None and not is_number(p) else p
                    else:
                        acc = self.binop("+", acc, p, node)
                        acc = cast(acc, zt) if zt is not None and isinstance(acc, ir.Expr) else acc
                out.append(acc)
        if len(a.shape) == 1 and len(b.shape) == 1:
            return out[0]
        if len(b.shape) == 1:
            return Vec(out, (n,))
        if len(a.shape) == 1:
            return Vec(out, (m,))
        return Vec(out, (n, m))

    def vec_transpose(self, v: Vec) -> Vec:
        if len(v.shape) == 1:
            return Vec(list(v.items), (1, v.shape[0]))
        n, m = v.shape
        return Vec([v.items[i * m + j] for j in range(m) for i in range(n)], (m, n))

    def vec_reduce(self, op, v: Vec, node):
        acc = v.items[0]
        for x in v.items[1:]:
            acc = self.binop(op, acc, x, node) if op in ("+", "*") else self.minmax_pair(op, acc, x, node)
        return acc

    def reduced(self, op, v: Vec, node):
        """`v.sum()`, `v.dot(w)`, `v.max()`...: Quadrants' qd.func keeps the running result in a variable
        it assigns once per component, and returns that variable: a local here, marked as assigned
        more than once (never forwarded), so reverse mode sums the adjoints of its reads into it before
        differentiating the reduction once, as Quadrants does (`v.dot(w) * v`)."""
        acc = self.vec_reduce(op, v, node)
        if len(v.items) < 2 or not isinstance(acc, ir.Expr) or not acc.dtype.is_float:
            return acc
        loc = self.new_local("reduce", acc.dtype, acc)
        loc.reassigned = True
        return ir.LocalRef(loc)

    def minmax_pair(self, op, a, b, node):
        if is_number(a) and is_number(b):
            return Py(min(a.value, b.value) if op == "min" else max(a.value, b.value))
        ea, eb = self.pair(a, b, node)
        dt = promote(ea.dtype, eb.dtype)
        return ir.BinOp(op, cast(ea, dt), cast(eb, dt), dt)

    def vec_call_method(self, m: VecMethod, node):
        v, name = m.vec, m.name
        if name in EPS_METHODS:
            return self.vec_eps_method(v, name, node)
        if node.keywords:
            self.err(node, f"v.{name}() takes no keyword arguments in a kernel")
        args = [self.value(a) for a in node.args]
        if name == "fill":  # v.fill(x): every component set to x, in place (a local or an array element)
            if len(args) != 1:
                self.err(node, "v.fill(value) takes one argument")
            if all(isinstance(x, ir.Load) for x in v.items):  # an array element: store through
                self.store_vec(v.items[0].array, v, args[0], node)
            else:
                self.assign_vec(v, args[0], node)
            return Py(None)
        if name == "dot":
            return self.reduced("+", self.vec_binop("*", v, args[0], node), node)
        if name == "cross":
            return self.vec_cross(v, args[0], node)
        if name == "length":  # qd.math.length(v) is v.norm()
            return self.math_of("sqrt", self.norm_sqr(v, node), node)
        if name == "norm_sqr":
            return self.norm_sqr(v, node)
        if name == "normalize":  # qd.math.normalize(v): v / v.norm(), as Quadrants divides
            return self.vec_binop("/", v, self.math_of("sqrt", self.norm_sqr(v, node), node), node)
        if name == "sum":
            return self.reduced("+", v, node)
        if name in ("max", "min"):
            return self.reduced(name, v, node)
        if name == "transpose":
            if len(v.shape) == 1:
                self.err(node, TRANSPOSE_OF_VECTOR)
            return self.vec_transpose(v)
        if name == "trace":
            if len(v.shape) != 2 or v.shape[0] != v.shape[1]:
                self.err(node, f"expected a square matrix, got shape {tuple(v.shape)}")
            n = v.shape[0]
            return self.reduced("+", Vec([v.items[i * n + i] for i in range(n)]), node)
        if name == "determinant":
            return self.vec_det(v, node)
        if name == "inverse":
            return self.vec_inverse(v, node)
        if name == "outer_product":
            w = args[0]
            return Vec([self.binop("*", x, y, node) for x in v.items for y in w.items], (len(v.items), len(w.items)))
        if name == "cast":
            dt = as_dtype(self.eval_static(node.args[0]))
            if dt is None:
                self.err(node, "v.cast(dtype) needs a qd dtype (qd.f32, qd.i32, ...)", QuadrantsTypeError)
            return Vec([cast(self.commit(x, node, like=dt), dt) for x in v.items], v.shape)
        if name in ("any", "all"):
            return self.vec_anyall(name, v, node)
        if name == "to_numpy":
            self.err(node, "to_numpy() is for Python code, not kernels")
        self.err(node, f"vectors have no method '{name}' in kernels")

    def norm_sqr(self, v: Vec, node):
        return self.reduced("+", self.vec_binop("*", v, v, node), node)

    def vec_eps_method(self, v: Vec, name: str, node):
        """`v.norm(eps)`, `v.norm_inv(eps)` and `v.normalized(eps)` as Quadrants computes them: eps is
        added under the square root for the first two, and to the length for `normalized`
        (`v * (1 / (|v| + eps))`); positional or `eps=`."""
        if len(node.args) + len(node.keywords) > 1 or any(k.arg != "eps" for k in node.keywords):
            self.err(node, f"v.{name}() takes one argument, eps")
        given = node.args or [k.value for k in node.keywords]
        eps = self.value(given[0]) if given else Py(0)
        if isinstance(eps, Vec):
            self.err(node, f"v.{name}(eps): eps must be a scalar", QuadrantsTypeError)
        plus_eps = (lambda x: x) if is_number(eps) and eps.value == 0 else (lambda x: self.binop("+", x, eps, node))
        sq = self.norm_sqr(v, node)
        if name == "norm":
            return self.math_of("sqrt", plus_eps(sq), node)
        if name == "norm_inv":
            return self.math_of("rsqrt", plus_eps(sq), node)
        inv = self.binop("/", Py(1), plus_eps(self.math_of("sqrt", sq, node)), node)
        if isinstance(inv, ir.Expr):  # Quadrants' `invlen = 1 / (norm(vec) + eps)`: a variable
            inv = ir.LocalRef(self.new_local("invlen", inv.dtype, inv))
        return self.vec_binop("*", inv, v, node)

    def vec_anyall(self, name, v: Vec, node):
        acc = None
        for x in v.items:
            t = self.commit(x, node)
            t = t if t.dtype == u1 else ir.Compare("!=", t, ir.Const(0.0 if t.dtype.is_float else 0, t.dtype), u1)
            acc = t if acc is None else ir.BinOp("and" if name == "all" else "or", acc, t, u1)
        return acc

    def vec_cross(self, a, b, node):
        if a.shape == (3,) and b.shape == (3,):
            x, y = a.items, b.items
            m = lambda p, q, r, s: self.binop("-", self.binop("*", p, q, node), self.binop("*", r, s, node), node)  # noqa: E731
            return Vec([m(x[1], y[2], x[2], y[1]), m(x[2], y[0], x[0], y[2]), m(x[0], y[1], x[1], y[0])])
        if a.shape == (2,) and b.shape == (2,):
            return self.binop("-", self.binop("*", a.items[0], b.items[1], node),
                              self.binop("*", a.items[1], b.items[0], node), node)
        self.err(node, "cross() needs two 2- or 3-vectors", QuadrantsTypeError)

    def vec_det(self, v: Vec, node):
        n = v.shape[0]
        e = lambda i, j: v.items[i * n + j]  # noqa: E731
        mul, sub, add = (lambda p, q: self.binop("*", p, q, node)), (lambda p, q: self.binop("-", p, q, node)), \
            (lambda p, q: self.binop("+", p, q, node))
        if v.shape == (2, 2):
            return sub(mul(e(0, 0), e(1, 1)), mul(e(0, 1), e(1, 0)))
        if v.shape == (3, 3):
            c0 = sub(mul(e(1, 1), e(2, 2)), mul(e(1, 2), e(2, 1)))
            c1 = sub(mul(e(1, 0), e(2, 2)), mul(e(1, 2), e(2, 0)))
            c2 = sub(mul(e(1, 0), e(2, 1)), mul(e(1, 1), e(2, 0)))
            return add(sub(mul(e(0, 0), c0), mul(e(0, 1), c1)), mul(e(0, 2), c2))
        if v.shape == (4, 4):  # Laplace expansion along the first row
            minors = [self.vec_det(self.minor(v, 0, j), node) for j in range(4)]
            acc = mul(e(0, 0), minors[0])
            for j in range(1, 4):
                acc = (sub if j % 2 else add)(acc, mul(e(0, j), minors[j]))
            return acc
        if v.shape == (1, 1):
            return e(0, 0)
        self.err(node, f"determinant() supports 1x1 to 4x4 matrices, got {v.shape}", QuadrantsTypeError)

    def minor(self, v: Vec, i: int, j: int) -> Vec:
        n = v.shape[0]
        return Vec([v.items[r * n + c] for r in range(n) if r != i for c in range(n) if c != j], (n - 1, n - 1))

    def vec_inverse(self, v: Vec, node):
        """`m.inverse()` (`qd.math.inverse(m)`) of a 1x1 to 4x4 matrix: the adjugate times 1/det, as
        Quadrants' closed forms compute it."""
        n = v.shape[0]
        if len(v.shape) != 2 or v.shape[1] != n or not 1 <= n <= 4:
            self.err(node, f"inverse() needs a square matrix of size 1 to 4, got shape {v.shape}", QuadrantsTypeError)
        v = self.vec_local(v, "inv")
        inv_det = self.binop("/", Py(1.0), self.vec_det(v, node), node)
        if n == 1:
            return Vec([inv_det], (1, 1))
        cof = []
        for r in range(n):        # entry (r, c) of the adjugate is the cofactor (c, r)
            for c in range(n):
                minor = self.minor(v, c, r)
                d = minor.items[0] if n == 2 else self.vec_det(minor, node)
                cof.append(d if (r + c) % 2 == 0 else self.unary_neg(d, node))
        return Vec([self.binop("*", inv_det, x, node) for x in cof], (n, n))

    def unary_neg(self, x, node):
        if is_number(x):
            return Py(-x.value)
        e = self.commit(x, node)
        return ir.UnOp("neg", e, e.dtype)

    def math_of(self, name, x, node):
        return self.apply_math(getattr(I, name), [x], node)


def _scalar_entry(r) -> bool:
    """An entry of `qd.Matrix([...])` that is one number (not a row)."""
    if isinstance(r, Py):
        r = r.value
    return isinstance(r, (int, float, ir.Expr)) and not isinstance(r, bool)
