"""CUDA backend: one CUmodule per task (driver JIT of PTX, no toolkit), timed launches.

Assembly modes (see docs/assembly_modes.md): per_task (B) loads one PTX module per task behind
the composite; whole loads one PTX module per kernel; culink (A) links a kernel's relocatable
cubins (ptxas, offline) into one module with cuLink (`load_linked`, `culink.py`).

Launch configuration follows Quadrants: `LaunchSpec.block` threads per block (block_dim from
`qd.loop_config`, or 128); a range task gets min(ceil(n / block), saturating grid) blocks, where
the saturating grid is SM count × max resident blocks per SM × 2, and the task itself
grid-strides; serial tasks 1×1.
"""
from __future__ import annotations

import ctypes
import re
import struct
from typing import Any

import numpy as np
from cuda.bindings import driver as cu

from ...lang.device_array import NO_STREAM, DeviceArray
from ..backend import Prepared
from ..debug import RECORD_WORDS, check_record, new_record
from ...machine.launch_spec import LaunchSpec
from ..launch import LaunchTiming
from .composite import CompositeModule
from .culink import link_cubins
from .driver import CudaError, check

_CT: dict[str, type[ctypes._SimpleCData[Any]]] = {"i32": ctypes.c_int32, "i64": ctypes.c_int64, "u32": ctypes.c_uint32, "f32": ctypes.c_float,
       "f64": ctypes.c_double, "i8": ctypes.c_int8, "i16": ctypes.c_int16, "u8": ctypes.c_uint8,
       "u16": ctypes.c_uint16, "u64": ctypes.c_uint64}
LOG_SIZE = 1 << 16
_PACK = {"i32": "i4x", "i64": "q", "u32": "I4x", "f32": "f4x", "f64": "d", "i8": "b7x", "i16": "h6x",
         "u8": "B7x", "u16": "H6x", "u64": "Q"}  # one 8-byte slot per kernel parameter
_OK = cu.CUresult.CUDA_SUCCESS
_LEGACY_STREAM = 1  # CU_STREAM_LEGACY: the implicit default stream PyTorch and CuPy use by default


