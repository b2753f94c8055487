"""Python-side objects that kernels call (`qd.sin`, `qd.atomic_add`, `qd.simt.block.sync`...).

Inside a kernel the frontend recognises these objects by identity, so any alias a user makes
(`from qdexplorer.lang import sin as s`) still works. Called from plain Python they behave like
the NumPy equivalent where that makes sense, so helper code can be shared.
"""
from __future__ import annotations

import builtins as _b
import inspect as _inspect
import itertools as _it
import math as _m

from ..ir.errors import QuadrantsSyntaxError, QuadrantsTypeError
from .host.host_matrix import host as _host

# Quadrants 1.3.3's parameters of each intrinsic (inspect.signature of quadrants.<name>): a call by
# keyword (`qd.atomic_add(x=a[i], y=1)`, `qd.floor(v, dtype=qd.i32)`) binds as there, in kernels
# (frontend/calls.py puts the keywords in their places) and in Python scope
PARAMS: dict[str, str] = {
    **dict.fromkeys(("sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "exp", "log", "tanh", "abs",
                     "zero", "one", "stop_grad", "grouped", "popcnt", "clz", "ffs"), "x"),
    **dict.fromkeys(("atan2", "bit_shr", "raw_div", "raw_mod"), "x1, x2"),
    **dict.fromkeys(("floor", "ceil", "round"), "x, dtype=None"),
    **dict.fromkeys(("atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_and", "atomic_or",
                     "atomic_xor", "atomic_mul", "atomic_exchange"), "x, y"),
    **dict.fromkeys(("is_active", "activate", "deactivate", "length"), "node, indices"),
    **dict.fromkeys(("block_local", "cache_read_only", "no_activate", "min", "max"), "*args"),
    "pow": "base, exponent", "atomic_cas": "x, expected, desired", "cast": "obj, dtype", "bit_cast": "obj, dtype",
    "append": "node, indices, val", "rescale_index": "a, b, I", "assume_in_range": "val, base, low, high",
    "clock_counter": "", "random": "dtype=float", "randn": "dt=None", "select": "cond, x1, x2",
    "static": "x, *xs", "static_assert": "cond, msg=None", "static_print": "*args, **kwargs",
    "volatile_load": "target", "loop_unique": "val, covers=None",
    # qd.math's vector functions (kind "vecmath"; `length` there is qd.math.length(x))
    "dot": "x, y", "cross": "x, y", "normalize": "v", "clamp": "x, xmin, xmax", "mix": "x, y, a",
    "determinant": "m", "inverse": "mat", "transpose": "m",
}


def signature_of(name: str, kind: str) -> _inspect.Signature | None:
    spec = "x" if (name, kind) == ("length", "vecmath") else PARAMS.get(name)
    if spec is None:
        return None
    return _inspect.signature(eval(f"lambda {spec}: None"))  # noqa: S307 - the table above, not user text


class Intrinsic:
    def __init__(self, name: str, kind: str, pyfunc=None, nargs: int | None = None):
        self.name, self.kind, self._py, self.nargs = name, kind, pyfunc, nargs
        self.__name__ = name
        sig = signature_of(name, kind)
        if sig is not None:
            self.__signature__ = sig

    def __call__(self, *args, **kwargs):
        if self._py is None:
            raise RuntimeError(f"qd.{self.name}() can only be called inside a @qd.kernel or @qd.func")
        sig = getattr(self, "__signature__", None)
        if kwargs and sig is not None:  # keywords in their places, as Quadrants' Python functions take them
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"qd.{self.name}(): {e}") from None
            args, kwargs = bound.args, bound.kwargs
        return self._py(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<qd intrinsic {self.name}>"


def _is_array(x) -> bool:
    """A Python-scope vector or matrix (qd.Vector, `x[i]` of a vector field, a NumPy array)."""
    return hasattr(x, "__array__") and not isinstance(x, (int, float, bool))


def _elementwise(py, ufunc):
    """`py` on numbers; `ufunc` componentwise (a qd.Vector / qd.Matrix back) when an argument is a
    vector or matrix, as Quadrants' Python-scope `qd.cos(v)`, `qd.max(4, v)` compute."""
    def call(*args, **kwargs):
        if any(_is_array(a) for a in args):
            import numpy as np
            return _host(ufunc(*(np.asarray(a) for a in args)))
        return py(*args, **kwargs)
    return call


def _math(name, py, nargs=1):
    import numpy as np
    ufunc = {"rsqrt": lambda x: 1.0 / np.sqrt(x), "atan2": np.arctan2, "asin": np.arcsin, "acos": np.arccos,
             "atan": np.arctan, "pow": np.power, "round": lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x)
             }.get(name) or getattr(np, name)
    return Intrinsic(name, "math", _elementwise(py, ufunc), nargs)


