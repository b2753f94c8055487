"""The SASS tab with only the pip wheels (`qdexplorer[sass]`): SASS for the picked sm_XX, the gutter's
PTX·source line per instruction, selection banding SASS ⇄ PTX ⇄ source, and the diff vs generated
after an override (FFMA becomes FADD)."""
import re

import pytest

from qdexplorer.compiler import ptxas

from ..compiler.test_sass import needs_wheels
from .test_app import project, window  # noqa: F401 - fixtures

pytestmark = [pytest.mark.gui, needs_wheels]
TASK = "saxpy_kernel_0_range_for"


def _open_sass(win, qtbot, arch=None):
    win.tree.select(TASK)
    views = win.views
    views.setCurrentWidget(views.sass_pane)
    if arch:
        views.sass_panel.arch.setCurrentText(arch)
    want = arch or "sm_90"
    qtbot.waitUntil(lambda: views.sass_panel.listing is not None and views.sass_panel.listing.arch == want
                    and not win.bridge_busy(), timeout=120000)
    return views


def test_sass_tab_gutter_and_line_map(window, qtbot):  # noqa: F811
    assert ptxas.find_tool("nvdisasm") is not None
    views = _open_sass(window, qtbot)
    sass = views.sass
    listing = views.sass_panel.listing
    assert re.search(r"\bFFMA\b", sass.toPlainText())
    assert sass.line_labels and set(sass.line_labels) == set(listing.to_ptx)
    ffma = next(i for i, t in enumerate(sass.toPlainText().splitlines(), start=1) if "FFMA" in t)
    ptx_line, src = listing.to_ptx[ffma], listing.to_source[ffma]
    assert sass.line_labels[ffma] == f"{ptx_line}·{src[1]}"
    assert "fma." in views.ptx.toPlainText().splitlines()[ptx_line - 1]
    # a SASS line bands its PTX line and its source line
    sass.goto_line(ffma)
    sass.line_selected.emit(ffma)   # as the user's click does (the editor emits it when it has the focus)
    qtbot.waitUntil(lambda: views.ptx.marked == {ptx_line} and views.source.marked == {src[1]}, timeout=5000)
    # a PTX line bands every SASS line made from it
    views.setCurrentWidget(views.ptx_panel)
    views.ptx.goto_line(ptx_line)
    views.ptx.line_selected.emit(ptx_line)
    qtbot.waitUntil(lambda: ffma in sass.marked, timeout=5000)
    assert sass.marked == set(listing.sass_lines_of_ptx([ptx_line]))


def test_sass_for_another_arch_and_the_diff_vs_generated(window, qtbot):  # noqa: F811
    views = _open_sass(window, qtbot, "sm_80")
    assert views.sass_panel.listing.arch == "sm_80" and "FFMA" in views.sass.toPlainText()
    # an override: the first fma becomes an add; the SASS diff shows an FFMA replaced
    text = views.ptx.toPlainText()
    edited, n = re.subn(r"fma\.rn\.ftz\.f32\s+(%r\d+), %r\d+, (%r\d+), (%r\d+);", r"add.rn.ftz.f32 \1, \2, \3;", text,
                        count=1)
    assert n == 1
    window.edits.save_override(TASK, edited)
    qtbot.waitUntil(lambda: not window.bridge_busy() and views.ptx.toPlainText() == edited, timeout=60000)
    views.setCurrentWidget(views.sass_pane)
    views.sass_panel.tabs.setCurrentIndex(1)
    diff = views.sass_panel.diff
    qtbot.waitUntil(lambda: not window.bridge_busy() and bool(diff.changed_rows()), timeout=120000)
    left, right = diff.left.toPlainText(), diff.right.toPlainText()
    assert left.count("FFMA") > right.count("FFMA") and "FADD" in right
