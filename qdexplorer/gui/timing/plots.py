"""Launch-time plots that stay readable at 15+ tasks: legend beside the data, distinct colours, µs/ms.

- Timeline: one curve per task, made once and fed with `setData` from a 10 Hz timer while a run
  streams (pyqtgraph's recipe: peak downsampling, clip to view). Runs are kept apart: each run starts
  after a gap, at a dashed line labelled with the run number.
- Scope: the selected kernel's tasks, the top N by median, or all; the legend is a list beside the
  plot, not an item over it, and unticking a task hides its curve (the rest is one click away).
- Distribution: the selected task's launches as one box (quartiles, median, 1.5 IQR whiskers) and
  its points per run, so two runs of one task compare at a glance.
- Units: µs below 1 ms, ms otherwise, chosen from the data shown (never pyqtgraph's "ms (x0.001)").
"""
from __future__ import annotations

import re

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QIcon, QPixmap
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QLabel, QListWidget, QListWidgetItem,
                               QSplitter, QStackedWidget, QVBoxLayout, QWidget)

from ..theme import PLOT, current_theme, restyle

# Kelly's 22 colours of maximum contrast (K. L. Kelly, 1965), without white and black, most distinct first.
DISTINCT = ["#f3c300", "#875692", "#f38400", "#a1caf1", "#be0032", "#c2b280", "#848482", "#008856",
            "#e68fac", "#0067a5", "#f99379", "#604e97", "#f6a600", "#b3446c", "#dcd300", "#882d17",
            "#8db600", "#654522", "#e25822", "#2b3d26"]
SCOPES = ["selected kernel", "top 5", "top 10", "all tasks"]


def short_name(task: str) -> str:
    """'particle_step_kernel_2_bounce_range_for' → 'particle_step #2 bounce_range_for' (legend width)."""
    m = re.match(r"^(.*)_kernel_(\d+)_(.*)$", task)
    return f"{m[1]} #{m[2]} {m[3]}" if m else task


def color_for(index: int) -> str:
    return DISTINCT[index % len(DISTINCT)]


def time_unit(max_ms: float) -> tuple[str, float]:
    """('µs', 1000) below a millisecond, else ('ms', 1): the factor turns ms into the unit."""
    return ("µs", 1000.0) if max_ms < 1.0 else ("ms", 1.0)


EDGE_ROOM = 1.08        # the axis ends this far above the steady state's top: room for the edge markers
MAX_EDGE_LABELS = 5     # values written beside the edge markers (the largest, apart); the summary counts the rest


def steady_top(warm_by_task) -> float:
    """The top of the steady state over the tasks shown: per task, the upper quartile plus three times
    the interquartile range (Tukey's far fence, and at least 25% over the median), the largest of
    those. On a loaded machine spikes were more than 2% of the launches, so a high percentile of
    the launches themselves set the axis at 25 ms over a 0.25 ms steady state."""
    tops = []
    for warm in warm_by_task:
        q1, med, q3 = np.percentile(np.asarray(warm, dtype=float), [25, 50, 75])
        tops.append(max(q3 + 3.0 * (q3 - q1), 1.25 * med))
    return float(max(tops + [1e-9]))


def fmt_ms(ms: float) -> str:
    unit, k = time_unit(ms)
    return f"{ms * k:.3g} {unit}"


def box_stats(values) -> dict:
    v = np.sort(np.asarray(values, dtype=float))
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    iqr = q3 - q1
    inside = v[(v >= q1 - 1.5 * iqr) & (v <= q3 + 1.5 * iqr)]
    return {"q1": q1, "median": med, "q3": q3, "low": inside.min(), "high": inside.max(), "n": len(v)}


def run_label(run) -> str:
    return f"#{run.id} {run.workload}"


class PlainLogAxis(pg.AxisItem):
    """A log axis labelled 0.1, 1, 10, 100 in the axis's unit. pyqtgraph's own writes '10¹' beside
    '1' and '2' (and '2·10¹'), two notations on one axis."""

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        return [np.format_float_positional(float(10 ** v * scale), precision=3, unique=True, fractional=False,
                                           trim="-") for v in values]


