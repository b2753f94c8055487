"""A timed launch in one native call: event, kernel, event, and the elapsed times read in one loop.

Through cuda-python each driver call costs about a microsecond of Python on top of the driver's
own work, and a timed launch makes four (two event records, the launch, and one elapsed-time read
per launch later). Here a few lines of LLVM IR, JIT-compiled once per process, make those driver
calls back to back: a timed launch is one ctypes call, and the elapsed times of up to `RING`
launches are read by another, into an array. The driver entry points are the ones cuda-python
itself calls (`cuGetProcAddress` for the driver's version), so both paths run the same driver code
on the same events and stream.

A run's launches take their event pairs from a ring (`EventRing`): a count, a capacity, then
(start, end) event handles, created by the native code the first time a slot is used and kept for
the next run. `launch_timed` returns the count after the launch, or a negative code naming the
call that failed and its CUresult; `elapsed` waits for the last end event, writes each launch's
milliseconds and empties the ring.
"""
from __future__ import annotations

import ctypes
from typing import Any, Callable

import numpy as np
from cuda.bindings import driver as cu

from ...machine.llvm_binding import llvm_binding
from .driver import check

RING = 1024  # launches between two reads of their times (one wait on the last end event)
_CALLS = ("cuEventCreate", "cuEventRecord", "cuLaunchKernel", "cuEventSynchronize", "cuEventElapsedTime")
STAGES = {1: "cuEventCreate", 2: "cuEventRecord", 3: "cuLaunchKernel", 4: "cuEventRecord", 5: "ring full",
          6: "cuEventSynchronize", 7: "cuEventElapsedTime"}

# hot: {CUfunction f, CUstream s, void **params, u32 grid, u32 block}; ring: {i64 n, i64 cap, (start, end)[cap]}
# The IR is written from three templates (a task's launch record read, a driver call whose CUresult is
# checked, a ring slot's address), so each shape is written once; `{name}` fields are the driver's
# entry points, filled in by NativeLauncher.


def _hot(prefix: str = "") -> str:
    """Read a task's launch record `%hot`: its function, stream, parameters, grid and block."""
    return "\n".join(f"  {line}" for line in (
        f"%{prefix}f = load ptr, ptr %hot",
        f"%{prefix}sp = getelementptr i8, ptr %hot, i64 8",
        f"%{prefix}s = load ptr, ptr %{prefix}sp",
        f"%{prefix}pp = getelementptr i8, ptr %hot, i64 16",
        f"%{prefix}p = load ptr, ptr %{prefix}pp",
        f"%{prefix}gp = getelementptr i8, ptr %hot, i64 24",
        f"%{prefix}g = load i32, ptr %{prefix}gp",
        f"%{prefix}bp = getelementptr i8, ptr %hot, i64 28",
        f"%{prefix}b = load i32, ptr %{prefix}bp"))


def _launch_args(prefix: str = "") -> str:
    return (f"(ptr %{prefix}f, i32 %{prefix}g, i32 1, i32 1, i32 %{prefix}b, i32 1, i32 1, i32 0, "
            f"ptr %{prefix}s, ptr %{prefix}p, ptr null)")


def _checked(name: str, call: str, args: str, stage: int, then: str) -> str:
    """`%name = call(args)`; a non-zero CUresult returns `fail(stage, result)`, else on to `then`."""
    return (f"  %{name} = call i32 inttoptr (i64 {{{call}}} to ptr){args}\n"
            f"  %{name}bad = icmp ne i32 %{name}, 0\n"
            f"  br i1 %{name}bad, label %{name}fail, label %{then}\n"
            f"{name}fail:\n"
            f"  %{name}code = call i64 @fail(i64 {stage}, i32 %{name})\n"
            f"  ret i64 %{name}code")


def _slot(index: str) -> str:
    """`%startp`/`%endp`: the addresses of ring slot `index`'s (start, end) event handles."""
    return (f"  %off = shl i64 {index}, 4\n"
            f"  %off2 = add i64 %off, 16\n"
            f"  %startp = getelementptr i8, ptr %ring, i64 %off2\n"
            f"  %endp = getelementptr i8, ptr %startp, i64 8")


