"""`qd.graph`: Quadrants' graph-structuring constructs, as they run where no CUDA graph is built.

Quadrants captures a `@qd.kernel(graph=True)` kernel into a CUDA graph on GPUs that can; on the CPU
(and here, on every backend: qdexplorer builds no graphs) the same kernel runs as ordinary tasks:

- `while qd.graph.do_while(flag):` (`flag` a 0-d qd.i32 ndarray) repeats its body while `flag[()]`
  is non-zero, checked after each pass (a do-while, as Quadrants' host-side fallback). The loop is
  one serial task here, so the `for` loops in its body run one thread's iterations in order: the
  results are Quadrants', the parallelism of those loops is not.
- `with qd.graph.parallel_context():` / `with qd.graph.parallel():` declare sections that may
  overlap; here their loops stay top-level tasks and run one after the other (an order a data-race
  free program must already be correct under).

The flat names `qd.graph_do_while`, `qd.graph_parallel_context`, `qd.graph_parallel` are the same
objects; using them in a kernel warns (DeprecationWarning), as Quadrants does. Which spelling a
kernel used is read from its source (`matches`, `is_deprecated_spelling`, `warn_if_deprecated`, the
names Quadrants' own `graph_api` module has).
"""
from __future__ import annotations

import ast
import warnings
from contextlib import contextmanager

from ..tasks.source import flat_env

# canonical name under qd.graph -> the deprecated flat qd.<name>
_FLAT_NAME = {"do_while": "graph_do_while", "parallel_context": "graph_parallel_context",
              "parallel": "graph_parallel"}


def do_while(condition) -> bool:
    """`while qd.graph.do_while(flag):` in a kernel (see the module docstring); from Python, bool(flag)."""
    return bool(condition)


@contextmanager
def parallel_context():
    """`with qd.graph.parallel_context():` in a kernel; from Python, nothing."""
    yield


@contextmanager
def parallel():
    """`with qd.graph.parallel():` in a kernel; from Python, nothing."""
    yield


class _GraphNamespace:
    do_while = staticmethod(do_while)
    parallel_context = staticmethod(parallel_context)
    parallel = staticmethod(parallel)

    def __repr__(self) -> str:
        return "<qd.graph>"


graph = _GraphNamespace()


def _value_is_graph(value: ast.expr) -> bool:
    if isinstance(value, ast.Attribute):
        return value.attr == "graph"
    return isinstance(value, ast.Name) and value.id == "graph"


def is_deprecated_spelling(func: ast.expr, name: str) -> bool:
    """`func` spells the construct with its deprecated flat name (`qd.graph_do_while`)."""
    flat = _FLAT_NAME[name]
    return (isinstance(func, ast.Attribute) and func.attr == flat) or (isinstance(func, ast.Name) and func.id == flat)


def matches(func: ast.expr, name: str) -> bool:
    """`func` names construct `name` in either spelling (`qd.graph.do_while`, `graph.do_while`,
    `qd.graph_do_while`)."""
    if isinstance(func, ast.Attribute) and func.attr == name and _value_is_graph(func.value):
        return True
    return is_deprecated_spelling(func, name)


def warn_if_deprecated(func: ast.expr, name: str) -> None:
    if is_deprecated_spelling(func, name):
        warnings.warn(f"qd.{_FLAT_NAME[name]}() is deprecated and will be removed in a future release; use "
                      f"qd.graph.{name}() instead.", DeprecationWarning, stacklevel=2)


def construct(call, env) -> str | None:
    """Which graph construct (`"do_while"`, `"parallel_context"`, `"parallel"`) the call `call` is,
    by the object its function names in `env`, or None."""
    if not isinstance(call, ast.Call):
        return None
    try:
        f = eval(compile(ast.Expression(call.func), "<qd>", "eval"), flat_env(env))  # noqa: S307
    except Exception:  # noqa: BLE001 - not a graph construct then
        return None
    return {do_while: "do_while", parallel_context: "parallel_context", parallel: "parallel"}.get(f)
