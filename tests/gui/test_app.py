"""The desktop app in a real (offscreen) Qt window, driving a real engine with worker processes.

Each test is something a user does, with what they should then see asserted.
"""
import os
import shutil
import subprocess
import sys
import time

import pytest
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtGui import QKeySequence

from qdexplorer.compiler import ptxas
from qdexplorer.engine import Engine
from qdexplorer.project.data_folder import overrides_folder
from qdexplorer.project.loader import ProjectError, bundled_demo, load_project
from qdexplorer.project.trust import TrustStore
from tests.conftest import SESSION_CACHE

from .shared_window import shared_window_fixtures

pytestmark = pytest.mark.gui
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason=ptxas.INSTALL_HINT)


def test_qt_binding_keeps_none_alive(qapp):
    # PySide6 6.12.0 decrefs None on every void call; on Python < 3.12 that aborts the app later
    from PySide6.QtWidgets import QProgressBar
    bar = QProgressBar()
    before = sys.getrefcount(None)
    for _ in range(1000):
        bar.setVisible(False)
    assert sys.getrefcount(None) - before > -50, "this PySide6 build drops references to None; avoid 6.12.0"


# The window tests of one test process share a compile cache: it is keyed by each task's module text,
# so the demo copied into each test's folder compiles once per process instead of once per test
# (a cold compile of its 21 tasks is seconds of LLVM on CI's 2 cores, in about 40 windows)
# (since the suite's speed-up: the session cache of tests/conftest.py, shared with the CLI tests and both workers)
SHARED_CACHE = SESSION_CACHE


def engine_for(tmp_path, fresh_cache: bool = False):
    """What app.engine_factory makes (a file that does not import is left out), with two compile
    workers and the shared cache, or with `fresh_cache` one of the test's own (tiers start at miss)."""
    cache = str(tmp_path / "cache") if fresh_cache else SHARED_CACHE
    return lambda path: (lambda: Engine(load_project(path, keep_going=True), backend="cpu",
                                        cache_dir=cache, workers=2))


def make_window(qtbot, tmp_path, proj_dir, settings_file=None, fresh_cache=False, **kw):
    from qdexplorer.gui.main_window import MainWindow
    from qdexplorer.gui.settings import Settings
    win = MainWindow(engine_for(tmp_path, fresh_cache), proj_dir, "no GPU in this test",
                     settings=Settings(str(settings_file or tmp_path / "settings.ini")),
                     trust=TrustStore(tmp_path / "trusted.json"), **kw)
    qtbot.addWidget(win)
    win.show()
    wait_compiled(qtbot, win)
    return win


def wait_compiled(qtbot, win, n=None):
    """Until every task of the project (or `n`) has compiled and the engine is idle."""
    def done():
        want = n if n is not None else len(win.session.task_names())
        return want > 0 and len(win.compiled) >= want and not win.bridge_busy() \
            and "compiled" in win.statusBar().currentMessage()
    qtbot.waitUntil(done, timeout=120000)


@pytest.fixture
def project(tmp_path):
    proj_dir = tmp_path / "demo"
    shutil.copytree(bundled_demo(), proj_dir)
    return proj_dir


@pytest.fixture
def window(qtbot, tmp_path, project):
    win = make_window(qtbot, tmp_path, project)
    win.views.ptx_panel.answers = []
    # the user's answers to dialogs, in order; none left: "Discard" (as when the test ends and closes)
    win.views.ptx_panel.ask = lambda title, text, yes: win.views.ptx_panel.answers.pop(0) if win.views.ptx_panel.answers else True
    yield win
    win._closing = True
    win.close()


def _demo_window(qtbot, folder):
    shutil.copytree(bundled_demo(), folder / "demo")
    return make_window(qtbot, folder, folder / "demo")


# one window for the tests that only select and read what it shows (tests/gui/shared_window.py)
_module_window, shared_window = shared_window_fixtures(_demo_window)


def run_and_wait(win, qtbot, workload, repeat, timeout=120000):
    win.workload.setCurrentText(workload)
    win.repeat.setValue(repeat)
    n = len(win.session.runs)
    win.runs.run()
    qtbot.waitUntil(lambda: len(win.session.runs) > n and win.session.runs[-1].status != "running"
                    and not win.bridge_busy(), timeout=timeout)
    return win.session.runs[-1]


def test_window_shows_every_task_and_its_code(qtbot, tmp_path, project):
    win = make_window(qtbot, tmp_path, project, fresh_cache=True)   # its own cache: every tier starts at miss
    assert len(win.tree.items) == len(win.session.task_names()) >= 15
    assert win.tree.items["saxpy_kernel_0_range_for"].text(1) == "miss"
    win.tree.select("saxpy_kernel_0_range_for")
    assert ".entry saxpy_kernel_0_range_for" in win.views.ptx.toPlainText()
    assert 'define ptx_kernel void @"saxpy_kernel_0_range_for"' in win.views.llvm.toPlainText()
    src = win.views.source.toPlainText()
    assert "y[i] = a * x[i] + y[i]" in src and src.startswith('"""')  # the whole file...
    line = next(i for i, t in enumerate(src.splitlines(), 1) if "y[i] = a * x[i] + y[i]" in t)
    assert line in win.views.source.marked  # ...with the task's lines banded
    assert "fast math on" in win.views.override_label.text()  # the project's setting, Quadrants' default
    assert not win.backend.model().item(1).isEnabled()  # cuda greyed out, with the reason
    assert [a.text().replace("&", "") for a in win.menuBar().actions()] == ["File", "Edit", "View", "Run", "Help"]
    shot = win.grab()
    assert shot.width() > 800 and shot.height() > 600
    img = shot.toImage()
    colors = {img.pixel(x, y) for x in range(0, img.width(), 37) for y in range(0, img.height(), 37)}
    assert len(colors) > 20  # a real, drawn window, not a blank surface
    win._closing = True
    win.close()


