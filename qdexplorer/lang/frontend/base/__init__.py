"""What the lowering mixins share: one task's builder state, its plumbing, and what each mixin
provides to the others.

`TaskBuilder` (builder.py) combines one mixin per family of constructs; each mixin calls into the
others (`StatementLowering` needs `value` from `ExprLowering`, every mixin needs `err`). `LoweringBase`
is that contract, written down so a type checker can follow it, assembled from one module per idea:
the state (state.py), errors (diagnostics.py), emitted code (blocks.py), name resolution (names.py),
compile-time evaluation (static_eval.py), and each mixin's provided methods, declared abstract with
the signatures they keep (contract.py).
"""
from __future__ import annotations

from .blocks import Emission, StaticBreak, StaticContinue
from .contract import (CallContract, ExprContract, SparseContract, StatementContract, StructContract, Value,
                       VectorContract, ViewContract)
from .static_eval import ArrayStandIn, CompileTimeEvaluation

__all__ = ["LoweringBase", "Value", "StaticBreak", "StaticContinue", "ArrayStandIn"]


class LoweringBase(CompileTimeEvaluation, Emission, ExprContract, ViewContract, SparseContract, VectorContract,
                   StatementContract, CallContract, StructContract):
    """The state of one task being lowered, its shared plumbing, and the methods the mixins call on
    each other."""
