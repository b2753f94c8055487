"""The PTX view's status line names an LLVM-IR override, and says when a PTX override wins over one."""
from qdexplorer.compiler.pipeline import Pipeline
from qdexplorer.compiler.pool import InlineCompiler
from qdexplorer.compiler.overrides import OverrideStore
from qdexplorer.events import TaskCompiled
from qdexplorer.gui.code.code_views import CodeViews
from qdexplorer.project.loader import load_project
from qdexplorer.session import Session

from ..compiler.test_cache import write_project

TASK = "three_kernel_0_range_for"


def _compiled(proj, store, session):
    """Compile, and tell the session (as the engine's events would): the views read it there."""
    tasks = load_project(proj, reload=True).kernels["three"].tasks()
    out = Pipeline(InlineCompiler(), overrides=store).compile(tasks, "nvptx")
    for ct in out:
        session.apply(TaskCompiled(ct))
    return {t.name: t for t in tasks}[TASK], {ct.task: ct for ct in out}[TASK]


def test_label_names_the_stage_and_the_winner(tmp_path, qtbot):
    proj = write_project(tmp_path / "p")
    store = OverrideStore(proj)
    session = Session()
    views = CodeViews(session)
    qtbot.addWidget(views)
    task, gen = _compiled(proj, store, session)
    views.show_task(task, gen)
    assert views.override_label.text().startswith("generated PTX")

    ll = gen.produced["ll"].data
    store.write(TASK, ll.replace(b"0x3ff0000000000000", b"0x4000000000000000"), ll, kind="ll", target="nvptx")
    task, ct = _compiled(proj, store, session)
    views.show_task(task, ct)
    assert views.override_label.text().startswith("override active (LLVM IR)")

    store.write(TASK, gen.generated + b"// hand edit\n", gen.generated)
    task, ct = _compiled(proj, store, session)
    views.show_task(task, ct)
    text = views.override_label.text()
    assert text.startswith("override active") and "(LLVM IR)" not in text
    assert "the PTX override wins over this task's LLVM-IR override" in text
    assert "wins" in views.log.toPlainText()
