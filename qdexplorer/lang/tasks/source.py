"""Where a kernel's code lives: its parsed `def`, positions mapped to the real file, its Python env."""
from __future__ import annotations

import ast
import sys
import builtins
import collections
import hashlib
import inspect
import linecache
import textwrap

from ...ir.errors import QdCompileError

# (file, sha1 of text) -> {def name: its def nodes, in ast.walk order}: a file is parsed and walked
# once for all its kernels, not once per kernel (a 1000-kernel file walked 1000 times was quadratic)
_FILE_DEFS: dict[tuple[str, str], dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] | None] = {}
# file -> (linecache's list of its lines, the key above): while linecache keeps the same list (the file
# unchanged since checkcache), its text is not joined and hashed again for each kernel
_LINES_KEY: dict[str, tuple[list[str], tuple[str, str]]] = {}


def _body_start(code) -> tuple[int, int] | None:
    """The earliest (line, column) that a lambda's own instructions come from, which tells apart
    two lambdas on one line with the same parameters (Python 3.11+: `co_positions`)."""
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return None
    found = [(ln, col) for ln, end, col, ecol in positions()   # RESUME and RETURN: (line, line, 0, 0)
             if ln is not None and col is not None and ecol is not None and (end, ecol) > (ln, col)]
    return min(found) if found else None


def _spans(expr: ast.expr, at: tuple[int, int]) -> bool:
    end = (expr.end_lineno or expr.lineno, expr.end_col_offset or 0)
    return (expr.lineno, expr.col_offset) <= at <= end


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
        defs = _file_defs(self.file, lines)
        at = _body_start(code) if fn.__name__ == "<lambda>" else None
        for node in defs.get(fn.__name__, ()) if defs is not None else ():
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if node.name == "<lambda>" and [a.arg for a in node.args.args] != list(code.co_varnames[:code.co_argcount]):
                continue  # another lambda on the same line
            ret = node.body[0]
            if at is not None and isinstance(ret, ast.Return) and ret.value is not None and not _spans(ret.value, at):
                continue  # `{'a': lambda x: x * x, 'b': lambda x: x * 3}`: the other lambda of this line
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


def _file_defs(file: str, lines: list[str]) -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] | None:
    """Every def of a file by name (None when the file does not parse), memoised on its text."""
    seen = _LINES_KEY.get(file)
    if seen is not None and seen[0] is lines:  # the list is held here, so `is` cannot match a reused id
        key = seen[1]
    else:
        key = (file, hashlib.sha1("".join(lines).encode()).hexdigest())
        if len(_LINES_KEY) > 256:
            _LINES_KEY.clear()
        _LINES_KEY[file] = (lines, key)
    defs = _FILE_DEFS.get(key)
    if defs is None and key not in _FILE_DEFS:
        try:
            tree = ast.parse("".join(lines))
        except SyntaxError:
            defs = None
        else:
            defs = {}
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs.setdefault(node.name, []).append(node)
                elif isinstance(node, ast.Lambda):  # a lambda called in a kernel is inlined as a function
                    defs.setdefault("<lambda>", []).append(_lambda_def(node))
        if len(_FILE_DEFS) > 256:
            _FILE_DEFS.clear()
        _FILE_DEFS[key] = defs
    return defs


def _lambda_def(node: ast.Lambda) -> ast.FunctionDef:
    """`lambda a, b: e` as `def <lambda>(a, b): return e`, at the lambda's position."""
    ret = ast.copy_location(ast.Return(node.body), node.body)
    fdef = ast.FunctionDef(name="<lambda>", args=node.args, body=[ret], decorator_list=[], returns=None,
                           type_comment=None)
    if sys.version_info >= (3, 12):
        setattr(fdef, "type_params", [])  # noqa: B010 - a field only 3.12's ast has
    return ast.copy_location(fdef, node)


def python_env(fn) -> collections.ChainMap:
    closure = {}
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                pass
    return collections.ChainMap(closure, fn.__globals__, vars(builtins))


def flat_env(env) -> dict:
    """`env` as one dict, for eval's globals: dict-level updates, innermost map last. `dict(chainmap)`
    reads key by key through ChainMap.__getitem__, which for a file of many kernels (each one a global
    of all the others) cost more than compiling the kernel."""
    if not isinstance(env, collections.ChainMap):
        return dict(env)
    out: dict = {}
    for m in reversed(env.maps):
        out.update(m)
    return out
