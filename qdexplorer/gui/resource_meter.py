"""Registers, spills and occupancy of every task on any machine: `ptxas -v` on a background thread.

On a GPU the CUDA backend reports resources after a load (the driver's figures, which win); without
one, the generated PTX (or the override) is assembled with ptxas and the occupancy calculator turns
registers + shared memory + the launch's block size into an occupancy. Results are cached on the
PTX text and block size, so a recompile served from the cache costs nothing here either.
"""
from __future__ import annotations

import hashlib

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from ..compiler import ptxas

DEFAULT_BLOCK = 128  # the CUDA backend's block size for loops without loop_config(block_dim=...)


def block_of(spec) -> int:
    if spec is None:
        return DEFAULT_BLOCK
    return 1 if spec.serial else (spec.block_dim or DEFAULT_BLOCK)


class _Job(QRunnable):
    def __init__(self, meter, task, key, ptx, block, arch):
        super().__init__()
        self.meter, self.task, self.key, self.ptx, self.block, self.arch = meter, task, key, ptx, block, arch

    def run(self):
        try:
            res = ptxas.task_resources(self.ptx, self.task, self.block, self.arch)
        except Exception as e:  # noqa: BLE001 - no ptxas, a timeout: shown as the cell's tooltip
            res = {"source": "ptxas", "error": str(e)}
        try:
            self.meter._done.emit(self.task, self.key, res)
        except RuntimeError:  # the window closed while ptxas ran
            pass


class ResourceMeter(QObject):
    measured = Signal(str)               # task whose figures are now known
    _done = Signal(str, str, object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.available = ptxas.find_ptxas() is not None
        self.results: dict[str, dict] = {}      # task -> latest figures
        self._cache: dict[str, dict] = {}       # key(ptx, block) -> figures
        self._wanted: dict[str, str] = {}       # task -> key of the newest request
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(2)
        self._done.connect(self._finished)

    def measure(self, task: str, ptx: str, spec=None, arch: str | None = None):
        if not self.available or not ptx:
            return
        block = block_of(spec)
        key = hashlib.sha256(f"{block}\0{arch}\0{ptx}".encode()).hexdigest()
        if self._wanted.get(task) == key:
            return
        self._wanted[task] = key
        if key in self._cache:
            self._finished(task, key, self._cache[key])
            return
        self.pool.start(_Job(self, task, key, ptx, block, arch))

    def _finished(self, task, key, res):
        self._cache[key] = res
        if self._wanted.get(task) == key:
            self.results[task] = res
            self.measured.emit(task)

    def wait(self, ms: int = 30000) -> bool:
        return self.pool.waitForDone(ms)

    def shutdown(self):
        """Drop queued measurements and let the running ones finish (ptxas takes milliseconds)."""
        self.pool.clear()
        self.pool.waitForDone(2000)
