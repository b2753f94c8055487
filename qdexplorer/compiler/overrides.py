"""Per-task overrides of a stage's output: the `QUADRANTS_LOAD_PTX` / `QD_LOAD_IR` workflow
without turning caches off.

`<project>/.qdexplorer/overrides/<task>.ptx` replaces the generated PTX, and `<task>.ll` the
generated LLVM module text (which is then compiled to PTX as usual). A sidecar (`<task>.json`,
`<task>.ll.json`) records the sha256 of the generated text it was derived from, so when the
kernel source changes underneath, the override is reported as stale rather than silently kept.
A load folder (`--load-ptx DIR`, `QUADRANTS_LOAD_PTX=1`, `QD_LOAD_IR=1`) uses Quadrants' names:
`<task>.ptx` and `<task>_before_ptx.ll`.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

SUFFIX = {"ptx": ".ptx", "ll": ".ll"}
SIDECAR = {"ptx": ".json", "ll": ".ll.json"}
LOAD_NAME = {"ptx": ".ptx", "ll": "_before_ptx.ll"}


def sha256(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


@dataclass
class Override:
    task: str
    path: Path
    data: bytes
    sha: str
    base_sha: str | None   # hash of the generated PTX it was derived from (None: unknown)
    source: str            # 'project' | 'load-ptx'

    kind: str = "ptx"
    target: str | None = None  # LLVM IR is per target ('nvptx' | 'host'); None: any (PTX, or unrecorded)

    @property
    def ptx(self) -> bytes:
        return self.data

    def status(self, generated_sha: str) -> str:
        if self.source != "project":
            return "active"
        if self.base_sha is None:
            return "unknown"
        return "active" if self.base_sha == generated_sha else "stale"


def _atomic_write(path: Path, data: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


class OverrideStore:
    """Overrides of one project, plus an optional Quadrants-style load folder (`--load-ptx DIR`)."""

    def __init__(self, project_dir: str | Path | None, load_dir: str | Path | None = None,
                 load_kinds: tuple[str, ...] = ("ptx",), folder: str | Path | None = None):
        """`folder` overrides where a project's overrides live (a read-only project keeps them in
        the user data folder); `load_kinds`: which stages the load folder feeds."""
        if folder is not None:
            self.folder = Path(folder)
        else:
            self.folder = Path(project_dir) / ".qdexplorer" / "overrides" if project_dir else None
        self.load_dir = Path(load_dir) if load_dir else None
        self.load_kinds = load_kinds

    def get(self, task: str, kind: str = "ptx") -> Override | None:
        if self.load_dir is not None and kind in self.load_kinds:
            p = self.load_dir / f"{task}{LOAD_NAME[kind]}"
            if p.is_file():
                data = p.read_bytes().replace(b"\x00", b"")
                return Override(task, p, data, sha256(data), None, "load-ptx" if kind == "ptx" else "load-ir", kind)
        if self.folder is None or kind not in SUFFIX:
            return None
        p = self.folder / f"{task}{SUFFIX[kind]}"
        if not p.is_file():
            return None
        data = p.read_bytes().replace(b"\x00", b"")
        base = target = None
        side = self.folder / f"{task}{SIDECAR[kind]}"
        if side.is_file():
            try:
                meta = json.loads(side.read_text())
                base, target = meta.get("generated_sha256"), meta.get("target")
            except (OSError, ValueError, AttributeError):
                base = None
        return Override(task, p, data, sha256(data), base, "project", kind, target)

    def write(self, task: str, text: str | bytes, generated: str | bytes, kind: str = "ptx",
              target: str | None = None) -> Path:
        """Save an edited stage output for `task`, derived from the `generated` one.

        `target`: which target's LLVM IR it is ('nvptx' or 'host'); an LLVM-IR override is only
        used when compiling for that target (the two modules differ: thread indices, triple)."""
        if self.folder is None:
            raise ValueError("overrides need a project folder")
        data = (text.encode() if isinstance(text, str) else text).replace(b"\x00", b"")
        p = self.folder / f"{task}{SUFFIX[kind]}"
        _atomic_write(p, data)
        side = {"task": task, "stage": kind, "target": target, "generated_sha256": sha256(generated), "override_sha256": sha256(data),
                "written": time.strftime("%Y-%m-%dT%H:%M:%S")}
        _atomic_write(self.folder / f"{task}{SIDECAR[kind]}", json.dumps(side, indent=2).encode())
        return p

    def revert(self, task: str, kinds: tuple[str, ...] = ("ptx", "ll")) -> bool:
        if self.folder is None:
            return False
        found = False
        for suffix in [s for k in kinds for s in (SUFFIX[k], SIDECAR[k])]:
            p = self.folder / f"{task}{suffix}"
            if p.exists():
                p.unlink()
                found = True
        return found

    def tasks(self) -> list[str]:
        if self.folder is None or not self.folder.is_dir():
            return []
        return sorted({p.name[:-len(s)] for s in (".ptx", ".ll") for p in self.folder.glob("*" + s)})
