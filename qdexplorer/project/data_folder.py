"""Where a project's own state lives: its PTX/LLVM-IR overrides and its run history.

`<project>/.qdexplorer/` travels with the project (overrides, `history.sqlite`). A project that
cannot be written to, such as the bundled demo inside an installed package or a folder on a
read-only mount, gets a folder of its own under the user data folder instead, so nothing is
ever written into the package. Every Engine applies this rule (the CLI and the window alike);
`QDEXPLORER_DATA_DIR` moves the user data folder (tests, CI).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import platformdirs

from ..compiler.overrides import OverrideStore
from ..lang.errors import QdError
from .loader import bundled_demo

HISTORY = "history.sqlite"
STATE = ".qdexplorer"


def user_data_dir() -> Path:
    env = os.environ.get("QDEXPLORER_DATA_DIR")
    return Path(env) if env else Path(platformdirs.user_data_dir("qdexplorer"))


def project_folder(project: str | Path | None) -> Path:
    """The project's folder (a kernel file's folder), or the bundled demo for None."""
    if project is None:
        return bundled_demo()
    p = Path(project).expanduser()
    if not p.exists():
        raise QdError(f"project {p} does not exist: pass a project folder or kernel file")
    return (p if p.is_dir() else p.parent).resolve()


def _package_dir() -> Path:
    return Path(__file__).resolve().parent.parent


def is_read_only(folder: Path) -> bool:
    """Inside the installed package (whatever the file permissions say), or not writable."""
    folder = folder.resolve()
    if folder == _package_dir() or _package_dir() in folder.parents:
        return True
    state = folder / STATE
    return not os.access(state if state.is_dir() else folder, os.W_OK)


def state_folder(project: str | Path | None) -> Path:
    """`<project>/.qdexplorer`, or the project's own folder under the user data folder."""
    folder = project_folder(project)
    if not is_read_only(folder):
        return folder / STATE
    digest = hashlib.sha256(str(folder).encode()).hexdigest()[:12]
    return user_data_dir() / "projects" / f"{folder.name}-{digest}"


def history_path(project: str | Path | None) -> Path:
    return state_folder(project) / HISTORY


def overrides_folder(project: str | Path | None) -> Path:
    """Where `project`'s overrides are read and written (a single kernel file's too)."""
    return state_folder(project) / "overrides"


def override_store(project: str | Path | None, load_dir: str | Path | None = None,
                   load_kinds: tuple[str, ...] = ("ptx",)) -> OverrideStore:
    """The project's overrides, wherever the rule above puts them: the one way the CLI, the window
    and every Engine open them, so `override set` on the bundled demo never writes into the package."""
    folder = project_folder(project)
    store = overrides_folder(project)
    own = store == folder / STATE / "overrides"   # inside the project: symlinks below it are checked
    return OverrideStore(folder, load_dir, load_kinds, folder=None if own else store)
