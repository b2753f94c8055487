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
    monkeypatch.setattr(probe, "admin_only", lambda: True)
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
    window.edits.save_override(TASK, text)
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
    assert view.table.columnCount() == 7
    assert [view.table.horizontalHeaderItem(j).text() for j in range(6)] == ["Figure", "A", "B", "Δ", "Δ%", "Verdict"]
    assert view.status.text().startswith(f"A/B of {TASK}")
    # 3 profiles a side (the spin box's default; no override, so both sides are one PTX: 3 profiles, cached),
    # all the fake's one report: nothing changed, by the rule
    assert len(fake_ncu.calls()) == 3 and "0 changed" in view.status.text()
    assert "medians of 3 | 3 profiles" in view.status.text()
    assert {view.table.item(i, 5).text() for i in range(view.table.rowCount())} == {"same"}


def test_ab_verdicts_in_the_window_are_the_rule_of_the_cli(qtbot):
    """Repeats that moved: the window's Verdict column is `counters.diff`'s, the band in each tooltip."""
    from qdexplorer.counters.collect import CountersResult
    from qdexplorer.counters.record import TaskCounters
    from qdexplorer.gui.counters_view import CountersView

    def side(variant, **series):
        recs = [TaskCounters(TASK, "full", variant=variant, figures={k: float(v[i]) for k, v in series.items()})
                for i in range(3)]
        return CountersResult(TASK, "full", "ok", record=recs[0], repeats=recs)
    a = side("generated", dram_read_bytes=[4194304, 4194560, 4194816], duration_us=[4.48, 4.51, 4.61])
    b = side("override", dram_read_bytes=[8388608, 8388864, 8388608], duration_us=[4.50, 4.52, 4.51])
    view = CountersView()
    qtbot.addWidget(view)
    view.show_ab(a, b)
    rows = {view.table.item(i, 0).text(): view.table.item(i, 5).text() for i in range(view.table.rowCount())}
    assert rows == {"DRAM read": "changed", "Kernel time (profiled)": "noise"}
    assert view.table.item(0, 0).text() == "DRAM read"     # changes first
    assert "noise band ±" in view.table.item(1, 5).toolTip() and "1 changed" in view.status.text()


def test_sass_gutter_matches_by_address(qtbot):
    """The SASS tab's gutter: the profiled SASS's counters on the disassembly's lines of the same address."""
    from qdexplorer.counters.record import LineCounters, SassLine, TaskCounters
    from qdexplorer.gui.code.code_views import CodeViews
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


def _rec(text, lines, variant):
    from qdexplorer.counters.record import LineCounters, TaskCounters
    from qdexplorer.counters.report import ptx_sha
    return TaskCounters(TASK, "full", figures={"registers": 24.0}, variant=variant, ptx_sha=ptx_sha(text),
                        line_mapping="ptx-line-table",
                        ptx_lines={ln: LineCounters(s, s * 2) for ln, s in lines.items()})


def test_ab_shows_both_ptx_gutters_aligned_by_line(qtbot):
    """A's gutter on the generated PTX and B's on the edit, side by side, each line facing its twin (an
    inserted line shifts B's numbering, not the rows), on one scale."""
    from qdexplorer.counters.collect import CountersResult
    from qdexplorer.gui.counters_view import CountersView
    view = CountersView()
    qtbot.addWidget(view)
    gen = "{\n\tld.global.f32 %f1, [%rd1];\n\tst.global.f32 [%rd2], %f1;\n\tret;\n}"
    edit = gen.replace("\tst.global", "\tld.volatile.global.f32 %f2, [%rd2];\n\tst.global")
    a = CountersResult(TASK, "full", "ok", record=_rec(gen, {2: 10, 3: 40}, "generated"))
    b = CountersResult(TASK, "full", "ok", record=_rec(edit, {2: 10, 3: 20, 4: 80}, "override"))
    view.show_ab(a, b, (gen, edit))
    assert view.lower_tabs.isTabEnabled(1)
    left, right = view.ab_ptx.left, view.ab_ptx.right
    rows_l = left.toPlainText().splitlines()
    rows_r = right.toPlainText().splitlines()
    store = next(i for i, t in enumerate(rows_l, 1) if t.strip().startswith("st.global"))
    assert rows_r[store - 1] == rows_l[store - 1]            # the store faces its twin
    assert set(left.heat) == {2, store} and set(right.heat) == {2, 3, store}
    assert right.heat[store][0] == 1.0 and left.heat[store][0] == 0.5   # one scale: B's store is the hottest
    assert rows_r[2].strip().startswith("ld.volatile") and rows_l[2] == ""   # the inserted line has no twin
    assert "exact per PTX line" in view.ab_note.text() and "not the PTX profiled" not in view.ab_note.text()
    # a side whose text is not the one profiled keeps an empty gutter, and the note says which
    view.show_ab(a, b, (gen + "\n// changed since", edit))
    assert view.ab_ptx.left.heat == {} and view.ab_ptx.right.heat
    assert "A (generated): the text here is not the PTX profiled" in view.ab_note.text()
    # a single profile after it clears the pair
    view.show_result(b)
    assert not view.lower_tabs.isTabEnabled(1) and view.ab_ptx.right.heat == {}


def test_window_ab_fills_the_gutter_of_the_profiled_side(fake_ncu, window, qtbot):  # noqa: F811
    fake_ncu.mode("good")
    text = _fixture_ptx()   # B, the PTX in use, is the PTX the fake's report was made from
    window.tree.select(TASK)
    window.edits.save_override(TASK, text)
    qtbot.waitUntil(lambda: not window.bridge_busy() and window.views.ptx.toPlainText() == text, timeout=60000)
    view = _profile(window, qtbot, preset="full", ab=True)
    assert view.lower_tabs.isTabEnabled(1)
    right = view.ab_ptx.right
    assert right.heat and all(right.toPlainText().splitlines()[r - 1].strip().endswith(";") for r in right.heat)
    if window.views.ptx_panel.generated(TASK) != text:   # A's text is today's generated PTX, not the fixture's
        assert view.ab_ptx.left.heat == {} and "A (generated)" in view.ab_note.text()
