"""File ▸ Open Quadrants program…: a real Quadrants 1.3.3 program in a real (offscreen) window. The program's
processes are forked from a server that imported Quadrants once (tests/quadrants/_forked_bridge.py), but for the
File menu's test, which starts the real child."""
import importlib.util
import os
import re
import shutil

import pytest

from qdexplorer.engine import Engine
from qdexplorer.project.loader import bundled_demo
from tests._cli import run_cli
from tests.conftest import SESSION_CACHE
from tests.quadrants import _forked_bridge

pytestmark = [pytest.mark.gui, pytest.mark.skipif(importlib.util.find_spec("quadrants") is None,
                                                  reason="Quadrants is not installed (pip install '.[test]')")]
PROGRAMS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "quadrants", "programs")


@pytest.fixture(scope="module", autouse=True)
def _forked_bridge_runs():
    with _forked_bridge.forked_bridge() as server:
        yield server


@pytest.fixture
def real_bridge_child():
    with _forked_bridge.real_bridge_child():
        yield


@pytest.fixture(autouse=True)
def _temp_folders_in_tmp_path(tmp_path, monkeypatch):
    """Dump and load folders are kept by design; in tests they go to pytest's tmp."""
    import tempfile
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


@pytest.fixture
def program(tmp_path):
    shutil.copy(os.path.join(PROGRAMS, "demo_kernels.py"), tmp_path / "demo_kernels.py")
    return str(tmp_path / "demo_kernels.py")


def _ran(qtbot, program):
    """The program's window once its run (Quadrants in a child, about 1.2 s of CPU) has finished."""
    from qdexplorer.gui.quadrants_window.quadrants_view import QuadrantsWindow
    win = QuadrantsWindow(program, arch="cpu", args=["256", "2"])
    qtbot.addWidget(win)
    win.messages = []
    win.message.connect(win.messages.append)
    win.show()
    win.run()
    qtbot.waitUntil(lambda: win.run_result is not None and not win.jobs.running, timeout=60000)
    assert win.run_result.ok, win.run_result.error
    return win


@pytest.fixture
def qwin(qtbot, program):
    """A run of the test's own: for the test that edits and reruns."""
    return _ran(qtbot, program)


@pytest.fixture(scope="module")
def _module_qwin(request, qapp, tmp_path_factory):
    from pytestqt.qtbot import QtBot

    from qdexplorer.gui.plumbing import main_thread_gc
    tmp = tmp_path_factory.mktemp("qwin")
    shutil.copy(os.path.join(PROGRAMS, "demo_kernels.py"), tmp / "demo_kernels.py")
    with pytest.MonkeyPatch.context() as mp:   # its dump folder in pytest's tmp, as each test's own
        import tempfile
        mp.setenv("TMPDIR", str(tmp))
        mp.setattr(tempfile, "tempdir", str(tmp))
        main_thread_gc.install(qapp)           # as during a test (tests/gui/conftest.py)
        win = _ran(QtBot(request), str(tmp / "demo_kernels.py"))
    yield win
    main_thread_gc.install(qapp)
    win.close()
    main_thread_gc.uninstall()


@pytest.fixture
def shared_qwin(_module_qwin, qtbot):
    """One run for the tests that only select and read what it shows (the tree, the passes, the comparison
    with our language, which reruns nothing of Quadrants): its selection, tab and passes view put back after
    each, and the run itself checked unchanged."""
    win = _module_qwin
    run, tab, item = win.run_result, win.tabs.currentIndex(), win.tree.currentItem()
    yield win
    assert win.run_result is run and win.edit_result is None, "a test of the shared run reran it: give it its own"
    win.passes.full.setChecked(False)
    win.tabs.setCurrentIndex(tab)
    win.tree.setCurrentItem(item)
    qtbot.waitUntil(lambda: not win.jobs.running, timeout=60000)


def _select(win, stable):
    t = win.run_result.task(stable)
    win.tree.setCurrentItem(win.items[t.name])
    return t


