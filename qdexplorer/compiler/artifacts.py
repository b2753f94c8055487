"""What compiling produces: immutable records, built once by the pipeline and never patched.

An `Artifact` is one stage's output for one task or unit; a `CompiledTask` is a task's whole
trip (every stage's artifact, its launch spec, its log). Views and the CLI read these; only the
pipeline makes them.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from ..codegen.task_module import TaskModule
from ..machine.launch_spec import LaunchSpec


def sha256(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


@dataclass(frozen=True)
class Artifact:
    kind: str                   # a stage's kind: 'll' | 'ptx' | 'obj' | 'cubin' | 'opt_ll'
    data: bytes
    tier: str                   # generated: 'memory' | 'disk' | 'miss' | 'memo' | 'codegen'; else 'override' | 'load'
    key: str = ""               # cache key of the stage that made it
    origin: str = "generated"   # 'generated' | 'override' (project) | 'load' (--load-ptx / QD_LOAD_IR folder)
    path: str = ""              # file an override or load came from
    status: str | None = None   # overrides: 'active' | 'stale' | 'unknown'
    seconds: float = 0.0

    @property
    def text(self) -> str:
        return self.data.decode(errors="replace") if self.kind not in ("obj", "cubin") else ""

    @property
    def sha(self) -> str:
        return sha256(self.data)


@dataclass(frozen=True)
class CompiledTask:
    task: str
    kernel: str
    target: str                 # 'nvptx' | 'host'
    arch: str
    unit: str                   # compile/load unit: the task, or '<kernel>_kernel_whole'
    spec: LaunchSpec | None
    produced: Mapping[str, Artifact] = field(default_factory=dict)    # kind -> what the compiler made
    used: Mapping[str, Artifact] = field(default_factory=dict)        # kind -> what went on (override or produced)
    loaded: bytes = b""         # exactly what the device loads (effective final artifact, tagged)
    seconds: Mapping[str, float] = field(default_factory=dict)        # lower, codegen, cache, ptx/obj
    log: tuple[str, ...] = ()
    error: str = ""
    error_stage: str = ""
    module: TaskModule | None = None   # what codegen made (ABI, entry); None when it failed

    def __post_init__(self) -> None:
        for name in ("produced", "used", "seconds"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def final_kind(self) -> str:
        if "cubin" in self.produced:   # assembly mode 'culink'
            return "cubin"
        return "ptx" if self.target == "nvptx" else "obj"

    @property
    def output(self) -> bytes:
        """What gets loaded (an override's text when one is active)."""
        return self.loaded

    @property
    def generated(self) -> bytes:
        """The compiler's own final output (PTX or object), whatever override is in effect."""
        a = self.produced.get(self.final_kind)
        return a.data if a else b""

    @property
    def ptx(self) -> str:
        a = self.used.get("ptx")
        return a.text if a else ""

    @property
    def ll(self) -> str:
        a = self.used.get("ll")
        return a.text if a else ""

    @property
    def tier(self) -> str:
        """The cache tier of the final stage (what the tree's Cache column shows)."""
        if self.error:
            return "error"
        a = self.produced.get(self.final_kind)
        return a.tier if a else "error"

    @property
    def key(self) -> str:
        a = self.produced.get(self.final_kind)
        return a.key if a else ""

    @property
    def override(self) -> str | None:
        """Status of the override in effect at any stage ('active' / 'stale' / 'unknown'), or None."""
        for kind in ("cubin", "ptx", "obj", "ll"):
            a = self.used.get(kind)
            if a is not None and a.origin != "generated":
                return a.status or "active"
        return None

    @property
    def override_stage(self) -> str | None:
        for kind in ("cubin", "ptx", "obj", "ll"):
            a = self.used.get(kind)
            if a is not None and a.origin != "generated":
                return kind
        return None

    @property
    def load_hash(self) -> str:
        """Identity of what is loaded: changes when an override is added, edited or reverted."""
        return sha256(self.loaded)[:16]
