"""PTX → SASS with line info, from NVIDIA's pip wheels alone (no CUDA toolkit, no GPU needed).

`ptxas -lineinfo -arch sm_XX` assembles the PTX into a cubin and `nvdisasm -g -c` prints its SASS
with a `//## File "...", line N` comment wherever the line changes. The PTX handed to ptxas is a
copy whose line table names *the PTX itself* (`ptx_lines.with_ptx_line_table`, the trick the
counters play for ncu): each SASS instruction then carries the PTX line it came from, and the
PTX's own `.loc`s (`ptx_lines.line_map`) take it on to the Python line. The directives are debug
information only; the instructions are the ones the task's own PTX gives.

Any `sm_XX` can be asked for: the copy's `.target` is set to it (and its `.version` raised to the
first PTX ISA that knows that target), so SASS for an sm_80 or an sm_120 comes from the same PTX.
The tools come from `qdexplorer[sass]` (`nvidia-cuda-nvcc` for ptxas, `nvidia-cuda-nvdisasm`),
or a toolkit; `ptxas.find_ptxas` / `find_tool` look in both.
"""
from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import ptxas as _ptxas
from .ptx_lines import line_map, with_ptx_line_table
from .safe_files import write_file

# the first PTX ISA version that accepts each target (PTX ISA release notes); older targets take any
_MIN_VERSION = {"sm_100": (8, 6), "sm_101": (8, 6), "sm_110": (9, 0), "sm_120": (8, 7), "sm_103": (8, 8),
                "sm_121": (8, 8)}
_LINE_INFO = re.compile(r'^\s*//##\s*File\s+"(?P<file>[^"]*)",\s*line\s+(?P<line>\d+)')
_OFFSET = re.compile(r"/\*([0-9a-f]{4,})\*/")
_INSN = re.compile(r"^\s*(/\*[0-9a-f]{4,}\*/)\s*(@!?U?P\w+)?\s+(.*?)\s*$")


def compact(line: str) -> str:
    """`        /*0120*/               @P1 BRA ...` → `/*0120*/   @P1 BRA ...`: nvdisasm's wide columns, narrowed
    (offset, a predicate column of 5, the instruction), so a pane shows the operands, not blanks."""
    m = _INSN.match(line)
    return f"{m[1]} {m[2] or '':>5} {m[3]}" if m else line
PTX_NAME = "task.ptx"   # what the copy's `.file 1` names: nvdisasm prints it, nothing else sees it


class SassNotAvailable(_ptxas.PtxasNotFound):
    """No ptxas or no nvdisasm/cuobjdump here; the message says how to get them."""


INSTALL_HINT = ("SASS needs ptxas and nvdisasm: `pip install 'qdexplorer[sass]'` (NVIDIA's nvidia-cuda-nvcc and "
                "nvidia-cuda-nvdisasm wheels, no toolkit or GPU needed), or a CUDA toolkit on PATH / CUDA_HOME")


@dataclass
class SassListing:
    """The SASS text of one task's PTX and, per SASS line (1-based), the PTX and source line it came from."""
    text: str
    arch: str
    tool: str = "nvdisasm"                                               # or cuobjdump (no line info)
    to_ptx: dict[int, int] = field(default_factory=dict)                 # SASS line -> PTX line
    to_source: dict[int, tuple[str, int]] = field(default_factory=dict)  # SASS line -> (file, line)

    def sass_lines_of_ptx(self, ptx_lines) -> list[int]:
        want = set(ptx_lines)
        return sorted(s for s, p in self.to_ptx.items() if p in want)

    def sass_lines_of_source(self, line: int, file: str | None = None) -> list[int]:
        def same(f):
            return file is None or f == file or Path(f).name == Path(file).name
        return sorted(s for s, (f, n) in self.to_source.items() if n == line and same(f))

    def instructions(self) -> list[str]:
        """The instruction lines alone, offsets dropped: what a diff of two SASS listings compares."""
        return [_OFFSET.sub("", t).strip() for t in self.text.splitlines() if _OFFSET.search(t)]

    def gutter(self) -> dict[int, str]:
        """Per SASS line, the short label a gutter shows: `ptx 41 · py 10`."""
        out = {}
        for s, p in self.to_ptx.items():
            src = self.to_source.get(s)
            out[s] = f"ptx {p}" + (f" · py {src[1]}" if src else "")
        return out


