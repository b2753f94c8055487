"""The Counters tab: why the selected task is fast or slow, from one profiled launch under ncu.

Profile runs the task's first workload once under Nsight Compute (on the engine thread, in a
child process); A/B profiles the generated PTX and the one in use and lists every figure's A, B,
Δ and Δ%, the largest changes first. The text of each figure, the limiter and the reason there
are no counters come from `counters.text`, so the window says what the CLI says. The roofline
plot draws the GPU's two ceilings and the task's point (a model point, from the IR, is labelled
so). Per-line counters go to the gutters of the source, PTX and SASS panes (`CodeViews`).
"""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QHeaderView, QLabel, QPlainTextEdit, QPushButton,
                               QSpinBox, QSplitter, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout,
                               QWidget)

from ..counters.advice import limiter
from ..counters.collect import CountersResult
from ..counters.diff import diff
from ..counters.record import FIGURES, LineCounters, Roofline
from ..counters.report import ptx_sha
from ..counters.text import detail_lines, fmt, fmt_delta, headline, roofline_line, unavailable_lines, verdict_note
from .code.diff_view import DiffView


def _weight(c: LineCounters, by_samples: bool) -> float:
    return c.samples if by_samples else c.inst_executed


def line_heat(lines: dict, top: float | None = None, by_samples: bool | None = None) -> dict:
    """line -> (share of the hottest line's samples, or of its instructions when nothing was sampled;
    tooltip). `top`/`by_samples`: one scale for two profiles (A and B), so equal bars mean equal counts."""
    if not lines:
        return {}
    if by_samples is None:
        by_samples = any(c.samples for c in lines.values())
    top = top or max(_weight(c, by_samples) for c in lines.values()) or 1.0
    out = {}
    for ln, c in lines.items():
        stalls = ", ".join(f"{k} {v:.0f}" for k, v in sorted(c.stalls.items(), key=lambda kv: -kv[1])[:3])
        out[ln] = (_weight(c, by_samples) / top,
                   f"counters: {c.samples:.0f} warp samples, {c.inst_executed:,.0f} warp instructions"
                   + (f" (stalls: {stalls})" if stalls else ""))
    return out


def paired_heat(a: dict, b: dict) -> tuple[dict, dict]:
    """A's and B's per-line counters on one scale: the hottest line of either is the full bar."""
    both = list(a.values()) + list(b.values())
    if not both:
        return {}, {}
    by_samples = all(any(c.samples for c in side.values()) for side in (a, b) if side)
    top = max(_weight(c, by_samples) for c in both) or 1.0
    return line_heat(a, top, by_samples), line_heat(b, top, by_samples)


