"""One GPU's primary context: its facts (SMs, resident blocks, L2) and the stream our work goes on.

Launch configuration follows Quadrants: `LaunchSpec.block` threads per block (block_dim from
`qd.loop_config`, or 128); a range task gets min(ceil(n / block), saturating grid) blocks, where
the saturating grid is SM count × max resident blocks per SM × 2, and the task itself
grid-strides; serial tasks 1×1. A coarsened task with no reduction (`LaunchSpec.full_grid`) gets
a thread per step instead (the grid's own limit, 2^31 - 1 blocks).
"""
from __future__ import annotations

from typing import Any

from cuda.bindings import driver as cu

from ...machine.launch_spec import LaunchSpec
from .driver import check


class CudaContext:
    def __init__(self, device: int = 0):
        check("cuInit", cu.cuInit(0))
        self.dev = check("cuDeviceGet", cu.cuDeviceGet(device))
        self.ctx = check("cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(self.dev))
        check("cuCtxSetCurrent", cu.cuCtxSetCurrent(self.ctx))
        A = cu.CUdevice_attribute
        attr = lambda a: check("cuDeviceGetAttribute", cu.cuDeviceGetAttribute(a, self.dev))  # noqa: E731
        self.sm_count: int = attr(A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        self.max_blocks_per_sm: int = attr(A.CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)
        self.max_threads_per_sm: int = attr(A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
        self.cc = (attr(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                   attr(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
        self.saturating_grid = self.sm_count * self.max_blocks_per_sm * 2
        self.l2_bytes: int = attr(A.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
        self.stream = check("cuStreamCreate", cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
        self.name = check("cuDeviceGetName", cu.cuDeviceGetName(256, self.dev)).split(b"\0")[0].decode()

    def info(self) -> dict[str, Any]:
        return {"backend": "cuda", "device": self.name, "arch": f"sm_{self.cc[0]}{self.cc[1]}",
                "sm_count": self.sm_count, "max_blocks_per_sm": self.max_blocks_per_sm,
                "saturating_grid": self.saturating_grid}

    def grid_of(self, spec: LaunchSpec, n: int) -> int:
        if spec.serial:
            return 1
        block = spec.block
        threads = -(-n // max(1, spec.vector))
        cap = (1 << 31) - 1 if spec.full_grid else self.saturating_grid
        if spec.one_wave:  # each block flushes its private copy once: the fewer blocks, the fewer flushes
            cap = min(cap, self.sm_count * max(1, self.max_threads_per_sm // block))
        return max(0, min(-(-threads // block), cap))

    def wait(self, task: str = "") -> None:
        """Until everything queued on our stream has run; a fault in it is pinned on `task`."""
        check("cuStreamSynchronize", cu.cuStreamSynchronize(self.stream), task)

    def close(self) -> None:
        cu.cuDevicePrimaryCtxRelease(self.dev)
