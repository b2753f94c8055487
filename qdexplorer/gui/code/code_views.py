"""What the selected task compiles to: its source beside its LLVM IR (as generated and optimised), PTX,
SASS and compile log.

The source pane shows the task's whole file with the task's lines banded, always in view beside
the tabs. When the PTX carries `.loc` line info, selecting a PTX line bands its source line and
selecting a source line bands its PTX lines. The PTX tab is the editing loop (`ptx_panel.PtxPanel`).
Optimised IR and SASS cost a compile-pool round trip or a ptxas + nvdisasm run, so they are asked
for (signals) only when their tab is opened; the window answers with `show_optimised` / `show_sass`.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QSplitter, QTabWidget, QVBoxLayout,
                               QWidget)

from ...compiler.ptx_lines import LineMap, line_map
from ...session import Selection, Session
from ...counters.report import ptx_sha
from ..counters_view import CountersView, line_heat as _heat
from .editor import EditorPane
from .ptx_panel import PtxPanel
from .sass_panel import SassPanel


def _titled(title: str, pane: QWidget, tip: str = "") -> QWidget:
    w = QWidget()
    v = QVBoxLayout(w)
    v.setContentsMargins(0, 0, 0, 0)
    v.setSpacing(2)
    label = QLabel(title)
    label.setToolTip(tip)
    label.setMinimumWidth(40)
    label.setContentsMargins(4, 2, 4, 0)
    v.addWidget(label)
    v.addWidget(pane, 1)
    w.label = label
    return w


class CodeViews(QSplitter):
    """The task's source on the left, always in view, and what it compiles to in tabs on the right
    (LLVM IR, PTX, SASS, Compile log), as Compiler Explorer lays them out: the line mapping between
    source and PTX works both ways without flipping tabs."""
    save_override = Signal(str, str)   # (task, ptx text)
    revert_override = Signal(str)      # task
    want_optimised = Signal(str)       # task: the window compiles its optimised IR and calls show_optimised
    want_sass = Signal(str, str, bool)  # (task, arch, diff): the window disassembles and calls show_sass
                                        # (diff: the SASS of the generated and the in-use PTX, sass_panel.show_diff)
    compare_generated = Signal(str)    # task: time its override against the generated code (bench_actions)
    save_ll_override = Signal(str, str)  # (task, LLVM IR text for the nvptx target)

    def __init__(self, session: Session, parent=None):
        super().__init__(Qt.Horizontal, parent)
        self.tabs = QTabWidget()
        self.session: Session | None = None   # the one followed (_follow)
        self.task: str | None = None
        self.task_obj = None
        self.lines = LineMap()
        self.source_pane = EditorPane("python", True)
        self.source = self.source_pane.editor
        self.llvm_pane = EditorPane("llvm", False)   # editable: an edit runs as the task's LLVM-IR override
        self.llvm = self.llvm_pane.editor
        self.opt_pane = EditorPane("llvm", True)
        self.opt_llvm = self.opt_pane.editor
        ir = QSplitter(Qt.Vertical)   # generated above optimised: each gets the pane's full width
        ll_box = _titled("as generated (editable)", self.llvm_pane, "the module text codegen makes (GPU target); "
                         "the caches key on it. An edit is verified, compiled to PTX and loaded")
        self.ll_label = QLabel("generated LLVM IR (GPU target)")
        self.ll_label.setMinimumWidth(40)
        self.save_ll_btn = QPushButton("Run this LLVM IR")
        self.save_ll_btn.setToolTip("Saves <project>/.qdexplorer/overrides/<task>.ll for the GPU target; it is "
                                    "verified (errors at their line) and compiled to PTX at the next compile")
        self.revert_ll_btn = QPushButton("Revert")
        self.revert_ll_btn.setToolTip("Back to the generated LLVM IR (deletes the task's overrides)")
        ll_bar = QHBoxLayout()
        ll_bar.addWidget(self.ll_label, 1)
        ll_bar.addWidget(self.save_ll_btn)
        ll_bar.addWidget(self.revert_ll_btn)
        ll_box.layout().addLayout(ll_bar)
        ir.addWidget(ll_box)
        self.opt_box = _titled("optimised (-O3)", self.opt_pane, "after LLVM's -O3 pipeline: what the PTX is made from")
        ir.addWidget(self.opt_box)
        self.ir_split = ir
        self.ptx_panel = PtxPanel(session)
        self.ptx = self.ptx_panel.editor
        self.sass_panel = SassPanel()   # arch picker, SASS with its PTX·source gutter, diff vs generated
        self.sass_pane = self.sass_panel
        self.sass = self.sass_panel.editor
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.log.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))  # its columns line up
        self.resources_label = QLabel("")
        self.resources_label.setToolTip("From the driver after a CUDA load, else from ptxas -v and the occupancy "
                                        "calculator")
        self.resources_label.setContentsMargins(6, 0, 6, 0)
        self.resources_label.setMinimumWidth(1)
        # a row of its own under the PTX status line: beside the buttons it was cut to "0 B lmer" at 1400 px
        panel = self.ptx_panel.layout()
        panel.insertWidget(panel.indexOf(self.ptx_panel.state) + 1, self.resources_label)
        self.addWidget(self.source_pane)
        self.addWidget(self.tabs)
        self.setStretchFactor(0, 1)
        self.setStretchFactor(1, 1)
        self.setChildrenCollapsible(False)
        self.tabs.addTab(ir, "LLVM IR")
        self.tabs.addTab(self.ptx_panel, "PTX")
        self.tabs.addTab(self.sass_pane, "SASS")
        self.tabs.addTab(self.log, "Compile log")
        self.counters = CountersView()
        self.tabs.addTab(self.counters, "Counters")
        self.tabs.setCurrentWidget(self.ptx_panel)
        self.compare_btn = QPushButton("Compare…")
        self.compare_btn.setToolTip("Compare with generated: time the override against the generated PTX, "
                                    "interleaved round by round")
        self.compare_btn.setEnabled(False)
        self.compare_btn.clicked.connect(lambda: self.task and self.compare_generated.emit(self.task))
        self.ptx_panel.bar.addWidget(self.compare_btn)
        self.save_btn = self.ptx_panel.save_btn
        self.revert_btn = self.ptx_panel.revert_btn
        self.override_label = self.ptx_panel.state
        self.ptx_panel.save_requested.connect(self.save_override)
        self.ptx_panel.revert_requested.connect(self.revert_override)
        self.ptx.line_selected.connect(self._ptx_line_selected)
        self.source.line_selected.connect(self._source_line_selected)
        self.sass_panel.line_selected.connect(self._sass_line_selected)
        self.sass_panel.want.connect(self.want_sass)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.save_ll_btn.clicked.connect(
            lambda: self.task and self.save_ll_override.emit(self.task, self.llvm.toPlainText()))
        self.revert_ll_btn.clicked.connect(self._revert_ll)
        self.llvm.textChanged.connect(self._ll_edited)
        self._opt_for = None
        self._compiled_key = None
        self._loading = False
        self._follow(session)

    # ---- what the window shows
    def set_session(self, session: Session):
        self.task = self.task_obj = None
        self.ptx_panel.set_session(session)
        self._follow(session)

    def _follow(self, session: Session):
        """The session's selected task is what these views show: they redraw when it changes, and
        its resources when they arrive. The session of the project left no longer moves them."""
        if self.session is not None:
            self.session.selected.disconnect(self.show_selection)
            self.session.task_changed.disconnect(self._task_changed)
        self.session = session
        session.selected.connect(self.show_selection)
        session.task_changed.connect(self._task_changed)

    def show_selection(self, sel: Selection):
        if sel.error:
            self.show_kernel_error(*sel.error)
            return
        t = self.session.task(sel.shown) if sel.shown else None
        if t is not None:
            self.show_task(t, self.session.compiled_task(sel.shown, "nvptx"))
            self.show_resources(self.session.resources.get(sel.shown))

    def _task_changed(self, task: str):
        if task == self.session.selection.task:
            self.show_resources(self.session.resources.get(task))

    def show_task(self, task, compiled):
        """`task` is the ir.Task; `compiled` its nvptx CompiledTask (None while it compiles)."""
        changed = task.name != self.task
        if changed:
            self.counters.set_task(task.name)
            self.show_line_counters(None)
        self.task, self.task_obj = task.name, task
        self._show_source(task)
        if compiled is None:
            self.llvm.setPlainText("(compiling…)")
            self.log.setPlainText("(compiling…)")
            return
        self._loading = True
        self.llvm.set_text_keep_view(compiled.ll or compiled.error)
        self._loading = False
        self.ptx_panel.show_task(task.name, status=self._status(compiled))
        ll = compiled.used.get("ll")
        ll_state = "generated LLVM IR (GPU target)" if ll is None or ll.origin == "generated" else \
            f"LLVM-IR override {ll.status or 'active'}"
        if compiled.error and compiled.error_stage in ("ptx", "cubin") and ll is not None and ll.origin != "generated":
            ll_state += " — it does not compile: the error and its line are in the Compile log"
        self.ll_label.setText(ll_state)
        self.revert_ll_btn.setEnabled(compiled.override is not None)
        self.compare_btn.setEnabled(compiled.override is not None)
        self.lines = line_map(self.ptx.toPlainText())
        self.ptx.setToolTip("" if self.lines else "This PTX has no .loc line info, so PTX and source lines "
                                                  "cannot be matched")
        self.log.setPlainText(self._log_text(compiled))
        if changed or self._opt_for != (task.name, compiled.key):
            self._opt_for = None
            self.opt_llvm.setPlainText("(open this tab to compile the optimised IR)")
        if changed or self._compiled_key != compiled.key:
            self.sass_panel.reset(task.name, compiled.arch if changed else None)
        self._compiled_key = compiled.key
        self._tab_changed(self.tabs.currentIndex())

    def show_kernel_error(self, kernel: str, message: str):
        """A kernel row (or an error row) selected: its error, not the previous task's code."""
        self.task = None
        self.source.setPlainText(message)
        self.source.mark_lines(set())
        for ed in (self.llvm, self.opt_llvm, self.sass):
            ed.setPlainText(f"({kernel}: no code — {message.splitlines()[0] if message else 'not compiled'})")
        self.log.setPlainText(message)
        self.sass_panel.task = None
        self.ptx_panel.task = None
        self.ptx_panel.editor.setPlainText(f"// {kernel}: {message.splitlines()[0] if message else 'no task'}")
        self.ptx_panel.update_state()

    def show_optimised(self, task: str, text: str):
        if task == self.task:
            self.opt_llvm.set_text_keep_view(text)
            self._opt_for = (task, self._compiled_key)

    def show_sass(self, task: str, listing):
        """`listing`: a compiler.sass.SassListing, or a text saying why there is none."""
        if task == self.task:
            self.sass_panel.show_listing(task, listing)

    def show_resources(self, res: dict | None):
        if not res or res.get("error"):
            self.resources_label.setText("")
            return
        spill = f" · {res['spill_bytes']} B spills" if res.get("spill_bytes") else ""
        self.resources_label.setText(f"{res['registers']} regs · {res.get('static_shared_bytes', 0)} B smem · "
                                     f"{res.get('local_bytes', 0)} B lmem{spill} · occ. {res['occupancy']:.0%} "
                                     f"@ {res['block']}")
        self.resources_label.setToolTip(f"registers per thread, static shared memory, local memory per thread"
                                        f"{', spill bytes' if spill else ''}, occupancy at block size {res['block']}"
                                        f" ({'driver, last CUDA load' if res.get('source') != 'ptxas' else 'ptxas -v'})")

    def setCurrentWidget(self, w):  # noqa: N802 - as QTabWidget's: the source is always in view
        if w is self.source_pane:
            self.source.setFocus()
        else:
            self.tabs.setCurrentWidget(w)

    def currentWidget(self):  # noqa: N802 - the pane the user works in: the source when it has the focus
        return self.source_pane if self.source.hasFocus() else self.tabs.currentWidget()

    def current_stage(self) -> str:
        """The stage on show, as a pane names it (View ▸ Pin in a Pane)."""
        w = self.currentWidget()
        return {self.source_pane: "source", self.ir_split: "ll", self.sass_pane: "sass"}.get(w, "ptx")

    # ---- internals
    @staticmethod
    def _status(compiled) -> str:
        """The PTX tab's status line when there is no unsaved edit: override stage and state, tier, size."""
        state = {None: "generated PTX", "active": "override active",
                 "unknown": "override active (its sidecar is missing: staleness unknown)",
                 "stale": "override STALE: the generated code changed since it was written"}.get(
                     compiled.override, f"override {compiled.override}")
        if compiled.override_stage == "ll":
            state += " (LLVM IR)"
        if any("PTX override" in line and " wins " in line for line in compiled.log):
            state += " — the PTX override wins over this task's LLVM-IR override"
        fast = getattr(compiled.module, "fast_math", None)
        math = "" if fast is None or compiled.target != "nvptx" else f"  ·  fast math {'on' if fast else 'off'}"
        return f"{state}  ·  {compiled.tier}  ·  {len(compiled.output)} B{math}"

    def _revert_ll(self):
        """The LLVM-IR tab's Revert deletes the task's saved overrides: asked first, as in the PTX tab."""
        if self.task and self.ptx_panel.ask("Delete the saved overrides?", f"Reverting {self.task} deletes its "
                                            "saved LLVM-IR and PTX overrides; the generated code is used again.",
                                            "Delete overrides"):
            self.revert_override.emit(self.task)

    def _ll_edited(self):
        if not self._loading and self.task:
            self.ll_label.setText("edited — not saved: press 'Run this LLVM IR' to use it")

    def _show_source(self, task):
        path = Path(str(task.file))
        try:
            text = path.read_text()
            lines = set(range(task.lines[0], task.lines[1] + 1))
        except OSError:
            text, lines = task.source, set()
        self.source.set_text_keep_view(text) if self.source.toPlainText() == text else self.source.setPlainText(text)
        self.source.mark_lines(lines)

    def _log_text(self, ct) -> str:
        out = [f"{ct.task}  ({ct.target}, {ct.arch}, unit {ct.unit})",
               "stages: " + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in ct.seconds.items())]
        for kind, a in ct.produced.items():
            out.append(f"  {kind:4} {a.tier:8} {len(a.data):>8} B  key {a.key[:16] or '-'}")
        for kind, a in ct.used.items():
            if a.origin != "generated":
                out.append(f"  {kind:4} replaced by {a.origin} {a.path} ({a.status or 'active'})")
        out += list(ct.log)
        if ct.error:
            out.append(f"error ({ct.error_stage or 'compile'}): {ct.error}")
        return "\n".join(out)

    def _tab_changed(self, index):
        if not self.task:
            return
        w = self.tabs.widget(index)
        if w is self.ir_split and self._opt_for is None:
            self.opt_llvm.setPlainText("(compiling the optimised IR…)")
            self._opt_for = (self.task, "pending")
            self.want_optimised.emit(self.task)
        elif w is self.sass_pane:
            self.sass_panel.refresh()

    def _ptx_line_selected(self, line: int):
        self.sass_panel.mark_ptx_lines([line])
        hit = self.lines.source_line(line) if self.lines else None
        if hit and self.task_obj is not None and Path(hit[0]).name == Path(str(self.task_obj.file)).name:
            self.source.mark_lines({hit[1]})

    def _sass_line_selected(self, line: int):
        """A SASS line bands the PTX line it came from and that line's source line."""
        ptx_line = self.sass_panel.ptx_line_of(line)
        if ptx_line:
            self.ptx.mark_lines([ptx_line], scroll=False)
        hit = self.sass_panel.source_line_of(line)
        if hit and self.task_obj is not None and Path(hit[0]).name == Path(str(self.task_obj.file)).name:
            self.source.mark_lines({hit[1]})

    def _source_line_selected(self, line: int):
        if self.task_obj is not None:
            self.sass_panel.mark_source_line(line, str(self.task_obj.file))
        if self.lines and self.task_obj is not None:
            ptx_lines = self.lines.ptx_lines(line, str(self.task_obj.file))
            if ptx_lines:
                self.ptx.mark_lines(ptx_lines)

    # ---- counters
    def show_counters(self, res, other=None):
        """A profile (`res`), or an A/B (`res` = generated, `other` = in use); the per-line counters
        of what is in use go to the gutters."""
        if other is None:
            self.counters.show_result(res)
            self.show_line_counters(res.record if res.ok else None)
        else:
            self.counters.show_ab(res, other, (self.ptx_panel.generated(), self.ptx.toPlainText()))
            self.show_line_counters(other.record if other.ok else None)

    def show_line_counters(self, rec):
        """Counters per line in the gutters of the source, PTX and SASS panes; None clears them.
        PTX lines are exact when the record says 'ptx-line-table' (else mapped from SASS); the SASS
        pane is ptxas's disassembly, matched to the profiled (driver-compiled) SASS by address."""
        if rec is None or rec.task != self.task:
            for ed in (self.ptx, self.source, self.sass):
                ed.set_heat({})
            return
        same = not rec.ptx_sha or ptx_sha(self.ptx.toPlainText()) == rec.ptx_sha
        self.ptx.set_heat(_heat(rec.ptx_lines) if same else {})
        self.counters.lines_note.setText("" if same else "The PTX in the editor is not the PTX profiled: its "
                                         "gutter is left empty (profile it again to see its lines).")
        mine = self.task_obj.file if self.task_obj is not None else ""
        src = next((lines for f, lines in rec.source_lines.items() if Path(f).name == Path(mine).name), {})
        self.source.set_heat(_heat(src))
        self._sass_heat(rec)

    def _sass_heat(self, rec):
        by_offset = {s.offset: s.counters for s in rec.sass}
        lines = {}
        for i, text in enumerate(self.sass.toPlainText().splitlines(), start=1):
            m = _SASS_OFFSET.search(text)
            if m and int(m[1], 16) in by_offset:
                lines[i] = by_offset[int(m[1], 16)]
        self.sass.set_heat(_heat(lines))


_SASS_OFFSET = __import__("re").compile(r"/\*([0-9a-f]{4,})\*/")