class CountersView(QWidget):
    profile_requested = Signal(str, str, str)   # task, preset, 'current' | 'ab'

    def __init__(self, parent=None):
        super().__init__(parent)
        self.task: str | None = None
        self.preset = QComboBox()
        self.preset.addItems(["quick", "full"])
        self.preset.setToolTip("quick: speed of light, occupancy, launch (about 10 replay passes); full: adds memory, "
                               "warp stalls, instruction mix, roofline and per-line counters (about 20)")
        self.profile_btn = QPushButton("Profile")
        self.profile_btn.setToolTip("Run the task's first workload once under Nsight Compute (ncu) and read its "
                                    "hardware counters (cached: an unchanged task is not profiled again)")
        self.ab_btn = QPushButton("A/B vs generated")
        self.ab_btn.setToolTip("Profile the generated PTX (A) and the PTX in use (B): every figure's change, "
                               "largest first")
        self.on_save = QCheckBox("Profile on Save && use")
        self.on_save.setToolTip("After saving an edited PTX, profile it against the generated PTX")
        self.repeats = QSpinBox()
        self.repeats.setRange(1, 9)
        self.repeats.setValue(3)
        self.repeats.setPrefix("A/B profiles a side: ")
        self.repeats.setToolTip("An A/B profiles each side this many times (each cached) and calls a Δ 'changed' only "
                                "outside K × the pooled spread of the repeats plus the counter's step (K = 2 for 3 "
                                "repeats: 1 false alarm in ~1000); with 1, figures ncu measures (not counts) are "
                                "'unsure'")
        for w in (self.profile_btn, self.ab_btn):
            w.setEnabled(False)
        self.profile_btn.clicked.connect(lambda: self._ask("current"))
        self.ab_btn.clicked.connect(lambda: self._ask("ab"))
        # two rows: in one, the tab was wider than the source pane beside it at 1400 px (tests/gui/test_layout)
        bar = QHBoxLayout()
        bar.addWidget(self.preset)
        bar.addWidget(self.profile_btn)
        bar.addWidget(self.ab_btn)
        bar.addStretch(1)
        bar2 = QHBoxLayout()
        bar2.addWidget(self.on_save)
        bar2.addWidget(self.repeats)
        bar2.addStretch(1)
        self.status = QLabel("Select a task and press Profile.")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.lines_note = QLabel("")
        self.lines_note.setWordWrap(True)
        self.limiter = QLabel("")
        self.limiter.setWordWrap(True)
        self.limiter.setStyleSheet("font-weight: bold")
        self.table = QTableWidget(0, 3)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.roof = pg.PlotWidget()
        self.roof.setLogMode(x=True, y=True)
        self.roof.setLabel("bottom", "arithmetic intensity (FLOP/byte)")
        self.roof.setLabel("left", "FLOP/s")
        self.roof.getAxis("left").enableAutoSIPrefix(False)
        self.roof_title = QLabel("")
        self.roof_title.setWordWrap(True)
        lower = QSplitter(Qt.Horizontal)
        # an A/B's per-line counters: the generated PTX (A) and the PTX in use (B) side by side, aligned by
        # line as in the PTX tab's diff, each with its own gutter on one scale
        self.ab_ptx = DiffView()
        self.ab_note = QLabel("")
        self.ab_note.setWordWrap(True)
        ab_box = QWidget()
        av = QVBoxLayout(ab_box)
        av.setContentsMargins(0, 0, 0, 0)
        av.addWidget(self.ab_note)
        av.addWidget(self.ab_ptx, 1)
        self.lower_tabs = QTabWidget()
        self.lower_tabs.addTab(self.details, "Details")
        self.lower_tabs.addTab(ab_box, "PTX lines: A | B")
        self.lower_tabs.setTabEnabled(1, False)
        lower.addWidget(self.lower_tabs)
        roof_box = QWidget()
        rv = QVBoxLayout(roof_box)
        rv.setContentsMargins(0, 0, 0, 0)
        rv.addWidget(self.roof_title)
        rv.addWidget(self.roof, 1)
        lower.addWidget(roof_box)
        lower.setSizes([500, 400])
        body = QSplitter(Qt.Vertical)
        body.addWidget(self.table)
        body.addWidget(lower)
        body.setStretchFactor(0, 3)
        body.setStretchFactor(1, 2)
        for w in (self.table, self.details, self.roof, self.ab_ptx):   # must not raise the window's minimum height
            w.setMinimumHeight(40)
        v = QVBoxLayout(self)
        v.addLayout(bar)
        v.addLayout(bar2)
        v.addWidget(self.status)
        v.addWidget(self.lines_note)
        v.addWidget(self.limiter)
        v.addWidget(body, 1)

    # ---- what the window tells it
    def set_task(self, task: str | None, busy: bool = False):
        self.task = task
        for w in (self.profile_btn, self.ab_btn):
            w.setEnabled(task is not None and not busy)

    def set_busy(self, busy: bool, text: str = ""):
        self.set_task(self.task, busy)
        if busy and text:
            self.status.setText(text)

    def _ask(self, side: str):
        if self.task:
            self.set_busy(True, f"profiling {self.task} under ncu ({self.preset.currentText()} preset)…")
            self.profile_requested.emit(self.task, self.preset.currentText(), side)

    def show_result(self, res: CountersResult):
        self.set_busy(False)
        self._clear_ab()
        if not res.ok or res.record is None:
            lines = unavailable_lines(res)
            self.status.setText(lines[0])
            self.limiter.setText("")
            self._fill_fallback(res)
            self.details.setPlainText("\n".join(lines[1:]))
            self._plot([res.fallback.roofline] if res.fallback and res.fallback.roofline else [])
            return
        rec = res.record
        self.status.setText(headline(rec) + "".join(f"\nwarning: {w}" for w in res.warnings)
                            + self._lines_note(res))
        self.limiter.setText("Likely limiter: " + limiter(rec) if limiter(rec) else "")
        self.table.setColumnCount(3)
        self.table.setHorizontalHeaderLabels(["Figure", "Value", "What it means"])
        rows = [f for f in FIGURES if f.key in rec.figures]
        self.table.setRowCount(len(rows))
        for i, f in enumerate(rows):
            self._row(i, [f.label, fmt(rec.figures[f.key], f.unit), f.explain], f.explain)
        self._fit()
        self.details.setPlainText("\n".join(ln.strip() if not ln.startswith("    ") else ln[2:]
                                            for ln in detail_lines(rec)).strip())
        self._plot([rec.roofline] if rec.roofline else [])

    def show_ab(self, a: CountersResult, b: CountersResult, texts: tuple[str, str] | None = None):
        """`texts`: the generated PTX and the PTX in use, for the side-by-side per-line view."""
        self.set_busy(False)
        if not (a.ok and b.ok) or a.record is None or b.record is None:
            self.show_result(a if not a.ok else b)
            return
        rows = diff(a.records, b.records)
        n = sum(r.verdict == "changed" for r in rows)
        self.status.setText(f"A/B of {a.task}: A = generated, B = in use ({b.record.variant}); "
                            f"{a.record.preset} preset; {n} changed, changes first\n"
                            f"({verdict_note(len(a.records), len(b.records))})" + self._lines_note(b))
        self.limiter.setText("B's likely limiter: " + limiter(b.record))
        self.table.setColumnCount(7)
        self.table.setHorizontalHeaderLabels(["Figure", "A", "B", "Δ", "Δ%", "Verdict", "What it means"])
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            d, p = fmt_delta(r)
            band = (f"; noise band ±{fmt(r.band, r.unit)} (A: {', '.join(fmt(v, r.unit) for v in r.a_reps)}; "
                    f"B: {', '.join(fmt(v, r.unit) for v in r.b_reps)})" if len(r.a_reps) > 1 else "")
            self._row(i, [r.label, fmt(r.a, r.unit), fmt(r.b, r.unit), d, p, r.verdict, r.explain],
                      r.explain + band)
            if r.verdict == "changed":
                self.table.item(i, 5).setForeground(Qt.darkRed)
        self._fit()
        more = "\n".join(ln.strip() if not ln.startswith("    ") else ln[2:] for ln in detail_lines(b.record)).strip()
        self.details.setPlainText("B: " + more if more else "")
        self._plot([x for x in (a.record.roofline, b.record.roofline) if x], ["A", "B"])
        self._show_ab_lines(a, b, texts)

    def _clear_ab(self):
        self.ab_ptx.set_texts("", "")
        self.ab_ptx.set_line_heat({}, {})
        self.ab_note.setText("")
        self.lower_tabs.setTabEnabled(1, False)
        self.lower_tabs.setCurrentIndex(0)

    def _show_ab_lines(self, a: CountersResult, b: CountersResult, texts: tuple[str, str] | None):
        """Both PTX gutters, A's and B's, facing each other line by line; a side whose text is not the
        one profiled keeps an empty gutter and says so."""
        ra, rb = a.record, b.record
        if texts is None or ra is None or rb is None or not (ra.ptx_lines or rb.ptx_lines):
            self._clear_ab()
            if texts is not None and ra is not None and not (ra.ptx_lines or rb and rb.ptx_lines):
                self.ab_note.setText("No per-line counters in this preset: the full preset has them.")
            return
        gen, cur = texts
        fits = [not r.ptx_sha or ptx_sha(t) == r.ptx_sha for r, t in ((ra, gen), (rb, cur))]
        ha, hb = paired_heat(ra.ptx_lines if fits[0] else {}, rb.ptx_lines if fits[1] else {})
        self.ab_ptx.set_texts(gen, cur)
        self.ab_ptx.set_line_heat(ha, hb)
        stale = [s for s, ok in zip(("A (generated)", "B (in use)"), fits) if not ok]
        self.ab_note.setText("A (generated, left) and B (in use, right), aligned by line; each gutter bar is the "
                             "line's share of the hottest line of either side" + self._how(rb)
                             + (f". {' and '.join(stale)}: the text here is not the PTX profiled, so its gutter is "
                                f"empty (profile again)" if stale else "."))
        self.lower_tabs.setTabEnabled(1, True)

    @staticmethod
    def _how(rec) -> str:
        return ("; exact per PTX line" if rec.line_mapping == "ptx-line-table" else
                "; PTX lines mapped from SASS" if rec.line_mapping else "")

    # ---- pieces
    @staticmethod
    def _lines_note(res: CountersResult) -> str:
        rec = res.record
        if rec is None or not rec.ptx_lines:
            return ""
        how = ("exact per PTX line (the profiled PTX carried a line table naming its own lines)"
               if rec.line_mapping == "ptx-line-table" else "PTX lines mapped from SASS by instruction text")
        return f"\nGutters: {how}."

    def _row(self, i: int, cells: list[str], tip: str):
        for j, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(tip)
            if 0 < j < len(cells) - 1:
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            self.table.setItem(i, j, item)

    def _fit(self):
        h = self.table.horizontalHeader()
        for j in range(self.table.columnCount() - 1):
            h.setSectionResizeMode(j, QHeaderView.ResizeToContents)
        h.setSectionResizeMode(self.table.columnCount() - 1, QHeaderView.Stretch)

    def _fill_fallback(self, res: CountersResult):
        fb = res.fallback
        self.table.setColumnCount(3)
        self.table.setHorizontalHeaderLabels(["Figure (no counters)", "Value", "Where from"])
        rows = []
        if fb is not None and fb.registers is not None:
            rows = [("Registers / thread", str(fb.registers), "ptxas -v"),
                    ("Spills", f"{fb.spill_bytes or 0} B", "ptxas -v"),
                    ("Theoretical occupancy", f"{fb.occupancy_pct:.0f}%" if fb.occupancy_pct is not None else "–",
                     f"occupancy calculator (limited by {fb.limited_by})" if fb.limited_by else "occupancy calculator")]
        if fb is not None and fb.roofline is not None:
            rows.append(("Arithmetic intensity (MODEL)", f"{fb.roofline.intensity:.3f} FLOP/B",
                         "counted in the task's IR: a model, not a measurement"))
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            self._row(i, list(r), r[2])
        self._fit()

    def _plot(self, points: list[Roofline], names: list[str] | None = None):
        self.roof.clear()
        if not points:
            self.roof_title.setText("No roofline point (the full preset measures FLOPs and bytes).")
            return
        ref = points[-1]
        self.roof_title.setText("\n".join(roofline_line(p) for p in points))
        if ref.peak_flops and ref.peak_bytes:
            xs = [10 ** (k / 4) for k in range(-16, 17)]
            ys = [min(ref.peak_flops, ref.peak_bytes * x) for x in xs]
            self.roof.plot(xs, ys, pen=pg.mkPen("#888", width=2))
        colors = ["#1e88e5", "#ef6c00"]
        if not any(p.flops for p in points):
            self.roof_title.setText("No floating-point work: the task has no point on a FLOP roofline "
                                    "(all its time is data movement; see the memory figures).")
            return
        for i, p in enumerate(points):
            x = max(p.intensity, 1e-4)
            y = p.achieved_flops if p.seconds else (min(ref.peak_flops, ref.peak_bytes * x) if ref.peak_bytes else 1.0)
            label = (names[i] if names and i < len(names) else "task") + (" (MODEL)" if p.model else "")
            self.roof.plot([x], [max(y, 1.0)], pen=None, symbol="o" if not p.model else "t", symbolSize=12,
                           symbolBrush=colors[i % 2], name=label)
            text = pg.TextItem(label, color=colors[i % 2], anchor=(0, 1))
            text.setPos(math.log10(x), math.log10(max(y, 1.0)))
            self.roof.addItem(text)
