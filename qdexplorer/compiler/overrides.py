"""Per-task overrides of a stage's output: the `QUADRANTS_LOAD_PTX` / `QD_LOAD_IR` workflow
without turning caches off.

`<project>/.qdexplorer/overrides/<task>.ptx` replaces the generated PTX, and `<task>.ll` the
generated LLVM module text (which is then compiled to PTX as usual). A sidecar (`<task>.json`,
`<task>.ll.json`) records the sha256 of the generated text it was derived from, so when the
kernel source changes underneath, the override is reported as stale rather than silently kept;
without a sidecar its state is "unknown". A load folder (`--load-ptx DIR`, `QUADRANTS_LOAD_PTX=1`,
`QD_LOAD_IR=1`) uses Quadrants' names: `<task>.ptx` and `<task>_before_ptx.ll`.

Task names become file names here, so each is checked (`safe_files`); the override folder and
its files may not be symlinks (a project is untrusted input too); and a file that is not this
task's PTX (or LLVM IR) is refused, never loaded.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..ir.errors import QdError
from .safe_files import unsafe_owner
from .safe_files import (UnsafePathError, check_folder, check_task_name, read_checked, read_nofollow, unlink_regular,
                         write_atomic)

SUFFIX = {"ptx": ".ptx", "ll": ".ll"}
SIDECAR = {"ptx": ".json", "ll": ".ll.json"}
LOAD_NAME = {"ptx": ".ptx", "ll": "_before_ptx.ll"}


def sha256(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


_VERSION = re.compile(rb"^\s*\.version\s+\d+\.\d+", re.M)
_TARGET = re.compile(rb"^\s*\.target\s+\w+", re.M)


def content_problem(data: bytes, task: str, kind: str = "ptx") -> str | None:
    """Why `data` cannot be `task`'s PTX / LLVM IR (None if it looks right). PTX: UTF-8 text with a
    `.version`, a `.target` and an `.entry` named after the task; LLVM IR: UTF-8 text that defines
    the task's entry. Catches the wrong file, a binary, or another task's code before LLVM or the
    driver sees it."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"it is not UTF-8 text (byte {e.start}); a {kind.upper()} file is text"
    name = re.escape(task.encode())
    if kind == "ll":
        if not re.search(rb"\bdefine\b[^\n]*@\"?" + name + rb"\"?\s*\(", data):
            return f"it does not define @{task} (is it LLVM IR, and this task's?)"
        return None
    if not _VERSION.search(data) or not _TARGET.search(data):
        return "it does not look like PTX (no '.version' or '.target' line)"
    if not re.search(rb"\.entry\s+" + name + rb"\s*\(", data):
        return f"it has no '.entry {task}(' (is it another task's PTX?)"
    return None


def _entry_params(data: bytes, task: str) -> list[bytes] | None:
    """The parameter types of `define ... @task(...)` in LLVM IR (None where it has no such line)."""
    m = re.search(rb"\bdefine\b[^\n]*@\"?" + re.escape(task.encode()) + rb"\"?\s*\(([^)]*)\)", data)
    if m is None:
        return None
    return [p.split()[0] for p in m.group(1).split(b",") if p.strip()]


def signature_problem(data: bytes, generated: bytes, task: str) -> str | None:
    """Why an LLVM-IR override cannot stand in for the generated module: its entry must take the
    parameters the launcher packs (one per array pointer, shape, scalar, chunk bound), or the
    kernel reads garbage (or zeros) where its arguments should be."""
    mine, theirs = _entry_params(data, task), _entry_params(generated, task)
    if mine is None or theirs is None or mine == theirs:
        return None
    return (f"its @{task} takes ({', '.join(t.decode() for t in mine)}) but the generated one takes "
            f"({', '.join(t.decode() for t in theirs)}); the launcher passes the generated parameters, so keep the "
            f"signature as it is")