@needs_ptxas
def test_resources_columns_without_a_gpu_and_sorting(window, qtbot):
    from qdexplorer.gui.task_tree import COL
    win = window
    qtbot.waitUntil(lambda: all(it.text(COL["Regs"]) for it in win.tree.items.values()), timeout=60000)
    saxpy = win.tree.items["saxpy_kernel_0_range_for"]
    assert int(saxpy.text(COL["Regs"])) > 0 and saxpy.text(COL["Spills"]) == "0"
    assert saxpy.text(COL["Occ."]).endswith("%")
    assert "ptxas" in saxpy.toolTip(COL["Regs"])
    from PySide6.QtCore import Qt
    win.tree.sortByColumn(COL["Regs"], Qt.DescendingOrder)  # the kernel with the most registers first
    regs = [int(it.text(COL["Regs"])) for it in win.tree.items.values()]
    assert int(win.tree.topLevelItem(0).child(0).text(COL["Regs"])) == max(regs)
    ps = win.tree.kernel_items["particle_step"]
    child_regs = [int(ps.child(i).text(COL["Regs"])) for i in range(ps.childCount())]
    assert child_regs == sorted(child_regs, reverse=True)  # numbers sort as numbers, within each kernel
    for col in range(1, len(COL)):
        text = max((it.text(col) for it in win.tree.items.values()), key=len)
        assert win.tree.columnWidth(col) >= win.tree.fontMetrics().horizontalAdvance(text)  # nothing elided


def test_run_streams_progress_and_plots(window, qtbot):
    win = window
    rec = run_and_wait(win, qtbot, "particles_64k", 6)
    assert rec.status == "passed" and "1/1 passed" in win.statusBar().currentMessage()
    assert len(rec.times) == 5 and all(len(v) == 6 for v in rec.times.values())
    assert win.run_status.text() == "particles_64k: task 5/5, launch 6/6 (passed)"
    qtbot.wait(250)  # one plot refresh tick
    xs, ys = win.plots.curves["particle_step_kernel_1_range_for"].getData()
    assert sum(y == y for y in ys) == 6
    assert win.tree.items["particle_step_kernel_1_range_for"].text(6) != ""
    assert "PASSED" in win.messages.toPlainText()


def test_legend_never_overlaps_the_data_with_fifteen_tasks(window, qtbot):
    win = window
    win.plots.launches.scope.setCurrentText("all tasks")
    win.workload.setCurrentText("all workloads")
    win.repeat.setValue(2)
    win.runs.run()
    qtbot.waitUntil(lambda: "run finished" in win.statusBar().currentMessage(), timeout=120000)
    combo = [win.workload.itemText(i) for i in range(1, win.workload.count())]
    assert [r.workload for r in win.session.runs] == combo   # "workload 3/10" counts in the order shown
    for size in ((1400, 900), (900, 600)):
        win.resize(*size)
        qtbot.wait(150)
        n = len(win.plots.launches.tasks())  # every task that ran (block_sum's two are CUDA only)
        assert n >= 13 and win.plots.launches.legend.count() == n
        assert not win.plots.launches.legend_overlaps_data()


@needs_ptxas
def test_cpu_run_of_an_override_is_marked_cuda_only(window, qtbot):
    win = window
    task = "copy_kernel_0_range_for"
    win.tree.select(task)
    win.views.setCurrentWidget(win.views.ptx_panel)
    win.views.ptx.setPlainText(win.views.ptx.toPlainText() + "\n// tuned by hand\n")
    assert "unsaved" in win.views.override_label.text()
    assert win.views.ptx_panel.notice.isVisible() and "CUDA only" in win.views.ptx_panel.notice.text()
    win.actions.save.trigger()  # File ▸ Save PTX Override (Ctrl+S)
    qtbot.waitUntil(lambda: win.tree.items[task].text(1).endswith(" · ovr"), timeout=60000)
    path = overrides_folder(win.project_path) / f"{task}.ptx"
    assert path.read_text().endswith("// tuned by hand\n")
    assert "CUDA backend only" in win.tree.items[task].toolTip(1)
    rec = run_and_wait(win, qtbot, "copy_1m", 2)
    assert rec.status == "passed" and "take effect on CUDA only" in win.messages.toPlainText()
    win.views.ptx_panel.answers = [True]
    win.views.revert_btn.click()
    qtbot.waitUntil(lambda: "ovr" not in win.tree.items[task].text(1), timeout=60000)
    assert not path.exists()


