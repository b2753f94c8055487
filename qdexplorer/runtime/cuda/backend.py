"""CUDA backend: a task's launches on one GPU, timed with events, from small parts with one job each.

The context (`context.py`: the GPU's facts, our stream, the launch grid), the tasks' modules
(`modules.py`), device memory (`memory.py`), the kernel parameters (`params.py`), the interop
with other libraries' streams (`streams.py`) and the launches' timing (`timing.py`: events, the
native timed launch, reading the times back) are each a class of their own; this one prepares a
run's arguments (`launch_state.CudaPrepared`), launches, and waits, as tinygrad's `ops_cuda.py`
does with a few small classes.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable

import numpy as np
from cuda.bindings import driver as cu

from ...ir.device_array import DeviceArray, dense
from ..debug import check_record, new_record
from ..launch import LaunchTiming, fresh_timing
from .context import CudaContext
from .driver import check
from .launch_state import CudaPrepared, HotLaunch
from .memory import CudaMemory
from .modules import CudaModules
from .native_launch import RING, decode
from .params import ParamBlocks
from .streams import CudaStreams, stream_handle
from .timing import LaunchTimer

_record = cu.cuEventRecord


class CudaBackend:
    name = "cuda"

    def __init__(self, device: int = 0):
        self.ctx = CudaContext(device)
        self.modules = CudaModules(self.ctx)
        self.memory = CudaMemory(self.ctx)
        self.streams = CudaStreams(self.ctx)
        self.params = ParamBlocks(self.ctx, self.memory)
        self.timer = LaunchTimer(self.ctx.stream)

    def info(self) -> dict[str, Any]:
        return self.ctx.info()

    def prepare(self, args: dict[str, Any], trips: dict[str, int], in_place: bool = False) -> CudaPrepared:
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
        native = self.timer.native
        if native is None:
            native = self.timer.native_when_due()
        return CudaPrepared(args, dict(trips), reuse=in_place, device=dev, streams=streams, native=native)

    def quick_launcher(self, task: str, args: dict[str, Any]) -> Callable[..., None] | None:
        spec = self.modules.specs[task]
        # a script compiles in this process: LLVM is loaded already, so the native path is due
        native = self.timer.native_when_due(count_launches=False)
        return self.params.quick_launcher(spec, self.modules.composite.function(task), args, native)

    def _hot(self, task: str, prepared: CudaPrepared) -> HotLaunch:
        """Everything a launch of `task` needs, resolved once per prepared argument set (nothing in
        the untimed record is measured, so one serves every untimed launch)."""
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
                hot = HotLaunch(go=None, kernel=spec.kernel, grid=grid, block=block, debug=spec.debug,
                                untimed=untimed, native=partial(nat.launch, at),
                                native_timed=partial(nat.launch_timed, at), block_words=block_words)
            else:
                go = partial(cu.cuLaunchKernel, f, grid, 1, 1, block, 1, 1, 0, self.ctx.stream, addr, 0) if grid else None
                hot = HotLaunch(go=go, kernel=spec.kernel, grid=grid, block=block, debug=spec.debug,
                                untimed=untimed, native=None, native_timed=None, block_words=None)
            prepared.hot[task] = hot
        return hot

    def launch(self, task: str, prepared: CudaPrepared, timed: bool = True) -> LaunchTiming:
        hot = prepared.hot.get(task) or self._hot(task, prepared)
        if not timed:  # the host work of a launch, kept to the bare call (launch_overhead.py)
            nat = hot.native
            if nat is not None:
                err = nat()
                if err:
                    check("cuLaunchKernel", (cu.CUresult(err),), task)
                if hot.debug:
                    self._check_debug(task, prepared)
            else:
                go = hot.go
                if go is not None:
                    err, = go()
                    if err:
                        check("cuLaunchKernel", (err,), task)
                    if hot.debug:
                        self._check_debug(task, prepared)
            return hot.untimed
        timing = fresh_timing(task, hot.kernel, "cuda", hot.grid, hot.block)
        go_timed = hot.native_timed
        if go_timed is not None:  # events, launch, events in one native call; the timer reads the times in `finish`
            ring = prepared.ring
            if ring is None:
                ring = prepared.ring = self.timer.ring()
            n = go_timed(ring.addr)
            if n <= 0:
                call, err = decode(n)
                check(call, (cu.CUresult(err),), task)
                raise RuntimeError(f"timed launch of {task}: {call}")   # not the driver's: a ring overrun
            prepared.pending.append(timing)
            if n >= RING:
                self.finish(prepared)
            if hot.debug:
                self._check_debug(task, prepared)
            return timing
        go = hot.go
        if go is None:
            return timing
        timer = self.timer   # cuda-python records the events: a pair of the timer's, read in `finish`
        pairs = timer.pairs
        ev = pairs.pop() if pairs else timer.event_pair()
        stream = timer.stream
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
        if hot.debug:
            self._check_debug(task, prepared)
        return timing

    def _check_debug(self, task: str, prepared: CudaPrepared) -> None:
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

    def finish(self, prepared: CudaPrepared) -> None:
        """Wait for pending launches; fill each timing from its events (`LaunchTimer.finish`)."""
        if prepared.pending:
            self.timer.finish(prepared)

    def fetch(self, prepared: CudaPrepared, into: dict[str, Any]) -> None:
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

    def handoff(self, prepared: CudaPrepared) -> None:
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
            self.timer.close()
            self.modules.close()
            self.memory.free_all()
            self.ctx.close()
        except Exception:  # noqa: BLE001 - best effort on a possibly poisoned context
            pass
