"""Task IR: typed, picklable trees that the frontend produces and codegen consumes.

One `Task` is one offloaded task: a parallel `range_for` or a one-thread `serial` block.
Expressions carry their dtype so codegen never re-infers types.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .dtypes import DType, i32


# ---- expressions -------------------------------------------------------------------------

class Expr:
    dtype: DType


@dataclass(frozen=True)
class Const(Expr):
    value: int | float
    dtype: DType


@dataclass(frozen=True)
class ScalarArg(Expr):
    name: str
    dtype: DType


@dataclass(frozen=True)
class ArrayArg:
    """An ndarray kernel argument. Not an expression: only indexable.

    `layout`: for a field whose SNode tree nests its axes out of axis order (`qd.root.dense(qd.l,
    n).dense(qd.i, m)`), the order of its index axes in memory, outermost first (snode.py); its
    element is at the row-major offset of the index so permuted, as Quadrants lays it out. () for
    axis order, the row-major offset of the index itself."""
    name: str
    dtype: DType
    ndim: int
    layout: tuple = field(default=(), repr=False)


@dataclass(frozen=True)
class SharedArray:
    """Block-shared scratch (`qd.simt.block.SharedArray`): an internal addrspace(3) global."""
    name: str
    dtype: DType
    shape: tuple[int, ...]

    @property
    def ndim(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class LocalArray:
    """Per-thread scratch of a fixed length (an entry-block alloca): reverse-mode autodiff's adstack,
    where a dynamic loop's forward sweep keeps the values its reverse sweep needs (lang/autodiff/reverse.py)."""
    name: str
    dtype: DType
    size: int

    @property
    def ndim(self) -> int:
        return 1


@dataclass(frozen=True)
class Shape(Expr):
    array: ArrayArg
    axis: int
    dtype: DType = i32


@dataclass(eq=False)
class Local:
    """A mutable local variable; identity matters (two locals may share a Python name)."""
    name: str
    dtype: DType
    # Quadrants' variable is assigned more than once where ours assigns it once (the running result
    # of a reduction: v.sum(), v.dot(w)), so Quadrants never forwards its value to its reads
    reassigned: bool = False

    def __repr__(self) -> str:
        return f"%{self.name}:{self.dtype.name}"


@dataclass(frozen=True)
class LocalRef(Expr):
    local: Local
    # (group, k, first) where this read is element k of one vector built from scalars whose elements
    # `first`, ..., k, ... all read this local (`s * v` broadcasting `s`, `qd.Vector([s, s])`): Quadrants
    # makes that vector one statement (MatrixInitStmt) whose adjoint reaches its elements in component
    # order (reverse mode only)
    bcast: tuple = field(default=(), compare=False, repr=False)

    @property
    def dtype(self) -> DType:  # type: ignore[override]
        return self.local.dtype


@dataclass(frozen=True)
class Load(Expr):
    array: ArrayArg | SharedArray | LocalArray
    indices: tuple[Expr, ...]
    where: str = field(default="", compare=False)  # "file:line" of the access (debug-mode reports)
    # fast math (codegen/alg_simp.py): ("def", k) for a load whose value a later load of the same element
    # in the same block reuses, ("use", k) for that later load, as Quadrants merges them (one load, at the
    # first one's place, which decides how LLVM reassociates a sum of it); () for a load of its own
    reuse: tuple = field(default=(), compare=False, repr=False)

    @property
    def dtype(self) -> DType:  # type: ignore[override]
        return self.array.dtype


@dataclass(frozen=True)
class BinOp(Expr):
    op: str  # + - * / // % ** & | ^ << >> min max atan2 pow, and/or on u1
    lhs: Expr
    rhs: Expr
    dtype: DType
    # one component of a vector operation (`v * 3.0`): one tensor statement in Quadrants, which its
    # binary_op_simplify does not rearrange (codegen/alg_simp.py)
    vec: bool = field(default=False, compare=False, repr=False)


@dataclass(frozen=True)
class UnOp(Expr):
    op: str  # neg not bitnot abs
    operand: Expr
    dtype: DType


@dataclass(frozen=True)
class Compare(Expr):
    op: str  # < <= > >= == !=
    lhs: Expr
    rhs: Expr
    dtype: DType


@dataclass(frozen=True)
class Cast(Expr):
    operand: Expr
    dtype: DType


@dataclass(frozen=True)
class Select(Expr):
    cond: Expr
    a: Expr
    b: Expr
    dtype: DType


