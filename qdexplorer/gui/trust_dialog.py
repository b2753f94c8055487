"""Ask before opening a project: opening it imports (runs) its Python files.

Editors ask for workspace trust; so does the window, once per folder. The answer is kept by the
Qt-free `project.trust.TrustStore`; a declined folder is asked about again next time.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from ..project.trust import TrustStore


def confirm_trust(project, store: TrustStore | None = None, parent=None) -> bool:
    """True if `project` may be opened (trusted before, the bundled demo, or the user says yes)."""
    store = store or TrustStore()
    if project is None or not Path(project).exists() or store.is_trusted(project):
        return True  # the demo, or a missing folder (which the loader reports with one message)
    path = Path(project).resolve()
    box = QMessageBox(QMessageBox.Icon.Warning, "Trust this project?",
                      f"Opening {path} runs its Python files (kernels and workloads are code).\n\n"
                      f"Open it only if you trust where it came from.",
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, parent)
    box.button(QMessageBox.StandardButton.Yes).setText("Trust and open")
    box.button(QMessageBox.StandardButton.No).setText("Don't open")
    box.setDefaultButton(QMessageBox.StandardButton.No)
    trusted = box.exec() == QMessageBox.StandardButton.Yes
    store.remember(path, trusted)
    return trusted
