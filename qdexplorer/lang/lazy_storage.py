"""Zeroed storage that commits memory only where it is written.

Sparse SNodes (pointer, bitmasked, dynamic) are stored densely at their full capacity (snode.py),
which for taichi_elements-sized trees is hundreds of GiB. Quadrants allocates such cells lazily;
here a large array is an anonymous private mapping with MAP_NORESERVE: the kernel hands out a
zero page only when a page is first touched, so inactive cells cost address space, not memory.
Zeroing it again (a deactivation) returns its pages with MADV_DONTNEED instead of writing zeros,
which would commit every page.
"""
from __future__ import annotations

import ctypes
import weakref

import numpy as np

LAZY_BYTES = 1 << 30          # arrays this large or larger are reserved lazily
LAZY_SPARSE_BYTES = 1 << 20   # ... and fields under sparse SNodes this large: deactivate_all costs their active pages
MAX_RESERVE = 1 << 45         # 32 TiB: the most one array may reserve (x86-64 user space is 128 TiB)
_PROT_RW, _MAP_PRIVATE_ANON_NORESERVE, _MADV_DONTNEED = 0x3, 0x02 | 0x20 | 0x4000, 4
# Reservations are placed from 16 TiB up (a hint), far below the shared libraries: mmap's usual
# top-down placement would put terabytes between them and the kernels the JIT maps later, past
# the +-2 GiB its code reaches them by (RuntimeDyld: "isInt<32>(RealOffset)" fails)
_next_hint = [1 << 44]
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_reserved: "weakref.WeakValueDictionary[int, ctypes.Array]" = weakref.WeakValueDictionary()  # id -> mapping


def _reserve(nbytes: int) -> ctypes.Array:
    size = -(-nbytes // mmap_page) * mmap_page
    addr = _libc.mmap(ctypes.c_void_p(_next_hint[0]), size, _PROT_RW, _MAP_PRIVATE_ANON_NORESERVE, -1, 0)
    if addr is None or addr == ctypes.c_void_p(-1).value:
        raise MemoryError(f"cannot reserve {size} bytes of address space (errno {ctypes.get_errno()})")
    if addr == _next_hint[0]:
        _next_hint[0] += size + mmap_page  # a guard gap
    buf = (ctypes.c_char * size).from_address(addr)
    weakref.finalize(buf, _libc.munmap, addr, size)
    _reserved[id(buf)] = buf
    return buf


mmap_page = 1 << 21  # reservations are whole 2 MiB pages


def lazy_zeros(n: int, dtype: np.dtype, sparse: bool = False) -> np.ndarray:
    """A zeroed 1-d array of `n` elements: np.zeros below LAZY_BYTES (LAZY_SPARSE_BYTES for a field
    under a sparse SNode, which `deactivate_all()` zeroes again and again), else a lazily committed
    mapping. MemoryError past MAX_RESERVE (the caller names the field and what to do)."""
    nbytes = int(n) * dtype.itemsize
    if nbytes < (LAZY_SPARSE_BYTES if sparse else LAZY_BYTES):
        return np.zeros(n, dtype)
    if nbytes > MAX_RESERVE:
        raise MemoryError(f"{nbytes} bytes is more than one array may reserve ({MAX_RESERVE} bytes)")
    return np.frombuffer(memoryview(_reserve(nbytes)), dtype, n)


def _mapping(a: np.ndarray):
    """The reservation under a view of lazily reserved storage, else None."""
    b: object = a
    while isinstance(b, np.ndarray):
        b = b.base
    if isinstance(b, memoryview):
        b = b.obj
    return b if isinstance(b, ctypes.Array) and _reserved.get(id(b)) is b else None


def zero(a: np.ndarray) -> None:
    """`a[...] = 0`; for lazily reserved storage its pages go back (they read zero again) when `a`
    covers the whole mapping but for the slack around it."""
    m = _mapping(a)
    if m is None or a.nbytes < ctypes.sizeof(m) // 2:
        a[...] = 0
        return
    _libc.madvise(ctypes.addressof(m), ctypes.sizeof(m), _MADV_DONTNEED)


def is_lazy(a: np.ndarray) -> bool:
    return _mapping(a) is not None
