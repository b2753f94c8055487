"""The three assembly modes side by side: a table of `benchmarks/assembly_modes.py`'s figures and
bars of one column, grouped by project, one colour per mode (docs/assembly_modes.md)."""
from __future__ import annotations

import pyqtgraph as pg
import json

from PySide6.QtWidgets import (QComboBox, QFileDialog, QHBoxLayout, QLabel, QPushButton, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from ...bench.assembly_table import COLUMNS, rows
from ..theme import current_theme, restyle

MODE_COLORS = {"whole": "#6a1b9a", "per_task": "#1565c0", "culink": "#ef6c00"}


class ModeTable(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[dict] = []
        self.table = QTableWidget(0, 2 + len(COLUMNS))
        self.table.setHorizontalHeaderLabels(["project", "mode"] + [f"{h} ({u})" for _, h, u in COLUMNS])
        self.column = QComboBox()
        self.column.addItems([f"{h} ({u})" for _, h, u in COLUMNS])
        self.plot = pg.PlotWidget(title="per mode")
        self.plot.setMouseEnabled(False, False)
        self.plot.hideButtons()
        self.legend = self.plot.addLegend(offset=(10, 10))
        restyle(self.plot, current_theme())
        self.open_btn = QPushButton("Open assembly_modes.py JSON…")
        self.open_btn.setToolTip("Output of `python benchmarks/assembly_modes.py > modes.json` (docs/assembly_modes.md)")
        self.open_btn.clicked.connect(self._open)
        self.status = QLabel("No comparison loaded: run benchmarks/assembly_modes.py and open its JSON.")
        top = QHBoxLayout()
        top.addWidget(self.open_btn)
        top.addWidget(self.status, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.table, 2)
        lay.addWidget(self.column)
        lay.addWidget(self.plot, 3)
        self.column.currentIndexChanged.connect(lambda _: self._bars())

    def _open(self):
        path, _ = QFileDialog.getOpenFileName(self, "Open assembly_modes.py output", "", "JSON (*.json)")
        if path:
            self.show_file(path)

    def show_file(self, path: str):
        """Show a saved run; a file that is not one says so in the status line."""
        try:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
            if not isinstance(doc, dict) or doc.get("benchmark") != "assembly_modes":
                raise ValueError("not the output of benchmarks/assembly_modes.py")
        except (OSError, ValueError) as e:
            self.status.setText(f"{path}: {e}")
            return
        self.show_doc(doc)
        self.status.setText(f"{path} · GPU: {doc.get('machine', {}).get('gpu') or 'none (GPU columns empty)'}")

    def show_doc(self, doc: dict):
        """Show one `assembly_modes.py` JSON document."""
        self.rows = rows(doc)
        self.table.setRowCount(len(self.rows))
        for i, r in enumerate(self.rows):
            cells = [r["project"], r["mode"]] + ["—" if r[k] is None else f"{r[k]:g}" for k, _, _ in COLUMNS]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(str(text))
                if r.get("error"):
                    item.setToolTip(r["error"])
                self.table.setItem(i, j, item)
        self._bars()

    def bar_values(self) -> dict[str, list[float | None]]:
        """mode → the selected column's value per project (None: not measured)."""
        key = COLUMNS[self.column.currentIndex()][0]
        projects = list(dict.fromkeys(r["project"] for r in self.rows))
        out: dict[str, list] = {}
        for r in self.rows:
            out.setdefault(r["mode"], [None] * len(projects))[projects.index(r["project"])] = r[key]
        return out

    def _bars(self):
        self.plot.clear()
        self.legend.clear()
        values = self.bar_values()
        projects = list(dict.fromkeys(r["project"] for r in self.rows))
        width = 0.8 / max(1, len(values))
        for m, (mode, vals) in enumerate(values.items()):
            xs = [i + (m - (len(values) - 1) / 2) * width for i, v in enumerate(vals) if v is not None]
            hs = [v for v in vals if v is not None]
            bar = pg.BarGraphItem(x=xs, height=hs, width=width, brush=MODE_COLORS.get(mode, "#777777"), name=mode)
            self.plot.addItem(bar)
            self.legend.addItem(bar, mode)
        self.plot.getAxis("bottom").setTicks([list(enumerate(projects))])
        self.plot.setTitle(self.column.currentText())