def test_tree_lists_kernels_and_tasks_with_their_ir(shared_qwin):
    win = shared_qwin
    kernels = [win.tree.topLevelItem(i).text(0) for i in range(win.tree.topLevelItemCount())]
    assert [k.split("_c")[0] for k in kernels] == ["saxpy", "particle_step", "atomic_sum"]
    t = _select(win, "particle_step_kernel_2_bounce_range_for")
    it = win.items[t.name]
    assert it.text(1) == "range_for" and it.text(2) == "2" and it.text(3).endswith((" µs", " ms")) and "0.0000" not in it.text(3)
    assert f"define void @{t.name}(" in win.llvm.toPlainText()
    assert "only on CUDA" in win.ptx.toPlainText() and not win.run_ptx_btn.isEnabled()
    assert "y0=4 total=256" in win.output.toPlainText()


def test_passes_view_steps_through_chi_stages_with_diffs(shared_qwin):
    win = shared_qwin
    _select(win, "saxpy_kernel_1_range_for")
    pv = win.passes
    assert pv.kernel_name.startswith("saxpy_c")
    assert [s.stage for s in pv.steps] == ["from_ast", "quadrants1", "before_simplify_I", "after_simplify_I",
                                           "after_offload", "after_simplify_III"]
    pv.stages.setCurrentRow(0)
    assert "from_ast (full text)" in pv.title.text() and not pv.prev_btn.isEnabled()
    for _ in range(4):
        pv.next_btn.click()
    assert pv.stages.currentRow() == 4
    assert "after_simplify_I → after_offload" in pv.title.text()
    diff = pv.text.toPlainText()
    assert diff.startswith("--- after_simplify_I\n+++ after_offload")
    assert any(ln.startswith("+") and "offloaded range_for" in ln for ln in diff.splitlines())
    pv.full.setChecked(True)
    assert "offloaded range_for" in pv.text.toPlainText() and not pv.text.toPlainText().startswith("---")


def test_edit_llvm_ir_rerun_and_compare(qwin, qtbot):
    win = qwin
    t = _select(win, "saxpy_kernel_1_range_for")
    text = win.llvm.toPlainText()
    edited = re.sub(r"= fadd (.*?)float", r"= fsub \1float", text, count=1)
    assert edited != text
    win.llvm.setPlainText(edited)
    win.run_ll_btn.click()
    qtbot.waitUntil(lambda: win.edit_result is not None and not win.jobs.running, timeout=60000)
    assert win.edit_result["edited"].ok, win.edit_result["edited"].error
    (e,) = win.edit_result["load"]["edits"]
    assert e["used"] and e["state"] == "active"
    assert "y0=0 total=256" in win.output.toPlainText()  # the edited run's output, after the generated one
    assert win.items[t.name].text(8) == "ll active" and win.items[t.name].text(4) != ""
    # the edited task's row says so (issue 42): "saxpy_c60_0_kernel_1_range_for (edited)"
    rows = {win.compare.edits.item(r, 0).text().removesuffix(" (edited)"): r for r in range(win.compare.edits.rowCount())}
    assert win.compare.edits.item(rows[t.name], 0).text().endswith(" (edited)")
    assert win.compare.edits.item(rows[t.name], 5).text() == "yes"
    xs, ys = win.compare.edited_curve.getData()  # both runs' launches of the edited task, plotted
    assert len(xs) == 2 and len(win.compare.generated_curve.getData()[0]) == 2
    axis = win.compare.plot.getAxis("left").labelString()
    assert ("(µs)" in axis or "(ms)" in axis) and "x0.001" not in axis   # honest units
    assert win.compare.plot.getViewBox().viewRange()[1][0] == 0          # from 0, not around one point
    assert any("used" in m and t.stable_name in m for m in win.messages)
    # the edit is kept beside the program, and shown again for the task
    saved = os.path.join(os.path.dirname(win.script), ".qdexplorer", "quadrants", "demo_kernels",
                         "saxpy_kernel_1_range_for_llvm.ll")
    assert os.path.isfile(saved) and os.path.isfile(saved + ".json")
    _select(win, "saxpy_kernel_0_serial")
    _select(win, "saxpy_kernel_1_range_for")
    assert win.llvm.toPlainText().rstrip() == edited.rstrip() and "edit active" in win.llvm_label.text()
    win.revert_ll_btn.click()
    assert not os.path.exists(saved) and win.llvm.toPlainText() == text