class CudaBackend:
    name = "cuda"

    def __init__(self, device: int = 0):
        check("cuInit", cu.cuInit(0))
        self.dev = check("cuDeviceGet", cu.cuDeviceGet(device))
        self.ctx = check("cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(self.dev))
        check("cuCtxSetCurrent", cu.cuCtxSetCurrent(self.ctx))
        A = cu.CUdevice_attribute
        attr = lambda a: check("cuDeviceGetAttribute", cu.cuDeviceGetAttribute(a, self.dev))  # noqa: E731
        self.sm_count = attr(A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        self.max_blocks_per_sm = attr(A.CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)
        self.max_threads_per_sm = attr(A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
        self.cc = (attr(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                   attr(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
        self.saturating_grid = self.sm_count * self.max_blocks_per_sm * 2
        self.l2_bytes = attr(A.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
        self._scrub: tuple[Any, int] | None = None  # (CUdeviceptr, bytes): written before a timed launch to evict L2
        self.stream = check("cuStreamCreate", cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
        self.composite = CompositeModule()
        self.specs: dict[str, LaunchSpec] = {}
        self.units: dict[str, tuple[str, str]] = {}   # unit -> (tag, ptx hash) of what is loaded
        self.task_unit: dict[str, str] = {}
        self.logs: dict[str, str] = {}
        self.cubins: dict[str, dict[str, bytes]] = {}  # culink unit -> task -> relocatable cubin
        self.linked_bytes: dict[str, int] = {}
        self._events: list = []
        self._alloc: dict = {}  # (name, nbytes) -> CUdeviceptr, reused across runs
        self._buffers: set[int] = set()  # device copies of qd.ndarrays / fields (alloc_buffer)
        self._order_event = None          # orders our stream after a GPU array's producer
        self._blocks: dict = {}           # task -> kernelParams kept between script calls
        self._handoff_event = None        # orders the arrays' producers after an async call
        self._foreign: dict = {}          # stream handle -> CUstream: GPU arrays' streams scripts launch on
        self.foreign_pending = False      # a script launched on one of them since the last qd.sync()
        self.transfers = {"htod": 0, "dtoh": 0}  # bytes copied, so tests can see what stays resident
        self.name_str = check("cuDeviceGetName", cu.cuDeviceGetName(256, self.dev)).split(b"\0")[0].decode()

    def info(self) -> dict[str, Any]:
        return {"backend": "cuda", "device": self.name_str, "arch": f"sm_{self.cc[0]}{self.cc[1]}",
                "sm_count": self.sm_count, "max_blocks_per_sm": self.max_blocks_per_sm,
                "saturating_grid": self.saturating_grid}

    # ---- modules
    def make_current(self) -> None:
        """A CUDA context is current per thread: a caller that uses this backend from a thread other
        than the one that made it (a threaded Ray actor) binds it there first."""
        check("cuCtxSetCurrent", cu.cuCtxSetCurrent(self.ctx))

    def load(self, spec: LaunchSpec, ptx: bytes, tag: str = "", unit: str = "") -> None:
        unit = unit or spec.task
        if self.units.get(unit, (None,))[0] != tag or unit not in self.composite.modules:
            mod, log = self.load_ptx(ptx, spec.task)
            entries = {spec.task} if unit == spec.task else _entries(ptx)
            self.composite.replace(unit, mod, entries)
            self.units[unit] = (tag, "")
            self.logs[spec.task] = log
        self.specs[spec.task] = spec
        self.task_unit[spec.task] = unit
        self.composite.function(spec.task)  # resolve now, so a missing entry fails at load

    def load_linked(self, unit: str, items: list[tuple[LaunchSpec, bytes, str]]) -> None:
        """Assembly mode culink: (re)link `unit` from its tasks' relocatable cubins into one module.

        `items` are the tasks whose cubin is new; the unit's other tasks keep theirs, so a
        one-task edit relinks the kernel from cubins already here (no ptxas, no JIT)."""
        parts = dict(self.cubins.get(unit, {}))
        for spec, cubin, _tag in items:
            parts[spec.task] = cubin
        mod, log, nbytes = link_cubins(sorted(parts.items()))  # a failed link keeps the previous module
        self.cubins[unit] = parts
        self.composite.replace(unit, mod, set(parts))
        self.units[unit] = (",".join(tag for _, _, tag in items), "")
        self.linked_bytes[unit] = nbytes
        for spec, _cubin, _tag in items:
            self.specs[spec.task] = spec
            self.task_unit[spec.task] = unit
            self.logs[spec.task] = log
        for spec, _cubin, _tag in items:
            self.composite.function(spec.task)  # resolve now, so a missing entry fails at load

    def load_ptx(self, ptx: bytes, task: str = ""):
        """cuModuleLoadDataEx with the JIT info and error logs captured."""
        data = ptx.replace(b"\x00", b"") + b"\x00"
        info, err_log = bytearray(LOG_SIZE), bytearray(LOG_SIZE)
        O = cu.CUjit_option
        opts = [O.CU_JIT_INFO_LOG_BUFFER, O.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, O.CU_JIT_ERROR_LOG_BUFFER,
                O.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, O.CU_JIT_LOG_VERBOSE]
        vals = [info, LOG_SIZE, err_log, LOG_SIZE, 1]
        err, mod = cu.cuModuleLoadDataEx(data, len(opts), opts, vals)
        text = lambda b: bytes(b).split(b"\0")[0].decode(errors="replace").strip()  # noqa: E731
        if err != cu.CUresult.CUDA_SUCCESS:
            raise CudaError("cuModuleLoadDataEx", err, text(err_log) or text(info))
        return mod, text(info)

    def loaded(self, task: str) -> bool:
        return task in self.specs and task in self.composite

    def unload(self, task: str) -> None:
        unit = self.task_unit.pop(task, None)
        self.specs.pop(task, None)
        self._blocks.pop(task, None)
        if unit is not None:
            self.cubins.get(unit, {}).pop(task, None)
        if unit is not None and unit not in self.task_unit.values():
            self.composite.remove(unit)
            self.units.pop(unit, None)
            self.cubins.pop(unit, None)

    def resources(self, task: str) -> dict[str, Any]:
        f = self.composite.function(task)
        A = cu.CUfunction_attribute
        g = lambda a: check("cuFuncGetAttribute", cu.cuFuncGetAttribute(a, f))  # noqa: E731
        spec = self.specs[task]
        block = spec.block
        active = check("cuOccupancyMaxActiveBlocksPerMultiprocessor",
                       cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(f, block, 0))
        return {"registers": g(A.CU_FUNC_ATTRIBUTE_NUM_REGS),
                "static_shared_bytes": g(A.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
                "local_bytes": g(A.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
                "max_threads_per_block": g(A.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
                "block": block, "active_blocks_per_sm": active,
                "occupancy": round(active * block / self.max_threads_per_sm, 4),
                "jit_log": self.logs.get(task, "")}

    # ---- launch configuration
    def grid_of(self, spec: LaunchSpec, n: int) -> int:
        if spec.serial:
            return 1
        block = spec.block
        threads = -(-n // max(1, spec.vector))
        cap = self.saturating_grid
        if spec.one_wave:  # each block flushes its private copy once: the fewer blocks, the fewer flushes
            cap = min(cap, self.sm_count * max(1, self.max_threads_per_sm // block))
        return max(0, min(-(-threads // block), cap))

    # ---- arguments
    def prepare(self, args: dict[str, Any], trips: dict[str, int], in_place: bool = False) -> Prepared:
        """Copy host arrays to device buffers (reused across runs of the same shapes); GPU arrays
        (DeviceArray: CUDA tensors, qd.ndarray device copies) are passed by pointer, after the
        work their producer queued on its own stream."""
        dev, copied, streams = {}, False, set()
        for k, v in args.items():
            if isinstance(v, DeviceArray):
                handle = _stream_handle(v.stream)
                if handle is not None and handle not in streams:  # one wait per producer stream
                    streams.add(handle)
                    self._after_producer(handle)
                dev[k] = (v.ptr, v.shape)
            elif isinstance(v, np.ndarray):
                if not v.flags.c_contiguous:
                    raise ValueError(f"argument '{k}' must be a C-contiguous array")
                key = (k, v.nbytes)
                ptr = self._alloc.get(key)
                if ptr is None:
                    ptr = check("cuMemAlloc", cu.cuMemAlloc(max(1, v.nbytes)))
                    self._alloc[key] = ptr
                if v.nbytes:
                    check("cuMemcpyHtoDAsync", cu.cuMemcpyHtoDAsync(ptr, v.ctypes.data, v.nbytes, self.stream))
                    self.transfers["htod"] += v.nbytes
                    copied = True
                dev[k] = (ptr, v.shape)
            else:
                dev[k] = v
        if copied:  # the host arrays may change once we return
            check("cuStreamSynchronize", cu.cuStreamSynchronize(self.stream))
        return Prepared(args, dict(trips), dev, reuse=in_place, streams=streams)

    def _after_producer(self, handle: int):
        """Order our stream after the GPU array's producer stream without blocking the host. Our
        stream is non-blocking, so without this wait a kernel could read a tensor before the op that
        fills it ran."""
        if self._order_event is None:
            self._order_event = check("cuEventCreate", cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING))
        check("cuEventRecord", cu.cuEventRecord(self._order_event, cu.CUstream(handle)))
        check("cuStreamWaitEvent", cu.cuStreamWaitEvent(self.stream, self._order_event, 0))

    # ---- buffers that outlive one call: the device copies of qd.ndarrays and fields (scripts)
    def alloc_buffer(self, nbytes: int) -> int:
        ptr = check("cuMemAlloc", cu.cuMemAlloc(max(1, nbytes)))
        self._buffers.add(int(ptr))
        return int(ptr)

    def free_buffer(self, ptr: int) -> None:
        if ptr in self._buffers:  # after close() the context is gone and so is the buffer
            self._buffers.discard(ptr)
            cu.cuMemFree(cu.CUdeviceptr(ptr))

    def copy_in(self, ptr: int, host: np.ndarray) -> None:
        if host.nbytes:
            check("cuMemcpyHtoDAsync", cu.cuMemcpyHtoDAsync(ptr, host.ctypes.data, host.nbytes, self.stream))
            check("cuStreamSynchronize", cu.cuStreamSynchronize(self.stream))
            self.transfers["htod"] += host.nbytes

    def copy_out(self, host: np.ndarray, ptr: int) -> None:
        if host.nbytes:
            check("cuMemcpyDtoHAsync", cu.cuMemcpyDtoHAsync(host.ctypes.data, ptr, host.nbytes, self.stream))
            check("cuStreamSynchronize", cu.cuStreamSynchronize(self.stream))
            self.transfers["dtoh"] += host.nbytes

    def memset(self, ptr: int, pattern: int, itemsize: int, count: int) -> None:
        """Fill `count` elements of 1, 2 or 4 bytes with `pattern` on the device (no transfer)."""
        fn = {1: cu.cuMemsetD8Async, 2: cu.cuMemsetD16Async, 4: cu.cuMemsetD32Async}[itemsize]
        check("cuMemset", fn(ptr, pattern, count, self.stream))
        check("cuStreamSynchronize", cu.cuStreamSynchronize(self.stream))

    def params(self, spec: LaunchSpec, prepared: Prepared):
        """The kernelParams block (void*[]) for one task, built once per prepared argument set."""
        cached = prepared.params.get(spec.task)
        if cached is not None:
            return cached
        if prepared.reuse and not spec.debug:
            try:
                return self._packed_params(spec, prepared)
            except (struct.error, OverflowError):
                pass  # a value outside its type's range: ctypes below wraps it as C would (f32: inf)
        keep: list[ctypes._SimpleCData[Any]] = []
        for slot in spec.args:
            v = prepared.device[slot.name]
            if slot.kind == "array":
                ptr, shape = v
                keep.append(ctypes.c_uint64(int(ptr)))
                keep.extend(ctypes.c_int32(int(s)) for s in shape)
            else:
                keep.append(_CT[slot.ctype](v))
        if spec.debug:  # debug mode: the out-of-bounds record, zeroed for this argument set
            key = ("__debug__", spec.task)
            rec = self._alloc.get(key)
            if rec is None:
                rec = self._alloc[key] = check("cuMemAlloc", cu.cuMemAlloc(8 * RECORD_WORDS))
            check("cuMemsetD8", cu.cuMemsetD8(rec, 0, 8 * RECORD_WORDS))
            keep.append(ctypes.c_uint64(int(rec)))
        arr = (ctypes.c_void_p * max(1, len(keep)))(*[ctypes.addressof(x) for x in keep])
        n = prepared.trips[spec.task]
        entry = (ctypes.addressof(arr), (arr, keep), self.grid_of(spec, n), spec.block)
        prepared.params[spec.task] = entry
        return entry

    def _packed_params(self, spec: LaunchSpec, prepared: Prepared):
        """Script calls: the task's kernelParams live in one buffer kept between calls, and each call
        packs its values into it with one precompiled struct (one 8-byte slot per parameter), rather
        than making a ctypes object per parameter. The driver copies the values at launch, so the
        next call may overwrite them."""
        codes, values = [], []
        for slot in spec.args:
            v = prepared.device[slot.name]
            if slot.kind == "array":
                ptr, shape = v
                codes.append("Q")
                values.append(int(ptr))
                codes.extend("i4x" for _ in shape)
                values.extend(int(x) for x in shape)
            else:
                codes.append(_PACK[slot.ctype])
                values.append(v)
        layout = tuple(codes)
        block = self._blocks.get(spec.task)
        if block is None or block[0] != layout:
            fmt = struct.Struct("<" + "".join(layout))
            buf = ctypes.create_string_buffer(max(8, fmt.size))
            base = ctypes.addressof(buf)
            arr = (ctypes.c_void_p * max(1, len(layout)))(*[base + 8 * i for i in range(len(layout))])
            block = self._blocks[spec.task] = (layout, fmt, buf, arr)
        _, fmt, buf, arr = block
        fmt.pack_into(buf, 0, *values)
        entry = (ctypes.addressof(arr), block, self.grid_of(spec, prepared.trips[spec.task]), spec.block)
        prepared.params[spec.task] = entry
        return entry

    def quick_launcher(self, task: str, args: dict[str, Any]):
        """A script's launcher of `task` for calls of one signature (array ranks fixed): its
        kernelParams live in one buffer made here, and each call packs the values into it with one
        precompiled struct and launches, untimed, on our stream. Arrays come as (pointer, shape).
        The driver copies the parameters at launch, so the next call may overwrite them."""
        spec = self.specs[task]
        codes, slots = [], []
        for slot in spec.args:
            if slot.kind == "array":
                rank = len(np.shape(args[slot.name])) if not isinstance(args[slot.name], DeviceArray) \
                    else len(args[slot.name].shape)
                codes.append("Q" + "i4x" * rank)
            else:
                codes.append(_PACK[slot.ctype])
            slots.append((slot.name, slot.kind == "array"))
        rec_dev = rec = None
        if spec.debug:  # the out-of-bounds record: the entry's last parameter, read back after each launch
            key = ("__debug__", task)
            rec_dev = self._alloc.get(key)
            if rec_dev is None:
                rec_dev = self._alloc[key] = check("cuMemAlloc", cu.cuMemAlloc(8 * RECORD_WORDS))
            check("cuMemsetD8", cu.cuMemsetD8(rec_dev, 0, 8 * RECORD_WORDS))
            codes.append("Q")
            rec = new_record()
        fmt = struct.Struct("<" + "".join(codes))
        buf = ctypes.create_string_buffer(max(8, fmt.size))
        base = ctypes.addressof(buf)
        count = max(1, fmt.size // 8)
        arr = (ctypes.c_void_p * count)(*[base + 8 * i for i in range(count)])
        addr, f, block, ours = ctypes.addressof(arr), self.composite.function(task), spec.block, self.stream
        grid_of, keep = self.grid_of, (buf, arr)
        packed = tuple(slots)
        grids: dict[int, int] = {}  # trip count -> grid: a time-step loop repeats a handful of sizes

        def launch(values: dict[str, Any], n: int, stream=None) -> None:
            vals: list = []
            for name, is_array in packed:
                v = values[name]
                if is_array:
                    vals.append(v[0])
                    vals.extend(v[1])
                else:
                    vals.append(v)
            if rec_dev is not None:
                vals.append(int(rec_dev))
            try:
                fmt.pack_into(keep[0], 0, *vals)
            except (struct.error, OverflowError):  # outside the type's range: wrap as C would
                fmt.pack_into(keep[0], 0, *_wrapped(codes, vals))
            grid = grids.get(n)
            if grid is None:
                grid = grid_of(spec, n)
                if len(grids) < 64:
                    grids[n] = grid
            if grid == 0:
                return
            on = ours if stream is None else stream
            err, = cu.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, on, addr, 0)
            if err != _OK:
                check("cuLaunchKernel", (err,), task)
            if rec is not None:  # debug mode: wait for the launch and read its record, as launch() does
                check("cuMemcpyDtoHAsync", cu.cuMemcpyDtoHAsync(rec.ctypes.data, rec_dev, rec.nbytes, on))
                check("cuStreamSynchronize", cu.cuStreamSynchronize(on), task)
                if rec[0]:
                    failed = rec.copy()
                    rec[:] = 0
                    check("cuMemsetD8", cu.cuMemsetD8(rec_dev, 0, 8 * RECORD_WORDS))
                    check_record(failed, spec, {name: tuple(values[name][1]) for name, is_array in packed if is_array})
        return launch

    def producer_stream(self, arrays) -> Any:
        """The one stream every GPU array names, to launch on it directly (as Triton launches on
        PyTorch's current stream): the kernels are then ordered after the arrays' producers and
        before their next consumers with no event between streams, which costs a few microseconds
        of host and device time per call. None when the arrays name no stream or several: then
        our stream, ordered by events (`order_after`, `signal`)."""
        handle = None
        for v in arrays:
            h = _stream_handle(v.stream)
            if h is None or (handle is not None and h != handle):
                return None
            handle = h
        st = self._foreign.get(handle)
        if st is None:
            if len(self._foreign) > 64:
                self._foreign.clear()
            st = self._foreign[handle] = cu.CUstream(handle)
        self.foreign_pending = True
        return st

    def order_after(self, arrays: list) -> set:
        """Our stream after each GPU array's producer stream (one wait per stream); the streams,
        for `signal` once the launches are queued."""
        streams: set = set()
        for v in arrays:
            handle = _stream_handle(v.stream)
            if handle is not None and handle not in streams:
                streams.add(handle)
                self._after_producer(handle)
        return streams

    def signal(self, streams: set) -> None:
        """The producer streams wait (on the device) for what we just queued: see `handoff`."""
        if streams:
            self.handoff(Prepared({}, {}, streams=streams))

    def _event_pair(self):
        mk = lambda: check("cuEventCreate", cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DEFAULT))  # noqa: E731
        return mk(), mk()

    def _hot(self, task: str, prepared: Prepared):
        """Everything a launch of `task` needs, resolved once per prepared argument set: the kernel's
        name, function, parameter buffer, grid, block, debug flag, and the record every untimed launch
        returns (nothing in it is measured, so one serves them all)."""
        hot = prepared.hot.get(task)
        if hot is None:
            spec = self.specs[task]
            f = self.composite.function(task)
            addr, _, grid, block = self.params(spec, prepared)
            hot = prepared.hot[task] = (spec.kernel, f, addr, grid, block, spec.debug,
                                        LaunchTiming(task, spec.kernel, "cuda", 0.0, grid, block))
        return hot

    def launch(self, task: str, prepared: Prepared, timed: bool = True) -> LaunchTiming:
        hot = prepared.hot.get(task) or self._hot(task, prepared)
        if not timed:  # the host work of a launch, kept to the bare call (launch_overhead.py)
            if hot[3]:
                err, = cu.cuLaunchKernel(hot[1], hot[3], 1, 1, hot[4], 1, 1, 0, self.stream, hot[2], 0)
                if err != _OK:
                    check("cuLaunchKernel", (err,), task)
                if hot[5]:
                    self._check_debug(task, prepared)
            return hot[6]
        kernel, f, addr, grid, block, debug, _ = hot
        timing = LaunchTiming(task, kernel, "cuda", 0.0, grid, block)
        if grid == 0:
            return timing
        stream = self.stream
        ev = self._events.pop() if self._events else self._event_pair()
        err_a, = cu.cuEventRecord(ev[0], stream)
        err, = cu.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, stream, addr, 0)
        err_b, = cu.cuEventRecord(ev[1], stream)
        if err != _OK:
            check("cuLaunchKernel", (err,), task)
        if err_a != _OK or err_b != _OK:
            check("cuEventRecord", (err_a if err_a != _OK else err_b,), task)
        pending = prepared.pending
        pending.append((timing, ev))
        if len(pending) >= 1024:
            self.finish(prepared)
        if debug:
            self._check_debug(task, prepared)
        return timing

    def _check_debug(self, task: str, prepared: Prepared):
        """Debug mode: wait for the launch and raise OutOfBounds if it recorded a bad access."""
        self.finish(prepared)
        rec = new_record()
        # on our own stream, then wait: an untimed launch left no event to wait on, and a plain
        # cuMemcpyDtoH (legacy stream) is not ordered after our non-blocking stream's kernel
        check("cuMemcpyDtoHAsync", cu.cuMemcpyDtoHAsync(rec.ctypes.data, self._alloc[("__debug__", task)],
                                                        rec.nbytes, self.stream))
        check("cuStreamSynchronize", cu.cuStreamSynchronize(self.stream), task)
        check_record(rec, self.specs[task], {k: tuple(v.shape) for k, v in prepared.host.items()
                                             if isinstance(v, (np.ndarray, DeviceArray))})

    def flush_caches(self) -> None:
        """Evict L2 before the next launch, as Nsight Compute does by default: write a buffer twice
        its size on the launch stream. It runs before the launch's start event, so it is not timed."""
        if self._scrub is None:
            size = max(1 << 20, 2 * self.l2_bytes)
            self._scrub = (check("cuMemAlloc", cu.cuMemAlloc(size)), size)
        ptr, n = self._scrub
        check("cuMemsetD32Async", cu.cuMemsetD32Async(ptr, 0, n // 4, self.stream))

    def finish(self, prepared: Prepared) -> None:
        """Wait for pending launches; fill each timing from its events; pin a fault on its task.

        Events on one stream complete in order, so one wait on the last covers them all; on an
        error the first event that did not complete names the task that faulted.
        """
        pending = prepared.pending
        if not pending:
            return
        prepared.pending = []
        err, = cu.cuEventSynchronize(pending[-1][1][1])
        if err != _OK:
            for timing, ev in pending:
                if cu.cuEventQuery(ev[1])[0] != _OK:
                    check(f"launch of {timing.task}", (err,), timing.task)
            check("cuEventSynchronize", (err,), pending[-1][0].task)
        for timing, ev in pending:
            err, ms = cu.cuEventElapsedTime(ev[0], ev[1])
            timing.ms = ms if err == _OK else check("cuEventElapsedTime", (err,), timing.task)
        self._events.extend(ev for _, ev in pending)

    def fetch(self, prepared: Prepared, into: dict[str, Any]) -> None:
        waited = bool(prepared.pending)  # the last launch's end event covers all earlier stream work
        self.finish(prepared)
        copied = False
        for k, v in into.items():
            if isinstance(v, np.ndarray) and v.nbytes and v.flags.writeable:  # read-only: the kernel only read it
                ptr, _ = prepared.device[k]
                check("cuMemcpyDtoHAsync", cu.cuMemcpyDtoHAsync(v.ctypes.data, ptr, v.nbytes, self.stream))
                self.transfers["dtoh"] += v.nbytes
                copied = True
        if copied or not waited:  # untimed launches fault here: name every task this call ran
            check("cuStreamSynchronize", cu.cuStreamSynchronize(self.stream), " or ".join(prepared.hot))

    def release(self, prepared: Prepared) -> None:
        self.finish(prepared)  # device buffers stay allocated for the next run of the same shapes

    def handoff(self, prepared: Prepared) -> None:
        """An asynchronous script call returns without waiting: instead, each GPU array's producer
        stream waits (on the device) for the kernels just queued, so the next PyTorch or CuPy op on
        those arrays reads what they wrote. qd.ndarrays and fields need nothing: every copy to or
        from them runs on our stream, after the kernels."""
        if not prepared.streams:
            return
        if self._handoff_event is None:
            self._handoff_event = check("cuEventCreate", cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING))
        check("cuEventRecord", cu.cuEventRecord(self._handoff_event, self.stream))
        for handle in prepared.streams:
            check("cuStreamWaitEvent", cu.cuStreamWaitEvent(cu.CUstream(handle), self._handoff_event, 0))

    def sync(self) -> None:
        """`qd.sync()`: wait for every kernel queued; a fault in one of them surfaces here."""
        check("cuStreamSynchronize", cu.cuStreamSynchronize(self.stream), "a kernel queued before qd.sync()")
        if self.foreign_pending:  # kernels queued on GPU arrays' own streams (`producer_stream`), which
            # their owner may have destroyed since: wait for the whole context instead of naming them
            check("cuCtxSynchronize", cu.cuCtxSynchronize(), "a kernel queued before qd.sync()")
            self.foreign_pending = False

    def free_all(self) -> None:
        for ptr in self._alloc.values():
            cu.cuMemFree(ptr)
        self._alloc.clear()
        for ptr in list(self._buffers):
            self.free_buffer(ptr)
        if self._scrub is not None:
            cu.cuMemFree(self._scrub[0])
            self._scrub = None

    def close(self) -> None:
        try:
            cu.cuStreamSynchronize(self.stream)
            self.composite.close()
            self.free_all()
            cu.cuDevicePrimaryCtxRelease(self.dev)
        except Exception:  # noqa: BLE001 - best effort on a possibly poisoned context
            pass


def _stream_handle(stream) -> int | None:
    """The producer stream a GPU array names: `__cuda_array_interface__` v3 gives one (None: no
    ordering needed); an older interface (PyTorch's v2) gives none, so the legacy default stream,
    where PyTorch and CuPy queue work unless told otherwise."""
    if stream is None:
        return None
    return _LEGACY_STREAM if stream is NO_STREAM else int(stream)


def _wrapped(codes: list, vals: list) -> list:
    """Scalar values as C would pass them when one does not fit its slot (an f32 overflowing to
    inf, an integer wrapping): through the ctypes type of each slot."""
    out, k = [], 0
    for code in codes:
        if code.startswith("Q"):  # an array: pointer and shape, in range by construction
            rank = (len(code) - 1) // 3
            out.extend(vals[k:k + 1 + rank])
            k += 1 + rank
            continue
        ct = {v: c for c, v in _PACK.items()}[code]
        out.append(_CT[ct](vals[k]).value)
        k += 1
    return out


def _entries(ptx: bytes) -> set[str]:
    return {m.decode() for m in re.findall(rb"\.entry\s+([A-Za-z_$][\w$]*)", ptx)}
