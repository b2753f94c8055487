"""SNode trees: `qd.root.dense(qd.ij, (4, 4)).dense(qd.i, 2).place(x, y)`, `pointer`, `bitmasked`.

Quadrants lays fields out through a tree of containers. Here every tree is *dense storage*: a
field placed under a path of containers gets one NumPy array of the path's total shape (its index
along each axis is the product of the splits along that axis), so kernels index it exactly like a
`qd.field(shape=...)` and every task module stays self-contained. The order of the axes in memory
follows the tree's nesting, as in Quadrants (`SNode.memory_order`: `dense(qd.l, n).dense(qd.i, m)`
stores l outermost), so an index past an axis's end but inside the field lands on the cell it
lands on there; the rest of the layout (AOS or SOA, block order) is not reproduced, and in-range
results do not depend on it.

`pointer` and `bitmasked` keep that storage and add an *activity mask*: an i32 field with one
cell per container cell. Writing an element (in a kernel or from Python) activates its cell in
every sparse ancestor; a struct-for (`for i, j in x`, `for i in ptr`) visits only cells whose
sparse ancestors are all active; `qd.is_active`, `qd.activate`, `qd.deactivate` read and write
the mask. Deactivating a `pointer` cell also zero-fills the data under it, as Quadrants recycles
and zero-fills its memory; a `bitmasked` cell keeps its data and only loses its bit. So programs
run with Quadrants' results. Storage of 1 MiB or more under a sparse container is reserved
lazily (lazy_storage.py: only the pages written cost memory, and `deactivate_all()` gives them
back), and a struct-for lists the active blocks first (tasks/listgen.py), so a 4096^3 pointer grid
costs its active cells, as in Quadrants.

`dynamic` (a list per cell of its parent: `qd.append`, `qd.length`) keeps the same dense storage,
its capacity, and adds a *length* field, an i32 per parent cell: element `k` of a list is active
while `k < length` (Quadrants' `Dynamic_is_active`). `qd.append` takes the slot from an atomic add
on the length; writing element `k` raises the length to at least `k + 1` (Quadrants'
`Dynamic_activate`); deactivating a list sets its length to 0 and zero-fills its elements, as
Quadrants frees the list's chunks and zero-fills recycled memory. Appends past the capacity are
dropped but counted (Quadrants chains chunks past the capacity that no index reaches). Where the
dense storage would pass what can be reserved (2^30 lists of 2^20), each list stores fewer cells
(`stored_shape`), and a list growing past them is refused after the kernel.
"""
from __future__ import annotations
from .calls.caller import caller

import numbers
import weakref

import numpy as np

from .field import SNODE_OF_SHAPE
from .compat.surface import refuse_use
from .compat.module_paths import quadrants_module
from ..ir.errors import QdRuntimeError
from .field import Field
from .field import Storage
from .lazy_storage import MAX_RESERVE
from .snode_activity import ACTIVITY, SPARSE, Activity
from .host.field_components import ScalarComponent
from .quant import BitpackedFields
from ..ir.dtypes import i32


class Axis:
    """`qd.i`, `qd.ij`, `qd.axes(0, 2)`: which index axes a container splits."""

    def __init__(self, *indices: int):
        self.indices = tuple(int(k) for k in indices)

    def __len__(self) -> int:
        return len(self.indices)

    def __repr__(self) -> str:
        return "qd." + "".join("ijkl"[k] if k < 4 else f"axis{k}" for k in self.indices)


def axes(*indices: int) -> Axis:
    """`qd.axes(0, 1)`: the axes of the given index positions, as Quadrants' `qd.axes`."""
    return Axis(*indices)


def _axis_list(a) -> tuple:
    if isinstance(a, Axis):
        return a.indices
    if isinstance(a, (list, tuple)):
        return tuple(k for x in a for k in _axis_list(x))
    raise TypeError(f"expected qd.i, qd.ij, qd.axes(...) or a list of them, got {a!r}")


