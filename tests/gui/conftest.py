import gc
import os
import tempfile

import pytest

pytest.importorskip("PySide6.QtWidgets", reason="PySide6 is not installed (the GUI is optional on this machine)")
pytest.importorskip("pyqtgraph")
pytest.importorskip("pytestqt")

# Windows made without an explicit Settings use QSettings' user file, and read-only projects write to the
# user data folder: point both at a throwaway folder so tests never touch (or read) the developer's own.
_HOME = tempfile.mkdtemp(prefix="qdx-gui-home-")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_HOME, "config")
os.environ.setdefault("QDEXPLORER_DATA_DIR", os.path.join(_HOME, "data"))


@pytest.fixture(autouse=True)
def _collect_on_the_gui_thread(qapp):
    """As the app does (gui/plumbing/main_thread_gc.py): worker threads of a window under test must never be
    the ones that free Qt objects; whatever is left is collected here, on the GUI thread."""
    from qdexplorer.gui.plumbing import main_thread_gc
    main_thread_gc.install(qapp)
    yield
    main_thread_gc.uninstall()   # a full collection, here on the GUI thread
    # What survived it is live (modules, caches, the QApplication): frozen, no later test's collection scans it
    # again. Unfrozen, this teardown's cost grew with the worker's heap, 0.2 s a test at first and 0.6 s by the
    # end, 60 s of the suite's CPU over the window tests; each test's own garbage is still collected above.
    gc.freeze()
