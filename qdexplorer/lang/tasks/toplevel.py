"""A kernel's top level, before it becomes tasks: `qd.static` loops and branches expanded, statements
grouped into tasks (one per top-level loop, one per run of other statements), `qd.loop_config`
read, and the kernel-scope locals found that must outlive a task."""
from __future__ import annotations

from ...ir.errors import QdCompileError

import ast

from .. import intrinsics as I
from ...ir.errors import QuadrantsSyntaxError
from ..compat.graph_api import construct as graph_construct, warn_if_deprecated
from ..host.streams import stream_parallel
from .source import flat_env

_GRAPH_BLOCKS = ("parallel_context", "parallel")  # qd.graph's `with` blocks: their loops stay top-level tasks


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
    if not graph:  # Quadrants' check: a do-while is a graph construct (else a non-decrementing body never ends)
        for s in body:
            for n in ast.walk(s):
                if isinstance(n, ast.While) and graph_construct(n.test, env) == "do_while":
                    raise kernel_src.error(n.test, "qd.graph.do_while() requires @qd.kernel(graph=True)",
                                           QuadrantsSyntaxError)
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


def check_with(stmt: ast.With, env, src, in_kernel: bool, graph: bool | None = None) -> None:
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
    which = graph_construct(item.context_expr, env)
    if which in _GRAPH_BLOCKS:
        if not in_kernel:
            raise err(f"qd.graph.{which}() can only be used inside @qd.kernel, not @qd.func")
        if graph is not None:  # a kernel's top-level region (the frontend's nested ones: not known here)
            _check_graph_region(stmt, env, src, graph)
        return
    if not _is_stream_parallel(stmt, env):
        raise err("'with' in Quadrants kernels only supports qd.stream_parallel() here (qd.checkpoint(), "
                  "qd.graph.parallel_context() and qd.graph.parallel() build CUDA graphs, which qdexplorer does not)")
    if not in_kernel:
        raise err("qd.stream_parallel() can only be used inside @qd.kernel, not @qd.func")
    if graph:
        raise err("qd.stream_parallel() is not compatible with graph=True kernels. Streams and graphs cannot be "
                  "combined; remove graph=True or the qd.stream_parallel() block.")


def _check_graph_region(stmt: ast.With, env, src, graph: bool) -> None:
    """Quadrants' grammar of a top-level `with qd.graph.parallel_context():` region: a graph kernel's,
    holding only `with qd.graph.parallel():` sections (optionally under `if qd.static(...)` / `for ...
    in qd.static(...)`), each straight-line task work. qdexplorer runs the sections one after the other;
    checking the grammar keeps a program that Quadrants refuses from running here."""
    def err(node, msg):
        return src.error(node, msg, QuadrantsSyntaxError)

    def construct(node):
        which = graph_construct(node, env) if isinstance(node, ast.Call) else None
        if which in _GRAPH_BLOCKS and (node.args or node.keywords):
            raise err(node, f"qd.graph.{which}() takes no arguments")
        return which

    which = construct(stmt.items[0].context_expr)
    if which == "parallel":
        raise err(stmt, "qd.graph.parallel() can only be used directly inside a qd.graph.parallel_context() region")
    if not graph:
        raise err(stmt, "qd.graph.parallel_context() requires @qd.kernel(graph=True)")

    def section(body):
        for s in body:
            for n in ast.walk(s):
                if isinstance(n, ast.While) and graph_construct(n.test, env) == "do_while":
                    raise err(n, "qd.graph.do_while() cannot appear inside a qd.graph.parallel() section; a section "
                                 "body must be straight-line task work (put the qd.graph.parallel_context() region "
                                 "inside the qd.graph.do_while() loop, not the other way around)")
                if isinstance(n, ast.With):
                    for it in n.items:
                        inner = construct(it.context_expr)
                        if inner == "parallel_context":
                            raise err(n, "qd.graph.parallel_context() cannot appear inside a qd.graph.parallel() section")
                        if inner == "parallel":
                            raise err(n, "qd.graph.parallel() sections cannot be nested inside one another")

    def region(body):
        for i, s in enumerate(body):
            if isinstance(s, ast.Pass) or (i == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                           and isinstance(s.value.value, str)):
                continue
            if isinstance(s, ast.With) and s.items:
                inner = construct(s.items[0].context_expr)
                if inner == "parallel":
                    section(s.body)
                    continue
                if inner == "parallel_context":
                    raise err(s, "qd.graph.parallel_context() regions cannot be nested")
            if isinstance(s, ast.If) and static_arg(ast.Expr(s.test), env) is not None:
                region(s.body)
                region(s.orelse)
                continue
            if isinstance(s, ast.For) and not s.orelse and static_arg(s, env) is not None:
                region(s.body)
                continue
            raise err(s, "A qd.graph.parallel_context() region may contain only 'with qd.graph.parallel():' blocks "
                         "(optionally inside 'if qd.static(...)' or 'for ... in qd.static(...)'). Move other work "
                         f"outside the region. [offending stmt {i}: {type(s).__name__}]")

    region(stmt.body)


