"""The Panes page: two pinned panes (two tasks), a diff pane of two saved runs and a pane following
the selection; the layout survives closing and reopening the project, and exports / imports as a file."""
import pytest

from qdexplorer.bench.context import RunContext, pack_text
from qdexplorer.bench.history import History
from qdexplorer.bench.run import Launch, Run
from qdexplorer.project.data_folder import history_path
from qdexplorer.project.panes import PaneLayout, PaneSpec, PaneView, layout_path

from .test_app import make_window, project  # noqa: F401 - fixtures

pytestmark = pytest.mark.gui
SAXPY, COPY = "saxpy_kernel_0_range_for", "copy_kernel_0_range_for"
PTX = ".version 8.5\n.target sm_90\n.visible .entry saxpy_kernel_0_range_for()\n{\n\t{op}\n\tret;\n}\n"


def _save_run(project, name, op):
    ctx = RunContext(backend="cpu", project=str(project), rounds=1, code={SAXPY: {"ptx": pack_text(PTX.replace("{op}", op))}})
    with History(history_path(project)) as h:
        h.save(Run(name, ctx, [Launch(SAXPY, "saxpy", "saxpy_1m", 0, 1.0, round=0)]))


def _specs(win):
    return [p.spec() for p in win.panes.panes]


def _wait_texts(qtbot, win):
    qtbot.waitUntil(lambda: all(t is not None for p in win.panes.panes for t in p.texts()) and not win.bridge_busy(),
                    timeout=60000)


def test_panes_layout_survives_reopening_the_project(qtbot, tmp_path, project):  # noqa: F811
    _save_run(project, "base", "add.s32 %r1, %r1, 1;")
    _save_run(project, "tuned", "shl.b32 %r1, %r1, 1;")
    win = make_window(qtbot, tmp_path, project)
    want = [PaneSpec(PaneView(SAXPY, "ptx")), PaneSpec(PaneView(COPY, "ll")),
            PaneSpec(PaneView(SAXPY, "ptx", "run:base"), PaneView(SAXPY, "ptx", "run:tuned")),
            PaneSpec(PaneView(None, "source"))]
    for spec in want:
        win.panes.add(spec)
    _wait_texts(qtbot, win)
    first, second, diff, follow = win.panes.panes
    assert ".entry saxpy_kernel_0_range_for" in first.editor.toPlainText()
    assert "define" in second.editor.toPlainText() and "copy_kernel_0_range_for" in second.editor.toPlainText()
    assert diff.diff.changed_rows() and "shl.b32" in diff.diff.right.toPlainText()
    win.tree.select(COPY)
    qtbot.waitUntil(lambda: "def copy(" in follow.editor.toPlainText(), timeout=10000)
    # View ▸ Pin in a Pane: the Kernels page's task and stage, pinned; closed again with its ×
    win.pages.setCurrentWidget(win.split)
    win.views.setCurrentWidget(win.views.ptx_panel)
    pin = next(a for a in win.menuBar().actions()[2].menu().actions() if a.text() == "&Pin in a Pane")
    pin.trigger()
    assert win.pages.currentWidget() is win.panes and win.panes.panes[-1].spec() == PaneSpec(PaneView(COPY, "ptx"))
    win.panes.remove(win.panes.panes[-1])
    assert follow.title.text().startswith(f"{COPY} (selection)")
    assert _specs(win) == want
    win._closing = True
    win.close()
    assert layout_path(project).is_file()

    win2 = make_window(qtbot, tmp_path, project)   # the project reopened: the same panes, with their code
    assert _specs(win2) == want
    _wait_texts(qtbot, win2)
    assert ".entry saxpy_kernel_0_range_for" in win2.panes.panes[0].editor.toPlainText()
    assert win2.panes.panes[2].diff.changed_rows()
    # export, change, import: the exported layout comes back
    out = win2.panes.export_to(str(tmp_path / "layout.json"))
    win2.panes.remove(win2.panes.panes[0])
    assert len(win2.panes.panes) == 3
    win2.panes.import_from(str(out))
    assert _specs(win2) == want
    win2._closing = True
    win2.close()


def test_layout_file_round_trip_and_refusal(tmp_path):
    lay = PaneLayout([PaneSpec(PaneView("t", "sass", "generated", "sm_80"))], [300])
    assert PaneLayout.from_json(lay.to_json()) == lay
    from qdexplorer.ir.errors import QdError
    with pytest.raises(QdError, match="pane layout"):
        PaneLayout.from_json('{"panes": []}')
    with pytest.raises(QdError, match="stage"):
        PaneLayout.from_json('{"qdexplorer_panes": 1, "panes": [{"view": {"stage": "cubin"}}]}')
