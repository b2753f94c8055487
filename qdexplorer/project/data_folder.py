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
import stat
from pathlib import Path

import platformdirs

from ..compiler.overrides import OverrideStore
from ..compiler.safe_files import UnsafePathError, check_folder
from ..ir.errors import QdError
from .loader import bundled_demo, check_readable_folder

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
    folder = (p if p.is_dir() else p.parent).resolve()
    check_readable_folder(folder)
    return folder


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


SIDE_FILES = ("-wal", "-shm", "-journal")  # what SQLite opens beside the database, by name


def unsafe_history_path(path: Path) -> str | None:
    """Why the history at `path` may not be opened (None: it may), creating its folder (private)
    if missing. SQLite follows links and opens the database and its journals by name, so the
    overrides' rules apply: the folder and every file must be real (not a symbolic link), the files
    regular (a FIFO would block the open), and all of them this user's and not writable by others.
    A group-writable project folder is accepted: its group can edit the project's code anyway."""
    folder = path.parent
    try:
        if not os.path.lexists(folder):
            check_folder(folder, create=True)   # private (0700)
    except UnsafePathError as e:
        return str(e)
    except OSError as e:
        return f"cannot create the run history folder {folder}: {e.strerror or e}"
    for p in (folder, path, *(Path(f"{path}{s}") for s in SIDE_FILES)):
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            continue
        except OSError as e:
            return f"cannot read {p}: {e.strerror or e}"
        what = "run history folder" if p == folder else "run history file"
        if stat.S_ISLNK(st.st_mode):
            return (f"the {what} {p} is a symbolic link; qdexplorer refuses to create or modify a database "
                    f"through it (replace it with a real {'folder' if p == folder else 'file'})")
        if p == folder and not stat.S_ISDIR(st.st_mode):
            return f"{p} is not a folder; the run history needs a folder there (move the file aside)"
        if p != folder and not stat.S_ISREG(st.st_mode):
            return f"the {what} {p} is not a regular file (a FIFO or device?); move it aside"
        why = _untrusted(st)
        if why:
            return f"the {what} {p} {why}; qdexplorer refuses to use it (fix: chown it to yourself, chmod o-w)"
    return None


def _untrusted(st: os.stat_result) -> str | None:
    if not hasattr(os, "getuid"):
        return None
    if st.st_uid != os.getuid():
        return f"belongs to another user (uid {st.st_uid})"
    if st.st_mode & stat.S_IWOTH:
        return "is writable by other users"
    return None
