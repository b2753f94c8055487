"""Expression lowering: names, attributes, subscripts and operators → typed Task IR expressions.

`ExprLowering` is the one mixin `TaskBuilder` takes for expressions; it dispatches each AST node to
its `v_<Node>` method, which one of these modules provides, grouped by what the expression does:
names.py (names and attributes), containers.py (tuples, lists, dicts, comprehensions), subscripts.py
(indexing arrays and values), arithmetic.py (binary and unary operators), logic.py (comparisons,
`and` / `or`, `a if c else b`). Calls live in `calls.py` and `intrinsics.py`; the value rules (weak
literals, casts) in `values.py`.
"""
from __future__ import annotations

from .... import ir
from ....ir.errors import QuadrantsTypeError
from ....ir.dtypes import DType
from ..values import Seq, Vec, is_number, literal
from .arithmetic import ArithmeticLowering
from .containers import ContainerLowering
from .logic import LogicLowering
from .names import NameLowering
from .subscripts import SubscriptLowering


class ExprLowering(NameLowering, ContainerLowering, SubscriptLowering, ArithmeticLowering, LogicLowering):
    """Mixin for `TaskBuilder`: turns AST expressions into IR, emitting statements as needed."""

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


_EXPR_NAMES = {"SetComp": "'set comprehension'",
               "DictComp": "'dict comprehension'", "GeneratorExp": "'generator expression'",
               "Lambda": "'lambda'", "JoinedStr": "'f-string'", "Dict": "'dict'", "Set": "'set'",
               "NamedExpr": "'assignment expression (:=)'", "Await": "'await'", "Yield": "'yield'",
               "YieldFrom": "'yield from'", "Starred": "'*unpacking'", "Slice": "'slice'"}
