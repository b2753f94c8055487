"""Launch plots at demo scale (15 tasks, several runs), as the user reads them."""
import itertools

import pytest
from PySide6.QtGui import QColor

from qdexplorer.events import LaunchesTimed, RunFinished, RunStarted, WorkloadResult
from qdexplorer.gui.timing.plots import DISTINCT, LaunchPlots, box_stats, time_unit
from qdexplorer.gui.timing.tier_chart import TierChart
from qdexplorer.runtime.launch import LaunchTiming
from qdexplorer.session import Session

pytestmark = pytest.mark.gui
TASKS = [(f"k{i // 3}_kernel_{i % 3}_range_for", f"k{i // 3}") for i in range(15)]
KERNELS = sorted({k for _, k in TASKS})
_ids = itertools.count(1)


def timing(task, kernel, ms):
    return LaunchTiming(task, kernel, "cpu", ms, 1, 128)


def feed(plots, rounds=1, n=20, scale=0.01):
    """Each round runs every kernel's workload once, as `Run all` does: one RunRecord per kernel."""
    s = plots.session
    for r in range(rounds):
        for kernel in KERNELS:
            tasks = [(i, t) for i, (t, k) in enumerate(TASKS) if k == kernel]
            rid = next(_ids)
            s.apply(RunStarted(rid, f"{kernel}_wl", kernel, "cpu", n, tuple(t for _, t in tasks)))
            for rep in range(n):
                s.apply(LaunchesTimed(rid, f"{kernel}_wl", tuple(
                    timing(t, kernel, scale * (i + 1) * (1 + 0.01 * rep) * (r + 1)) for i, t in tasks)))
            s.apply(RunFinished(rid, f"{kernel}_wl", "passed", WorkloadResult(f"{kernel}_wl", kernel, "cpu", ok=True)))


@pytest.fixture
def plots(qtbot):
    p = LaunchPlots(Session())
    qtbot.addWidget(p)
    p.resize(1000, 340)
    p.show()
    return p


def test_fifteen_tasks_get_distinct_colours_and_a_legend_beside_the_data(plots, qtbot):
    plots.scope.setCurrentText("all tasks")
    feed(plots)
    plots.refresh()
    qtbot.wait(50)
    assert len(plots.curves) == 15 and plots.legend.count() == 15
    assert len({plots.colors[t] for t, _ in TASKS}) == 15
    assert not plots.legend_overlaps_data()
    for w, h in ((1400, 420), (900, 260)):
        plots.resize(w, h)
        qtbot.wait(30)
        assert not plots.legend_overlaps_data()
        assert plots.legend.width() >= 150


def test_units_are_picked_from_the_data(plots):
    feed(plots, scale=0.01)  # 10..150 µs
    plots.refresh()
    assert plots.unit == ("µs", 1000.0) and "µs" in plots.plot.getAxis("left").labelText
    ys = plots.curves[TASKS[-1][0]].getData()[1]
    assert ys[0] == pytest.approx(150)  # 0.15 ms shown as 150 µs, not "ms (x0.001)"
    plots.session.apply(RunStarted(999, "big", "k0", "cpu", 200, (TASKS[0][0],)))
    plots.session.apply(LaunchesTimed(999, "big", tuple(timing(TASKS[0][0], "k0", 5.0) for _ in range(200))))
    plots.refresh()   # a steady 5 ms (not one launch: that would be a spike, marked on the edge)
    assert plots.unit == ("ms", 1.0) and time_unit(0.5) == ("µs", 1000.0)