@dataclass(frozen=True)
class MathCall(Expr):
    fn: str  # sqrt sin cos tan exp log floor ceil tanh atan2 pow ...
    args: tuple[Expr, ...]
    dtype: DType
    # fast math on the host (codegen/alg_simp.py): ("def", k) / ("use", k) as Load.reuse, for the calls
    # Quadrants' CSE makes one statement (a second qd.sin(x) of the same x is the first one's value)
    reuse: tuple = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class AtomicRMW(Expr):
    op: str  # add sub min max
    array: ArrayArg | SharedArray | LocalArray
    indices: tuple[Expr, ...]
    value: Expr
    where: str = field(default="", compare=False)
    expected: "Expr | None" = None  # op "cas": write `value` only where the element equals this

    @property
    def dtype(self) -> DType:  # type: ignore[override]
        return self.array.dtype


@dataclass(frozen=True)
class Seq(Expr):
    """`items` evaluated in order, for what they do besides their value, and the value of
    `items[pick]` (fast math's folds, codegen/alg_simp.py: `atomic_add(...) * 0` is 0 and still adds;
    a folded `x[i] - x[i]` still loads x[i] there when a later read of x[i] reuses that load)."""
    items: tuple
    pick: int

    @property
    def dtype(self) -> DType:  # type: ignore[override]
        return self.items[self.pick].dtype


@dataclass(frozen=True)
class SimtIndex(Expr):
    what: str  # thread_idx block_idx block_dim grid_dim global_thread_idx
    dtype: DType = i32


# ---- statements --------------------------------------------------------------------------

class Stmt:
    pass


@dataclass
class Assign(Stmt):
    local: Local
    value: Expr


@dataclass
class Store(Stmt):
    array: ArrayArg | SharedArray | LocalArray
    indices: tuple[Expr, ...]
    value: Expr
    where: str = field(default="", compare=False)


@dataclass
class ExprStmt(Stmt):
    value: Expr


@dataclass
class Print(Stmt):
    """In-kernel `print`: text pieces and scalar values, written with printf (CPU) or vprintf (CUDA)."""
    parts: tuple  # str | Expr, in order; the newline is part of the text
    specs: tuple = ()  # per part, a Python format spec of a value (f"{x:.3f}"), "" for none; () for all none


@dataclass
class If(Stmt):
    cond: Expr
    then: list[Stmt]
    orelse: list[Stmt]


@dataclass
class Loop(Stmt):
    """`while True:` with an explicit exit; `while cond` and `for` both lower to it."""
    body: list[Stmt]
    step: list[Stmt] = field(default_factory=list)  # run on `continue` and at the end of body
    where: str = field(default="", compare=False)  # "file:line" of a `for ... in range(...)` (autodiff's errors)


@dataclass
class Break(Stmt):
    pass


@dataclass
class Continue(Stmt):
    pass


@dataclass
class Barrier(Stmt):
    pass


@dataclass
class Block(Stmt):
    """An inlined `qd.func` body; `Return(label)` inside jumps to its end. `real`: an inlined
    `@qd.real_func`, which Quadrants calls (a FuncCallStmt: its body sees its arguments, not the
    caller's expressions, and no load merges across the call; codegen/alg_simp.py)."""
    label: str
    body: list[Stmt]
    real: bool = False


@dataclass
class Return(Stmt):
    label: str


@dataclass(eq=False)
class FuncDef(Stmt):
    """An out-of-line function of the task: a recursive `@qd.real_func`. Codegen emits it once as a
    function of the task's module; where it stands, nothing runs. `params` arrive by value, `outs`
    are the results (the caller's locals, by address); `Return(label)` in `body` leaves it."""
    name: str
    params: list[Local]
    outs: list[Local]
    body: list[Stmt]
    label: str


@dataclass
class Call(Stmt):
    """A call of the task's `FuncDef` named `func` (by name, so recursion is no cycle in the IR)."""
    func: str
    args: tuple[Expr, ...]
    outs: tuple[Local, ...]


# ---- tasks -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Param:
    """One argument of a task's entry function, in order.

    An ndarray expands to a pointer followed by one i32 per axis; a scalar is passed by value.
    """
    name: str
    kind: str  # 'array' | 'scalar'
    dtype: DType
    ndim: int = 0


def memory_axes(layout: tuple, ndim: int) -> tuple:
    """The axes of an `ndim`-dimensional array in the order its memory holds them, outermost first:
    `layout`'s (ArrayArg.layout) and then the rest (an element's components) in order."""
    return tuple(layout) + tuple(range(len(layout), ndim))