@needs_ptxas
def test_a_bad_ptx_edit_gets_a_marker_at_its_line(window, qtbot):
    win = window
    task = "saxpy_kernel_0_range_for"
    win.tree.select(task)
    lines = win.views.ptx.toPlainText().splitlines()
    n = next(i for i, t in enumerate(lines) if "mad.lo.s32" in t)
    lines[n] = lines[n].replace("mad.lo.s32", "madd.lo.s32")
    win.views.ptx.setPlainText("\n".join(lines))
    win.views.ptx_panel.answers = [False]  # "ptxas refused this PTX. Save anyway?" → no
    with qtbot.waitSignal(win.views.ptx_panel.validated, timeout=30000):
        win.actions.save.trigger()
    assert list(win.views.ptx.markers) == [n + 1] and "madd" in win.views.ptx.marker_text(n + 1)
    assert win.views.ptx_panel.problems.item(0).text().startswith(f"ptxas: line {n + 1}: error")
    assert not (overrides_folder(win.project_path) / f"{task}.ptx").exists()


def test_a_driver_load_error_is_put_on_its_ptx_line(shared_window):
    # what the CUDA backend's TaskLoaded carries when cuModuleLoadDataEx rejects an edited PTX
    from qdexplorer.events import TaskLoaded
    win = shared_window
    win.tree.select("saxpy_kernel_0_range_for")
    log = ("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX: ptxas application ptx input, line 34; error   : "
           "Not a name of any known instruction: 'madd'\nptxas fatal   : Ptx assembly aborted due to errors")
    win.on_event(TaskLoaded("saxpy_kernel_0_range_for", "cuda", 0.0, {}, log))
    assert list(win.views.ptx.markers) == [34] and "madd" in win.views.ptx.marker_text(34)
    assert "load failed" in win.messages.toPlainText()


def test_unsaved_edits_survive_a_recompile_or_are_confirmed_away(window, qtbot):
    win = window
    a, b = "saxpy_kernel_0_range_for", "copy_kernel_0_range_for"
    win.tree.select(a)
    win.views.ptx.setPlainText(win.views.ptx.toPlainText() + "// my edit\n")
    win.tree.select(b)
    win.compile()
    qtbot.waitUntil(lambda: win.tree.items[a].text(1) == "memory" and not win.bridge_busy(), timeout=60000)
    win.tree.select(a)
    assert win.views.ptx.toPlainText().endswith("// my edit\n") and "unsaved" in win.views.override_label.text()
    win.views.ptx_panel.answers = [False]  # closing: "Discard unsaved PTX edits?" → Cancel
    win.close()
    assert win.isVisible()
    win.views.ptx_panel.answers = [True]
    win.close()
    assert not win.isVisible()


def test_a_syntax_error_turns_the_tree_red_and_the_status_bar_says_so(window, qtbot, project):
    from PySide6.QtCore import Qt
    win = window
    win.tree.select("jacobi_kernel_0_range_for")
    f = project / "saxpy.py"  # saxpy and copy live here; jacobi in stencil.py
    text = f.read_text()
    f.write_text(text.replace("y[i] = a * x[i] + y[i]", "y[i] = a * x[i] +"))
    qtbot.waitUntil(lambda: "saxpy.py:" in win.statusBar().currentMessage(), timeout=60000)
    msg = win.statusBar().currentMessage()
    assert "syntax" in msg and "compiled" not in msg
    k = win.tree.kernel_items["saxpy"]
    assert k.foreground(0).color().name() == win.tree.colors()["error"]
    assert k.text(1) == "error" and "syntax error" in k.toolTip(0)
    assert win.tree.kernel_items["copy"].text(1) == "error"  # same file
    assert win.tree.kernel_items["jacobi"].foreground(0).color().name() != win.tree.colors()["error"]
    win.tree.setCurrentItem(k)  # the red row shows its error, not the previous task's code
    assert "syntax error" in win.views.source.toPlainText() and "jacobi" not in win.views.ptx.toPlainText()
    rec = run_and_wait(win, qtbot, win.workload.itemText(win.workload.findText("jacobi", Qt.MatchStartsWith)), 1)
    assert rec.status == "passed"
    f.write_text(text)
    qtbot.waitUntil(lambda: win.tree.kernel_items["saxpy"].text(1) == "1 task", timeout=60000)


