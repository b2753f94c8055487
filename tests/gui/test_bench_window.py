"""Bench & save, saved-run comparison and Compare with generated, in the real window (CPU backend)."""
import shutil

import pytest

from qdexplorer.engine import Engine
from qdexplorer.project.loader import bundled_demo, load_project

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, tmp_path):
    from qdexplorer.gui.main_window import MainWindow
    proj_dir = tmp_path / "demo"
    shutil.copytree(bundled_demo(), proj_dir)
    proj = load_project(proj_dir)
    win = MainWindow(lambda: Engine(proj, backend="cpu", cache_dir=str(tmp_path / "cache"), workers=2),
                     proj.name, "no GPU in this test", watch=proj.files)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: len(win.compiled) >= 15 and "compiled" in win.statusBar().currentMessage(),
                    timeout=90000)
    yield win
    win.close()


def test_bench_twice_then_compare_the_saved_runs(window, qtbot, tmp_path):
    win, bench = window, window.bench
    assert bench.history is None and not (tmp_path / "demo" / ".qdexplorer" / "history.sqlite").exists()
    win.workload.setCurrentText("particles_64k")
    win.repeat.setValue(5)
    for n in (1, 2):
        bench.bench_act.trigger()
        qtbot.waitUntil(lambda: "saved run" in win.statusBar().currentMessage() and bench.compare.combo_b.count() == n,
                        timeout=90000)
    assert bench.history.path == tmp_path / "demo" / ".qdexplorer" / "history.sqlite"
    runs = bench.history.list()
    assert [(r.status, r.launches, r.tasks) for r in runs] == [("complete", 25, 5)] * 2
    assert bench.hist.task.count() == 5 and len(bench.hist.points) == 2

    bench.compare.compare_btn.click()  # the two newest runs are preselected
    assert bench.tabs.currentWidget() is bench.compare
    assert bench.compare.table.rowCount() == 6  # 5 tasks + the workload total
    assert {bench.compare.table.item(r, 6).text() for r in range(6)} <= {"same", "faster", "slower"}
    assert bench.compare.comparison.a == runs[0].label and bench.compare.comparison.b == runs[1].label


def test_compare_with_generated_from_the_ptx_editor(window, qtbot):
    win, bench = window, window.bench
    task = "saxpy_kernel_0_range_for"
    win.tree.select(task)
    assert not win.views.compare_btn.isEnabled()  # nothing to compare without an override
    win.views.ptx.setPlainText(win.views.ptx.toPlainText() + "\n// same code, by hand\n")
    win.views.save_btn.click()
    qtbot.waitUntil(lambda: win.views.compare_btn.isEnabled(), timeout=60000)
    win.views.compare_btn.click()
    qtbot.waitUntil(lambda: "override is" in win.statusBar().currentMessage(), timeout=120000)
    cmp = bench.compare.comparison
    assert (cmp.a, cmp.b) == ("generated", "override")
    row = cmp.task(task)
    # the CPU backend runs the host object, so the PTX override cannot change its time
    assert row.n_a == row.n_b == 40 and row.verdict == "same"
    assert bench.tabs.currentWidget() is bench.compare
