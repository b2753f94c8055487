"""CPU backend: host JIT of each task's object file, launched over its range in parallel chunks.

ctypes releases the GIL during the call, so threads over chunks give real parallelism. A cache
flush before a timed launch is a GPU notion: on the host it would time the flush's own side
effects, not the task.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from ..ir.device_array import dense
from .backend_api import Prepared
from .debug import check_record, new_record
from .host_symbols import unresolved
from ..machine.launch_spec import LaunchSpec
from ..machine.llvm_binding import llvm_binding
from .launch import LaunchTiming

_CTYPES: dict[str, type[ctypes._SimpleCData[Any]]] = {"ptr": ctypes.c_void_p, "i32": ctypes.c_int32, "i64": ctypes.c_int64, "u32": ctypes.c_uint32,
           "f32": ctypes.c_float, "f64": ctypes.c_double, "i8": ctypes.c_int8, "i16": ctypes.c_int16,
           "u8": ctypes.c_uint8, "u16": ctypes.c_uint16, "u64": ctypes.c_uint64,
           "u1": ctypes.c_bool,  # an i1 argument: the callee reads its low bit
           "f16": ctypes.c_float}  # a host entry takes an f16 scalar as f32 (codegen/abi.py) and narrows it
_lock = threading.Lock()
# Fewer indices than this run on the calling thread: handing a chunk to a pool thread costs tens of
# microseconds in Python (a future, a queue, a lock), as much as a light kernel over 4096 elements
# (a fields-and-func step ran 5x slower chunked 8 ways at 4096). Above it, one chunk per thread,
# the calling thread taking the last: the fewest hand-offs that still use every core.
PARALLEL_MIN = 1 << 16


class CpuModules:
    """Each task's object file in an MCJIT engine of its own, so that replacing one task's code
    never touches another's."""

    def __init__(self) -> None:
        self.llvm = llvm_binding()
        libm = ctypes.util.find_library("m")
        if libm:
            self.llvm.load_library_permanently(libm)
        self.entries: dict[str, tuple] = {}  # task -> (engine, cfunc, spec, code hash)

    def load(self, spec: LaunchSpec, code: bytes, tag: str = "", unit: str = "") -> None:
        """Load (or replace) one task's object file and resolve its entry point."""
        if spec.uses_block_features:
            raise RuntimeError(f"task {spec.task} uses qd.simt.block features, which the CPU backend "
                               f"cannot run; use --backend cuda, or qd.init(arch=qd.cuda) in a script")
        odd = [t for t in spec.abi if t not in _CTYPES]
        if odd:  # ctypes has no half: say which argument type, not a KeyError 'f16'
            raise RuntimeError(f"task {spec.task} takes a {odd[0]} scalar argument, which the CPU backend cannot "
                               f"pass; declare it qd.f32 and convert inside the kernel")
        llvm = self.llvm
        missing = unresolved(code, llvm)
        if missing:  # MCJIT would jump to address 0 at launch: a segfault instead of an error
            raise RuntimeError(f"task {spec.task}: its host code calls {', '.join(missing)}, which this process "
                               f"does not provide (a compiler runtime helper for an operation this CPU has no "
                               f"instruction for); please report the kernel")
        with _lock:
            target = llvm.Target.from_default_triple()
            tm = target.create_target_machine()
            engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
            engine.add_object_file(llvm.ObjectFileRef.from_data(code))
            engine.finalize_object()
            addr = engine.get_function_address(spec.task)
        if not addr:
            raise RuntimeError(f"entry point {spec.task} not found in its object file")
        proto = ctypes.CFUNCTYPE(None, *[_CTYPES[t] for t in spec.abi])
        self.entries[spec.task] = (engine, proto(addr), spec, tag)

    def unload(self, task: str) -> None:
        self.entries.pop(task, None)

    def load_linked(self, unit: str, items: list[tuple[LaunchSpec, bytes, str]]) -> None:
        raise RuntimeError(f"{unit}: linked cubins (assembly mode culink) are GPU code; the CPU backend loads "
                           f"host objects (compile for target host)")

    def loaded(self, task: str) -> bool:
        return task in self.entries

    def resources(self, task: str) -> dict[str, Any]:
        return {}  # registers and occupancy are GPU notions; ptxas reports them from the PTX


