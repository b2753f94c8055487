"""What the ported files imported from Quadrants' own internals, provided by qdexplorer.

The upstream files import helpers from `quadrants.*` at module level. A port must run where
Quadrants is not installed (CI), and must test qdexplorer rather than Quadrants, so those
imports come from here: qdexplorer's error classes and math, and small equivalents of the
harness helpers.
"""
import qdexplorer.lang as qd
from qdexplorer.lang import (QuadrantsCompilationError, QuadrantsIndexError, QuadrantsRuntimeError,  # noqa: F401
                             QuadrantsTypeError)

inf, pi = qd.math.inf, qd.math.pi
nan = float("nan")
vec3, ivec3 = qd.math.vec3, qd.math.ivec3


@qd.func
def isnan(x):
    return x != x


@qd.func
def isinf(x):
    return (x == x) & (x - x != x - x)   # inf - inf is nan; a finite x - x is 0


@qd.func
def vdir(a):
    return qd.math.vec2(qd.cos(a), qd.sin(a))


def get_host_arch_list():
    return [qd.cpu]


def has_pytorch() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def load_kernel_from_string(source: str, name: str):
    """Upstream's `_test_tools.load_kernel_string`: exec `source` as a module and return `name`."""
    import linecache
    import types
    mod = types.ModuleType(f"qdx_kernel_string_{abs(hash(source))}")
    filename = f"<kernel string {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), mod.__dict__)  # noqa: S102 - the test's own source
    return getattr(mod, name)


class impl:  # noqa: N801 - upstream's module name
    """Upstream's `quadrants.lang.impl`: only `get_runtime().get_num_compiled_functions()`, the
    number of kernel specialisations used since `qd.init` (`qd.lang.runtime_api.num_compiled`)."""

    class _Runtime:
        @staticmethod
        def get_num_compiled_functions() -> int:
            from qdexplorer.lang.calls import runtime_api
            return runtime_api.num_compiled()

    @staticmethod
    def get_runtime():
        return impl._Runtime()
