"""Statement lowering: the body of one task (and every `@qd.func` it inlines) → Task IR.

`offload.py` decides what the tasks are; this builds each one's statements.
"""
from __future__ import annotations

import ast
import builtins
import itertools

from . import intrinsics as I
from . import ir
from .errors import QdCompileError
from .source import SourceInfo, python_env
from .frontend_expr import ExprLowering, Py, ShapeTuple, cast, is_number, truthy
from .types import DType, NdarrayType, as_dtype, i32, u1

_AUG_ATOMIC = {ast.Add: "add", ast.Sub: "sub"}


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
