"""What the last compile of a project produced, readable without importing the project (the index).

Opening a project runs its Python, so `show`, `override list` and `override revert` must work
from compiled artifacts alone. Each compile with the disk cache on records a small index per
project (task → kernel, type, file:lines, source text, cache key, sha256 of the generated PTX)
at `<cache folder>/projects/<sha of project path>.json`; the PTX and the LLVM text themselves
are the cache's own checksummed entries (the LLVM text under the `ll` namespace, same key). So
nothing is stored twice, the index follows `--cache-dir`, and a cache the owner checks refuse
is not read for this either.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from ..ir.errors import QdError
from .cache import PtxCache
from .safe_files import UnsafePathError, read_input, write_atomic

INDEX_VERSION = 1


@dataclass
class TaskArtifact:
    task: str
    kernel: str
    type: str
    file: str
    lines: list
    source: str
    key: str
    ns: str
    generated_sha256: str          # of the generated PTX
    ll_sha256: str = ""            # of the generated LLVM module text


class CompileIndex:
    """The compile index of one project, inside one cache folder."""

    def __init__(self, cache: PtxCache, project: str | Path):
        self.cache = cache
        self.project = str(Path(project).resolve())
        digest = hashlib.sha256(self.project.encode("utf-8", "surrogatepass")).hexdigest()[:24]
        self.path = cache.folder / "projects" / f"{digest}.json"

    @property
    def usable(self) -> bool:
        return self.cache.enabled and self.cache.offline  # 'offline' = the disk tier is on

    def record(self, target: str, arch: str, kernel_tasks, compiled, complete: bool = True) -> None:
        """Remember this compile (tasks of failed kernels are left out: they have no artifacts).
        `complete`: every kernel of the project was compiled, so tasks not seen are gone; otherwise
        only the compiled kernels' entries are replaced."""
        if not self.usable:
            return
        tasks = {t.name: t for kt in kernel_tasks for t in kt.tasks}
        entries = {}
        for ct in compiled:
            t = tasks.get(ct.task)
            if t is None or not ct.generated or not ct.key or ct.unit != ct.task:
                continue
            ns = PtxCache.namespace_of(target, arch)
            ll = ct.produced.get("ll")
            if ll is not None and not self.cache.has(ct.key, "ll"):
                self.cache.put_disk(ct.key, "ll", ll.data)
            entries[ct.task] = TaskArtifact(ct.task, ct.kernel, t.type, t.file, list(t.lines), t.source,
                                            ct.key, ns, hashlib.sha256(ct.generated).hexdigest(),
                                            ll.sha if ll is not None else "").__dict__
        data = self._load() or {"version": INDEX_VERSION, "project": self.project, "compiles": {}}
        if not complete:
            done = {kt.kernel for kt in kernel_tasks}
            old = data["compiles"].get(f"{target}:{arch}", {}).get("tasks", {})
            entries = {n: e for n, e in old.items() if e.get("kernel") not in done} | entries
        data["compiles"][f"{target}:{arch}"] = {"written": time.strftime("%Y-%m-%dT%H:%M:%S"), "tasks": entries}
        data["last"] = f"{target}:{arch}"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path.parent, self.path.name, json.dumps(data).encode())
        except OSError:
            pass  # an index is a convenience: a compile never fails for it

    def _load(self) -> dict | None:
        if not self.usable or not os.path.isfile(self.path):
            return None
        try:
            data = json.loads(read_input(self.path, 256 << 20, "compile index"))
        except (OSError, ValueError, UnsafePathError):
            return None
        if not isinstance(data, dict) or data.get("version") != INDEX_VERSION or data.get("project") != self.project:
            return None
        return data

    def tasks(self, target: str = "nvptx", arch: str | None = None) -> dict[str, TaskArtifact]:
        """Tasks of the last compile for `target` (and `arch`, if given); QdError if there is none."""
        data = self._load()
        compiles = (data or {}).get("compiles", {})
        key = f"{target}:{arch}" if arch else next(
            (k for k in [(data or {}).get("last", "")] + sorted(compiles, reverse=True) if k.startswith(target + ":")),
            None)
        if key not in compiles:
            where = "" if self.usable else " (the disk cache is off)"
            raise QdError(f"no compiled artifacts for {self.project}{' for ' + arch if arch else ''} in "
                          f"{self.cache.folder}{where}; run `qdexplorer compile {self.project}` first "
                          f"(show and override list/revert never import the project's Python)")
        try:
            return {name: TaskArtifact(**e) for name, e in compiles[key]["tasks"].items()}
        except TypeError:
            raise QdError(f"{self.path}: the compile index is damaged; run `qdexplorer compile` again") from None

    def text(self, art: TaskArtifact, what: str) -> str:
        """A task's PTX or LLVM text from the cache's checksummed entries."""
        data, _ = self.cache.get(art.key, "ll" if what == "ll" else art.ns)
        if data is None:
            raise QdError(f"the {what} of {art.task} is no longer in the cache folder {self.cache.folder}; run "
                          f"`qdexplorer compile {self.project}` again")
        return data.decode("utf-8", errors="replace")
