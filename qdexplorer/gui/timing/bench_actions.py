"""The window's benchmark commands: Bench & save, compare saved runs, Compare with generated.

Kept out of main_window.py (one idea: runs and their comparison). It makes the Compare and
History pages and a toolbar action, which the window lays out, and answers the PTX editor's "Compare with
generated". Measuring runs on the engine thread (through the bridge); reading the history and
computing a comparison of saved runs happen in the GUI thread, with the views' own connection.
The history is the project's (qdexplorer/project/data_folder.py decides where it lives), so
opening another project empties both tabs before they show the new one's runs.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit

from ...bench.compare import compare_runs
from ...bench.history import History
from ...report import build_report, write_report
from ...bench.runner import Side, add_rounds, bench, interleaved
from ...cli.report_cmds import project_arg
from ...ir.errors import QdError
from ...project.data_folder import history_path
from ...session import Session
from .compare_view import CompareView
from .history_view import HistoryView
from ..services import WindowServices
from ...wording import plural

ROUNDS, PER_ROUND = 8, 5      # Compare with generated: 8 × (A, B) rounds of 5 timed repeats each


def _folder(path: str | None) -> Path | None:
    return Path(path) if path else None


class BenchActions(QObject):
    """Bench & save and the Compare and History pages. It builds them and hands them back
    (`bench_act`, `run_name`, `compare`, `hist`) for the window to lay out."""

    def __init__(self, services: WindowServices, parent: QObject | None = None):
        super().__init__(parent)
        self.services = services
        self.history: History | None = None     # opened once the file exists: opening a project writes nothing
        self.history_path = None
        self._runs_before = 0                    # the session's runs when the bench started: the bench's come after
        self.compare = CompareView()
        self.hist = HistoryView()
        self.bench_act = QAction("Bench && save", self)
        self.bench_act.triggered.connect(self.bench)
        self.run_name = QLineEdit()       # the name the next saved run gets (as `bench --save NAME`)
        self.run_name.setPlaceholderText("run name")
        self.run_name.setToolTip("Name for the run Bench & save makes (optional: unnamed runs are #1, #2…); "
                                 "the Compare pickers show it")
        self.run_name.setMinimumWidth(80)    # "run name" readable, not "run …"
        self.run_name.setMaximumWidth(140)
        self.compare.rename_btn.clicked.connect(self._ask_rename)
        self.bench_act.setToolTip("Run the chosen workload(s) with 2 warm-ups and Repeat timed passes, and save "
                                  "the run to the project's history")
        self.compare.compare_requested.connect(self.compare_saved)
        self.compare.add_rounds_requested.connect(self.add_rounds)
        self.hist.run_selected.connect(self._history_point)
        services.bridge.busy.connect(lambda busy: self.bench_act.setEnabled(not busy))
        self.set_session(services.project.session)

    # -- history
    def set_session(self, session: Session):
        session.project_changed.connect(self._project_changed)

    def _project_changed(self, ev):
        path = getattr(ev, "path", None)
        if not path:
            return
        target = history_path(path)
        if self.history_path == target:
            return
        self.history_path = target
        if self.history is not None:
            self.history.close()
            self.history = None
        self.compare.clear()     # the previous project's runs never stay on show
        self.hist.clear()
        self._open()

    def _open(self):
        if self.history is not None or self.history_path is None or not self.history_path.exists():
            return
        try:
            self.history = History(self.history_path)
        except Exception as e:  # noqa: BLE001 - a broken history file must not break the window
            self.history = None
            self.services.messages.log(f"run history unavailable: {e}")
            return
        self.refresh()

    def refresh(self):
        if self.history is None:
            return
        self.compare.set_runs(self.history.list())
        self.hist.set_history(self.history)

    # -- commands
    def bench(self):
        if self.history_path is None:
            self.services.messages.log("no project is open yet")
            return
        choice = self.services.runs.choice()
        workloads, backend, repeat = choice.workloads(), choice.backend, choice.repeat
        path, name = self.history_path, self.run_name.text().strip() or None

        self._runs_before = len(self.services.project.session.runs)

        def job(eng):
            eng.set_backend(backend)
            with History(path) as h:  # its own connection, in the engine thread; batches commit as they stream
                return bench(eng, workloads, repeat=repeat, history=h, name=name)
        self.services.activity.begin("bench")   # never the last Run's workload count
        self.services.activity.status(f"benchmarking {workloads[0] if workloads else 'all workloads'} on "
                                         f"{backend}: 2 warm-ups + {repeat} timed passes…")
        self.services.runs.running(True)
        self.services.bridge.submit(job, returned=self._benched, errored=lambda e: self.services.runs.failed("bench", e))

    def _benched(self, run):
        session = self.services.project.session
        # its rounds (one engine run each) as one run, with the saved run's medians (warm-ups left out)
        session.group(session.runs[self._runs_before:], run.medians("ms"))
        self.services.runs.running(False)
        self.services.activity.end()
        self.services.activity.note(f"bench finished: {plural(len(run.launches), 'launch')} saved as {run.label}")
        self.run_name.clear()
        self.services.messages.log(f"saved run {run.label}: {plural(len(run.launches), 'launch')} of {plural(len(run.tasks()), 'task')} "
                     f"({run.status}{': ' + run.message if run.message else ''})")
        self.services.activity.status(f"saved run {run.label} ({run.status})")
        self._open()
        self.refresh()
        for side in "AB":                 # whichever devices were picked, the lists show every run again
            self.compare.pick_device(side, None)
        n = self.compare.combo_b.count()
        if n >= 2:  # the new run against the one before it, ready to compare
            self.compare.combo_a.setCurrentIndex(n - 2)
            self.compare.combo_b.setCurrentIndex(n - 1)

    def _ask_rename(self):
        ref = self.compare.combo_b.currentData()
        if not ref:
            return
        name, ok = QInputDialog.getText(self.compare, "Rename run", f"New name for run {ref}:", text=str(ref))
        if ok and name.strip():
            self.rename_run(ref, name.strip())

    def rename_run(self, ref: str, name: str) -> bool:
        """Rename a saved run (as `qdexplorer runs --rename`); the pickers then show the new name."""
        if self.history is None:
            return False
        try:
            self.history.rename(ref, name)
        except QdError as e:   # a name another run has, say: said, not raised
            self.services.runs.failed("rename", e)
            return False
        self.refresh()
        self.compare.combo_b.setCurrentIndex(max(0, self.compare.combo_b.findData(name)))
        return True

    def compare_saved(self, a: str, b: str):
        if self.history is None or not a or not b:
            return
        try:
            ra, rb = self.history.load(a), self.history.load(b)
        except Exception as e:  # noqa: BLE001 - shown, never a crash
            self.services.messages.log(f"compare failed: {e}")
            return
        self.show(compare_runs(ra, rb), ra, rb)

    def export_report(self, out: str | None = None) -> None:
        """File ▸ Export A/B Report: the runs picked in Compare as one HTML file (`qdexplorer report`'s page)."""
        a, b = self.compare.combo_a.currentData(), self.compare.combo_b.currentData()
        if self.history_path is None or not a or not b:
            self.services.messages.log("Export report: pick two saved runs (A and B) in the Compare tab first")
            return
        if out is None:
            out, _ = QFileDialog.getSaveFileName(self.compare, "Export A/B report", f"{a}-vs-{b}.html",
                                                 "HTML page (*.html)")
            if not out:
                return
        path, project = self.history_path, self.services.project.path

        def job(eng):
            with History(path) as h:
                ra, rb = h.load(a), h.load(b)
            page = build_report(ra, rb, compare_runs(ra, rb), project_arg=project_arg(project),
                                counters_folder=_folder(eng.cache_info().get("counters_folder")))
            return write_report(out, page)
        self.services.bridge.submit(job, returned=lambda p: self.services.messages.log(f"A/B report written to {p}"),
                                    errored=lambda e: self.services.messages.log(f"Export report failed: {e}"))

    def add_rounds(self, a: str, b: str, rounds: int):
        """Measure `rounds` more rounds of B's workloads now, add them to B (refused for other code), and
        compare A with B again."""
        if self.history_path is None:
            return
        path, backend = self.history_path, self.services.runs.choice().backend

        def job(eng):
            eng.set_backend(backend)
            with History(path) as h:
                return add_rounds(eng, h, b, rounds)

        def done(run):
            self.services.runs.running(False)
            self.services.activity.end()
            self.services.activity.note(f"rounds added: {run.label} now has {plural(run.context.rounds or 0, 'round')}")
            self.services.activity.status(f"added {rounds} round{'s' if rounds != 1 else ''} to {run.label}: "
                                             f"now {run.context.rounds} rounds")
            self._open()
            self.refresh()
            self.compare_saved(a, b)

        def failed(e):
            self.services.activity.end()
            self.compare.add_btn.setEnabled(True)
            self.services.runs.failed("add rounds", e)
        self.services.activity.begin("adding rounds")
        self.services.activity.status(f"adding {rounds} round{'s' if rounds != 1 else ''} to {b}…")
        self.services.runs.running(True)
        self.services.bridge.submit(job, returned=done, errored=failed)

    def _history_point(self, run_id: int):
        """A point in the history view: compare that run (A) with the latest (B)."""
        summaries = self.history.list() if self.history else []
        if not summaries:
            return
        a = next((s.label for s in summaries if s.id == run_id), None)
        if a is not None:
            for side in "AB":
                self.compare.pick_device(side, None)
            self.compare.combo_a.setCurrentIndex(max(0, self.compare.combo_a.findData(a)))
            self.compare.combo_b.setCurrentIndex(len(summaries) - 1)

    def compare_generated(self, task: str) -> bool:
        """Interleave the generated code and the task's override on CUDA. On the CPU backend it is
        refused, with the reason: both sides would run the same host code (the window's overrides
        are PTX or GPU LLVM IR), so any verdict would be noise. False when refused."""
        kernel = self.services.project.session.kernel_of(task)
        backend = self.services.runs.choice().backend
        if backend != "cuda":
            why = (f"not comparing {task}: its override is GPU code (PTX or LLVM IR for the GPU), and the "
                   f"{backend} backend runs host code built from the source on both sides, so there is "
                   "nothing to compare; choose the cuda backend")
            self.services.messages.log(why)
            self.services.activity.status(why)
            return False

        def job(eng):
            eng.set_backend(backend)
            workloads = [w.name for w in eng.project.workloads_for(kernel)] if kernel else []
            if not workloads:
                raise QdError(f"no workload runs kernel {kernel}: add a @qd.workload for it to time {task}")
            gen = Side("generated", eng, variant={"hide_overrides": task})
            ovr = Side("override", eng)
            return interleaved(gen, ovr, workloads[:1], rounds=ROUNDS, per_round=PER_ROUND)
        self.services.activity.status(f"comparing {task}: generated vs override, {ROUNDS} interleaved rounds…")
        self.services.runs.running(True)
        self.services.bridge.submit(job, returned=lambda runs: self._compared_fresh(task, runs),
                               errored=lambda e: self.services.runs.failed("compare", e))
        return True

    def _compared_fresh(self, task, runs):
        self.services.runs.running(False)
        ra, rb = runs
        cmp = compare_runs(ra, rb)  # interleaved: a lower threshold than for separate runs
        self.show(cmp, ra, rb, saved=False)
        self.compare.select_task(task)
        row = next((t for t in cmp.tasks if t.task == task), None)
        if row is not None:
            self.services.activity.status(f"{task}: override is {row.verdict} "
                                             f"({row.ratio:.3f}× generated, 95% CI {row.ci[0]:.3f}–{row.ci[1]:.3f})")

    def show(self, cmp, ra, rb, saved: bool = True):
        self.compare.show_comparison(cmp, ra, rb, saved)
        self.services.pages.show(self.compare)
