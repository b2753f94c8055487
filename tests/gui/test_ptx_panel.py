"""The PTX editing loop as a user drives it: edit, check, see markers and the diff, save, switch, revert."""
import shutil

import pytest

from qdexplorer.compiler import ptxas
from qdexplorer.engine import Engine
from qdexplorer.gui.code.ptx_panel import PtxPanel
from qdexplorer.project.loader import bundled_demo
from tests.conftest import SESSION_CACHE

pytestmark = [pytest.mark.gui,
              pytest.mark.skipif(ptxas.find_ptxas() is None, reason=ptxas.INSTALL_HINT)]
TASK = "saxpy_kernel_0_range_for"


@pytest.fixture
def engine(tmp_path):
    """The demo's saxpy and copy compiled for the GPU, in process: the session the panel reads."""
    shutil.copytree(bundled_demo(), tmp_path / "demo")
    with Engine(tmp_path / "demo", backend="cpu", in_process=True, cache_dir=SESSION_CACHE) as eng:   # compiled once a run
        eng.compile(["saxpy", "copy"], target="nvptx")
        yield eng


@pytest.fixture
def generated(engine):
    return engine.compiled_for(TASK, "nvptx").produced["ptx"].text


@pytest.fixture
def panel(qtbot, engine):
    p = PtxPanel(engine.session)
    qtbot.addWidget(p)
    p.resize(900, 600)
    p.show()
    p.show_task(TASK)
    p.answers = []
    p.ask = lambda title, text, yes: p.answers.pop(0)  # the user's answers to the dialogs, in order
    return p


def break_line(panel, opcode="mad.lo.s32"):
    lines = panel.editor.toPlainText().splitlines()
    n = next(i for i, ln in enumerate(lines) if opcode in ln)
    lines[n] = lines[n].replace(opcode, "madd.lo.s32")
    panel.editor.setPlainText("\n".join(lines) + "\n")
    return n + 1


def test_a_bad_edit_gets_a_marker_at_its_line_and_is_not_saved_silently(panel, qtbot):
    saved = []
    panel.save_requested.connect(lambda t, text: saved.append(text))
    line = break_line(panel)
    assert panel.dirty() and "unsaved" in panel.state.text()
    panel.answers = [False]  # "ptxas refused this PTX — save anyway?" → Cancel
    with qtbot.waitSignal(panel.validated, timeout=30000):
        panel.save()
    assert list(panel.editor.markers) == [line]
    assert "madd" in panel.editor.marker_text(line)
    assert panel.problems.isVisible() and f"line {line}" in panel.problems.item(0).text()
    assert panel.editor.current_line() == line  # the editor jumps to the error
    assert saved == [] and panel.dirty() and "1 error" in panel.state.text()
    panel.problems.setCurrentRow(0)
    panel.editor.goto_line(1)
    panel._goto_problem(panel.problems.item(0))
    assert panel.editor.current_line() == line


def test_a_good_edit_is_checked_then_saved_and_reports_resources(panel, qtbot, generated):
    saved = []
    panel.save_requested.connect(lambda t, text: saved.append((t, text)))
    panel.editor.setPlainText(generated + "\n// tuned\n")
    with qtbot.waitSignal(panel.save_requested, timeout=30000):
        panel.save()
    assert saved == [(TASK, generated + "\n// tuned\n")]
    assert not panel.dirty() and panel.editor.markers == {}
    assert "registers" in panel.problems.item(panel.problems.count() - 1).text()
    assert "ptxas: OK" in panel.state.text()


def test_edits_survive_selecting_another_task_and_a_recompile(panel, generated, engine):
    panel.editor.setPlainText(generated + "\n// mine\n")
    panel.show_task("copy_kernel_0_range_for")
    assert ".entry copy_kernel_0_range_for" in panel.editor.toPlainText() and not panel.dirty()
    engine.compile(["saxpy"], target="nvptx")  # a recompile that regenerates the same PTX
    panel.show_task(TASK)
    assert panel.editor.toPlainText().endswith("// mine\n") and panel.dirty()
    assert panel.dirty_tasks() == [TASK]


def test_the_panel_keeps_no_copy_of_what_the_session_has(panel, generated, engine):
    """Generated PTX and the saved override are read from the session's CompiledTask each time: an
    override saved elsewhere (the CLI, another window) shows as soon as the session has it."""
    assert panel.saved() == "" and panel.generated() == generated
    engine.set_override(TASK, generated + "// from the CLI\n")
    engine.compile(["saxpy"], target="nvptx")
    panel.show_task(TASK)
    assert panel.saved().endswith("// from the CLI\n") and panel.editor.toPlainText() == panel.saved()
    assert panel.generated() == generated and panel.revert_btn.isEnabled()


def test_revert_asks_before_discarding_and_cancel_keeps_the_edit(panel, generated, engine):
    reverted = []
    panel.revert_requested.connect(reverted.append)
    panel.editor.setPlainText(generated + "\n// mine\n")
    panel.answers = [False]
    panel.revert()
    assert panel.editor.toPlainText().endswith("// mine\n") and panel.dirty()
    panel.answers = [True]
    panel.revert()
    assert panel.editor.toPlainText() == generated and not panel.dirty()
    assert reverted == []  # nothing was saved, so there is no override to delete
    engine.set_override(TASK, generated + "// saved\n")
    engine.compile(["saxpy"], target="nvptx")
    panel.show_task(TASK)
    assert panel.editor.toPlainText().endswith("// saved\n")
    panel.answers = [False]        # "Delete the saved override?" → Cancel: nothing goes
    panel.revert()
    assert reverted == [] and panel.answers == [] and panel.editor.toPlainText().endswith("// saved\n")
    panel.answers = [True]
    panel.revert()
    assert reverted == [TASK] and panel.answers == []


def test_diff_shows_the_edit(panel, generated):
    panel.editor.setPlainText(generated.replace("mad.lo.s32", "mul.lo.s32", 1))
    panel.tabs.setCurrentIndex(1)
    assert len(panel.diff.changed_rows()) == 1 and "1 line changed" in panel.diff.summary.text()


def test_cpu_backend_says_overrides_are_cuda_only(panel, generated):
    panel.set_backend("cpu")
    assert not panel.notice.isVisible()
    panel.editor.setPlainText(generated + "// x\n")
    assert panel.notice.isVisible() and "CUDA only" in panel.notice.text()
    panel.set_backend("cuda")
    assert not panel.notice.isVisible()


def test_driver_jit_log_becomes_markers(panel):
    panel.show_driver_log(TASK, "ptxas application ptx input, line 21; error   : Unknown symbol 'x'\n"
                                "ptxas fatal   : Ptx assembly aborted due to errors")
    assert list(panel.editor.markers) == [21] and "driver" in panel.problems.item(0).text()


def test_the_refused_ptx_dialog_says_save_anyway_and_cancel_saves_nothing(panel, qtbot):
    """The question after ptxas refuses an edit: its buttons say what they do (no 'Discard' that
    saves), and Cancel, the default, keeps the edit unsaved."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox
    del panel.ask                       # the real dialog, answered by a "user" below
    seen, saved = [], []
    panel.save_requested.connect(lambda t, text: saved.append(text))

    def answer():
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer)
            return
        seen.append(sorted(b.text().replace("&", "") for b in box.buttons()))
        box.defaultButton().click()
    break_line(panel)
    QTimer.singleShot(20, answer)
    with qtbot.waitSignal(panel.validated, timeout=30000):
        panel.save()
    assert seen == [["Cancel", "Save anyway"]] and saved == [] and panel.dirty()