def retarget(ptx: str, arch: str) -> str:
    """`ptx` with `.target` set to `arch` and `.version` raised where that target needs a newer ISA."""
    out = re.sub(r"^(\s*\.target\s+)sm_\w+", lambda m: m[1] + arch, ptx, count=1, flags=re.M)
    need = _MIN_VERSION.get(re.sub(r"[af]$", "", arch))
    m = re.search(r"^\s*\.version\s+(\d+)\.(\d+)", out, re.M)
    if need and m and (int(m[1]), int(m[2])) < need:
        out = out[:m.start(1)] + f"{need[0]}.{need[1]}" + out[m.end(2):]
    return out


def parse_nvdisasm(out: str, ptx: str, arch: str) -> SassListing:
    """`nvdisasm -g -c` output of the line-table copy → a SassListing (the `//##` comments become the map)."""
    src = line_map(ptx)
    lines: list[str] = []
    to_ptx: dict[int, int] = {}
    to_source: dict[int, tuple[str, int]] = {}
    current = None
    for raw in out.splitlines():
        m = _LINE_INFO.match(raw)
        if m:
            current = int(m["line"])
            continue
        lines.append(compact(raw))
        if current is not None and _OFFSET.search(raw):
            to_ptx[len(lines)] = current
            hit = src.source_line(current)
            if hit:
                to_source[len(lines)] = hit
        elif raw.strip().startswith(".section") or raw.strip().startswith("//---"):
            current = None
    return SassListing("\n".join(lines) + "\n", arch, "nvdisasm", to_ptx, to_source)


def disassemble(ptx: str, arch: str | None = None) -> SassListing:
    """SASS of `ptx` for `arch` (default: the PTX's own `.target`), with its PTX and source line per line.

    Raises SassNotAvailable without the tools and ValueError when ptxas refuses the PTX for that arch."""
    ptx = ptx.rstrip("\0")
    arch = arch or _ptxas.ptx_target(ptx)
    exe = _ptxas.find_ptxas()
    nvdisasm, cuobjdump = _ptxas.find_tool("nvdisasm"), _ptxas.find_tool("cuobjdump")
    if exe is None or (nvdisasm is None and cuobjdump is None):
        raise SassNotAvailable(INSTALL_HINT)
    copy = with_ptx_line_table(retarget(ptx, arch), PTX_NAME)
    with tempfile.TemporaryDirectory(prefix="qdexplorer-sass-") as tmp:
        src, cubin = Path(tmp) / PTX_NAME, Path(tmp) / "task.cubin"
        write_file(src, copy)
        try:
            proc = subprocess.run([str(exe), "-lineinfo", f"-arch={arch}", str(src), "-o", str(cubin)],
                                  capture_output=True, text=True, timeout=_ptxas.TIMEOUT_S, cwd=tmp)
        except subprocess.TimeoutExpired:
            raise ValueError(f"ptxas ran past {_ptxas.TIMEOUT_S} s") from None
        if proc.returncode != 0:
            log = (proc.stdout + proc.stderr).replace(str(src), "ptx").strip()
            raise ValueError(f"ptxas could not assemble this PTX for {arch}: {log.splitlines()[0] if log else proc.returncode}")
        cmd = [str(nvdisasm), "-g", "-c", str(cubin)] if nvdisasm else [str(cuobjdump), "-sass", str(cubin)]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=_ptxas.TIMEOUT_S, cwd=tmp)
        if out.returncode != 0:
            raise ValueError(f"{Path(cmd[0]).name} failed: {out.stderr.strip()}")
    if nvdisasm is None:
        return SassListing(out.stdout, arch, "cuobjdump")
    return parse_nvdisasm(out.stdout, ptx, arch)


def tools() -> dict[str, str | None]:
    """Where ptxas and nvdisasm were found (None: not found), for `qdexplorer info` and the docs."""
    p, d = _ptxas.find_ptxas(), _ptxas.find_tool("nvdisasm")
    return {"ptxas": str(p) if p else None, "nvdisasm": str(d) if d else None}
