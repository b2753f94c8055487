"""The kernels → tasks tree: a view of the session's tasks, their compile, resources and run figures.

It keeps no figures of its own: every cell is read from the session when it says a task changed
(resources included: the driver's after a CUDA load, else the engine's ptxas estimate), so the
tree, the plots and the code views can never disagree.
Columns sort by value (numbers as numbers), and are sized to their content after each change.
"""
from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QTreeWidget, QTreeWidgetItem

from ..session import Selection
from .theme import STATUS, current_theme

COLUMNS = ["Kernel / task", "Cache", "Compile", "Regs", "Spills", "Occ.", "Launch"]
COL = {name: i for i, name in enumerate(COLUMNS)}
NUMERIC = {"Compile", "Regs", "Spills", "Occ.", "Launch"}
TIPS = {
    "Cache": "cache tier of the PTX stage (memory ▸ disk ▸ miss); '· ovr' marks an override in effect "
             "(STALE: the generated code changed since). The tooltip has the PTX size and each stage's time",
    "Regs": "registers per thread (driver after a CUDA load, else ptxas -v)",
    "Compile": "milliseconds spent in codegen, the cache and the PTX stage for this task",
    "Spills": "bytes of register spill stores + loads (ptxas -v)",
    "Occ.": "occupancy: resident warps / maximum warps per SM at the task's block size "
                 "(driver's calculator after a CUDA load, else the CUDA occupancy calculator on ptxas figures)",
    "Launch": "median launch time in the latest run of this task, all its rounds (µs below 1 ms)",
}
MIN_NAME = 60    # px of task name kept when room is short (the full name is in the tooltip)
TASK_ROLE = Qt.UserRole + 1
KERNEL_ROLE = Qt.UserRole + 2
SORT_ROLE = Qt.UserRole + 3
FILE_ROLE = Qt.UserRole + 4   # a top-level row standing for a file that does not load


def fmt_time(ms: float) -> str:
    return f"{ms * 1e3:.1f} µs" if ms < 1.0 else f"{ms:.3f} ms"


def task_label(kernel: str, task: str) -> str:
    """A task's row under its kernel: '#1 range_for' for 'atomic_sum_kernel_1_range_for'. The kernel's
    name is already on the row above, and repeating it elided every name at 1400 px; the full name is
    in the tooltip (and on the code views)."""
    m = _TASK_TAIL.match(task[len(kernel):]) if task.startswith(kernel) else None
    if m is None:
        return task
    return f"{m['inst'] + ' ' if m['inst'] else ''}#{m['index']} {m['rest']}"


# what follows the kernel's name in a task's: an instantiation ('_rate0_25', a template kernel's
# arguments), then '_kernel_<index>_<offload>'
_TASK_TAIL = re.compile(r"^(?:_(?P<inst>.+?))?_kernel_(?P<index>\d+)_(?P<rest>.+)$")


class _Item(QTreeWidgetItem):
    """Sorts numeric columns by the number stored under SORT_ROLE (empty cells last)."""

    def __lt__(self, other):
        tree = self.treeWidget()
        col = tree.sortColumn() if tree else 0
        if COLUMNS[col] in NUMERIC:
            a, b = self.data(col, SORT_ROLE), other.data(col, SORT_ROLE)
            a = float("inf") if a is None else a
            b = float("inf") if b is None else b
            return a < b
        return self.text(col).lower() < other.text(col).lower()


