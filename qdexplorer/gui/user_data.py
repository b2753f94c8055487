"""Where a project's overrides go when the project itself must not be written to.

The bundled demo lives inside the installed package, and a project may sit on a read-only mount:
their overrides go to the same per-project folder of the user data folder as their run history
(`bench.location`), so nothing is written into the package.
"""
from __future__ import annotations

from pathlib import Path

from ..bench.location import history_path, is_read_only, project_folder


def overrides_dir(project_path: str | Path) -> str | None:
    """None (the project's own .qdexplorer/overrides) unless the project is read-only or a single file."""
    p = Path(project_path).resolve()
    folder = project_folder(p)
    if not is_read_only(folder):
        return None if p.is_dir() else str(folder / ".qdexplorer" / "overrides")
    return str(history_path(p).parent / "overrides")
