"""Where a project's overrides go when the project itself must not be written to.

The bundled demo lives inside the installed package, and a project may sit on a read-only mount:
their overrides (and anything else the app writes for them) go to the user data folder instead,
under a name that keeps two projects of the same name apart.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import platformdirs

from ..project.loader import bundled_demo


def data_dir() -> Path:
    return Path(os.environ.get("QDEXPLORER_DATA_DIR") or platformdirs.user_data_dir("qdexplorer"))


def is_read_only(project_dir: Path) -> bool:
    project_dir = Path(project_dir).resolve()
    if project_dir == bundled_demo().resolve() or bundled_demo().resolve() in project_dir.parents:
        return True
    return not os.access(project_dir, os.W_OK)


def overrides_dir(project_path: str | Path) -> str | None:
    """None (the project's own .qdexplorer/overrides) unless the project is read-only or a single file."""
    p = Path(project_path).resolve()
    folder = p if p.is_dir() else p.parent
    if not is_read_only(folder):
        return None if p.is_dir() else str(folder / ".qdexplorer" / "overrides")
    tag = hashlib.sha256(str(folder).encode()).hexdigest()[:10]
    return str(data_dir() / "projects" / f"{folder.name}-{tag}" / "overrides")
