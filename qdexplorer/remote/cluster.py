"""Which Ray cluster runs the tasks, and which GPUs it has.

`--cluster` takes `ray://host:10001` (a remote cluster's client port), `auto` (the cluster that
`RAY_ADDRESS` or a local `ray start` gives) or `local` (a private cluster started for this
process). Ray's token authentication stays on: a remote cluster's token comes from the user's
own `RAY_AUTH_TOKEN` / token file, as Ray's docs describe (docs/remote.md).
"""
from __future__ import annotations

import csv
import io
import os
import subprocess
from dataclasses import dataclass

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..lang.errors import QdError

_connected: list[str] = []


def connect(address: str) -> None:
    """Join the cluster at `address` once per process (a second, different address is refused)."""
    if not (address in ("local", "auto") or address.startswith("ray://")):
        raise QdError(f"--cluster {address!r}: expected ray://HOST:PORT, auto, or local")
    if ray.is_initialized():
        if _connected and _connected[0] != address:
            raise QdError(f"already connected to the Ray cluster {_connected[0]!r}; one cluster per process")
        return
    kw: dict = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    try:
        if address == "local":
            ray.init(num_cpus=max(2, os.cpu_count() or 2), **kw)
        else:
            ray.init(address=address, **kw)
    except ConnectionError as e:
        raise QdError(f"--cluster {address}: cannot reach the Ray cluster ({e}); start one with `ray start "
                      f"--head`, or name its client address as ray://HOST:10001") from None
    _connected[:] = [address]


@dataclass(frozen=True)
class RemoteGpu:
    node_id: str
    node: str            # the node's host name (what a user recognises)
    index: int           # the GPU's index on its node
    name: str
    sm: str              # sm_90
    driver: str
    memory_gb: float
    used_gb: float
    busy: bool

    @property
    def label(self) -> str:
        return f"{self.name.replace('NVIDIA ', '')} ({self.node}, GPU {self.index})"


_QUERY = "index,name,compute_cap,driver_version,memory.total,memory.used,utilization.gpu"


def _node_gpus() -> list[dict]:
    """On a node: what nvidia-smi says of each GPU (no CUDA context is opened)."""
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={_QUERY}", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    rows = []
    for r in csv.reader(io.StringIO(out)):
        if len(r) < 7:
            continue
        idx, name, cap, drv, total, used, util = (x.strip() for x in r[:7])
        rows.append({"index": int(idx), "name": name, "sm": "sm_" + cap.replace(".", ""), "driver": drv,
                     "memory_gb": float(total) / 1024, "used_gb": float(used) / 1024,
                     "busy": float(util or 0) > 5 or float(used or 0) > 1024})
    return rows


def devices() -> list[RemoteGpu]:
    """Every GPU of every live node, in node order; a node without GPUs lists none."""
    probe = ray.remote(num_cpus=0, num_gpus=0)(lambda: (os.uname().nodename, _node_gpus()))
    out = []
    for n in ray.nodes():
        if not n.get("Alive"):
            continue
        host, rows = ray.get(probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
            n["NodeID"], soft=False)).remote(), timeout=60)
        out += [RemoteGpu(n["NodeID"], host, **r) for r in rows]
    return out


def node_cpus() -> list[tuple[str, str, float]]:
    """(node id, host, CPUs) of every live node: where CPU-backend actors can run."""
    return [(n["NodeID"], n.get("NodeManagerHostname", n["NodeManagerAddress"]), n["Resources"].get("CPU", 0.0))
            for n in ray.nodes() if n.get("Alive")]
