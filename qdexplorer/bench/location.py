"""Where a project's run history lives: in the project, or in the user data folder.

`<project>/.qdexplorer/history.sqlite` travels with the project (beside its PTX overrides). A
project that cannot be written to, such as the bundled demo inside the installed package,
gets a folder of its own under the user data folder instead: nothing is ever written into the
package. `QDEXPLORER_DATA_DIR` moves the user data folder (tests, CI).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..lang.errors import QdError

HISTORY = "history.sqlite"


def user_data_dir() -> Path:
    env = os.environ.get("QDEXPLORER_DATA_DIR")
    if env:
        return Path(env)
    try:
        import platformdirs
        return Path(platformdirs.user_data_dir("qdexplorer"))
    except ImportError:  # engine-only installs
        return Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "qdexplorer"


def project_folder(project: str | Path | None) -> Path:
    """The project's folder (a kernel file's folder), or the bundled demo for None."""
    if project is None:
        from ..project.loader import bundled_demo
        return bundled_demo()
    p = Path(project).expanduser()
    if not p.exists():
        raise QdError(f"project {p} does not exist: pass a project folder or kernel file")
    return (p if p.is_dir() else p.parent).resolve()


def _package_dir() -> Path:
    return Path(__file__).resolve().parent.parent


def is_read_only(folder: Path) -> bool:
    folder = folder.resolve()
    if folder == _package_dir() or _package_dir() in folder.parents:
        return True
    state = folder / ".qdexplorer"
    return not os.access(state if state.is_dir() else folder, os.W_OK)


def history_path(project: str | Path | None) -> Path:
    folder = project_folder(project)
    if not is_read_only(folder):
        return folder / ".qdexplorer" / HISTORY
    digest = hashlib.sha256(str(folder).encode()).hexdigest()[:12]
    return user_data_dir() / "projects" / f"{folder.name}-{digest}" / HISTORY
