"""The code views and the plots follow the session's selection themselves (issue 38): the tree
publishes the row selected into the session, and no one pushes a task into each view."""
import pytest

from qdexplorer.compiler.overrides import OverrideStore
from qdexplorer.compiler.pipeline import Pipeline
from qdexplorer.compiler.pool import InlineCompiler
from qdexplorer.events import KernelLowered, ResourcesEstimated, TaskCompiled
from qdexplorer.gui.code.code_views import CodeViews
from qdexplorer.gui.task_tree import TaskTree
from qdexplorer.gui.timing.timings import TimingsPanel
from qdexplorer.project.loader import load_project
from qdexplorer.session import Selection, Session

from ..compiler.test_cache import write_project

pytestmark = pytest.mark.gui

RESOURCES = {"registers": 12, "static_shared_bytes": 0, "local_bytes": 0, "occupancy": 1.0, "block": 128,
             "source": "ptxas"}


def _session(proj) -> tuple[Session, dict]:
    """A session told what the engine's events would tell it: the kernel `three` lowered and compiled,
    and a kernel `broken` that failed to lower."""
    tasks = load_project(proj, reload=True).kernels["three"].tasks()
    session = Session()
    session.apply(KernelLowered("three", tuple(tasks)))
    session.apply(KernelLowered("broken", (), error="broken.py:3: no such name 'q'"))
    compiled = {ct.task: ct for ct in Pipeline(InlineCompiler(), overrides=OverrideStore(proj)).compile(tasks, "nvptx")}
    for ct in compiled.values():
        session.apply(TaskCompiled(ct))
    return session, compiled


def test_the_code_views_and_plots_follow_the_sessions_selected_task(tmp_path, qtbot):
    session, compiled = _session(write_project(tmp_path / "p"))
    first, last = list(compiled)[0], list(compiled)[-1]
    views, plots = CodeViews(Session()), TimingsPanel(Session())   # built on an earlier project's session
    for w in (views, plots):
        qtbot.addWidget(w)
        w.set_session(session)                                     # as when this project opened
    tree = TaskTree(session)
    qtbot.addWidget(tree)

    tree.select(last)
    assert session.selection == Selection(last, "three", shown=last)
    assert views.task == last and views.ptx.toPlainText() == compiled[last].ptx
    assert plots.launches.selected_task == last and plots.launches.selected_kernel == "three"

    session.apply(ResourcesEstimated(last, RESOURCES))             # the selected task's figures arrive
    assert views.resources_label.text().startswith("12 regs")

    tree.setCurrentItem(tree.kernel_items["three"])               # a kernel row: its first task's code
    assert session.selection == Selection(None, "three", shown=first)
    assert views.task == first and views.ptx.toPlainText() == compiled[first].ptx
    assert plots.launches.selected_task is None and plots.launches.selected_kernel == "three"

    tree.setCurrentItem(tree.kernel_items["broken"])              # a kernel that failed: its error
    assert views.task is None and "no such name 'q'" in views.source.toPlainText()


def test_a_view_leaves_the_session_of_the_project_it_left(tmp_path, qtbot):
    session, compiled = _session(write_project(tmp_path / "p"))
    views = CodeViews(session)
    qtbot.addWidget(views)
    task = next(iter(compiled))
    views.set_session(Session())                                  # another project opened
    session.select(Selection(None, "broken", error=("broken", "the old project's error")))
    session.apply(ResourcesEstimated(task, RESOURCES))
    assert views.task is None and "old project" not in views.source.toPlainText()
    assert views.resources_label.text() == ""