def test_top_n_and_selected_kernel_scopes_and_the_rest_one_click_away(plots):
    feed(plots)
    plots.scope.setCurrentText("top 5")
    shown = plots.shown_tasks()
    assert shown == [t for t, _ in TASKS[10:]]  # the slowest five
    assert sum(c.isVisible() for c in plots.curves.values()) == 5
    plots.select(task="k1_kernel_0_range_for", kernel="k1")
    plots.scope.setCurrentText("selected kernel")
    assert plots.shown_tasks() == ["k1_kernel_0_range_for", "k1_kernel_1_range_for", "k1_kernel_2_range_for"]
    plots.scope.setCurrentText("all tasks")
    item = plots.legend.item(0)
    item.setCheckState(item.checkState().__class__.Unchecked)  # untick in the legend hides the curve
    assert not plots.curves[TASKS[0][0]].isVisible()


def test_runs_are_separated_and_medians_have_a_run_scope(plots):
    plots.scope.setCurrentText("all tasks")
    feed(plots, rounds=2, n=10)
    plots.refresh()
    xs, ys = plots.curves[TASKS[0][0]].getData()
    finite = [(x, y) for x, y in zip(xs, ys) if y == y]
    assert len(finite) == 20 and len(ys) - len(finite) == 2  # NaN breaks the line where each of its runs ends
    second = [x for x, y in finite[10:]]
    assert second[0] > finite[9][0] + 1  # the second run of k0 starts further right, not glued on
    assert len(plots._run_lines) == 10 and plots._run_lines[5].label.format.startswith("#")
    t = TASKS[0][0]
    first_median = sorted(plots.values(t)[:10])[5]
    assert plots.session.median(t) == pytest.approx(2 * first_median, rel=0.06)  # the tree's median: latest run


def test_log_scale_and_distribution_view(plots, qtbot):
    feed(plots, rounds=2)
    plots.log_scale.setChecked(True)
    assert plots.plot.getPlotItem().ctrl.logYCheck.isChecked()
    plots.select(task=TASKS[4][0], kernel="k1")
    plots.view.setCurrentText("distribution")
    qtbot.wait(30)
    boxes = [i for i in plots.dist.getPlotItem().items if i.__class__.__name__ == "BarGraphItem"]
    assert len(boxes) == 2  # one box per run
    st = box_stats([1, 2, 3, 4, 100])
    assert st["median"] == 3 and st["high"] == 4  # the outlier is beyond the whisker


def test_tiers_are_counted_per_stage(qtbot, tmp_path):
    from qdexplorer.engine import Engine
    from qdexplorer.project.loader import bundled_demo
    session = Session()
    chart = TierChart(session)
    qtbot.addWidget(chart)
    with Engine(bundled_demo(), backend="cpu", in_process=True, cache_dir=str(tmp_path)) as eng:
        eng.subscribe(session.apply)
        eng.compile(["saxpy", "copy"], target="nvptx")
        eng.compile(["saxpy", "copy"], target="nvptx")  # warm: memory hits replace the misses
        eng.compile(["saxpy"], target="host")
    assert (chart.count("PTX", "memory"), chart.count("PTX", "miss"), chart.count("host", "miss")) == (2, 0, 1)
    assert "PTX: 2 memory" in chart.toolTip() and "host: 1 miss" in chart.toolTip()
    ticks = [v for _, values in chart.getAxis("left").tickValues(0, 2.3, 200) for v in values]
    assert ticks and all(float(v).is_integer() for v in ticks)   # counts of tasks: whole numbers only


def test_streaming_updates_existing_curves(plots, qtbot):
    plots.scope.setCurrentText("all tasks")
    feed(plots, n=3)
    plots.refresh()
    curve = plots.curves[TASKS[0][0]]
    last = plots.session.runs[0]
    plots.session.apply(LaunchesTimed(last.id, last.workload, (timing(TASKS[0][0], "k0", 0.02),)))
    qtbot.waitUntil(lambda: len(curve.getData()[1]) == 5, timeout=60000)  # the 10 Hz timer, no manual refresh
    assert plots.curves[TASKS[0][0]] is curve  # made once, fed with setData
    assert QColor(DISTINCT[0]).isValid()


