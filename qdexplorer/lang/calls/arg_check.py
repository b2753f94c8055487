"""Call arguments checked against what the kernel was compiled for, before anything launches.

A kernel's code trusts its ABI: a float64 array passed where f32 was compiled is read as the
wrong bits, an array shorter than the loop overflows the heap, a shape over 2^31 wraps in the
i32 the ABI passes. So every call (script, workload, app) goes through `check_call_args`: arrays
must match the specialisation's dtype and ndim and be C-contiguous (refused with the fix named,
as Quadrants refuses them); scalars are converted where Quadrants converts (an int for a float)
and refused otherwise (a float for an int, even 2.0, as Quadrants refuses it); and an array
indexed by a loop variable must be at least as long as that variable's range (the common
`y[i] = x[i]` over `range(x.shape[0])`).
"""
from __future__ import annotations

import numbers

import numpy as np

from ... import ir
from .bounds import eval_expr
from ...ir.device_array import DeviceArray
from ...ir.errors import QdError
from ..field import as_kernel_array
from ..struct_types import struct_arg_names
from ..template import ALIAS_KEY
from ...ir.dtypes import from_numpy, i32, int_range

I32_MAX = 2**31 - 1


class ArgumentError(QdError, TypeError):
    """A call argument that does not fit the compiled kernel; names the kernel and the argument."""


class OutOfBoundsArgument(ArgumentError, AssertionError):
    """A loop whose range indexes an array argument past its end, found before the launch: an
    `AssertionError` too, as Quadrants' debug-mode "Out of bound access" is."""


class NonContiguousArgumentError(ArgumentError, ValueError):
    """A strided view (slice, transpose) passed as an array argument. Also a `ValueError`, the
    class Quadrants raises for it ("Non contiguous tensors are not supported"), so code that
    catches Quadrants' error catches this one."""


def check_call_args(kernel_name: str, spec: tuple, args: dict, tasks=(), on_device: bool = False,
                    writes: frozenset | None = None) -> dict:
    """`args` with scalars converted; ArgumentError for anything that would be misread.

    `on_device`: the call runs on CUDA in this process, so GPU arrays (DeviceArray) are accepted
    by pointer; anywhere else one is refused with the fix named. `writes`: the array arguments
    the kernel stores to (`written_arrays`), when `tasks` are not all of the kernel's tasks."""
    writes = written_arrays(tasks) if writes is None else writes
    out = dict(args)
    arrays = {}
    aliased: tuple = ()
    for entry in spec:
        name, kind, dt, nd = entry[:4]
        if name == ALIAS_KEY:  # template parameters given the same array: compiled to allow it
            aliased = dt
            continue
        where = f"{kernel_name}(): argument '{name}'"
        if kind == "struct":  # expanded by Kernel.call_args into one scalar per member component
            for pname, _, mdt in struct_arg_names(name, dt):
                if pname not in args:
                    raise ArgumentError(f"{where} is missing")
                out[pname] = convert_scalar(f"{where} (member {pname[len(name) + 2:]})", args[pname], mdt)
            continue
        if kind == "vector":  # expanded by Kernel.call_args into name__0, name__1, ...
            for k in range(int(np.prod(nd))):
                if f"{name}__{k}" not in args:
                    raise ArgumentError(f"{where} is missing")
                out[f"{name}__{k}"] = convert_scalar(f"{where} (component {k})", args[f"{name}__{k}"], dt)
            continue
        if name not in args:
            raise ArgumentError(f"{where} is missing")
        v = args[name]
        if kind == "bufview":  # a qd.BufferView: its array (checked below) and its window's two i32 scalars
            for part in ("offset", "size"):
                out[f"{name}__{part}"] = convert_scalar(f"{where} ({part})", args[f"{name}__{part}"], i32)
        if kind in ("array", "bufview"):
            try:
                arrays[name] = as_kernel_array(v)
            except TypeError as e:
                raise ArgumentError(f"{where}: {e}") from None
            if isinstance(arrays[name], DeviceArray) and not on_device:
                raise ArgumentError(f"{where} is a GPU array ({arrays[name].source}), but this call runs on the "
                                    f"CPU backend: call qd.init(arch=qd.cuda) first, or pass a host copy "
                                    f"(tensor.cpu(), cupy.asnumpy(a))")
            _check_array(where, arrays[name], dt, nd)
            if name in writes and isinstance(arrays[name], np.ndarray) and not arrays[name].flags.writeable:
                raise ArgumentError(f"{where} is read-only (writeable=False, or a view of bytes), but the "
                                    f"kernel writes it; pass a writable copy ({name}.copy())")
        elif kind == "scalar" and hasattr(dt, "is_float"):
            out[name] = convert_scalar(where, v, dt)
    check_no_alias(kernel_name, {k: v for k, v in args.items() if isinstance(v, DeviceArray)}, aliased)
    for t in tasks:
        check_ranges(kernel_name, t, out | arrays)
    return out