@dataclass
class Override:
    task: str
    path: Path
    data: bytes
    sha: str
    base_sha: str | None   # hash of the generated text it was derived from (None: unknown)
    source: str            # 'project' | 'load-ptx' | 'load-ir'
    kind: str = "ptx"
    problem: str | None = None  # why it is refused (not this task's code, unreadable, a symlink)
    target: str | None = None   # LLVM IR is per target ('nvptx' | 'host'); None: any (PTX, or unrecorded)

    @property
    def ptx(self) -> bytes:
        return self.data

    def status(self, generated_sha: str | None) -> str:
        """'refused', 'active' (load folders: no sidecars, the file is simply used), 'unknown' (no
        sidecar, or nothing generated to compare with), 'active' or 'stale'."""
        if self.problem:
            return "refused"
        if self.source != "project":
            return "active"
        if self.base_sha is None or generated_sha is None:
            return "unknown"
        return "active" if self.base_sha == generated_sha else "stale"


def _safe(name: str) -> bool:
    try:
        check_task_name(name)
        return True
    except UnsafePathError:
        return False


class OverrideStore:
    """Overrides of one project, plus an optional Quadrants-style load folder (`--load-ptx DIR`)."""

    def __init__(self, project_dir: str | Path | None, load_dir: str | Path | None = None,
                 load_kinds: tuple[str, ...] = ("ptx",), folder: str | Path | None = None):
        """`folder` overrides where a project's overrides live (a read-only project keeps them in
        the user data folder); `load_kinds`: which stages the load folder feeds."""
        self.project_dir = Path(project_dir) if project_dir else None
        self.folder: Path | None
        self._below: Path | None
        if folder is not None:
            self.folder = Path(folder)
            self._below = None
        else:
            self.folder = self.project_dir / ".qdexplorer" / "overrides" if self.project_dir else None
            self._below = self.project_dir
        self.load_dir = Path(load_dir) if load_dir else None
        self.load_kinds = load_kinds
        self._announced: set = set()
        if self.load_dir is not None and not self.load_dir.is_dir():
            raise QdError(f"load folder {self.load_dir} (--load-ptx, or QD_DEBUG_DUMP_PATH with QD_LOAD_IR / "
                          f"QUADRANTS_LOAD_PTX) {'is not a folder' if self.load_dir.exists() else 'does not exist'}")
        if self.load_dir is not None:  # code loaded from it runs as this user: the cache's trust rules
            why = unsafe_owner(self.load_dir)
            if why:
                raise QdError(f"load folder {self.load_dir} {why}; qdexplorer refuses to load code from it "
                              f"(fix: use a folder of your own that only you can write: chmod go-w)")

    def _folder(self, create: bool = False) -> Path:
        if self.folder is None:
            raise QdError("overrides need a project folder (this project is a single file)")
        return check_folder(self.folder, create=create, below=self._below)

    def _exists(self) -> bool:
        return self.folder is not None and os.path.lexists(self.folder)

    def _read(self, task: str, p: Path, source: str, base: str | None, kind: str,
              target: str | None = None) -> Override:
        try:
            data, st = read_checked(p)
            data = data.replace(b"\x00", b"")
        except (UnsafePathError, OSError) as e:
            msg = str(e) if isinstance(e, UnsafePathError) else f"cannot read it: {e.strerror or e}"
            return Override(task, p, b"", "", base, source, kind, problem=msg, target=target)
        problem = content_problem(data, task, kind)
        if source != "project":  # a load folder's file: another user's, or one others can write, never runs
            why = unsafe_owner(st)
            problem = f"the file {why}; qdexplorer refuses to load it" if why else problem
        ov = Override(task, p, data, sha256(data), base, source, kind, problem, target)
        if source != "project" and not problem:
            self._announce(ov)
        return ov

    def _announce(self, ov: Override):
        """One line on stderr per loaded file (and content): loaded code runs in place of what the
        kernel's source says, and nothing else in a run's output would show it."""
        if (ov.path, ov.sha) in self._announced:
            return
        self._announced.add((ov.path, ov.sha))
        what = "LLVM IR" if ov.kind == "ll" else "PTX"
        print(f"qdexplorer: {ov.task} runs the {what} loaded from {ov.path} in place of the generated {what}",
              file=sys.stderr, flush=True)

    def get(self, task: str, kind: str = "ptx") -> Override | None:
        if not _safe(task):
            return None  # no file can be named after it: nothing qdexplorer wrote can apply
        if self.load_dir is not None and kind in self.load_kinds:
            p = self.load_dir / f"{task}{LOAD_NAME[kind]}"
            if os.path.lexists(p):
                return self._read(task, p, "load-ptx" if kind == "ptx" else "load-ir", None, kind)
        if kind not in SUFFIX or not self._exists():
            return None
        folder = self._folder()
        p = folder / f"{task}{SUFFIX[kind]}"
        if not os.path.lexists(p):
            return None
        base, target = self._sidecar(folder / f"{task}{SIDECAR[kind]}")
        return self._read(task, p, "project", base, kind, target)

    @staticmethod
    def _sidecar(side: Path) -> tuple[str | None, str | None]:
        """(sha256 of the generated text it came from, target it was written for), None where unknown."""
        try:
            meta = json.loads(read_nofollow(side))
            base, target = meta.get("generated_sha256"), meta.get("target")
        except (OSError, ValueError, AttributeError, UnsafePathError):
            return None, None
        return (base if isinstance(base, str) else None), (target if target in ("nvptx", "host") else None)

    def write(self, task: str, text: str | bytes, generated: str | bytes, kind: str = "ptx",
              target: str | None = None) -> Path:
        """Save an edited stage output for `task`, derived from the `generated` one (its bytes, or
        its sha256 as 64 hex characters).

        `target`: which target's LLVM IR it is ('nvptx' or 'host'); an LLVM-IR override is only
        used when compiling for that target (the two modules differ: thread indices, triple)."""
        check_task_name(task)
        data = (text.encode() if isinstance(text, str) else text).replace(b"\x00", b"")
        only_sha = isinstance(generated, str) and re.fullmatch(r"[0-9a-f]{64}", generated)
        problem = content_problem(data, task, kind)
        if problem is None and kind == "ll" and not only_sha:
            problem = signature_problem(data, generated.encode() if isinstance(generated, str) else generated, task)
        if problem:
            raise QdError(f"refusing the {kind.upper()} override for {task}: {problem}")
        gen_sha = generated if only_sha else sha256(generated)
        folder = self._folder(create=True)
        side = {"task": task, "stage": kind, "target": target, "generated_sha256": gen_sha, "override_sha256": sha256(data),
                "written": time.strftime("%Y-%m-%dT%H:%M:%S")}
        try:
            p = write_atomic(folder, f"{task}{SUFFIX[kind]}", data)
            write_atomic(folder, f"{task}{SIDECAR[kind]}", json.dumps(side, indent=2).encode())
        except OSError as e:
            raise QdError(f"cannot write the override into {folder}: {e.strerror or e}") from None
        return p

    def revert(self, task: str, kinds: tuple[str, ...] = ("ptx", "ll")) -> bool:
        check_task_name(task)
        if not self._exists():
            return False
        folder = self._folder()
        try:
            return any([unlink_regular(folder / f"{task}{s}") for k in kinds for s in (SUFFIX[k], SIDECAR[k])])
        except OSError as e:
            raise QdError(f"cannot remove the override of {task} from {folder}: {e.strerror or e}") from None

    def tasks(self) -> list[str]:
        """Task names that have an override file (names that could not be a task are skipped)."""
        if not self._exists():
            return []
        folder = self._folder()
        names = {p.name[:-len(s)] for s in (".ptx", ".ll") for p in folder.glob("*" + s)}
        return sorted(n for n in names if _safe(n))

    def states(self, generated: dict[str, dict[str, str | None]]) -> list[tuple[str, str, str, str]]:
        """(task, stage, state, note) per override; `generated` maps every known task to
        {stage: sha256 of its generated text}."""
        out = []
        for t in self.tasks():
            for kind in SUFFIX:
                ov = self.get(t, kind)
                if ov is None or ov.source != "project":
                    continue
                if t not in generated:
                    out.append((t, kind, "orphaned", "no task of that name exists any more; revert it"))
                else:
                    out.append((t, kind, ov.status(generated[t].get(kind)), ov.problem or ""))
        return out

    def unmatched_load_files(self, tasks) -> tuple[list[str], bool]:
        """(files in the load folder that match no task, whether any file matched a task)."""
        if self.load_dir is None:
            return [], False
        names = set(tasks)
        files = sorted(p.name for k in self.load_kinds for p in self.load_dir.glob("*" + LOAD_NAME[k]))
        stem = {f: next((f[:-len(LOAD_NAME[k])] for k in ("ll", "ptx") if f.endswith(LOAD_NAME[k])), f)
                for f in files}
        return [f for f in files if stem[f] not in names], any(stem[f] in names for f in files)
