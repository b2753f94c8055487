"""Per-task fingerprints, so an unchanged task skips lowering and codegen on a warm edit.

A fingerprint covers what a task's IR depends on: the kernel's argument specialisation, the task's
index and loop_config, the exact source text of its own statements, and the value of every global
the kernel's code mentions (`co_names`), following `@qd.func`s into their source. Anything it
cannot fingerprint by value is fingerprinted by identity, which is conservative: a reloaded
project is then a miss, never stale.
"""
from __future__ import annotations

import hashlib
import types as pytypes

from ..func import Func
from ..intrinsics import Intrinsic
from .source import python_env
from ...ir.dtypes import DType, NdarrayType


class TaskMemo:
    """fingerprint → lowered Task (and, in CompileService, → module text). Can be switched off."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.tasks: dict[str, object] = {}
        self.hits = 0
        self.misses = 0

    def get(self, fp: str):
        if not self.enabled:
            return None
        t = self.tasks.get(fp)
        if t is None:
            self.misses += 1
        else:
            self.hits += 1
        return t

    def put(self, fp: str, task):
        if self.enabled:
            self.tasks[fp] = task


def _value_fp(v, seen: set) -> str:
    if v is None or isinstance(v, (bool, int, float, str, bytes, complex)):
        return repr(v)
    if isinstance(v, (tuple, list, frozenset)):
        return type(v).__name__ + "(" + ",".join(_value_fp(x, seen) for x in v) + ")"
    if isinstance(v, (DType, NdarrayType)):
        return repr(v)
    if isinstance(v, Intrinsic):
        return f"intrinsic:{v.name}:{id(v)}"
    if isinstance(v, Func):
        if id(v) in seen:
            return f"func:{v.name}:recursive"
        seen.add(id(v))
        return f"func:{v.name}:{_sha(v.source.segment([v.source.fdef]))}:" + _names_fp(v.fn, python_env(v.fn), seen)
    if isinstance(v, pytypes.ModuleType):
        if v.__name__.startswith("qdx_project_"):  # a project file: its globals may change on reload
            return f"project-module:{id(v)}"
        return f"module:{v.__name__}"
    if isinstance(v, (pytypes.BuiltinFunctionType, type)):
        return f"builtin:{getattr(v, '__qualname__', v)}:{id(v)}"
    return f"object:{type(v).__qualname__}:{id(v)}"


def _names_fp(fn, env, seen) -> str:
    """Values of every global/closure name the function's code mentions (co_names is cheap)."""
    code = fn.__code__
    names = sorted(set(code.co_names) | set(code.co_freevars))
    parts = [f"{n}={_value_fp(env[n], seen)}" for n in names if n in env]
    return _sha("|".join(parts))


def _sha(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()[:32]


def kernel_fingerprint(kernel, spec) -> str:
    """What every task of a kernel depends on besides its own text: specialisation and globals."""
    return _sha("\x1f".join([kernel.name, repr(spec), _names_fp(kernel.fn, python_env(kernel.fn), set())]))


def task_fingerprint(kernel_fp: str, index: int, config: dict, text: str) -> str:
    return _sha("\x1f".join([kernel_fp, str(index), repr(sorted(config.items())), text]))
