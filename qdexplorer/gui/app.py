"""`qdexplorer gui [PROJECT]`: open the desktop app on a project (the bundled demo by default)."""
from __future__ import annotations

import sys

import pyqtgraph  # noqa: F401 - fail here (and the CLI says what to install) if the GUI stack is missing
from PySide6.QtWidgets import QApplication


def main(project=None, argv=None) -> int:
    from ..engine import Engine
    from ..project.loader import load_project
    from ..runtime.cuda.detect import cuda_status
    from .main_window import MainWindow
    from .trust_dialog import confirm_trust

    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("qdexplorer")
    if not confirm_trust(project):  # opening a project runs its code: ask first, once per folder
        print(f"qdexplorer: not opening {project}: it is not trusted", file=sys.stderr)
        return 2
    proj = load_project(project)  # bad input fails here, before any window, with one message
    st = cuda_status()
    backend = "cuda" if st.available else "cpu"
    win = MainWindow(lambda: Engine(proj, backend=backend), proj.name, "" if st.available else st.reason,
                     watch=proj.files)
    if st.available:
        win.backend.setCurrentText("cuda")
    win.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else None))
