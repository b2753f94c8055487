"""What one run of a Quadrants program produced: kernels, their offloaded tasks, CHI IR stages, timings.

Plain dataclasses with `to_dict()`; the JSON schema they make is documented in docs/quadrants.md
(bump `SCHEMA_VERSION` when a field changes meaning or goes away).
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA_VERSION = 1


@dataclass
class QuadrantsTask:
    """One offloaded task, named as Quadrants names it (`saxpy_c60_0_kernel_1_range_for`)."""
    name: str
    kernel: str                 # the kernel instance: saxpy_c60_0
    index: int
    type: str                   # serial, range_for, struct_for, ...
    loop_name: str = ""         # from qd.loop_config(name=...)
    stable_name: str = ""       # without Quadrants' per-process counter: saxpy_kernel_1_range_for
    files: dict = field(default_factory=dict)   # kind (llvm | before_ptx | ptx) -> path in the dump folder
    launches_ms: list = field(default_factory=list)

    def text(self, kind: str) -> str:
        p = self.files.get(kind)
        return Path(p).read_text(errors="replace") if p else ""

    def to_dict(self) -> dict:
        ms = self.launches_ms
        return {"name": self.name, "stable_name": self.stable_name, "kernel": self.kernel, "index": self.index,
                "type": self.type, "loop_name": self.loop_name, "files": dict(self.files),
                "bytes": {k: Path(p).stat().st_size for k, p in self.files.items() if Path(p).exists()},
                "launches": len(ms), "median_ms": statistics.median(ms) if ms else None,
                "min_ms": min(ms) if ms else None, "launches_ms": list(ms)}


@dataclass
class QuadrantsKernel:
    """One materialised kernel instance (a kernel called with new argument types is a new instance)."""
    name: str                   # saxpy_c60_0
    func: str                   # saxpy
    counter: int
    instance: int
    file: str = ""
    line: int = 0
    internal: bool = False      # defined inside Quadrants itself (ext_arr_to_ndarray...), not by the program
    stages: list = field(default_factory=list)  # [(stage, path)] in pipeline order: from_ast ... after_offload
    tasks: list = field(default_factory=list)

    def stage_text(self, stage: str) -> str:
        return next((Path(p).read_text(errors="replace") for s, p in self.stages if s == stage), "")

    def to_dict(self) -> dict:
        return {"name": self.name, "func": self.func, "counter": self.counter, "instance": self.instance,
                "file": self.file, "line": self.line, "internal": self.internal,
                "stages": [{"stage": s, "file": p} for s, p in self.stages],
                "tasks": [t.to_dict() for t in self.tasks]}


@dataclass
class QuadrantsRun:
    """The whole outcome of running the program once; `error` is set whenever it did not finish cleanly."""
    script: str
    args: list
    arch_requested: str | None
    python: str
    dump_dir: str
    load: dict | None = None          # the edit set used (QUADRANTS_LOAD_PTX / QD_LOAD_IR), see edits.py
    returncode: int | None = None
    timed_out: bool = False
    error: str | None = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    arch: str | None = None           # what Quadrants started on (x64, cuda, ...)
    quadrants_version: str | None = None
    init_calls: list = field(default_factory=list)
    kernels: list = field(default_factory=list)
    launches: dict = field(default_factory=dict)   # profiler name -> [ms], every launch, in order
    warnings: list = field(default_factory=list)   # e.g. Quadrants fell back from the arch asked for

    @property
    def ok(self) -> bool:
        return self.error is None

    def tasks(self, include_internal: bool = True) -> list:
        return [t for k in self.kernels if include_internal or not k.internal for t in k.tasks]

    def task(self, name: str):
        """By Quadrants' name or by stable name."""
        return next((t for t in self.tasks() if name in (t.name, t.stable_name)), None)

    def to_dict(self) -> dict:
        return {"schema": SCHEMA_VERSION, "script": self.script, "args": list(self.args),
                "arch_requested": self.arch_requested, "arch": self.arch, "python": self.python,
                "quadrants_version": self.quadrants_version, "returncode": self.returncode,
                "timed_out": self.timed_out, "error": self.error, "seconds": round(self.seconds, 6),
                "dump_dir": self.dump_dir, "load": self.load, "init_calls": self.init_calls,
                "kernels": [k.to_dict() for k in self.kernels],
                "launches": self.launches, "warnings": list(self.warnings),
                "stdout": self.stdout, "stderr": self.stderr}


def run_from_dict(doc: dict, moved: tuple[str, str] | None = None) -> QuadrantsRun:
    """The inverse of `QuadrantsRun.to_dict()` (a saved `--json`), for reopening a run elsewhere.
    `moved=(old, new)` rewrites file paths that start with `old` (a dump folder copied to `new`)."""
    if doc.get("schema") != SCHEMA_VERSION:
        raise ValueError(f"unsupported run schema {doc.get('schema')!r} (expected {SCHEMA_VERSION})")

    def path(p: str) -> str:
        return new + p[len(old):] if moved and p.startswith(old := moved[0]) and (new := moved[1]) else p

    run = QuadrantsRun(doc["script"], list(doc["args"]), doc["arch_requested"], doc["python"], path(doc["dump_dir"]),
                       load=doc.get("load"), returncode=doc["returncode"], timed_out=doc["timed_out"],
                       error=doc["error"], stdout=doc["stdout"], stderr=doc["stderr"], seconds=doc["seconds"],
                       arch=doc["arch"], quadrants_version=doc["quadrants_version"], init_calls=doc["init_calls"],
                       launches={k: list(v) for k, v in doc["launches"].items()}, warnings=list(doc["warnings"]))
    for k in doc["kernels"]:
        kern = QuadrantsKernel(k["name"], k["func"], k["counter"], k["instance"], k["file"], k["line"],
                               k["internal"], [(s["stage"], path(s["file"])) for s in k["stages"]])
        for t in k["tasks"]:
            kern.tasks.append(QuadrantsTask(t["name"], t["kernel"], t["index"], t["type"], t["loop_name"],
                                            t["stable_name"], {kd: path(p) for kd, p in t["files"].items()},
                                            list(t["launches_ms"])))
        run.kernels.append(kern)
    return run