def test_cold_first_launches_and_spikes_do_not_flatten_the_timeline(plots, qtbot):
    """Issue 31: runs reached 6-7 ms on the axis against a 0.2 ms median. The axis comes from percentiles
    of the warm launches; the cold first launch (14 ms) and a spike (6 ms) sit on its top edge as
    marked points with their values, and the summary says how many and how large."""
    s = plots.session
    plots.scope.setCurrentText("all tasks")
    task = TASKS[0][0]
    s.apply(RunStarted(900, "wl", "k0", "cpu", 60, (task,)))
    s.apply(LaunchesTimed(900, "wl", tuple(timing(task, "k0", 14.0 if i == 0 else 6.0 if i == 30
                                                  else 0.2 + 0.001 * (i % 7)) for i in range(60))))
    plots.refresh()
    top = plots.plot.getViewBox().viewRange()[1][1]
    assert plots.unit[0] == "µs" and 0.2 * 1000 < top < 0.3 * 1000   # the steady state fills the axis
    ys = plots.curves[task].getData()[1]
    assert max(y for y in ys if y == y) <= top                       # the line stops at the edge
    marks = [i for i in plots.plot.getPlotItem().items if type(i).__name__ == "ScatterPlotItem"]
    xs = sorted(float(x) for m in marks for x in m.getData()[0])
    assert xs == [0.0, 30.0]                                         # both marked, where they happened
    labels = {i.toPlainText() for i in plots.plot.getPlotItem().items if type(i).__name__ == "TextItem"}
    assert {"cold 14 ms", "6 ms"} <= labels
    cold = next(i for i in plots.plot.getPlotItem().items if type(i).__name__ == "TextItem"
                and i.toPlainText() == "cold 14 ms")
    assert cold.anchor[0] == 0          # at the plot's left edge its value reads to the right, never cut off
    text = plots.summary.text()
    assert "1 cold first launch up to 14 ms" in text and "1 spike up to 6 ms" in text and "1 run ·" in text
    plots.log_scale.setChecked(True)                                  # a log axis shows them all
    assert "cold" not in plots.summary.text()
    assert not [i for i in plots.plot.getPlotItem().items if type(i).__name__ == "TextItem"]


def test_an_outlier_does_not_collapse_the_distribution_box(plots):
    s = plots.session
    task = TASKS[0][0]
    s.apply(RunStarted(901, "wl", "k0", "cpu", 40, (task,)))
    s.apply(LaunchesTimed(901, "wl", tuple(timing(task, "k0", 50.0 if i == 20 else 1.0 + 0.01 * (i % 10))
                                           for i in range(40))))
    plots.select(task, "k0")
    plots.view.setCurrentIndex(1)
    lo, hi = plots.dist.getViewBox().viewRange()[1]
    assert hi < 2.0 and lo > 0.5                        # the box (1.00..1.09 ms) fills the axis
    assert "1 outlier above, up to 50 ms" in plots.dist.getPlotItem().titleLabel.text
    edge = [i for i in plots.dist.getPlotItem().items if type(i).__name__ == "ScatterPlotItem"
            and i.opts["symbol"] == "t1"]
    assert len(edge) == 1 and lo < edge[0].getData()[1][0] < hi        # drawn on the axis's edge, in view
    assert "1 up to 50 ms" in {i.toPlainText() for i in plots.dist.getPlotItem().items if type(i).__name__ == "TextItem"}


