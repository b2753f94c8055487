"""The Counters tab with a fake ncu on PATH: a refusal says what the CLI says (and shows what needs no
counters, the roofline labelled as a model); a good report fills the table, the limiter and the
PTX and source gutters."""
import pytest

from qdexplorer.cli import main
from qdexplorer.counters import probe

from ..counters.conftest import TASK, fake_ncu  # noqa: F401 - the fixture
from .test_app import project, window  # noqa: F401 - fixtures

pytestmark = pytest.mark.gui


def _profile(win, qtbot, preset="quick", ab=False):
    win.tree.select(TASK)
    view = win.views.counters
    win.views.tabs.setCurrentWidget(view)
    view.preset.setCurrentText(preset)
    assert view.profile_btn.isEnabled()
    (view.ab_btn if ab else view.profile_btn).click()
    qtbot.waitUntil(lambda: not win.bridge_busy() and view.profile_btn.isEnabled(), timeout=60000)
    return view


def test_refused_profile_says_why_as_the_cli_does(fake_ncu, window, qtbot, capsys, monkeypatch):  # noqa: F811
    monkeypatch.setattr(probe, "_admin_only", lambda: True)
    monkeypatch.setattr(probe, "in_container", lambda: False)
    fake_ncu.mode("denied")
    view = _profile(window, qtbot)
    probe.forget()
    main(["counters", window.project_path if hasattr(window, "project_path") else str(window.session.project.path),
          "--task", TASK, "--in-process"])
    cli_first = capsys.readouterr().out.splitlines()[0]
    assert view.status.text() == cli_first
    assert "NVreg_RestrictProfilingToAdminUsers=0" in cli_first and "Traceback" not in view.details.toPlainText()
    cells = [view.table.item(i, 0).text() for i in range(view.table.rowCount())]
    assert "Registers / thread" in cells and "Arithmetic intensity (MODEL)" in cells
    assert "MODEL roofline" in view.roof_title.text()


def test_good_profile_fills_the_tab_and_the_gutters(fake_ncu, window, qtbot):  # noqa: F811
    fake_ncu.mode("good")
    view = _profile(window, qtbot, preset="full")
    assert "replay passes" in view.status.text() and "exact per PTX line" in view.status.text()
    labels = {view.table.item(i, 0).text(): view.table.item(i, 1).text() for i in range(view.table.rowCount())}
    assert labels["Registers / thread"] == "24" and labels["Theoretical occupancy"] == "100.0%"
    assert view.limiter.text().startswith("Likely limiter: ")
    ptx = window.views.ptx.toPlainText().splitlines()
    heat = window.views.ptx.heat
    assert heat and all(ptx[ln - 1].strip().endswith(";") for ln in heat)
    hottest = max(heat, key=lambda ln: heat[ln][0])
    assert heat[hottest][0] == 1.0 and "warp samples" in window.views.ptx.marker_text(hottest)
    assert set(window.views.source.heat) == {9, 10}     # saxpy's loop and body lines


def test_ab_lists_every_figure_largest_change_first(fake_ncu, window, qtbot):  # noqa: F811
    fake_ncu.mode("good")
    view = _profile(window, qtbot, ab=True)
    assert view.table.columnCount() == 6
    assert [view.table.horizontalHeaderItem(j).text() for j in range(5)] == ["Figure", "A", "B", "Δ", "Δ%"]
    assert view.status.text().startswith(f"A/B of {TASK}")