# math: names as in Quadrants' qd.math (and their top-level aliases)
sqrt = _math("sqrt", _m.sqrt)
rsqrt = _math("rsqrt", lambda x: 1.0 / _m.sqrt(x))
sin = _math("sin", _m.sin)
cos = _math("cos", _m.cos)
tan = _math("tan", _m.tan)
asin = _math("asin", _m.asin)
acos = _math("acos", _m.acos)
atan = _math("atan", _m.atan)
atan2 = _math("atan2", _m.atan2, 2)
exp = _math("exp", _m.exp)
log = _math("log", _m.log)
tanh = _math("tanh", _m.tanh)
floor = _math("floor", lambda x, dtype=None: _m.floor(x))
ceil = _math("ceil", lambda x, dtype=None: _m.ceil(x))
round = _math("round", lambda x, dtype=None: _m.copysign(_m.floor(_b.abs(x) + 0.5), x))  # noqa: A001 - ties away from zero, as llvm.round
pow = _math("pow", _m.pow, 2)  # noqa: A001

# bits of integers (qd.math.popcnt / clz / ffs): i32 results, over the unsigned bit pattern
popcnt = Intrinsic("popcnt", "bits")
clz = Intrinsic("clz", "bits")
ffs = Intrinsic("ffs", "bits")

# builtins-like helpers
min = Intrinsic("min", "minmax", _elementwise(_b.min, lambda *a: _reduce_np("minimum", a)))  # noqa: A001
max = Intrinsic("max", "minmax", _elementwise(_b.max, lambda *a: _reduce_np("maximum", a)))  # noqa: A001
abs = Intrinsic("abs", "abs", _elementwise(_b.abs, lambda a: a.__abs__()))  # noqa: A001

cast = Intrinsic("cast", "cast", lambda x, dtype: x)
zero = Intrinsic("zero", "zero", lambda x: x * 0)  # qd.zero(x): zeros of x's type and shape
loop_unique = Intrinsic("loop_unique", "loop_unique", lambda x, covers=None: x)  # Quadrants' misc.loop_unique hint
bit_shr = Intrinsic("bit_shr", "bit_shr")  # logical (unsigned) shift right, on the operand's width
# random numbers: one counter-based stream per thread (frontend/random.py); kernels only, as in Quadrants
random = Intrinsic("random", "random")
randn = Intrinsic("randn", "random")
select = Intrinsic("select", "select", _elementwise(lambda c, a, b: a if c else b,  # both sides evaluated
                                                   lambda c, a, b: __import__("numpy").where(c != 0, a, b)))
static = Intrinsic("static", "static", lambda x, *a: [x, *a] if a else x)  # x, y = qd.static(y, x): a list

# SNode cells (snode.py, frontend/sparse.py): kernels only, as in Quadrants
is_active = Intrinsic("is_active", "snode")
activate = Intrinsic("activate", "snode")
deactivate = Intrinsic("deactivate", "snode")
rescale_index = Intrinsic("rescale_index", "snode")
length = Intrinsic("length", "snode")  # dynamic SNodes
append = Intrinsic("append", "snode")

# atomics: return the old value, as in Quadrants
atomic_add = Intrinsic("atomic_add", "atomic")
atomic_sub = Intrinsic("atomic_sub", "atomic")
atomic_min = Intrinsic("atomic_min", "atomic")
atomic_max = Intrinsic("atomic_max", "atomic")
atomic_and = Intrinsic("atomic_and", "atomic")  # integers only
atomic_or = Intrinsic("atomic_or", "atomic")
atomic_xor = Intrinsic("atomic_xor", "atomic")
atomic_mul = Intrinsic("atomic_mul", "atomic")            # a compare-and-swap loop in codegen
atomic_exchange = Intrinsic("atomic_exchange", "atomic")  # writes the value, returns the old one
atomic_cas = Intrinsic("atomic_cas", "atomic")            # (x[i], expected, desired): the old value
clock_counter = Intrinsic("clock_counter", "clock")       # a cycle counter read inside a kernel
bit_cast = Intrinsic("bit_cast", "bit_cast")               # (x, dtype): the same bits as dtype


def _reduce_np(name: str, args):
    import functools
    import numpy as np
    return functools.reduce(getattr(np, name), args)


def loop_config(*, block_dim=None, serialize=False, parallelize=None, bit_vectorize=False, name=None, **unused):
    """Configure the next top-level loop; a no-op outside kernels (Quadrants' signature)."""


