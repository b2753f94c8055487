"""Arrays that already live in GPU memory, passed to kernels by pointer instead of copied.

Quadrants users hand kernels PyTorch tensors (and CuPy arrays) that sit on the GPU; copying them
to the host and back on every call would cost more than most kernels. Such objects publish
`__cuda_array_interface__` (pointer, shape, dtype, strides, stream), which is all a launch needs.
The same descriptor carries the device copy of a `qd.ndarray` or field while scripts run on
CUDA. Which backend may take a `DeviceArray` is decided above the language: the CPU backend
refuses it with the fix named (`arg_check`).
"""
from __future__ import annotations

import math
import sys

import numpy as np

NO_STREAM = object()  # the interface did not say (version < 3): order after the legacy default stream


class DeviceArray:
    """A C-contiguous array in device memory: a pointer with the metadata a kernel's ABI needs."""

    __slots__ = ("ptr", "shape", "dtype", "elem_shape", "stream", "owner", "source")

    def __init__(self, ptr: int, shape: tuple, dtype, elem_shape: tuple = (), stream=None, owner=None,
                 source: str = ""):
        self.ptr, self.shape, self.dtype = int(ptr), tuple(int(s) for s in shape), np.dtype(dtype)
        self.elem_shape, self.stream, self.owner, self.source = tuple(elem_shape), stream, owner, source

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def __repr__(self) -> str:
        return f"<DeviceArray {self.source or 'cuda'} {self.dtype} {self.shape} at {self.ptr:#x}>"


def cuda_interface(v) -> dict | None:
    """The object's `__cuda_array_interface__`, or None if it is not a GPU array.

    PyTorch will not answer for a tensor that requires grad; Quadrants still takes such tensors
    (a kernel inside a custom `torch.autograd.Function` writes them in place), so we read the
    interface of its detached view, which is the same memory."""
    try:
        return getattr(v, "__cuda_array_interface__", None)
    except AttributeError:   # PyTorch: a CPU tensor has no CUDA interface
        return None
    except RuntimeError as e:
        if getattr(v, "requires_grad", False) and hasattr(v, "detach"):
            return v.detach().__cuda_array_interface__
        raise TypeError(f"{type(v).__name__} cannot be passed by pointer: {e}") from None


def from_cuda_interface(v, iface: dict) -> DeviceArray:
    """A DeviceArray over `v`'s memory; TypeError (with the fix) for what a kernel cannot index."""
    kind = type(v).__module__.split(".")[0] + "." + type(v).__name__
    try:
        dtype = np.dtype(iface["typestr"])
    except TypeError:
        raise TypeError(f"a {kind} of type {iface['typestr']!r} has no kernel dtype") from None
    shape = tuple(int(s) for s in iface["shape"])
    strides = iface.get("strides")
    if strides is not None and not _is_c_contiguous(shape, tuple(strides), dtype.itemsize):
        raise TypeError(f"a {kind} with strides {tuple(strides)} (shape {shape}) is not C-contiguous; pass "
                        f"a contiguous copy (tensor.contiguous(), cupy.ascontiguousarray(a))")
    ptr, _readonly = iface["data"]
    stream = iface["stream"] if "stream" in iface else NO_STREAM
    return DeviceArray(ptr or 0, shape, dtype, getattr(v, "elem_shape", ()), stream, owner=v, source=kind)


def _is_c_contiguous(shape: tuple, strides: tuple, itemsize: int) -> bool:
    """Row-major without gaps; a size-1 axis may carry any stride, as NumPy's flags allow."""
    if 0 in shape:
        return True
    step = itemsize
    for n, st in zip(reversed(shape), reversed(strides)):
        if n != 1 and st != step:
            return False
        step *= n
    return True


def _torch_tensor(v) -> DeviceArray | None:
    """A CUDA PyTorch tensor read through its own C accessors: PyTorch builds its
    `__cuda_array_interface__` in Python (about 10 µs a tensor, on every kernel call), and that
    interface names no stream, while the tensor's current stream is what its producer used."""
    import torch  # already loaded (a torch.Tensor came in): a lookup, not an import
    if not v.is_cuda:
        return None
    dtype = _TORCH_DTYPES.get(v.dtype)
    if dtype is None:
        raise TypeError(f"a torch.Tensor of {v.dtype} has no kernel dtype")
    if not v.is_contiguous():
        raise TypeError(f"a torch.Tensor with strides {tuple(v.stride())} (shape {tuple(v.shape)}) is not "
                        f"C-contiguous; pass a contiguous copy (tensor.contiguous())")
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # what Triton uses: ~0.2 µs, not ~7
    stream = raw(v.get_device()) if raw is not None else torch.cuda.current_stream(v.device).cuda_stream
    d = _new(DeviceArray)  # PyTorch's values are already ints and dtype a NumPy dtype: no conversions
    d.ptr, d.shape, d.dtype, d.elem_shape, d.stream, d.owner, d.source = \
        v.data_ptr(), tuple(v.shape), dtype, (), stream, v, "torch.Tensor"
    return d


_new = object.__new__


_TORCH_DTYPES: dict = {}


def _torch_dtypes() -> dict:
    import torch  # already loaded (a torch.Tensor came in): a lookup, not an import
    names = {"float16": "f2", "float32": "f4", "float64": "f8", "int8": "i1", "int16": "i2", "int32": "i4",
             "int64": "i8", "uint8": "u1", "uint16": "u2", "uint32": "u4", "uint64": "u8", "bool": "?"}
    return {getattr(torch, k): np.dtype(v) for k, v in names.items() if hasattr(torch, k)}


def device_array_of(v) -> DeviceArray | None:
    """`v` as a DeviceArray if it is a GPU array (PyTorch CUDA tensor, CuPy array, ...), else None."""
    if isinstance(v, DeviceArray):
        return v
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(v, torch.Tensor):
        if not _TORCH_DTYPES:
            _TORCH_DTYPES.update(_torch_dtypes())
        return _torch_tensor(v)
    iface = cuda_interface(v)
    return None if iface is None else from_cuda_interface(v, iface)


def dense(v: np.ndarray) -> bool:
    """Whether `v` is C-contiguous, or a transposed view of a C-contiguous array: the storage of a
    field nested out of axis order (lang/snode.py), which kernels index in its memory order."""
    if v.flags.c_contiguous:
        return True
    if any(s < 0 for s in v.strides):
        return False
    return v.transpose(np.argsort(v.strides, kind="stable")[::-1]).flags.c_contiguous
