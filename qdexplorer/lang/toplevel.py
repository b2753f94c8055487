"""A kernel's top level, before it becomes tasks: `qd.static` loops and branches expanded, statements
grouped into tasks (one per top-level loop, one per run of other statements), `qd.loop_config`
read, and the kernel-scope locals found that must outlive a task."""
from __future__ import annotations

import ast

from . import intrinsics as I
from .errors import QuadrantsSyntaxError
from .source import flat_env


def loop_config_call(stmt, env):
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
            getattr(stmt.value.func, "attr", getattr(stmt.value.func, "id", None)) is not None:
        try:
            f = eval(compile(ast.Expression(stmt.value.func), "<qd>", "eval"), flat_env(env))  # noqa: S307
        except Exception:  # noqa: BLE001 - not a loop_config call then
            return None
        if f is I.loop_config:
            return stmt.value
    return None


def expand(body, env, kernel_src, bind=None, graph: bool = False) -> list:
    """The kernel's top-level statements as (stmt, static bindings): a top-level `qd.static` for
    unrolls into one copy of its body per item, and `if qd.static(c):` keeps one branch, as in
    Quadrants, so their loops still become tasks. A `break` reached while unrolling (`if
    qd.static(i == 2): break`) ends the unrolling there. `with qd.stream_parallel():` blocks are
    checked as Quadrants checks them (`graph`: the kernel is `@qd.kernel(graph=True)`)."""
    parallel = [s for s in body if isinstance(s, ast.With) and _is_stream_parallel(s, env)]
    for s in body:
        if isinstance(s, ast.With):
            check_with(s, env, kernel_src, in_kernel=True, graph=graph)
    if parallel:
        for i, s in enumerate(body):
            if not (isinstance(s, ast.With) and _is_stream_parallel(s, env)):
                raise kernel_src.error(s, "When using qd.stream_parallel(), all top-level statements in the kernel "
                                          "must be 'with qd.stream_parallel():' blocks. Move non-parallel code to a "
                                          f"separate kernel. [stmt {i}: {type(s).__name__}]", QuadrantsSyntaxError)
    return _expand(body, env, kernel_src, dict(bind or {}), False)[0]


def check_with(stmt: ast.With, env, src, in_kernel: bool, graph: bool = False) -> None:
    """Quadrants' rules for `with` in kernels and funcs: one context manager, no `as`, a call, and
    only `qd.stream_parallel()` (at a kernel's top level, and not in a graph kernel)."""
    def err(msg):
        return src.error(stmt, msg, QuadrantsSyntaxError)
    if len(stmt.items) != 1:
        raise err("'with' in Quadrants kernels only supports a single context manager")
    item = stmt.items[0]
    if item.optional_vars is not None:
        raise err("'with ... as ...' is not supported in Quadrants kernels")
    if not isinstance(item.context_expr, ast.Call):
        raise err("'with' in Quadrants kernels requires a call expression")
    if not _is_stream_parallel(stmt, env):
        raise err("'with' in Quadrants kernels only supports qd.stream_parallel() here (qd.checkpoint(), "
                  "qd.graph.parallel_context() and qd.graph.parallel() build CUDA graphs, which qdexplorer does not)")
    if not in_kernel:
        raise err("qd.stream_parallel() can only be used inside @qd.kernel, not @qd.func")
    if graph:
        raise err("qd.stream_parallel() is not compatible with graph=True kernels. Streams and graphs cannot be "
                  "combined; remove graph=True or the qd.stream_parallel() block.")


def _expand(body, env, kernel_src, bind: dict, unrolling: bool) -> tuple[list, bool]:
    out: list = []
    for stmt in body:
        if unrolling and isinstance(stmt, ast.Break):
            return out, True
        if _is_stream_parallel(stmt, env):  # `with qd.stream_parallel():` its loops stay top-level tasks,
            sub, broke = _expand(stmt.body, env, kernel_src, bind, unrolling)  # run one after the other
            out += sub
            if broke:
                return out, True
            continue
        if isinstance(stmt, ast.For) and isinstance(stmt.iter, ast.IfExp) and isinstance(stmt.iter.test, ast.Call) \
                and static_arg(ast.Expr(stmt.iter.test), env) is not None:
            # `for _ in range(1) if qd.static(c) else qd.static(range(1)):` the branch picked at compile
            # time is the loop (a parallel one, or a static one unrolled here)
            try:
                code = compile(ast.Expression(stmt.iter.test.args[0]), "<qd.static>", "eval")
                cond = eval(code, {**flat_env(env), **bind})  # noqa: S307
            except Exception as e:  # noqa: BLE001
                raise kernel_src.error(stmt.iter.test, f"could not evaluate qd.static(...): {e}") from None
            stmt = ast.copy_location(ast.For(stmt.target, stmt.iter.body if cond else stmt.iter.orelse, stmt.body,
                                             stmt.orelse, getattr(stmt, "type_comment", None)), stmt)
        static = static_arg(stmt, env)
        if isinstance(stmt, ast.For) and static is not None:
            try:
                code = compile(ast.Expression(static), "<qd.static>", "eval")
                items = list(eval(code, {**flat_env(env), **bind}))  # noqa: S307
            except Exception as e:  # noqa: BLE001
                raise kernel_src.error(static, f"qd.static(...) must be iterable at compile time: {e}") from None
            names = kernel_src.target_names(stmt.target, "static loop targets")
            for item in items:
                vals = item if len(names) > 1 else (item,)
                sub, broke = _expand(stmt.body, env, kernel_src, {**bind, **{n.id: v for n, v in zip(names, vals)}},
                                     True)
                out += sub
                if broke:
                    break
            continue
        if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Call) and static_arg(ast.Expr(stmt.test), env) is not None:
            try:
                code = compile(ast.Expression(stmt.test.args[0]), "<qd.static>", "eval")
                cond = eval(code, {**flat_env(env), **bind})  # noqa: S307
            except Exception as e:  # noqa: BLE001
                raise kernel_src.error(stmt.test, f"could not evaluate qd.static(...): {e}") from None
            sub, broke = _expand(stmt.body if cond else stmt.orelse, env, kernel_src, bind, unrolling)
            out += sub
            if broke:
                return out, True
            continue
        out.append((stmt, bind))
    return out, False


