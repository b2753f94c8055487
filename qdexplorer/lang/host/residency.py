"""Where a field's or ndarray's data is current: its host storage, its device copy, or both.

When scripts run on CUDA, the backend gives each array a *mirror* (a device buffer) at its first
kernel call, and the data then stays on the device between calls. Python-side access (indexing,
`to_numpy`) copies back only when a kernel wrote the device copy since, and a kernel call uploads
only when Python wrote the host side since. Each `Storage` holds one `Residency` (`x.residency`);
the script layer, which runs kernels on the device copy, talks to it (`attach`, `on_device`,
`device_written`, `detach`, `drop`), and every host-side write says `host_written()`.
The language never imports the backend: a mirror is any object with `upload(host)`,
`download(host)`, `read(host, offset)` and `fill(value, dtype) -> bool` (`Mirror`).
"""
from __future__ import annotations

import weakref
from typing import Protocol

import numpy as np

from ...ir.errors import QdRuntimeError


class Mirror(Protocol):
    """A field's or ndarray's device copy, as the backend that made it provides it."""
    backend: object     # the backend (and so the context) it lives in
    ptr: int            # its device address

    def upload(self, host: np.ndarray) -> None: ...

    def download(self, host: np.ndarray) -> None: ...

    def read(self, host: np.ndarray, offset: int) -> None: ...  # `host.nbytes` from byte `offset`

    def fill(self, value, dtype) -> bool: ...


class Residency:
    """The residency of one array: `mirror` (its device copy, None while it has none) and `where`
    ("host", "device" or "both": which copy is current). It holds its array weakly, so an array
    dropped by the program is freed at once, as before it had a residency."""

    def __init__(self, owner):
        self._owner = weakref.ref(owner)
        self.mirror: Mirror | None = None
        self.where = "host"

    def __getstate__(self) -> dict:
        """Pickled with its array (a pickled field or ndarray keeps its residency, as it kept its state)."""
        return {"owner": self._owner(), "mirror": self.mirror, "where": self.where}

    def __setstate__(self, state: dict) -> None:
        self._owner = weakref.ref(state["owner"])
        self.mirror, self.where = state["mirror"], state["where"]

    def _array(self):
        owner = self._owner()
        assert owner is not None, "the array of this residency was garbage-collected"
        return owner

    def host(self) -> np.ndarray:
        """The host storage, brought up to date from the device copy if a kernel wrote that last."""
        storage = self._array().storage
        if self.where == "device" and self.mirror is not None:
            self.mirror.download(storage)
            self.where = "both"
        return storage

    def host_written(self) -> None:
        """Python wrote the host storage: the device copy (if any) is stale until the next upload."""
        if self.mirror is not None:
            self.where = "host"

    def device_written(self) -> None:
        """A kernel may have written the device copy: the host side is stale until it is read."""
        self.where = "device"

    def attach(self, mirror: Mirror, zeroed: bool = False) -> None:
        """Take `mirror` as the device copy, once the data is home from any earlier one. `zeroed`:
        just allocated (zeros on both sides), so the copy is current without a transfer."""
        storage = self.host()
        self.mirror, self.where = mirror, "host"
        if zeroed and mirror.fill(0, storage.dtype):
            self.where = "both"

    def on_device(self) -> Mirror:
        """The device copy, made current first where Python wrote the host side last: a kernel
        is about to use it."""
        if self.mirror is None:
            a = self._array()
            raise QdRuntimeError(f"{type(a).__name__.lower()} {a.name or ''} has no device copy to run on")
        if self.where == "host":
            self.mirror.upload(self._array().storage)
            self.where = "both"
        return self.mirror

    def detach(self) -> None:
        """Bring the data home and forget the device copy (the backend that owns it is closing)."""
        self.host()
        self.mirror, self.where = None, "host"

    def drop(self) -> None:
        """Forget the device copy without copying back (its context faulted: nothing can come home)."""
        self.mirror, self.where = None, "host"

    def fill_on_device(self, value, dtype) -> bool:
        """Fill the device copy with `value` where it has one and its pattern allows (then it alone
        is current, and no copy moves either way); False: fill the host side instead."""
        if self.mirror is not None and self.mirror.fill(value, dtype):
            self.where = "device"
            return True
        return False

    def read_cell(self, cell: np.ndarray, flat: int) -> bool:
        """Refresh `cell` (one element of the host storage, at element offset `flat` in memory) from
        the device copy alone, where that copy is the current one; False where it is not."""
        if self.where != "device" or self.mirror is None:
            return False
        self.mirror.read(cell, flat * cell.itemsize)
        return True
