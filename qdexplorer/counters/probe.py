"""Can hardware counters be read here, and if not, why: one state and one actionable line.

The probe is cheap (no profiling): is there an ncu, a report reader, a GPU, and does the driver
restrict profiling to administrators while this process is not one. What only a real profile
reveals (a container without the capability) is learnt from the first refused profile and kept,
so the session is told once, not on every click. Results are cached per session (`forget` clears).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .locate import find_ncu, ncu_version
from ..runtime.cuda.detect import cuda_status

OK, NO_NCU, NO_READER, NO_GPU, RESTRICTED, CONTAINER = "ok", "no_ncu", "no_reader", "no_gpu", "restricted", "container"

FIX_PERMISSION = ("give the Python that runs qdexplorer the CAP_PERFMON capability, or set "
                  "NVreg_RestrictProfilingToAdminUsers=0 for the nvidia module (a file in /etc/modprobe.d) and reboot")
MESSAGES = {
    NO_NCU: ("Nsight Compute (ncu) was not found on PATH, under CUDA_HOME, /usr/local/cuda/bin or "
             "/opt/nvidia/nsight-compute: install it (it comes with the CUDA toolkit) or set QDEXPLORER_NCU to it"),
    NO_READER: "reading counters needs Nsight Compute's report reader: pip install 'qdexplorer[counters]'",
    RESTRICTED: "profiling is restricted to administrators on this machine: " + FIX_PERMISSION,
    CONTAINER: ("this container may not read the GPU's performance counters although the driver allows it: "
                "start the container with --cap-add PERFMON (or give CAP_PERFMON to its Python)"),
}


@dataclass(frozen=True)
class Capability:
    state: str
    message: str = ""
    ncu: str = ""
    version: str = ""

    @property
    def ok(self) -> bool:
        return self.state == OK


_cache: dict[tuple[str | None, str], Capability] = {}


def forget() -> None:
    _cache.clear()


def learn(setting: str | None, backend: str, cap: Capability) -> None:
    """Keep what a real profile found out (a refusal) for the rest of the session."""
    _cache[(setting, backend)] = cap


def admin_only() -> bool | None:
    """The driver's RmProfilingAdminOnly, or None where it cannot be read."""
    try:
        for line in Path("/proc/driver/nvidia/params").read_text().splitlines():
            if line.startswith("RmProfilingAdminOnly"):
                return line.split(":", 1)[1].strip() == "1"
    except OSError:
        return None
    return None


def _privileged() -> bool:
    """Root, or CAP_PERFMON (38) / CAP_SYS_ADMIN (21) in this process's effective set."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return True
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                caps = int(line.split()[1], 16)
                return bool(caps & (1 << 38) or caps & (1 << 21))
    except (OSError, ValueError):
        pass
    return False


def in_container() -> bool:
    if Path("/.dockerenv").exists() or Path("/run/.containerenv").exists():
        return True
    try:
        text = Path("/proc/1/cgroup").read_text()
    except OSError:
        return False
    return any(w in text for w in ("docker", "kubepods", "containerd", "lxc"))


def probe(setting: str | None = None, backend: str = "cuda", gpu_reason: str | None = None) -> Capability:
    """The capability of this session. `gpu_reason`: why there is no GPU, when the caller knows
    (a remote device answers for its own machine, so the caller passes '' there)."""
    key = (setting, backend)
    if key in _cache:
        return _cache[key]
    cap = _probe(setting, backend, gpu_reason)
    _cache[key] = cap
    return cap


def _probe(setting: str | None, backend: str, gpu_reason: str | None) -> Capability:
    """The root cause first: no GPU (what `qdexplorer info` already knows), then the cuda backend not
    chosen, then no ncu, then no report reader, then the driver's restriction. Installing Nsight Compute
    and its reader on a machine without a GPU would only lead to the next message."""
    if gpu_reason is None:
        st = cuda_status()
        gpu_reason = "" if st.available else (st.reason or "CUDA is not available")
    ncu = find_ncu(setting)
    found = dict(ncu=str(ncu), version=ncu_version(ncu)) if ncu is not None else {}
    if gpu_reason:
        return Capability(NO_GPU, f"no NVIDIA GPU to profile on: {gpu_reason}", **found)
    if backend != "cuda":
        return Capability(NO_GPU, f"counters need the cuda backend (this session runs on {backend})", **found)
    if ncu is None:
        return Capability(NO_NCU, MESSAGES[NO_NCU])
    try:
        import ncu_report  # noqa: F401 - only whether it imports
    except ImportError:
        return Capability(NO_READER, MESSAGES[NO_READER], **found)
    if admin_only() and not _privileged():
        return Capability(RESTRICTED, MESSAGES[RESTRICTED], **found)
    return Capability(OK, "", **found)
