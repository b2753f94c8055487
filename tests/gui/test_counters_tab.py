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


def _fixture_ptx():
    import ncu_report

    from ..counters.conftest import FIXTURE
    action = ncu_report.load_report(str(FIXTURE))[0][0]
    return next(t for f, t in action.source_files().items() if f.endswith(".ptx"))


def test_good_profile_fills_the_tab_and_the_gutters(fake_ncu, window, qtbot):  # noqa: F811
    fake_ncu.mode("good")
    # the fake ncu answers with the report of the PTX the fixture was made from: run that PTX (an override),
    # so the editor shows the text the counters are about (today's codegen may write other lines)
    text = _fixture_ptx()
    window.tree.select(TASK)
    window.save_override(TASK, text)
    qtbot.waitUntil(lambda: not window.bridge_busy() and window.views.ptx.toPlainText() == text, timeout=60000)
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
    assert view.lines_note.text() == ""


def test_gutter_stays_empty_on_another_ptx(fake_ncu, window, qtbot):  # noqa: F811
    fake_ncu.mode("good")             # the report is of the fixture's PTX, the editor holds today's
    if window.views.ptx_panel.generated(TASK) == _fixture_ptx():
        pytest.skip("today's generated PTX is the fixture's")
    view = _profile(window, qtbot, preset="full")
    assert window.views.ptx.heat == {} and "not the PTX profiled" in view.lines_note.text()


def test_ab_lists_every_figure_largest_change_first(fake_ncu, window, qtbot):  # noqa: F811
    fake_ncu.mode("good")
    view = _profile(window, qtbot, ab=True)
    assert view.table.columnCount() == 6
    assert [view.table.horizontalHeaderItem(j).text() for j in range(5)] == ["Figure", "A", "B", "Δ", "Δ%"]
    assert view.status.text().startswith(f"A/B of {TASK}")


def test_sass_gutter_matches_by_address(qtbot):
    """The SASS tab's gutter: the profiled SASS's counters on the disassembly's lines of the same address."""
    from qdexplorer.counters.record import LineCounters, SassLine, TaskCounters
    from qdexplorer.gui.code_views import CodeViews
    from qdexplorer.session import Session
    views = CodeViews(Session())
    qtbot.addWidget(views)
    views.task = TASK
    views.sass.setPlainText("        .text.saxpy:\n        /*0000*/   LDC R1, c[0x0][0x28] ;\n"
                            "        /*0010*/   S2R R0, SR_TID.X ;\n        /*0020*/   EXIT ;\n")
    rec = TaskCounters(TASK, "full", sass=[SassLine(0, "LDC R1, c[0x0][0x28]", LineCounters(8192, 4)),
                                           SassLine(16, "S2R R0, SR_TID.X", LineCounters(8192, 8))])
    views.show_line_counters(rec)
    assert set(views.sass.heat) == {2, 3} and views.sass.heat[3][0] == 1.0 and views.sass.heat[2][0] == 0.5
    views.show_line_counters(None)
    assert views.sass.heat == {}
