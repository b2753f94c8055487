"""`import quadrants.X` answered by qdexplorer.lang: Quadrants' public module paths.

Programs and tests ported by changing only the import still name Quadrants' submodules
(`from quadrants.lang.exception import QuadrantsSyntaxError`, `from quadrants.types import
primitive_types`, `from quadrants.math import vec3`). `alias_quadrants()` makes `quadrants` mean
qdexplorer.lang and answers those paths with modules built here from the language's own names; a
path this table lacks fails with one line naming it. Harnesses may add their own paths
(`extra`), e.g. the upstream suite's stand-ins for Quadrants' test helpers.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types as _pytypes
from typing import Callable

from ...ir import errors
from .. import intrinsics, primitive_types
from . import graph_api


def _module(name: str, attrs: dict, package: bool = True) -> _pytypes.ModuleType:
    mod = _pytypes.ModuleType(name)
    mod.__dict__.update(attrs)
    if package:
        mod.__path__ = []  # so `quadrants.lang.exception` can be imported below it
    return mod


def _lang():
    """The package itself: these modules are built on demand, long after it finished importing, and
    an import statement here would make the package and this module import each other."""
    return sys.modules[__package__.rpartition(".")[0]]  # qdexplorer.lang, above this compat wing


def _public(mod) -> dict:
    return {k: v for k, v in vars(mod).items() if not k.startswith("_")}


def _exception():
    return _public(errors)


def _primitive_types():
    return _public(primitive_types)


def _types():
    qd = _lang()
    attrs = {n: getattr(qd.types, n) for n in dir(qd.types) if not n.startswith("_")}
    attrs.update(_primitive_types())
    return attrs


def _annotations():
    qd = _lang()
    return {"template": qd.template, "Template": qd.Template}


def _util():
    def has_pytorch() -> bool:
        try:
            import torch  # noqa: F401
        except ImportError:
            return False
        return True

    def to_numpy_type(dtype):
        return dtype.numpy.type

    return {"has_pytorch": has_pytorch, "has_clangpp": lambda: False, "to_numpy_type": to_numpy_type}




def _ops():
    """Quadrants' `quadrants.lang.ops`: the operators as functions (the language's own intrinsics)."""
    import operator
    attrs: dict = {k: v for k, v in vars(intrinsics).items() if isinstance(v, intrinsics.Intrinsic)}
    attrs.update(add=operator.add, sub=operator.sub, mul=operator.mul, truediv=operator.truediv,
                 floordiv=operator.floordiv, mod=operator.mod, neg=operator.neg, logical_not=operator.not_,
                 bit_not=operator.invert, bit_and=operator.and_, bit_or=operator.or_, bit_xor=operator.xor)
    return attrs


def _enums():
    from enum import IntEnum
    qd = _lang()

    class AutodiffMode(IntEnum):
        NONE, VALIDATION, FORWARD, REVERSE = 0, 1, 2, 3

    class SNodeGradType(IntEnum):
        PRIMAL, ADJOINT, DUAL, ADJOINT_CHECKBIT = 0, 1, 2, 3

    return {"AutodiffMode": AutodiffMode, "SNodeGradType": SNodeGradType, "Layout": qd.Layout}


def _graph_api():
    """Quadrants' `quadrants.lang.ast.ast_transformers.graph_api`: how a kernel's source spells the
    graph constructs (lang/graph.py recognises them the same way)."""
    return {k: getattr(graph_api, k) for k in ("matches", "is_deprecated_spelling", "warn_if_deprecated")}


def _ndrange():
    return {"_Ndrange": intrinsics.ndrange, "ndrange": intrinsics.ndrange}


# Quadrants module path -> its attributes (a callable, so nothing heavy loads until imported)
PUBLIC: dict[str, Callable[[], dict]] = {
    "quadrants.lang.ast": dict,
    "quadrants.lang.ast.ast_transformers": dict,
    "quadrants.lang.ast.ast_transformers.graph_api": _graph_api,
    "quadrants.lang.exception": _exception,
    "quadrants.lang.util": _util,
    "quadrants.types": _types,
    "quadrants.types.annotations": _annotations,
    "quadrants.types.enums": _enums,
    "quadrants.lang.ops": _ops,
    "quadrants.lang._ndrange": _ndrange,
}

# Quadrants module path -> the module of this package that is it (imported as itself, not copied)
SAME: dict[str, str] = {
    "quadrants.lang": "qdexplorer.lang.lang",
    "quadrants.math": "qdexplorer.lang.math",
    "quadrants.types.primitive_types": "qdexplorer.lang.primitive_types",
    "quadrants.ad": "qdexplorer.lang.autodiff.ad",
    "quadrants.linalg": "qdexplorer.lang.linalg",
    "quadrants.profiler": "qdexplorer.lang.compat.profiler",
    "quadrants.lang.stream": "qdexplorer.lang.host.streams",
}


_BUILT: dict = {}


def quadrants_module(name: str) -> _pytypes.ModuleType:
    """The module standing for Quadrants' NAME (built once), e.g. for `qd.types.primitive_types`."""
    if name not in _BUILT:
        _BUILT[name] = _module(name, PUBLIC[name]())
    return _BUILT[name]


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, table: dict):
        self.table = table

    def find_spec(self, fullname, path, target=None):
        if fullname == "quadrants" or not fullname.startswith("quadrants."):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        if spec.name in SAME:
            mod = importlib.import_module(SAME[spec.name])
            if not hasattr(mod, "__path__"):
                mod.__path__ = []  # so `quadrants.lang.exception` can be imported below it
            if spec.name == "quadrants.lang" and "ops" not in vars(mod):
                setattr(mod, "ops", quadrants_module("quadrants.lang.ops"))  # read as `qd.lang.ops.abs` unimported
            return mod
        make = self.table.get(spec.name)
        if make is None:
            raise ModuleNotFoundError(f"{spec.name}: this Quadrants module is not provided by qdexplorer.lang "
                                      f"(see docs/language.md)", name=spec.name)
        return quadrants_module(spec.name) if spec.name in PUBLIC else _module(spec.name, make())

    def exec_module(self, module):
        parent, _, child = module.__name__.rpartition(".")
        if parent in sys.modules and child not in vars(sys.modules[parent]):  # never shadow qd.types & co
            setattr(sys.modules[parent], child, module)


def alias_quadrants(extra: dict | None = None) -> None:
    """From now on `import quadrants` (and its public submodules) gives qdexplorer.lang."""
    qd = _lang()
    table = dict(PUBLIC)
    table.update(extra or {})
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _Finder)]
    sys.meta_path.insert(0, _Finder(table))
    for name in [n for n in sys.modules if n == "quadrants" or n.startswith("quadrants.")]:
        del sys.modules[name]
    sys.modules["quadrants"] = qd
