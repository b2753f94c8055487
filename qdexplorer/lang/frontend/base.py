"""What the lowering mixins share: one task's builder state, its plumbing, and what each mixin
provides to the others.

`TaskBuilder` (builder.py) combines one mixin per family of constructs; each mixin calls into the
others (`StatementLowering` needs `value` from `ExprLowering`, every mixin needs `err`). This base
class is that contract, written down so a type checker can follow it: the state and plumbing are
here, and each method another mixin provides is declared abstract with the signature it keeps.
"""
from __future__ import annotations

import ast
import itertools
from abc import ABC, abstractmethod
from typing import Any, NoReturn

from .. import intrinsics as I
from ... import ir
from ..calls import runtime_api
from ...ir.errors import QdCompileError, QuadrantsNameError, QuadrantsSyntaxError
from ..field import Storage
from ..func import Func
from ..tasks.source import flat_env
from ..struct_types import StructField
from ...ir.dtypes import DType, i32, u1
from .frame import Frame
from .kernel_scope import KernelScope
from .values import BoundMethod, BufView, Py, Seq, StructArr, StructVal, Vec, VecMethod, ViewMethod, cast, py_value

Value = Any
"""What lowering an expression gives: a typed `ir.Expr`, a compile-time `Py`, a `Vec`, an array
(`ir.ArrayArg`, `ir.SharedArray`), a `ShapeTuple`, or a list of those (a func's returned tuple)."""


class StaticBreak(Exception):
    """A `break` reached while unrolling a qd.static loop outside any runtime branch (`if
    qd.static(i == 2): break`): it unwinds to that loop, which stops unrolling (loops.py)."""


class StaticContinue(StaticBreak):
    """A `continue` reached while unrolling a qd.static loop outside any runtime branch: the
    unrolling goes on with the loop's next item."""


