"""`qd.BufferView`: a window [offset, offset + size) of a 1-D ndarray, as Quadrants has it.

A kernel parameter `v: BufferView[qd.f32]` (or a bare `BufferView`) takes a view made on the host
(`data[8:24]`, `BufferView(data, 8, 16)`, `view.subview(4, 8)`); the kernel gets the backing array
and two i32 scalars, `v__offset` and `v__size`, so one compiled kernel serves every window, and
`v[i]` reads element `offset + i` of the array. Inside kernels views are made the same way
(frontend/views.py). Under `qd.init(debug=True)` an index outside the view, or a subview or
constructed view outside its parent, fails the call with `QuadrantsAssertionError`, as in Quadrants.
"""
from __future__ import annotations

from ...ir.dtypes import as_dtype
from ..autodiff.adjoints import gradient_of


class BufferViewType:
    """The annotation `BufferView[dtype]`: the view's element dtype (None: the call's array decides)."""

    def __init__(self, dtype=None, boundary: str = "unsafe"):
        self.dtype = as_dtype(dtype) if dtype is not None else None
        self.boundary = boundary

    def __repr__(self) -> str:
        return f"BufferViewType(dtype={self.dtype}, boundary={self.boundary})"


class BufferView:
    """A view of elements [offset, offset + size) of a 1-D qd.ndarray (of scalars, vectors or matrices)."""

    _is_quadrants_class = True

    def __class_getitem__(cls, dtype):
        return BufferViewType(*dtype) if isinstance(dtype, tuple) else BufferViewType(dtype)

    def __init__(self, arr, offset, size):
        offset, size = int(offset), int(size)
        if isinstance(arr, BufferView):
            raise TypeError("Cannot nest BufferView(view, ...); use view.subview(offset, size) instead")
        if gradient_of(arr) is not None:
            raise TypeError("BufferView does not support ndarrays with gradients (needs_grad=True)")
        shape = getattr(arr, "shape", None)
        if shape is not None:
            if len(shape) != 1:
                raise TypeError(f"BufferView requires a 1D ndarray, got shape {shape}")
            if offset < 0 or size < 0 or offset + size > shape[0]:
                raise ValueError(f"BufferView out of range: offset={offset}, size={size}, ndarray length={shape[0]}")
        self.arr, self.offset, self.size = arr, offset, size

    @property
    def shape(self) -> tuple:
        return (self.size,)

    def get_ndarray(self):
        return self.arr

    def subview(self, offset, size) -> "BufferView":
        """A view of [offset, offset + size) of this view (offsets relative to its start)."""
        offset, size = int(offset), int(size)
        if offset < 0 or size < 0 or offset + size > self.size:
            raise ValueError(f"subview out of range: offset={offset}, size={size}, parent size={self.size}")
        return BufferView(self.arr, self.offset + offset, size)

    def __getitem__(self, key):
        if not isinstance(key, slice):
            raise TypeError(f"BufferView host-side indexing requires a slice, got {type(key).__name__}")
        start, stop, step = key.indices(self.size)
        if step != 1:
            raise ValueError(f"BufferView slice requires step=1, got step={step}")
        return self.subview(start, max(stop - start, 0))

    def __repr__(self) -> str:
        return f"<qd.BufferView offset={self.offset} size={self.size} of {self.arr!r}>"


def slice_to_view(arr, key: slice) -> BufferView:
    """`data[a:b]` of a 1-D qd.ndarray."""
    if len(arr.shape) != 1:
        raise TypeError(f"ndarray slice to BufferView requires a 1D array, got shape {arr.shape}")
    start, stop, step = key.indices(arr.shape[0])
    if step != 1:
        raise ValueError(f"BufferView slice requires step=1, got step={step}")
    return BufferView(arr, start, max(stop - start, 0))
