"""Python AST of a `@qd.kernel` → one `ir.Task` per offloaded task.

Offloading follows Quadrants: each top-level `for` is one parallel `range_for` task; runs of
other top-level statements become one-thread `serial` tasks. Names are stable across edits
(`<kernel>_kernel_<index>_[<loop_name>_]<type>`), so caches and overrides survive them.
"""
from __future__ import annotations

import ast
import builtins
import collections
import copy
import hashlib
import inspect
import linecache
import itertools
import textwrap

from . import intrinsics as I
from . import ir
from .errors import QdCompileError
from .frontend_expr import ExprLowering, Py, ShapeTuple, cast, is_number, literal, truthy
from .types import DType, NdarrayType, as_dtype, i32, u1

_AUG_ATOMIC = {ast.Add: "add", ast.Sub: "sub"}


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

    def error(self, node, msg) -> QdCompileError:
        return QdCompileError(msg, *self.where(node))


def python_env(fn) -> collections.ChainMap:
    closure = {}
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                pass
    return collections.ChainMap(closure, fn.__globals__, vars(builtins))


class _Frame:
    """Name resolution for one function body (kernel or inlined func)."""

    def __init__(self, src: SourceInfo, env, ret_label=None, ret_dtype=None):
        self.src, self.env = src, env
        self.scopes: list[dict] = [{}]
        self.ret_label, self.ret_dtype, self.ret_local = ret_label, ret_dtype, None
        self.loop_depth = 0


