"""Theoretical occupancy from registers, shared memory and block size, without a GPU.

On a GPU the CUDA backend asks the driver (cuOccupancyMaxActiveBlocksPerMultiprocessor). Without one,
`ptxas -v` still gives registers and shared memory, and this is the arithmetic of NVIDIA's CUDA
Occupancy Calculator (the spreadsheet shipped with the toolkit until 11.x, and Nsight Compute's
"Occupancy" section) over the per-architecture limits of the CUDA C++ Programming Guide, "Technical
Specifications per Compute Capability". The result matches the driver for kernels without dynamic
shared memory, which is what the language emits.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SmLimits:
    max_threads: int            # resident threads per SM
    max_blocks: int             # resident blocks per SM
    shared_per_sm: int          # bytes of shared memory an SM can give to blocks (max carve-out)
    shared_per_block: int       # bytes one block may use (opt-in maximum)
    shared_reserved: int = 0    # bytes the system reserves per block (sm_80+: 1 KB)
    shared_unit: int = 128      # shared memory allocation granularity
    registers: int = 65536      # 32-bit registers per SM (and per block)
    reg_unit: int = 256         # registers are allocated per warp in units of 256
    max_regs_per_thread: int = 255
    warp_unit: int = 4          # warps are allocated to the register file in groups of 4
    warp_size: int = 32

    @property
    def max_warps(self) -> int:
        return self.max_threads // self.warp_size


KB = 1024
# Compute capability → limits (CUDA C++ Programming Guide, Table 21/"Technical Specifications").
LIMITS: dict[int, SmLimits] = {
    70: SmLimits(2048, 32, 96 * KB, 96 * KB, 0, 256),
    72: SmLimits(2048, 32, 96 * KB, 96 * KB, 0, 256),
    75: SmLimits(1024, 16, 64 * KB, 64 * KB, 0, 256),
    80: SmLimits(2048, 32, 164 * KB, 163 * KB, KB),
    86: SmLimits(1536, 16, 100 * KB, 99 * KB, KB),
    87: SmLimits(2048, 32, 164 * KB, 163 * KB, KB),
    89: SmLimits(1536, 24, 100 * KB, 99 * KB, KB),
    90: SmLimits(2048, 32, 228 * KB, 227 * KB, KB),
    100: SmLimits(2048, 32, 228 * KB, 227 * KB, KB),
    101: SmLimits(2048, 32, 228 * KB, 227 * KB, KB),
    103: SmLimits(2048, 32, 228 * KB, 227 * KB, KB),
    110: SmLimits(2048, 32, 228 * KB, 227 * KB, KB),
    120: SmLimits(1536, 32, 100 * KB, 99 * KB, KB),
    121: SmLimits(1536, 32, 100 * KB, 99 * KB, KB),
}


def limits_for(arch: str | int) -> SmLimits:
    """'sm_90', 'sm_90a', 'compute_86' or 86 → limits; an unknown newer arch gets the nearest older one."""
    cc = arch if isinstance(arch, int) else int("".join(ch for ch in str(arch).split("_")[-1] if ch.isdigit()))
    if cc in LIMITS:
        return LIMITS[cc]
    older = [k for k in LIMITS if k <= cc]
    if not older:
        raise ValueError(f"no occupancy table for {arch}: the oldest known is sm_{min(LIMITS)}")
    return LIMITS[max(older)]


@dataclass(frozen=True)
class Occupancy:
    block: int
    active_blocks: int          # resident blocks per SM
    active_warps: int
    max_warps: int
    limited_by: str             # "registers" | "shared" | "blocks" | "warps" | "block size"

    @property
    def fraction(self) -> float:
        return self.active_warps / self.max_warps if self.max_warps else 0.0


def _ceil(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def occupancy(arch: str | int, registers: int, shared_bytes: int, block: int) -> Occupancy:
    """Resident blocks and warps per SM for a kernel with these resources launched with `block` threads."""
    lim = limits_for(arch)
    if block <= 0 or block > 1024:
        raise ValueError(f"block size {block} is outside 1..1024")
    warps_per_block = -(-block // lim.warp_size)
    by = {"warps": lim.max_warps // warps_per_block, "blocks": lim.max_blocks}
    if registers > 0:
        if registers > lim.max_regs_per_thread:
            return Occupancy(block, 0, 0, lim.max_warps, "registers")
        regs_per_warp = _ceil(registers * lim.warp_size, lim.reg_unit)
        warps_by_regs = (lim.registers // regs_per_warp) // lim.warp_unit * lim.warp_unit
        by["registers"] = warps_by_regs // warps_per_block
    if shared_bytes > 0 or lim.shared_reserved:
        if shared_bytes > lim.shared_per_block:
            return Occupancy(block, 0, 0, lim.max_warps, "shared")
        per_block = _ceil(shared_bytes + lim.shared_reserved, lim.shared_unit)
        by["shared"] = lim.shared_per_sm // per_block
    limited_by = min(by, key=lambda k: (by[k], ["registers", "shared", "warps", "blocks"].index(k)))
    blocks = by[limited_by]
    return Occupancy(block, blocks, blocks * warps_per_block, lim.max_warps, limited_by)