class _Legend(QListWidget):
    """The legend, as a list beside the plot: a colour swatch and a tick per task."""
    toggled = Signal(str, bool)

    def __init__(self):
        super().__init__()
        self.setMinimumWidth(110)
        self.setMaximumWidth(360)
        self.setTextElideMode(Qt.ElideRight)  # "kernel #index loop…": the kernel and the task index stay readable
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.itemChanged.connect(lambda it: self.toggled.emit(it.data(Qt.UserRole), it.checkState() == Qt.Checked))

    def set_entries(self, entries: list[tuple[str, str, bool]]):
        self.blockSignals(True)
        self.clear()
        for task, color, shown in entries:
            pm = QPixmap(14, 14)
            pm.fill(QColor(color))
            it = QListWidgetItem(QIcon(pm), short_name(task))
            it.setData(Qt.UserRole, task)
            it.setFlags(it.flags() | Qt.ItemIsUserCheckable)
            it.setCheckState(Qt.Checked if shown else Qt.Unchecked)
            it.setToolTip(task)
            self.addItem(it)
        self.blockSignals(False)
        longest = max((self.fontMetrics().horizontalAdvance(short_name(t)) for t, _, _ in entries), default=0)
        self._wanted_width = max(150, min(longest + 60, 300))
        self.updateGeometry()

    def sizeHint(self):  # noqa: N802 - wide enough for the names, but never a minimum that squeezes the tree
        hint = super().sizeHint()
        hint.setWidth(getattr(self, "_wanted_width", 200))
        return hint


