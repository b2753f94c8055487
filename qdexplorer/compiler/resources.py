"""Registers, spills and occupancy of a task from its PTX, on any machine (`ptxas -v` + the CUDA
occupancy calculator): what the tree shows before, or without, a CUDA load.

Results are kept per (PTX text, block size, arch), so a recompile served from the cache costs
nothing here either. Errors (no ptxas, a refused PTX) come back as the result's `error`.
"""
from __future__ import annotations

import hashlib
from typing import Any

from . import ptxas
from .artifacts import CompiledTask

DEFAULT_BLOCK = 128  # the CUDA backend's block size for loops without loop_config(block_dim=...)

_memo: dict[tuple[str, int, str], dict[str, Any]] = {}


def launch_block(ct: CompiledTask) -> int:
    spec = ct.spec
    if spec is None:
        return DEFAULT_BLOCK
    return 1 if spec.serial else (spec.block_dim or DEFAULT_BLOCK)


def estimate_resources(ct: CompiledTask) -> dict[str, Any]:
    """The task's resources at the block size it launches with (the PTX in use, override included)."""
    block = launch_block(ct)
    key = (hashlib.sha256(ct.ptx.encode()).hexdigest(), block, ct.arch)
    if key not in _memo:
        try:
            _memo[key] = ptxas.task_resources(ct.ptx, ct.task, block, ct.arch)
        except Exception as e:  # noqa: BLE001 - no ptxas, a timeout: shown as the cell's tooltip
            return {"source": "ptxas", "error": str(e)}
    return dict(_memo[key])