class TaskBuilder(ExprLowering):
    """Builds the IR of one task; inlines funcs into it."""

    def __init__(self, kernel_name: str, src: SourceInfo, args: dict, parallel: bool):
        self.kernel_name = kernel_name
        self.frames = [_Frame(src, python_env(src.fn))]
        self.frames[0].scopes[0].update(args)
        self.in_parallel = parallel
        self.out: list[list[ir.Stmt]] = [[]]
        self.shared: list[ir.SharedArray] = []
        self.counter = itertools.count()
        self.block_features_ok = True
        self.inline_stack: list = []
        self.other_task_names: set = set()  # top-level names of the kernel, for a better error hint

    # -- plumbing used by ExprLowering
    @property
    def frame(self) -> _Frame:
        return self.frames[-1]

    def err(self, node, msg):
        raise self.frame.src.error(node, msg)

    def emit(self, stmt):
        self.out[-1].append(stmt)

    def new_local(self, name, dtype: DType, init: ir.Expr | None = None) -> ir.Local:
        if dtype == u1:
            dtype = i32
        loc = ir.Local(f"{name}.{next(self.counter)}", dtype)
        if init is not None:
            self.emit(ir.Assign(loc, cast(init, dtype)))
        return loc

    def lookup(self, name, node):
        for scope in reversed(self.frame.scopes):
            if name in scope:
                v = scope[name]
                return ir.LocalRef(v) if isinstance(v, ir.Local) else v
        if name in self.frame.env:
            return Py(self.frame.env[name])
        if len(self.frames) == 1 and name in self.other_task_names:
            self.err(node, f"'{name}' is assigned in another offloaded task of this kernel; each top-level "
                           f"loop and each run of top-level statements is its own task, so locals do not "
                           f"cross them (pass the value through an ndarray)")
        self.err(node, f"name '{name}' is not defined (kernel variables are block-scoped: "
                       f"assign it before the block that uses it)")

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

    def s_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring or comment string
        v = self.value(node.value)
        if isinstance(v, ir.Expr):
            self.emit(ir.ExprStmt(v))

    def s_Pass(self, node):
        pass

    def s_Assign(self, node):
        if len(node.targets) != 1:
            self.err(node, "chained assignment (a = b = c) is not supported in kernels")
        target = node.targets[0]
        if isinstance(target, (ast.Tuple, ast.List)):
            vals = self.value(node.value)
            if isinstance(vals, Py) and isinstance(vals.value, tuple):
                vals = [Py(v) for v in vals.value]
            if not isinstance(vals, list) or len(vals) != len(target.elts):
                self.err(node, "tuple assignment needs a tuple of the same length on the right")
            temps = [self.commit(v, node) if not isinstance(v, Py) or is_number(v) else v for v in vals]
            temps = [ir.LocalRef(self.new_local("tup", t.dtype, t)) if isinstance(t, ir.Expr) else t
                     for t in temps]
            for t_node, v in zip(target.elts, temps):
                self.assign(t_node, v, node)
            return
        self.assign(target, self.value(node.value), node)

    def s_AnnAssign(self, node):
        dt = as_dtype(self.eval_static(node.annotation))
        if dt is None or not isinstance(node.target, ast.Name):
            self.err(node, "annotated assignment needs a name and a qd scalar type (x: qd.f32 = ...)")
        if node.value is None:
            self.err(node, "annotated declaration needs an initial value")
        loc = self.new_local(node.target.id, dt, self.commit(self.value(node.value), node, like=dt))
        self.frame.scopes[-1][node.target.id] = loc

    def assign(self, target, v, node):
        if isinstance(target, ast.Name):
            existing = None
            for scope in reversed(self.frame.scopes):
                if target.id in scope:
                    existing = scope[target.id]
                    break
            if isinstance(existing, ir.Local):
                self.emit(ir.Assign(existing, cast(self.commit(v, node, like=existing.dtype), existing.dtype)))
                return
            if isinstance(v, (ir.ArrayArg, ir.SharedArray, ShapeTuple)) or (isinstance(v, Py) and not is_number(v)):
                self.frame.scopes[-1][target.id] = v
                return
            e = self.commit(v, node)
            self.frame.scopes[-1][target.id] = self.new_local(target.id, e.dtype, e)
            return
        if isinstance(target, ast.Subscript):
            arr = self.value(target.value)
            if not isinstance(arr, (ir.ArrayArg, ir.SharedArray)):
                self.err(target, "only ndarray and shared-array elements can be assigned")
            idx = self.indices(arr, target.slice)
            self.emit(ir.Store(arr, idx, cast(self.commit(v, node, like=arr.dtype), arr.dtype)))
            return
        self.err(target, f"cannot assign to '{type(target).__name__}' in a kernel")

    def s_AugAssign(self, node):
        target = node.target
        from .frontend_expr import BINOPS
        op = BINOPS.get(type(node.op))
        if op is None:
            self.err(node, "unsupported augmented assignment")
        if isinstance(target, ast.Subscript):
            arr = self.value(target.value)
            if not isinstance(arr, (ir.ArrayArg, ir.SharedArray)):
                self.err(target, "only ndarray and shared-array elements can be updated")
            idx = self.indices(arr, target.slice)
            rhs = self.value(node.value)
            if self.in_parallel and type(node.op) in _AUG_ATOMIC:
                val = cast(self.commit(rhs, node, like=arr.dtype), arr.dtype)
                self.emit(ir.ExprStmt(ir.AtomicRMW(_AUG_ATOMIC[type(node.op)], arr, idx, val)))
                return
            new = self.binop(op, ir.Load(arr, idx), rhs, node)
            self.emit(ir.Store(arr, idx, cast(new, arr.dtype)))
            return
        if isinstance(target, ast.Name):
            cur = self.lookup(target.id, target)
            if not isinstance(cur, ir.LocalRef):
                self.err(target, f"'{target.id}' is not a kernel variable that can be updated")
            new = self.binop(op, cur, self.value(node.value), node)
            self.emit(ir.Assign(cur.local, cast(new, cur.local.dtype)))
            return
        self.err(target, "unsupported augmented-assignment target")

    def s_If(self, node):
        test = node.test
        if isinstance(test, ast.Call) and isinstance(self.value(test.func), Py) and \
                self.value(test.func).value is I.static:
            cond = self.eval_static(self.one_arg(test))
            for s in (node.body if cond else node.orelse):
                self.stmt(s)
            return
        c = self.value(test)
        if is_number(c):
            c = ir.Const(int(bool(c.value)), u1)
        cond = truthy(self.commit(c, test))
        then, orelse = self.block(node.body), self.block(node.orelse)
        self.emit(ir.If(cond, then, orelse))

    def s_While(self, node):
        if node.orelse:
            self.err(node, "while/else is not supported in kernels")
        self.out.append([])
        cond = truthy(self.commit(self.value(node.test), node.test))
        self.emit(ir.If(ir.UnOp("not", cond, u1), [ir.Break()], []))
        self.frame.loop_depth += 1
        try:
            body = self.block(node.body)
        finally:
            self.frame.loop_depth -= 1
        head = self.out.pop()
        self.emit(ir.Loop(head + body))

    def s_For(self, node):
        if node.orelse:
            self.err(node, "for/else is not supported in kernels")
        it = node.iter
        fn = self.value(it.func) if isinstance(it, ast.Call) else None
        if isinstance(fn, Py) and fn.value is I.static:
            return self.static_for(node, self.eval_static(self.one_arg(it)))
        if not (isinstance(fn, Py) and fn.value is builtins.range):
            self.err(it, "inner for loops must iterate over range(...) or qd.static(...)")
        if not isinstance(node.target, ast.Name):
            self.err(node.target, "a range loop needs a single loop variable")
        args = [self.value(a) for a in it.args]
        if not 1 <= len(args) <= 3:
            self.err(it, "range() takes 1 to 3 arguments")
        step = 1
        if len(args) == 3:
            if not is_number(args[2]) or args[2].value == 0:
                self.err(it.args[2], "range()'s step must be a nonzero constant in a kernel")
            step = args[2].value
        begin = self.commit(args[0], it, like=i32) if len(args) > 1 else ir.Const(0, i32)
        end = self.commit(args[-1] if len(args) == 1 else args[1], it, like=i32)
        dt = begin.dtype if begin.dtype.bits >= end.dtype.bits else end.dtype
        if not dt.is_int:
            self.err(it, "range() bounds must be integers")
        var = self.new_local(node.target.id, dt, begin)
        end_l = self.new_local("end", dt, end)
        ref = ir.LocalRef(var)
        test = ir.Compare(">=" if step > 0 else "<=", ref, ir.LocalRef(end_l), u1)
        self.frame.scopes.append({node.target.id: var})
        self.frame.loop_depth += 1
        try:
            body = self.block(node.body)
        finally:
            self.frame.loop_depth -= 1
            self.frame.scopes.pop()
        self.emit(ir.Loop([ir.If(test, [ir.Break()], [])] + body,
                          step=[ir.Assign(var, ir.BinOp("+", ref, ir.Const(step, dt), dt))]))

    def static_for(self, node, seq):
        try:
            items = list(seq)
        except TypeError:
            self.err(node.iter, "qd.static(...) in a for loop must be iterable at compile time")
        names = node.target.elts if isinstance(node.target, ast.Tuple) else [node.target]
        if not all(isinstance(n, ast.Name) for n in names):
            self.err(node.target, "static loop targets must be names")
        depth = self.frame.loop_depth
        self.frame.loop_depth = -10_000  # break/continue cannot target an unrolled loop
        try:
            for item in items:
                vals = item if len(names) > 1 else (item,)
                self.frame.scopes.append({n.id: Py(v) for n, v in zip(names, vals)})
                try:
                    for s in node.body:
                        self.stmt(s)
                finally:
                    self.frame.scopes.pop()
        finally:
            self.frame.loop_depth = depth

    def s_Break(self, node):
        self.loop_jump(node, ir.Break(), "break")

    def s_Continue(self, node):
        if self.frame.loop_depth == 0 and self.in_parallel and len(self.frames) == 1:
            self.emit(ir.Continue())  # skips to the next index of the parallel loop
            return
        self.loop_jump(node, ir.Continue(), "continue")

    def loop_jump(self, node, stmt, word):
        if self.frame.loop_depth < 0:
            self.err(node, f"'{word}' cannot be used in a qd.static loop (it is unrolled)")
        if self.frame.loop_depth == 0:
            where = "the top-level parallel loop" if self.in_parallel else "a serial task outside a loop"
            self.err(node, f"'{word}' is not allowed in {where}")
        self.emit(stmt)

    def s_Return(self, node):
        fr = self.frame
        if fr.ret_label is None:
            self.err(node, "kernels cannot return values; write results into an ndarray argument")
        if node.value is not None:
            e = self.commit(self.value(node.value), node, like=fr.ret_dtype)
            if fr.ret_local is None:
                fr.ret_local = self.new_local("ret", fr.ret_dtype or e.dtype)
            self.emit(ir.Assign(fr.ret_local, cast(e, fr.ret_local.dtype)))
        self.emit(ir.Return(fr.ret_label))

    def s_Assert(self, node):
        self.err(node, "assert is not supported in kernels")

    # -- qd.func inlining
    def inline_func(self, func, node):
        if func in self.inline_stack:
            self.err(node, f"recursive call of @qd.func '{func.name}' is not supported")
        src = func.source
        fdef = src.fdef
        params = fdef.args.args
        if len(node.args) + len(node.keywords) != len(params):
            self.err(node, f"'{func.name}' takes {len(params)} argument(s), got "
                           f"{len(node.args) + len(node.keywords)}")
        actual = dict(zip([p.arg for p in params], node.args))
        for kw in node.keywords:
            actual[kw.arg] = kw.value
        hints = func.annotations
        label = f"{func.name}.{next(self.counter)}"
        bound = {}
        for p in params:
            v = self.value(actual[p.arg])
            ann = hints.get(p.arg)
            dt = as_dtype(ann)
            if isinstance(ann, NdarrayType) or isinstance(v, (ir.ArrayArg, ir.SharedArray)):
                if not isinstance(v, (ir.ArrayArg, ir.SharedArray)):
                    self.err(actual[p.arg], f"argument '{p.arg}' of '{func.name}' must be an ndarray")
                bound[p.arg] = v
            elif isinstance(v, Py) and not is_number(v):
                bound[p.arg] = v
            else:
                e = self.commit(v, node, like=dt)
                bound[p.arg] = self.new_local(p.arg, dt or e.dtype, e)
        ret_dt = as_dtype(hints.get("return"))
        frame = _Frame(src, python_env(func.fn), ret_label=label, ret_dtype=ret_dt)
        frame.scopes[0].update(bound)
        self.frames.append(frame)
        self.inline_stack.append(func)
        self.out.append([])
        try:
            for s in fdef.body:
                self.stmt(s)
        finally:
            body = self.out.pop()
            self.frames.pop()
            self.inline_stack.pop()
        self.emit(ir.Block(label, body))
        return ir.LocalRef(frame.ret_local) if frame.ret_local is not None else Py(None)


