"""Run, Stop and the Run toolbar's choices: the window's run state.

A part of its own because the Run command, the Stop button, the busy toggling of the commands and
the end-of-run summary read and write the same few things: the workloads asked for, the toolbar's
choices and the Stop button. What the status bar says and counts is the Activity part's
(gui/parts.py); the Bench, Cluster and Sweep helpers hold this part as `WindowServices.runs`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Slot

from ..session import RunRecord
from .bridge import EngineBridge
from .parts import Activity, Messages
from .plumbing.workers import error_text
from .run_toolbar import RunToolbar


def run_summary(results, asked: int) -> str:
    """The status line after a run. A stopped run says how far it got and that its timings are kept,
    and names failures only when there are some ("1/2 passed" after a Stop read like a failure)."""
    bad = [r for r in results if r.status in ("failed", "error")]
    skipped = sum(r.status == "skipped" for r in results)
    problems = (f"; {len(bad)} failed: {', '.join(r.workload for r in bad[:3])}" if bad else "") + \
        (f"; {skipped} skipped on this backend" if skipped else "")
    if any(r.status == "stopped" for r in results) or len(results) < asked:
        done = sum(r.status != "stopped" for r in results)
        return (f"run stopped by you: {done} of {asked} workload{'s' if asked != 1 else ''} finished, the "
                f"timings measured until then are kept{problems}")
    passed = sum(r.status == "passed" for r in results)
    return f"run finished: {passed}/{asked} passed{problems}"


@dataclass(frozen=True)
class RunChoice:
    """The Run toolbar's settings when a command reads them."""
    workload: str      # '' or 'all workloads': every one
    backend: str
    repeat: int

    def workloads(self) -> list[str] | None:
        """The workload asked for, or None for all of them."""
        return None if self.workload in ("", "all workloads") else [self.workload]


class RunControl(QObject):
    """Run and Stop; the Run toolbar's choices as a `RunChoice`; `running(on)` the Stop button while a
    command runs, `failed(what, error)` its end in failure. `overrides_in_use()` says whether any task
    runs an override. The progress it counts is the Activity part's."""

    def __init__(self, bridge: EngineBridge, toolbar: RunToolbar, activity: Activity, messages: Messages,
                 overrides_in_use: Callable[[], bool], parent: QObject | None = None):
        super().__init__(parent)
        self.bridge, self.toolbar, self.activity, self.messages = bridge, toolbar, activity, messages
        self.overrides_in_use = overrides_in_use
        self.asked = 0   # workloads the last Run asked for

    def run(self):
        tb = self.toolbar
        name = tb.workload.currentText()
        backend, repeat = tb.backend.currentText(), tb.repeat.value()
        # every workload in the combo's order, named, so the progress line counts in the order shown
        workloads = [name] if name not in ("", "all workloads") else \
            [tb.workload.itemText(i) for i in range(1, tb.workload.count())]
        self.activity.run(workloads)
        self.asked = len(workloads)

        def job(eng):
            eng.set_backend(backend)
            return eng.run(workloads, repeat=repeat)
        self.activity.status(f"running {name or 'all workloads'} on {backend} ×{repeat}…")
        self.running(True)
        self.bridge.submit(job, returned=self._ran, errored=lambda e: self.failed("run", e))

    def stop(self):
        self.bridge.stop()
        self.activity.status("stopping after the launch in flight…")

    def _ran(self, results):
        self.running(False)
        self.activity.status(run_summary(results, self.asked))
        if self.toolbar.backend.currentText() != "cuda" and self.overrides_in_use():
            self.messages.log("note: PTX overrides take effect on CUDA only; the CPU backend ran host code from the source")

    def finished(self, rec: RunRecord):
        """A workload's verdict, in Messages."""
        r = rec.result
        if r is None:
            return
        detail = r.check_error or r.error or r.skipped
        self.messages.log(f"{r.status.upper():8} {r.workload} ({r.kernel}, {r.backend})" + (f": {detail}" if detail else ""))

    def running(self, on: bool) -> None:
        """A command (Run, a bench, a compare) runs: Stop may end it."""
        self.toolbar.stop.setEnabled(on)

    def failed(self, what, error: Exception):
        self.running(False)
        self.activity.end()
        message = error_text(error)
        self.messages.log(f"{what} failed: {message}")
        self.activity.status(f"{what} failed: {message.splitlines()[0] if message else ''}")

    def choice(self) -> RunChoice:
        tb = self.toolbar
        return RunChoice(tb.workload.currentText(), tb.backend.currentText(), tb.repeat.value())

    def choose_backend(self, backend: str) -> None:
        """The Backend selector's choice, where it offers `backend`."""
        if self.toolbar.backend.findText(backend) >= 0:
            self.toolbar.backend.setCurrentText(backend)

    @Slot(bool)
    def busy(self, busy):
        self.activity.busy(busy)
        tb = self.toolbar
        for act in (tb.compile, tb.run, tb.reload):
            act.setEnabled(not busy)