def _is_stream_parallel(stmt, env) -> bool:
    if not (isinstance(stmt, ast.With) and len(stmt.items) == 1 and isinstance(stmt.items[0].context_expr, ast.Call)):
        return False
    from .streams import stream_parallel
    try:
        f = eval(compile(ast.Expression(stmt.items[0].context_expr.func), "<qd>", "eval"), flat_env(env))  # noqa: S307
    except Exception:  # noqa: BLE001 - not stream_parallel then
        return False
    return f is stream_parallel


def static_arg(stmt, env):
    """The argument node of `qd.static(arg)` when `stmt` is `for ... in qd.static(arg)` or that call."""
    call = stmt.iter if isinstance(stmt, ast.For) else getattr(stmt, "value", None)
    if not (isinstance(call, ast.Call) and len(call.args) == 1):
        return None
    try:
        f = eval(compile(ast.Expression(call.func), "<qd>", "eval"), flat_env(env))  # noqa: S307
    except Exception:  # noqa: BLE001 - not qd.static then
        return None
    return call.args[0] if f is I.static else None


Item = tuple[ast.stmt, dict]  # a top-level statement and the static-loop values it sees


def group(items: list[Item], env, src) -> list[tuple[str, list[Item], dict]]:
    """Split top-level (stmt, bind) items into tasks: ('range', [item], config) | ('serial', items, {})."""
    groups: list[tuple[str, list[Item], dict]] = []
    pending: list[Item] = []
    config: dict = {}
    for stmt, bind in items:
        call = loop_config_call(stmt, env)
        if call is not None:
            if pending:
                groups.append(("serial", pending, {}))
                pending = []
            config = loop_config(call, env, src)
            continue
        if isinstance(stmt, ast.For):
            if pending:
                groups.append(("serial", pending, {}))
                pending = []
            if config.get("serialize") and _breaks(stmt):  # one thread runs it: a loop of a serial task
                groups.append(("serial", [(stmt, bind)], {}))
            else:
                groups.append(("range", [(stmt, bind)], config))
            config = {}
            continue
        if config:
            raise src.error(stmt, "qd.loop_config() must be directly followed by a for loop")
        pending.append((stmt, bind))
    if pending:
        groups.append(("serial", pending, {}))
    return groups


def _breaks(loop: ast.For) -> bool:
    """Whether `break` leaves this loop itself (not only a loop nested in it)."""
    todo: list[ast.AST] = list(loop.body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Break):
            return True
        if not isinstance(n, (ast.For, ast.While, ast.FunctionDef, ast.Lambda)):
            todo += list(ast.iter_child_nodes(n))
    return False


def loop_config(call, env, src) -> dict:
    config = {}
    for kw in call.keywords:
        try:
            config[kw.arg] = eval(compile(ast.Expression(kw.value), "<qd>", "eval"), flat_env(env))  # noqa: S307
        except Exception as e:  # noqa: BLE001
            raise src.error(kw.value, f"qd.loop_config argument must be a constant: {e}") from None
    if call.args:
        raise src.error(call, "qd.loop_config takes keyword arguments only (block_dim=, serialize=, name=)")
    # parallelize: a CPU hint; bit_vectorize: Quadrants' packing of quant_array loops (storage is unpacked here)
    unknown = set(config) - {"block_dim", "serialize", "name", "parallelize", "bit_vectorize"}
    if unknown:
        raise src.error(call, f"unknown qd.loop_config option(s): {', '.join(sorted(unknown))}")
    bd = config.get("block_dim")
    if bd is not None and (not isinstance(bd, int) or not 1 <= bd <= 1024):
        raise src.error(call, f"block_dim must be an integer in 1..1024, got {bd!r}")
    return config


def kernel_scope_names(groups) -> set:
    """Locals assigned by a serial task's own statements and mentioned by another task: Quadrants keeps
    these in global temporaries, so they live in one-element arrays here."""
    assigned, mentioned = [], []
    for kind, items, _ in groups:
        a = set()
        if kind == "serial":
            for stmt, _ in items:
                for n in ast.walk(stmt):
                    if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                        for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                            a |= bound_names(t)
        assigned.append(a)
        mentioned.append({n.id for stmt, _ in items for n in ast.walk(stmt) if isinstance(n, ast.Name)})
    out = set()
    for i, a in enumerate(assigned):
        for j, m in enumerate(mentioned):
            if i != j:
                out |= a & m
    return out


def bound_names(target) -> set:
    """Names a target binds: `a`, `a, b`; not the array of `x[i] = ...` nor the object of `v.x = ...`."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*[bound_names(e) for e in target.elts])
    return set()
