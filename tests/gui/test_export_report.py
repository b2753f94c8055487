"""File ▸ Export A/B Report: the runs picked in Compare become the same page `qdexplorer report` writes."""
import pytest

from qdexplorer.bench.context import RunContext, pack_text
from qdexplorer.bench.history import History
from qdexplorer.bench.run import Launch, Run
from qdexplorer.project.data_folder import history_path

from .test_app import project, window  # noqa: F401 - fixtures

pytestmark = pytest.mark.gui
PTX = ".version 8.5\n.target sm_90\n.visible .entry k()\n{\n\tmov.u32 %r1, %tid.x;\n\t{op}\n\tret;\n}\n"


def _run(name, ms, op, project):
    ctx = RunContext(backend="cpu", project=str(project), project_name="demo", rounds=4, per_round=3, repeat=12,
                     tasks={"k_kernel_0_range_for": {"loaded_sha256": op}},
                     code={"k_kernel_0_range_for": {"ptx": pack_text(PTX.replace("{op}", op))}})
    launches = [Launch("k_kernel_0_range_for", "k", "w", i, ms * (1 + 0.01 * (i % 3)), round=i // 3, cpu_ms=ms)
                for i in range(12)]
    return Run(name, ctx, launches)


def test_export_report_writes_the_picked_pair(window, qtbot, project, tmp_path):  # noqa: F811
    with History(history_path(project)) as h:
        h.save(_run("base", 1.0, "add.s32 %r2, %r1, 1;", project))
        h.save(_run("slow", 2.0, "mul.lo.s32 %r2, %r1, 3;", project))
    win = window
    win.bench._open()
    win.bench.refresh()
    cmp = win.bench.compare
    cmp.combo_a.setCurrentIndex(cmp.combo_a.findData("base"))
    cmp.combo_b.setCurrentIndex(cmp.combo_b.findData("slow"))
    out = tmp_path / "finding.html"
    assert any(a.text() == "&Export A/B Report…" for a in win.menuBar().actions()[0].menu().actions())
    win.bench.export_report(str(out))
    qtbot.waitUntil(lambda: out.exists() and not win.bridge_busy(), timeout=60000)
    page = out.read_text()
    assert "B = slow" in page and "A = base" in page and 'data-verdict="slower"' in page
    assert "mul.lo.s32" in page and str(project) not in page
