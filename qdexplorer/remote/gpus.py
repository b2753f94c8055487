"""A node's GPUs as nvidia-smi reports them, and how a device is named to a user; no Ray here.

nvidia-smi is asked rather than CUDA so that listing GPUs never opens a CUDA context on a GPU
that someone else's job is using, and so that `qdexplorer devices` works without Ray on this
machine too. Its GPU indices are the PCI-bus order that `CUDA_DEVICE_ORDER=PCI_BUS_ID` gives,
which is the order the Ray device pins a GPU in (ray_device.py).
"""
from __future__ import annotations

import csv
import io
import re
import subprocess
from dataclasses import asdict, dataclass
from typing import Any

_QUERY = "index,name,compute_cap,driver_version,memory.total,memory.used,utilization.gpu"
BUSY_UTIL_PCT = 5.0       # a GPU this busy, or holding this much memory, is someone's
BUSY_MEMORY_MB = 1024.0


@dataclass(frozen=True)
class RemoteGpu:
    node_id: str         # Ray's node id ("" for this machine without Ray)
    node: str            # the node's host name (what a user recognises)
    index: int           # the GPU's index on its node (nvidia-smi's)
    name: str
    sm: str              # sm_90
    driver: str
    memory_gb: float
    used_gb: float
    busy: bool

    @property
    def label(self) -> str:
        """What the window's GPU selector and the status bar show: "H200 (node-3, GPU 1)"."""
        return device_label(self.name, self.node, self.index)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"label": self.label}


def device_label(name: str, host: str, gpu: int | None) -> str:
    short = re.sub(r"^NVIDIA\s+", "", name) or "GPU"
    return f"{short} ({host}, GPU {gpu})" if gpu is not None else f"{short} ({host})"


def node_gpus() -> list[dict[str, Any]]:
    """On this machine: what nvidia-smi says of each GPU; [] without nvidia-smi or a GPU."""
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={_QUERY}", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, errors="replace", timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    rows = []
    for r in csv.reader(io.StringIO(out)):
        if len(r) < 7:
            continue
        idx, name, cap, drv, total, used, util = (x.strip() for x in r[:7])
        try:
            rows.append({"index": int(idx), "name": name, "sm": "sm_" + cap.replace(".", ""), "driver": drv,
                         "memory_gb": _num(total) / 1024, "used_gb": _num(used) / 1024,
                         "busy": _num(util) > BUSY_UTIL_PCT or _num(used) > BUSY_MEMORY_MB})
        except ValueError:
            continue   # a line nvidia-smi could not fill in ("[N/A]" index): not a usable GPU
    return rows


def _num(text: str) -> float:
    """nvidia-smi's number, 0 where it says [N/A] or [Not Supported] (some MIG and vGPU fields)."""
    try:
        return float(text)
    except ValueError:
        return 0.0
