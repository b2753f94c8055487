"""Per-task PTX overrides: the `QUADRANTS_LOAD_PTX` workflow without turning caches off.

`<project>/.qdexplorer/overrides/<task>.ptx` replaces the generated PTX at load. A sidecar
(`<task>.json`) records the sha256 of the generated PTX it was derived from, so when the kernel
source changes underneath, the override is reported as stale rather than silently kept; without
a sidecar its state is "unknown". A file that is not this task's PTX is refused, never loaded.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from ..lang.errors import QdError
from .safe_files import UnsafePathError, check_folder, check_task_name, read_nofollow, unlink_regular, write_atomic


def sha256(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


_VERSION = re.compile(rb"^\s*\.version\s+\d+\.\d+", re.M)
_TARGET = re.compile(rb"^\s*\.target\s+\w+", re.M)


def ptx_problem(data: bytes, task: str) -> str | None:
    """Why `data` cannot be `task`'s PTX (None if it looks right): UTF-8 text with a `.version`,
    a `.target` and an `.entry` named after the task. Catches the wrong file, a binary, an object
    file or another task's PTX before the driver sees it."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"it is not UTF-8 text (byte {e.start}); a PTX file is text"
    if not _VERSION.search(data) or not _TARGET.search(data):
        return "it does not look like PTX (no '.version' or '.target' line)"
    if not re.search(rb"\.entry\s+" + re.escape(task.encode()) + rb"\s*\(", data):
        return f"it has no '.entry {task}(' (is it another task's PTX?)"
    return None


@dataclass
class Override:
    task: str
    path: Path
    ptx: bytes
    sha: str
    base_sha: str | None   # hash of the generated PTX it was derived from (None: unknown)
    source: str            # 'project' | 'load-ptx'
    problem: str | None = None  # why it is refused (not PTX, unreadable, a symlink); None: usable

    def status(self, generated_sha: str | None) -> str:
        """'refused', 'unknown' (no sidecar, or nothing generated to compare), 'active' or 'stale'."""
        if self.problem:
            return "refused"
        if self.source == "load-ptx":
            return "active"  # a Quadrants load folder has no sidecars: the file is simply loaded
        if self.base_sha is None or generated_sha is None:
            return "unknown"
        return "active" if self.base_sha == generated_sha else "stale"


class OverrideStore:
    """Overrides of one project, plus an optional Quadrants-style load folder (`--load-ptx DIR`).

    Task names become file names here, so each is checked (`safe_files`); the override folder
    and its files may not be symlinks (a project is untrusted input too).
    """

    def __init__(self, project_dir: str | Path | None, load_dir: str | Path | None = None):
        self.project_dir = Path(project_dir) if project_dir else None
        self.folder = self.project_dir / ".qdexplorer" / "overrides" if self.project_dir else None
        self.load_dir = Path(load_dir) if load_dir else None
        if self.load_dir is not None and not self.load_dir.is_dir():
            raise QdError(f"--load-ptx folder {self.load_dir} "
                          f"{'is not a folder' if self.load_dir.exists() else 'does not exist'}")

    def _folder(self, create: bool = False) -> Path:
        if self.folder is None:
            raise QdError("overrides need a project folder (this project is a single file)")
        return check_folder(self.folder, create=create, below=self.project_dir)

    def _read(self, task: str, p: Path, source: str, base: str | None) -> Override:
        try:
            data = read_nofollow(p).replace(b"\x00", b"")
        except (UnsafePathError, OSError) as e:
            msg = str(e) if isinstance(e, UnsafePathError) else f"cannot read it: {e.strerror or e}"
            return Override(task, p, b"", "", base, source, problem=msg)
        return Override(task, p, data, sha256(data), base, source, problem=ptx_problem(data, task))

    def get(self, task: str) -> Override | None:
        try:
            check_task_name(task)
        except UnsafePathError:
            return None  # no file can be named after it: nothing qdexplorer wrote can apply
        if self.load_dir is not None:
            p = self.load_dir / f"{task}.ptx"
            if os.path.lexists(p):
                return self._read(task, p, "load-ptx", None)
        if self.folder is None or not os.path.lexists(self.folder.parent):
            return None
        folder = self._folder()
        p = folder / f"{task}.ptx"
        if not os.path.lexists(p):
            return None
        return self._read(task, p, "project", self._base_sha(folder, task))

    @staticmethod
    def _base_sha(folder: Path, task: str) -> str | None:
        try:
            base = json.loads(read_nofollow(folder / f"{task}.json")).get("generated_sha256")
        except (OSError, ValueError, AttributeError, UnsafePathError):
            return None
        return base if isinstance(base, str) else None

    def write(self, task: str, ptx: str | bytes, generated: str | bytes) -> Path:
        """Save an edited PTX for `task`, derived from the `generated` PTX (or its sha256 hex)."""
        check_task_name(task)
        data = (ptx.encode() if isinstance(ptx, str) else ptx).replace(b"\x00", b"")
        problem = ptx_problem(data, task)
        if problem:
            raise QdError(f"refusing the override for {task}: {problem}")
        gen_sha = generated if isinstance(generated, str) and len(generated) == 64 else sha256(generated)
        folder = self._folder(create=True)
        side = {"task": task, "generated_sha256": gen_sha, "override_sha256": sha256(data),
                "written": time.strftime("%Y-%m-%dT%H:%M:%S")}
        try:
            p = write_atomic(folder, f"{task}.ptx", data)
            write_atomic(folder, f"{task}.json", json.dumps(side, indent=2).encode())
        except OSError as e:
            raise QdError(f"cannot write the override into {folder}: {e.strerror or e}") from None
        return p

    def revert(self, task: str) -> bool:
        check_task_name(task)
        if self.folder is None or not os.path.lexists(self.folder):
            return False
        folder = self._folder()
        try:
            return any([unlink_regular(folder / f"{task}{suffix}") for suffix in (".ptx", ".json")])
        except OSError as e:
            raise QdError(f"cannot remove the override of {task} from {folder}: {e.strerror or e}") from None

    def tasks(self) -> list[str]:
        """Task names that have an override file (names that could not be a task are skipped)."""
        if self.folder is None or not os.path.lexists(self.folder):
            return []
        folder = self._folder()
        return sorted(p.stem for p in folder.glob("*.ptx") if _safe(p.stem))

    def states(self, generated: dict[str, str | None]) -> list[tuple[str, str, str]]:
        """(task, state, note) per override; `generated` maps every known task to its PTX sha256."""
        out = []
        for t in self.tasks():
            ov = self.get(t)
            if ov is None:
                continue
            if t not in generated:
                out.append((t, "orphaned", "no task of that name exists any more; revert it"))
            else:
                out.append((t, ov.status(generated[t]), ov.problem or ""))
        return out

    def unmatched_load_files(self, tasks) -> tuple[list[str], bool]:
        """(files in the --load-ptx folder that match no task, whether any file matched a task)."""
        if self.load_dir is None:
            return [], False
        names = set(tasks)
        files = sorted(p.name for p in self.load_dir.glob("*.ptx"))
        return [f for f in files if f[:-4] not in names], any(f[:-4] in names for f in files)


def _safe(name: str) -> bool:
    try:
        check_task_name(name)
        return True
    except UnsafePathError:
        return False
