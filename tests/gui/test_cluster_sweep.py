"""The window's Cluster setting, device selector, "runs on" label and Sweep tab (issue 19), in the real
window on the CPU backend: a real sweep for the heat map, a real private Ray cluster (`local`) for
the selector."""
import math

import pytest

from qdexplorer.engine import Engine
from tests.remote.projects import TASK, scale_project

pytestmark = pytest.mark.gui


def _window(qtbot, tmp_path, settings_path):
    from qdexplorer.gui.main_window import MainWindow
    from qdexplorer.gui.settings import Settings
    proj = scale_project(tmp_path / "scale")
    win = MainWindow(lambda path: (lambda: Engine(path, backend="cpu", cache_dir=str(tmp_path / "cache"), workers=1)),
                     proj, "no GPU in this test", settings=Settings(str(settings_path)))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: TASK in win.compiled and not win.bridge_busy(), timeout=90000)
    return win


def test_a_sweep_in_the_sweep_tab_fills_the_heat_map_and_stars_the_best(qtbot, tmp_path):
    from qdexplorer.gui.timing.sweep_view import BEST_MARK
    from qdexplorer.gui.task_tree import COLUMNS
    win = _window(qtbot, tmp_path, tmp_path / "s.ini")
    view = win.sweep
    view.block_dims.setText("64,256")
    view.rounds.setValue(2)
    view.start_button.click()
    qtbot.waitUntil(lambda: not view.running, timeout=120000)
    result = view.heat.result
    assert result is not None, view.status.text()
    tasks, labels, grid = result.heatmap()
    assert tasks == [TASK] and labels == ["block_dim=128", "block_dim=64", "block_dim=256"]  # the default first
    assert view.heat.rowCount() == 1 and view.heat.columnCount() == 3
    assert view.heat.horizontalHeaderItem(0).text() == "block_dim=128\n(default)"
    best = result.best(TASK)
    for j, label in enumerate(labels):
        text = view.heat.item(0, j).text()
        starred = text.startswith(BEST_MARK)
        assert starred == (label == best.variant)
        assert text.removeprefix(BEST_MARK + " ") == ("—" if math.isnan(grid[0][j]) else f"{grid[0][j]:.3f}")
        cell = next(c for c in result.cells() if c.variant == label)
        assert f"median {cell.median_ms:.4f} ms" in view.heat.item(0, j).toolTip()
    assert view.heat.item(0, 0).text().endswith("1.000")
    # the sweep's runs time other block sizes: the tree's Launch column does not show them unsaid (issue 31)
    assert win.tree.items[TASK].text(COLUMNS.index("Launch")) == "" and win.session.runs
    assert win.run_status.text().startswith("sweep finished")
    # saved in the project's history, listed, and read back into the same map
    assert [view.saved.itemText(i) for i in range(view.saved.count())] == [result.name]
    view.heat.clear()
    view.show_saved(result.name)
    assert view.heat.item(0, 0).text().endswith("1.000") and view.heat.columnCount() == 3
    # a local engine says so in the status bar before any run (it was empty until then: issue 31)
    assert win.cluster.where.text() == "runs on this machine (cpu)"
    win.runs.run()
    qtbot.waitUntil(lambda: win.cluster.where.text() == "runs on this machine (cpu)", timeout=60000)
    win.close()


@pytest.mark.long   # a private cluster of its own
def test_the_cluster_setting_lists_the_clusters_nodes_runs_there_and_is_remembered(qtbot, tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed (pip install '.[test]')")
    from qdexplorer.remote import cluster
    from qdexplorer.remote.gpus import node_gpus
    win = _window(qtbot, tmp_path, tmp_path / "s.ini")
    c = win.cluster
    assert c.device.count() == 1 + len(node_gpus()) and "ray" not in c.device.itemText(0)
    try:
        c.set_cluster("local")   # a private Ray cluster here: its nodes' CPUs (no GPU on this machine)
        qtbot.waitUntil(lambda: not c.listing() and c.device.count() > 1, timeout=120000)
        labels = [c.device.itemText(i) for i in range(c.device.count())]
        nodes = cluster.nodes()
        assert labels[0] == "any node (Ray places it)"
        assert [t for t in labels if t.startswith("CPU (")] == [f"CPU ({n.host}, {n.cpus:g} cores)" for n in nodes]
        assert len(labels) == 1 + len(cluster.devices()) + len(nodes)
        c.device.setCurrentIndex(labels.index(f"CPU ({nodes[0].host}, {nodes[0].cpus:g} cores)"))
        c.device.activated.emit(c.device.currentIndex())
        qtbot.waitUntil(lambda: win.bridge.engine is not None and win.bridge.engine.cluster == "local"
                        and TASK in win.compiled and not win.bridge_busy(), timeout=120000)
        # said as soon as the device is chosen, before the first run (issue 31)
        assert c.where.text() == f"runs on CPU ({nodes[0].host}, {nodes[0].cpus:g} cores) via local"
        win.runs.run()
        qtbot.waitUntil(lambda: c.where.text().startswith("runs on CPU (") and not win.bridge_busy(), timeout=120000)
        assert c.where.text() == f"runs on CPU ({nodes[0].host}) via local"
        win.close()
        # remembered: a new window starts on the same cluster and device
        win2 = _window(qtbot, tmp_path / "again", tmp_path / "s.ini")
        assert win2.cluster.address.currentText() == "local"
        qtbot.waitUntil(lambda: not win2.cluster.listing(), timeout=120000)
        assert win2.cluster.device.currentText() == f"CPU ({nodes[0].host}, {nodes[0].cpus:g} cores)"
        qtbot.waitUntil(lambda: win2.bridge.engine is not None and win2.bridge.engine.cluster == "local", timeout=60000)
        win2.close()
    finally:
        cluster.disconnect()   # the private cluster ends with its processes and its folder
