"""Compile errors at the user's line, with Quadrants' position text for every inlined call.

Every lowering mixin reports through `err`; `pos_info` writes a frame's position the way
Quadrants' `_build_pos_info` does, so an error's trace reads as Quadrants' would.
"""
from __future__ import annotations

import ast
from textwrap import TextWrapper
from typing import NoReturn

from ....ir.errors import QdCompileError
from .state import LoweringState


class Diagnostics(LoweringState):
    """Where a lowering mixin's errors and debug-mode source positions come from."""

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

    def require_block_features(self, node, what):
        if not self.in_parallel:
            self.err(node, f"{what} is only allowed inside a parallel for loop")


def pos_info(src, node) -> str:
    """Quadrants' position text for `node` (its _build_pos_info): `File "f.py", line 7, in foo:`, then
    the source line(s) with carets under the node, wrapped at 80 columns as Quadrants wraps them."""
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
