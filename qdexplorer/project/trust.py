"""Which project folders the user has agreed to run: opening a project imports (runs) its Python.

Editors ask for workspace trust before running a folder's code; the window does the same and
remembers the answer here, in the user config folder (`QDEXPLORER_CONFIG_DIR` overrides it).
The command line does not ask: naming a project there is like running a script, so trust is
implied and the CLI says in one line that it imports the project. The bundled demo is trusted.
No Qt here: the window only shows the question.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ..compiler.safe_files import UnsafePathError, read_input, write_file
from .loader import bundled_demo


def config_dir() -> Path:
    env = os.environ.get("QDEXPLORER_CONFIG_DIR")
    if env:
        return Path(env)
    try:
        import platformdirs
        return Path(platformdirs.user_config_dir("qdexplorer"))
    except ImportError:
        return Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config")) / "qdexplorer"


class TrustStore:
    """Answers per resolved folder: True (trusted), False (declined), None (never asked)."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else config_dir() / "trusted_projects.json"

    def _load(self) -> dict:
        try:
            data = json.loads(read_input(self.path, 16 << 20, "trust list"))
        except (OSError, ValueError, UnsafePathError):
            return {}  # unreadable or garbled: ask again rather than trust anything
        return data if isinstance(data, dict) else {}

    @staticmethod
    def _key(project: str | Path) -> str:
        p = Path(project).resolve()
        return str(p if p.is_dir() else p.parent)

    def answer(self, project: str | Path) -> bool | None:
        key = self._key(project)
        if key == str(bundled_demo()):
            return True
        entry = self._load().get(key)
        return entry.get("trusted") if isinstance(entry, dict) and isinstance(entry.get("trusted"), bool) else None

    def is_trusted(self, project: str | Path) -> bool:
        return self.answer(project) is True

    def remember(self, project: str | Path, trusted: bool) -> None:
        data = self._load()
        data[self._key(project)] = {"trusted": bool(trusted), "when": time.strftime("%Y-%m-%dT%H:%M:%S")}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_file(self.path, json.dumps(data, indent=2))


def import_notice(project: str | Path | None) -> str | None:
    """The CLI's one line before it imports a project's Python (None for the bundled demo)."""
    if project is None:
        return None
    p = Path(project).resolve()
    if not p.exists() or (p if p.is_dir() else p.parent) == bundled_demo():
        return None  # a missing folder gets its own one-line error, and nothing is imported
    return (f"qdexplorer: importing the Python files of {p} (this runs the project's code, as running a "
            f"script would)")
