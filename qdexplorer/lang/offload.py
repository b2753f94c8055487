"""Kernel → offloaded tasks: Quadrants' rule, one `range_for` per top-level loop and one
`serial` task per run of other top-level statements; task names stable across edits."""
from __future__ import annotations

import ast
import builtins
import copy

from . import intrinsics as I
from . import ir
from .frontend import Py, TaskBuilder, cast
from .source import SourceInfo, python_env
from .types import i32

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