class LoweringBase(ABC):
    """The state of one task being lowered, and the methods the mixins call on each other."""

    kernel_name: str
    kscope: KernelScope
    frames: list[Frame]
    in_parallel: bool
    runtime_nesting: int
    out: list[list[ir.Stmt]]  # the blocks being filled, innermost last
    shared: list[ir.SharedArray]
    stop_grad: set
    counter: itertools.count
    block_features_ok: bool
    inline_stack: list[Func]
    other_task_names: set[str]  # top-level names of the kernel, for a better error hint
    made_locals: list[ir.Local]  # every local new_local made, in order (see v_BoolOp)
    task_index: int  # the task's place in its kernel (each task draws its own random streams)
    thread_ids: list[ir.Expr]  # a parallel task's loop indices: what tells its threads apart
    rng_state: ir.Local | None  # the thread's random stream position, made at its first draw (random.py)

    # -- plumbing
    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def err(self, node, msg: str, cls: type[QdCompileError] = QdCompileError) -> NoReturn:
        e = self.frame.src.error(node, msg, cls)
        try:
            e.trace = "".join(pos_info(fr.src, n) for fr, n in zip(self.frames, [
                getattr(f, "call_node", None) for f in self.frames[:-1]] + [node]) if n is not None)
        except Exception:  # noqa: BLE001 - the position text is a courtesy; the error itself must come out
            e.trace = ""
        e.args = (str(e),)
        raise e

    def at(self, node) -> str:
        """"file:line" of `node` in the user's source (debug mode reports accesses by it)."""
        f, line, *_ = self.frame.src.where(node)
        return f"{f}:{line}"

    def emit(self, stmt):
        if self.kscope.field_objs:  # a write under a pointer/bitmasked container activates its cells
            stmt = self.activating(stmt)
        self.out[-1].append(stmt)

    def new_local(self, name, dtype: DType, init: ir.Expr | None = None) -> ir.Local:
        is_bool = dtype == u1
        if is_bool:
            dtype = i32
        loc = ir.Local(f"{name}.{next(self.counter)}", dtype)
        self.made_locals.append(loc)
        if is_bool:  # stored in an i32, read back as the u1 it holds (v_Name): `p = a < b; p + q` is u1 arithmetic
            self.__dict__.setdefault("bool_locals", set()).add(id(loc))
        if init is not None:
            self.emit(ir.Assign(loc, cast(init, dtype)))
        return loc

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

    def user_ndim(self, arr) -> int:
        """Axes the user indexes (an array of vectors keeps its components as trailing axes)."""
        return arr.ndim - len(self.kscope.elem_shapes.get(arr.name, ()))

    def eval_static(self, node):
        """Evaluate an expression in Python at compile time (qd.static, shapes, dtypes)."""
        env = flat_env(self.frame.env)
        local_names = {k for scope in self.frame.scopes for k in scope}
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id not in local_names and n.id in env:
                self.check_global_float(n.id, env[n.id], n)
        for scope in self.frame.scopes:
            for k, v in scope.items():
                seen = _static_view(v)
                if isinstance(v, ir.ArrayArg):  # an array: the field itself where there is one (x.shape works)
                    seen = self.kscope.field_objs.get(v.name, v)
                if seen is not _UNKNOWN:
                    env[k] = seen
                elif k in env:
                    del env[k]
        try:
            return eval(compile(ast.Expression(node), "<qd.static>", "eval"), env)  # noqa: S307
        except NameError as e:
            self.err(node, f"{e}: values in qd.static(...) and other compile-time expressions must be compile-time "
                           f"constants (constants, globals, qd.static values and qd.template() arguments)")
        except QdCompileError as e:  # Quadrants' own error (qd.ndrange's checks): its class, at the user's line
            self.err(node, e.message, type(e))
        except Exception as e:  # noqa: BLE001 - reported at the user's line
            self.err(node, f"could not evaluate at compile time: {type(e).__name__}: {e}")

    def require_block_features(self, node, what):
        if not self.in_parallel:
            self.err(node, f"{what} is only allowed inside a parallel for loop")

    def shared_array(self, shape, dt):
        arr = ir.SharedArray(f"shared_{len(self.shared)}", dt, shape)
        self.shared.append(arr)
        return arr

    # -- statements
    def block(self, stmts) -> list[ir.Stmt]:
        self.out.append([])
        self.frame.scopes.append({})
        try:
            for s in stmts:
                self.stmt(s)
        finally:
            self.frame.scopes.pop()
        return self.out.pop()

    def stmt(self, node):
        method = getattr(self, "s_" + type(node).__name__, None)
        if method is None:
            what = type(node).__name__
            if what in ("FunctionDef", "AsyncFunctionDef", "ClassDef"):
                self.err(node, f"Function definition is not allowed in 'qd.{'func' if len(self.frames) > 1 else 'kernel'}'"
                               f". (unsupported statement '{what}': define it at module level, as a @qd.func)",
                         QuadrantsSyntaxError)
            self.err(node, f'Unsupported node "{what}": unsupported statement \'{what}\' in a kernel',
                     QuadrantsSyntaxError)
        try:
            method(node)
        except (QdCompileError, RecursionError, StaticBreak):  # StaticContinue is a StaticBreak
            raise
        except Exception as e:  # noqa: BLE001 - a compiler bug still points at the user's line
            self.err(node, f"internal compiler error while lowering this statement ({type(e).__name__}: {e}); "
                           f"please report it with this kernel")


    # -- provided by ExprLowering (exprs.py)
    @abstractmethod
    def value(self, node: ast.AST) -> Value: ...

    @abstractmethod
    def commit(self, v: Value, node: ast.AST | None, like: DType | None = None) -> ir.Expr: ...

    @abstractmethod
    def binop(self, op: str, a: Value, b: Value, node: ast.AST) -> Value: ...

    @abstractmethod
    def pair(self, a: Value, b: Value, node: ast.AST) -> tuple[ir.Expr, ir.Expr]: ...

    @abstractmethod
    def indices(self, arr: ir.ArrayArg | ir.SharedArray, idx_node: ast.AST,
                partial: bool = False) -> tuple[ir.Expr, ...]: ...

    @abstractmethod
    def element_vec(self, arr: ir.ArrayArg | ir.SharedArray, idx: tuple) -> Vec: ...

    # -- provided by ViewLowering (views.py)
    @abstractmethod
    def view_attr(self, v: BufView, attr: str, node: ast.AST) -> Value: ...

    @abstractmethod
    def view_subscript(self, v: BufView, node: ast.Subscript) -> Value: ...

    @abstractmethod
    def view_index(self, v: BufView, idx_node: ast.AST, node: ast.AST) -> tuple: ...

    @abstractmethod
    def view_method(self, m: ViewMethod, node: ast.Call) -> BufView: ...

    @abstractmethod
    def construct_view(self, node: ast.Call) -> BufView: ...

    # -- provided by SparseLowering (sparse.py)
    @abstractmethod
    def activating(self, stmt: ir.Stmt) -> ir.Stmt: ...

    @abstractmethod
    def snode_call(self, f: I.Intrinsic, node: ast.Call) -> Value: ...

    @abstractmethod
    def array_attr(self, arr: ir.ArrayArg, attr: str, node: ast.AST) -> Value: ...

    @abstractmethod
    def array_method(self, m: Any, node: ast.Call) -> Value: ...

    @abstractmethod
    def list_method(self, node: ast.Attribute) -> Value | None: ...

    @abstractmethod
    def list_call(self, name: str, s: Any, idx: list, val_node: ast.AST | None, node: ast.AST) -> Value: ...

    # -- provided by VectorLowering (vectors.py)
    @abstractmethod
    def make_vec(self, items, shape: tuple, dt: DType | None = None, node: ast.AST | None = None) -> Vec: ...

    @abstractmethod
    def vec_literal(self, args: list, node: ast.AST, dt: DType | None = None, matrix: bool = False) -> Vec: ...

    @abstractmethod
    def vec_from_type(self, vt, node: ast.Call) -> Vec: ...

    @abstractmethod
    def vec_local(self, v: Vec, name: str = "v") -> Vec: ...

    @abstractmethod
    def vec_subscript(self, v: Vec, node: ast.Subscript) -> Value: ...

    @abstractmethod
    def vec_pick(self, v: Vec, keys: list, node: ast.AST) -> Value: ...

    @abstractmethod
    def component_keys(self, elts: list) -> list: ...

    @abstractmethod
    def vec_slice_keys(self, v: Vec, idx: ast.expr, node: ast.AST) -> tuple[list, tuple] | None: ...

    @abstractmethod
    def vec_assign_component(self, v: Vec, keys: list, value: Value, node: ast.AST) -> None: ...

    @abstractmethod
    def assign_ref(self, target: Value, value: Value, node: ast.AST) -> None: ...

    @abstractmethod
    def vec_attr(self, v: Vec, attr: str, node: ast.AST) -> Value: ...

    @abstractmethod
    def vec_binop(self, op: str, a: Value, b: Value, node: ast.AST) -> Vec: ...

    @abstractmethod
    def vec_binop_with(self, fn, a: Value, b: Value, node: ast.AST, what: str = "this operation") -> Vec: ...

    @abstractmethod
    def minmax_pair(self, op: str, a: Value, b: Value, node: ast.AST) -> Value: ...

    @abstractmethod
    def scalar_binop(self, op: str, x: Value, y: Value, node: ast.AST) -> Value: ...

    @abstractmethod
    def builder_add(self, b: Any, target: ast.Subscript, node: ast.AugAssign, op: str) -> None: ...

    @abstractmethod
    def vec_call_method(self, m: VecMethod, node: ast.Call) -> Value: ...

    @abstractmethod
    def vec_anyall(self, name: str, v: Vec, node: ast.AST) -> Value: ...

    # -- provided by StatementLowering (stmts.py)
    @abstractmethod
    def assign_vec(self, existing: Vec, v: Value, node: ast.AST) -> None: ...

    @abstractmethod
    def assign(self, target, v: Value, node: ast.AST) -> None: ...

    @abstractmethod
    def is_static_call(self, node) -> bool: ...

    @abstractmethod
    def condition(self, c: Value, test: ast.AST) -> ir.Expr: ...

    @abstractmethod
    def store_vec(self, arr, target: Vec, v: Value, node: ast.AST) -> None: ...

    @abstractmethod
    def staged(self, vals: list, dtype: DType, node: ast.AST) -> list: ...

    @abstractmethod
    def vec_pick_loads(self, v: Vec, keys: list, node: ast.AST) -> Vec: ...

    @abstractmethod
    def active_cond(self, s, idx: list) -> ir.Expr | None: ...

    @abstractmethod
    def is_gtemp(self, name: str) -> bool: ...

    @abstractmethod
    def visible(self, name: str) -> Value: ...

    # -- provided by CallLowering (calls.py), IntrinsicLowering (intrinsics.py), FuncInlining (funcs.py),
    #    RandomLowering (random.py)
    @abstractmethod
    def one_arg(self, node: ast.Call) -> ast.expr: ...

    @abstractmethod
    def intrinsic(self, f: I.Intrinsic, node: ast.Call) -> Value: ...

    @abstractmethod
    def apply_math(self, f: I.Intrinsic, args: list, node: ast.AST, out_dt: DType | None = None) -> Value: ...

    @abstractmethod
    def inline_func(self, func: Func, node: ast.Call, self_value: StructVal | Py | None = None) -> Value: ...

    @abstractmethod
    def bind_call(self, func: Func, node: ast.Call, first: tuple = ()) -> dict: ...

    # -- provided by RealFuncCalls (real_funcs.py)
    @abstractmethod
    def outlined_call(self, func: Func, node: ast.Call, first: tuple = ()) -> Value: ...

    # -- provided by StructLowering (structs.py)
    @abstractmethod
    def struct_element(self, arr: StructArr, idx_node: ast.AST, node: ast.AST) -> StructVal: ...

    @abstractmethod
    def struct_member(self, s: StructVal, attr: str, node: ast.AST) -> Value: ...

    @abstractmethod
    def unpacked_member(self, ref: Any, idx_node: ast.AST) -> str: ...

    @abstractmethod
    def construct_struct(self, stype, node: ast.Call) -> StructVal: ...

    @abstractmethod
    def struct_literal(self, node: ast.Call) -> StructVal: ...

    @abstractmethod
    def struct_local(self, s: StructVal, name: str) -> StructVal: ...

    @abstractmethod
    def store_struct(self, target: StructVal, v: Value, node: ast.AST) -> None: ...

    @abstractmethod
    def store_member(self, s: StructVal, k: str, v: Value, node: ast.AST) -> None: ...

    @abstractmethod
    def update_member(self, s: StructVal, k: str, op: str, aug: ast.AugAssign) -> None: ...

    @abstractmethod
    def call_method(self, m: BoundMethod, node: ast.Call) -> Value: ...

    @abstractmethod
    def random_call(self, f: I.Intrinsic, node: ast.Call) -> Value: ...


