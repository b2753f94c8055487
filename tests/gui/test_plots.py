"""Launch plots at demo scale (15 tasks, several runs), as the user reads them."""
from types import SimpleNamespace as NS

import pytest
from PySide6.QtGui import QColor

from qdexplorer.gui.plots import DISTINCT, LaunchPlots, box_stats, time_unit
from qdexplorer.gui.tier_chart import TierChart

pytestmark = pytest.mark.gui
TASKS = [(f"k{i // 3}_kernel_{i % 3}_range_for", f"k{i // 3}") for i in range(15)]


def feed(plots, runs=1, n=20, scale=0.01):
    for r in range(runs):
        plots.begin_run()
        for rep in range(n):
            for i, (task, kernel) in enumerate(TASKS):
                plots.add_launch(NS(task=task, kernel=kernel, ms=scale * (i + 1) * (1 + 0.01 * rep) * (r + 1)))


@pytest.fixture
def plots(qtbot):
    p = LaunchPlots()
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
    plots.begin_run()
    plots.add_launch(NS(task=TASKS[0][0], kernel="k0", ms=5.0))
    plots.refresh()
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
    feed(plots, runs=2, n=10)
    plots.refresh()
    xs, ys = plots.curves[TASKS[0][0]].getData()
    gap = [i for i, y in enumerate(ys) if y != y]  # NaN breaks the line between runs
    assert len(gap) == 2 and xs[gap[0] + 1] > xs[gap[0] - 1] + 1
    assert len(plots._run_lines) == 2 and plots._run_lines[1].label.format == "run 2"
    t = TASKS[0][0]
    assert plots.store.median(t, "last run") == pytest.approx(2 * plots.store.median(t, "all runs") / 1.5, rel=0.05)


def test_log_scale_and_distribution_view(plots, qtbot):
    feed(plots, runs=2)
    plots.log_scale.setChecked(True)
    assert plots.plot.getPlotItem().ctrl.logYCheck.isChecked()
    plots.select(task=TASKS[4][0], kernel="k1")
    plots.view.setCurrentText("distribution")
    qtbot.wait(30)
    boxes = [i for i in plots.dist.getPlotItem().items if i.__class__.__name__ == "BarGraphItem"]
    assert len(boxes) == 2  # one box per run
    st = box_stats([1, 2, 3, 4, 100])
    assert st["median"] == 3 and st["high"] == 4  # the outlier is beyond the whisker


def test_tiers_are_counted_per_stage(qtbot):
    chart = TierChart()
    qtbot.addWidget(chart)
    for tier in ("miss", "miss", "memory"):
        chart.add_compile(NS(target="nvptx", tier=tier))
    chart.add_compile(NS(target="host", tier="disk"))
    chart.refresh()
    assert (chart.count("PTX", "miss"), chart.count("PTX", "memory"), chart.count("host object", "disk")) == (2, 1, 1)
    assert chart.count("PTX", "disk") == 0
    assert "PTX 1 memory 2 miss" in chart.getPlotItem().titleLabel.text


def test_streaming_updates_existing_curves(plots, qtbot):
    plots.scope.setCurrentText("all tasks")
    feed(plots, n=3)
    plots.refresh()
    curve = plots.curves[TASKS[0][0]]
    plots.add_launch(NS(task=TASKS[0][0], kernel="k0", ms=0.02))
    qtbot.waitUntil(lambda: len(curve.getData()[1]) == 5, timeout=1000)  # the 10 Hz timer, no manual refresh
    assert plots.curves[TASKS[0][0]] is curve  # made once, fed with setData
    assert QColor(DISTINCT[0]).isValid()