def written_arrays(tasks) -> frozenset:
    """Names of the array arguments a kernel's tasks store to or update atomically; a read-only
    array (np.frombuffer of bytes, writeable=False) is refused for these and only these."""
    names = set()
    for t in tasks:
        cached = t.__dict__.get("_writes")
        if cached is None:
            cached = t.__dict__["_writes"] = frozenset(
                n.array.name for n in ir.walk(t.body)
                if isinstance(n, (ir.Store, ir.AtomicRMW)) and isinstance(n.array, ir.ArrayArg))
        names |= cached
    return frozenset(names)


def check_no_alias(kernel_name: str, dev: dict, aliased: tuple = ()):
    """Array parameters are compiled `noalias`: one device buffer reached through two of them would
    let the optimiser reorder their loads and stores, so the call is refused instead, except for
    the template parameters this specialisation was compiled to let alias (`aliased` groups)."""
    together = {n: k for k, group in enumerate(aliased) for n in group}
    spans = sorted((v.ptr, v.ptr + v.nbytes, k) for k, v in dev.items() if v.nbytes)
    for (a0, a1, an), (b0, b1, bn) in zip(spans, spans[1:]):
        if (a0, a1) == (b0, b1) and an in together and together.get(bn) == together[an]:
            continue
        if b0 < a1:
            raise alias_error(kernel_name, an, bn)


def alias_error(kernel_name: str, a: str, b: str) -> ArgumentError:
    """The one wording of a refused alias, for the checked path here and the fast path in script.py."""
    return ArgumentError(f"{kernel_name}(): arguments '{a}' and '{b}' are the same device memory (or overlap); "
                         f"kernels compile array arguments as non-aliasing, so pass distinct arrays (a copy for "
                         f"one of them)")


def _check_array(where: str, v, dt, nd: int):
    if isinstance(v, DeviceArray):  # contiguity was checked when its interface was read
        return _check_dtype_ndim(where, v, dt, nd)
    if not isinstance(v, np.ndarray):
        raise ArgumentError(f"{where} must be a NumPy array of {dt.numpy} with {nd} dimension(s), "
                            f"got {type(v).__name__}")
    _check_dtype_ndim(where, v, dt, nd)
    if not v.flags.c_contiguous:
        arg = where.rsplit("'", 2)[-2]  # where = "k(): argument 'x'"
        raise NonContiguousArgumentError(
            f"{where} must be C-contiguous (a slice or transpose is not). Non contiguous numpy arrays are not "
            f"supported (Quadrants' words; for a PyTorch tensor: Non contiguous tensors are not supported); pass "
            f"np.ascontiguousarray({arg}) (shape {v.shape}) or {arg}.contiguous() for a tensor")


def _check_dtype_ndim(where: str, v, dt, nd: int):
    try:
        got = from_numpy(v.dtype)
    except TypeError:
        got = None
    if got != dt:
        raise ArgumentError(f"{where} must be an array of {dt.numpy} (the kernel was compiled for {dt.name}), "
                            f"got {v.dtype}; convert it with .astype(np.{dt.numpy})")
    if v.ndim != nd:
        raise ArgumentError(f"{where} must have {nd} dimension(s), got {v.ndim} (shape {v.shape})")
    if any(s > I32_MAX for s in v.shape):
        raise ArgumentError(f"{where} has an axis longer than 2^31 - 1 (shape {v.shape}); kernels index "
                            f"with 32-bit shapes: split the array")