class VecShape:
    """What compile-time code sees of a kernel vector or matrix: its shape (`v.n`, `v.m`,
    `v.shape`, `len(v)`), and its components only when they are compile-time constants (a
    `qd.static(qd.grouped(...))` index); other values exist only when the kernel runs."""

    def __init__(self, shape: tuple, values: tuple | None = None):
        self.shape = tuple(shape)
        self.n = shape[0]
        self.m = shape[1] if len(shape) > 1 else 1
        self.values = values

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, k):
        if self.values is None:
            raise TypeError("this vector's components are only known when the kernel runs")
        if isinstance(k, tuple):
            return self.values[k[0] * self.m + k[1]]
        return self.values[k]

    def get_shape(self) -> tuple:
        return self.shape


_UNKNOWN = object()


def _static_view(v):
    """What compile-time code sees of a kernel value: a Python value as itself, a vector as its
    shape (`qd.static(range(m.n))`), a list of kernel values as a list of those (`len(w)`)."""
    if isinstance(v, Py):
        return v.value
    if isinstance(v, Vec):
        known = all(isinstance(x, Py) for x in v.items)
        return VecShape(v.shape, tuple(x.value for x in v.items) if known else None)
    if isinstance(v, Seq):
        return [None if (x := _static_view(item)) is _UNKNOWN else x for item in v.items]
    if isinstance(v, ir.ArrayArg):  # `qd.static(x is not None)` on an array argument: it is one
        return ArrayStandIn(v.name, v.dtype, v.ndim)
    return _UNKNOWN


