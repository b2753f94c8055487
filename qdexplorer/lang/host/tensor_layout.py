"""Tagging an ndarray with a physical layout (Quadrants' `_qd_layout` / `quadrants._tensor._with_layout`).

Quadrants allocates a layout-tagged ndarray at its *physical* shape and rewrites every canonical
subscript `x[i, j]` into the physical one. Here storage always stays in canonical order (tensor.py
says why), so tagging an ndarray that was allocated at the physical shape reinterprets its data
once: the physical buffer is transposed into canonical order, `shape` becomes the canonical shape
and `_physical_shape` keeps the allocated one. Every read and write through indices, NumPy I/O and
kernels then sees what Quadrants' rewrite shows; only which index varies fastest in memory differs.
"""
from __future__ import annotations

import numpy as np


def check_layout(layout, ndim: int) -> tuple:
    """`layout` as a tuple, refused as Quadrants refuses it unless it permutes range(ndim)."""
    layout = tuple(int(a) for a in layout)
    if len(layout) != ndim:
        raise ValueError(f"layout has {len(layout)} entries but ndarray has {ndim} dims")
    if sorted(layout) != list(range(ndim)):
        raise ValueError(f"layout={layout!r} is not a permutation of range({ndim})")
    return layout


def physical_shape(shape: tuple, layout: tuple | None) -> tuple:
    """physical_shape[k] = canonical shape[layout[k]] (Quadrants' convention)."""
    return tuple(shape) if layout is None else tuple(shape[a] for a in layout)


def retag(arr, layout) -> None:
    """Re-read `arr`'s data as laid out by `layout` (None: untagged) instead of its current tag.

    The data's physical order under the old tag is recovered first, so retagging is what Quadrants
    does when it overwrites `_qd_layout`: the same physical buffer, looked at through a new permutation."""
    old = arr._layout_tag
    ndim = len(arr.shape)
    new = None if layout is None else check_layout(layout, ndim)
    if old == new or ndim == 0:
        arr._layout_tag = new
        return
    host = arr.host()
    n_elem = host.ndim - ndim
    tail = tuple(range(ndim, ndim + n_elem))
    phys = host if old is None else np.transpose(host, old + tail)
    canonical = phys if new is None else np.transpose(phys, tuple(int(a) for a in np.argsort(new)) + tail)
    out = np.ascontiguousarray(canonical)
    if type(host) is not np.ndarray:  # keep the storage's class (ElemArray remembers the element axes)
        out = out.view(type(host))
        out.elem_shape = host.elem_shape  # type: ignore[attr-defined]
    arr.storage = out
    arr.shape = tuple(phys.shape[:ndim]) if new is None else tuple(phys.shape[a] for a in np.argsort(new))
    arr._layout_tag = new
    arr.residency.host_written()


def tag_order(arr, order) -> None:
    """`qd.field(..., order="ji")`: Quadrants' SNode axis order, read as the layout `(1, 0)` and
    reported by `x.layout` / `x._qd_layout` (and its gradient's); indices stay canonical, and the
    storage is then laid out in that order (field.lay_out_by_order), as Quadrants' memory is."""
    if order is None or arr.shape is None:
        return
    ndim = len(arr.shape)
    layout = tuple(ord(c) - ord("i") for c in str(order))
    if sorted(layout) != list(range(ndim)):
        raise ValueError(f"order={order!r} is not a permutation of the field's {ndim} axes "
                         f"({''.join(chr(ord('i') + k) for k in range(ndim))} in some order)")
    if layout == tuple(range(ndim)):
        return
    for a in (arr, arr.adjoints.grad, arr.adjoints.dual):
        if a is not None:
            a._qd_layout = layout
