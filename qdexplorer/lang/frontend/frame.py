"""Name scopes of one function body being lowered (the kernel, or a `@qd.func` inlined into it)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import ir
from ..tasks.source import SourceInfo
from ...ir.dtypes import DType
from .values import StructVal, Vec


class Frame:
    """Name resolution for one function body (kernel or inlined func)."""

    def __init__(self, src: SourceInfo, env: Mapping[str, Any], ret_label: str | None = None,
                 ret_dtype: DType | None = None):
        self.src, self.env = src, env
        self.scopes: list[dict[str, Any]] = [{}]
        self.ret_label, self.ret_dtype = ret_label, ret_dtype
        # an inlined func's result: one local, a vector, or (for `return a, b`) one of those per item
        self.ret_local: ir.Local | Vec | StructVal | tuple[ir.Local | Vec | StructVal, ...] | None = None
        self.loop_depth = 0
        self.call_node = None  # the call of the func being inlined from this body, while it is
        self.real = False  # the body of a @qd.real_func: `return` anywhere, a result needs its annotation
        self.call_at = ""  # "file:line" of the func call this body is inside, while it is inlined
        self.unroll_block = -1  # len(builder.out) in the qd.static loop being unrolled (loops.py)
