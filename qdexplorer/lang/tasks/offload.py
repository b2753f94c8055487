"""Kernel → offloaded tasks: Quadrants' rule, one `range_for` per top-level loop and one
`serial` task per run of other top-level statements; task names stable across edits."""
from __future__ import annotations

import ast
import builtins
import copy
from collections import ChainMap
import math

from .. import intrinsics as I
from ... import ir
from ...ir.errors import QuadrantsSyntaxError
from .fingerprint import kernel_fingerprint, task_fingerprint
from ..field import Storage
from ..snode import SNode
from ..frontend import Py, TaskBuilder, Vec, cast, py_value
from ..frontend.base import ArrayStandIn
from ..frontend.values import BufView, StructArr, StructVal
from ..struct_types import StructType, struct_arg_names
from ..frontend.kernel_scope import KernelScope
from ..frontend.loops import ndrange_arity_message
from ..frontend.funcs import has_return
from ..calls.return_values import is_compound, leaves
from .source import SourceInfo, python_env
from . import listgen, materialize, quant_lower
from ..template import ALIAS_KEY, specialisation_tag, static_value
from .toplevel import expand, group, kernel_scope_names
from ...ir.dtypes import as_dtype, f32, i32, loop_index_type
from ..vector_types import VectorType


def lower_kernel(kernel, memo=None, spec: tuple | None = None) -> list[ir.Task]:
    """Lower a kernel into its tasks; with a `TaskMemo`, unchanged tasks are reused, not re-lowered.
    The frontend recurses over expressions and qd.func calls: past Python's recursion limit the
    kernel is refused in one line, not with a RecursionError traceback. Fields declared since the
    last compile must be placed first, as Quadrants checks when it compiles (materialize.py)."""
    materialize.check()
    try:
        return _lower_kernel(kernel, memo, spec)
    except RecursionError:
        raise QuadrantsSyntaxError(f"kernel '{kernel.name}' nests too deeply to compile (Python's recursion "
                                   f"limit: a chain of qd.func calls, or one expression, hundreds of levels deep); "
                                   f"split it into statements", kernel.file,
                                   kernel.line) from None