class ArrayStandIn:
    """What compile-time code sees of an array argument: that it is there (not None), its dtype and
    number of storage axes; its data and run-time shape are not known while compiling."""

    def __init__(self, name: str, dtype, ndim: int):
        self.name, self.dtype, self.ndim = name, dtype, ndim

    def __repr__(self) -> str:
        return f"<array argument {self.name}: {self.dtype!r}, {self.ndim} axes>"


def _assigns(tree, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(tree))


def pos_info(src, node) -> str:
    """Quadrants' position text for `node` (its _build_pos_info): `File "f.py", line 7, in foo:`, then
    the source line(s) with carets under the node, wrapped at 80 columns as Quadrants wraps them."""
    from textwrap import TextWrapper
    file, line, col, _ = src.where(node)
    shift = col - getattr(node, "col_offset", 0)
    raw = [ln.rstrip("\n") for ln in src.raw_lines]
    lines = [ln.expandtabs(4) for ln in raw]  # Quadrants reads the source with tabs as 4 columns
    first = getattr(node, "lineno", 1) - 1
    last = getattr(node, "end_lineno", None) or node.lineno
    msg = f'File "{file}", line {line}, in {getattr(src.fn, "__name__", "?")}:\n'
    wrapper = TextWrapper(width=80)

    def gen_line(code: str, hint: str) -> str:
        hint += " " * (len(code) - len(hint))
        code_l, hint_l = wrapper.wrap(code), wrapper.wrap(hint)
        if not code_l:
            return "\n\n"
        return "".join(c + "\n" + h + "\n" for c, h in zip(code_l, hint_l))

    def expanded(row: int, c: int) -> int:  # a column of the raw line, in the tab-expanded one
        return len(raw[row][:c].expandtabs(4)) if 0 <= row < len(raw) else c
    c0 = expanded(first, shift + node.col_offset)
    c1 = expanded(last - 1, shift + (getattr(node, "end_col_offset", None) or node.col_offset + 1))
    if first + 1 == last:
        if first < len(lines):
            msg += gen_line(lines[first], " " * c0 + "^" * max(c1 - c0, 1))
        return msg
    body = getattr(node, "body", None)
    end = max(body[0].lineno - 1, node.lineno) if isinstance(node, (ast.For, ast.While, ast.FunctionDef, ast.If)) \
        and body else last
    for i in range(first, min(end, len(lines))):
        text = lines[i]
        hi = len(text.rstrip())
        lo = len(text) - len(text.lstrip())
        if i == first:
            hint = " " * c0 + "^" * (hi - c0)
        elif i == last - 1:
            hint = " " * lo + "^" * (c1 - lo)
        elif lo < hi:
            hint = " " * lo + "^" * (hi - lo)
        else:
            hint = ""
        msg += gen_line(text, hint)
    return msg