def _expand(body, env, kernel_src, bind: dict, unrolling: bool) -> tuple[list, str]:
    """(statements, stop): stop is "" (ran to the end), "break" / "continue" (reached while unrolling:
    the unrolled loop ends / goes on with its next item) or "return" (a top-level `return`: nothing after it is part of the kernel,
    as Quadrants stops building statements once the kernel has returned)."""
    out: list = []
    for stmt in body:
        if unrolling and isinstance(stmt, (ast.Break, ast.Continue)):
            return out, "break" if isinstance(stmt, ast.Break) else "continue"
        if isinstance(stmt, ast.Return):
            out.append((stmt, bind))
            return out, "return"
        if _is_stream_parallel(stmt, env) or (isinstance(stmt, ast.With) and len(stmt.items) == 1 and
                                              graph_construct(stmt.items[0].context_expr, env) in _GRAPH_BLOCKS):
            # `with qd.stream_parallel():` / `qd.graph.parallel_context()` / `qd.graph.parallel()`: the
            # loops inside stay top-level tasks, run one after the other
            if not _is_stream_parallel(stmt, env):
                c = stmt.items[0].context_expr
                which = graph_construct(c, env)
                if isinstance(c, ast.Call) and which:
                    warn_if_deprecated(c.func, which)
            sub, stop = _expand(stmt.body, env, kernel_src, bind, unrolling)
            out += sub
            if stop:
                return out, stop
            continue
        if isinstance(stmt, ast.For) and isinstance(stmt.iter, ast.IfExp) and isinstance(stmt.iter.test, ast.Call) \
                and static_arg(ast.Expr(stmt.iter.test), env) is not None:
            # `for _ in range(1) if qd.static(c) else qd.static(range(1)):` the branch picked at compile
            # time is the loop (a parallel one, or a static one unrolled here)
            try:
                code = compile(ast.Expression(stmt.iter.test.args[0]), "<qd.static>", "eval")
                cond = eval(code, {**flat_env(env), **bind})  # noqa: S307
            except Exception as e:  # noqa: BLE001
                raise kernel_src.error(stmt.iter.test, _static_failure(e)) from None
            stmt = ast.copy_location(ast.For(stmt.target, stmt.iter.body if cond else stmt.iter.orelse, stmt.body,
                                             stmt.orelse, getattr(stmt, "type_comment", None)), stmt)
        if isinstance(stmt, ast.For):
            check_for(stmt, env, kernel_src)
        static = static_arg(stmt, env)
        if isinstance(stmt, ast.For) and static is not None:
            check_static_jumps(stmt.body, kernel_src)
            try:
                code = compile(ast.Expression(static), "<qd.static>", "eval")
                items = list(eval(code, {**flat_env(env), **bind}))  # noqa: S307
            except QdCompileError as e:  # Quadrants' own error (qd.ndrange's checks): its class, at the user's line
                raise kernel_src.error(static, e.message, type(e)) from None
            except Exception as e:  # noqa: BLE001
                raise kernel_src.error(static, f"qd.static(...) must be iterable at compile time: {e}") from None
            names = kernel_src.target_names(stmt.target, "static loop targets")
            for item in items:
                vals = item if len(names) > 1 else (item,)
                sub, stop = _expand(stmt.body, env, kernel_src, {**bind, **{n.id: v for n, v in zip(names, vals)}},
                                    True)
                out += sub
                if stop == "return":
                    return out, stop
                if stop == "break":
                    break
            continue
        if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Call) and static_arg(ast.Expr(stmt.test), env) is not None:
            try:
                code = compile(ast.Expression(stmt.test.args[0]), "<qd.static>", "eval")
                cond = eval(code, {**flat_env(env), **bind})  # noqa: S307
            except Exception as e:  # noqa: BLE001
                raise kernel_src.error(stmt.test, _static_failure(e)) from None
            sub, stop = _expand(stmt.body if cond else stmt.orelse, env, kernel_src, bind, unrolling)
            out += sub
            if stop:
                return out, stop
            continue
        static_bind = _static_assign(stmt, env, bind)
        if static_bind is not None:  # `x, y = qd.static(a, b)`: Python values every later statement sees
            bind = {**bind, **static_bind}
            continue
        out.append((stmt, bind))
    return out, ""