_IR = f"""
define i64 @fail(i64 %stage, i32 %r) alwaysinline {{{{
  %r64 = zext i32 %r to i64
  %s = shl i64 %stage, 32
  %c = or i64 %s, %r64
  %neg = sub i64 0, %c
  ret i64 %neg
}}}}

define i64 @qdx_launch(ptr %hot) {{{{
{_hot()}
  %r = call i32 inttoptr (i64 {{cuLaunchKernel}} to ptr){_launch_args()}
  %r64 = zext i32 %r to i64
  ret i64 %r64
}}}}

define i64 @qdx_launch_timed(ptr %hot, ptr %ring) {{{{
entry:
  %n = load i64, ptr %ring
  %capp = getelementptr i8, ptr %ring, i64 8
  %cap = load i64, ptr %capp
  %full = icmp sge i64 %n, %cap
  br i1 %full, label %isfull, label %slot
isfull:
  %ef = call i64 @fail(i64 5, i32 0)
  ret i64 %ef
slot:
{_slot("%n")}
  %e0 = load ptr, ptr %endp
  %fresh = icmp eq ptr %e0, null
  br i1 %fresh, label %create, label %go
create:
{_checked("c1", "cuEventCreate", "(ptr %startp, i32 0)", 1, "create2")}
create2:
{_checked("c2", "cuEventCreate", "(ptr %endp, i32 0)", 1, "go")}
go:
  %a = load ptr, ptr %startp
  %e = load ptr, ptr %endp
{_hot()}
{_checked("r1", "cuEventRecord", "(ptr %a, ptr %s)", 2, "launch")}
launch:
{_checked("r2", "cuLaunchKernel", _launch_args(), 3, "record")}
record:
{_checked("r3", "cuEventRecord", "(ptr %e, ptr %s)", 4, "done")}
done:
  %n1 = add i64 %n, 1
  store i64 %n1, ptr %ring
  ret i64 %n1
}}}}

define i64 @qdx_elapsed(ptr %ring, ptr %out) {{{{
entry:
  %n = load i64, ptr %ring
  %none = icmp sle i64 %n, 0
  br i1 %none, label %empty, label %wait
empty:
  ret i64 0
wait:
  %lastoff = shl i64 %n, 4
  %lastendoff = add i64 %lastoff, 8
  %lastendp = getelementptr i8, ptr %ring, i64 %lastendoff
  %lastend = load ptr, ptr %lastendp
{_checked("w", "cuEventSynchronize", "(ptr %lastend)", 6, "loop")}
loop:
  %i = phi i64 [0, %wait], [%i1, %next]
{_slot("%i")}
  %a = load ptr, ptr %startp
  %e = load ptr, ptr %endp
  %outp = getelementptr float, ptr %out, i64 %i
{_checked("r", "cuEventElapsedTime", "(ptr %outp, ptr %a, ptr %e)", 7, "next")}
next:
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %finished
finished:
  store i64 0, ptr %ring
  ret i64 %n
}}}}
"""


def decode(code: int) -> tuple[str, int]:
    """A negative result's failing call and its CUresult value."""
    c = -code
    return STAGES.get(c >> 32, "native launch"), c & 0xFFFFFFFF


class EventRing:
    """Up to RING timed launches' event pairs and their read-back times; reused run after run."""

    def __init__(self, cap: int = RING):
        self.cap = cap
        self.words = np.zeros(2 + 2 * cap, np.uint64)  # n, cap, then (start, end) handles
        self.words[1] = cap
        self.addr = self.words.ctypes.data
        self.out = np.zeros(cap, np.float32)
        self.out_addr = self.out.ctypes.data

    @property
    def count(self) -> int:
        return int(self.words[0])

    def handles(self, i: int) -> tuple[int, int]:
        return int(self.words[2 + 2 * i]), int(self.words[3 + 2 * i])

    def destroy(self) -> None:
        """Free the events this ring created (the context must still be current)."""
        for h in self.words[2:]:
            if h:
                cu.cuEventDestroy(cu.CUevent(int(h)))
        self.words[2:] = 0
        self.words[0] = 0


