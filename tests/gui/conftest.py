import pytest

pytest.importorskip("PySide6.QtWidgets", reason="PySide6 is not installed (the GUI is optional on this machine)")
pytest.importorskip("pyqtgraph")
pytest.importorskip("pytestqt")
