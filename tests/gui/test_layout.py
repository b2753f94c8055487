"""The window at the sizes people use (1400×900, 1920×1080): every column of the tree in view (an
override included), no status line elided, no page wider than its pane."""
import shutil

import pytest

from qdexplorer.compiler import ptxas
from qdexplorer.project.loader import bundled_demo

from .shared_window import shared_window_fixtures
from .test_app import _demo_window, make_window, wait_compiled

pytestmark = pytest.mark.gui
SIZES = [(1400, 900), (1920, 1080)]


def hidden_columns(tree) -> list[str]:
    """Columns not wholly inside the tree's viewport (behind its horizontal scrollbar, or cut)."""
    from qdexplorer.gui.task_tree import COLUMNS
    out = []
    for col, name in enumerate(COLUMNS):
        x = tree.header().sectionViewportPosition(col)
        if x < 0 or x + tree.columnWidth(col) > tree.viewport().width():
            out.append(name)
    return out


def elided(label) -> bool:
    return label.isVisible() and label.fontMetrics().horizontalAdvance(label.text()) > label.contentsRect().width()


@pytest.fixture
def window(qtbot, tmp_path):
    """A window of the test's own: for the tests that save an override or fill a page."""
    shutil.copytree(bundled_demo(), tmp_path / "demo")
    win = make_window(qtbot, tmp_path, tmp_path / "demo")
    win.views.ptx_panel.ask = lambda title, text, yes: True
    yield win
    win._closing = True
    win.close()


# one window for the tests that only select, resize and measure (tests/gui/shared_window.py)
_module_window, shared_window = shared_window_fixtures(_demo_window)


@pytest.mark.skipif(ptxas.find_ptxas() is None, reason=ptxas.INSTALL_HINT)
def test_every_tree_column_stays_in_view_with_an_override(window, qtbot):
    win = window
    task = "particle_step_kernel_2_bounce_range_for"
    win.tree.select(task)
    win.views.ptx.setPlainText(win.views.ptx.toPlainText() + "\n// by hand\n")
    win.actions.save.trigger()
    qtbot.waitUntil(lambda: "ovr" in win.tree.items[task].text(1) and not win.bridge_busy(), timeout=60000)
    for size in SIZES:
        win.resize(*size)
        qtbot.wait(400)  # the tree refits its name column after a resize
        assert hidden_columns(win.tree) == [], size
        assert win.tree.horizontalScrollBar().maximum() == 0, size
        assert not elided(win.views.override_label), (size, win.views.override_label.text())
        res = win.views.resources_label   # registers, smem, lmem, occupancy: a row of their own
        assert "lmem" in res.text() and "occ." in res.text() and not elided(res), (size, res.text())


def test_the_tree_is_as_wide_as_its_columns_not_half_the_window(shared_window, qtbot):
    win = shared_window
    win.resize(1920, 1080)
    qtbot.wait(300)
    tree, total = win.split.sizes()[0], sum(win.split.sizes())
    assert tree < 0.45 * total
    content = win.tree.content_width()
    win.resize(1400, 900)
    win.split.setSizes([content, 1400 - content])   # the first-open split at 1400 px ...
    win.resize(1920, 1080)                          # ... then a wider window: the code panes get the room
    qtbot.wait(300)
    assert win.split.sizes()[0] <= content + 20, (win.split.sizes(), content)
    win.resize(900, 600)                            # narrower again: the tree gives back room too
    qtbot.wait(300)
    tree, total = win.split.sizes()[0], sum(win.split.sizes())
    assert tree <= 0.43 * total, win.split.sizes()
    for size in ((1920, 1080), (1400, 900)):
        win.resize(*size)
        names = [it.text(0) for it in win.tree.items.values()]
        indent = 2 * win.tree.indentation()   # a task row starts one level in
        longest = max(win.tree.fontMetrics().horizontalAdvance(n) for n in names) + indent
        # the tree refits its columns 150 ms after its last resize, which a loaded machine delays
        qtbot.waitUntil(lambda: win.tree.columnWidth(0) >= longest, timeout=60000)
    full = win.tree.items["saxpy_kernel_0_range_for"]
    assert full.text(0) == "#0 range_for" and "saxpy_kernel_0_range_for" in full.toolTip(0)


