"""Fields and `qd.ndarray`s: data that lives outside any one kernel call (`alloc.py` makes them).

Both are NumPy storage to the engine: a kernel that touches a field gets the field's array as an
implicit parameter of each task that uses it (so every task module stays self-contained), and a
host ndarray is passed like any NumPy array, without a copy on the CPU. A 0-d field (`x[None]`)
is stored as one element. Vector and matrix fields keep their components as trailing axes.

Each array has two components: its *residency* (`x.residency`, host/residency.py: which of the
host storage and a device copy is current while scripts run on CUDA) and its *adjoints*
(`x.adjoints`, autodiff/adjoints.py: its gradient, dual and checkbit arrays).
"""
from __future__ import annotations

import copy
import itertools
import numbers
import weakref
from typing import Any

import numpy as np

from .tasks import materialize
from .calls import runtime_api
from .host import tensor_layout
from .calls.caller import caller
from ..ir.device_array import device_array_of
from .host.element import Element
from .host.host_matrix import host as python_scope_matrix
from .host.buffer_view import slice_to_view
from .compat import surface as compat
from .quant import decode_field, encode_host, store_group
from .host.field_components import ComponentPlacement
from ..ir.errors import OutOfBoundsAccess, QdRuntimeError, QuadrantsIndexError, QuadrantsSyntaxError
from .host.torch_io import tensor_to_numpy, to_torch
from .host.residency import Residency
from .autodiff.adjoints import Adjoints, GradDtypeError
from ..ir.nodes import memory_axes
from ..ir.dtypes import DType, as_dtype

I32_MAX = 2**31 - 1

# how a field made with shape= gets its SNode when a program asks for one (`x.snode`, `x.parent()`):
# snode.py registers it here, so this module does not import the tree's
SNODE_OF_SHAPE: list = [None]


class InvalidShapeError(QdRuntimeError, ValueError):
    """`qd.ndarray` with an axis that is not an integer in 1 .. 2^31 - 1: Quadrants'
    `QuadrantsRuntimeError` ("... is not a valid shape for ndarray"), and a `ValueError` too."""

class FieldIndexError(QuadrantsIndexError, AssertionError):
    """A field indexed from Python with the wrong number of indices: Quadrants' AssertionError
    ("Slicing is not supported on qd.field"), a QuadrantsIndexError as qdexplorer raised before."""


_REGISTRY: "weakref.WeakValueDictionary[int, Storage]" = weakref.WeakValueDictionary()
_IDS = itertools.count(1)


def _shape(shape) -> tuple:
    if shape is None:
        return ()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)  # Field checks that every axis is positive


def _ndarray_shape(shape) -> tuple:
    """`qd.ndarray`'s shape, checked as Quadrants checks it: every axis an integer in 1 .. 2^31 - 1
    (kernels index with 32-bit integers), or `()` for a 0-d array."""
    if isinstance(shape, numbers.Number):
        shape = (shape,)
    try:
        shape = tuple(shape)
    except TypeError:
        raise TypeError(f"qd.ndarray: shape must be an int or a tuple of ints, got {shape!r}") from None
    if not all(isinstance(s, (int, np.integer)) and 0 < s <= I32_MAX for s in shape):
        raise InvalidShapeError(f"{shape} is not a valid shape for ndarray: each axis must be an integer from 1 "
                                f"to 2^31 - 1 (use shape=() for a single element)")
    return tuple(int(s) for s in shape)


def _dtype(dtype) -> DType:
    dt = as_dtype(dtype)
    if dt is None:
        raise TypeError(f"expected a qd scalar dtype (qd.f32, qd.i32, ...), got {dtype!r}")
    return dt


def _wrapped(v: int, dtype: np.dtype):
    """`v` as the integer type stores it: its low bits, in two's complement for signed types."""
    bits = dtype.itemsize * 8
    return np.array(v % (1 << bits), dtype=f"u{dtype.itemsize}").view(dtype)[()]


class ElemArray(np.ndarray):
    """NumPy storage of vectors/matrices that remembers how many trailing axes are the element, so a
    kernel called with the bare storage still indexes it as an array of vectors."""

    elem_shape: tuple = ()

    def __array_finalize__(self, obj):
        self.elem_shape = getattr(obj, "elem_shape", ())


class SparseCapacityError(QdRuntimeError, MemoryError):
    """A field whose dense storage at its SNode path's full capacity does not fit in memory. Sparse
    SNodes (pointer, bitmasked, dynamic) are stored densely here; Quadrants allocates their cells
    lazily, so a capacity like taichi_elements' `max_num_particles=2**30` costs it nothing up front."""

    def __init__(self, field, shape: tuple, leaf):
        elems = int(np.prod(tuple(shape) + tuple(field.elem_shape), dtype=np.int64))
        gib = elems * np.dtype(field.dtype.numpy).itemsize / 2**30
        kinds = sorted({k for k in (getattr(n, "kind", None) for n in leaf.sparse_path()) if k}) \
            if hasattr(leaf, "sparse_path") else []
        under = f" under {'/'.join(kinds)} SNodes" if kinds else ""
        name = repr(field.name) if getattr(field, "name", None) else "a field"
        super().__init__(f"cannot allocate {gib:,.0f} GiB for {name} of shape {shape}{under}: qdexplorer "
                         f"stores sparse SNodes densely at their full capacity, reserved lazily up to "
                         f"{MAX_RESERVE >> 40} TiB an array (Quadrants allocates their cells lazily, on demand); "
                         f"lower the capacity (a dynamic SNode's length, a pointer's cell count)")


