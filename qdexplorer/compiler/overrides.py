"""Per-task PTX overrides: the `QUADRANTS_LOAD_PTX` workflow without turning caches off.

`<project>/.qdexplorer/overrides/<task>.ptx` replaces the generated PTX at load. A sidecar
(`<task>.json`) records the sha256 of the generated PTX it was derived from, so when the kernel
source changes underneath, the override is reported as stale rather than silently kept.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


def sha256(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


@dataclass
class Override:
    task: str
    path: Path
    ptx: bytes
    sha: str
    base_sha: str | None   # hash of the generated PTX it was derived from (None: unknown)
    source: str            # 'project' | 'load-ptx'

    def status(self, generated_sha: str) -> str:
        if self.base_sha is None or self.base_sha == generated_sha:
            return "active"
        return "stale"


def _atomic_write(path: Path, data: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


class OverrideStore:
    """Overrides of one project, plus an optional Quadrants-style load folder (`--load-ptx DIR`)."""

    def __init__(self, project_dir: str | Path | None, load_dir: str | Path | None = None):
        self.folder = Path(project_dir) / ".qdexplorer" / "overrides" if project_dir else None
        self.load_dir = Path(load_dir) if load_dir else None

    def get(self, task: str) -> Override | None:
        if self.load_dir is not None:
            p = self.load_dir / f"{task}.ptx"
            if p.is_file():
                data = p.read_bytes().replace(b"\x00", b"")
                return Override(task, p, data, sha256(data), None, "load-ptx")
        if self.folder is None:
            return None
        p = self.folder / f"{task}.ptx"
        if not p.is_file():
            return None
        data = p.read_bytes().replace(b"\x00", b"")
        base = None
        side = self.folder / f"{task}.json"
        if side.is_file():
            try:
                base = json.loads(side.read_text()).get("generated_sha256")
            except (OSError, ValueError):
                base = None
        return Override(task, p, data, sha256(data), base, "project")

    def write(self, task: str, ptx: str | bytes, generated: str | bytes) -> Path:
        """Save an edited PTX for `task`, derived from the `generated` PTX."""
        if self.folder is None:
            raise ValueError("overrides need a project folder")
        data = (ptx.encode() if isinstance(ptx, str) else ptx).replace(b"\x00", b"")
        p = self.folder / f"{task}.ptx"
        _atomic_write(p, data)
        side = {"task": task, "generated_sha256": sha256(generated), "override_sha256": sha256(data),
                "written": time.strftime("%Y-%m-%dT%H:%M:%S")}
        _atomic_write(self.folder / f"{task}.json", json.dumps(side, indent=2).encode())
        return p

    def revert(self, task: str) -> bool:
        if self.folder is None:
            return False
        found = False
        for suffix in (".ptx", ".json"):
            p = self.folder / f"{task}{suffix}"
            if p.exists():
                p.unlink()
                found = True
        return found

    def tasks(self) -> list[str]:
        if self.folder is None or not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.ptx"))
