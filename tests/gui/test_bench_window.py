"""Bench & save, saved-run comparison and Compare with generated, in the real window (CPU backend)."""
import shutil

import numpy as np
import pytest

from qdexplorer.engine import Engine
from qdexplorer.project.loader import bundled_demo

from .shared_window import shared_window_fixtures

pytestmark = pytest.mark.gui


def _bench_window(qtbot, tmp_path):
    from qdexplorer.gui.main_window import MainWindow
    from qdexplorer.gui.settings import Settings
    proj_dir = tmp_path / "demo"
    shutil.copytree(bundled_demo(), proj_dir)
    from .test_app import SHARED_CACHE   # the demo compiles once per test process, not once per test
    win = MainWindow(lambda path: (lambda: Engine(path, backend="cpu", cache_dir=SHARED_CACHE, workers=2)),
                     proj_dir, "no GPU in this test", settings=Settings(str(tmp_path / "s.ini")))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: len(win.compiled) >= 15 and "compiled" in win.statusBar().currentMessage(),
                    timeout=90000)
    return win


@pytest.fixture
def window(qtbot, tmp_path):
    """A window of the test's own: for the tests that bench, save or open a project."""
    win = _bench_window(qtbot, tmp_path)
    yield win
    win.close()


# one window for the tests that run nothing and save nothing (tests/gui/shared_window.py)
_module_window, shared_window = shared_window_fixtures(_bench_window)


def test_bench_twice_then_compare_the_saved_runs(window, qtbot, tmp_path):
    win, bench = window, window.bench
    assert bench.history is None and not (tmp_path / "demo" / ".qdexplorer" / "history.sqlite").exists()
    win.workload.setCurrentText("particles_64k")
    win.repeat.setValue(5)
    for n in (1, 2):
        bench.bench_act.trigger()
        qtbot.waitUntil(lambda: "saved run" in win.statusBar().currentMessage() and bench.compare.combo_b.count() == n
                        and not win.bridge_busy(), timeout=90000)
    assert bench.history.path == tmp_path / "demo" / ".qdexplorer" / "history.sqlite"
    runs = bench.history.list()
    assert [(r.status, r.launches, r.tasks) for r in runs] == [("complete", 25, 5)] * 2
    assert bench.hist.task.count() == 5 and len(bench.hist.points) == 2

    bench.compare.compare_btn.click()  # the two newest runs are preselected
    assert win.pages.currentWidget() is bench.compare
    assert bench.compare.table.rowCount() == 6  # 5 tasks + the workload total
    assert {bench.compare.table.item(r, 7).text() for r in range(6)} <= {"same", "faster", "slower", "unsure"}
    assert bench.compare.comparison.a == runs[0].label and bench.compare.comparison.b == runs[1].label

    # Add rounds (what an unsure verdict offers): measured now, added to B, compared again
    bench.compare.add_rounds_requested.emit(runs[0].label, runs[1].label, 2)
    qtbot.waitUntil(lambda: "added 2 rounds" in win.statusBar().currentMessage() and not win.bridge_busy(),
                    timeout=90000)
    grown = bench.history.load(runs[1].label)
    assert grown.context.rounds == 7 and len(grown.launches) == 25 + 10   # 2 rounds of 1 repeat, 5 tasks
    assert {t.rounds_b for t in bench.compare.comparison.tasks} == {7}   # the comparison was made again


