"""Workload arrays shared between the app and the device worker without pickled copies.

The app process builds a workload's inputs once and writes them into one memory-mapped file
(in /dev/shm when it has room, else the temp folder); the worker maps the same file. Only the
layout (names, offsets, shapes, dtypes) crosses the pipe, so the worker never imports the
project and large arrays are never serialised.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass

import numpy as np

ALIGN = 256


@dataclass(frozen=True)
class Layout:
    path: str
    size: int
    fields: tuple[tuple[str, int, tuple[int, ...], str], ...]   # (name, offset, shape, dtype)


def _folder(nbytes: int) -> str:
    shm = "/dev/shm"
    try:
        if os.path.isdir(shm) and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > 2 * nbytes + (64 << 20):
            return shm
    except OSError:
        pass
    return tempfile.gettempdir()


class SharedArrays:
    def __init__(self, layout: Layout, mm: np.memmap, owner: bool):
        self.layout, self.owner = layout, owner
        self._mm: np.memmap | None = mm

    @classmethod
    def create(cls, arrays: dict[str, np.ndarray]) -> "SharedArrays":
        fields, off = [], 0
        for name, a in arrays.items():
            fields.append((name, off, tuple(a.shape), a.dtype.str))
            off += -(-max(1, a.nbytes) // ALIGN) * ALIGN
        size = max(off, ALIGN)
        fd, path = tempfile.mkstemp(prefix="qdexplorer-arrays-", dir=_folder(size))
        try:
            os.ftruncate(fd, size)
        finally:
            os.close(fd)
        layout = Layout(path, size, tuple(fields))
        sa = cls(layout, np.memmap(path, np.uint8, "r+", shape=(size,)), owner=True)
        for name, a in arrays.items():
            sa.array(name)[...] = a
        return sa

    @classmethod
    def attach(cls, layout: Layout) -> "SharedArrays":
        return cls(layout, np.memmap(layout.path, np.uint8, "r+", shape=(layout.size,)), owner=False)

    def array(self, name: str) -> np.ndarray:
        if self._mm is None:  # np.ndarray(buffer=None) would hand out fresh memory, not ours
            raise ValueError(f"shared arrays {self.layout.path} are closed")
        for n, off, shape, dt in self.layout.fields:
            if n == name:
                dtype = np.dtype(dt)
                count = int(np.prod(shape)) if shape else 1
                return np.ndarray(shape, dtype, buffer=self._mm, offset=off) if count else np.empty(shape, dtype)
        raise KeyError(name)

    def arrays(self) -> dict[str, np.ndarray]:
        return {n: self.array(n) for n, *_ in self.layout.fields}

    def close(self) -> None:
        """Drop our mapping (views still alive keep theirs) and remove the file if we made it."""
        self._mm = None
        if self.owner:
            try:
                os.unlink(self.layout.path)
            except OSError:
                pass
