"""Registers, spills and occupancy of a task from its PTX, on any machine (`ptxas -v` + the CUDA
occupancy calculator): what the tree shows before, or without, a CUDA load.

The block size is the one the task launches with (`LaunchSpec.block`, the CUDA backend's own
rule), so the estimate and a GPU's figures agree. Results are kept per (PTX text, block, arch),
so a recompile served from the cache costs no second ptxas run. A missing ptxas or a timeout
comes back as {"source": "ptxas", "error": ...} and is not kept (it may be installed, or the
machine less busy, next time); a PTX that ptxas refuses is kept with its error.
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any

from ..machine.launch_spec import DEFAULT_BLOCK
from . import ptxas
from .artifacts import CompiledTask

KEEP = 512   # estimates kept (a few hundred bytes each); the oldest go first

_kept: OrderedDict[tuple[str, int, str], dict[str, Any]] = OrderedDict()
_lock = threading.Lock()


def estimate_resources(ct: CompiledTask, arch: str | None = None) -> dict[str, Any]:
    """The resources of the PTX in use (an override included) at the block the task launches
    with, for `arch` (default: the arch it was compiled for). {} when it has no PTX."""
    if not ct.ptx:
        return {}
    arch = arch or ct.arch
    block = ct.spec.block if ct.spec is not None else DEFAULT_BLOCK
    key = (hashlib.sha256(ct.ptx.encode()).hexdigest(), block, arch)
    with _lock:
        if key in _kept:
            _kept.move_to_end(key)
            return dict(_kept[key])
    try:
        res = ptxas.task_resources(ct.ptx, ct.task, block, arch)
    except Exception as e:  # noqa: BLE001 - no ptxas, a timeout: shown as the cell's tooltip, asked again later
        return {"source": "ptxas", "error": str(e)}
    with _lock:
        _kept[key] = res
        while len(_kept) > KEEP:
            _kept.popitem(last=False)
    return dict(res)
