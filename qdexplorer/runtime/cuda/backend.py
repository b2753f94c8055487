"""CUDA backend: a task's launches on one GPU, timed with events, from small parts with one job each.

The context (`context.py`: the GPU's facts, our stream, the launch grid), the tasks' modules
(`modules.py`), device memory (`memory.py`), the kernel parameters (`params.py`) and the interop
with other libraries' streams (`streams.py`) are each a class of their own; this one prepares a
run's arguments, launches, and waits, as tinygrad's `ops_cuda.py` does with a few small classes.
"""
from __future__ import annotations

import os
import sys
from functools import partial
from typing import Any, Callable

import numpy as np
from cuda.bindings import driver as cu

from ...ir.device_array import DeviceArray, dense
from ..backend_api import Prepared
from ..debug import check_record, new_record
from ..launch import LaunchTiming, fresh_timing
from .context import CudaContext
from .driver import check
from .memory import CudaMemory
from .modules import CudaModules
from .native_launch import RING, EventRing, NativeLauncher, decode, native_launcher
from .params import ParamBlocks
from .streams import CudaStreams, stream_handle

_OK = cu.CUresult.CUDA_SUCCESS  # 0: a result is an int, so `if err:` is the (cheapest) failure test
_record = cu.cuEventRecord
# Timed launches through cuda-python before the native path is built in a process that has not
# imported LLVM yet (a device worker): importing it costs ~0.15 s, which a short run should not wait for.
NATIVE_AFTER = 1024


