"""Zeroed storage that commits memory only where it is written.

Sparse SNodes (pointer, bitmasked, dynamic) are stored densely at their full capacity (snode.py),
which for taichi_elements-sized trees is hundreds of GiB. Quadrants allocates such cells lazily;
here a large array is an anonymous private mapping with MAP_NORESERVE: the kernel hands out a
zero page only when a page is first touched, so inactive cells cost address space, not memory.
Zeroing it again (a deactivation) returns its pages with MADV_DONTNEED instead of writing zeros,
which would commit every page.
"""
from __future__ import annotations

import mmap

import numpy as np

LAZY_BYTES = 1 << 30          # arrays this large or larger are reserved lazily
LAZY_SPARSE_BYTES = 1 << 20   # ... and fields under sparse SNodes this large: deactivate_all costs their active pages
MAX_RESERVE = 1 << 45         # 32 TiB: the most one array may reserve (x86-64 user space is 128 TiB)
_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)


def lazy_zeros(n: int, dtype: np.dtype, sparse: bool = False) -> np.ndarray:
    """A zeroed 1-d array of `n` elements: np.zeros below LAZY_BYTES (LAZY_SPARSE_BYTES for a field
    under a sparse SNode, which `deactivate_all()` zeroes again and again), else a lazily committed
    mapping. MemoryError past MAX_RESERVE (the caller names the field and what to do)."""
    nbytes = int(n) * dtype.itemsize
    if nbytes < (LAZY_SPARSE_BYTES if sparse else LAZY_BYTES):
        return np.zeros(n, dtype)
    if nbytes > MAX_RESERVE:
        raise MemoryError(f"{nbytes} bytes is more than one array may reserve ({MAX_RESERVE} bytes)")
    try:
        m = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _NORESERVE)
    except (OSError, ValueError) as e:
        raise MemoryError(str(e)) from None
    return np.frombuffer(m, dtype, n)


def _mapping(a: np.ndarray):
    """The mmap under a view of lazily reserved storage, else None."""
    b = a
    while isinstance(b, np.ndarray):
        b = b.base
    if isinstance(b, memoryview):
        b = b.obj
    return b if isinstance(b, mmap.mmap) else None


def zero(a: np.ndarray) -> None:
    """`a[...] = 0`; for lazily reserved storage its pages go back (they read zero again) when `a`
    covers the whole mapping but for the slack around it."""
    m = _mapping(a)
    if m is None or a.nbytes < len(m) // 2:
        a[...] = 0
        return
    m.madvise(mmap.MADV_DONTNEED)


def is_lazy(a: np.ndarray) -> bool:
    return _mapping(a) is not None
