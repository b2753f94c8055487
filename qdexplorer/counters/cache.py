"""Profiles kept on disk, so an unchanged task is never profiled twice.

Keyed by the PTX of every module the launch loads (the profiled task's above all), the launch
configuration (workload, trip counts, block size, seed), the ncu version and the preset. An entry
is the parsed record (JSON) beside ncu's own report, written to a temporary name then renamed,
so a reader never sees half of one. `enabled=False` switches it off.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..compiler.safe_files import UnsafePathError, check_folder, copy_file, write_file
from .record import RECORD_VERSION, TaskCounters


def profile_key(**parts: Any) -> str:
    blob = json.dumps({"record": RECORD_VERSION, **parts}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class CountersCache:
    def __init__(self, folder: str | Path | None, enabled: bool = True):
        self.folder = Path(folder) if folder is not None else None
        self.enabled = enabled and folder is not None

    def _dir(self, key: str) -> Path:
        assert self.folder is not None
        return self.folder / key[:2]

    def get(self, key: str) -> TaskCounters | None:
        if not self.enabled:
            return None
        try:
            d = json.loads((self._dir(key) / f"{key}.json").read_text())
            if d.get("version") != RECORD_VERSION:
                return None
            rec = TaskCounters.from_json(d)
        except (OSError, ValueError, TypeError, KeyError):
            return None
        rec.cached = True
        return rec

    def report_path(self, key: str) -> Path | None:
        if not self.enabled:
            return None
        p = self._dir(key) / f"{key}.ncu-rep"
        return p if p.is_file() else None

    def put(self, key: str, rec: TaskCounters, report: Path | None = None) -> None:
        if not self.enabled:
            return
        d = self._dir(key)
        try:
            check_folder(d, create=True, below=self.folder.parent)
            if report is not None and report.is_file():
                copy_file(report, d / f"{key}.ncu-rep")
            write_file(d / f"{key}.json", json.dumps(rec.to_json()))
        except (OSError, UnsafePathError):
            pass   # a cache that cannot be written only costs a second profile