class CudaBackend:
    name = "cuda"

    def __init__(self, device: int = 0):
        self.ctx = CudaContext(device)
        self.modules = CudaModules(self.ctx)
        self.memory = CudaMemory(self.ctx)
        self.streams = CudaStreams(self.ctx)
        self.params = ParamBlocks(self.ctx, self.memory)
        self._events: list = []
        self.native: NativeLauncher | None = None  # the timed launch in one native call (native_launch.py)
        self.native_error = ""  # why it could not be built, if it could not
        self._rings: list[EventRing] = []
        self._timed_launches = 0  # through cuda-python, counted to decide when to build the native path

    def info(self) -> dict[str, Any]:
        return self.ctx.info()

    def prepare(self, args: dict[str, Any], trips: dict[str, int], in_place: bool = False) -> Prepared:
        """Copy host arrays to device buffers (reused across runs of the same shapes); GPU arrays
        (DeviceArray: CUDA tensors, qd.ndarray device copies) are passed by pointer, after the
        work their producer queued on its own stream."""
        dev, copied, streams = {}, False, set()
        for k, v in args.items():
            if isinstance(v, DeviceArray):
                handle = stream_handle(v.stream)
                if handle is not None and handle not in streams:  # one wait per producer stream
                    streams.add(handle)
                    self.streams.after(handle)
                dev[k] = (v.ptr, v.shape)
            elif isinstance(v, np.ndarray):
                if not dense(v):  # C-contiguous, or a field's storage nested out of axis order
                    raise ValueError(f"argument '{k}' must be a C-contiguous array")
                ptr = self.memory.run_buffer((k, v.nbytes), v.nbytes)
                if v.nbytes:
                    self.memory.send(ptr, v)
                    copied = True
                dev[k] = (ptr, v.shape)
            else:
                dev[k] = v
        if copied:  # the host arrays may change once we return
            self.ctx.wait()
        if self.native is None and not self.native_error and (
                "llvmlite.binding" in sys.modules or self._timed_launches >= NATIVE_AFTER):
            build_native(self)
        return Prepared(args, dict(trips), dev, reuse=in_place, streams=streams, native=self.native)

    def quick_launcher(self, task: str, args: dict[str, Any]) -> Callable[..., None] | None:
        spec = self.modules.specs[task]
        if self.native is None and not self.native_error and "llvmlite.binding" in sys.modules:
            build_native(self)   # a script compiles in this process: LLVM is loaded already
        return self.params.quick_launcher(spec, self.modules.composite.function(task), args, self.native)

    def _hot(self, task: str, prepared: Prepared) -> tuple:
        """Everything a launch of `task` needs, resolved once per prepared argument set: the launch
        call with every argument bound (None for an empty grid), the kernel's name, grid, block,
        debug flag, and the record every untimed launch returns (nothing in it is measured, so one
        serves them all)."""
        hot = prepared.hot.get(task)
        if hot is None:
            spec = self.modules.specs[task]
            f = self.modules.composite.function(task)
            addr, _, grid, block = self.params.params(spec, prepared)
            untimed = LaunchTiming(task, spec.kernel, "cuda", 0.0, grid, block)
            nat = prepared.native
            if nat is not None and grid:
                block_words = nat.hot_block(f, self.ctx.stream, addr, grid, block)
                at = block_words.ctypes.data
                hot = (None, spec.kernel, grid, block, spec.debug, untimed, partial(nat.launch, at),
                       partial(nat.launch_timed, at), block_words)
            else:
                go = partial(cu.cuLaunchKernel, f, grid, 1, 1, block, 1, 1, 0, self.ctx.stream, addr, 0) if grid else None
                hot = (go, spec.kernel, grid, block, spec.debug, untimed, None, None, None)
            prepared.hot[task] = hot
        return hot

    def launch(self, task: str, prepared: Prepared, timed: bool = True) -> LaunchTiming:
        hot = prepared.hot.get(task) or self._hot(task, prepared)
        go = hot[0]
        if not timed:  # the host work of a launch, kept to the bare call (launch_overhead.py)
            nat = hot[6]
            if nat is not None:
                err = nat()
                if err:
                    check("cuLaunchKernel", (cu.CUresult(err),), task)
                if hot[4]:
                    self._check_debug(task, prepared)
            elif go is not None:
                err, = go()
                if err:
                    check("cuLaunchKernel", (err,), task)
                if hot[4]:
                    self._check_debug(task, prepared)
            return hot[5]
        timing = fresh_timing(task, hot[1], "cuda", hot[2], hot[3])
        nat = hot[7]
        if nat is not None:  # events, launch, events in one native call; times read in `finish`
            ring = prepared.ring
            if ring is None:
                ring = prepared.ring = self._rings.pop() if self._rings else EventRing()
            n = nat(ring.addr)
            if n <= 0:
                call, err = decode(n)
                check(call, (cu.CUresult(err),), task)
                raise RuntimeError(f"timed launch of {task}: {call}")   # not the driver's: a ring overrun
            pending = prepared.pending
            pending.append(timing)
            if n >= RING:
                self.finish(prepared)
            if hot[4]:
                self._check_debug(task, prepared)
            return timing
        if go is None:
            return timing
        stream = self.ctx.stream
        ev = self._events.pop() if self._events else self._event_pair()
        err_a, = _record(ev[0], stream)
        err, = go()
        err_b, = _record(ev[1], stream)
        if err:
            check("cuLaunchKernel", (err,), task)
        if err_a or err_b:
            check("cuEventRecord", (err_a or err_b,), task)
        pending = prepared.pending
        pending.append((timing, ev))
        if len(pending) >= 1024:
            self.finish(prepared)
        if hot[4]:
            self._check_debug(task, prepared)
        return timing

    def _event_pair(self) -> tuple[Any, Any]:
        mk = lambda: check("cuEventCreate", cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DEFAULT))  # noqa: E731
        return mk(), mk()

    def _check_debug(self, task: str, prepared: Prepared) -> None:
        """Debug mode: wait for the launch and raise OutOfBounds if it recorded a bad access."""
        self.finish(prepared)
        rec = new_record()
        # on our own stream, then wait: an untimed launch left no event to wait on, and a plain
        # cuMemcpyDtoH (legacy stream) is not ordered after our non-blocking stream's kernel
        check("cuMemcpyDtoHAsync", cu.cuMemcpyDtoHAsync(rec.ctypes.data, self.memory.run_buffer(("__debug__", task), 0),
                                                        rec.nbytes, self.ctx.stream))
        self.ctx.wait(task)
        check_record(rec, self.modules.specs[task], {k: tuple(v.shape) for k, v in prepared.host.items()
                                                     if isinstance(v, (np.ndarray, DeviceArray))})

    def flush_caches(self) -> None:
        self.memory.scrub_l2()

    def finish(self, prepared: Prepared) -> None:
        """Wait for pending launches; fill each timing from its events; pin a fault on its task.

        Events on one stream complete in order, so one wait on the last covers them all; on an
        error the first event that did not complete names the task that faulted.
        """
        pending = prepared.pending
        if not pending:
            return
        prepared.pending = []
        if prepared.ring is not None:
            self._finish_native(prepared, pending)
            return
        self._timed_launches += len(pending)
        err, = cu.cuEventSynchronize(pending[-1][1][1])
        if err != _OK:
            for timing, ev in pending:
                if cu.cuEventQuery(ev[1])[0] != _OK:
                    check(f"launch of {timing.task}", (err,), timing.task)
            check("cuEventSynchronize", (err,), pending[-1][0].task)
        elapsed = cu.cuEventElapsedTime
        for timing, ev in pending:
            err, ms = elapsed(ev[0], ev[1])
            timing.ms = check("cuEventElapsedTime", (err,), timing.task) if err else ms
        self._events.extend(ev for _, ev in pending)

    def _finish_native(self, prepared: Prepared, pending: list) -> None:
        """The native path's `finish`: one call waits for the last end event and reads every time."""
        ring = prepared.ring
        prepared.ring = None
        n = prepared.native.elapsed(ring.addr, ring.out_addr)
        if n < 0:  # the ring is not reused: its events may be in any state
            call, code = decode(n)
            err = cu.CUresult(code)
            if call == "cuEventSynchronize":
                for i, timing in enumerate(pending):
                    if cu.cuEventQuery(cu.CUevent(ring.handles(i)[1]))[0] != _OK:
                        check(f"launch of {timing.task}", (err,), timing.task)
            check(call, (err,), pending[-1].task)
            raise RuntimeError(f"reading the launch times back: {call}")
        for timing, ms in zip(pending, ring.out[:n].tolist()):
            timing.ms = ms
        self._rings.append(ring)

    def fetch(self, prepared: Prepared, into: dict[str, Any]) -> None:
        waited = bool(prepared.pending)  # the last launch's end event covers all earlier stream work
        self.finish(prepared)
        copied = False
        for k, v in into.items():
            if isinstance(v, np.ndarray) and v.nbytes and v.flags.writeable:  # read-only: the kernel only read it
                ptr, _ = prepared.device[k]
                self.memory.receive(v, ptr)
                copied = True
        if copied or not waited:  # untimed launches fault here: name every task this call ran
            self.ctx.wait(" or ".join(prepared.hot))

    def handoff(self, prepared: Prepared) -> None:
        """An asynchronous script call returns without waiting: instead, each GPU array's producer
        stream waits (on the device) for the kernels just queued (`CudaStreams.signal`)."""
        self.streams.signal(prepared.streams)

    def sync(self) -> None:
        """`qd.sync()`: wait for every kernel queued; a fault in one of them surfaces here."""
        self.ctx.wait("a kernel queued before qd.sync()")
        self.streams.wait_foreign()

    def close(self) -> None:
        try:
            cu.cuStreamSynchronize(self.ctx.stream)
            for ring in self._rings:
                ring.destroy()
            self._rings.clear()
            self.modules.close()
            self.memory.free_all()
            self.ctx.close()
        except Exception:  # noqa: BLE001 - best effort on a possibly poisoned context
            pass


def build_native(backend: CudaBackend) -> NativeLauncher | None:
    """The native launch path, once per backend; None (and `native_error` says why) where it
    cannot be built (it checks itself first) or was turned off (QDEXPLORER_NATIVE_LAUNCH=0); the
    cuda-python path then serves every launch. It is the default since it passed its CUDA tests on
    an H100 (issue 40)."""
    if backend.native is None and not backend.native_error:
        if os.environ.get("QDEXPLORER_NATIVE_LAUNCH", "1") == "0":
            backend.native_error = "turned off (QDEXPLORER_NATIVE_LAUNCH=0)"
        else:
            try:
                native = native_launcher()
                native.self_check(backend.ctx.stream)
                backend.native = native
            except Exception as e:  # noqa: BLE001 - the cuda-python path serves every launch
                backend.native_error = f"{type(e).__name__}: {e}"
    return backend.native