def _lower_kernel(kernel, memo, spec) -> list[ir.Task]:
    src: SourceInfo = kernel.source
    env = python_env(kernel.fn)
    spec_used = spec if spec is not None else kernel.spec_for()
    args = kernel_args(spec_used)
    # compile-time template values: `if qd.static(flag):` around a top-level loop reads them
    statics = {e[0]: static_value(e[2]) for e in spec_used if e[1] == "static"}
    # ... and an array argument is there (`if qd.static(t is not None):` of a `t: qd.Tensor | None`)
    statics.update({e[0]: ArrayStandIn(e[0], e[2], e[3]) for e in spec_used if e[1] == "array"})
    tag = specialisation_tag(spec or ())
    prefix = f"{kernel.name}_{tag}" if tag else kernel.name
    tasks: list[ir.Task] = []
    body = src.fdef.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0].value, "value", None), str):
        body = body[1:]
    scope = ChainMap(statics, env)  # a template argument (`self`) reads in qd.loop_config(block_dim=self.n) too
    groups = group(expand(body, scope, src, graph=getattr(kernel, "use_graph", False)), scope, src)
    top_names = _TopNames(body)
    ret_dt, ret_shape = _return_type(kernel)
    if kernel.return_type is not None and not has_return(src.fdef):
        raise QuadrantsSyntaxError(f"Kernel has a return type but does not have a return statement: '{kernel.name}' "
                                   f"is annotated -> {kernel.return_type!r}; return a value, or drop the annotation",
                                   kernel.file, kernel.line)
    gtemp_names = kernel_scope_names(groups)
    kscope = KernelScope(args, gtemp_names, ret_dt, ret_shape)
    # a sparse field given as a template: the field itself, as a global is (its SNode tree comes with it)
    template_fields = {n: v.value for n, v in args.items() if isinstance(v, Py) and isinstance(v.value, Storage)}
    for name, fld in template_fields.items():
        args[name] = kscope.field_arg(fld, name)
    kscope.ret_annotation = kernel.return_type
    for k, (dt, shape) in enumerate(leaves(kernel.return_type) or ()):
        kscope.ret_leaves.append(kscope.add_result(f"ret__{k}", dt, shape))
    kscope.elem_shapes.update({e[0]: e[4] for e in (spec or ()) if len(e) > 4 and e[1] in ("array", "bufview")})
    kscope.clamped = {n for n, t in kernel.arg_types().items() if getattr(t, "boundary", "unsafe") == "clamp"}
    offsets = {e[0]: e[5] for e in (spec or ()) if len(e) > 5 and e[1] == "array" and e[5]}  # template fields'
    kscope.offsets.update(offsets)                                                          # offset= ...
    quants = {e[0]: e[6] for e in (spec or ()) if len(e) > 6 and e[1] == "array"}  # ... and quantized types
    kscope.quants.update(quants)
    for name, q in quants.items():  # the frontend sees the compute type
        args[name] = ir.ArrayArg(name, q.compute, args[name].ndim)

    spec_fp = tuple(sorted((k, repr(v)) for k, v in args.items())) + tuple(sorted(offsets.items())) + \
        tuple(sorted((k, repr(q)) for k, q in quants.items())) + \
        tuple(sorted((k, f.uid) for k, f in template_fields.items()))  # which field, not only its name
    kernel_fp = kernel_fingerprint(kernel, spec_fp) if memo is not None else ""
    whole = src.segment(body) if gtemp_names and body else ""  # shared locals: a task depends on the others

    for kind, items, cfg in groups:
        stmts = [st for st, _ in items]
        fp_cfg = {**cfg, "static": repr([b for _, b in items]), "whole": whole}
        fp = task_fingerprint(kernel_fp, len(tasks), fp_cfg, src.segment(stmts)) if memo is not None else None
        cached = memo.get(fp) if fp else None
        if cached is not None:
            made = []
            for c in cached:
                t = copy.copy(c)  # same IR; refresh where it sits in the file
                t.lines = _lines(src, stmts)
                a, b = t.lines
                t.file, t.source = src.file, "".join(src.raw_lines[a - 1 - src.line_shift: b - src.line_shift])
                for imp in t.implicit:
                    kscope.adopt(imp)
                made.append(t)
        else:
            ctx = (kernel, prefix, src, args, kscope, top_names)
            one = _serial_task(ctx, items, len(tasks)) if kind == "serial" else _range_task(ctx, items[0], len(tasks), cfg)
            made = one if isinstance(one, list) else [one]  # a struct-for over sparse cells: its listgen first
            for t in made:
                t.fingerprint = (fp + ("/listgen" if t.listgen else "")) if fp else ""
            if fp:
                memo.put(fp, made)
        for t in made:
            t.fast_math = getattr(kernel, "fast_math", None)  # the decorator's override, read at every lowering
            t.may_alias = frozenset(n for e in (spec or ()) if e[0] == ALIAS_KEY for g in e[2] for n in g)
            tasks.append(t)
    kernel.assert_sites = kscope.assert_sites
    return tasks


def kernel_args(spec: tuple) -> dict:
    """What each argument of a specialisation is inside the kernel body: an array, a scalar, a
    vector of scalar parameters (`c` is c__0, c__1, ...), or a template's compile-time value."""
    out: dict = {}
    for name, kind, dt, nd, *_ in spec:
        if kind == "static":
            out[name] = py_value(static_value(dt))
        elif kind == "vector":
            out[name] = Vec([ir.ScalarArg(f"{name}__{k}", dt) for k in range(math.prod(nd))], nd)
        elif kind == "struct":  # one scalar parameter per member component
            out[name] = struct_value(dt, {key: ir.ScalarArg(p, t) for p, key, t in struct_arg_names(name, dt)})
        elif kind == "bufview":  # the backing array and the window's offset and size
            out[name] = BufView(ir.ArrayArg(name, dt, nd), ir.ScalarArg(f"{name}__offset", i32),
                                ir.ScalarArg(f"{name}__size", i32))
        else:
            out[name] = ir.ArrayArg(name, dt, nd) if kind == "array" else ir.ScalarArg(name, dt)
    return out


def struct_value(stype, scalars: dict, path: tuple = ()) -> StructVal:
    """The StructVal of a struct argument, its members read from the scalar parameters `scalars`
    ((member path, component) -> ScalarArg)."""
    members: dict = {}
    for k, t in stype.members.items():
        p = path + (k,)
        if isinstance(t, StructType):
            members[k] = struct_value(t, scalars, p)
        elif isinstance(t, VectorType):
            members[k] = Vec([scalars[(p, c)] for c in range(math.prod(t.shape))], t.shape)
        else:
            members[k] = scalars[(p, None)]
    return StructVal(stype, members)


