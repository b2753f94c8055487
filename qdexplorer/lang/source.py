"""Where a kernel's code lives: its parsed `def`, positions mapped to the real file, its Python env."""
from __future__ import annotations

import ast
import builtins
import collections
import hashlib
import inspect
import linecache
import textwrap

from .errors import QdCompileError

_FILE_AST: dict = {}  # (file, sha1 of text) -> parsed module; parsing a file once serves all its kernels


class SourceInfo:
    """Parsed source of a Python function, with positions mapped back to the real file."""

    def __init__(self, fn):
        self.fn = fn
        if not self._from_file(fn):
            self._from_inspect(fn)

    def _from_file(self, fn) -> bool:
        """Parse the whole file once (cached by content) and find the def: no tokenize, exact positions."""
        code = fn.__code__
        self.file = code.co_filename
        linecache.checkcache(self.file)
        lines = linecache.getlines(self.file, fn.__globals__)
        if not lines:
            return False
        text = "".join(lines)
        key = (self.file, hashlib.sha1(text.encode()).hexdigest())
        tree = _FILE_AST.get(key)
        if tree is None:
            try:
                tree = ast.parse(text)
            except SyntaxError:
                return False
            if len(_FILE_AST) > 256:
                _FILE_AST.clear()
            _FILE_AST[key] = tree
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
                first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                if code.co_firstlineno in (first, node.lineno):
                    self.fdef, self.raw_lines, self.line_shift, self.col_shift = node, lines, 0, 0
                    return True
        return False

    def _from_inspect(self, fn):
        try:
            self.file = inspect.getsourcefile(fn) or "<unknown>"
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise QdCompileError(f"cannot read the source of {fn.__qualname__}: {e}") from None
        self.raw_lines = lines
        text = "".join(lines)
        dedented = textwrap.dedent(text)
        self.col_shift = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
        if dedented and lines and dedented.splitlines()[0] == lines[0].rstrip("\n"):
            self.col_shift = 0
        self.line_shift = first - 1
        try:
            tree = ast.parse(dedented)
        except SyntaxError as e:
            raise QdCompileError(f"syntax error: {e.msg}", self.file, (e.lineno or 1) + self.line_shift,
                                 (e.offset or 1) - 1) from None
        defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if not defs:
            raise QdCompileError(f"no function definition found for {fn.__qualname__}", self.file, first)
        self.fdef = defs[0]

    def segment(self, stmts) -> str:
        """The exact source text of `stmts` (what a task's fingerprint hashes)."""
        a = stmts[0].lineno - 1
        b = max(getattr(s, "end_lineno", s.lineno) for s in stmts)
        return "".join(self.raw_lines[a:b])

    def where(self, node):
        line = getattr(node, "lineno", 1)
        real = line + self.line_shift
        col = getattr(node, "col_offset", 0) + self.col_shift
        src = self.raw_lines[line - 1] if 0 < line <= len(self.raw_lines) else ""
        return self.file, real, col, src

    def error(self, node, msg, cls=QdCompileError) -> QdCompileError:
        return cls(msg, *self.where(node))

    def target_names(self, target: ast.expr, what: str = "loop targets") -> list[ast.Name]:
        """The names a `for` binds (`i` or `i, j`); anything else is refused at the user's line."""
        elts = target.elts if isinstance(target, ast.Tuple) else [target]
        names = [n for n in elts if isinstance(n, ast.Name)]
        if len(names) != len(elts):
            raise self.error(target, f"{what} must be plain names")
        return names


def python_env(fn) -> collections.ChainMap:
    closure = {}
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                pass
    return collections.ChainMap(closure, fn.__globals__, vars(builtins))