def test_a_project_with_a_broken_file_opens_with_that_file_red_and_the_rest_usable(qtbot, tmp_path, project):
    """Issue 22 #1: File > Open and `qdexplorer gui DIR` used to refuse the whole folder."""
    from PySide6.QtCore import Qt

    from qdexplorer.gui.app import engine_factory
    from qdexplorer.gui.task_tree import FILE_ROLE
    bad = project / "saxpy.py"   # saxpy and copy live here
    good = bad.read_text()
    bad.write_text(good.replace("y[i] = a * x[i] + y[i]", "y[i] = a * x[i] +"))
    eng = engine_factory("cpu")(str(project))()    # the app's own factory opens it too
    try:
        assert str(bad) in eng.project.broken and "jacobi" in eng.project.kernels
    finally:
        eng.close()
    win = make_window(qtbot, tmp_path, project)
    try:
        msg = win.statusBar().currentMessage()
        assert "saxpy.py does not load" in msg and "syntax error" in msg and "compiled" in msg
        assert "saxpy" not in win.tree.kernel_items and "jacobi" in win.tree.kernel_items
        rows = [win.tree.topLevelItem(i) for i in range(win.tree.topLevelItemCount())]
        red = [r for r in rows if r.data(0, FILE_ROLE) == str(bad)]
        assert len(red) == 1 and red[0].text(0) == "saxpy.py: does not load" and "syntax error" in red[0].toolTip(0)
        assert red[0].foreground(0).color().name() == win.tree.colors()["error"]
        win.tree.setCurrentItem(red[0])                 # selected: its message, not the previous task's code
        assert "syntax error" in win.views.source.toPlainText() and ".entry" not in win.views.ptx.toPlainText()
        rec = run_and_wait(win, qtbot, win.workload.itemText(win.workload.findText("jacobi", Qt.MatchStartsWith)), 1)
        assert rec.status == "passed"                  # the rest is usable
        bad.write_text(good)                            # fixed: its kernels arrive, the red row goes
        qtbot.waitUntil(lambda: "saxpy" in win.tree.kernel_items and not win.tree.file_errors, timeout=60000)
        assert not any(win.tree.topLevelItem(i).data(0, FILE_ROLE) for i in range(win.tree.topLevelItemCount()))
    finally:
        win._closing = True
        win.close()


def test_a_new_file_in_the_folder_is_noticed(window, qtbot, project):
    win = window
    (project / "extra.py").write_text(
        "import qdexplorer.lang as qd\n\n\n@qd.kernel\ndef scale(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
        "    for i in range(x.shape[0]):\n        x[i] = x[i] * 2.0\n")
    qtbot.waitUntil(lambda: "scale" in win.tree.kernel_items, timeout=60000)
    assert "new file" in win.messages.toPlainText()
    qtbot.waitUntil(lambda: "scale_kernel_0_range_for" in win.compiled, timeout=60000)


def test_settings_persist_across_two_window_instances(qtbot, tmp_path, project):
    ini = tmp_path / "persist.ini"
    win = make_window(qtbot, tmp_path, project, ini)
    win.resize(796, 560)  # within the offscreen screen (800x600): restoreGeometry keeps windows on screen
    win.split.setSizes([250, 510])
    win.views.setSizes([300, 200])
    win.right.setSizes([300, 200])
    win.tree.select("copy_kernel_0_range_for")
    qtbot.wait(50)
    left, code, right = win.split.sizes()[0], win.views.sizes()[0], win.right.sizes()[0]
    win.repeat.setValue(77)
    win.workload.setCurrentText("copy_1m")
    win.actions.dark.setChecked(True)
    win.plots.launches.scope.setCurrentText("top 5")
    try:
        win.close()
        win2 = make_window(qtbot, tmp_path, project, ini)
        assert (win2.width(), win2.height()) == (796, 560)
        assert abs(win2.split.sizes()[0] - left) <= 10, (left, win2.split.sizes())
        assert abs(win2.views.sizes()[0] - code) <= 10, (code, win2.views.sizes())    # every splitter (issue 22)
        assert abs(win2.right.sizes()[0] - right) <= 10, (right, win2.right.sizes())
        assert win2.tree.selected_task() == "copy_kernel_0_range_for"                 # and the selected task
        assert win2.repeat.value() == 77 and win2.workload.currentText() == "copy_1m"
        assert win2.actions.dark.isChecked() and win2.plots.launches.scope.currentText() == "top 5"
        assert win2.settings.last_project == str(project)
        win2.close()
    finally:
        from qdexplorer.gui.theme import apply_theme
        apply_theme("light")


def test_stop_ends_a_run_and_keeps_its_timings(window, qtbot):
    # how soon is measured by benchmarks/stop_latency.py: a wall-clock bound here failed under load
    win = window
    win.workload.setCurrentText("particles_64k")
    win.repeat.setValue(1_000_000)
    win.runs.run()
    qtbot.waitUntil(lambda: bool(win.session.runs) and win.session.runs[-1].launches > 20, timeout=60000)
    assert "launch" in win.run_status.text() and "/1000000" in win.run_status.text()
    win.actions.stop.trigger()
    qtbot.waitUntil(lambda: win.session.runs[-1].status != "running", timeout=60000)   # a hang guard only
    rec = win.session.runs[-1]
    assert rec.status == "stopped" and 20 < rec.launches < 1_000_000
    qtbot.waitUntil(lambda: "stopped" in win.statusBar().currentMessage(), timeout=60000)
    assert win.statusBar().currentMessage() == ("run stopped by you: 0 of 1 workload finished, the timings "
                                                "measured until then are kept")
    assert win.session.median("particle_step_kernel_1_range_for") is not None