def _static_assign(stmt, env, bind: dict) -> dict | None:
    """The names a top-level `x = qd.static(a)` / `x, y = qd.static(a, b)` binds, as Quadrants binds
    them: to Python values, seen by every later task (a field is not a value a task could hand on);
    None when `stmt` is not one or its value is not known at compile time."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Call)
            and not stmt.value.keywords and _callee(stmt.value, env) is I.static):
        return None
    target = stmt.targets[0]
    names = [target] if isinstance(target, ast.Name) else list(getattr(target, "elts", ()))
    if not names or not all(isinstance(n, ast.Name) for n in names):
        return None
    try:
        value = eval(compile(ast.Expression(stmt.value), "<qd.static>", "eval"), {**flat_env(env), **bind})  # noqa: S307
    except Exception:  # noqa: BLE001 - a runtime value: the frontend says so where it lowers it
        return None
    refused = (str, bytes, dict, set, frozenset)  # Quadrants' qd.static refuses these: the frontend says so
    if isinstance(target, ast.Name):
        return None if isinstance(value, refused) else {target.id: value}
    if not isinstance(value, (tuple, list)) or len(value) != len(names) or any(isinstance(v, refused) for v in value):
        return None
    return {n.id: v for n, v in zip(names, value)}


def _static_failure(e: Exception) -> str:
    if isinstance(e, NameError):  # a kernel argument or a local: known only when the kernel runs
        return (f"qd.static(...) arguments must be compile-time constants: {e} at compile time (a kernel "
                f"argument or a runtime variable; use a qd.template() argument for a value known when compiling)")
    return f"could not evaluate qd.static(...): {e}"


def _is_stream_parallel(stmt, env) -> bool:
    if not (isinstance(stmt, ast.With) and len(stmt.items) == 1 and isinstance(stmt.items[0].context_expr, ast.Call)):
        return False
    try:
        f = eval(compile(ast.Expression(stmt.items[0].context_expr.func), "<qd>", "eval"), flat_env(env))  # noqa: S307
    except Exception:  # noqa: BLE001 - not stream_parallel then
        return False
    return f is stream_parallel


def _callee(node, env):
    """The Python object a call's function names (`qd.static`), or None."""
    if not isinstance(node, ast.Call):
        return None
    try:
        return eval(compile(ast.Expression(node.func), "<qd>", "eval"), flat_env(env))  # noqa: S307
    except Exception:  # noqa: BLE001 - not a known callee then
        return None


def check_for(stmt: ast.For, env, src, assigned=()) -> None:
    """Quadrants' QuadrantsSyntaxErrors for a `for` in a kernel: an `else` clause, nested
    `qd.static`/`qd.grouped`, `qd.static(qd.grouped(x))` of anything but a `qd.ndrange`, and a loop
    variable already declared outside the loop (`assigned`: names declared before it)."""
    def err(node, msg):
        return src.error(node, msg, QuadrantsSyntaxError)
    if stmt.orelse:
        raise err(stmt, "'else' clause for 'for' not supported in Quadrants kernels")
    it = stmt.iter
    outer = _callee(it, env)
    if isinstance(it, ast.Call) and outer in (I.static, I.grouped) and len(it.args) == 1:
        arg = it.args[0]
        inner = _callee(arg, env)
        if outer is I.static and inner is I.static:
            raise err(it, "'qd.static' cannot be nested")
        if outer is I.grouped and inner is I.grouped:
            raise err(it, "'qd.grouped' cannot be nested")
        if outer is I.grouped and inner is I.static:
            raise err(it, "'qd.static' is not allowed inside 'qd.grouped'")
        if outer is I.static and inner is I.grouped and isinstance(arg, ast.Call) and len(arg.args) == 1:
            try:  # the value decides, as in Quadrants (`qd.grouped(stencil_range())` of a helper is fine)
                value = eval(compile(ast.Expression(arg.args[0]), "<qd>", "eval"), flat_env(env))  # noqa: S307
            except Exception:  # noqa: BLE001 - not known here: the loop's own lowering reports it
                value = None
            if value is not None and not isinstance(value, I.ndrange):
                raise err(it, "Only 'qd.ndrange' is allowed in 'qd.static(qd.grouped(...))'.")
    for t in ast.walk(stmt.target):
        if isinstance(t, ast.Name) and t.id in assigned:
            raise err(t, f"Variable '{t.id}' is already declared in the outer scope and cannot be used as loop "
                         f"variable")


def check_static_jumps(body, src) -> None:
    """A `break`/`continue` of a qd.static loop inside a runtime `if`: Quadrants refuses it (the loop
    is unrolled at compile time, so a runtime condition cannot stop it)."""
    def walk(stmts, in_if):
        for st in stmts:
            if isinstance(st, (ast.Break, ast.Continue)) and in_if:
                word = "break" if isinstance(st, ast.Break) else "continue"
                raise src.error(st, f"You are trying to `{word}` a static `for` loop, but the `{word}` statement "
                                    f"is inside a non-static `if`. ", QuadrantsSyntaxError)
            if isinstance(st, ast.If):
                static = isinstance(st.test, ast.Call) and getattr(st.test.func, "attr",
                                                                   getattr(st.test.func, "id", "")) == "static"
                walk(st.body, in_if or not static)
                walk(st.orelse, in_if or not static)
            elif isinstance(st, (ast.With, ast.Try)):
                walk(st.body, in_if)
    walk(body, False)


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
    declared: set = set()  # names the top-level statements so far assign (a loop may not reuse one)
    for stmt, bind in items:
        if isinstance(stmt, ast.For):
            check_for(stmt, env, src, declared)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]):
                declared |= bound_names(t)
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
        if isinstance(stmt, ast.Expr) and _callee(stmt.value, env) is I.block_local:
            continue  # a hint for the next loop (Quadrants' bls template puts it after qd.loop_config): no task
        if config and any(isinstance(n, (ast.For, ast.While)) for n in ast.walk(stmt)):
            raise src.error(stmt, "qd.loop_config() must be followed by its for loop before any other loop")
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