# ---- kernel → tasks ------------------------------------------------------------------------

def _loop_config_call(stmt, env):
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
            getattr(stmt.value.func, "attr", getattr(stmt.value.func, "id", None)) is not None:
        try:
            f = eval(compile(ast.Expression(stmt.value.func), "<qd>", "eval"), dict(env))  # noqa: S307
        except Exception:  # noqa: BLE001 - not a loop_config call then
            return None
        if f is I.loop_config:
            return stmt.value
    return None


def lower_kernel(kernel, memo=None, spec: tuple | None = None) -> list[ir.Task]:
    """Lower a kernel into its tasks; with a `TaskMemo`, unchanged tasks are reused, not re-lowered."""
    from .fingerprint import kernel_fingerprint, task_fingerprint
    src: SourceInfo = kernel.source
    env = python_env(kernel.fn)
    args = kernel.arg_values(spec)
    tasks: list[ir.Task] = []
    pending_serial: list[ast.stmt] = []
    config: dict = {}
    body = src.fdef.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0].value, "value", None), str):
        body = body[1:]

    top_names = _TopNames(body)

    spec = tuple(sorted((k, repr(v)) for k, v in args.items()))
    kernel_fp = kernel_fingerprint(kernel, spec) if memo is not None else ""

    def build(stmts, make, cfg):
        fp = task_fingerprint(kernel_fp, len(tasks), cfg, src.segment(stmts)) if memo is not None else None
        cached = memo.get(fp) if fp else None
        if cached is not None:
            t = copy.copy(cached)  # same IR; refresh where it sits in the file
            t.lines = _lines(src, stmts)
            a, b = t.lines
            t.file, t.source = src.file, "".join(src.raw_lines[a - 1 - src.line_shift: b - src.line_shift])
        else:
            t = make()
            t.fingerprint = fp or ""
            if fp:
                memo.put(fp, t)
        tasks.append(t)

    def flush_serial():
        if pending_serial:
            stmts = list(pending_serial)
            build(stmts, lambda: _serial_task(kernel, src, args, stmts, len(tasks), top_names), {})
            pending_serial.clear()

    for stmt in body:
        call = _loop_config_call(stmt, env)
        if call is not None:
            flush_serial()
            config = {}
            for kw in call.keywords:
                try:
                    config[kw.arg] = eval(compile(ast.Expression(kw.value), "<qd>", "eval"), dict(env))  # noqa: S307
                except Exception as e:  # noqa: BLE001
                    raise src.error(kw.value, f"qd.loop_config argument must be a constant: {e}") from None
            if call.args:
                raise src.error(call, "qd.loop_config takes keyword arguments only (block_dim=, serialize=, name=)")
            unknown = set(config) - {"block_dim", "serialize", "name"}
            if unknown:
                raise src.error(call, f"unknown qd.loop_config option(s): {', '.join(sorted(unknown))}")
            bd = config.get("block_dim")
            if bd is not None and (not isinstance(bd, int) or not 1 <= bd <= 1024):
                raise src.error(call, f"block_dim must be an integer in 1..1024, got {bd!r}")
            continue
        if isinstance(stmt, ast.For):
            flush_serial()
            cfg = dict(config)
            build([stmt], lambda: _range_task(kernel, src, args, stmt, len(tasks), cfg, top_names), cfg)
            config = {}
            continue
        if config:
            raise src.error(stmt, "qd.loop_config() must be directly followed by a for loop")
        pending_serial.append(stmt)
    flush_serial()
    return tasks


