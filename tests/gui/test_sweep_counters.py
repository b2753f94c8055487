"""The Sweep tab with counters on (issue 30): each variant of each task profiled once after the sweep,
shown per variant beside the heat map, as `qdexplorer sweep --counters` prints them. A fake ncu on PATH
hands over the real report of the demo's saxpy task; copy's profile then finds no result for copy."""
import shutil

import pytest

from qdexplorer.engine import Engine
from qdexplorer.project.loader import bundled_demo
from tests.conftest import SESSION_CACHE

from ..counters.conftest import TASK, fake_ncu  # noqa: F401 - the fixture

pytestmark = pytest.mark.gui
COPY = "copy_kernel_0_range_for"


def test_sweep_tab_shows_counters_per_variant(fake_ncu, qtbot, tmp_path):  # noqa: F811
    from qdexplorer.gui.main_window import MainWindow
    from qdexplorer.gui.settings import Settings
    from qdexplorer.gui.timing.sweep_view import counter_cells
    fake_ncu.mode("good")
    proj = tmp_path / "p"
    proj.mkdir()
    shutil.copy(bundled_demo() / "saxpy.py", proj)
    win = MainWindow(lambda path: (lambda: Engine(path, backend="cpu", cache_dir=SESSION_CACHE, workers=1)),
                     proj, "no GPU in this test", settings=Settings(str(tmp_path / "s.ini")))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: TASK in win.compiled and not win.bridge_busy(), timeout=90000)
    view = win.sweep
    assert not view.counters_table.isVisibleTo(view)
    view.block_dims.setText("64,256")
    view.rounds.setValue(1)
    view.counters.setCurrentText("counters: quick")
    view.start_button.click()
    qtbot.waitUntil(lambda: not view.running, timeout=180000)
    assert view.heat.result is not None, view.status.text()
    table = view.counters_table
    rows = {(table.item(i, 0).text(), table.item(i, 1).text()): i for i in range(table.rowCount())}
    labels = ["block_dim=128", "block_dim=64", "block_dim=256"]
    assert set(rows) == {(t, v) for t in (TASK, COPY) for v in labels}
    assert table.isVisibleTo(view)
    header = [table.horizontalHeaderItem(j).text() for j in range(table.columnCount())]
    assert header[2:5] == ["achieved occ.", "theoretical occ.", "registers"]
    for v in labels:
        ok = table.rows[rows[(TASK, v)]]
        assert ok.state == "ok" and ok.registers == 24
        assert [table.item(rows[(TASK, v)], j).text() for j in range(2, 8)] == counter_cells(ok)
        assert table.item(rows[(TASK, v)], 2).text().endswith("%")
        bad = table.rows[rows[(COPY, v)]]
        assert bad.state == "bad_report" and "holds no result for copy" in bad.message
        assert table.item(rows[(COPY, v)], 4).text() != "–"      # ptxas's registers, without counters
    assert "no counters: " in view.counters_status.text() and "holds no result for copy" in view.counters_status.text()
    # each variant is its own launch: the saxpy profile ran once per block size, not served from one
    assert sum(f"regex:^{TASK}$" in c for c in fake_ncu.calls()) == 3
    # the heat map's cells carry their variant's counters too
    col = [view.heat.horizontalHeaderItem(j).text().split("\n")[0] for j in range(view.heat.columnCount())]
    row = [view.heat.verticalHeaderItem(i).text() for i in range(view.heat.rowCount())].index(TASK)
    assert "counters: achieved occ." in view.heat.item(row, col.index("block_dim=64")).toolTip()
    win._closing = True
    win.close()