from .lazy_storage import MAX_RESERVE, is_lazy, lazy_zeros, zero  # noqa: E402

_SLACK = 256  # bytes after every array: a small out-of-range write lands there, not in the heap's own


def _alloc(shape, elem_shape, dtype, layout: tuple = (), sparse: bool = False) -> np.ndarray:
    """Zeroed storage with `_SLACK` bytes before and behind it. Quadrants keeps fields in one root
    buffer, so a kernel writing a few cells past either end of a field (no bounds checks outside debug
    mode; `p[t, y - 1, x]` at y = 0) overwrites a neighbour there; a bare NumPy allocation would have
    it overwrite malloc's bookkeeping and the process would crash later, far from the cause (at a
    garbage collection).

    `layout` (a field nested out of axis order, `SNode.memory_order`): the memory holds the axes in
    that order, and the array returned is its transposed view, indexed in axis order as any other
    (its strides say where each axis lies; kernels get the same order as `ArrayArg.layout`)."""
    if layout:
        n = len(shape)
        phys = _alloc(tuple(shape[p] for p in layout), elem_shape, dtype, sparse=sparse)
        return phys.transpose(tuple(int(q) for q in np.argsort(layout)) + tuple(range(n, n + len(elem_shape))))
    full = tuple(shape) + tuple(elem_shape)
    n = int(np.prod(full, dtype=np.int64))
    np_dt = np.dtype(dtype.numpy)
    pad = -(-_SLACK // np_dt.itemsize)   # elements; _SLACK is a multiple of every itemsize: aligned as flat is
    flat = lazy_zeros(pad + n + pad, np_dt, sparse)
    a = flat[pad:pad + n].reshape(full)
    if not elem_shape:
        return a
    e = a.view(ElemArray)
    e.elem_shape = tuple(elem_shape)
    return e


class by_element_kind:  # noqa: N801 - used as a decorator-like method maker
    """A method whose parameters are those of Quadrants' ScalarField method on a field of scalars and
    of its MatrixField method on a field of vectors or matrices (one class here, two there)."""

    def __init__(self, scalar, tensor):
        self.scalar, self.tensor = scalar, tensor

    def __get__(self, obj, cls=None):
        if obj is None:
            return self.scalar
        return (self.tensor if obj.elem_shape else self.scalar).__get__(obj, cls)


class Storage:
    """Shared Python-side behaviour of fields and host ndarrays: indexing, fill, NumPy I/O. Its
    `residency` (which of the host array and the device copy is current) and its `adjoints` (the
    gradient and dual arrays) are components of their own, made by `_components()`."""

    storage: np.ndarray
    shape: tuple
    dtype: DType
    name: str
    residency: Residency
    adjoints: Adjoints

    _qd_layout: tuple | None = None  # qd.tensor(layout=...): the physical axis order asked for
    _layout: tuple = ()  # a field's axis order in memory where its SNode tree nests them otherwise (snode.py)
    offset: tuple = ()  # a field's first index along each axis (qd.field(offset=)); () for zeros

    @property
    def layout(self) -> tuple | None:
        """The axis permutation given to `qd.tensor(..., layout=)`, None for the identity (Quadrants'
        `x.layout`). Storage stays canonical here (see tensor.py)."""
        lay = self._qd_layout
        return None if lay is None or tuple(lay) == tuple(range(len(lay))) else tuple(lay)

    def _components(self) -> None:
        """A residency and adjoints of its own (every constructor, and every copy, calls this)."""
        self.residency, self.adjoints = Residency(self), Adjoints(self)

    @property
    def grad(self) -> "Storage":
        """The adjoint array that `kernel.grad()` and `qd.ad.Tape` accumulate into."""
        adj = self.adjoints
        if adj.grad is None and getattr(self, "_made_unplaced", False) and self.dtype.is_float:
            # a field made for an SNode tree: Quadrants' `qd.root.dense(qd.i, n).place(x, x.grad)` places
            # the adjoint beside it, so `x.grad` is an unplaced field of its own that place() allocates
            adj.grad = Field(self.dtype, None, f"{self.name}_grad" if self.name else "", self.elem_shape)
            adj.grad.adjoints.grad_of = self
        if adj.grad is None:
            raise AttributeError(f"{self._kind()} {self.name or ''} has no gradient: allocate it with "
                                 f"needs_grad=True (qd.field(qd.f32, shape=..., needs_grad=True))")
        return adj.grad

    @property
    def dual(self) -> "Storage":
        """The tangent array that kernels run under `qd.ad.FwdMode` write (forward-mode autodiff)."""
        adj = self.adjoints
        if adj.dual is None and getattr(self, "_made_unplaced", False) and self.dtype.is_float:
            adj.dual = Field(self.dtype, None, f"{self.name}_dual" if self.name else "", self.elem_shape)
            adj.dual.adjoints.grad_of = self  # placed by place(x, x.dual) beside its primal, as an unplaced adjoint is
        if adj.dual is None:
            raise AttributeError(f"{self._kind()} {self.name or ''} has no dual: allocate it with needs_dual=True "
                                 f"or qd.root.lazy_dual() (forward-mode autodiff)")
        return adj.dual

    def twin(self, name: str, storage: np.ndarray | None = None, dtype: DType | None = None) -> "Storage":
        """An array beside this one (its gradient, dual or checkbit): its type, shape and element
        shape, its own identity, residency and (no) adjoints, and zeroed storage allocated as this
        one's is (`_alloc`: its slack, its memory order: an adjoint kernel writes past the same ends
        the kernel reads past) unless `storage` is given."""
        t = copy.copy(self)
        if dtype is not None:
            t.dtype = dtype
        if storage is None:
            st = self.storage
            if st.dtype != np.dtype(self.dtype.numpy):   # storage of another type than the field's (quantized)
                storage = np.zeros_like(st)
            else:
                storage = _alloc(st.shape[:st.ndim - len(self.elem_shape)], self.elem_shape, self.dtype, self._layout)
        t.storage, t.name = storage, name
        t._components()
        t._registered()
        runtime_api.adopt(t)
        return t

    def _unwrap(self) -> "Storage":
        """What Quadrants' `qd.Tensor` wrapper gives back: `qd.tensor` returns the array itself here."""
        return self

    def has_grad(self) -> bool:
        return self.adjoints.grad is not None

    def has_dual(self) -> bool:
        return self.adjoints.dual is not None

    @property
    def element_type(self):
        """The element's type: the dtype, or `qd.types.vector(n, dtype)` / `matrix(n, m, dtype)`."""
        if not self.elem_shape:
            return self.dtype
        return ELEMENT_TYPE[0](self.elem_shape, self.dtype)  # set by vector_types.py, which sits above

    def to_dlpack(self, versioned=False):
        """A DLPack capsule of the data: the host storage itself on the CPU backend (zero-copy, as
        Quadrants), a host copy while kernels use a device copy. `versioned=True`: a DLPack v1
        capsule ("dltensor_versioned"), as Quadrants'."""
        data = self.host() if self.residency.mirror is None else self.to_numpy()
        return data.__dlpack__(max_version=(1, 0)) if versioned else data.__dlpack__()

    def __getattr__(self, name: str):
        """Quadrants attributes qdexplorer leaves out fail with one line (compat.REFUSED)."""
        if name.startswith("__"):
            raise AttributeError(name)
        surface = ("field" if isinstance(self, Field) else "ndarray") if not self.elem_shape else \
            ("vector_" if len(self.elem_shape) == 1 else "matrix_") + ("field" if isinstance(self, Field) else "ndarray")
        compat.refuse_attr(surface, self, name)

    elem_shape: tuple = ()

    def host(self) -> np.ndarray:
        """The NumPy storage, brought up to date from the device copy if a kernel wrote that last."""
        return self.residency.host()

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def element_shape(self) -> tuple:
        """The shape of one element: () for scalars, (n,) for vectors, (n, m) for matrices."""
        return self.elem_shape

    @property
    def n(self) -> int:
        """Components of a vector element (rows of a matrix), as Quadrants' `x.n`."""
        if not self.elem_shape:
            raise AttributeError(f"a {self._kind()} of scalars has no '.n' (only vector and matrix ones do)")
        return self.elem_shape[0]

    @property
    def m(self) -> int:
        """Columns of a matrix element (1 for a vector), as Quadrants' `x.m`."""
        if not self.elem_shape:
            raise AttributeError(f"a {self._kind()} of scalars has no '.m' (only vector and matrix ones do)")
        return self.elem_shape[1] if len(self.elem_shape) > 1 else 1

    def _kind(self) -> str:
        return type(self).__name__.lower()

    def _require_placed(self, what: str):
        """Fields made without shape= refuse use until placed (Field overrides this)."""

    def __getitem__(self, key):
        idx = element_index(self, key)
        if self.elem_shape and all(isinstance(k, (int, np.integer)) for k in idx):
            return Element(self, idx)  # one vector/matrix: a view that writes through (x[i][j] = v)
        if not self.elem_shape:
            cell = _device_cell(self, idx)
            if cell is not None:       # one number: only its bytes come back, not the array
                return int(cell[0]) if cell.dtype == np.bool_ else cell[0].item()
        v = self.host()[idx]           # a number, or a copy of a slice
        if isinstance(v, np.ndarray):
            return np.array(v)
        x = v.item()
        return int(x) if isinstance(x, bool) else x  # a u1 element reads 0/1, as Quadrants gives

    def __setitem__(self, key, value):
        idx = element_index(self, key)
        if self.elem_shape:
            value = np.array(value, dtype=self.storage.dtype)  # a copy: `x[i] = x[j]` reads before writing
            if value.shape != self.elem_shape:
                raise ValueError(f"x[...] = value: this {self._kind()} holds {self.elem_shape} elements, got a "
                                 f"value of shape {value.shape}; use fill() to set every element to a number")
        elif isinstance(value, (int, np.integer)) and self.storage.dtype.kind in "iu":
            value = _wrapped(int(value), self.storage.dtype)  # x[0] = 0xFFFF on an i16 is -1, as in Quadrants
        self.host()[idx] = value
        self.residency.host_written()

    def fill(self, val):
        """Every element set to `val`: a number, or for vectors/matrices also one element's value
        (`x.fill(qd.math.vec2(2, 4))`). On the device when it lives there and the pattern allows."""
        value = fill_value(self, val)
        if self.residency.fill_on_device(value, self.storage.dtype):
            return                   # filled where it lives: no copy either way
        self.storage[...] = value    # all of it: the device copy need not be read first
        self.residency.host_written()

    def zero_all(self) -> None:
        """Every element 0, bypassing sparse activity and quantized encodings (a deactivation);
        lazily reserved storage gives its pages back (lazy_storage.py) rather than committing
        them all by writing zeros."""
        if is_lazy(self.storage) and self.residency.mirror is None:
            zero(self.storage)
            self.residency.host_written()
        else:
            Storage.fill(self, 0)

    def _elem_dims(self, keep_dims: bool) -> tuple:
        """The element axes as Quadrants' I/O shows them: `keep_dims=True` gives a vector of n
        its column shape (n, 1), as Quadrants' `to_numpy(keep_dims=True)` does."""
        return self.elem_shape + (1,) if keep_dims and len(self.elem_shape) == 1 else self.elem_shape

    def to_numpy(self, dtype=None, keep_dims: bool = False, copy: bool | None = True) -> np.ndarray:
        """A copy of the data; `copy=False` returns a view of the host storage instead (only where
        that storage is what kernels use: on the CPU backend, as Quadrants' zero-copy export), and
        `copy=None` a view where one can be had, else a copy (a `dtype=` conversion always copies)."""
        shape = self.shape + self._elem_dims(keep_dims)
        converts = dtype is not None and np.dtype(dtype) != self.storage.dtype
        if copy is False and converts:
            raise ValueError(f"to_numpy(dtype={np.dtype(dtype)}, copy=False): a dtype conversion needs a copy "
                             f"(this array holds {self.storage.dtype}); use copy=True or copy=None")
        if copy is False or (copy is None and not converts and self.residency.mirror is None):
            return self.zero_copy_view("to_numpy").reshape(shape)
        out = np.array(self.host()).reshape(shape)
        return out.astype(dtype) if dtype is not None else out

    def zero_copy_view(self, what: str) -> np.ndarray:
        """The host storage itself, for `copy=False` exports; refused (ValueError, Quadrants'
        class for it) while kernels use a device copy, which a host view would not follow."""
        if self.residency.mirror is not None:
            raise ValueError(f"{what}(copy=False): Zero-copy not available: this {type(self).__name__.lower()} "
                             f"lives on the GPU (qd.init(arch=qd.cuda)); use copy=True")
        return self.host().view(np.ndarray)

    def from_numpy(self, arr):
        arr = np.asarray(arr)
        want = self.shape + self.elem_shape
        if arr.shape != want and not self._is_vector_io_shape(arr.shape):
            raise ValueError(f"from_numpy: expected an array of shape {want}, got {arr.shape}")
        self.storage[...] = arr.reshape(self.storage.shape)  # all of it: the device copy is not read
        self.residency.host_written()

    def _is_vector_io_shape(self, shape: tuple) -> bool:
        """A vector field also takes its data as columns (n, 1) or rows (1, n), as Quadrants does."""
        if len(self.elem_shape) != 1:
            return False
        n = self.elem_shape[0]
        return shape in (self.shape + (n, 1), self.shape + (1, n))

    def to_torch(self, device=None, keep_dims: bool = False, copy: bool = True):
        """A PyTorch tensor of the data (on the CPU unless `device` says otherwise), as Quadrants'
        `to_torch`; `copy=False` shares the host storage (see `to_numpy`)."""
        return to_torch(self, device, keep_dims, copy)

    def from_torch(self, arr):
        """Copy a PyTorch tensor (on any device, requiring grad or not) into this array."""
        self.from_numpy(tensor_to_numpy(arr))

    def copy_from(self, other):
        """Copy another field's or ndarray's data (same shape and element shape) into this one."""
        if not isinstance(other, Storage):
            raise TypeError(f"copy_from: expected a qd.field or qd.ndarray, got {type(other).__name__}")
        if (other.shape, other.elem_shape) != (self.shape, self.elem_shape):
            raise ValueError(f"copy_from: shapes differ: {self.shape}{self.elem_shape or ''} here, "
                             f"{other.shape}{other.elem_shape or ''} in the source")
        self.from_numpy(other.to_numpy())

    def __deepcopy__(self, memo):
        """An independent copy of the data: the storage is copied (from the device first if a kernel
        wrote it there), and the copy gets its own device memory, never the original's mirror."""
        new = copy.copy(self)
        new.storage = self.host().copy(order="K")  # laid out as this one (a field nested out of axis order)
        new._components()
        new.adjoints = self.adjoints.copy_for(new)  # the copy shares this one's gradient and dual
        new._registered()
        runtime_api.adopt(new)   # on CUDA: fresh (zeroed) device memory ...
        new.residency.host_written()  # ... that the copied host data replaces at the next call
        return new

    def _registered(self):
        """Take an identity a kernel can name it by: a field, or an ndarray a kernel reaches as a
        global or through a `qd.template()` object, is passed to the tasks by this uid."""
        self.uid = next(_IDS)
        _REGISTRY[self.uid] = self

    @staticmethod
    def live() -> list:
        """Every field and qd.ndarray still alive (what `qd.ad.clear_all_gradients` walks)."""
        return list(_REGISTRY.values())

    @staticmethod
    def by_uid(uid: int) -> "Storage":
        f = _REGISTRY.get(uid)
        if f is None:
            raise RuntimeError(f"field or ndarray #{uid} no longer exists (it was garbage-collected)")
        return f

    def __array__(self, dtype=None, copy=None):
        return self.to_numpy(dtype=dtype)




# ---- where an element is: Python-side indices checked, and its place in memory
def element_index(arr: Storage, key) -> tuple:
    """The storage index of element `key` of `arr`; a 0-d array (one stored element) takes `x[None]`
    or `x[()]`. The wrong number of indices is a `QuadrantsIndexError` at the caller's line."""
    if arr.shape is None:
        arr._require_placed("x[...]")  # only an unplaced Field has no shape
    if key is None or (isinstance(key, tuple) and not key):
        if arr.shape:
            _index_error(arr, 0)
        return (0,)
    key = key if isinstance(key, tuple) else (key,)
    if len(key) != len(arr.shape):
        _index_error(arr, len(key))
    if not all(isinstance(k, (int, np.integer)) for k in key):
        bad = next(k for k in key if not isinstance(k, (int, np.integer)))
        if isinstance(arr, Field) and not isinstance(bad, (bool, np.bool_)):
            raise TypeError(f"Detected illegal element of type: {type(bad)}. Please be aware that slicing a "
                            f"qd.field is not supported so far. (index it with integers; x.to_numpy()[...] "
                            f"slices a copy)")
        return key  # NumPy's own indexing (and its errors) for anything else
    if not isinstance(arr, Field):
        return key  # an ndarray: NumPy's indexing, as before (Quadrants does not check it at all)
    off = arr.offset or (0,) * len(key)
    idx = tuple(int(k) - o for k, o in zip(key, off))
    if any(not 0 <= i < n for i, n in zip(idx, arr.shape)):
        where = f" offset {tuple(off)}" if arr.offset else ""
        raise OutOfBoundsAccess(f"Accessing {arr._kind()} of size {tuple(arr.shape)}{where} with indices "
                                f"{tuple(int(k) for k in key)}")
    return idx


def _index_error(arr: Storage, got: int):
    file, line = caller()
    want = ", ".join("ijkl"[k % 4] for k in range(len(arr.shape))) if arr.shape else "None"
    cls = FieldIndexError if isinstance(arr, Field) else QuadrantsIndexError
    raise cls(f"{'Slicing is not supported on qd.field: ' if cls is FieldIndexError else ''}{len(arr.shape)}d "
              f"{arr._kind()} indexed with {got}d indices: write x[{want}]", file, line)


def flat_index(arr: Storage, idx: tuple) -> int:
    """The element offset of index `idx` in `arr`'s memory (axes in its memory order, where set)."""
    order = memory_axes(arr._layout, len(idx))
    shape = arr.storage.shape
    return int(np.ravel_multi_index(tuple(int(idx[k]) for k in order), tuple(shape[k] for k in order)))


def _device_cell(arr: Storage, idx: tuple):
    """The host storage's cell for element `idx`, refreshed from the device copy alone where that is
    the current one (a time-step loop that prints x[0] every step must not copy the whole array);
    None there for anything but non-negative integer indices in range (the host path handles those),
    and wherever the host storage is current."""
    if arr.residency.where != "device" or arr.residency.mirror is None:
        return None
    if not all(isinstance(k, (int, np.integer)) and k >= 0 for k in idx):
        return None
    try:
        flat = flat_index(arr, idx)
    except ValueError:
        return None
    st = arr.storage
    memory = st.reshape(-1) if not arr._layout else st.transpose(memory_axes(arr._layout, st.ndim)).reshape(-1)
    cell = memory[flat:flat + 1]  # a view: the storage as its memory holds it, one dimension
    arr.residency.read_cell(cell, flat)
    return cell


def fill_value(arr: Storage, value):
    """`value` as `arr.fill` stores it: a number, or one element's components (checked)."""
    a = np.asarray(value)
    if a.ndim == 0:
        return a.item()
    if not arr.elem_shape:
        raise TypeError(f"fill: a {arr._kind()} of scalars takes a number, got a value of shape {a.shape}")
    a = np.array(a, dtype=arr.storage.dtype)
    if a.shape != arr.elem_shape:
        raise ValueError(f"fill: this {arr._kind()} holds {arr.elem_shape} elements, got a value of "
                         f"shape {a.shape}")
    return a



class Field(ComponentPlacement, Storage):
    """A `qd.field`: kernels read and write it as a global; Python indexes it directly.

    Made with `shape=None` it is *unplaced*: it has no storage until an SNode tree places it
    (`qd.root.dense(qd.i, n).place(x)`, snode.py), which gives it the container's shape."""

    _place_snode: Any = None  # the "place" SNode it hangs from (snode.py); made on demand for shape= fields
    _made_unplaced = False  # made without shape=: its `.grad` is an unplaced field until placed
    _sparse = False    # a pointer/bitmasked/dynamic container is above it: writes activate cells

    @property
    def sparse(self) -> bool:
        """Whether a pointer, bitmasked or dynamic container is above it: which of its cells exist
        changes at run time, so a kernel that loops over it or writes it needs its SNode tree."""
        return self._sparse

    def __init__(self, dtype, shape=(), name: str = "", elem_shape: tuple = (), needs_grad: bool = False,
                 needs_dual: bool = False, offset=None):
        self._components()
        self.dtype, self.elem_shape = _dtype(dtype), tuple(elem_shape)
        if (needs_grad or needs_dual) and not self.dtype.is_float:  # placed now or later, as Quadrants checks
            raise GradDtypeError(f"{self.dtype.name} is not supported for field with `needs_grad=True` or "
                                 f"`needs_dual=True`. (gradients need a float dtype: qd.f32 / qd.f64)")
        self._needs_grad = needs_grad   # the adjoint is allocated with the storage (placed by hand when unplaced)
        self._needs_dual = needs_dual
        self.name = name
        if shape is None:   # placed later; until then it has no shape and no storage
            file, line = caller()
            if offset is not None:
                raise QuadrantsSyntaxError("shape cannot be None when offset is set", file, line)
            self.shape = None  # type: ignore[assignment]
            self._made_unplaced = True
            materialize.note(self, f"{file}:{line}")  # placed (and its gradient) by the next kernel call
            return
        shape = _shape(shape)
        for k, n in enumerate(shape):
            if n <= 0:  # Quadrants' words (its typo included), which its users match
                raise QdRuntimeError(f"Every dimension of a Quadrants field should be positive, got {n} in "
                                     f"demension {k}.")
        self._set_offset(offset, len(shape))
        self._allocate(shape)

    def _set_offset(self, offset, dim: int):
        """Index from `offset` along each axis (Quadrants' `offset=`): checked against the number of
        axes, kept only where it is not all zeros."""
        if offset is None:
            return
        off = (int(offset),) if isinstance(offset, numbers.Integral) else tuple(int(o) for o in offset)
        if len(off) != dim:
            file, line = caller()
            raise QuadrantsSyntaxError(f"The dimensionality of shape and offset must be the same ({dim} != "
                                       f"{len(off)})", file, line)
        self.offset = off if any(off) else ()

    def _allocate(self, shape: tuple, stored: tuple | None = None):
        self.shape = shape
        self.storage = _alloc(stored or self.shape or (1,), self.elem_shape, self.dtype, self._layout, self._sparse)
        self._registered()
        runtime_api.adopt(self)
        if not self._made_unplaced:  # placed by hand: its gradient is placed by hand too (x.grad, lazy_grad)
            self.adjoints.need_grad(self._needs_grad)
            self.adjoints.need_dual(getattr(self, "_needs_dual", False))

    @property
    def placed(self) -> bool:
        return self.shape is not None

    @property
    def _snode(self):
        """Quadrants' `x._snode`: the place SNode (one is made for a `shape=` field when first asked);
        None while unplaced."""
        return self.snode if self.shape is not None else None

    @_snode.setter
    def _snode(self, leaf) -> None:
        self._place_snode = leaf

    def place_at(self, shape: tuple, leaf, offset=None, stored: tuple | None = None) -> None:
        """Called by `SNode.place`: take the container's shape (and the offset given to place) and
        allocate the storage; `stored`: the storage's shape where it holds fewer cells per list of
        a dynamic SNode than its capacity (snode.py: `SNode.stored_shape`)."""
        self._snode = leaf
        self._sparse = bool(leaf.sparse_path())
        self._layout = leaf.memory_order() if shape else ()  # Quadrants' memory order of its axes
        self._set_offset(offset, len(shape))
        try:
            self._allocate(tuple(shape), stored)
        except MemoryError:
            raise SparseCapacityError(self, tuple(shape), leaf) from None

    @property
    def snode(self):
        """The SNode this field is placed in (Quadrants' `x.snode`); `x.snode.parent()` is its
        container."""
        self._require_placed("x.snode")
        if self._place_snode is None:
            self._place_snode = SNODE_OF_SHAPE[0](self)
        return self._place_snode

    def parent(self, n: int = 1):
        """The container `n` levels above this field (Quadrants' `x.parent()`)."""
        return self.snode.parent(n)

    def _require_placed(self, what: str):
        if self.shape is None:
            file, line = caller()
            raise QdRuntimeError(f"{file}:{line}: {what}: field {self.name or ''}{' ' if self.name else ''}was made "
                                 f"without shape= and is not placed yet; place it first "
                                 f"(qd.root.dense(qd.i, n).place(x)) or give qd.field a shape=")

    def __getattr__(self, name: str):
        if name in ("storage", "uid") and self.__dict__.get("shape", ()) is None:
            self._require_placed(f"using it ({name})")
        if name in ("grad", "dual"):  # the property raised; Python then asks here: give its message
            return getattr(Storage, name).fget(self)
        return Storage.__getattr__(self, name)

    quant: Any = None  # a qd.types.quant type: `storage` holds its encoding (quant.py)
    quant_group: list | None = None  # the fields sharing its exponent (BitpackedFields shared_exponent=True)

    def _decode(self, raw):
        return decode_field(self, raw)

    def _store_group(self, key, values) -> None:
        store_group(self, key, values, Storage)

    def __getitem__(self, key):
        if self.quant is None:
            return super().__getitem__(key)
        out = self._decode(np.asarray(super().__getitem__(key)))
        if out.ndim == 0:
            return out.item()
        return python_scope_matrix(out)  # a vector's components: a decoded copy, as a Python-scope qd.Vector

    def __iter__(self):
        """A field is not iterable from Python (NumPy-style iteration would stop only at an error)."""
        raise NotImplementedError("Struct for is only available in Quadrants scope. (iterate over range(x.shape[0]) "
                                  "or x.to_numpy() in Python; `for i in x` works inside kernels)")

    @property
    def _name(self) -> str:
        """The name given to qd.field(name=...), as Quadrants' `x._name`."""
        return self.name

    def fill(self, val):
        """Under a pointer/bitmasked container only active elements are set, as Quadrants' fill
        (a struct-for) does; otherwise every element."""
        value = val
        if self.quant_group and not self._sparse:
            return self._store_group(None, np.float32(value))
        if self.quant is not None:
            value = encode_host(self.quant, value).item()
        if not self._sparse:
            return super().fill(value)
        value = fill_value(self, value)
        active = self._snode.parent().active_cells()
        self.host()[active.reshape(self.storage.shape[:len(active.shape)])] = value
        self.residency.host_written()

    def _scalar_to_numpy(self, dtype=None, keep_dims: bool = False, copy: bool | None = True) -> np.ndarray:
        return self._to_numpy(dtype, keep_dims, copy)

    def _tensor_to_numpy(self, keep_dims: bool = False, dtype=None, copy: bool | None = True) -> np.ndarray:
        return self._to_numpy(dtype, keep_dims, copy)

    def _scalar_to_torch(self, device=None, *, copy: bool = True):
        return to_torch(self, device, False, copy)

    def _tensor_to_torch(self, device=None, keep_dims: bool = False, *, copy: bool = True):
        return to_torch(self, device, keep_dims, copy)

    # Quadrants' ScalarField.to_numpy(dtype=None, *, copy) and MatrixField.to_numpy(keep_dims=False, dtype=None,
    # *, copy): `v.to_numpy(True)` of a vector field keeps the dims there, so here too
    to_numpy = by_element_kind(_scalar_to_numpy, _tensor_to_numpy)
    to_torch = by_element_kind(_scalar_to_torch, _tensor_to_torch)

    def _to_numpy(self, dtype=None, keep_dims: bool = False, copy: bool | None = True) -> np.ndarray:
        """Under a pointer/bitmasked container an inactive element reads 0, as Quadrants' export
        (a struct-for over active cells) gives, even where a bitmasked cell kept its old data."""
        if self._sparse and copy is None:
            copy = True  # inactive elements read 0 in the export: a copy
        if self.quant is not None:  # the decoded values: always a copy
            out = self._decode(super().to_numpy(None, keep_dims, True))
            if self._sparse:
                out[~self._snode.parent().active_cells()] = 0
            return out.astype(dtype) if dtype is not None else out
        out = super().to_numpy(dtype, keep_dims, copy)
        if not self._sparse or copy is False:
            return out
        out[~self._snode.parent().active_cells()] = 0
        return out

    def from_numpy(self, arr):
        """Under a pointer/bitmasked/dynamic container only active elements are written and nothing
        activates, as Quadrants' import (a struct-for over active cells) does."""
        if self.quant_group and not self._sparse:
            return self._store_group(None, np.asarray(arr, np.float32).reshape(self.storage.shape))
        if self.quant is not None:
            arr = encode_host(self.quant, arr)
        if not self._sparse:
            return super().from_numpy(arr)
        keep = self.host().copy()
        super().from_numpy(arr)
        inactive = ~self._snode.parent().active_cells().reshape(keep.shape[:len(self.shape)])
        self.storage[inactive] = keep[inactive]
        self.residency.host_written()

    def __setitem__(self, key, value):
        if self.quant_group:
            self._store_group(key, np.float32(value))
            if self._sparse:
                self._snode.parent().activate_host(element_index(self, key))
            return
        if self.quant is not None:
            enc = encode_host(self.quant, value)
            value = enc.item() if enc.ndim == 0 else enc
        super().__setitem__(key, value)
        if self._sparse:  # a write activates the element's cell in every sparse container above
            self._snode.parent().activate_host(element_index(self, key))

    def __repr__(self) -> str:
        if self.shape is None:
            return f"<qd.field {self.dtype!r} (not placed)>"
        return f"<qd.field {self.dtype!r} shape={self.shape}{' elem=' + str(self.elem_shape) if self.elem_shape else ''}>"



class Ndarray(Storage):
    """`qd.ndarray(dtype, shape)`: an array allocated by the user and passed to kernels as an argument."""

    def __init__(self, dtype, shape, elem_shape: tuple = (), needs_grad: bool = False):
        self._components()
        self.shape = _ndarray_shape(shape)
        self.dtype, self.elem_shape = _dtype(dtype), tuple(elem_shape)
        self.storage = _alloc(self.shape or (1,), self.elem_shape, self.dtype)  # 0-d: one element, as fields
        self.name = ""
        self._registered()
        runtime_api.adopt(self)
        self.adjoints.need_grad(needs_grad)

    def __getitem__(self, key):
        if isinstance(key, slice):  # data[8:24]: a qd.BufferView of a 1-D ndarray, as in Quadrants
            return slice_to_view(self, key)
        return super().__getitem__(key)

    def __repr__(self) -> str:
        return f"<qd.ndarray {self.dtype!r} shape={self.shape}{' elem=' + str(self.elem_shape) if self.elem_shape else ''}>"

    _layout_tag: tuple | None = None

    @property
    def _qd_layout(self) -> tuple | None:
        """Quadrants' layout tag; setting it re-reads the data as laid out by it (tensor_layout.py)."""
        return self._layout_tag

    @_qd_layout.setter
    def _qd_layout(self, layout) -> None:
        tensor_layout.retag(self, layout)

    @property
    def _physical_shape(self) -> tuple:
        """The shape Quadrants allocates a layout-tagged ndarray at (`shape` stays canonical)."""
        return tensor_layout.physical_shape(self.shape, self._layout_tag)


ELEMENT_TYPE: list = [None]  # (elem_shape, dtype) -> qd.types.vector/matrix(...); vector_types.py sets it


def memory_order(v) -> tuple:
    """The order of a field's index axes in memory where its SNode tree nests them out of axis order
    (`SNode.memory_order`), () otherwise: kernels index it so (`ArrayArg.layout`)."""
    return tuple(v._layout) if isinstance(v, Storage) else ()


def lay_out_by_order(f) -> None:
    """`qd.field(..., order="ji")`: Quadrants allocates the field at the permuted shape and rewrites
    its indices, so its memory holds the axes in that order, as a tree nested out of axis order
    does: its storage (and its gradient's and dual's), just allocated, is laid out so too."""
    lay = f._qd_layout if isinstance(f, Field) and f.shape else None
    if not lay:
        return
    for a in (f, f.adjoints.grad, f.adjoints.dual):
        if a is not None and not a._layout:
            a._layout = tuple(lay)
            a.storage = _alloc(a.shape, a.elem_shape, a.dtype, a._layout)


def nested_out_of_order(v) -> bool:
    """Whether `v` is a field whose SNode tree nests its axes out of axis order: kernels index it in
    its memory order, so a kernel takes it as the field itself, not by shape."""
    return bool(memory_order(v))


def array_meta(v):
    """An object with the dtype, ndim and shape `v` will have as an argument, for specialising a
    kernel without moving any data (a field's device copy stays where it is)."""
    if isinstance(v, Storage):
        return v.storage
    return as_kernel_array(v)


def as_kernel_array(v):
    """What a host backend gets for an ndarray argument: NumPy storage (fields, ndarrays, CPU
    tensors, without copies), or a DeviceArray for a GPU array (which only CUDA accepts)."""
    if isinstance(v, np.ndarray):
        return v
    if isinstance(v, Storage):
        return v.host()
    dev = device_array_of(v)
    if dev is not None:
        return dev
    if hasattr(v, "__array__") or hasattr(v, "__dlpack__"):
        try:
            return np.from_dlpack(v) if hasattr(v, "__dlpack__") else np.asarray(v)
        except (TypeError, RuntimeError, BufferError):
            return np.asarray(v)
    return v
