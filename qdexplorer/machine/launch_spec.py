"""What a backend needs to launch one task, as plain picklable records.

A `LaunchSpec` is derived once from a task at compile time; it names the ABI slots and the
launch shape, and nothing in it refers to the language's IR, so a device worker (here or on
another machine) needs neither the project nor the compiler. Trip counts arrive with each run,
computed where the arguments were built (see `qdexplorer.lang.calls.bounds`).
"""
from __future__ import annotations

from dataclasses import dataclass

DEFAULT_BLOCK = 128  # threads per block of a loop without loop_config(block_dim=...), as in Quadrants


@dataclass(frozen=True)
class ArgSlot:
    name: str
    kind: str      # 'array' | 'scalar'
    ctype: str     # 'ptr' for arrays, else the scalar's dtype name ('f32', 'i32', ...)
    ndim: int = 0  # arrays pass their pointer then one i32 per axis


@dataclass(frozen=True)
class LaunchSpec:
    task: str
    kernel: str
    type: str                       # 'range_for' | 'serial'
    args: tuple[ArgSlot, ...]
    block_dim: int | None = None
    serialize: bool = False
    uses_block_features: bool = False
    vector: int = 1                 # indices per thread per grid-stride step (codegen's coarsening)
    abi: tuple[str, ...] = ()       # the entry's parameter types in order ('ptr', 'i32', 'f32', ...)
    debug: bool = False             # debug mode: the entry takes a last pointer, the out-of-bounds record
    debug_sites: tuple = ()         # (file:line, array) per bounds-check site (see runtime/debug.py)
    one_wave: bool = False          # at most one wave of resident blocks (codegen/privatize.py)
    # bounds the kernel reads from arrays (a struct-for over sparse cells: its listgen's count), where
    # the host can read them just before the launch: per range (lo, hi), each ("c", value) or ("a",
    # array, flat index); () otherwise. The CPU backend then splits the real count over its threads
    read_bounds: tuple = ()
    full_grid: bool = False         # a thread per coarsened step: the grid is not capped (codegen/task_module.py)

    def trips_now(self, arrays: dict, n: int) -> int:
        """The task's index count as the arrays hold it now (at most `n`, the count the call was
        checked with); `n` itself without read_bounds."""
        if not self.read_bounds:
            return n
        total = 1
        for lo, hi in self.read_bounds:
            a, b = (int(e[1]) if e[0] == "c" else int(arrays[e[1]].reshape(-1)[e[2]]) for e in (lo, hi))
            total *= max(0, b - a)
        return min(n, total)

    @property
    def serial(self) -> bool:
        return self.type == "serial" or self.serialize

    @property
    def block(self) -> int:
        """Threads per block it launches with: 1 for a serial task, else its block_dim or 128.
        The CUDA backend launches with it and the ptxas estimate sizes occupancy by it."""
        return 1 if self.serial else (self.block_dim or DEFAULT_BLOCK)