def test_the_legend_widens_to_its_names_when_the_first_run_arrives(qtbot):
    """The legend was sized while empty and kept that width: five tasks of one kernel all read
    'particle_step …'. It is fitted again when its entries change, with no resize."""
    long_tasks = [(f"particle_step_kernel_{i}_bounce_range_for", "particle_step") for i in range(3)]
    p = LaunchPlots(Session())
    qtbot.addWidget(p)
    p.resize(700, 340)
    p.show()
    qtbot.wait(30)
    # as in the window: the first fit ran while the splitter was still small, and a splitter gives the
    # room it gains to the plot (the legend's stretch is 0), so the legend stayed at its minimum
    p.splitter.setSizes([p.splitter.width() - 110, 110])
    s, rid = p.session, next(_ids)
    s.apply(RunStarted(rid, "wl", "particle_step", "cpu", 3, tuple(t for t, _ in long_tasks)))
    s.apply(LaunchesTimed(rid, "wl", tuple(timing(t, k, 0.1 * (i + 1)) for i, (t, k) in enumerate(long_tasks))))
    s.apply(RunFinished(rid, "wl", "passed", WorkloadResult("wl", "particle_step", "cpu", ok=True)))
    p.refresh()
    qtbot.wait(30)
    assert p.legend.count() == 3
    fm = p.legend.fontMetrics()
    for i in range(p.legend.count()):
        text = p.legend.item(i).text()
        assert p.legend.viewport().width() - 30 >= fm.horizontalAdvance(text), text   # icon, tick, margins
    assert not p.legend_overlaps_data()


def test_the_log_axis_writes_plain_numbers(plots):
    """Issue 22 #12: the log axis read '10¹' beside '1' and '2'."""
    feed(plots)
    plots.log_scale.setChecked(True)
    for axis in (plots.plot.getAxis("left"), plots.dist.getAxis("left")):
        assert axis.logMode
        assert axis.tickStrings([-2, -1, 0, 1, 2, 3], 1.0, 1.0) == ["0.01", "0.1", "1", "10", "100", "1000"]
        assert axis.tickStrings([0.30103, 1.30103], 1.0, 0.1) == ["2", "20"]


def test_run_labels_never_overlap_and_return_when_zoomed_in(plots, qtbot):
    """30 short runs: every '#N' on its line read '#21#22#23' at 1400 px. Shown labels keep apart;
    zoomed into a few runs, each gets its label again."""
    plots.scope.setCurrentText("all tasks")
    feed(plots, rounds=6, n=4)
    plots.refresh()
    qtbot.wait(100)
    lines = plots._run_lines
    assert len(lines) == 30

    def boxes():
        return [ln.label.mapRectToScene(ln.label.boundingRect()) for ln in lines if ln.label.isVisible()]
    shown = boxes()
    assert 2 <= len(shown) < 30
    assert all(a.right() <= b.left() for a, b in itertools.pairwise(shown)), \
        [(int(b.left()), int(b.right())) for b in shown]
    plots.plot.getPlotItem().vb.setXRange(lines[10].value(), lines[13].value(), padding=0)
    qtbot.wait(100)
    assert all(ln.label.isVisible() for ln in lines[10:13])


def test_the_quadrants_comparison_plot_scales_to_the_steady_state(qtbot):
    """Issue 31: the Quadrants window's comparison said "launch # (x0.001)", its table headers were cut
    ("enerated media"), and a 15 ms first launch set the axis over 20 µs medians."""
    from qdexplorer.gui.quadrants_window.quadrants_compare import ComparisonPanel
    panel = ComparisonPanel()
    qtbot.addWidget(panel)
    panel.resize(900, 700)
    panel.show()
    for table in (panel.edits, panel.ours):        # empty or not, no header is cut
        header = table.horizontalHeader()
        assert all(header.sectionSize(c) >= header.sectionSizeFromContents(c).width()
                   for c in range(table.columnCount()))
    gen = [15.6] + [0.020 + 0.001 * (i % 3) for i in range(19)]
    gen[7] = 7.9
    panel.plot_task("saxpy_kernel_1_range_for", gen, [9.3] + [0.015] * 19)
    top = panel.plot.getViewBox().viewRange()[1][1]
    assert "launch time (µs)" in panel.plot.getAxis("left").labelString() and top < 50      # µs, the steady state
    assert "x0.001" not in panel.plot.getAxis("bottom").labelString()
    assert panel.plot.getAxis("bottom").autoSIPrefixScale == 1.0
    labels = {i.toPlainText() for i in panel.plot.getPlotItem().items if type(i).__name__ == "TextItem"}
    assert {"cold 15.6 ms", "7.9 ms"} <= labels and "cold 9.3 ms" not in labels   # one value per place