class ndrange:
    """`for i, j in qd.ndrange(n, (a, b))`: one flattened parallel task; iterable in Python too.

    `axes=` (a permutation of the dimensions) changes only the order the indices are visited in:
    `axes[0]` is the outermost (slowest) one, the last the innermost; the loop variables stay the
    canonical indices. `axes` reads None for no permutation, as in Quadrants."""

    def __init__(self, *dims, axes=None):
        self.dims = []
        for d in dims:
            pair = (0, d) if not isinstance(d, (tuple, list)) else tuple(d)
            if len(pair) != 2:
                raise QuadrantsSyntaxError("Every argument of ndrange should be a scalar or a tuple/list like "
                                           "(begin, end)")
            if not all(hasattr(x, "__index__") and not isinstance(x, bool) for x in pair):
                raise QuadrantsTypeError("Every argument of ndrange should be an integer scalar or a tuple/list "
                                         "of (int, int)")
            self.dims.append((int(pair[0]), max(int(pair[0]), int(pair[1]))))
        self.axes = ndrange_axes(axes, len(self.dims))

    def order(self) -> tuple:
        """The dimensions from outermost to innermost."""
        return self.axes or tuple(range(len(self.dims)))

    def __iter__(self):
        order = self.order()
        for phys in _it.product(*[range(*self.dims[a]) for a in order]):
            canonical = [0] * len(order)
            for p, a in enumerate(order):
                canonical[a] = phys[p]
            yield tuple(canonical)

    def grouped(self):
        """Quadrants' `_Ndrange.grouped()`: each index as a vector, in the same order."""
        import numpy as np
        return (_host(np.array(ix, dtype=np.int32)) for ix in self)


def ndrange_axes(axes, n: int) -> tuple | None:
    """`qd.ndrange(..., axes=)` checked as Quadrants checks it; None for no (or the identity) permutation."""
    if axes is None:
        return None
    t = tuple(axes)
    if len(t) != n:
        raise QuadrantsSyntaxError(f"qd.ndrange(axes={t!r}) has {len(t)} entries but ndrange was called with {n} "
                                   "dimension argument(s); they must match")
    for e in t:
        if isinstance(e, bool) or not isinstance(e, int) and not hasattr(e, "__index__"):
            raise QuadrantsTypeError(f"qd.ndrange(axes={t!r}) entries must be Python ints; got "
                                     f"{type(e).__name__} ({e!r})")
    t = tuple(int(e) for e in t)
    if sorted(t) != list(range(n)):
        raise QuadrantsSyntaxError(f"qd.ndrange(axes={t!r}) is not a permutation of range({n})")
    return None if t == tuple(range(n)) else t


class GroupedIndex(tuple):
    """One index of `qd.grouped(...)` iterated at compile time (`for I in qd.static(qd.grouped(...))`):
    a tuple to Python, an index vector inside kernels, as Quadrants makes it."""


def _grouped_py(x):
    if isinstance(x, ndrange):
        return map(GroupedIndex, x)
    return map(GroupedIndex, _it.product(*[range(n) for n in x.shape]))


grouped = Intrinsic("grouped", "grouped", _grouped_py)  # for I in qd.grouped(x): one index vector


class _Block:
    sync = Intrinsic("sync", "barrier")
    mem_sync = Intrinsic("mem_sync", "barrier")
    thread_idx = Intrinsic("thread_idx", "simt")
    block_idx = Intrinsic("block_idx", "simt")
    block_dim = Intrinsic("block_dim", "simt")
    grid_dim = Intrinsic("grid_dim", "simt")
    global_thread_idx = Intrinsic("global_thread_idx", "simt")
    SharedArray = Intrinsic("SharedArray", "shared")


class _Simt:
    block = _Block()


simt = _Simt()


# compile-time checks and hints (frontend/intrinsics.py `hint_call`): a hint changes no result here,
# since every tree is dense storage and every load is a real load
def _first(x, *a, **k):
    return x


assume_in_range = Intrinsic("assume_in_range", "hint", lambda val, base, low, high: val)
volatile_load = Intrinsic("volatile_load", "hint", _first)
block_local = Intrinsic("block_local", "hint", lambda *a: None)
cache_read_only = Intrinsic("cache_read_only", "hint", lambda *a: None)
no_activate = Intrinsic("no_activate", "hint", lambda *a: None)
stop_grad = Intrinsic("stop_grad", "stop_grad", lambda *a: None)  # no gradient into a field from this task


def _static_assert(cond, msg=None):
    if not cond:
        raise AssertionError(msg if msg is not None else "qd.static_assert failed")


static_assert = Intrinsic("static_assert", "static_assert", _static_assert)
static_print = Intrinsic("static_print", "static_print", _b.print)
one = Intrinsic("one", "one", lambda x: x * 0 + 1)  # qd.one(x): ones of x's type and shape
raw_div = Intrinsic("raw_div", "raw", lambda a, b: a // b if isinstance(a, int) and isinstance(b, int) else a / b)
raw_mod = Intrinsic("raw_mod", "raw", lambda a, b: _m.fmod(a, b) if isinstance(a, float) or isinstance(b, float)
                    else int(_m.fmod(a, b)))