def convert_scalar(where: str, v, dt):
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v.item()
    if isinstance(v, np.generic):
        v = v.item()
    if dt.is_float:
        if isinstance(v, numbers.Real) and not isinstance(v, complex):
            return float(v)
        raise ArgumentError(f"{where} must be a number (the kernel takes {dt.name}), got {type(v).__name__}")
    if isinstance(v, bool) or isinstance(v, numbers.Integral):
        iv = int(v)
    else:  # Quadrants refuses a float for an integer argument (even 2.0): so do we
        raise ArgumentError(f"{where} must be an integer (the kernel takes {dt.name}), got {v!r}")
    if dt.bits == 1:  # qd.u1: a truth value (True/False, 1/0, any int by its truthiness, as a Python bool)
        return int(bool(iv))
    lo, hi = int_range(dt)
    if not lo <= iv <= hi:
        raise ArgumentError(f"{where} = {iv} does not fit in {dt.name} ({lo}..{hi})")
    return iv


def check_ranges(kernel_name: str, task: ir.Task, args: dict):
    """Every array indexed by a loop variable (unguarded, at the top of the task) is at least as
    long, on that axis, as the variable's range."""
    if task.type != "range_for" or not task.loop_vars:
        return
    extents = {}
    for var, (lo, hi) in zip(task.loop_vars, task.ranges):
        try:
            extents[id(var)] = (var.name, int(eval_expr(lo, args)), int(eval_expr(hi, args)))
        except (ValueError, KeyError, TypeError):
            continue
    for array, indices in _accesses_of(task):
        if not isinstance(array, ir.ArrayArg) or array.name not in args:
            continue
        shape = np.shape(args[array.name])
        for axis, idx in enumerate(indices):
            local = _loop_local(idx)
            if local is None or id(local) not in extents or axis >= len(shape):
                continue
            name, start, stop = extents[id(local)]
            if stop > start and (start < 0 or stop > shape[axis]):
                raise OutOfBoundsArgument(
                    f"Out of bound access: {kernel_name}(): argument '{array.name}' has shape {tuple(shape)}, but {task.file}:"
                    f"{task.lines[0]} indexes it with '{name}' over range({start}, {stop}) on axis {axis}: it would "
                    f"read or write out of bounds; pass a larger array (or guard the access)")


def _loop_local(e):
    while isinstance(e, ir.Cast):
        e = e.operand
    return e.local if isinstance(e, ir.LocalRef) else None


def _accesses_of(task: ir.Task) -> list:
    """`_unguarded_accesses` of a task, walked once: a task's IR never changes after lowering,
    and scripts check every call."""
    cached = task.__dict__.get("_unguarded")
    if cached is None:
        cached = task.__dict__["_unguarded"] = list(_unguarded_accesses(task.body))
    return cached


def _unguarded_accesses(body):
    """(array, indices) of loads and stores that run on every iteration: top-level statements only,
    up to the first statement that may skip the rest (if, loop, break, return)."""
    for st in body:
        if isinstance(st, ir.Store):
            yield st.array, st.indices
            yield from _loads(st.indices)
            yield from _loads(st.value)
        elif isinstance(st, ir.Assign):
            yield from _loads(st.value)
        elif isinstance(st, ir.ExprStmt):
            yield from _loads(st.value)
        else:
            return


def _loads(e):
    if isinstance(e, (list, tuple)):
        for x in e:
            yield from _loads(x)
        return
    if isinstance(e, ir.Select):  # only one branch runs
        yield from _loads(e.cond)
        return
    if isinstance(e, (ir.Load, ir.AtomicRMW)):
        yield e.array, e.indices
        if isinstance(e, ir.AtomicRMW):
            yield from _loads(e.value)
        yield from _loads(e.indices)
        return
    if isinstance(e, ir.Expr) and hasattr(e, "__dataclass_fields__"):
        for f in e.__dataclass_fields__:
            v = getattr(e, f)
            if isinstance(v, (ir.Expr, list, tuple)):
                yield from _loads(v)