@dataclass(frozen=True)
class ImplicitArray:
    """An array the caller supplies without the user passing it: a field's storage, a kernel-scope
    local kept between tasks (Quadrants' global temporaries), or the kernel's return value.
    Fields are passed by their storage; the others start zeroed at every call."""
    name: str
    role: str  # 'field' | 'gtmp' | 'ret'
    dtype: DType
    shape: tuple
    key: int | str = 0  # a field's registry id; a kernel-scope local's name
    zero_d: bool = False  # a 0-D field (`x[None]`): the one element whose float sums Quadrants keeps per thread
    layout: tuple = field(default=(), repr=False)  # a field's axis order in memory (ArrayArg.layout)
    elem_ndim: int = field(default=0, repr=False)  # a field's trailing component axes (a vector's 1, a matrix's 2)
    runtime_shape: bool = field(default=False, repr=False)  # an ndarray held by a template or dataclass
    # argument: its shape is the call's in Quadrants (codegen reads the shape arguments), not a constant


@dataclass
class Task:
    name: str
    kernel: str
    index: int
    type: str  # 'range_for' | 'serial'
    body: list[Stmt]
    file: str
    lines: tuple[int, int]
    loop_name: str | None = None
    loop_vars: list[Local] = field(default_factory=list)
    ranges: list[tuple[Expr, Expr]] = field(default_factory=list)  # (begin, end) per ndrange axis
    block_dim: int | None = None
    serialize: bool = False
    params: list[Param] = field(default_factory=list)
    shared: list[SharedArray] = field(default_factory=list)
    source: str = ""
    fingerprint: str = ""  # what the IR depends on (see lang/tasks/fingerprint.py); "" when not memoised
    implicit: tuple = ()   # ImplicitArray params of this task, which the kernel's caller supplies
    fast_math: bool | None = None  # `@qd.kernel(fast_math=...)`; None: the project's / qd.init's setting
    may_alias: frozenset = frozenset()  # array params that may share memory (one field, two template params)
    stop_grad: frozenset = frozenset()  # arrays `qd.stop_grad(x)` named in this task: no gradient flows into them
    listgen: bool = False  # lists the active blocks the next task (a struct-for over sparse cells) runs over

    @property
    def has_calls(self) -> bool:
        """Whether the task calls out-of-line functions (a recursive @qd.real_func): its atomics
        then stay plain, as a callee cannot see the entry's reduction or privatization state."""
        cached = self.__dict__.get("_has_calls")
        if cached is None:
            cached = self.__dict__["_has_calls"] = _contains(self.body, (FuncDef,))
        return cached

    @property
    def uses_block_features(self) -> bool:
        cached = self.__dict__.get("_block_features")
        if cached is None:
            cached = self.__dict__["_block_features"] = bool(self.shared) or _contains(self.body, (Barrier, SimtIndex))
        return cached


def _contains(node, kinds) -> bool:
    if isinstance(node, kinds):
        return True
    if isinstance(node, (list, tuple)):
        return any(_contains(n, kinds) for n in node)
    if isinstance(node, (Stmt, Expr)) and hasattr(node, "__dataclass_fields__"):
        return any(_contains(getattr(node, f), kinds) for f in node.__dataclass_fields__)
    return False


def map_operands(e: "Expr", f, new: bool = False) -> "Expr":
    """`e` with `f` applied to each operand (an Expr field, or the Exprs of a tuple field); `e` itself when
    none changed unless `new` (a copy of the node even then). The one rebuild the IR rewrites share."""
    changes = {}
    for fld in dataclasses.fields(e):  # type: ignore[arg-type]  # every Expr is a dataclass
        v = getattr(e, fld.name)
        if isinstance(v, Expr):
            changes[fld.name] = f(v)
        elif isinstance(v, tuple) and any(isinstance(x, Expr) for x in v):
            changes[fld.name] = tuple(f(x) if isinstance(x, Expr) else x for x in v)
    return dataclasses.replace(e, **changes) if changes or new else e  # type: ignore[type-var]


def walk(node):
    """Yield every IR node (statements, expressions, arrays) reachable from `node`."""
    if isinstance(node, (list, tuple)):
        for n in node:
            yield from walk(n)
    elif hasattr(node, "__dataclass_fields__") and not isinstance(node, (Local, DType)):
        yield node
        for f in node.__dataclass_fields__:
            yield from walk(getattr(node, f))