def test_compare_with_our_language(shared_qwin, qtbot):
    win = shared_qwin
    win.compare_ours()
    qtbot.waitUntil(lambda: win.ours is not None and not win.jobs.running, timeout=90000)
    assert all(k["match"] for k in win.ours)
    ours = [win.compare.ours.item(r, 1).text() for r in range(win.compare.ours.rowCount())]
    assert "saxpy_kernel_0_range_for" in ours and "particle_step_kernel_2_bounce_range_for" in ours


def test_main_window_file_menu_opens_a_program_and_shows_its_errors(qtbot, tmp_path, real_bridge_child):
    from qdexplorer.gui.main_window import MainWindow
    from qdexplorer.gui.settings import Settings
    proj_dir = tmp_path / "demo"
    shutil.copytree(bundled_demo(), proj_dir)
    win = MainWindow(lambda path: (lambda: Engine(path, backend="cpu", cache_dir=SESSION_CACHE, workers=1)),  # demo: once
                     proj_dir, "no GPU in this test", settings=Settings(str(tmp_path / "s.ini")))
    qtbot.addWidget(win)
    menus = {a.text(): a.menu() for a in win.menuBar().actions()}
    assert "Open &Quadrants program…" in [a.text() for a in menus["&File"].actions()]
    qw = win.open_quadrants_program(os.path.join(PROGRAMS, "failing.py"))
    qtbot.addWidget(qw)
    qtbot.waitUntil(lambda: qw.run_result is not None and not qw.jobs.running, timeout=60000)
    log = win.messages.toPlainText()
    assert "ValueError: boom: n=3 is too large" in log and "failing.py" in log
    assert "FAILED" in qw.statusBar().currentMessage()
    win.close()


def test_a_saved_run_from_another_machine_reopens_with_its_comparison(qtbot, tmp_path, program):
    """What the GPU check brings back (run.json + dump/ + load/) opens in the window, edits and timings included."""
    import json

    from qdexplorer.gui.quadrants_window.quadrants_view import QuadrantsWindow
    from qdexplorer.quadrants.edits import EditFolder
    from qdexplorer.quadrants.program import run_program
    base = run_program(program, ["64", "2"], arch="cpu")
    t = base.task("saxpy_kernel_1_range_for")
    edits = tmp_path / "edits"
    EditFolder(edits, "ll").write(t.stable_name, t.text("llvm"), t.text("llvm"))
    # four rounds, not the default five (each round is two Quadrants processes, about 1 s of CPU each): the fewest
    # whose paired comparison has an interval for every task, as the GPU check's saved runs have
    # (the command in this process, tests/_cli.py: its Quadrants runs fork as the window's)
    p = run_cli("quadrants", program, "--arch", "cpu", "--load-ll", str(edits), "--json", "--rounds", "4", "--", "64",
                "2")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    saved = tmp_path / "saved"
    shutil.copytree(doc["dump_dir"], saved / "dump")
    shutil.copytree(doc["edited_run"]["load"]["folder"], saved / "load")
    shutil.rmtree(doc["dump_dir"])  # as on another machine: the recorded folders do not exist here
    (saved / "run.json").write_text(p.stdout)
    win = QuadrantsWindow(str(saved / "run.json"), arch="cpu")
    qtbot.addWidget(win)
    win.show_saved(str(saved / "run.json"))
    _select(win, "saxpy_kernel_1_range_for")
    assert f"define void @{t.name}(" in win.llvm.toPlainText()
    assert win.compare.edits.rowCount() == 9
    assert win.items[win.run_result.task("saxpy_kernel_1_range_for").name].text(4) != ""
    assert len(win.passes.steps) == 6
