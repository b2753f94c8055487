"""NVIDIA's `ptxas` as a checker and a resource meter for PTX, on machines with or without a GPU.

The driver only reports a bad PTX when a module is loaded, which needs a GPU; `ptxas` is the same
assembler run offline, so an edited PTX can be checked on save, its errors put at their lines, and
its registers, spills and shared memory (`ptxas -v`) known on a laptop. It is found on PATH, in a CUDA
toolkit (CUDA_HOME, CUDA_PATH, /usr/local/cuda*), or in the `nvidia-cuda-nvcc` wheel (the optional
extra `qdexplorer[ptxas]`). Everything here is plain data in, plain data out; nothing imports Qt.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .occupancy import occupancy
from .safe_files import write_file

TOOLKIT_GLOBS = ["/usr/local/cuda*/bin", "/opt/cuda*/bin"]
TIMEOUT_S = 120  # a huge PTX can take ptxas a while; a hung one must not hang the caller
INSTALL_HINT = ("ptxas not found: install a CUDA toolkit, put its bin folder on PATH or set CUDA_HOME, "
                "or `pip install 'qdexplorer[ptxas]'` (the nvidia-cuda-nvcc wheel)")


class PtxasNotFound(RuntimeError):
    """No ptxas on this machine; the message says how to get one."""


@dataclass(frozen=True)
class Diagnostic:
    line: int | None          # 1-based line in the PTX text, None when ptxas names no line
    severity: str             # "error" | "warning" | "fatal"
    message: str

    def __str__(self):
        return f"line {self.line}: {self.severity}: {self.message}" if self.line else f"{self.severity}: {self.message}"


@dataclass(frozen=True)
class EntryResources:
    """What `ptxas -v` says about one .entry (or .func): the inputs of the occupancy calculator."""
    name: str
    arch: str
    registers: int = 0
    barriers: int = 0
    shared_bytes: int = 0          # static .shared (smem)
    local_bytes: int = 0           # lmem: per-thread local memory (stack arrays, spills)
    const_bytes: int = 0           # cmem[*] summed
    stack_bytes: int = 0           # stack frame
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0

    @property
    def spills(self) -> int:
        return self.spill_store_bytes + self.spill_load_bytes


@dataclass
class PtxasReport:
    ok: bool
    arch: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    resources: dict[str, EntryResources] = field(default_factory=dict)
    log: str = ""                  # ptxas' own output, file names replaced by "ptx"

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity in ("error", "fatal")]


def find_ptxas() -> Path | None:
    """The first ptxas of: $QDEXPLORER_PTXAS, PATH, $CUDA_HOME/$CUDA_PATH, /usr/local/cuda*, the nvcc wheel."""
    explicit = os.environ.get("QDEXPLORER_PTXAS")
    if explicit:
        return Path(explicit) if os.access(explicit, os.X_OK) else None
    exe = "ptxas.exe" if sys.platform == "win32" else "ptxas"
    on_path = shutil.which(exe)
    if on_path:
        return Path(on_path)
    candidates = [os.path.join(os.environ[v], "bin", exe) for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    for pattern in TOOLKIT_GLOBS:  # newest toolkit first
        candidates += sorted(glob.glob(os.path.join(pattern, exe)), reverse=True)
    for entry in sys.path:  # nvidia-cuda-nvcc: nvidia/cuda_nvcc/bin (12.x) or nvidia/cu13/bin (13.x)
        candidates += sorted(glob.glob(os.path.join(entry, "nvidia", "*", "bin", exe)), reverse=True)
    return next((Path(c) for c in candidates if os.access(c, os.X_OK)), None)


def find_tool(name: str) -> Path | None:
    """Another CUDA binary (nvdisasm, cuobjdump) from the same places as ptxas, next to ptxas first."""
    exe = name + (".exe" if sys.platform == "win32" else "")
    ptxas = find_ptxas()
    places = [ptxas.parent / exe] if ptxas else []
    on_path = shutil.which(exe)
    places += [Path(on_path)] if on_path else []
    places += [Path(os.environ[v], "bin", exe) for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    for pattern in TOOLKIT_GLOBS:
        places += [Path(p) for p in sorted(glob.glob(os.path.join(pattern, exe)), reverse=True)]
    for entry in sys.path:  # the wheels (qdexplorer[sass]): nvidia-cuda-nvdisasm puts it in nvidia/cu13/bin
        places += [Path(p) for p in sorted(glob.glob(os.path.join(entry, "nvidia", "*", "bin", exe)), reverse=True)]
    return next((p for p in places if os.access(p, os.X_OK)), None)


def ptxas_version(path: Path | None = None) -> str | None:
    path = path or find_ptxas()
    if path is None:
        return None
    out = subprocess.run([str(path), "--version"], capture_output=True, text=True, errors="replace", timeout=30).stdout
    m = re.search(r"release ([\d.]+), V([\d.]+)", out)
    return m.group(2) if m else out.strip().splitlines()[-1] if out.strip() else None


def ptx_target(ptx: str, default: str = "sm_90") -> str:
    """The `.target sm_XX` the PTX declares (ptxas refuses an -arch below it)."""
    m = re.search(r"^\s*\.target\s+(sm_\w+)", ptx, re.M)
    return m.group(1) if m else default


# searched, not matched: the driver's error carries the log after its own prefix ("...INVALID_PTX: ptxas ...")
_DIAG = re.compile(r"ptxas\s+(?P<file>[^,\n]*?), line (?P<line>\d+); (?P<sev>error|warning|fatal)\s*: (?P<msg>.*)$")
_PLAIN = re.compile(r"^ptxas\s+(?P<sev>error|warning|fatal)\s*: (?P<msg>.*)$")


def parse_diagnostics(text: str) -> list[Diagnostic]:
    """`ptxas x.ptx, line 56; error   : ...` lines → Diagnostics (lines without a number keep line None)."""
    out = []
    for raw in text.splitlines():
        m = _DIAG.search(raw.strip())
        if m:
            out.append(Diagnostic(int(m["line"]), m["sev"], m["msg"].strip()))
            continue
        m = _PLAIN.match(raw.strip())
        if m and m["msg"].strip() != "Ptx assembly aborted due to errors":
            out.append(Diagnostic(None, m["sev"], m["msg"].strip()))
    return out


_ENTRY = re.compile(r"Compiling entry function '(?P<name>[^']+)' for '(?P<arch>\w+)'")
_FUNC = re.compile(r"Function properties for (?P<name>\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(?P<rest>.*)$")


def parse_resources(text: str, arch: str = "") -> dict[str, EntryResources]:
    """`ptxas -v` output → {entry name: EntryResources}. Only .entry functions are kept (the launchable ones)."""
    found: dict[str, dict] = {}
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        m = _ENTRY.search(line)
        if m:
            current = m["name"]
            found[current] = {"name": current, "arch": m["arch"]}
            continue
        m = _FUNC.search(line)
        if m:
            current = m["name"] if m["name"] in found else None
            continue
        if current is None:
            continue
        m = _FRAME.search(line)
        if m:
            found[current].update(stack_bytes=int(m[1]), spill_store_bytes=int(m[2]), spill_load_bytes=int(m[3]))
            continue
        m = _USED.search(line)
        if m:
            rest = m["rest"]
            d = found[current]
            d["registers"] = int(m[1])
            if b := re.search(r"used (\d+) barriers", rest):
                d["barriers"] = int(b[1])
            d["shared_bytes"] = sum(int(x) for x in re.findall(r"(\d+) bytes smem", rest))
            d["local_bytes"] = sum(int(x) for x in re.findall(r"(\d+) bytes lmem", rest))
            d["const_bytes"] = sum(int(x) for x in re.findall(r"(\d+) bytes cmem\[\d+\]", rest))
    return {k: EntryResources(**{"arch": arch, **v}) for k, v in found.items()}


def _run(ptx: str, arch: str | None, extra: list[str], want_output: bool, ptxas: Path | None):
    exe = ptxas or find_ptxas()
    if exe is None:
        raise PtxasNotFound(INSTALL_HINT)
    arch = arch or ptx_target(ptx)
    with tempfile.TemporaryDirectory(prefix="qdexplorer-ptxas-") as tmp:
        src, out = Path(tmp) / "task.ptx", Path(tmp) / "task.cubin"
        write_file(src, ptx.rstrip("\0"))  # the driver's NUL terminator is not PTX
        try:
            proc = subprocess.run([str(exe), f"-arch={arch}", "-v", *extra, str(src), "-o", str(out)],
                                  capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return PtxasReport(False, arch, [Diagnostic(None, "fatal", f"ptxas ran past {TIMEOUT_S} s")]), None
        log = (proc.stdout + proc.stderr).replace(str(src), "ptx")
        diags = parse_diagnostics(log)
        if proc.returncode != 0 and not any(d.severity in ("error", "fatal") for d in diags):
            diags.append(Diagnostic(None, "fatal", log.strip().splitlines()[-1] if log.strip()
                                    else f"ptxas exited with status {proc.returncode}"))
        report = PtxasReport(proc.returncode == 0, arch, diags, parse_resources(log, arch), log)
        data = out.read_bytes() if want_output and proc.returncode == 0 and out.exists() else None
        return report, data


def validate(ptx: str, arch: str | None = None, ptxas: Path | None = None) -> PtxasReport:
    """Assemble `ptx` for `arch` (default: its own .target) and report errors by line and resources per entry."""
    return _run(ptx, arch, [], False, ptxas)[0]


def assemble_cubin(ptx: str, arch: str | None = None, relocatable: bool = True,
                   ptxas: Path | None = None) -> tuple[PtxasReport, bytes | None]:
    """PTX → cubin bytes (`ptxas -c`: relocatable, for linking with nvJitLink/cuLink); None when it failed."""
    return _run(ptx, arch, ["-c"] if relocatable else [], True, ptxas)


def task_resources(ptx: str, task: str, block: int, arch: str | None = None) -> dict:
    """What the tree's columns show for one task: registers, spills, shared, local, occupancy at `block`.

    Keys match the CUDA backend's resources (registers, static_shared_bytes, local_bytes, block,
    active_blocks_per_sm, occupancy) plus spill_bytes, limited_by and source="ptxas"; `error` when
    ptxas refused the PTX (with the diagnostics under "diagnostics").
    """
    rep = validate(ptx, arch)
    if not rep.ok:
        return {"source": "ptxas", "arch": rep.arch, "error": "; ".join(map(str, rep.errors)) or "ptxas failed",
                "diagnostics": rep.diagnostics}
    res = rep.resources.get(task) or next(iter(rep.resources.values()), None)
    if res is None:
        return {"source": "ptxas", "arch": rep.arch, "error": "ptxas reported no .entry", "diagnostics": []}
    occ = occupancy(rep.arch, res.registers, res.shared_bytes, max(1, block))
    return {"source": "ptxas", "arch": rep.arch, "registers": res.registers, "spill_bytes": res.spills,
            "static_shared_bytes": res.shared_bytes, "local_bytes": res.local_bytes + res.stack_bytes,
            "block": block, "active_blocks_per_sm": occ.active_blocks, "occupancy": round(occ.fraction, 4),
            "limited_by": occ.limited_by, "diagnostics": rep.diagnostics}


def disassemble_sass(ptx: str, arch: str | None = None) -> str:
    """PTX → SASS text via ptxas then nvdisasm (or cuobjdump -sass); raises PtxasNotFound without them.
    (`sass.disassemble` gives the same with each line's PTX and source line.)"""
    rep, cubin = assemble_cubin(ptx, arch, relocatable=False)
    if cubin is None:
        raise ValueError("ptxas failed: " + "; ".join(map(str, rep.errors)))
    nvdisasm, cuobjdump = find_tool("nvdisasm"), find_tool("cuobjdump")
    if nvdisasm is None and cuobjdump is None:
        raise PtxasNotFound("SASS needs nvdisasm: `pip install 'qdexplorer[sass]'` or a CUDA toolkit (not found)")
    with tempfile.TemporaryDirectory(prefix="qdexplorer-sass-") as tmp:
        path = Path(tmp) / "task.cubin"
        write_file(path, cubin)
        cmd = [str(nvdisasm), "-c", str(path)] if nvdisasm else [str(cuobjdump), "-sass", str(path)]
        out = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S)
        if out.returncode != 0:
            raise ValueError(f"{Path(cmd[0]).name} failed: {out.stderr.strip()}")
        return out.stdout