class NativeLauncher:
    """The JIT-compiled launch and read-back functions, bound to this process's driver."""

    def __init__(self, entry_points: dict[str, int]):
        llvm = llvm_binding()
        mod = llvm.parse_assembly(_IR.format(**{k: entry_points[k] for k in _CALLS}))
        mod.verify()
        tm = llvm.Target.from_default_triple().create_target_machine(opt=2)
        self._engine = llvm.create_mcjit_compiler(mod, tm)
        self._engine.finalize_object()
        addr = self._engine.get_function_address
        # each releases the GIL, as cuda-python's calls do: a launch blocks while the stream's queue is
        # full, and the read-back waits for the GPU; meanwhile a halt must still be read, a window drawn
        # (holding it instead saved ~0.2 µs a launch, measured with benchmarks/launch_host_cost.py)
        self.launch: Callable[[int], int] = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p)(addr("qdx_launch"))
        self.launch_timed: Callable[[int, int], int] = ctypes.CFUNCTYPE(
            ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p)(addr("qdx_launch_timed"))
        self.elapsed: Callable[[int, int], int] = ctypes.CFUNCTYPE(
            ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p)(addr("qdx_elapsed"))

    def self_check(self, stream: Any) -> None:
        """Read one event pair recorded through cuda-python with the native read-back, and compare:
        entry points of the wrong version or signature fail here, once, instead of in a run."""
        a, b = (check("cuEventCreate", cu.cuEventCreate(0)) for _ in range(2))
        try:
            check("cuEventRecord", cu.cuEventRecord(a, stream))
            check("cuEventRecord", cu.cuEventRecord(b, stream))
            ring = EventRing(1)
            ring.words[0], ring.words[2], ring.words[3] = 1, int(a), int(b)
            n = self.elapsed(ring.addr, ring.out_addr)
            ms = check("cuEventElapsedTime", cu.cuEventElapsedTime(a, b))
            if n != 1 or ring.count != 0 or float(ring.out[0]) != float(np.float32(ms)):
                raise RuntimeError(f"native read-back disagrees with cuda-python: {n}, {ring.out[0]} ms vs {ms} ms")
        finally:
            cu.cuEventDestroy(a)
            cu.cuEventDestroy(b)

    @staticmethod
    def hot_block(f: Any, stream: Any, params: int, grid: int, block: int) -> np.ndarray:
        """One task's launch, as the native code reads it (kept alive by the caller)."""
        hot = np.zeros(4, np.uint64)
        hot[0], hot[1], hot[2] = int(f), int(stream), int(params)
        hot[3] = (int(block) << 32) | int(grid)  # little-endian: grid at byte 24, block at 28
        return hot


_built: list[NativeLauncher] = []


def native_launcher() -> NativeLauncher:
    """This process's launcher, JIT-compiled by the first backend that asks (the driver's entry
    points are the process's; each backend still runs `self_check` on its own stream)."""
    if not _built:
        _built.append(NativeLauncher(driver_entry_points()))
    return _built[0]


def driver_entry_points() -> dict[str, int]:
    """The driver functions cuda-python calls for this driver version (its per-version symbols,
    e.g. cuEventElapsedTime_v2 on CUDA 13, not the legacy names a plain dlsym would find)."""
    err, version = cu.cuDriverGetVersion()
    if err:
        raise RuntimeError(f"cuDriverGetVersion failed: {err}")
    out = {}
    for name in _CALLS:
        res = cu.cuGetProcAddress(name.encode(), version, cu.CUdriverProcAddress_flags.CU_GET_PROC_ADDRESS_DEFAULT)
        if res[0] or not res[1]:
            raise RuntimeError(f"cuGetProcAddress({name}) failed: {res[0]}")
        out[name] = int(res[1])
    return out
