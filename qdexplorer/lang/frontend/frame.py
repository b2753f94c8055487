"""Name scopes of one function body being lowered (the kernel, or a `@qd.func` inlined into it)."""
from __future__ import annotations

from ..source import SourceInfo


class Frame:
    """Name resolution for one function body (kernel or inlined func)."""

    def __init__(self, src: SourceInfo, env, ret_label=None, ret_dtype=None):
        self.src, self.env = src, env
        self.scopes: list[dict] = [{}]
        self.ret_label, self.ret_dtype, self.ret_local = ret_label, ret_dtype, None
        self.loop_depth = 0
