"""The desktop app in a real (offscreen) Qt window, driving a real engine with worker processes."""
import shutil
import sys

import pytest

from qdexplorer.engine import Engine
from qdexplorer.project.loader import ProjectError, bundled_demo, load_project

pytestmark = pytest.mark.gui


def test_qt_binding_keeps_none_alive(qapp):
    # PySide6 6.12.0 decrefs None on every void call; on Python < 3.12 that aborts the app later
    from PySide6.QtWidgets import QProgressBar
    bar = QProgressBar()
    before = sys.getrefcount(None)
    for _ in range(1000):
        bar.setVisible(False)
    assert sys.getrefcount(None) - before > -50, "this PySide6 build drops references to None; avoid 6.12.0"


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


def test_window_shows_every_task_and_its_code(window, qtbot, tmp_path):
    win = window
    assert len(win.tree.items) >= 15
    assert win.tree.items["saxpy_kernel_0_range_for"].text(2) == "miss"
    win.tree.select("saxpy_kernel_0_range_for")
    assert ".entry saxpy_kernel_0_range_for" in win.views.ptx.toPlainText()
    assert 'define ptx_kernel void @"saxpy_kernel_0_range_for"' in win.views.llvm.toPlainText()
    assert "y[i] = a * x[i] + y[i]" in win.views.source.toPlainText()
    assert "fast math on" in win.views.override_label.text()  # the project's setting, Quadrants' default
    assert not win.backend.model().item(1).isEnabled()  # cuda greyed out, with the reason
    shot = win.grab()
    assert shot.width() > 800 and shot.height() > 600
    assert shot.save(str(tmp_path / "window.png"))
    img = shot.toImage()
    colors = {img.pixel(x, y) for x in range(0, img.width(), 37) for y in range(0, img.height(), 37)}
    assert len(colors) > 20  # a real, drawn window, not a blank surface


def test_run_plots_live_timings(window, qtbot):
    win = window
    win.workload.setCurrentText("particles_64k")
    win.repeat.setValue(6)
    win.run()
    qtbot.waitUntil(lambda: "run finished" in win.statusBar().currentMessage(), timeout=90000)
    assert "1/1 passed" in win.statusBar().currentMessage()
    series = win.plots.series
    assert len(series) == 5 and all(len(v) == 6 for v in series.values())
    qtbot.wait(250)  # one plot refresh tick
    xs, ys = win.plots.curves["particle_step_kernel_1_range_for"].getData()
    assert len(ys) == 6
    assert win.tree.items["particle_step_kernel_1_range_for"].text(5) != ""
    assert "PASSED" in win.messages.toPlainText()


def test_edit_ptx_saves_an_override_and_reverts(window, qtbot):
    win = window
    task = "copy_kernel_0_range_for"
    win.tree.select(task)
    win.views.ptx.setPlainText(win.views.ptx.toPlainText() + "\n// tuned by hand\n")
    assert "not saved" in win.views.override_label.text()
    win.views.save_btn.click()
    qtbot.waitUntil(lambda: "override (active)" in win.tree.items[task].text(2), timeout=60000)
    path = win.bridge.engine.overrides.folder / f"{task}.ptx"
    assert path.read_text().endswith("// tuned by hand\n")
    win.tree.select(task)
    assert "override active" in win.views.override_label.text()
    win.views.revert_btn.click()
    qtbot.waitUntil(lambda: "override" not in win.tree.items[task].text(2), timeout=60000)
    assert not path.exists()


def test_saving_a_kernel_file_recompiles_only_what_changed(window, qtbot):
    win = window
    f = next(p for p in win.bridge.engine.project.files if p.name == "particles.py")
    f.write_text(f.read_text().replace("RESTITUTION = 0.9", "RESTITUTION = 0.8"))
    # RESTITUTION is a global of particle_step: its five tasks recompile, every other task hits memory
    qtbot.waitUntil(lambda: win.tree.items["particle_step_kernel_2_bounce_range_for"].text(2) == "miss"
                    and win.tree.items["saxpy_kernel_0_range_for"].text(2) == "memory", timeout=60000)
    assert "changed: recompiling" in win.messages.toPlainText()


def test_bad_project_fails_before_any_window(tmp_path):
    from qdexplorer.gui.app import main
    with pytest.raises(ProjectError, match="project folder not found"):
        main(tmp_path / "missing")


def test_cuda_resources_of_the_selected_task_are_shown(window):
    # the CPU backend reports no resources; feed the window what the CUDA backend's LoadEvent carries
    from qdexplorer.events import TaskLoaded
    win = window
    win.tree.select("saxpy_kernel_0_range_for")
    res = {"registers": 24, "static_shared_bytes": 0, "local_bytes": 0, "max_threads_per_block": 1024,
           "block": 128, "active_blocks_per_sm": 16, "occupancy": 1.0}
    win.on_event(TaskLoaded("saxpy_kernel_0_range_for", "cuda", 0.6, res))
    assert win.views.resources_label.text() == "24 regs · 0 B shared · 0 B local · block 128 · occupancy 100%"
    win.tree.select("copy_kernel_0_range_for")
    assert win.views.resources_label.text() == ""


def test_trust_is_asked_once_per_folder_and_remembered(tmp_path, qtbot):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox
    from qdexplorer.gui.trust_dialog import confirm_trust
    from qdexplorer.project.loader import bundled_demo
    from qdexplorer.project.trust import TrustStore
    store = TrustStore(tmp_path / "cfg" / "trusted.json")
    proj = tmp_path / "p"
    proj.mkdir()
    asked = []

    def answer(button):
        box = QApplication.activeModalWidget()
        if box is None:
            QTimer.singleShot(50, lambda: answer(button))
            return
        asked.append(box.text())
        box.button(button).click()
    QTimer.singleShot(50, lambda: answer(QMessageBox.StandardButton.No))
    assert confirm_trust(proj, store) is False and "runs its Python files" in asked[0]
    assert store.answer(proj) is False
    QTimer.singleShot(50, lambda: answer(QMessageBox.StandardButton.Yes))
    assert confirm_trust(proj, store) is True and len(asked) == 2   # declined folders are asked again
    assert confirm_trust(proj, store) is True and len(asked) == 2   # trusted ones are not
    assert confirm_trust(bundled_demo(), store) and confirm_trust(None, store) and len(asked) == 2
