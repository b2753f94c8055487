"""The builder of one task's IR: name resolution, scopes, emitted blocks and compile-time evaluation.

`offload.py` decides what the tasks are; the mixins this class combines lower each construct:
`stmts.py` (assignments, if), `loops.py`, `funcs.py` (@qd.func inlining), `calls.py`,
`intrinsics.py` (qd.* math, atomics, SIMT) and `exprs.py` (operators, subscripts).
"""
from __future__ import annotations

import ast
import itertools

from .. import ir
from ..errors import QdCompileError
from ..source import SourceInfo, python_env
from ..types import DType, i32, u1
from .calls import CallLowering
from .exprs import ExprLowering
from .frame import Frame
from .kernel_scope import KernelScope
from ..field import Field
from .funcs import FuncInlining
from .intrinsics import IntrinsicLowering
from .loops import LoopLowering
from .stmts import StatementLowering
from .values import Py, cast, py_value
from .vectors import VectorLowering


class TaskBuilder(StatementLowering, LoopLowering, FuncInlining, CallLowering, IntrinsicLowering, VectorLowering,
                  ExprLowering):
    """Builds the IR of one task; inlines funcs into it. Each mixin lowers one family of constructs."""

    def __init__(self, kernel_name: str, src: SourceInfo, args: dict, parallel: bool,
                 kscope: KernelScope | None = None):
        self.kernel_name = kernel_name
        self.kscope = kscope or KernelScope(args)
        self.frames = [Frame(src, python_env(src.fn))]
        self.frames[0].scopes[0].update(args)
        self.in_parallel = parallel
        self.out: list[list[ir.Stmt]] = [[]]
        self.shared: list[ir.SharedArray] = []
        self.counter = itertools.count()
        self.block_features_ok = True
        self.inline_stack: list = []
        self.other_task_names: set = set()  # top-level names of the kernel, for a better error hint
        self.made_locals: list[ir.Local] = []  # every local new_local made, in order (see v_BoolOp)

    # -- plumbing used by ExprLowering
    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def err(self, node, msg, cls=QdCompileError):
        raise self.frame.src.error(node, msg, cls)

    def at(self, node) -> str:
        """"file:line" of `node` in the user's source (debug mode reports accesses by it)."""
        f, line, *_ = self.frame.src.where(node)
        return f"{f}:{line}"

    def emit(self, stmt):
        self.out[-1].append(stmt)

    def new_local(self, name, dtype: DType, init: ir.Expr | None = None) -> ir.Local:
        if dtype == u1:
            dtype = i32
        loc = ir.Local(f"{name}.{next(self.counter)}", dtype)
        self.made_locals.append(loc)
        if init is not None:
            self.emit(ir.Assign(loc, cast(init, dtype)))
        return loc

    def lookup(self, name, node):
        for scope in reversed(self.frame.scopes):
            if name in scope:
                v = scope[name]
                return ir.LocalRef(v) if isinstance(v, ir.Local) else v
        if len(self.frames) == 1 and name in self.kscope.gtemp_names:
            arr = self.kscope.gtemp(name)
            if arr is None:
                self.err(node, f"kernel-scope variable '{name}' is used before a task assigns it")
            if arr.ndim > 1:
                return self.element_vec(arr, (ir.Const(0, i32),))
            return ir.Load(arr, (ir.Const(0, i32),))
        if name in self.frame.env:
            v = self.frame.env[name]
            if isinstance(v, Field):
                return self.kscope.field_arg(v, name)
            return py_value(v)
        fdef = getattr(self.frame.src, "fdef", None)
        line = getattr(node, "lineno", -1)
        top = next((st for st in getattr(fdef, "body", ()) if st.lineno <= line <= (st.end_lineno or st.lineno)), None)
        if len(self.frames) == 1 and name in self.other_task_names and not (top and _assigns(top, name)):
            self.err(node, f"'{name}' is assigned in another offloaded task of this kernel; each top-level "
                           f"loop and each run of top-level statements is its own task, so locals do not "
                           f"cross them (pass the value through an ndarray)")
        if fdef is not None and _assigns(fdef, name):  # it exists, in a block this use cannot see
            self.err(node, f"name '{name}' is not defined here (kernel variables are block-scoped: "
                           f"assign it before the block that uses it)")
        self.err(node, f"name '{name}' is not defined (not an argument, a local or a global of this function)")

    def user_ndim(self, arr) -> int:
        """Axes the user indexes (an array of vectors keeps its components as trailing axes)."""
        return arr.ndim - len(self.kscope.elem_shapes.get(arr.name, ()))

    def eval_static(self, node):
        """Evaluate an expression in Python at compile time (qd.static, shapes, dtypes)."""
        env = dict(self.frame.env)
        for scope in self.frame.scopes:
            for k, v in scope.items():
                if isinstance(v, Py):
                    env[k] = v.value
                elif k in env:
                    del env[k]
        try:
            return eval(compile(ast.Expression(node), "<qd.static>", "eval"), env)  # noqa: S307
        except NameError as e:
            self.err(node, f"{e}: only constants, globals and qd.static values are known at compile time")
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
            self.err(node, f"unsupported statement '{type(node).__name__}' in a kernel")
        try:
            method(node)
        except (QdCompileError, RecursionError):
            raise
        except Exception as e:  # noqa: BLE001 - a compiler bug still points at the user's line
            self.err(node, f"internal compiler error while lowering this statement ({type(e).__name__}: {e}); "
                           f"please report it with this kernel")


def _assigns(tree, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(tree))