def test_closing_during_a_run_stops_it(qtbot, tmp_path, project):
    win = make_window(qtbot, tmp_path, project)
    win.workload.setCurrentText("particles_64k")
    win.repeat.setValue(1_000_000)
    win.runs.run()
    qtbot.waitUntil(lambda: bool(win.session.runs) and win.session.runs[-1].launches > 5, timeout=60000)
    win.close()
    assert win.bridge.lane.pool.activeThreadCount() == 0 and win.bridge.engine is None  # closed on its thread


def test_file_open_and_recent_and_errors_in_the_window(window, qtbot, tmp_path, monkeypatch):
    win = window
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(bundled_demo() / "saxpy.py", other / "saxpy.py")
    win.trust.remember(other, True)
    assert win.projects.open(str(other))
    wait_compiled(qtbot, win, 2)
    assert list(win.tree.kernel_items) == ["saxpy", "copy"] and "other" in win.windowTitle()
    assert [a.text() for a in win.actions.recent_menu.actions()][0] == str(other)
    shown = []
    import qdexplorer.gui.project_opener as opener   # the part that opens projects says why one cannot open
    monkeypatch.setattr(opener.QMessageBox, "warning", lambda *a: shown.append(a[2]))
    assert win.projects.open(str(tmp_path / "missing"), ask=False)   # tried on the engine thread...
    qtbot.waitUntil(lambda: bool(shown), timeout=30000)              # ...and refused there, with the reason
    assert "project folder not found" in shown[0]
    assert "cannot open" in win.messages.toPlainText() and list(win.tree.kernel_items) == ["saxpy", "copy"]
    single = tmp_path / "stencil.py"
    shutil.copy(bundled_demo() / "stencil.py", single)
    win.trust.remember(single, True)
    assert win.projects.open(str(single))  # one kernel file is a project too
    qtbot.waitUntil(lambda: "stencil.py" in win.windowTitle(), timeout=60000)
    wait_compiled(qtbot, win, 2)
    assert list(win.tree.kernel_items) == ["jacobi"]


def test_a_project_is_imported_off_the_gui_thread(qtbot, tmp_path):
    """Building the engine imports the project, running its code: that happens on the engine's
    thread, so a slow import leaves the window answering (and File ▸ Open does not freeze it)."""
    import threading
    proj = tmp_path / "slow"
    proj.mkdir()
    done, release = tmp_path / "imported", tmp_path / "release"
    (proj / "k.py").write_text(   # the import waits until the test lets it go: no race with a sleep
        "import pathlib, threading, time\nimport qdexplorer.lang as qd\n"
        f"IMPORTED_ON = threading.current_thread().name\nwhile not pathlib.Path({str(release)!r}).exists():\n"
        f"    time.sleep(0.05)\npathlib.Path({str(done)!r}).touch()\n\n"
        "@qd.kernel\ndef twice(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
        "    for i in range(x.shape[0]):\n        x[i] *= 2.0\n")
    from qdexplorer.gui.main_window import MainWindow
    from qdexplorer.gui.settings import Settings
    win = MainWindow(engine_for(tmp_path), proj, "no GPU in this test", settings=Settings(str(tmp_path / "s.ini")))
    qtbot.addWidget(win)
    assert not done.exists()                     # the window stands while the import is still running
    ticks = []
    qtbot.waitUntil(lambda: bool(ticks.append(1)) or len(ticks) > 3, timeout=60000)   # and its loop turns
    assert not done.exists()
    release.touch()
    qtbot.waitUntil(lambda: "twice" in win.tree.kernel_items, timeout=60000)
    mod = next(m for name, m in sys.modules.items() if name.startswith("qdx_project_") and name.endswith("_k")
               and getattr(m, "__file__", "") == str(proj / "k.py"))
    assert mod.IMPORTED_ON != threading.main_thread().name
    win.close()


def test_menus_have_the_standard_shortcuts(shared_window):
    win = shared_window
    assert win.actions.open.shortcut() == QKeySequence(QKeySequence.Open)
    assert win.actions.save.shortcut() == QKeySequence(QKeySequence.Save)
    assert win.actions.quit.shortcut() == QKeySequence(QKeySequence.Quit)
    assert win.actions.run.shortcut().toString() == "F5" and win.actions.stop.shortcut().toString() == "Shift+F5"
    from qdexplorer.gui.menus import versions
    v = versions()
    assert {"qdexplorer", "Qt", "llvmlite", "CUDA", "ptxas"} <= set(v) and v["Qt"].startswith("6.")
    found = ptxas.find_ptxas()
    assert v["ptxas"] == "not found" if found is None else str(found) in v["ptxas"]   # About names the binary
    win.settings.add_recent(str(bundled_demo()))
    win.projects.update_recent_menu()
    assert win.actions.recent_menu.actions()[0].text() == "Bundled demo"   # not its path inside site-packages


def test_the_compile_log_is_monospace_and_a_sass_note_wraps(shared_window):
    from PySide6.QtGui import QFontInfo
    from PySide6.QtWidgets import QPlainTextEdit
    win = shared_window
    assert QFontInfo(win.views.log.font()).fixedPitch()
    win.tree.select("saxpy_kernel_0_range_for")
    win.views.show_sass("saxpy_kernel_0_range_for", "// SASS is not available on this machine: no nvdisasm.\n"
                                                     "// Install a CUDA toolkit with nvdisasm.")
    assert win.views.sass.lineWrapMode() == QPlainTextEdit.WidgetWidth


