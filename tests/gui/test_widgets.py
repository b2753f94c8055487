"""The window's building blocks as a user meets them: the code editor, the diff, the themes, the settings."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QMainWindow, QSplitter

from qdexplorer.compiler import ptxas
from qdexplorer.gui.code.diff_view import DiffView, aligned
from qdexplorer.gui.code.editor import EditorPane, Marker
from qdexplorer.gui.settings import Settings
from qdexplorer.gui.theme import apply_theme

pytestmark = pytest.mark.gui

PTX = "\n".join([".version 8.5", ".target sm_90", ".address_size 64", "", ".visible .entry k()", "{",
                 "\tret;", "}"]) + "\n"


def pixel_rgb(widget, x, y):
    return QColor(widget.grab().toImage().pixel(x, y)).getRgb()[:3]


def test_error_marker_sits_at_its_line_with_the_message(qtbot):
    pane = EditorPane("ptx", read_only=False)
    qtbot.addWidget(pane)
    pane.resize(600, 300)
    pane.show()
    ed = pane.editor
    ed.setPlainText(PTX.replace("ret;", "rett;"))
    if ptxas.find_ptxas():  # the real checker when there is one; otherwise the marker API alone
        rep = ptxas.validate(ed.toPlainText())
        markers = [Marker(d.line, d.severity, d.message) for d in rep.errors if d.line]
    else:
        markers = [Marker(7, "error", "Not a name of any known instruction: 'rett'")]
    ed.set_markers(markers)
    assert list(ed.markers) == [7]
    assert "rett" in ed.marker_text(7) and ed.marker_text(6) == ""
    # the gutter paints a red dot on line 7 and nothing on line 6
    rect = ed.blockBoundingGeometry(ed.document().findBlockByNumber(6)).translated(ed.contentOffset())
    y7 = int(rect.center().y()) + ed.contentsRect().top()
    y6 = y7 - int(rect.height())
    gutter = ed._gutter
    r, g, b = pixel_rgb(gutter, 7, y7)
    assert r > 180 and g < 100 and b < 100
    assert pixel_rgb(gutter, 7, y6) != (r, g, b)
    # the underlined line carries the message as its tooltip
    sels = [s for s in ed.extraSelections() if s.format.toolTip()]
    assert len(sels) == 1 and sels[0].cursor.blockNumber() == 6 and "rett" in sels[0].format.toolTip()


def test_find_highlights_every_match_and_wraps(qtbot):
    pane = EditorPane("ptx", read_only=True)
    qtbot.addWidget(pane)
    pane.show()
    pane.editor.setPlainText(PTX)
    pane.editor.setFocus()
    qtbot.keyClick(pane.editor, Qt.Key_F, Qt.ControlModifier)
    assert pane.find_bar.isVisible()
    qtbot.keyClicks(pane.find_bar.field, ".entry")
    assert pane.find_bar.count.text() == "1 match"
    assert pane.editor.current_line() == 5
    pane.find_bar.field.setText("")
    qtbot.keyClicks(pane.find_bar.field, "s")
    n = PTX.count("s")
    assert n > 3 and pane.find_bar.count.text() == f"{n} matches"
    assert len([s for s in pane.editor.extraSelections() if s.cursor.hasSelection()]) == n
    first = pane.editor.textCursor().position()
    for _ in range(n):
        qtbot.keyClick(pane.find_bar.field, Qt.Key_Return)
    assert pane.editor.textCursor().position() == first  # wrapped around
    qtbot.keyClick(pane.find_bar.field, Qt.Key_Return, Qt.ShiftModifier)
    assert pane.editor.textCursor().position() == PTX.rfind("s") + 1  # back from the first wraps to the last
    qtbot.keyClick(pane.find_bar.field, Qt.Key_Escape)
    assert not pane.find_bar.isVisible() and pane.editor.find_matches == []


def test_replacing_text_keeps_the_view_and_marked_lines_band(qtbot):
    pane = EditorPane("ptx", read_only=False)
    qtbot.addWidget(pane)
    pane.resize(500, 200)
    pane.show()
    ed = pane.editor
    text = "\n".join(f"// line {i}" for i in range(1, 400))
    ed.setPlainText(text)
    ed.goto_line(300)
    top = ed.verticalScrollBar().value()
    assert top > 100
    ed.set_text_keep_view(text + "\n// saved")
    assert ed.verticalScrollBar().value() == top and ed.current_line() == 300
    ed.mark_lines({10, 11})
    bands = [s.cursor.blockNumber() + 1 for s in ed.extraSelections() if s.format.background().color() == ed.colors["marked"]]
    assert bands == [10, 11]


def test_diff_aligns_generated_and_edited():
    rows = aligned(["a", "b", "c", "d"], ["a", "B", "c", "d", "e"])
    assert [r[2] for r in rows] == ["equal", "changed", "equal", "equal", "added"]


def test_diff_view_colours_only_changed_lines(qtbot):
    view = DiffView()
    qtbot.addWidget(view)
    view.show()
    edited = PTX.replace("\tret;", "\tadd.s32 %r1, %r1, 1;\n\tret;")
    view.set_texts(PTX, edited)
    assert view.changed_rows() == [7]
    assert view.summary.text().endswith(": 1 line added")
    assert view.left.blockCount() == view.right.blockCount()  # line N faces line N
    assert [s.cursor.blockNumber() for s in view.right.extraSelections()] == [6]
    view.set_texts(PTX, PTX)
    assert "identical" in view.summary.text() and view.right.extraSelections() == []


def test_dark_theme_covers_widgets_plots_and_highlighting(qtbot):
    import pyqtgraph as pg
    win = QMainWindow()
    split = QSplitter()
    pane = EditorPane("ptx", read_only=True)
    plot = pg.PlotWidget(title="t")
    split.addWidget(pane)
    split.addWidget(plot)
    win.setCentralWidget(split)
    qtbot.addWidget(win)
    win.resize(800, 400)
    win.show()
    pane.editor.setPlainText(PTX)
    try:
        apply_theme("dark", win)
        qtbot.wait(20)  # palette changes reach widgets as posted events
        assert QApplication.palette().color(QApplication.palette().ColorRole.Window).lightness() < 80
        assert plot.backgroundBrush().color().lightness() < 60
        assert pixel_rgb(pane.editor.viewport(), pane.editor.viewport().width() - 5, 150)[0] < 60  # dark text area
        fmt = pane.editor.document().findBlockByNumber(0).layout().formats()
        assert fmt and all(f.format.foreground().color().lightness() > 100 for f in fmt)  # light tokens on dark
        apply_theme("light", win)
        assert plot.backgroundBrush().color().lightness() > 200
    finally:
        apply_theme("light", win)


def test_settings_persist_across_instances(qtbot, tmp_path):
    path = str(tmp_path / "settings.ini")
    s = Settings(path)
    s.theme = "dark"
    for p in ("/a", "/b", "/a"):
        s.add_recent(p)
    split = QSplitter()
    qtbot.addWidget(split)
    split.addWidget(QMainWindow())
    split.addWidget(QMainWindow())
    split.resize(600, 100)
    split.show()
    split.setSizes([100, 500])
    s.save_state("split", split)
    s.sync()
    again = Settings(path)
    assert again.theme == "dark" and again.recent() == ["/a", "/b"] and again.last_project == "/a"
    other = QSplitter()
    qtbot.addWidget(other)
    other.addWidget(QMainWindow())
    other.addWidget(QMainWindow())
    other.resize(600, 100)
    other.show()
    assert again.restore_state("split", other)
    assert other.sizes()[0] < other.sizes()[1]


def test_no_display_is_one_line_naming_the_cli():
    from qdexplorer.gui.plumbing.display import display_problem
    msg = display_problem({}, "linux")
    assert msg and "\n" not in msg and "qdexplorer compile" in msg
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    missing = display_problem({"DISPLAY": ":0"}, "linux", find=lambda lib: None if lib == "xcb-icccm" else lib)
    assert "libxcb-icccm4" in missing and "libxcb-keysyms1" not in missing
    assert display_problem({"DISPLAY": ":0"}, "linux", find=lambda lib: lib) is None


def test_a_marker_moves_with_its_line_when_lines_are_inserted_above(qtbot):
    pane = EditorPane("ptx", read_only=False)
    qtbot.addWidget(pane)
    pane.show()
    ed = pane.editor
    ed.setPlainText(PTX.replace("ret;", "rett;"))
    ed.set_markers([Marker(7, "error", "Not a name of any known instruction: 'rett'")])
    cur = ed.textCursor()
    cur.setPosition(0)
    cur.insertText("// one\n// two\n")      # the user types two lines at the top
    assert list(ed.markers) == [9] and "rett" in ed.marker_text(9) and ed.marker_text(7) == ""
    assert "rett" in ed.document().findBlockByNumber(8).text()
    ed.setPlainText(PTX)                     # a new text: the old diagnostics go
    assert ed.markers == {}


def test_a_docstring_over_several_lines_is_highlighted_as_a_string(qtbot):
    pane = EditorPane("python", read_only=True)
    qtbot.addWidget(pane)
    pane.show()
    ed = pane.editor
    ed.setPlainText('def f(x):\n    """Scale x.\n\n    for each value in x, return it if it is\n    """\n    return x\n')

    def colours(line):
        return {f.format.foreground().color().name() for f in ed.document().findBlockByNumber(line).layout().formats()}
    doc = colours(1)                             # the line that opens the docstring
    assert colours(3) == doc and colours(4) <= doc   # its inner lines: the string's colour, not keywords'
    assert colours(5) != doc                     # after it closes: code again


def test_help_documentation_opens_the_docs_installed_with_the_code(monkeypatch, tmp_path):
    """Issue 22 #13: Help > Documentation went to a web page, whatever version was running."""
    from qdexplorer.gui import menus
    url = menus.docs_url()   # a checkout: its own docs/app.md
    assert url.isLocalFile() and url.toLocalFile().endswith("docs/app.md")
    assert "window" in open(url.toLocalFile(), encoding="utf-8").read().lower()
    monkeypatch.setattr(menus, "_ROOT", tmp_path)   # an install without docs beside it: the web page
    assert menus.docs_url().toString() == menus.DOCS