class CpuBackend:
    """Launches over a task's range in parallel chunks, synchronously: nothing is queued, so it
    has neither `Queued`'s waits nor stream interop."""
    name = "cpu"

    def __init__(self, threads: int | None = None):
        self.modules = CpuModules()
        self.threads = threads or os.cpu_count() or 1
        self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="qd-cpu") if self.threads > 1 else None

    def close(self) -> None:
        if self.pool:
            self.pool.shutdown(wait=False)
        self.modules.entries.clear()

    def info(self) -> dict[str, Any]:
        return {"backend": "cpu", "device": platform.processor() or platform.machine(), "threads": self.threads}

    def prepare(self, args: dict[str, Any], trips: dict[str, int], in_place: bool = False) -> Prepared:
        """Kernels run on private copies (the caller's arrays stay as built until `fetch`), or
        on the caller's own arrays for script calls, which update in place as in Quadrants."""
        host = host_arrays(args)
        if not in_place:
            host = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in host.items()}
        return Prepared(host, dict(trips))

    def fetch(self, prepared: Prepared, into: dict[str, Any]) -> None:
        for k, v in into.items():
            src = prepared.host.get(k)
            if isinstance(v, np.ndarray) and src is not v and v.flags.writeable:  # read-only: only read
                v[...] = src

    def quick_launcher(self, task: str, args: dict[str, Any]) -> Callable[[dict[str, Any], int], None] | None:
        """A script's launcher of `task` for calls of one signature: the values go to the entry
        point as plain Python numbers (the prototype converts them), with no timing or records.
        Chunks as `launch` does; in debug mode it reads the out-of-bounds record as `launch` does."""
        _, fn, spec, _ = self.modules.entries[task]
        slots = tuple((s.name, s.kind == "array") for s in spec.args)
        serial = spec.type == "serial"
        pool = None if spec.serialize else self.pool
        chunks = self.threads
        # debug mode: one out-of-bounds record per launcher, read after each launch; it stays zeroed
        # until an access fails (then it is cleared before the error is raised)
        rec = new_record() if spec.debug else None
        tail = (rec.ctypes.data,) if rec is not None else ()  # the entry's last parameter, after the bounds

        def launch(values: dict[str, Any], n: int) -> None:
            if spec.read_bounds:  # bounds an earlier task wrote (a listgen's count): split the real count
                n = spec.trips_now(values, n)
            c: list = []
            for name, is_array in slots:
                v = values[name]
                if is_array:
                    c.append(v.ctypes.data)
                    c.extend(v.shape)
                else:
                    c.append(v)
            if serial:
                fn(*c, *tail)
            elif pool is None or n < PARALLEL_MIN:
                if n > 0:
                    fn(*c, 0, n, *tail)
            else:
                step = -(-n // chunks)
                starts = range(0, n, step)
                def chunk(lo: int, hi: int) -> None:
                    fn(*c, lo, hi, *tail)
                futures = [pool.submit(chunk, lo, min(n, lo + step)) for lo in starts[:-1]]
                fn(*c, starts[-1], n, *tail)
                for f in futures:
                    f.result()
            if rec is not None and rec[0]:
                failed = rec.copy()
                rec[:] = 0
                check_record(failed, spec, {name: np.shape(values[name]) for name, is_array in slots if is_array})
        return launch

    def call_args(self, spec: LaunchSpec, args: dict[str, Any]) -> list[ctypes._SimpleCData[Any]]:
        out: list[ctypes._SimpleCData[Any]] = []
        for slot in spec.args:
            v = args[slot.name]
            if slot.kind == "array":
                out.append(ctypes.c_void_p(v.ctypes.data))
                out.extend(ctypes.c_int32(int(s)) for s in v.shape)
            else:
                out.append(_CTYPES[slot.ctype](v))
        return out

    def launch(self, task: str, prepared: Prepared, timed: bool = True) -> LaunchTiming:
        """Untimed (script calls), the per-thread CPU clock is not read: `thread_time` is a system
        call (5 µs in a VM), and a tiny launch's whole cost is a few of those."""
        _, fn, spec, _ = self.modules.entries[task]
        cargs = prepared.params.get(task)
        if cargs is None:
            cargs = prepared.params[task] = self.call_args(spec, prepared.host)

        rec = new_record() if spec.debug else None  # debug mode: the out-of-bounds record
        tail = (ctypes.c_void_p(rec.ctypes.data),) if rec is not None else ()

        def work(*bounds):  # CPU time of this thread's share: other threads' work never counts
            if not timed:
                fn(*cargs, *bounds, *tail)
                return 0.0
            c = time.thread_time()
            fn(*cargs, *bounds, *tail)
            return time.thread_time() - c
        t0 = time.perf_counter()
        if spec.type == "serial":
            cpu = work()
            grid = 1
        else:
            n = spec.trips_now(prepared.host, prepared.trips[task])
            chunks = 1 if (spec.serialize or self.pool is None or n < PARALLEL_MIN) else self.threads
            step = -(-n // chunks) if n else 0
            bounds = [(lo, min(n, lo + step)) for lo in range(0, n, step)] if n else []
            if len(bounds) <= 1 or self.pool is None:
                cpu = sum(work(lo, hi) for lo, hi in bounds)
            else:
                cpu = sum(self.pool.map(lambda b: work(*b), bounds))
            grid = len(bounds)
        ms = (time.perf_counter() - t0) * 1e3
        if rec is not None:
            check_record(rec, spec, {k: np.shape(v) for k, v in prepared.host.items() if isinstance(v, np.ndarray)})
        return LaunchTiming(task, spec.kernel, "cpu", ms, grid, 1, cpu_ms=cpu * 1e3 if timed else None)


def host_arrays(args: dict) -> dict:
    """Arguments as the CPU backend wants them: C-contiguous NumPy arrays (or a field's storage
    nested out of axis order, see `dense`) and Python scalars."""
    out = {}
    for k, v in args.items():
        if isinstance(v, np.ndarray) and not dense(v):
            raise ValueError(f"argument '{k}' must be a C-contiguous array (use np.ascontiguousarray)")
        out[k] = v
    return out
