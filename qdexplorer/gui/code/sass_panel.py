"""The SASS tab: the task's PTX assembled for a GPU architecture the user picks, disassembled with
line info, and the same A/B diff the PTX tab has (generated against what is in use).

Each SASS line's gutter shows `PTX line·source line` (`compiler.sass.SassListing`); selecting a
SASS line bands its PTX and source lines, and selecting a PTX or source line bands its SASS lines
(`CodeViews` wires that). Disassembling costs a ptxas + nvdisasm run, so the panel asks for it
(`want`) only when shown or when the architecture changes; the window answers with
`show_listing` / `show_diff`. With `qdexplorer[sass]` installed it needs no toolkit and no GPU.
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPlainTextEdit, QTabWidget, QVBoxLayout, QWidget

from ...compiler.sass import SassListing
from .diff_view import DiffView
from .editor import EditorPane

ARCHES = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_120")
GUTTER_TIP = "PTX line · source line this SASS instruction came from (ptxas -lineinfo, nvdisasm -g)"


class SassPanel(QWidget):
    want = Signal(str, str, bool)      # (task, arch, diff): the window disassembles; diff: generated vs in use
    line_selected = Signal(int)        # a SASS line the user selected (1-based)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.task: str | None = None
        self.listing: SassListing | None = None
        self.pane = EditorPane("ptx", True)
        self.editor = self.pane.editor
        self.diff = DiffView()
        self.arch = QComboBox()
        self.arch.setEditable(True)
        self.arch.addItems(ARCHES)
        self.arch.setToolTip("The GPU architecture to assemble the PTX for (any sm_XX ptxas knows); "
                             "by default the task's own target")
        self.note = QLabel("")
        self.note.setMinimumWidth(40)
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 0)
        bar.addWidget(QLabel("GPU architecture"))
        bar.addWidget(self.arch)
        bar.addWidget(self.note, 1)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.pane, "SASS")
        self.tabs.addTab(self.diff, "Diff vs generated")
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(2)
        v.addLayout(bar)
        v.addWidget(self.tabs, 1)
        self._asked: tuple | None = None
        self.arch.currentTextChanged.connect(lambda _: self.refresh())
        self.tabs.currentChanged.connect(lambda _: self.refresh())
        self.editor.line_selected.connect(self.line_selected)

    @property
    def find_bar(self):   # Ctrl+F finds in the SASS text
        return self.pane.find_bar

    # ---- what the views ask
    def reset(self, task: str | None, default_arch: str | None = None, note: str = "(open this tab to disassemble)"):
        """A new task or a new compile: forget what was shown; the next `refresh` asks again."""
        self.task, self.listing, self._asked = task, None, None
        if default_arch and task is not None:
            self.arch.blockSignals(True)
            self.arch.setCurrentText(default_arch)
            self.arch.blockSignals(False)
        self.editor.setPlainText(note)
        self.editor.set_line_labels({})
        self.diff.set_texts("", "")

    def refresh(self):
        """Ask for what the current sub-tab shows, once per (task, arch, tab)."""
        if not self.task:
            return
        key = (self.task, self.arch.currentText().strip(), self.tabs.currentIndex() == 1)
        if key == self._asked:
            return
        self._asked = key
        if not key[2]:
            self.editor.setPlainText("(disassembling…)")
        self.want.emit(*key)

    # ---- answers
    def show_listing(self, task: str, listing: SassListing | str):
        if task != self.task:
            return
        if isinstance(listing, str):   # why not: prose, read once, wraps to the pane (SASS never wraps)
            self.listing = None
            self.editor.setLineWrapMode(QPlainTextEdit.WidgetWidth if listing.startswith("// ") and "\n\t" not in listing
                                        and len(listing.splitlines()) < 4 else QPlainTextEdit.NoWrap)
            self.editor.set_text_keep_view(listing)
            self.editor.set_line_labels({})
            self.note.setText("")
            return
        self.listing = listing
        self.editor.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.editor.set_text_keep_view(listing.text)
        self.editor.set_line_labels({s: f"{p}·{listing.to_source[s][1]}" if s in listing.to_source else str(p)
                                     for s, p in listing.to_ptx.items()}, GUTTER_TIP)
        self.note.setText(f"{len(listing.instructions())} instructions · gutter: PTX line·source line")
        self.note.setToolTip(f"ptxas -lineinfo -arch={listing.arch}, then {listing.tool} -g")

    def show_diff(self, task: str, generated: str, used: str):
        if task == self.task:
            self.diff.set_texts(generated, used)

    # ---- the line map, both ways
    def ptx_line_of(self, sass_line: int) -> int | None:
        return self.listing.to_ptx.get(sass_line) if self.listing else None

    def source_line_of(self, sass_line: int) -> tuple[str, int] | None:
        return self.listing.to_source.get(sass_line) if self.listing else None

    def mark_ptx_lines(self, ptx_lines) -> None:
        if self.listing:
            self.editor.mark_lines(self.listing.sass_lines_of_ptx(ptx_lines))

    def mark_source_line(self, line: int, file: str | None) -> None:
        if self.listing:
            self.editor.mark_lines(self.listing.sass_lines_of_source(line, file))