def _return_type(kernel):
    ann = kernel.return_type
    if ann is None:
        return None, (1,)
    if isinstance(ann, VectorType):
        return ann.dtype or f32, (math.prod(ann.shape),)
    if is_compound(ann):  # a struct or tuple: one result array per leaf (return_values.py)
        try:
            leaves(ann)
        except TypeError as e:
            raise QuadrantsSyntaxError(f"kernel '{kernel.name}': {e}", kernel.file, kernel.line) from None
        return None, (1,)
    dt = as_dtype(ann)
    if dt is None:
        raise QuadrantsSyntaxError(f"kernel '{kernel.name}' has return annotation {ann!r}; a kernel returns a "
                                   f"qd scalar type", kernel.file, kernel.line)
    return dt, (1,)


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


def _task_name(prefix, index, kind, loop_name=None):
    mid = f"{loop_name}_" if loop_name else ""
    return f"{prefix}_kernel_{index}_{mid}{kind}"


def _builder(ctx, parallel, index):
    kernel, _, src, args, kscope, names = ctx
    b = TaskBuilder(kernel.name, src, args, parallel=parallel, kscope=kscope, task_index=index)
    b.other_task_names = names
    b.pure = getattr(kernel, "pure", False)
    return b


def _serial_task(ctx, items, index) -> ir.Task:
    kernel, prefix, src, args, kscope, _ = ctx
    b = _builder(ctx, parallel=False, index=index)
    bound: dict = {}  # the static-loop values the previous item saw: they end with their loop
    for s, bind in items:
        scope = b.frames[0].scopes[-1]
        for k, v in bound.items():
            if k not in bind and scope.get(k) is v:  # `print(i)` after `for i in qd.static(...)`: undefined
                del scope[k]
        bound = {k: py_value(v) for k, v in bind.items()}
        scope.update(bound)
        b.stmt(s)
    stmts = [s for s, _ in items]
    t = ir.Task(_task_name(prefix, index, "serial"), kernel.name, index, "serial", b.out[0], src.file,
                _lines(src, stmts), shared=b.shared, stop_grad=frozenset(b.stop_grad))
    return _finish(t, args, kscope, src, stmts)


