"""The kernels → tasks tree, with each task's latest compile and launch figures."""
from __future__ import annotations

import statistics

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

COLUMNS = ["Kernel / task", "Type", "Cache", "PTX bytes", "Compile ms", "Launch ms"]
TIER_COLORS = {"memory": "#2e7d32", "disk": "#1565c0", "miss": "#ef6c00", "error": "#c62828"}
TASK_ROLE = Qt.UserRole + 1


class TaskTree(QTreeWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setHeaderLabels(COLUMNS)
        self.setAlternatingRowColors(True)
        self.setUniformRowHeights(True)
        self.setTextElideMode(Qt.ElideMiddle)
        self.headerItem().setToolTip(5, "median of every launch of this task so far")
        self.items: dict[str, QTreeWidgetItem] = {}
        self.launches: dict[str, list[float]] = {}

    def set_kernels(self, kernel_tasks):
        """(kernel, [Task], error) triples → rows; keeps figures of tasks that still exist."""
        self.clear()
        self.items.clear()
        for kt in kernel_tasks:
            k = QTreeWidgetItem([kt.kernel, f"{len(kt.tasks)} tasks" if not kt.error else "error"])
            if kt.error:
                k.setToolTip(0, kt.error)
                k.setForeground(1, QBrush(QColor(TIER_COLORS["error"])))
            self.addTopLevelItem(k)
            for t in kt.tasks:
                it = QTreeWidgetItem([t.name, t.type])
                it.setData(0, TASK_ROLE, t.name)
                it.setToolTip(0, f"{t.file}:{t.lines[0]}-{t.lines[1]}  block_dim={t.block_dim or 'default'}  "
                                 f"params: {', '.join(p.name for p in t.params)}")
                for col in (3, 4, 5):
                    it.setTextAlignment(col, Qt.AlignRight | Qt.AlignVCenter)
                k.addChild(it)
                self.items[t.name] = it
                if self.launches.get(t.name):
                    it.setText(5, f"{statistics.median(self.launches[t.name]):.4f}")
            k.setExpanded(True)
        for c in range(len(COLUMNS)):
            self.resizeColumnToContents(c)
        self.setColumnWidth(0, min(self.columnWidth(0), 300))  # long names elide; the figures stay in view
        self.setColumnWidth(5, max(self.columnWidth(5), 70))

    def on_compile(self, ev):
        it = self.items.get(ev.task)
        if it is None or ev.target != "nvptx":
            return
        tier = ev.tier + (f" + override ({ev.override})" if ev.override else "")
        it.setText(2, tier)
        it.setForeground(2, QBrush(QColor(TIER_COLORS.get(ev.tier, "#000"))))
        it.setText(3, str(ev.size) if ev.size else "")
        ms = sum(v for k, v in ev.seconds.items() if k != "lower") * 1e3
        it.setText(4, f"{ms:.1f}")
        it.setToolTip(2, ev.error or ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in ev.seconds.items()))

    def on_launch(self, ev):
        self.launches.setdefault(ev.task, []).append(ev.ms)
        it = self.items.get(ev.task)
        if it is not None:
            it.setText(5, f"{statistics.median(self.launches[ev.task]):.4f}")

    def selected_task(self) -> str | None:
        it = self.currentItem()
        return it.data(0, TASK_ROLE) if it is not None else None

    def select(self, task: str):
        it = self.items.get(task)
        if it is not None:
            self.setCurrentItem(it)
