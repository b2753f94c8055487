"""The window's CUDA path on a GPU: driver resources in the tree, a PTX override that runs, a bad one
whose driver JIT log lands on its line. Skipped without a GPU; screenshots go to $QDX_SHOTS when set."""
import os
import shutil

import pytest

from qdexplorer.engine import Engine
from qdexplorer.project.loader import bundled_demo

pytestmark = [pytest.mark.gui, pytest.mark.cuda]


@pytest.fixture
def gpu_window(qtbot, tmp_path):
    from qdexplorer.gui.main_window import MainWindow
    from qdexplorer.gui.settings import Settings
    proj_dir = tmp_path / "demo"
    shutil.copytree(bundled_demo(), proj_dir)
    win = MainWindow(lambda path: (lambda: Engine(path, backend="cuda", cache_dir=str(tmp_path / "cache"), workers=4)),
                     proj_dir, "", settings=Settings(str(tmp_path / "s.ini")))
    win.views.ptx_panel.answers = []
    win.views.ptx_panel.ask = lambda t, x, yes: win.views.ptx_panel.answers.pop(0) if win.views.ptx_panel.answers else True
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    win.backend.setCurrentText("cuda")
    qtbot.waitUntil(lambda: len(win.compiled) >= len(win.session.task_names()) > 0 and not win.bridge_busy(),
                    timeout=180000)
    yield win
    win.close()


def shot(win, name):
    folder = os.environ.get("QDX_SHOTS")
    if folder:
        os.makedirs(folder, exist_ok=True)
        win.grab().save(os.path.join(folder, name))


def run(win, qtbot, workload, repeat):
    win.workload.setCurrentText(workload)
    win.repeat.setValue(repeat)
    n = len(win.session.runs)
    win.runs.run()
    qtbot.waitUntil(lambda: len(win.session.runs) > n and win.session.runs[-1].status != "running"
                    and not win.bridge_busy(), timeout=180000)
    return win.session.runs[-1]


def test_cuda_run_driver_resources_override_and_jit_log(gpu_window, qtbot):
    from qdexplorer.gui.task_tree import COL
    win = gpu_window
    rec = run(win, qtbot, "particles_64k", 50)
    assert rec.status == "passed" and rec.backend == "cuda"
    task = "particle_step_kernel_1_range_for"
    res = win.session.resources[task]
    it = win.tree.items[task]
    assert it.text(COL["Regs"]) == str(res["registers"]) and "driver" in it.toolTip(COL["Regs"])
    win.tree.select(task)
    shot(win, "gpu-tree-1400x900.png")

    copy = "copy_kernel_0_range_for"
    win.tree.select(copy)
    generated = win.views.ptx.toPlainText()
    win.views.ptx.setPlainText(generated + "\n// tuned on the GPU\n")
    with qtbot.waitSignal(win.views.ptx_panel.save_requested, timeout=60000):
        win.actions.save.trigger()
    qtbot.waitUntil(lambda: "ovr" in win.tree.items[copy].text(COL["Cache"]) and not win.bridge_busy(),
                    timeout=60000)
    assert "CUDA backend only" not in win.tree.items[copy].toolTip(COL["Cache"])
    assert not win.views.ptx_panel.notice.isVisible()
    assert run(win, qtbot, "copy_1m", 10).status == "passed"
    win.views.compare_btn.click()   # Compare with generated: both sides timed interleaved, on the GPU
    qtbot.waitUntil(lambda: "override is" in win.statusBar().currentMessage() and not win.bridge_busy(),
                    timeout=180000)
    cmp = win.bench.compare.comparison
    assert (cmp.a, cmp.b) == ("generated", "override") and cmp.task(copy).n_a == cmp.task(copy).n_b == 40
    shot(win, "gpu-compare-1400x900.png")

    # a PTX the driver refuses, saved anyway: the driver's JIT log lands on the line it names
    lines = generated.splitlines()
    n = next(i for i, t in enumerate(lines) if "ld.global" in t)
    lines[n] = lines[n].replace("ld.global", "ld.globall")
    win.views.ptx.setPlainText("\n".join(lines) + "\n")
    win.views.ptx_panel.answers = [True]  # "ptxas refused this PTX. Save anyway?" → yes
    with qtbot.waitSignal(win.views.ptx_panel.save_requested, timeout=60000):
        win.actions.save.trigger()
    qtbot.waitUntil(lambda: not win.bridge_busy(), timeout=60000)
    rec = run(win, qtbot, "copy_1m", 1)
    assert rec.status != "passed"
    win.tree.select(copy)
    qtbot.waitUntil(lambda: n + 1 in win.views.ptx.markers, timeout=30000)
    assert "load failed" in win.messages.toPlainText()
    shot(win, "gpu-driver-error-1400x900.png")
    win.views.ptx_panel.answers = [True]
    win.views.revert_btn.click()
    qtbot.waitUntil(lambda: "ovr" not in win.tree.items[copy].text(COL["Cache"]), timeout=60000)