def _range_task(ctx, item, index, config) -> ir.Task | list[ir.Task]:
    kernel, prefix, src, args, kscope, _ = ctx
    node, bind = item
    b = _builder(ctx, parallel=True, index=index)
    b.frames[0].scopes[-1].update({k: py_value(v) for k, v in bind.items()})
    targets = src.target_names(node.target)
    ranges, grouped, container, order = _loop_ranges(b, src, node.iter, node)
    zero_d = not ranges  # `for I in qd.grouped(qd.ndrange())`: one iteration, an empty index
    if zero_d:
        if not grouped:
            raise src.error(node.iter, "qd.ndrange() has no dimension: loop over qd.grouped(qd.ndrange()) "
                                       "for its one (empty) index")
        ranges, order = [(ir.Const(0, i32), ir.Const(1, i32))], None
    is_range = isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range"
    if is_range:  # Quadrants casts range()'s bounds to i32 (with a warning): range(3.7) runs 3 times
        ranges = [tuple(cast(e, i32) if e.dtype.is_float else e for e in r) for r in ranges]
    for lo, hi in ranges:
        for e in (lo, hi):
            if not e.dtype.is_int:
                raise src.error(node.iter, f"loop bounds must be integers, got {e.dtype!r}")
    index_t = loop_index_type(e for r in ranges for e in r)
    ranges = [(cast(lo, index_t), cast(hi, index_t)) for lo, hi in ranges]
    if grouped:
        if len(targets) != 1:
            raise src.error(node.target, "qd.grouped(...) gives one index vector: use one loop variable")
        loop_vars = [ir.Local(f"{targets[0].id}_{k}", index_t) for k in range(len(ranges))]
        by_axis = _canonical(loop_vars, order)
        b.frames[0].scopes.append({targets[0].id: Vec([ir.LocalRef(v) for v in ([] if zero_d else by_axis)])})
    else:
        if len(targets) != len(ranges):
            raise src.error(node.target, ndrange_arity_message(len(ranges), len(targets)), QuadrantsSyntaxError)
        by_axis = [ir.Local(t.id, index_t) for t in targets]  # the loop nest (ranges) is in visiting order
        loop_vars = [by_axis[a] for a in order] if order else by_axis
        b.frames[0].scopes.append({t.id: v for t, v in zip(targets, by_axis)})
    b.thread_ids = [ir.LocalRef(v) for v in loop_vars]
    offset = _struct_for_offset(b, node.iter)  # a struct-for over a field with offset= runs from it
    guard, listed = None, None
    if container is not None:  # under pointer/bitmasked/dynamic containers: active cells only (listgen.py)
        listed = ir.Local("listed__t", i32)
        pre, coords, guard = listgen.struct_for(b, container, ir.LocalRef(listed))
        b.out[-1].extend(pre)
        for k, (v, e) in enumerate(zip(by_axis, coords.values())):  # the loop variables, from offset= on
            b.out[-1].append(ir.Assign(v, cast(_bin_add(e, offset[k] if k < len(offset) else 0), v.dtype)))
        ranges, loop_vars = [(ir.Const(0, i32), ir.Load(listgen.count_arg(b, container), (ir.Const(2, i32),)))], [listed]
    if guard is not None:
        b.out.append([])
    for s in node.body:
        b.stmt(s)
    if guard is not None:
        inner = b.out.pop()
        b.out[-1].append(ir.If(guard, inner, []))
    name = config.get("name")
    if name is not None and (not isinstance(name, str) or not name.isidentifier()):
        raise src.error(node, f"loop_config name must be an identifier, got {name!r}")
    t = ir.Task(_task_name(prefix, index, "range_for", name), kernel.name, index, "range_for",
                b.out[0], src.file, _lines(src, [node]), loop_name=name, loop_vars=loop_vars,
                ranges=ranges, block_dim=config.get("block_dim"), serialize=bool(config.get("serialize")),
                shared=b.shared, stop_grad=frozenset(b.stop_grad))
    t = _finish(t, args, kscope, src, [node])
    if listed is None:
        return t
    lb = _builder(ctx, parallel=False, index=index)
    lg = ir.Task(_task_name(prefix, index, "listgen", name), kernel.name, index, "serial",
                 listgen.listgen_body(lb, container), src.file, _lines(src, [node]), listgen=True)
    return [_finish(lg, args, kscope, src, [node]), t]


def _bin_add(e, o: int):
    return ir.BinOp("+", e, ir.Const(o, i32), i32) if o else e


def _canonical(loop_vars: list, order) -> list:
    """The loop variables by canonical axis, from the loop nest's levels (`order[p]`: the axis of level p)."""
    if not order:
        return loop_vars
    return [loop_vars[order.index(k)] for k in range(len(order))]


def _loop_ranges(b, src, it, loop=None):
    """(ranges, grouped, container, order) of a top-level loop: range, qd.ndrange, qd.grouped(...), or a
    struct-for over an ndarray, a field or an SNode (`for i in x`: its index space). `container` is
    the SNode whose active cells a struct-for visits (None: every index). `ranges` are in the order the
    loop nest visits them (outermost first); `order[p]` is the canonical axis of level p (`qd.ndrange(...,
    axes=)`; None: the canonical order)."""
    if isinstance(it, ast.IfExp):  # `range(a) if qd.static(c) else range(b)`: picked at compile time
        return _loop_ranges(b, src, b.static_pick(it))
    if isinstance(it, ast.Call):
        fn = b.value(it.func)
        if isinstance(fn, Py) and fn.value is I.static:
            raise src.error(it, "qd.static(...) here must be iterable at compile time")
        if isinstance(fn, Py) and fn.value is I.grouped:
            if len(it.args) != 1:
                raise src.error(it, "qd.grouped() takes one argument")
            ranges, _, container, order = _loop_ranges(b, src, it.args[0])
            return ranges, True, container, order
        if isinstance(fn, Py) and fn.value is builtins.range:
            if len(it.args) not in (1, 2) or it.keywords:
                b.err(loop or it, f"Range should have 1 or 2 arguments, found {len(it.args) + len(it.keywords)} "
                                  f"(a parallel range() takes (end) or (begin, end); steps are not supported)")
            ends = [b.commit(b.value(a), a, like=i32) for a in it.args]
            return [(ir.Const(0, i32), ends[0]) if len(ends) == 1 else (ends[0], ends[1])], False, None, None
        if isinstance(fn, Py) and fn.value is I.ndrange:
            canonical, order = b.ndrange_bounds(it)
            return [canonical[a] for a in order], False, None, order
    v = b.value(it)
    while isinstance(v, StructArr):  # a struct field: its members share its index space
        v = next(iter(v.members.values()))
    if isinstance(v, ir.ArrayArg):  # struct-for: every index of the array or field
        fld = b.kscope.sparse_field(v.name)
        container = fld.snode.parent() if fld is not None else None
        off = b.kscope.offsets.get(v.name, ())
        ranges = [(ir.Const(0, i32), ir.Shape(v, k)) for k in range(b.user_ndim(v))]
        if off:  # indices run from the field's offset
            ranges = [(ir.Const(o, i32), ir.BinOp("+", hi, ir.Const(o, i32), i32)) if o else (lo, hi)
                      for (lo, hi), o in zip(ranges, off)]
        return ranges, False, container, None
    if isinstance(v, Py) and isinstance(v.value, SNode):  # `for i, j in ptr`: the container's cells
        sn = v.value
        if not sn.shape:
            raise src.error(it, "a struct-for over qd.root has no index to loop over")
        return ([(ir.Const(0, i32), ir.Const(n, i32)) for n in sn.shape], False,
                (sn if sn.sparse_path() else None), None)
    raise src.error(it, "a kernel's top-level for must iterate over range(...), qd.ndrange(...), "
                        "qd.grouped(...), an ndarray, a field or an SNode")


