"""One window for the tests of a module that only select, resize, switch tabs and measure.

A window over the demo costs about 1.4 s of CPU to build and compile (from the shared cache), most of
a test that then only resizes it and reads a geometry. Those tests share one window per module (per
test process under xdist); after each, what such a test may change is put back as it was (size,
splitters, selection, tabs, pages, the toolbar's and the Sweep tab's choices, the recent list), and
what no such test may change (runs, overrides, the open project) is checked, so a test that starts
doing either fails here instead of leaking into the next one. Tests that edit, run or bench keep a
window of their own.
"""
from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot


@contextlib.contextmanager
def module_window(request, qapp, make: Callable[[QtBot], object]) -> Iterator:
    """The window `make(qtbot)` builds, closed when the module's tests are done. The GUI-thread
    collection of tests/gui/conftest.py is on while it is built and closed (its engine thread works
    then, and must not be the one that frees Qt objects), as it is during each test."""
    from qdexplorer.gui.plumbing import main_thread_gc
    main_thread_gc.install(qapp)
    win = make(QtBot(request))
    try:
        yield win
    finally:
        main_thread_gc.install(qapp)
        win._closing = True
        win.close()
        main_thread_gc.uninstall()
        gc.freeze()   # as each test's own collection does (tests/gui/conftest.py)


class _State:
    """What a read-only test may change, as it was before the test."""

    def __init__(self, win):
        self.size = (win.width(), win.height())
        self.splits = [(s, s.sizes()) for s in (win.split, win.views, win.right)]
        self.wanted = win.split.wanted
        self.task = win.tree.selected_task()
        self.tabs = win.views.tabs.currentIndex()
        self.page = win.pages.currentWidget()
        self.bottom = win.bottom.currentWidget()
        self.workload, self.repeat = win.workload.currentText(), win.repeat.value()
        self.block_dims = win.sweep.block_dims.text()
        self.recent = win.settings.recent()
        self.runs = len(win.session.runs)
        self.project = str(win.project_path)
        self.overrides = _files(win)

    def restore(self, win, qtbot) -> None:
        assert len(win.session.runs) == self.runs, "a test of the shared window ran something: give it its own"
        assert str(win.project_path) == self.project, "a test of the shared window opened another project"
        assert _files(win) == self.overrides, "a test of the shared window saved an override: give it its own"
        win.resize(*self.size)
        for split, sizes in self.splits:
            split.setSizes(sizes)
        win.split.want_tree(self.wanted)
        others = [t for t in win.tree.items if t != self.task]
        if others:
            win.tree.select(others[0])   # and back: the code views redraw the task (markers, SASS note)
        if self.task is not None:
            win.tree.select(self.task)
        win.views.tabs.setCurrentIndex(self.tabs)
        win.pages.setCurrentWidget(self.page)
        win.bottom.setCurrentWidget(self.bottom)
        win.workload.setCurrentText(self.workload)
        win.repeat.setValue(self.repeat)
        win.sweep.block_dims.setText(self.block_dims)
        win.settings.set("project/recent", self.recent)
        win.projects.update_recent_menu()
        qtbot.wait(300)   # the tree refits its columns 150 ms after a resize: settled before the next test
        qtbot.waitUntil(lambda: not win.bridge_busy(), timeout=60000)


def _files(win) -> list[str]:
    from qdexplorer.project.data_folder import overrides_folder
    folder = Path(overrides_folder(win.project_path))
    return sorted(str(p) for p in folder.rglob("*")) if folder.is_dir() else []


@contextlib.contextmanager
def restored(win, qtbot) -> Iterator:
    """The shared window for one test, put back as it was after it. It is made the active window first:
    another test's window, shown since, took that, and a widget of an inactive window gets no focus
    (the PTX/source line marking follows the focus)."""
    win.raise_()
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=10000)
    state = _State(win)
    yield win
    state.restore(win, qtbot)


def shared_window_fixtures(make: Callable[[QtBot, Path], object]) -> tuple:
    """The fixture pair a module declares as `_module_window, shared_window = shared_window_fixtures(make)`:
    its one window, made by `make(qtbot, folder)` in a folder of its own, and each test's use of it,
    put back as it was afterwards (`restored`)."""
    @pytest.fixture(scope="module")
    def _module_window(request, qapp, tmp_path_factory):
        folder = tmp_path_factory.mktemp("shared")
        with module_window(request, qapp, lambda qtbot: make(qtbot, folder)) as win:
            yield win

    @pytest.fixture
    def shared_window(_module_window, qtbot):
        with restored(_module_window, qtbot) as win:
            yield win

    return _module_window, shared_window
