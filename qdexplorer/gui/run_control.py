"""Run, Stop and what the status bar counts while something runs: the window's run state.

A part of its own because the Run command, the Stop button, the busy toggling of the commands,
the progress line ("workload 2/3 particles: task 4/5, launch 6/10") and the end-of-run summary
all read and write the same few things: the workloads asked for, the activity being counted (a
Run, a bench, a sweep) and the Stop button. The window lays out its progress bar and label; the
Bench and Sweep helpers reach it through `WindowServices`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QLabel, QProgressBar

from ..session import RunRecord
from .bridge import EngineBridge
from .menus import MenuActions
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
    """Owns the progress bar and its label (`progress`, `label`), the names of the workloads a Run
    asked for and the activity counted; `overrides_in_use()` says whether any task runs an override."""

    def __init__(self, bridge: EngineBridge, actions: MenuActions, toolbar: RunToolbar,
                 status: Callable[[str], None], log: Callable[[str], None], overrides_in_use: Callable[[], bool],
                 parent: QObject | None = None):
        super().__init__(parent)
        self.bridge, self.actions, self.toolbar = bridge, actions, toolbar
        self.status, self.log, self.overrides_in_use = status, log, overrides_in_use
        self.names: list[str] = []   # the workloads of the last Run, in the combo's order
        self.activity = ""   # "bench", "sweep"…: what the status bar's progress counts, when not a Run
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setRange(0, 0)
        self.progress.hide()
        self.label = QLabel("")
        self.label.setMinimumWidth(60)  # a long progress line is clipped, never widens the window

    def run(self):
        tb = self.toolbar
        name = tb.workload.currentText()
        backend, repeat = tb.backend.currentText(), tb.repeat.value()
        # every workload in the combo's order, named, so the progress line counts in the order shown
        self.activity = ""
        self.names = [name] if name not in ("", "all workloads") else \
            [tb.workload.itemText(i) for i in range(1, tb.workload.count())]
        workloads = list(self.names)

        def job(eng):
            eng.set_backend(backend)
            return eng.run(workloads, repeat=repeat)
        self.status(f"running {name or 'all workloads'} on {backend} ×{repeat}…")
        self.actions.stop.setEnabled(True)
        self.bridge.submit(job, returned=self._ran, errored=lambda e: self.failed("run", e))

    def stop(self):
        self.bridge.stop()
        self.status("stopping after the launch in flight…")

    def _ran(self, results):
        self.actions.stop.setEnabled(False)
        self.status(run_summary(results, len(self.names)))
        if self.toolbar.backend.currentText() != "cuda" and self.overrides_in_use():
            self.log("note: PTX overrides take effect on CUDA only; the CPU backend ran host code from the source")

    def finished(self, rec: RunRecord):
        """A workload's verdict, in Messages."""
        r = rec.result
        if r is None:
            return
        detail = r.check_error or r.error or r.skipped
        self.log(f"{r.status.upper():8} {r.workload} ({r.kernel}, {r.backend})" + (f": {detail}" if detail else ""))

    def show_progress(self, rec, *_):
        n = max(1, len(rec.tasks))
        done = rec.launches
        total = n * rec.repeat
        wl = (f"workload {self.names.index(rec.workload) + 1}/{len(self.names)} "
              if rec.workload in self.names and len(self.names) > 1 else "")
        wl = f"{self.activity}: {wl}" if self.activity else wl
        task_i = min(n, done % n + 1) if done < total else n
        launch_i = min(rec.repeat, done // n + (1 if done < total else 0))
        self.label.setText(f"{wl}{rec.workload}: task {task_i}/{n}, launch {launch_i}/{rec.repeat}"
                           + ("" if rec.status == "running" else f" ({rec.status})"))
        self.progress.setRange(0, total)
        self.progress.setValue(min(done, total))
        self.progress.setVisible(rec.status == "running")

    def failed(self, what, error: Exception):
        self.actions.stop.setEnabled(False)
        self.activity = ""
        message = error_text(error)
        self.log(f"{what} failed: {message}")
        self.status(f"{what} failed: {message.splitlines()[0] if message else ''}")

    def choice(self) -> RunChoice:
        tb = self.toolbar
        return RunChoice(tb.workload.currentText(), tb.backend.currentText(), tb.repeat.value())

    def choose_backend(self, backend: str) -> None:
        """The Backend selector's choice, where it offers `backend`."""
        if self.toolbar.backend.findText(backend) >= 0:
            self.toolbar.backend.setCurrentText(backend)

    def begin(self, name: str) -> None:
        """A bench, a sweep…: what the status bar's progress counts, instead of the last Run's workloads."""
        self.names, self.activity = [], name

    def end(self) -> None:
        self.activity = ""

    @Slot(bool)
    def busy(self, busy):
        if busy and self.progress.maximum() == 0:
            self.progress.setVisible(True)
        elif not busy:
            self.progress.setVisible(False)
            self.progress.setRange(0, 0)
        for act in (self.actions.compile, self.actions.run, self.actions.reload):
            act.setEnabled(not busy)