def _struct_for_offset(b, it) -> tuple:
    """The `offset=` of the field a struct-for (`for i in x`, `qd.grouped(x)`) iterates, else ()."""
    while isinstance(it, ast.Call) and it.args and isinstance(it.func, (ast.Name, ast.Attribute)):
        fn = b.value(it.func)
        if not (isinstance(fn, Py) and fn.value is I.grouped):
            return ()
        it = it.args[0]
    if not isinstance(it, (ast.Name, ast.Attribute)):
        return ()
    v = b.value(it)
    while isinstance(v, StructArr):
        v = next(iter(v.members.values()))
    return b.kscope.offsets.get(v.name, ()) if isinstance(v, ir.ArrayArg) else ()


def _unshifted(ids: list, offset: tuple) -> list:
    """Loop indices of a struct-for over a field with `offset=`, as indices of its storage."""
    return [ir.BinOp("-", e, ir.Const(o, i32), i32) if o else e for e, o in zip(ids, offset)] + ids[len(offset):]


def _lines(src, stmts):
    first = stmts[0].lineno + src.line_shift
    last = max(getattr(s, "end_lineno", s.lineno) for s in stmts) + src.line_shift
    return first, last


def _parameters(name: str, v) -> dict:
    """The task parameters an argument stands for: a vector or struct argument is one scalar per
    component (`c__0`, `p__pos__0`, ...)."""
    if isinstance(v, Vec):
        return {c.name: c for c in v.items}
    if isinstance(v, BufView):
        return {name: v.array, f"{name}__offset": v.offset, f"{name}__size": v.size}
    if isinstance(v, StructVal):
        out: dict = {}
        for k, m in v.members.items():
            out.update(_parameters(f"{name}__{k}", m))
        return out
    return {name: v}


def _finish(task: ir.Task, args: dict, kscope, src, stmts) -> ir.Task:
    quant_lower.rewrite_task(task, kscope.quants, kscope.quant_groups)  # quantized fields: encode, decode
    used_arrays, used_scalars = set(), set()
    for n in ir.walk([task.body, task.ranges]):
        if isinstance(n, ir.ArrayArg):
            used_arrays.add(n.name)
        elif isinstance(n, ir.ScalarArg):
            used_scalars.add(n.name)
    params = []
    flat = {}
    for name, v in {**args, **kscope.arrays(), **kscope.scalars()}.items():
        flat.update(_parameters(name, v))
    for name, v in flat.items():
        if isinstance(v, ir.ArrayArg) and name in used_arrays:
            dt = kscope.quants[name].raw if name in kscope.quants else v.dtype  # a quantized field's raw type
            params.append(ir.Param(name, "array", dt, v.ndim))
        elif isinstance(v, ir.ScalarArg) and name in used_scalars:
            params.append(ir.Param(name, "scalar", v.dtype))
    task.params = params
    task.implicit = kscope.for_task(used_arrays)
    a, b = task.lines
    task.source = "".join(src.raw_lines[a - 1 - src.line_shift: b - src.line_shift])
    return task