class SNode(Activity):
    """One container of a tree. `shape` is its cell count along each axis from the root (the
    product of the splits above it and its own), as Quadrants' `snode.shape`."""

    def __init__(self, parent: "SNode | None", kind: str, splits: dict):
        self.kind, self._parent = kind, parent
        acc: dict[int, int] = dict(parent._acc) if parent is not None else {}
        for k, n in splits.items():
            acc[k] = acc.get(k, 1) * n
        self._acc: dict[int, int] = acc
        self.splits = dict(splits)
        self.children: list[SNode] = []
        self.fields: list[Field] = []
        self.mask: Field | None = None
        self.length: Field | None = None  # a dynamic node's list lengths, one per cell of its parent
        self.chunk_size = 0
        self.stored_capacity: int | None = None  # a dynamic node's cells stored per list, where fewer (stored_shape)
        self.overflow: Field | None = None  # ... and the flag a kernel sets where a list grows past them
        self.where = ""  # file:line of the program line that made it
        self.block_list: Field | None = None   # the active blocks a struct-for over it runs over (tasks/listgen.py)
        self.block_count: Field | None = None  # ... how many, the cells per block, the product
        if kind in SPARSE:
            self.mask = Field(i32, self.shape, name=f"{kind}_mask")
        if kind == "dynamic":
            assert parent is not None
            self.length = Field(i32, parent.shape, name="dynamic_length")

    # -- building the tree
    def _child(self, kind: str, ax, dims) -> "SNode":
        idx = _axis_list(ax)
        if isinstance(dims, numbers.Integral):
            dims = [int(dims)] * len(idx)
        dims = [int(d) for d in dims]
        if len(dims) == 1 and len(idx) > 1:  # pointer(qd.ijk, [64]): one size for every axis, as Quadrants
            dims = dims * len(idx)
        if len(dims) != len(idx):
            raise ValueError(f"{kind}({ax!r}, {dims}): {len(idx)} axes but {len(dims)} dimensions")
        if any(d < 1 for d in dims):
            raise ValueError(f"{kind}(...): every dimension must be at least 1, got {dims}")
        if len(set(idx)) != len(idx):
            raise ValueError(f"{kind}({ax!r}, ...): an axis appears twice")
        child = SNode(self, kind, dict(zip(idx, dims)))
        self._adopt_child(child)
        return child

    def _adopt_child(self, child: "SNode"):
        self.children.append(child)

    def dense(self, axes, dimensions) -> "SNode":
        """A dense container under this one: `dimensions` cells along `axes`."""
        return self._child("dense", axes, dimensions)

    def pointer(self, axes, dimensions) -> "SNode":
        """A pointer container: dense storage here, with an activity mask (see the module docstring)."""
        return self._child("pointer", axes, dimensions)

    def bitmasked(self, axes, dimensions) -> "SNode":
        """A bitmasked container: dense storage with an activity mask (see the module docstring)."""
        return self._child("bitmasked", axes, dimensions)

    def dynamic(self, axis, dimension, chunk_size=None) -> "SNode":
        """A dynamic container: a list of up to `dimension` cells along one axis for each cell of
        this one (see the module docstring). `chunk_size` is kept for inspection only: storage is
        one dense block of the capacity."""
        idx = _axis_list(axis)
        if len(idx) != 1:
            raise ValueError(f"dynamic({axis!r}, ...): a dynamic SNode has exactly one axis, got {len(idx)}")
        if not isinstance(dimension, numbers.Integral) or dimension < 1:
            raise ValueError(f"dynamic(...): the dimension must be a positive integer, got {dimension!r}")
        child = self._child("dynamic", axis, int(dimension))
        child.chunk_size = int(chunk_size) if chunk_size is not None else int(dimension)
        child.where = "%s:%s" % caller()
        return child

    def hash(self, axes, dimensions) -> "SNode":
        raise refuse_use("snode.hash(...)", "use pointer or bitmasked (Quadrants has no hash SNode either)")

    def bit_struct(self, *args, **kwargs):
        raise refuse_use("snode.bit_struct(...)", "place quantized fields through qd.BitpackedFields (bitpack.place(x); snode.place(bitpack))")

    def quant_array(self, axes, dimensions, max_num_bits: int) -> "SNode":
        """Quadrants packs the quantized fields placed here into `max_num_bits`-bit words; storage
        here is one element each (quant.py), so it is a dense container."""
        return self._child("dense", axes, dimensions)

    def place(self, *fields, offset=None) -> "SNode":
        """Give each field (scalar, vector, matrix or struct field, or a list of them) this
        container's shape: its storage is allocated now, zeroed. `offset=` makes their indices start
        there along each axis, as Quadrants' `place(x, offset=(-8, 16))`."""
        for f in fields:
            if isinstance(f, BitpackedFields):  # its fields, each stored on its own (quant.py)
                self.place(*f.fields, offset=offset)
            elif isinstance(f, ScalarComponent):  # x.get_scalar_field(i, j): the field, once all are placed
                f.place_in(self)
            elif isinstance(f, (list, tuple)):
                self.place(*f, offset=offset)
            elif isinstance(f, Field):
                self._place_field(f, offset)
            elif hasattr(f, "members") and hasattr(f, "struct_type"):  # a struct field: each member
                self.place(*f.members.values(), offset=offset)
                f.shape = self.shape
            else:
                raise ValueError(f"{f!r} cannot be placed: place takes qd.field(...)s (made without shape=)")
        return self

    def _place_field(self, f: Field, offset=None):
        primal = f.adjoints.grad_of
        if primal is not None and primal.shape is not None and tuple(primal.shape) != tuple(self.shape):
            file, line = caller()
            raise QdRuntimeError(f"{file}:{line}: {f!r} is the gradient of a field of shape {primal.shape}; "
                                 f"place it in a container of the same shape (place(x, x.grad)), not {self.shape}")
        if f.placed:
            raise QdRuntimeError(f"field {f.name or ''!s} {f!r} is already placed (it has a shape); a field is "
                                 f"placed once: make it with qd.field(dtype) and no shape= to place it")
        leaf = SNode(self, "place", {})
        leaf.fields.append(f)
        self.children.append(leaf)
        self.fields.append(f)
        f.place_at(self.shape, leaf, offset, self.stored_shape(f))

    def stored_shape(self, f: Field) -> tuple | None:
        """The storage shape of `f` placed here where its dense storage would pass what lazily
        reserved storage maps (lazy_storage.MAX_RESERVE: taichi_elements' 3-D `pid`, 2^20 cells
        per list of 2^30 lists, 4 PiB): the one dynamic node above keeps `stored_capacity` cells
        per list, the largest power of two that fits half of it; a list growing past that is
        refused after the kernel (`check_lists`). None: the full shape."""
        shape = self.shape
        nbytes = int(np.prod(shape + tuple(f.elem_shape), dtype=np.int64)) * np.dtype(f.dtype.numpy).itemsize
        dyn = [s for s in self.path() if s.kind == "dynamic"]
        if nbytes <= MAX_RESERVE or len(dyn) != 1:
            return None
        d = dyn[0]
        a = d.dyn_axis
        if any(a in s.splits for s in self.path() if s is not d):  # the list axis split elsewhere too
            return None
        pos = sorted(self._acc).index(a)
        if d.stored_capacity is None:
            per = nbytes // shape[pos]
            room = MAX_RESERVE // 2 // max(1, per)
            if room < 1:
                return None
            d.stored_capacity = min(1 << (room.bit_length() - 1), shape[pos])
            d.overflow = Field(i32, (1,), name="dynamic_overflow")
            SHORTENED.add(d)
        return shape[:pos] + (d.stored_capacity,) + shape[pos + 1:]

    def lazy_grad(self):
        """Give every float field placed under this container so far its `.grad` (same shape, dense
        storage, as everything here), as Quadrants' `qd.root.lazy_grad()` does."""
        for f in self._placed_fields():
            adj = f.adjoints
            if (adj.grad is None or adj.grad.shape is None) and adj.grad_of is None and f.dtype.is_float:
                adj.need_grad()

    def lazy_dual(self):
        """Give every float field placed under this container so far its `.dual` (forward mode), as
        Quadrants' `qd.root.lazy_dual()` does."""
        fields = self._placed_fields()
        derived = {id(d) for f in fields for d in f.adjoints.derived()}
        for f in fields:
            adj = f.adjoints
            if (adj.dual is None or adj.dual.shape is None) and adj.grad_of is None and f.dtype.is_float and \
                    id(f) not in derived:
                adj.need_dual()

    def _placed_fields(self) -> list:
        out = list(self.fields)
        for c in self.children:
            out += [f for f in c._placed_fields() if f not in out]
        return out

    # -- reading it
    @property
    def shape(self) -> tuple:
        """Cells along each axis this container or one above it splits, in axis order (a tree over
        `qd.k` alone has 1-d fields, as in Quadrants)."""
        return tuple(self._acc[a] for a in sorted(self._acc))

    @property
    def split_axes(self) -> list:
        """The index axes this container or one above it splits, in order."""
        return sorted(self._acc)

    def memory_order(self) -> tuple:
        """The order in which Quadrants lays out this container's index axes in memory, outermost
        first, as positions in its index; () for axis order. Quadrants nests the cells of inner
        containers inside those of outer ones, so `dense(qd.l, n).dense(qd.i, 1)` stores axis l
        outermost and its field's `x[t, 0]` (t past axis i's one cell, no bounds checks) reads cell
        (0, t). An axis is slower the further out its splits are; a split of one cell moves no
        address, so an axis with a larger split is placed by those alone, one split only of 1 by its
        innermost. () too where no order of whole axes is Quadrants' layout, as where an axis is
        split on both sides of another's split (`dense(qd.ij, 4).dense(qd.ij, 2)`, block-major
        there): such a field keeps axis order, and only its in-range indices reach Quadrants' cells."""
        mine = sorted(self._acc)
        path = self.path()
        runs: list[int] = []  # the axes of the splits of more than one cell, outermost first, repeats merged
        for s in path:
            for a in sorted(s.splits):
                if s.splits[a] > 1 and (not runs or runs[-1] != a):
                    runs.append(a)
        if len(set(runs)) != len(runs):
            return ()
        depth: dict[int, tuple] = {}
        for d, s in enumerate(path):
            for a, n in s.splits.items():
                depth[a] = max(depth.get(a, (False, -1)), (n > 1, d))
        order = tuple(mine.index(a) for a in sorted(mine, key=lambda a: (depth[a][1], a)))
        return () if order == tuple(range(len(mine))) else order

    def cell_map(self, to: "SNode") -> list:
        """How an index of this container becomes the index of the cell of `to` holding it (`to`
        above it): for each axis of `to`, (position in this index, divisor)."""
        mine = sorted(self._acc)
        return [(mine.index(a), self._acc[a] // to._acc[a]) for a in sorted(to._acc)]

    def block_map(self, below: "SNode") -> list:
        """The elements of `below` (a container under this one) inside one cell of this one: for
        each axis of `below`, (position in this container's index or None, elements per cell)."""
        mine = sorted(self._acc)
        return [(mine.index(a) if a in self._acc else None, below._acc[a] // self._acc.get(a, 1))
                for a in sorted(below._acc)]

    @property
    def ptr(self) -> "SNodeHandle":
        """`x.snode.ptr`: what Quadrants' C++ SNode handle answers about autodiff (grad type, adjoint,
        checkbit)."""
        return SNodeHandle(self)

    def parent(self, n: int = 1) -> "SNode | None":
        """The n-th ancestor (the root's parent is None)."""
        p: SNode | None = self
        while p is not None and n > 0:
            p = p._parent
            n -= 1
        return p

    def path(self) -> list["SNode"]:
        """The containers from the root down to this one."""
        out: list[SNode] = []
        p: SNode | None = self
        while p is not None:
            out.append(p)
            p = p._parent
        return out[::-1]

    def sparse_path(self) -> list["SNode"]:
        """The pointer, bitmasked and dynamic containers on the way here (this one included)."""
        return [s for s in self.path() if s.kind in ACTIVITY]

    def subtree_fields(self) -> list[Field]:
        out = list(self.fields)
        for c in self.children:
            out += c.subtree_fields()
        return list(dict.fromkeys(out))

    def subtree_sparse(self) -> list["SNode"]:
        """The pointer, bitmasked and dynamic containers at or below this one."""
        out = [self] if self.kind in ACTIVITY else []
        for c in self.children:
            out += c.subtree_sparse()
        return out

    # -- a dynamic node's lists
    @property
    def dyn_axis(self) -> int:
        return next(iter(self.splits))

    def list_map(self) -> tuple[list, tuple]:
        """How an index of this dynamic node splits into (its list: the parent's cell, the position
        in the list): for each axis of the parent, (position in this index, divisor); and (position
        of the list axis, modulus or 0 where the parent does not split that axis)."""
        mine, a, n = sorted(self._acc), self.dyn_axis, self.splits[self.dyn_axis]
        assert self._parent is not None
        up = [(mine.index(b), n if b == a else 1) for b in sorted(self._parent._acc)]
        return up, (mine.index(a), n if a in self._parent._acc else 0)

    def element_map(self) -> list:
        """The inverse of `list_map`: for each axis of this node, ("list", position in the parent's
        cell index or None, capacity) for the list axis, ("cell", position) for the others."""
        assert self._parent is not None
        pa, a, n = sorted(self._parent._acc), self.dyn_axis, self.splits[self.dyn_axis]
        return [("list", pa.index(b) if b in pa else None, n) if b == a else ("cell", pa.index(b))
                for b in sorted(self._acc)]



    @property
    def _name(self) -> str:
        """Quadrants' `snode._name`: the placed field's name for a place node, "" for a container."""
        return self.fields[0].name if self.kind == "place" and self.fields else ""

    def __repr__(self) -> str:
        return f"<qd.SNode of type {self.kind}>"

    def __str__(self) -> str:
        p = self._parent
        return (f"{p} => " if p is not None else "") + f"{self.kind} {list(self.shape)}"


class _Root(SNode):
    """`qd.root`: the tree's root. It holds its children weakly, so fields made and dropped (and
    the containers they hang from) are garbage-collected as plain fields are."""

    def __init__(self):
        super().__init__(None, "root", {})
        self._weak: "weakref.WeakSet[SNode]" = weakref.WeakSet()

    def _adopt_child(self, child: SNode):
        self._weak.add(child)

    def _placed_fields(self) -> list:
        """Every live field: in Quadrants `qd.field(shape=...)` hangs from `qd.root` too, so
        `qd.root.lazy_grad()` gives them all their `.grad`."""
        return [f for f in Storage.live() if isinstance(f, Field) and f.placed]

    def _place_field(self, f: Field, offset=None):
        leaf = SNode(self, "place", {})
        leaf.fields.append(f)
        if f.placed:
            raise QdRuntimeError(f"field {f!r} is already placed; qd.root.place takes fields made without shape=")
        f.place_at((), leaf)

    @property
    def children(self) -> list[SNode]:
        return list(self._weak)

    @children.setter
    def children(self, value):
        pass

    def __str__(self) -> str:
        return "qd.root"


class SNodeHandle:
    """`snode.ptr` of a place SNode: its field's autodiff role, as Quadrants' `SNodeGradType` numbers
    it (PRIMAL 0, ADJOINT 1, DUAL 2, ADJOINT_CHECKBIT 3), and whether it has an adjoint / a checkbit
    (the twin `qd.ad.Tape(validation=True)` gives a field with a gradient, lang/autodiff/validation.py)."""

    def __init__(self, snode: SNode):
        self._fields = list(snode.fields)

    def get_snode_grad_type(self) -> int:
        kind = quadrants_module("quadrants.types.enums").SNodeGradType
        for f in self._fields:
            for s in Storage.live():
                if s.adjoints.grad is f:
                    return kind.ADJOINT
                if s.adjoints.dual is f:
                    return kind.DUAL
                if s.adjoints.checkbit is f:
                    return kind.ADJOINT_CHECKBIT
        return kind.PRIMAL

    def has_adjoint(self) -> bool:
        return any(f.adjoints.grad is not None for f in self._fields)

    def has_adjoint_checkbit(self) -> bool:
        return any(f.adjoints.checkbit is not None for f in self._fields)


SHORTENED: "weakref.WeakSet[SNode]" = weakref.WeakSet()  # dynamic nodes storing fewer cells than their capacity


def check_lists() -> None:
    """After a kernel: refuse, in one line, a list of a dynamic node that grew past the cells
    stored per list (`SNode.stored_shape`); its appends past them were dropped."""
    for d in list(SHORTENED):
        over = d.overflow
        if over is not None and over.host()[0]:
            over.fill(0)
            raise QdRuntimeError(
                f"{d.where}: a list of this dynamic SNode (capacity {d.splits[d.dyn_axis]:,}) grew past "
                f"{d.stored_capacity:,} cells, the most qdexplorer stores per list here: its dense storage at "
                f"full capacity would pass the {MAX_RESERVE >> 40} TiB lazily reserved storage maps; appends "
                f"past it were dropped. Lower the capacity or the number of lists (the parent's cells)")


def deactivate_all_snodes():
    """`qd.deactivate_all_snodes()`: every pointer/bitmasked cell of every tree inactive, as
    `qd.root.deactivate_all()`."""
    root.deactivate_all()


root = _Root()


def _leaf_of_shaped(f: Field) -> SNode:
    """The SNode of a field made with `shape=`: it hangs from `qd.root.dense(axes(0..n-1), shape)`,
    as in Quadrants; made only when a program asks (`x.snode`, `x.parent()`)."""
    parent = root.dense(Axis(*range(len(f.shape))), list(f.shape)) if f.shape else root
    leaf = SNode(parent, "place", {})
    leaf.fields.append(f)
    if parent is not root:
        parent.fields.append(f)
        parent.children.append(leaf)
    return leaf


SNODE_OF_SHAPE[0] = _leaf_of_shaped


def rescale_host(a_shape: tuple, b_shape: tuple, index) -> list:
    """`qd.rescale_index` on constants: `index` of a container of `a_shape` in one of `b_shape`."""
    out = list(index)
    for k in range(min(len(out), len(a_shape), len(b_shape))):
        if a_shape[k] > b_shape[k]:
            out[k] = out[k] // (a_shape[k] // b_shape[k])
        elif a_shape[k] < b_shape[k]:
            out[k] = out[k] * (b_shape[k] // a_shape[k])
    return out


__all__ = ["Axis", "SNode", "axes", "deactivate_all_snodes", "root", "rescale_host"]