class _TopNames:
    """Names assigned anywhere in a kernel body, computed only if an error message needs them."""

    def __init__(self, body):
        self.body, self._names = body, None

    def __contains__(self, name) -> bool:
        if self._names is None:
            self._names = {t.id for s in self.body for n in ast.walk(s)
                           if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                           for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                           if isinstance(t, ast.Name)}
        return name in self._names


def _task_name(kernel, index, kind, loop_name=None):
    mid = f"{loop_name}_" if loop_name else ""
    return f"{kernel.name}_kernel_{index}_{mid}{kind}"


def _serial_task(kernel, src, args, stmts, index, names) -> ir.Task:
    b = TaskBuilder(kernel.name, src, args, parallel=False)
    b.other_task_names = names
    for s in stmts:
        b.stmt(s)
    t = ir.Task(_task_name(kernel, index, "serial"), kernel.name, index, "serial", b.out[0], src.file,
                _lines(src, stmts), shared=b.shared)
    return _finish(t, args, src, stmts)


def _range_task(kernel, src, args, node: ast.For, index, config, names) -> ir.Task:
    b = TaskBuilder(kernel.name, src, args, parallel=True)
    b.other_task_names = names
    it = node.iter
    fn = b.value(it.func) if isinstance(it, ast.Call) else None
    if isinstance(fn, Py) and fn.value is I.static:
        raise src.error(it, "a kernel's top-level loop cannot be qd.static; wrap it in an outer loop "
                            "or move it into a @qd.func")
    targets = node.target.elts if isinstance(node.target, ast.Tuple) else [node.target]
    if not all(isinstance(t, ast.Name) for t in targets):
        raise src.error(node.target, "loop targets must be plain names")
    ranges = []
    if isinstance(fn, Py) and fn.value is builtins.range:
        if len(it.args) not in (1, 2) or it.keywords:
            raise src.error(it, "a parallel range() takes (end) or (begin, end); steps are not supported")
        ends = [b.commit(b.value(a), a, like=i32) for a in it.args]
        ranges.append((ir.Const(0, i32), ends[0]) if len(ends) == 1 else (ends[0], ends[1]))
    elif isinstance(fn, Py) and fn.value is I.ndrange:
        for a in it.args:
            if isinstance(a, ast.Tuple):
                if len(a.elts) != 2:
                    raise src.error(a, "ndrange bounds are n or (begin, end)")
                ranges.append(tuple(b.commit(b.value(x), x, like=i32) for x in a.elts))
            else:
                ranges.append((ir.Const(0, i32), b.commit(b.value(a), a, like=i32)))
        if not ranges:
            raise src.error(it, "qd.ndrange() needs at least one dimension")
    else:
        raise src.error(it, "a kernel's top-level for must iterate over range(...) or qd.ndrange(...)")
    for lo, hi in ranges:
        for e, nd in ((lo, it), (hi, it)):
            if not e.dtype.is_int:
                raise src.error(nd, f"loop bounds must be integers, got {e.dtype!r}")
    if len(targets) != len(ranges):
        raise src.error(node.target, f"the loop has {len(ranges)} dimension(s) but {len(targets)} "
                                     f"loop variable(s)")
    ranges = [(cast(lo, i32), cast(hi, i32)) for lo, hi in ranges]
    loop_vars = [ir.Local(t.id, i32) for t in targets]
    b.frames[0].scopes.append({t.id: v for t, v in zip(targets, loop_vars)})
    for s in node.body:
        b.stmt(s)
    name = config.get("name")
    if name is not None and (not isinstance(name, str) or not name.isidentifier()):
        raise src.error(node, f"loop_config name must be an identifier, got {name!r}")
    t = ir.Task(_task_name(kernel, index, "range_for", name), kernel.name, index, "range_for",
                b.out[0], src.file, _lines(src, [node]), loop_name=name, loop_vars=loop_vars,
                ranges=ranges, block_dim=config.get("block_dim"), serialize=bool(config.get("serialize")),
                shared=b.shared)
    return _finish(t, args, src, [node])


def _lines(src, stmts):
    first = stmts[0].lineno + src.line_shift
    last = max(getattr(s, "end_lineno", s.lineno) for s in stmts) + src.line_shift
    return first, last


def _finish(task: ir.Task, args: dict, src, stmts) -> ir.Task:
    used_arrays, used_scalars = set(), set()
    for n in ir.walk([task.body, task.ranges]):
        if isinstance(n, ir.ArrayArg):
            used_arrays.add(n.name)
        elif isinstance(n, ir.ScalarArg):
            used_scalars.add(n.name)
    params = []
    for name, v in args.items():
        if isinstance(v, ir.ArrayArg) and name in used_arrays:
            params.append(ir.Param(name, "array", v.dtype, v.ndim))
        elif isinstance(v, ir.ScalarArg) and name in used_scalars:
            params.append(ir.Param(name, "scalar", v.dtype))
    task.params = params
    a, b = task.lines
    task.source = "".join(src.raw_lines[a - 1 - src.line_shift: b - src.line_shift])
    return task


__all__ = ["lower_kernel", "SourceInfo", "TaskBuilder", "literal"]