def test_quadrants_spike_labels_never_overlap_with_many_launches(qtbot):
    """Issue 42: spike labels 2 launches apart overlapped on a plot of 60 launches (room was 1.5 launches)."""
    from qdexplorer.gui.quadrants_window.quadrants_compare import ComparisonPanel
    panel = ComparisonPanel()
    qtbot.addWidget(panel)
    panel.resize(900, 700)
    panel.show()
    gen = [0.02] * 60
    for i, v in ((10, 8.0), (12, 7.0), (14, 6.0), (40, 5.0)):
        gen[i] = v
    panel.plot_task("t", gen, [0.02] * 60)
    labels = [i for i in panel.plot.getPlotItem().items if type(i).__name__ == "TextItem"]
    xs = sorted(i.pos().x() for i in labels)
    assert xs == [10.0, 40.0], xs    # 12 and 14 would be written over 10's label
    qtbot.wait(50)
    rects = [i.mapRectToScene(i.boundingRect()) for i in labels]
    assert not rects[0].intersects(rects[1])


def test_timeline_spike_labels_never_overlap(plots, qtbot):
    """Issue 42 (seen again at 1400x900): `3.78 ms` at the left edge reads to the right and ran into the
    centred `5.46 ms` three launches on; a label is written only where its whole text fits."""
    s = plots.session
    plots.scope.setCurrentText("all tasks")
    plots.resize(560, 300)
    task = TASKS[0][0]
    ms = [1.2 + 0.01 * (i % 5) for i in range(20)]
    ms[1], ms[3], ms[8], ms[10] = 3.78, 5.46, 4.54, 2.74
    s.apply(RunStarted(901, "wl", "k0", "cpu", 20, (task,)))
    s.apply(LaunchesTimed(901, "wl", tuple(timing(task, "k0", v) for v in ms)))
    plots.refresh()
    qtbot.wait(50)
    plots.refresh()   # laid out: the view's pixel size is known
    labels = [i for i in plots.plot.getPlotItem().items if type(i).__name__ == "TextItem"]
    assert "5.46 ms" in {i.toPlainText() for i in labels}   # the largest is always written
    rects = [i.mapRectToScene(i.boundingRect()) for i in labels]
    assert not any(a.intersects(b) for k, a in enumerate(rects) for b in rects[k + 1:]), \
        [(i.toPlainText(), r) for i, r in zip(labels, rects)]


def test_a_comparison_without_an_interval_is_listed_not_a_crash(qtbot):
    """A Quadrants run of fewer than 4 rounds a side has no interval (JSON keeps its bounds as null): reopening
    such a saved run failed in the table with a TypeError; its row says "none" and the verdict's reason."""
    from qdexplorer.gui.quadrants_window.quadrants_compare import ComparisonPanel
    panel = ComparisonPanel()
    qtbot.addWidget(panel)
    row = {"task": "saxpy_c80_0_range_for", "edited": True, "internal": False, "generated": {"median_ms": 0.02},
           "edited_run": {"median_ms": 0.021}, "ratio": 1.05, "state": "edited", "used": True,
           "stats": {"ci": [None, None], "verdict": "unsure", "reason": "2 rounds a side; 4 give an interval"}}
    with_ci = dict(row, task="copy_c81_0_range_for", stats=dict(row["stats"], ci=[0.9, 1.2], verdict="same", reason=""))
    panel.show_edit_rows([row, with_ci])
    cells = [[panel.edits.item(r, c).text() for c in range(panel.edits.columnCount())] for r in range(2)]
    assert cells[0][6] == "none" and cells[0][7].startswith("unsure (2 rounds")
    assert cells[1][6] == "0.900 – 1.200" and cells[1][7] == "same"
