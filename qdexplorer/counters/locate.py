"""Find Nsight Compute's command-line profiler (`ncu`) and its version.

Searched in order: an explicit setting (argument or QDEXPLORER_NCU), PATH, $CUDA_HOME/bin,
/usr/local/cuda/bin, then the newest /opt/nvidia/nsight-compute/<version>/ncu. The version is
part of every cache key (another ncu may count differently), read once per path.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

_versions: dict[str, str] = {}


def candidates(setting: str | None = None) -> list[Path]:
    out: list[Path] = []
    for s in (setting, os.environ.get("QDEXPLORER_NCU")):
        if s:
            out.append(Path(s))
    found = shutil.which("ncu")
    if found:
        out.append(Path(found))
    if os.environ.get("CUDA_HOME"):
        out.append(Path(os.environ["CUDA_HOME"]) / "bin" / "ncu")
    out.append(Path("/usr/local/cuda/bin/ncu"))
    opt = Path("/opt/nvidia/nsight-compute")
    if opt.is_dir():
        out += sorted((p / "ncu" for p in opt.iterdir()), key=lambda p: _version_key(p.parent.name), reverse=True)
    return out


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", name))


def find_ncu(setting: str | None = None) -> Path | None:
    """The first executable ncu; an explicit setting that is not one is skipped (the probe says so)."""
    for p in candidates(setting):
        if p.is_file() and os.access(p, os.X_OK):
            return p
    return None


def ncu_version(ncu: Path, timeout: float = 30.0) -> str:
    """'2025.3.1.0', or '' when `ncu --version` does not answer with one."""
    key = str(ncu)
    if key not in _versions:
        try:
            out = subprocess.run([key, "--version"], capture_output=True, text=True, errors="replace", timeout=timeout).stdout
        except (OSError, subprocess.TimeoutExpired):
            return ""
        m = re.search(r"Version\s+([\d.]+)", out)
        _versions[key] = m[1] if m else ""
    return _versions[key]