class LaunchPlots(QWidget):
    """Timeline and distribution of the session's launch times; it draws, the session keeps the data."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.first_run = 0           # runs before this index are cleared from view (Clear keeps the session)
        self.selected_task: str | None = None
        self.selected_kernel: str | None = None
        self.hidden: set[str] = set()
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.colors: dict[str, str] = {}
        self._run_lines: list = []
        self._legend_tasks: list | None = None
        self._dirty = False
        self.unit = ("ms", 1.0)
        self.cold_clipped = False    # launches lie above the axis (marked on its top edge)
        self.top_ms: float | None = None
        self._edge_items: list = []

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        self.view = QComboBox()
        self.view.addItems(["timeline", "distribution"])
        self.view.setToolTip("Timeline: every launch in order. Distribution: the selected task's launches per run")
        self.scope = QComboBox()
        self.scope.addItems(SCOPES)
        self.scope.setCurrentText("top 10")
        self.scope.setToolTip("Which tasks the timeline shows; tick or untick them in the legend")
        self.log_scale = QCheckBox("log y")
        self.log_scale.setToolTip("logarithmic launch-time axis")
        self.summary = QLabel("")
        self.summary.setMinimumWidth(20)  # clipped in a narrow window rather than widening it
        for w in (QLabel("View"), self.view, QLabel("Tasks"), self.scope, self.log_scale):
            bar.addWidget(w)
        bar.addWidget(self.summary, 1)

        self.plot = pg.PlotWidget(axisItems={"left": PlainLogAxis("left")})
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.setLabel("bottom", "launch # (runs apart)")
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.getPlotItem().vb.sigXRangeChanged.connect(self._space_run_labels)
        self.plot.getPlotItem().vb.sigResized.connect(self._space_run_labels)
        self.legend = _Legend()
        self.dist = pg.PlotWidget(axisItems={"left": PlainLogAxis("left")})
        self.dist.showGrid(x=False, y=True, alpha=0.3)
        self.dist.getAxis("left").enableAutoSIPrefix(False)
        self.dist.setLabel("bottom", "run")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.plot)
        self.stack.addWidget(self.dist)
        split = QSplitter()
        split.addWidget(self.stack)
        split.addWidget(self.legend)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 0)  # the legend keeps the width its names ask for (capped); the plot takes the rest
        split.setChildrenCollapsible(False)
        self.splitter = split
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(0)
        v.addLayout(bar)
        v.addWidget(split, 1)

        self.view.currentIndexChanged.connect(self._view_changed)
        self.scope.currentTextChanged.connect(lambda _: self._relayout())
        self.log_scale.toggled.connect(self._log_toggled)
        self.legend.toggled.connect(self._legend_toggled)
        restyle(self, current_theme())
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.refresh)
        self.timer.start(100)  # 10 Hz while data streams; idle ticks cost one flag check

        self.set_session(session)

    def set_session(self, session):
        self.session = session
        self.first_run = 0
        session.launches_added.connect(self._mark)
        session.run_started.connect(self._mark)
        session.run_finished.connect(self._mark)

    def _mark(self, *_):
        self._dirty = True

    def resizeEvent(self, event):  # noqa: N802 - the legend never takes more than 40% of the plot's room
        super().resizeEvent(event)
        self._fit_legend()

    def _fit_legend(self):
        """The legend as wide as its names ask (capped at 40%): after a resize and after its entries
        change (it kept its empty width before, and every name read 'particle_step …')."""
        w = self.splitter.width()
        lw = min(getattr(self.legend, "_wanted_width", 200), max(110, int(0.4 * w)))
        self.splitter.setSizes([max(1, w - lw), lw])

    # ---- what is on show
    @property
    def runs(self) -> list:
        return self.session.runs[self.first_run:]

    def tasks(self) -> list[str]:
        seen = {}
        for r in self.runs:
            seen.update(dict.fromkeys(r.times))
        return list(seen)

    def values(self, task: str, last_only: bool = False) -> list[float]:
        runs = self.runs[-1:] if last_only else self.runs
        return [ms for r in runs for ms in r.times.get(task, [])]

    def _median(self, task: str) -> float:
        r = self.session.last_run_of(task)
        return (r.median(task) or 0.0) if r is not None else 0.0

    def _kernel_of(self, task: str) -> str | None:
        return self.session.kernel_of(task) or next((r.kernel for r in self.runs if task in r.times), None)

    def clear(self):
        """Clears the plots (the session keeps every run: the tree's medians do not change)."""
        self.first_run = len(self.session.runs)
        for c in self.curves.values():
            self.plot.removeItem(c)
        self.curves.clear()
        self.hidden.clear()
        self._relayout()

    def select(self, task: str | None = None, kernel: str | None = None):
        self.selected_task, self.selected_kernel = task, kernel
        self._relayout()

    # ---- what is shown
    def shown_tasks(self) -> list[str]:
        tasks = self.tasks()
        scope = self.scope.currentText()
        if scope == "selected kernel" and self.selected_kernel:
            return [t for t in tasks if self._kernel_of(t) == self.selected_kernel]
        if scope.startswith("top "):
            n = int(scope.split()[1])
            ranked = sorted(tasks, key=lambda t: -self._median(t))
            keep = set(ranked[:n])
            if self.selected_task in tasks:
                keep.add(self.selected_task)
            return [t for t in tasks if t in keep]
        return tasks

    def legend_overlaps_data(self) -> bool:
        """True if any legend pixel lies over the data area (tests assert it never does)."""
        vb = self.plot.getPlotItem().vb
        data = vb.mapRectToScene(vb.boundingRect())
        data_global = self.plot.mapToGlobal(self.plot.mapFromScene(data.topLeft())), \
            self.plot.mapToGlobal(self.plot.mapFromScene(data.bottomRight()))
        lg = self.legend
        tl, br = lg.mapToGlobal(lg.rect().topLeft()), lg.mapToGlobal(lg.rect().bottomRight())
        return lg.isVisible() and not (br.x() < data_global[0].x() or tl.x() > data_global[1].x()
                                       or br.y() < data_global[0].y() or tl.y() > data_global[1].y())

    def _relayout(self):
        self._legend_tasks = None
        self._dirty = True
        self.refresh()

    def _update_legend(self):
        for t in self.tasks():
            self.colors.setdefault(t, color_for(len(self.colors)))
        shown = self.shown_tasks()
        if shown != self._legend_tasks:
            self._legend_tasks = shown
            self.legend.set_entries([(t, self.colors[t], t not in self.hidden) for t in shown])
            self._fit_legend()

    def _legend_toggled(self, task, shown):
        (self.hidden.discard if shown else self.hidden.add)(task)
        self._dirty = True
        self.refresh()

    def _view_changed(self, index):
        self.stack.setCurrentIndex(index)
        self.legend.setVisible(index == 0)  # the distribution is one task's; its title names it
        self._dirty = True
        self.refresh()

    def _log_toggled(self, on):
        self.plot.setLogMode(y=on)
        self.dist.setLogMode(y=on)
        self._dirty = True
        self.refresh()

    # ---- drawing
    def refresh(self):
        if not self._dirty:
            return
        self._dirty = False
        self._update_legend()
        if self.stack.currentIndex() == 0:
            self._draw_timeline()
        else:
            self._draw_distribution()

    def _space_run_labels(self, *_):
        """Each run's '#N' only where it clears the last one shown, at the view's current pixels per
        launch: many short runs labelled every line overlapped into '#21#22#23'. Rechecked on resize and zoom."""
        vb = self.plot.getPlotItem().vb
        (x0, x1), _ = vb.viewRange()
        px = vb.width() / max(1e-9, x1 - x0)
        right = -1e9   # where the last label shown ends, in pixels from the view's left
        for line in self._run_lines:
            x = (line.value() - x0) * px
            w = line.label.boundingRect().width()       # the text and its margins, in pixels
            show = x >= right + 2 and x + w <= vb.width()
            line.label.setVisible(show)
            if show:
                right = x + w

    def _draw_timeline(self):
        shown = [t for t in self.shown_tasks() if t not in self.hidden]
        # a run's first launch of a task is cold (module load, page faults, caches): often 10-100x the
        # rest, and a preemption spike can be as large. The axis is scaled to the steady state (robust
        # limits from percentiles of the warm launches); anything above is a marked point on the top
        # edge with its value, so nothing runs off the plot unsaid
        series = [v for r in self.runs for t in shown for v in [r.times.get(t, [])] if v]
        warm_by_task = [w for t in shown for w in [[ms for r in self.runs for v in [r.times.get(t, [])]
                                                    for ms in (v[1:] if len(v) > 1 else v)]] if w]
        peak = max((max(v) for v in series), default=0.0)
        self.top_ms = steady_top(warm_by_task) if warm_by_task and not self.log_scale.isChecked() else None
        if self.top_ms is not None and peak <= self.top_ms:
            self.top_ms = None                                 # everything fits: the plain auto range
        self.cold_clipped = self.top_ms is not None
        self.unit = unit, k = time_unit(self.top_ms if self.top_ms is not None else peak)
        self.plot.setLabel("left", f"launch time ({unit})")
        if self.top_ms is not None:
            self.plot.setYRange(0, self.top_ms * k * EDGE_ROOM, padding=0)
        else:
            self.plot.enableAutoRange(axis="y")
        for line in self._run_lines:
            self.plot.removeItem(line)
        self._run_lines = []
        starts, x0 = [], 0
        runs = self.runs
        for run in runs:  # each run starts after the longest series of the run before, plus a gap
            starts.append(x0)
            x0 += max((len(v) for v in run.times.values()), default=0) + 2
        if len(runs) > 1:
            for run, s in zip(runs, starts):
                line = pg.InfiniteLine(pos=s - 1, angle=90, pen=pg.mkPen("#888", style=Qt.DashLine),
                                       label=f"#{run.id}", labelOpts={"position": 0.97, "color": "#888",
                                                                  "fill": PLOT[current_theme()]["background"]})
                line.label.anchors = [(0, 0.5), (0, 0.5)]   # right of its line (pyqtgraph flips it mid-view)
                line.setToolTip(run_label(run))
                self.plot.addItem(line)
                self._run_lines.append(line)
            self._space_run_labels()
        above: list = []   # (x, ms, cold first launch?, task) of the launches above the axis
        for task in self.tasks():
            curve = self.curves.get(task)
            visible = task in shown
            if curve is None:
                if not visible:
                    continue
                curve = self.plot.plot([], [], pen=pg.mkPen(self.colors[task], width=2), symbol="o", symbolSize=4,
                                       symbolBrush=self.colors[task], symbolPen=None, connect="finite")
                curve.setDownsampling(auto=True, method="peak")
                curve.setClipToView(True)
                self.curves[task] = curve
            curve.setVisible(visible)
            if not visible:
                continue
            xs, ys = [], []
            for run, s in zip(runs, starts):
                v = run.times.get(task, [])
                if not v:
                    continue
                xs += list(range(s, s + len(v))) + [s + len(v)]
                ys += [ms * k for ms in v] + [np.nan]  # NaN: no line drawn from one run into the next
                if self.top_ms is not None:
                    above += [(s + i, ms, i == 0 and len(v) > 1, task) for i, ms in enumerate(v) if ms > self.top_ms]
            ys_arr = np.asarray(ys, float)
            if self.top_ms is not None:   # the line reaches the edge where a point is above it, marked there
                ys_arr = np.minimum(ys_arr, self.top_ms * k)
            curve.setData(np.asarray(xs, float), ys_arr)
        self._mark_above(above, k, unit, x0)
        n = sum(r.launches for r in runs)
        cold = [ms for _, ms, first, _ in above if first]
        spikes = [ms for _, ms, first, _ in above if not first]
        notes = []
        if cold:
            notes.append(f"{len(cold)} cold first launch{'es' if len(cold) != 1 else ''} up to {fmt_ms(max(cold))}")
        if spikes:
            notes.append(f"{len(spikes)} spike{'s' if len(spikes) != 1 else ''} up to {fmt_ms(max(spikes))}")
        # what lies above the axis first: a narrow window clips the end of this line
        edge = f"▲ above the axis: {', '.join(notes)} · " if notes else ""
        self.summary.setText(f"{edge}{len(shown)}/{len(self.tasks())} tasks · {len(runs)} run"
                             f"{'s' if len(runs) != 1 else ''} · {n} launch{'es' if n != 1 else ''}"
                             if n else "no launches yet: Run (F5)")
        self.summary.setToolTip(self.summary.text() + ("\n▲ on the top edge: launches above the axis (hollow: a run's "
                                                       "cold first launch), the largest with their values" if notes else ""))

    def _mark_above(self, above: list, k: float, unit: str, x_end: float):
        """Launches above the axis as triangles on its top edge (hollow: a run's cold first launch), each
        with its value where there is room (the largest first, at most MAX_EDGE_LABELS)."""
        for item in self._edge_items:
            self.plot.removeItem(item)
        self._edge_items = []
        if not above or self.top_ms is None:
            return
        y = self.top_ms * k * EDGE_ROOM
        fg = PLOT[current_theme()]["foreground"]
        for first in (True, False):
            pts = [(x, ms, task) for x, ms, f, task in above if f == first]
            if not pts:
                continue
            marks = pg.ScatterPlotItem(
                [x for x, _, _ in pts], [y] * len(pts), symbol="t1", size=11,
                pen=[pg.mkPen(self.colors.get(t, fg), width=2) for _, _, t in pts],
                brush=[pg.mkBrush(None) if first else pg.mkBrush(self.colors.get(t, fg)) for _, _, t in pts],
                tip=None)
            marks.setToolTip("cold first launches above the axis" if first else "launches above the axis")
            marks.setZValue(20)
            self.plot.addItem(marks)
            self._edge_items.append(marks)
        xs = [x for x, *_ in above]
        room = max(1.0, 0.1 * (max(xs) - min(xs) + 1), 0.06 * max(1, max(len(v) for r in self.runs
                                                                         for v in r.times.values())))
        labelled: list[float] = []
        spans: list[tuple[float, float]] = []   # each written label's extent on the x axis
        # axis units per pixel over the range about to be shown (0 .. x_end): the view's own figure may
        # still be the last drawing's
        wpx = float(self.plot.getViewBox().width())
        px = max(x_end, 1.0) * 1.05 / wpx if wpx > 0 else 0.0
        fm = QFontMetrics(QFont())
        for x, ms, first, task in sorted(above, key=lambda p: -p[1]):
            text = ("cold " if first else "") + fmt_ms(ms)
            near = 0.06 * max(x_end, 1.0)
            side = 0.0 if x < near else 1.0 if x > x_end - near else 0.5
            width = (fm.horizontalAdvance(text) + 12) * px   # the text's width in axis units (+ a gap)
            span = (x - side * width, x - side * width + width)
            if len(labelled) >= MAX_EDGE_LABELS or any(abs(x - o) < room for o in labelled) or \
                    any(span[0] < b and a < span[1] for a, b in spans):
                continue    # the largest values are written, never one over another
            labelled.append(x)
            spans.append(span)
            # a mark at the plot's left (right) edge has its value to its right (left): never cut off
            label = pg.TextItem(text, color=fg, anchor=(side, 0.0))
            label.setPos(x, y)
            label.setZValue(21)
            self.plot.addItem(label)
            self._edge_items.append(label)

    def _draw_distribution(self):
        self.dist.clear()
        task = self.selected_task if self.selected_task in self.tasks() else None
        if task is None:
            self.dist.setTitle("select a task with launches")
            return
        per_run = [(r, r.times.get(task, [])) for r in self.runs]
        per_run = [(i + 1, r, v) for i, (r, v) in enumerate((r, v) for r, v in per_run if v)]
        # the axis spans the whiskers (1.5 IQR), so one outlier cannot squash the boxes; points beyond
        # them are outliers, drawn where they fit and counted in the title
        stats = [box_stats(v) for _, _, v in per_run]
        peak = max(max(v) for _, _, v in per_run)
        top, bottom = max(st["high"] for st in stats), min(st["low"] for st in stats)
        outliers = sum(int(np.sum(np.asarray(v) > st["high"])) for (_, _, v), st in zip(per_run, stats))
        clip = peak > 1.5 * top and not self.log_scale.isChecked()
        unit, k = time_unit(top if clip else peak)
        self.dist.setTitle(f"{task}: launch times per run" + (f" ({outliers} outlier{'s' if outliers != 1 else ''} "
                                                               f"above, up to {peak * k:.3g} {unit})" if clip else ""))
        self.dist.setLabel("left", f"launch time ({unit})")
        color = QColor(self.colors.get(task, DISTINCT[0]))
        fill = QColor(color)
        fill.setAlpha(90)
        rng = np.random.default_rng(0)
        span = max(top - bottom, 1e-12) * k
        edge = top * k + 0.1 * span   # the axis's top when clipped: outliers sit on it
        for x, _, v in per_run:
            st = box_stats(np.asarray(v) * k)
            self.dist.addItem(pg.BarGraphItem(x=[x], y0=[st["q1"]], height=[max(st["q3"] - st["q1"], 1e-12)],
                                              width=0.5, brush=fill, pen=pg.mkPen(color, width=1.5)))
            self.dist.addItem(pg.PlotDataItem([x - 0.25, x + 0.25], [st["median"]] * 2, pen=pg.mkPen(color, width=3)))
            self.dist.addItem(pg.PlotDataItem([x, x, np.nan, x, x], [st["low"], st["q1"], np.nan, st["q3"], st["high"]],
                                              pen=pg.mkPen(color, width=1), connect="finite"))
            jitter = x + rng.uniform(-0.18, 0.18, len(v))
            ys = np.asarray(v, dtype=float) * k
            over = ys > edge if clip else np.zeros(len(ys), bool)
            self.dist.addItem(pg.ScatterPlotItem(jitter[~over], ys[~over], size=4, pen=None,
                                                 brush=pg.mkBrush(color.red(), color.green(), color.blue(), 110)))
            if over.any():   # outliers above the axis: triangles on its top edge, the largest with its value
                self.dist.addItem(pg.ScatterPlotItem(jitter[over], np.full(int(over.sum()), edge), symbol="t1",
                                                     size=10, pen=pg.mkPen(color, width=1.5), brush=pg.mkBrush(color)))
                label = pg.TextItem(f"{int(over.sum())} up to {ys[over].max():.3g} {unit}",
                                    color=PLOT[current_theme()]["foreground"], anchor=(0.5, 0.0))
                label.setPos(x, edge)
                self.dist.addItem(label)
        self.dist.getAxis("bottom").setTicks([[(x, run_label(r)) for x, r, _ in per_run]])
        self.dist.setXRange(0.4, len(per_run) + 0.6)
        if clip:
            self.dist.setYRange(bottom * k - 0.1 * span, edge + 0.06 * span, padding=0)
        else:
            self.dist.enableAutoRange(axis="y")
