"""Registers, spills and occupancy of every task on any machine, asked of the engine once per PTX.

The figures are the engine's: `TaskCode.resources(task)` (as `engine.code`) runs `ptxas -v` at the task's block size
(the rule lives on the task's LaunchSpec) and reports a ResourcesEstimated event, which the
session folds in beside the driver's figures from a CUDA load (those win). This object only
decides when to ask: once for each PTX text a task has in use, so a recompile served from the
cache, or the event the answer itself causes, asks nothing again. It keeps no figures.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from ..compiler import ptxas
from ..session import Session
from .bridge import EngineBridge


class ResourceMeter(QObject):
    failed = Signal(str, object)     # (task, Exception): no figures for it; its cells stay empty

    def __init__(self, bridge: EngineBridge, session: Session, parent: QObject | None = None):
        super().__init__(parent)
        self.bridge = bridge
        self.available = ptxas.find_ptxas() is not None
        self._asked: dict[str, int] = {}     # task -> hash of the PTX last asked about
        self.set_session(session)

    def set_session(self, session: Session) -> None:
        self.session = session
        self._asked.clear()
        session.task_changed.connect(self.task_changed)

    def task_changed(self, task: str) -> None:
        ct = self.session.compiled_task(task, "nvptx")
        if not self.available or ct is None or not ct.ok or not ct.ptx:
            return
        key = hash((ct.ptx, ct.arch))
        if self._asked.get(task) == key:
            return
        self._asked[task] = key
        self.bridge.submit(lambda eng: eng.code.resources(task), errored=lambda e: self.failed.emit(task, e), quiet=True)
