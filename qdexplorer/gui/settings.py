"""What the window remembers between sessions, over QSettings (the platform's own store).

One object with named, typed values, so the keys live in one place; widgets (splitters, headers,
the main window) are saved and restored through `save_state` / `restore_state` and the geometry
pair. Tests pass an .ini path.
"""
from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings

RECENT_MAX = 10


class Settings:
    def __init__(self, path: str | None = None):
        self.qs = QSettings(path, QSettings.IniFormat) if path else QSettings("qdexplorer", "qdexplorer")

    # ---- typed values
    def get(self, key: str, default=None, type_=None):
        value = self.qs.value(key, default)
        if value is None or type_ is None:
            return value
        if type_ is bool:
            return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes")
        try:
            return type_(value)
        except (TypeError, ValueError):
            return default

    def set(self, key: str, value):
        self.qs.setValue(key, value)

    def sync(self):
        self.qs.sync()

    # ---- named values
    @property
    def theme(self) -> str:
        return self.get("view/theme", "light", str)

    @theme.setter
    def theme(self, value: str):
        self.set("view/theme", value)

    @property
    def last_project(self) -> str | None:
        return self.get("project/last", None, str) or None

    @last_project.setter
    def last_project(self, value: str | None):
        self.set("project/last", value or "")

    def recent(self) -> list[str]:
        value = self.qs.value("project/recent", [])
        if isinstance(value, str):  # QSettings gives a one-element list back as a plain string
            value = [value]
        return [v for v in (value or []) if v]

    def add_recent(self, path: str):
        items = [path] + [p for p in self.recent() if p != path]
        self.set("project/recent", items[:RECENT_MAX])
        self.last_project = path

    def clear_recent(self):
        self.set("project/recent", [])

    # ---- widgets
    def save_geometry(self, key: str, widget):
        self.set(f"geometry/{key}", widget.saveGeometry())

    def restore_geometry(self, key: str, widget) -> bool:
        data = self.qs.value(f"geometry/{key}")
        return bool(isinstance(data, QByteArray) and widget.restoreGeometry(data))

    def save_state(self, key: str, widget):
        """Splitters, headers and main windows all have saveState()."""
        self.set(f"state/{key}", widget.saveState())

    def restore_state(self, key: str, widget) -> bool:
        data = self.qs.value(f"state/{key}")
        return bool(isinstance(data, QByteArray) and widget.restoreState(data))
