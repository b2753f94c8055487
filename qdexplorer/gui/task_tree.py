"""The kernels → tasks tree: a view of the session's tasks, their latest compile and run figures.

It keeps no figures of its own: every cell is read from the session when the session says that
task changed, so the tree, the plots and the code views can never disagree.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QTreeWidget, QTreeWidgetItem

COLUMNS = ["Kernel / task", "Type", "Cache", "PTX bytes", "Compile ms", "Launch ms"]
TIER_COLORS = {"memory": "#2e7d32", "disk": "#1565c0", "miss": "#ef6c00", "error": "#c62828"}
TASK_ROLE = Qt.UserRole + 1
KERNEL_ROLE = Qt.UserRole + 2


class TaskTree(QTreeWidget):
    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.setHeaderLabels(COLUMNS)
        self.setAlternatingRowColors(True)
        self.setUniformRowHeights(True)
        self.setTextElideMode(Qt.ElideMiddle)
        self.headerItem().setToolTip(5, "median launch time in the latest run of this task")
        self.header().setSectionResizeMode(0, QHeaderView.Interactive)
        self.items: dict[str, QTreeWidgetItem] = {}
        self.kernel_items: dict[str, QTreeWidgetItem] = {}
        session.kernels_changed.connect(self.rebuild)
        session.task_changed.connect(self.update_task)

    def rebuild(self):
        selected = self.selected_task()
        self.clear()
        self.items.clear()
        self.kernel_items.clear()
        for entry in self.session.kernels.values():
            k = QTreeWidgetItem([entry.name, f"{len(entry.tasks)} tasks" if not entry.error else "error"])
            k.setData(0, KERNEL_ROLE, entry.name)
            if entry.error:
                k.setToolTip(0, entry.error)
                k.setToolTip(1, entry.error)
                for col in (0, 1):
                    k.setForeground(col, QBrush(QColor(TIER_COLORS["error"])))
            self.addTopLevelItem(k)
            self.kernel_items[entry.name] = k
            for t in entry.tasks:
                it = QTreeWidgetItem([t.name, t.type])
                it.setData(0, TASK_ROLE, t.name)
                it.setToolTip(0, f"{t.file}:{t.lines[0]}-{t.lines[1]}  block_dim={t.block_dim or 'default'}  "
                                 f"params: {', '.join(p.name for p in t.params)}")
                for col in (3, 4, 5):
                    it.setTextAlignment(col, Qt.AlignRight | Qt.AlignVCenter)
                k.addChild(it)
                self.items[t.name] = it
                self.update_task(t.name)
            k.setExpanded(True)
        for c in range(len(COLUMNS)):
            self.resizeColumnToContents(c)
        self.setColumnWidth(0, min(self.columnWidth(0), 300))  # long names elide; the figures stay in view
        self.setColumnWidth(2, max(self.columnWidth(2), 90))
        self.setColumnWidth(5, max(self.columnWidth(5), 70))
        if selected:
            self.select(selected)

    def update_task(self, task: str):
        it = self.items.get(task)
        if it is None:
            return
        ct = self.session.compiled_task(task, "nvptx")
        if ct is not None:
            tier = ct.tier + (f" + override ({ct.override})" if ct.override else "")
            it.setText(2, tier)
            it.setForeground(2, QBrush(QColor(TIER_COLORS.get(ct.tier, "#000"))))
            it.setText(3, str(len(ct.output)) if ct.output else "")
            ms = sum(v for k, v in ct.seconds.items() if k != "lower") * 1e3
            it.setText(4, f"{ms:.1f}")
            it.setToolTip(2, ct.error or ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in ct.seconds.items()))
        med = self.session.median(task)
        it.setText(5, f"{med:.4f}" if med is not None else "")

    def selected_task(self) -> str | None:
        it = self.currentItem()
        return it.data(0, TASK_ROLE) if it is not None else None

    def selected_kernel(self) -> str | None:
        it = self.currentItem()
        if it is None:
            return None
        return it.data(0, KERNEL_ROLE) or (it.parent().data(0, KERNEL_ROLE) if it.parent() else None)

    def select(self, task: str):
        it = self.items.get(task)
        if it is not None:
            self.setCurrentItem(it)