class TaskTree(QTreeWidget):
    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.backend = "cpu"
        self.setHeaderLabels(COLUMNS)
        for name, tip in TIPS.items():
            self.headerItem().setToolTip(COL[name], tip)
        self.setAlternatingRowColors(True)
        self.setUniformRowHeights(True)
        self.setIndentation(14)   # two levels deep, a task row keeps more of its name
        self.setTextElideMode(Qt.ElideMiddle)
        self.setSortingEnabled(True)
        self.sortByColumn(-1, Qt.AscendingOrder)  # project order until the user clicks a header
        self.header().setSectionResizeMode(QHeaderView.Interactive)
        self.header().setStretchLastSection(False)
        self.items: dict[str, QTreeWidgetItem] = {}
        self.kernel_items: dict[str, QTreeWidgetItem] = {}
        self.file_errors: dict[str, str] = {}   # file path -> message, while that file does not load
        self._fit = QTimer(self, singleShot=True, interval=150)
        self._fit.timeout.connect(self.fit_columns)
        self.header().sortIndicatorChanged.connect(lambda *_: self._fit.start())   # room for the arrow where it is
        self.set_session(session)
        self.currentItemChanged.connect(lambda *_: self.publish_selection())

    def colors(self) -> dict:
        return STATUS[current_theme()]

    def set_backend(self, backend: str):
        self.backend = backend
        for t in self.items:
            self.update_task(t)

    def set_file_errors(self, errors: dict[str, str]):
        """Files that failed to load: their kernels turn red with the message (the rest stay usable)."""
        self.file_errors = dict(errors)
        self.rebuild()

    def kernel_file_error(self, entry) -> str:
        files = {str(t.file) for t in entry.tasks}
        return next((msg for f, msg in self.file_errors.items() if f in files), "")

    def set_session(self, session):
        """Show `session` (a newly opened project's); the old one goes with its project."""
        self.session = session
        session.kernels_changed.connect(self.rebuild)
        session.task_changed.connect(self.update_task)
        self.file_errors = {}
        self.rebuild()

    def rebuild(self):
        selected = self.selected_task()
        sorting = self.isSortingEnabled()
        self.setSortingEnabled(False)
        self.clear()
        self.items.clear()
        self.kernel_items.clear()
        red = QBrush(QColor(self.colors()["error"]))
        for entry in self.session.kernels.values():
            error = entry.error or self.kernel_file_error(entry)
            n = len(entry.tasks)
            k = _Item([entry.name])
            k.setText(COL["Cache"], "error" if error else f"{n} task{'s' if n != 1 else ''}")
            k.setData(0, KERNEL_ROLE, entry.name)
            if error:
                first = error.splitlines()[0]
                k.setText(0, f"{entry.name}: {first}")
                for col in range(len(COLUMNS)):
                    k.setForeground(col, red)
                    k.setToolTip(col, error)
            self.addTopLevelItem(k)
            self.kernel_items[entry.name] = k
            for t in entry.tasks:
                it = _Item([task_label(entry.name, t.name)])
                it.setData(0, TASK_ROLE, t.name)
                it.setToolTip(0, f"{t.name}\n{t.type} task, {t.file}:{t.lines[0]}-{t.lines[1]}  block_dim={t.block_dim or 'default'}  "
                                 f"params: {', '.join(p.name for p in t.params)}")
                for name in NUMERIC:
                    it.setTextAlignment(COL[name], Qt.AlignRight | Qt.AlignVCenter)
                k.addChild(it)
                self.items[t.name] = it
                self.update_task(t.name)
                if error:
                    for col in range(len(COLUMNS)):
                        it.setForeground(col, red)
            k.setExpanded(True)
        shown = {str(t.file) for entry in self.session.kernels.values() for t in entry.tasks}
        for f, error in self.file_errors.items():
            if f in shown:
                continue
            # a file broken when the project was opened: its kernels were never imported, so the file
            # itself stands in for them, red, with the message (the rest of the tree stays usable)
            row = _Item([f"{Path(f).name}: does not load"])
            row.setText(COL["Cache"], "error")
            row.setData(0, FILE_ROLE, f)
            for col in range(len(COLUMNS)):
                row.setForeground(col, red)
                row.setToolTip(col, f"{f} does not load; its kernels are left out until it does:\n{error}")
            self.addTopLevelItem(row)
        self.setSortingEnabled(sorting)
        self.fit_columns()
        if selected:
            self.select(selected)

    def _set(self, it, name: str, text: str, value=None, tip: str | None = None, color: str | None = None):
        col = COL[name]
        it.setText(col, text)
        it.setData(col, SORT_ROLE, value)
        if tip is not None:
            it.setToolTip(col, tip)
        if color is not None:
            it.setForeground(col, QBrush(QColor(color)))

    def update_task(self, task: str):
        it = self.items.get(task)
        if it is None:
            return
        c = self.colors()
        ct = self.session.compiled_task(task, "nvptx")
        if ct is not None:
            tier = ct.tier  # an override is a short tag: the column never pushes Launch out of view
            if ct.override:
                tier += " · ovr" + (" STALE" if ct.override == "stale" else "")
            where = ""
            if ct.override:
                where = f"\noverride {ct.override} ({ct.override_stage or 'ptx'})" + (
                    "; overrides take effect on the CUDA backend only" if self.backend != "cuda" else "")
            self._set(it, "Cache", tier, None,
                      ct.error or f"{len(ct.output)} B of PTX; " + ", ".join(f"{k} {v * 1e3:.2f} ms"
                                                                             for k, v in ct.seconds.items()) + where,
                      c.get(ct.tier, c["muted"]))
            ms = sum(v for k, v in ct.seconds.items() if k != "lower") * 1e3
            self._set(it, "Compile", f"{ms:.1f}", ms)
        res = self.session.resources.get(task)
        source = "driver (last CUDA load)" if res and res.get("source") == "driver" else \
            "ptxas -v + occupancy calculator"
        if res and not res.get("error"):
            tip = (f"{source}: {res.get('registers')} registers, {res.get('static_shared_bytes', 0)} B shared, "
                   f"{res.get('local_bytes', 0)} B local, block {res.get('block')}, "
                   f"{res.get('active_blocks_per_sm')} blocks/SM" + (f", limited by {res['limited_by']}"
                                                                     if res.get("limited_by") else ""))
            self._set(it, "Regs", str(res.get("registers", "")), res.get("registers"), tip)
            spills = res.get("spill_bytes")
            self._set(it, "Spills", "" if spills is None else str(spills), spills, tip,
                      c["error"] if spills else None)
            occ = res.get("occupancy")
            self._set(it, "Occ.", "" if occ is None else f"{occ:.0%}", occ, tip)
        elif res and res.get("error"):
            self._set(it, "Regs", "?", None, f"ptxas: {res['error']}", c["error"])
        med = self.session.median(task)
        self._set(it, "Launch", fmt_time(med) if med is not None else "", med)
        parent = it.parent()
        if parent is not None:  # a kernel sorts by its largest task figure
            for name in NUMERIC:
                vals = [parent.child(i).data(COL[name], SORT_ROLE) for i in range(parent.childCount())]
                vals = [v for v in vals if v is not None]
                parent.setData(COL[name], SORT_ROLE, max(vals) if vals else None)
        self._fit.start()

    def figure_width(self, col: int) -> int:
        """As wide as the column's cells and its header's words, no wider. Qt's own fit also keeps room
        for a sort arrow in every header, which made six narrow figure columns take 110 px more (at
        1400×900 the tree took 42% of the window and the source showed 50 characters); only the
        column the tree is sorted by has its arrow."""
        fm = self.header().fontMetrics()
        pad = 2 * fm.horizontalAdvance("x")
        arrow = fm.height() if self.header().sortIndicatorSection() == col else 0
        return max(self.sizeHintForColumn(col), fm.horizontalAdvance(COLUMNS[col]) + pad + arrow)

    def fit_columns(self):
        """Every figure column as wide as its content, so Launch is always in view; the name column
        takes the room that is left (its full text, and the task's file and lines, in the tooltip)."""
        self.resizeColumnToContents(0)
        for col in range(1, len(COLUMNS)):
            self.setColumnWidth(col, self.figure_width(col))
        figures = sum(self.columnWidth(c) for c in range(1, len(COLUMNS)))
        room = self.viewport().width() - figures
        self.setColumnWidth(0, max(MIN_NAME, min(self.columnWidth(0), room)))
        self.updateGeometry()

    def content_width(self) -> int:
        """The width that shows every column in full (what the window's splitter starts the tree at)."""
        self.resizeColumnToContents(0)
        return self.columnWidth(0) + sum(self.figure_width(c) for c in range(1, len(COLUMNS))) \
            + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth() + 4

    def resizeEvent(self, event):  # noqa: N802 - a wider or narrower pane refits the name column
        super().resizeEvent(event)
        self._fit.start()

    def selected_task(self) -> str | None:
        it = self.currentItem()
        return it.data(0, TASK_ROLE) if it is not None else None

    def selected_file_error(self) -> tuple[str, str] | None:
        """(file, message) when the selected row stands for a file that does not load."""
        it = self.currentItem()
        f = it.data(0, FILE_ROLE) if it is not None else None
        return (f, self.file_errors.get(f, "")) if f else None

    def selected_kernel(self) -> str | None:
        it = self.currentItem()
        if it is None:
            return None
        return it.data(0, KERNEL_ROLE) or (it.parent().data(0, KERNEL_ROLE) if it.parent() else None)

    def selection(self) -> Selection:
        """The selected row as what the views show: a task, a kernel's first task, or why there is none."""
        task, kernel = self.selected_task(), self.selected_kernel()
        if task:
            return Selection(task, kernel, shown=task)
        entry = self.session.kernels.get(kernel) if kernel else None
        broken = self.selected_file_error()
        if entry is None and broken:   # a file that did not load when the project opened: its message
            return Selection(None, kernel, error=(Path(broken[0]).name, broken[1]))
        if entry is None:
            return Selection(None, kernel)
        error = entry.error or self.kernel_file_error(entry)
        if error or not entry.tasks:
            return Selection(None, kernel, error=(kernel, error or "no tasks"))
        return Selection(None, kernel, shown=entry.tasks[0].name)

    def publish_selection(self) -> None:
        """The selection, again, as the session's: the views that follow it redraw (after a compile too)."""
        self.session.select(self.selection())

    def select(self, task: str):
        it = self.items.get(task)
        if it is not None:
            self.setCurrentItem(it)