def test_bad_project_fails_before_any_window(tmp_path):
    from qdexplorer.gui.app import main
    with pytest.raises(ProjectError, match="project folder not found"):
        main(tmp_path / "missing")


def test_no_display_is_one_line_and_a_non_zero_exit(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = subprocess.run([sys.executable, "-m", "qdexplorer.launcher", "gui"], capture_output=True, text=True,
                         timeout=120, cwd=ROOT, env={**env, "PYTHONPATH": ROOT})
    assert out.returncode == 2
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "no display" in lines[0] and "qdexplorer compile" in lines[0]


def test_screenshot_command(tmp_path):
    from PySide6.QtGui import QImage
    out = tmp_path / "shot.png"
    env = {**os.environ, "PYTHONPATH": ROOT, "QDEXPLORER_CACHE_DIR": SHARED_CACHE,   # the demo compiled once
           "QDEXPLORER_DATA_DIR": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("QT_QPA_PLATFORM", None)
    r = subprocess.run([sys.executable, "-m", "qdexplorer.launcher", "gui", "--screenshot", str(out), "--workload",
                        "particles_64k", "--repeat", "3", "--size", "900x600"], capture_output=True, text=True,
                       timeout=300, cwd=ROOT, env=env)
    assert r.returncode == 0, r.stderr
    assert "slowest task particle_step" in r.stdout
    img = QImage(str(out))
    assert (img.width(), img.height()) == (900, 600)


def test_screenshot_of_a_named_project_does_not_wait_for_a_trust_answer(tmp_path):
    """--screenshot is non-interactive: a project named on its command line is opened as the CLI
    opens it (one line on stderr), never behind a dialog no one can answer (it used to hang)."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "k.py").write_text("import numpy as np\nimport qdexplorer.lang as qd\n\n@qd.kernel\n"
                               "def twice(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                               "    for i in range(x.shape[0]):\n        x[i] *= 2.0\n\n"
                               "@qd.workload(twice)\ndef small(rng):\n    return (np.ones(64, np.float32),)\n")
    out = tmp_path / "shot.png"
    env = {**os.environ, "PYTHONPATH": ROOT, "QDEXPLORER_CACHE_DIR": str(tmp_path / "cache"),
           "QDEXPLORER_DATA_DIR": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    r = subprocess.run([sys.executable, "-m", "qdexplorer.launcher", "gui", str(proj), "--screenshot", str(out),
                        "--size", "900x600"], capture_output=True, text=True, timeout=240, cwd=ROOT, env=env)
    assert r.returncode == 0, r.stderr
    assert f"importing the Python files of {proj}" in r.stderr and out.exists()


def test_screenshot_of_a_project_that_cannot_open_exits_with_its_message(tmp_path):
    """Every file broken: --screenshot used to wait forever behind a message box no one closes."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "k.py").write_text("def oops(:\n")
    env = {**os.environ, "PYTHONPATH": ROOT, "QDEXPLORER_CACHE_DIR": str(tmp_path / "cache"),
           "QDEXPLORER_DATA_DIR": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    r = subprocess.run([sys.executable, "-m", "qdexplorer.launcher", "gui", str(proj), "--screenshot",
                        str(tmp_path / "shot.png"), "--size", "900x600"], capture_output=True, text=True,
                       timeout=120, cwd=ROOT, env=env)
    assert r.returncode != 0 and "cannot open the project" in r.stderr and "k.py:1" in r.stderr, r.stderr
    assert not (tmp_path / "shot.png").exists()


def test_the_window_collects_garbage_on_its_own_thread_only(qapp, qtbot):
    """Automatic collection is off while the app runs (a worker thread freeing the GUI thread's Qt
    objects deadlocks), and a timer on the GUI thread collects in its place."""
    import gc
    import weakref

    from qdexplorer.gui.plumbing import main_thread_gc

    class Node:
        pass

    main_thread_gc.uninstall()
    main_thread_gc.install(qapp)
    try:
        assert not gc.isenabled()
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle: only the collector frees it
        alive = weakref.ref(a)
        del a, b
        junk = [[] for _ in range(3 * gc.get_threshold()[0])]  # past generation 0's threshold
        assert alive() is not None                               # nothing collected it on the spot
        qtbot.waitUntil(lambda: alive() is None, timeout=60000)   # the GUI-thread timer did
        del junk
    finally:
        main_thread_gc.uninstall()
    assert gc.isenabled()


def test_assembly_mode_is_chosen_in_the_window(window, qtbot):
    win = window
    assert win.mode.currentText() == "per_task"
    win.mode.setCurrentText("whole")
    qtbot.waitUntil(lambda: win.compiled["saxpy_kernel_0_range_for"].unit == "saxpy_kernel_whole", timeout=90000)
    assert win.bridge.engine.mode == "whole"
    if ptxas.find_ptxas() is not None:
        win.mode.setCurrentText("culink")
        qtbot.waitUntil(lambda: win.compiled["saxpy_kernel_0_range_for"].unit == "saxpy_kernel_culink"
                        and win.compiled["saxpy_kernel_0_range_for"].final_kind == "cubin", timeout=90000)
    assert win.modes.table.rowCount() == 0 and "No comparison loaded" in win.modes.status.text()


def test_edit_llvm_ir_runs_as_an_override_and_a_broken_one_shows_its_line(window, qtbot):
    from qdexplorer.gui.task_tree import COL
    win = window
    task = "copy_kernel_0_range_for"
    win.tree.select(task)
    ll = win.views.llvm.toPlainText()
    assert "generated LLVM IR" in win.views.ll_label.text()
    edited = ll.replace("ret void", "ret void\n", 1) + "\n; edited in the window\n"
    win.views.llvm.setPlainText(edited)
    assert "not saved" in win.views.ll_label.text()
    win.views.save_ll_btn.click()
    qtbot.waitUntil(lambda: "ovr" in win.tree.items[task].text(COL["Cache"]), timeout=60000)
    path = overrides_folder(win.project_path) / f"{task}.ll"
    assert path.read_text().endswith("; edited in the window\n")
    assert '"target": "nvptx"' in (path.parent / f"{task}.ll.json").read_text()
    win.tree.select(task)  # the views refresh when the compile returns, just after its events
    qtbot.waitUntil(lambda: win.views.ll_label.text().startswith("LLVM-IR override active"), timeout=60000)
    assert "override active (LLVM IR)" in win.views.override_label.text()

    lines = edited.splitlines()
    n = next(i for i, line in enumerate(lines, 1) if " = load " in line)
    lines[n - 1] = lines[n - 1].replace(" = load ", " = lod ")
    win.views.llvm.setPlainText("\n".join(lines) + "\n")
    win.views.save_ll_btn.click()
    qtbot.waitUntil(lambda: "does not compile" in win.views.ll_label.text(), timeout=60000)
    assert f"{path}:{n}:" in win.views.log.toPlainText()
    win.views.revert_ll_btn.click()
    qtbot.waitUntil(lambda: not path.exists() and win.compiled[task].ok, timeout=60000)


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


def test_a_ptx_line_marks_its_source_line_and_back(shared_window, qtbot):
    from qdexplorer.compiler.ptx_lines import line_map
    win = shared_window
    win.tree.select("saxpy_kernel_0_range_for")
    ptx = win.views.ptx.toPlainText()
    m = line_map(ptx)
    store = next(n for n in sorted(m.ptx_to_source) if "st.global" in ptx.splitlines()[n - 1])
    src_line = m.source_line(store)[1]
    assert "y[i] = a * x[i] + y[i]" in win.views.source.toPlainText().splitlines()[src_line - 1]

    def marked(ed):
        return [s.cursor.blockNumber() + 1 for s in ed.extraSelections()
                if s.format.background().color() == ed.colors["marked"]]
    win.views.ptx.setFocus()
    win.views.ptx.goto_line(store)   # the user puts the cursor on the store in the PTX
    qtbot.waitUntil(lambda: marked(win.views.source) == [src_line], timeout=60000)
    win.views.source.setFocus()
    win.views.source.goto_line(src_line)  # and back: the source line marks its PTX lines
    qtbot.waitUntil(lambda: store in marked(win.views.ptx), timeout=60000)


def _answer_trust(button, asked):
    """The user, answering the trust question when it comes up."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    def answer():
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(30, answer)
            return
        asked.append(box.text())
        box.button(button).click()
    QTimer.singleShot(30, answer)


def test_declining_the_reopened_last_project_opens_the_demo_instead_of_quitting(qtbot, tmp_path, project):
    from PySide6.QtWidgets import QMessageBox

    from qdexplorer.gui.app import startup_project
    from qdexplorer.gui.settings import Settings
    settings = Settings(str(tmp_path / "s.ini"))
    settings.last_project = str(project)
    asked = []
    _answer_trust(QMessageBox.StandardButton.No, asked)
    assert startup_project(None, settings, trust=TrustStore(tmp_path / "t.json")) == (bundled_demo(), None)
    assert asked and "runs its Python files" in asked[0]
    _answer_trust(QMessageBox.StandardButton.No, asked)   # named on the command line: declining quits
    assert startup_project(project, settings, trust=TrustStore(tmp_path / "t.json")) is None


def test_file_open_asks_for_trust_once_per_folder(window, qtbot, tmp_path):
    from PySide6.QtWidgets import QMessageBox
    win = window
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(bundled_demo() / "stencil.py", other / "stencil.py")
    asked = []
    _answer_trust(QMessageBox.StandardButton.No, asked)
    assert not win.projects.open(str(other)) and len(asked) == 1   # declined: the demo copy stays open
    assert "saxpy" in win.tree.kernel_items
    _answer_trust(QMessageBox.StandardButton.Yes, asked)
    assert win.projects.open(str(other)) and len(asked) == 2
    qtbot.waitUntil(lambda: "jacobi" in win.tree.kernel_items and not win.bridge_busy(), timeout=60000)
    win.projects.update_recent_menu()
    recent = next(a for a in win.actions.recent_menu.actions() if a.text() == str(other))
    recent.trigger()                                              # Open Recent: trusted now, not asked again
    qtbot.waitUntil(lambda: not win.bridge_busy(), timeout=60000)
    assert len(asked) == 2


def _gui_process(tmp_path, *args):
    env = {**os.environ, "PYTHONPATH": ROOT, "QT_QPA_PLATFORM": "offscreen", "QDEXPLORER_CACHE_DIR": str(tmp_path / "c"),
           "QDEXPLORER_DATA_DIR": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "QDEXPLORER_CONFIG_DIR": str(tmp_path / "config" / "qdx")}
    return subprocess.Popen([sys.executable, "-m", "qdexplorer.launcher", "gui", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("sig, status", [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_closes_the_window_with_the_shells_status(tmp_path, sig, status):
    import signal
    p = _gui_process(tmp_path)
    t0 = time.monotonic()   # the window is up once its first compile writes the cache (handlers installed)
    while not any(f.is_file() for f in (tmp_path / "c").rglob("*")) and time.monotonic() - t0 < 120 \
            and p.poll() is None:
        time.sleep(0.2)
    time.sleep(0.5)
    p.send_signal(getattr(signal, sig))
    out, err = p.communicate(timeout=60)
    assert p.returncode == status, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err


def test_sigterm_while_a_dialog_waits_for_an_answer(tmp_path):
    import signal
    proj = tmp_path / "untrusted"
    proj.mkdir()
    shutil.copy(bundled_demo() / "stencil.py", proj / "stencil.py")
    p = _gui_process(tmp_path, str(proj))  # not trusted yet: the trust question is open
    time.sleep(12)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 143 and "Traceback" not in err, err


def test_a_signal_from_before_qt_was_up_ends_the_app_before_any_dialog(qapp, monkeypatch):
    """The launcher holds SIGTERM/SIGINT while Qt starts (raised there as KeyboardInterrupt, it was
    lost inside a Qt callback and the app then waited forever behind the trust question)."""
    import signal

    from qdexplorer.gui import app as gui_app
    from qdexplorer.gui.plumbing.exit_signals import ExitOnSignal

    def must_not_ask(*a, **k):
        raise AssertionError("a dialog was about to open after SIGTERM")

    monkeypatch.setattr(gui_app, "startup_project", must_not_ask)
    before = signal.getsignal(signal.SIGTERM)
    exits = ExitOnSignal(qapp, [signal.SIGTERM])
    try:
        assert exits.code == 143
        assert gui_app._run(qapp, exits, None, None, None, "1400x900", None, None) == 143
    finally:
        exits.restore()
    assert signal.getsignal(signal.SIGTERM) is before
    qapp.processEvents()                       # the exit it queued must not end a later event loop
    loop = QEventLoop()
    QTimer.singleShot(50, lambda: loop.exit(7))
    assert loop.exec() == 7


BROKEN_KERNEL = ("import numpy as np\nimport qdexplorer.lang as qd\n\n@qd.kernel\n"
                 "def twice(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                 "    for i in range(x.shape[0]):\n        x[i] *= no_such_name\n\n"
                 "@qd.workload(twice)\ndef small(rng):\n    return (np.ones(64, np.float32),)\n")


def _shot_env(tmp_path):
    return {**os.environ, "PYTHONPATH": ROOT, "QDEXPLORER_CACHE_DIR": str(tmp_path / "cache"),
            "QDEXPLORER_DATA_DIR": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}


def test_screenshot_where_nothing_compiles_ends_at_once_with_the_error(tmp_path):
    """Issue 42: every kernel failing to compile, --screenshot waited its 10 minutes for a compile that had
    ended. It ends as soon as the compile does, with the error."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "k.py").write_text(BROKEN_KERNEL)
    r = subprocess.run([sys.executable, "-m", "qdexplorer.launcher", "gui", str(proj), "--screenshot",
                        str(tmp_path / "shot.png"), "--size", "900x600"], capture_output=True, text=True,
                       timeout=150, cwd=ROOT, env=_shot_env(tmp_path))
    assert r.returncode == 2 and "nothing compiled" in r.stderr and "no_such_name" in r.stderr, r.stderr
    assert not (tmp_path / "shot.png").exists()


@pytest.mark.parametrize("sig, status", [("SIGTERM", 143), ("SIGINT", 130)])
def test_screenshot_ends_on_a_signal_as_the_window_does(tmp_path, sig, status):
    """Issue 42: --screenshot ignored SIGTERM (its wait loop never looked); the window exits at once."""
    import signal
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer.launcher", "gui", "--screenshot", str(tmp_path / "s.png"),
                          "--workload", "particles_64k", "--repeat", "100000", "--size", "900x600"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=_shot_env(tmp_path),
                         start_new_session=True)
    try:   # signalled once its first compile wrote the cache: the run of 100000 launches has begun
        t0 = time.monotonic()
        while not any(f.is_file() for f in (tmp_path / "cache").rglob("*")) and time.monotonic() - t0 < 120 \
                and p.poll() is None:
            time.sleep(0.2)
        time.sleep(1.0)
        p.send_signal(getattr(signal, sig))
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == status, err
    assert not (tmp_path / "s.png").exists()
