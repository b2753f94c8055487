"""Kernel parameters: the kernelParams block (void*[]) each launch hands the driver.

A run builds each task's block once per prepared argument set, with a ctypes value per
parameter. Script calls repeat one signature many times, so there each task's block lives in one
buffer kept between calls, and each call packs its values into it with one precompiled struct
(one 8-byte slot per parameter). The driver copies the values at launch, so the next call may
overwrite them.
"""
from __future__ import annotations

import ctypes
import struct
from typing import Any, Callable

import numpy as np
from cuda.bindings import driver as cu

from ...ir.device_array import DeviceArray
from ...machine.launch_spec import LaunchSpec
from ..debug import RECORD_WORDS, check_record, new_record
from .context import CudaContext
from .driver import check
from .launch_state import CudaPrepared
from .memory import CudaMemory

_CT: dict[str, type[ctypes._SimpleCData[Any]]] = {
    "i32": ctypes.c_int32, "i64": ctypes.c_int64, "u32": ctypes.c_uint32, "f32": ctypes.c_float,
    "f64": ctypes.c_double, "i8": ctypes.c_int8, "i16": ctypes.c_int16, "u8": ctypes.c_uint8,
    "u16": ctypes.c_uint16, "u64": ctypes.c_uint64, "u1": ctypes.c_bool}  # u1: an i1 param is one byte (.u8)
_PACK = {"i32": "i4x", "i64": "q", "u32": "I4x", "f32": "f4x", "f64": "d", "i8": "b7x", "i16": "h6x",
         "u8": "B7x", "u16": "H6x", "u64": "Q", "f16": "e6x", "u1": "?7x"}  # one 8-byte slot per kernel parameter
_OK = cu.CUresult.CUDA_SUCCESS

# (address of the void*[] block, what keeps it alive, grid, block)
Params = tuple[int, Any, int, int]


class ParamBlocks:
    def __init__(self, ctx: CudaContext, memory: CudaMemory):
        self.ctx, self.memory = ctx, memory
        self._blocks: dict[str, tuple] = {}   # task -> kernelParams kept between script calls

    def params(self, spec: LaunchSpec, prepared: CudaPrepared) -> Params:
        """The kernelParams block for one task, built once per prepared argument set."""
        cached = prepared.params.get(spec.task)
        if cached is not None:
            return cached
        if prepared.reuse and not spec.debug:
            try:
                return self._packed(spec, prepared)
            except (struct.error, OverflowError):
                pass  # a value outside its type's range: ctypes below wraps it as C would (f32: inf)
        keep: list[ctypes._SimpleCData[Any]] = []
        for slot in spec.args:
            v = prepared.device[slot.name]
            if slot.kind == "array":
                ptr, shape = v
                keep.append(ctypes.c_uint64(int(ptr)))
                keep.extend(ctypes.c_int32(int(s)) for s in shape)
            elif slot.ctype == "f16":  # a .param .b16: the half's bits (ctypes has no half)
                keep.append(ctypes.c_uint16(int(np.array(v, np.float16).view(np.uint16))))
            else:
                keep.append(_CT[slot.ctype](v))
        if spec.debug:  # debug mode: the out-of-bounds record, zeroed for this argument set
            rec = self.memory.run_buffer(("__debug__", spec.task), 8 * RECORD_WORDS)
            check("cuMemsetD8", cu.cuMemsetD8(rec, 0, 8 * RECORD_WORDS))
            keep.append(ctypes.c_uint64(int(rec)))
        arr = (ctypes.c_void_p * max(1, len(keep)))(*[ctypes.addressof(x) for x in keep])
        n = prepared.trips[spec.task]
        entry = (ctypes.addressof(arr), (arr, keep), self.ctx.grid_of(spec, n), spec.block)
        prepared.params[spec.task] = entry
        return entry

    def _packed(self, spec: LaunchSpec, prepared: CudaPrepared) -> Params:
        """Script calls: the task's block lives in one buffer kept between calls, packed with one struct."""
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
        entry = (ctypes.addressof(arr), block, self.ctx.grid_of(spec, prepared.trips[spec.task]), spec.block)
        prepared.params[spec.task] = entry
        return entry

    def quick_launcher(self, spec: LaunchSpec, f: Any, args: dict[str, Any],
                       native: Any = None) -> Callable[..., None]:
        """A script's launcher of entry point `f` for calls of one signature (array ranks fixed): its
        kernelParams live in one buffer made here, and each call packs the values into it with one
        precompiled struct and launches, untimed, on our stream or the one given. Arrays come as
        (pointer, shape). In debug mode each launch is waited for and its out-of-bounds record read
        back, as the checked path's `launch` does. With the native launcher (native_launch.py) the
        launch is one ctypes call on a block of (function, stream, params, grid | block) made once per
        grid and stream, instead of cuda-python's wrapped cuLaunchKernel."""
        task = spec.task
        codes, slots = [], []
        for slot in spec.args:
            if slot.kind == "array":
                rank = len(np.shape(args[slot.name])) if not isinstance(args[slot.name], DeviceArray) \
                    else len(args[slot.name].shape)
                codes.append("Q" + "i4x" * rank)
            else:
                codes.append(_PACK[slot.ctype])
            slots.append((slot.name, slot.kind == "array"))
        rec_dev, rec = None, None
        if spec.debug:  # the record: the entry's last parameter, zeroed until an access fails
            rec_dev = self.memory.run_buffer(("__debug__", task), 8 * RECORD_WORDS)
            check("cuMemsetD8", cu.cuMemsetD8(rec_dev, 0, 8 * RECORD_WORDS))
            codes.append("Q")
            rec = new_record()
        fmt = struct.Struct("<" + "".join(codes))
        buf = ctypes.create_string_buffer(max(8, fmt.size))
        base = ctypes.addressof(buf)
        count = max(1, fmt.size // 8)
        arr = (ctypes.c_void_p * count)(*[base + 8 * i for i in range(count)])
        addr, block, ours = ctypes.addressof(arr), spec.block, self.ctx.stream
        grid_of, keep = self.ctx.grid_of, (buf, arr)
        packed = tuple(slots)
        grids: dict[int, int] = {}  # trip count -> grid: a time-step loop repeats a handful of sizes
        nat = native.launch if native is not None else None
        hots: dict = {}  # (grid, stream) -> (the native launch block, its address)

        def launch(values: dict[str, Any], n: int, stream: Any = None) -> None:
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
            if nat is not None:
                key = grid if stream is None else (grid, int(stream))
                hot = hots.get(key)
                if hot is None:
                    blk = native.hot_block(f, on, addr, grid, block)
                    hot = (blk, blk.ctypes.data)
                    if len(hots) < 64:
                        hots[key] = hot
                code = nat(hot[1])
                if code:
                    check("cuLaunchKernel", (cu.CUresult(code),), task)
            else:
                err, = cu.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, on, addr, 0)
                if err != _OK:
                    check("cuLaunchKernel", (err,), task)
            if rec is not None:
                check("cuMemcpyDtoHAsync", cu.cuMemcpyDtoHAsync(rec.ctypes.data, rec_dev, rec.nbytes, on))
                check("cuStreamSynchronize", cu.cuStreamSynchronize(on), task)
                if rec[0]:
                    failed = rec.copy()
                    rec[:] = 0
                    check("cuMemsetD8", cu.cuMemsetD8(rec_dev, 0, 8 * RECORD_WORDS))
                    check_record(failed, spec, {name: tuple(values[name][1]) for name, is_array in packed if is_array})
        return launch


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