def _run(label, ms, task, other="copy_kernel_0_range_for", backend="cuda"):
    """A run of two tasks whose launch times are given: a known effect, no machine noise."""
    from qdexplorer.bench.context import RunContext
    from qdexplorer.bench.run import Launch, Run
    launches = []
    # 8 rounds of 5 repeats; the other task drifts 1% over the run, so its interval fits the 2% threshold
    for i, (x, y) in enumerate(zip(ms, np.linspace(0.50, 0.505, len(ms)))):
        launches += [Launch(task, "saxpy", "saxpy_1m", i, float(x), round=i // 5),
                     Launch(other, "copy", "copy_1m", i, float(y), round=i // 5)]
    return Run(label, RunContext(backend=backend, interleaved_with="x", timer_resolution_ms=0.0005, rounds=8,
                                 per_round=5), launches)


def test_compare_with_generated_is_refused_on_the_cpu_with_the_reason(window, qtbot):
    """Both sides would run the same host code on the CPU backend: no runs, no verdict, the reason
    said (the flow itself runs on a GPU: tests/gui/test_gpu_window.py)."""
    win, bench = window, window.bench
    task = "saxpy_kernel_0_range_for"
    win.tree.select(task)
    assert not win.views.compare_btn.isEnabled()  # nothing to compare without an override
    win.views.ptx.setPlainText(win.views.ptx.toPlainText() + "\n// same code, by hand\n")
    win.views.save_btn.click()
    qtbot.waitUntil(lambda: win.views.compare_btn.isEnabled(), timeout=60000)
    runs = len(win.session.runs)
    win.views.compare_btn.click()
    msg = win.statusBar().currentMessage()
    assert "not comparing" in msg and "host code" in msg and "cuda backend" in msg
    qtbot.waitUntil(lambda: not win.bridge_busy(), timeout=30000)
    assert len(win.session.runs) == runs and bench.compare.comparison is None


def test_the_verdict_of_a_known_effect_is_shown(shared_window):
    """Statistics on synthetic runs with a known effect, fed to the window where the interleaved
    runs land: deterministic by construction, whatever else the machine is doing."""
    win, bench = shared_window, shared_window.bench
    task = "saxpy_kernel_0_range_for"
    base = np.linspace(1.00, 1.02, 40)
    bench._compared_fresh(task, (_run("generated", base, task), _run("override", base * 1.5, task)))
    assert "override is slower (1.500× generated" in win.statusBar().currentMessage()
    verdicts = {bench.compare.table.item(r, 0).text(): bench.compare.table.item(r, 7).text()
                for r in range(bench.compare.table.rowCount())}
    assert verdicts[task] == "slower" and verdicts["copy_kernel_0_range_for"] == "same"
    for combo, side in ((bench.compare.combo_a, "generated"), (bench.compare.combo_b, "override")):
        assert combo.currentIndex() == -1 and combo.placeholderText() == side  # not "#1 / #2"
    bench._compared_fresh(task, (_run("generated", base, task), _run("override", base, task)))
    assert "override is same (1.000× generated" in win.statusBar().currentMessage()


def test_another_project_starts_with_empty_compare_history_and_progress(window, qtbot, tmp_path):
    win, bench = window, window.bench
    win.workload.setCurrentText("copy_1m")
    win.repeat.setValue(3)
    bench.bench_act.trigger()
    qtbot.waitUntil(lambda: bench.compare.combo_b.count() == 1 and not win.bridge_busy(), timeout=90000)
    # the status bar says what the bench did, not an earlier Run's workload count (issue 31)
    assert win.run_status.text().startswith("bench finished: ") and "saved as #1" in win.run_status.text()
    bench._compared_fresh("copy_kernel_0_range_for", (_run("generated", np.linspace(1, 1.02, 40), "copy_x"),
                                                      _run("override", np.linspace(1, 1.02, 40), "copy_x")))
    assert bench.hist.task.count() == 1 and bench.compare.table.rowCount() > 0 and win.run_status.text()
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(bundled_demo() / "stencil.py", other / "stencil.py")
    assert win.projects.open(str(other), ask=False)
    qtbot.waitUntil(lambda: "jacobi" in win.tree.kernel_items and not win.bridge_busy(), timeout=90000)
    assert bench.compare.combo_a.count() == bench.compare.combo_b.count() == 0
    assert bench.compare.comparison is None and bench.compare.table.rowCount() == 0
    assert bench.hist.task.count() == 0 and bench.hist.points == []
    assert win.run_status.text() == ""


def test_runs_are_named_at_save_renamed_and_picked_by_name(window, qtbot):
    win, bench = window, window.bench
    win.workload.setCurrentText("copy_1m")
    win.repeat.setValue(3)
    bench.run_name.setText("baseline")
    bench.bench_act.trigger()
    qtbot.waitUntil(lambda: bench.compare.combo_b.count() == 1 and not win.bridge_busy(), timeout=90000)
    assert bench.compare.combo_b.itemText(0).startswith("baseline · cpu") and bench.run_name.text() == ""
    assert bench.rename_run("baseline", "before-tuning")
    assert bench.compare.combo_b.currentData() == "before-tuning"
    assert bench.compare.combo_b.currentText().startswith("before-tuning · cpu")
    bench.bench_act.trigger()                                     # unnamed: #2
    qtbot.waitUntil(lambda: bench.compare.combo_b.count() == 2 and not win.bridge_busy(), timeout=90000)
    assert not bench.rename_run("#2", "before-tuning")           # a name taken: said, not raised
    assert "rename failed" in win.statusBar().currentMessage()


def test_after_bench_the_trees_launch_column_is_the_whole_benchs_median(window, qtbot):
    """Issue 42: after Bench & save the Launch column showed the median of the bench's last round alone."""
    import statistics

    from qdexplorer.gui.task_tree import COLUMNS, fmt_time
    win, bench = window, window.bench
    win.workload.setCurrentText("saxpy_1m")
    win.repeat.setValue(9)
    bench.bench_act.trigger()
    qtbot.waitUntil(lambda: "saved run" in win.statusBar().currentMessage() and not win.bridge_busy(), timeout=90000)
    task = "saxpy_kernel_0_range_for"
    saved = bench.history.load(bench.history.list()[-1].label)
    assert (saved.context.rounds or 0) > 1
    whole = statistics.median(launch.ms for launch in saved.launches if launch.task == task)
    assert win.session.median(task) == pytest.approx(whole)
    assert win.tree.items[task].text(COLUMNS.index("Launch")) == fmt_time(whole)


def test_the_sweep_tab_sweeps_the_chosen_workload(shared_window, qtbot, monkeypatch):
    """Issue 42: the Sweep tab timed every workload whichever one the Run toolbar had chosen."""
    from qdexplorer.gui.timing import sweep_view
    asked = []

    def fake_sweep(engines, over, defaults, workloads=None, **kw):
        asked.append(workloads)
        raise RuntimeError("stop here: only the workloads asked for matter")
    monkeypatch.setattr(sweep_view, "sweep", fake_sweep)
    shared_window.workload.setCurrentText("saxpy_1m")
    shared_window.sweep.block_dims.setText("64,128")
    shared_window.sweep.start_button.click()
    qtbot.waitUntil(lambda: not shared_window.sweep.running, timeout=60000)
    assert asked == [["saxpy_1m"]]


def test_the_workload_box_shows_the_longest_name_whole(shared_window):
    """Issue 42: at 1400x900 the Workload box cut `atomic_sum_256k` under its arrow."""
    box = shared_window.workload
    fm = box.fontMetrics()
    widest = max(fm.horizontalAdvance(box.itemText(i)) for i in range(box.count()))
    assert box.width() >= widest + 40, (box.width(), widest)
