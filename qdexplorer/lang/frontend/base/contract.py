"""What each lowering mixin promises the others, one abstract class per provider.

`TaskBuilder` (builder.py) combines one mixin per family of constructs, and each calls into the
others (`StatementLowering` needs `value` from `ExprLowering`, which needs `assign` from
`StatementLowering` for a `:=`). Declaring each provided method here, with the signature it keeps, is
what lets a type checker follow those calls; `LoweringBase` (base/__init__.py) inherits them all.
"""
from __future__ import annotations

import ast
from abc import ABC, abstractmethod
from typing import Any

from ... import intrinsics as I
from .... import ir
from ...func import Func
from ....ir.dtypes import DType
from ..values import BoundMethod, BufView, Py, StructArr, StructVal, Vec, VecMethod, ViewMethod

Value = Any
"""What lowering an expression gives: a typed `ir.Expr`, a compile-time `Py`, a `Vec`, an array
(`ir.ArrayArg`, `ir.SharedArray`), a `ShapeTuple`, or a list of those (a func's returned tuple)."""


class ExprContract(ABC):
    """Provided by ExprLowering (exprs/): lowering an expression, committing it to a typed scalar,
    operators on two values, array indices."""

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


class ViewContract(ABC):
    """Provided by ViewLowering (views.py): BufferView values (slices of an ndarray) and their methods."""

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


class SparseContract(ABC):
    """Provided by SparseLowering (sparse.py): SNode cells (activation, dynamic lists), array
    attributes and methods."""

    @abstractmethod
    def activating(self, stmt: ir.Stmt) -> ir.Stmt: ...

    @abstractmethod
    def active_cond(self, s, idx: list) -> ir.Expr | None: ...

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


class VectorContract(ABC):
    """Provided by VectorLowering (vectors.py): vectors and matrices, their components, operators
    and methods."""

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


class StatementContract(ABC):
    """Provided by StatementLowering (stmts.py): assignments, conditions, stores of vectors, and
    the kernel-scope names a task can see."""

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
    def is_gtemp(self, name: str) -> bool: ...

    @abstractmethod
    def visible(self, name: str) -> Value: ...


class CallContract(ABC):
    """Provided by the call mixins: CallLowering (calls.py), IntrinsicLowering (intrinsics.py),
    FuncInlining (funcs.py), RealFuncCalls (real_funcs.py), RandomLowering (random.py)."""

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

    @abstractmethod
    def outlined_call(self, func: Func, node: ast.Call, first: tuple = ()) -> Value: ...

    @abstractmethod
    def random_call(self, f: I.Intrinsic, node: ast.Call) -> Value: ...


class StructContract(ABC):
    """Provided by StructLowering (structs.py): struct values, their members, and methods bound to them."""

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