def test_the_compare_page_fits_the_window_with_room_per_task(window, qtbot, tmp_path):
    """Full width: no horizontal scrolling, each task's bars at least a row high, the legend outside
    the data, and the threshold's meaning on the page."""
    import numpy as np

    from qdexplorer.bench.compare import compare_runs
    from qdexplorer.bench.context import RunContext
    from qdexplorer.bench.run import Launch, Run
    win, bench = window, window.bench
    tasks = list(win.compiled)[:8]
    runs = []
    for name, k in (("baseline", 1.0), ("tuned", 0.8)):
        ls = [Launch(t, "k", "w", i, 0.05 * (j + 1) * (k if j % 3 == 0 else 1.0) * (1 + 0.00005 * i), round=i // 50)
              for j, t in enumerate(tasks) for i in range(400)]
        runs.append(Run(name, RunContext(backend="cuda", timer_resolution_ms=0.0005), ls))
    bench.show(compare_runs(*runs), *runs)
    view = bench.compare
    for size in SIZES:
        win.resize(*size)
        qtbot.wait(300)
        assert win.pages.currentWidget() is view and view.width() >= size[0] - 40, size   # the window's width
        assert view.minimumSizeHint().width() <= view.width(), size
        vb = view.medians.getViewBox()
        assert vb.height() >= 0.8 * len(tasks) * 24, (size, vb.height())
        legend = view.legend.sceneBoundingRect()
        assert not legend.intersects(vb.sceneBoundingRect()) and not legend.intersects(
            view.ratio.getViewBox().sceneBoundingRect()), size
        assert "threshold" in view.meaning.text() and "noise floor" in view.meaning.text()
        assert_names_clear_of_bars(view)
        view.table.selectRow(0)
        qtbot.wait(100)
        assert view.dist_title_fits(), (size, view.dist.getPlotItem().titleLabel.text)   # was cut at 1400 px
    from PySide6.QtGui import QImage
    img = QImage(str(view.export_chart(tmp_path / "chart.png")))
    assert (img.width(), img.height()) == (view.chart.width(), view.chart.height())   # the size on screen


def assert_names_clear_of_bars(view):
    """Each task's name sits above its own bars, on neither them nor the row before; the first row's
    name and ratio label are not cut by the top of the chart (at 26 px a row the names covered the bars)."""
    import pyqtgraph as pg
    from PySide6.QtCore import QRectF

    from qdexplorer.gui.timing.compare_view import A_OFFSET, B_OFFSET, BAR_H
    vb = view.medians.getViewBox()
    names = [i for i in view.medians.items if isinstance(i, pg.TextItem)]
    assert len(names) == len(view.comparison.tasks)
    for row, name in enumerate(names):
        box = name.mapRectToScene(name.boundingRect())
        for y in (row + A_OFFSET, row + B_OFFSET, row - 1 + B_OFFSET):
            bar = vb.mapViewToScene(QRectF(0, y - BAR_H / 2, 1e9, BAR_H)).boundingRect()
            assert not box.intersects(bar), (name.toPlainText(), box, bar)
    top = vb.sceneBoundingRect().top()
    assert names[0].mapRectToScene(names[0].boundingRect()).top() >= top - 1
    first_label = next(i for i in view.ratio.items if isinstance(i, pg.TextItem))
    ratio_top = view.ratio.getViewBox().sceneBoundingRect().top()
    assert first_label.mapRectToScene(first_label.boundingRect()).top() >= ratio_top - 1


def test_source_and_ptx_are_side_by_side(shared_window, qtbot):
    """The line mapping works both ways without flipping tabs: both panes in view at once."""
    win = shared_window
    win.tree.select("saxpy_kernel_0_range_for")
    for size in SIZES:
        win.resize(*size)
        qtbot.wait(200)
        src, ptx = win.views.source_pane, win.views.ptx_panel
        assert src.isVisible() and ptx.isVisible(), size
        assert src.width() > 250 and ptx.width() > 250, (size, src.width(), ptx.width())
        assert abs(src.width() - ptx.width()) < 0.2 * (src.width() + ptx.width()), (size, src.width(), ptx.width())
        left, right = src.mapTo(win, src.rect().topLeft()).x(), ptx.mapTo(win, ptx.rect().topLeft()).x()
        assert left + src.width() <= right, size   # beside it, not stacked or hidden


def test_each_llvm_ir_pane_takes_the_full_width_of_the_code_tabs(shared_window, qtbot):
    """The generated and the optimised LLVM IR were side by side, about 400 px each: now one above the other."""
    win = shared_window
    win.tree.select("saxpy_kernel_0_range_for")
    win.views.tabs.setCurrentIndex(win.views.tabs.indexOf(win.views.ir_split))
    for size in SIZES:
        win.resize(*size)
        qtbot.wait(200)
        room = win.views.ir_split.width()
        for pane in (win.views.llvm_pane, win.views.opt_pane):
            assert pane.isVisible() and pane.width() >= 0.9 * room, (size, pane.width(), room)


def test_run_stop_and_bench_stay_in_the_toolbar_at_800_px(shared_window, qtbot):
    """Issue 22 #13: at 800 px Stop and Bench & save went into the toolbar's overflow menu."""
    win = shared_window
    win.resize(796, 560)   # within the offscreen screen (800x600)
    qtbot.wait(300)
    tb = win.toolbar
    for act in (win.actions.compile, win.actions.run, win.actions.stop, win.bench.bench_act):
        w = tb.widgetForAction(act)
        assert w is not None and w.isVisible() and tb.rect().contains(w.geometry()), act.text()
    assert tb.widgetForAction(win.bench.bench_act).x() < win.backend.x() or \
        not win.backend.isVisible()   # the settings overflow first, from the right


def test_every_toolbar_control_is_in_view_at_1400_px(shared_window, qtbot):
    """Nothing of the toolbar (the Device selector last) goes into its overflow menu at 1400 px."""
    win = shared_window
    win.resize(1400, 900)
    qtbot.wait(300)
    tb = win.toolbar
    for act in tb.actions():
        w = tb.widgetForAction(act)
        if w is not None and not act.isSeparator():
            assert w.isVisible() and tb.rect().contains(w.geometry()), (act.text(), w)
    assert win.cluster.device.isVisible() and win.bench.run_name.isVisible()


def test_the_sweep_tab_fits_its_pane_without_scrolling_sideways(shared_window, qtbot):
    """The Sweep tab's row of settings was wider than the bottom pane at 1400 px: the 'saved' list was
    cut and the heat map scrolled sideways with the page."""
    win = shared_window
    win.bottom.setCurrentWidget(win.sweep)
    for size in SIZES:
        win.resize(*size)
        qtbot.wait(200)
        page = win.bottom.currentWidget()
        room = win.bottom.width() - 8
        assert win.sweep.minimumSizeHint().width() <= room, (size, win.sweep.minimumSizeHint().width(), room)
        saved = win.sweep.saved
        right = saved.mapTo(win.sweep, saved.rect().topRight()).x()
        assert saved.isVisible() and right <= page.width(), (size, right, page.width())


def test_at_1400x900_the_code_gets_the_room_not_the_tree(qtbot, tmp_path):
    """A first open at 1400×900 (issue 31): the tree took 42% of the width, its six figure columns
    padded for sort arrows they did not show, and the source pane showed about 45 characters a line."""
    from qdexplorer.gui.main_window import MainWindow
    from qdexplorer.gui.settings import Settings
    from .test_app import engine_for
    shutil.copytree(bundled_demo(), tmp_path / "demo")
    win = MainWindow(engine_for(tmp_path, False), tmp_path / "demo", "no GPU in this test",
                     settings=Settings(str(tmp_path / "s.ini")))
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    wait_compiled(qtbot, win)
    win.tree.select("particle_step_kernel_2_bounce_range_for")
    qtbot.wait(400)   # the tree refits its columns 150 ms after the compile
    tree, total = win.split.sizes()[0], sum(win.split.sizes())
    assert tree <= 0.37 * total, win.split.sizes()
    assert hidden_columns(win.tree) == []
    src = win.views.source
    assert src.viewport().width() // src.fontMetrics().horizontalAdvance("x") >= 60
    ptx = win.views.ptx
    assert ptx.viewport().width() // ptx.fontMetrics().horizontalAdvance("x") >= 45
    win._closing = True
    win.close()
