"""The entry function's signature: how a task's parameters become kernel arguments.

The ABI list is what the launcher packs: every ndarray is a pointer followed by one i32 per
axis; scalars pass by value; a host range_for also takes the `[__lo, __hi)` chunk its caller
hands each thread. CUDA buffers are separate cuMemAlloc allocations, hence `noalias` + align (except for template
parameters a call gives the same array: that specialisation promises nothing).
In debug mode a last pointer argument receives the first out-of-bounds access (see debug_checks).
"""
from __future__ import annotations

from llvmlite import ir as L

from .. import ir
from ..ir.dtypes import DType

NVPTX_TRIPLE = "nvptx64-nvidia-cuda"
NVPTX_LAYOUT = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
I1, I32, I64 = L.IntType(1), L.IntType(32), L.IntType(64)
PTR = L.PointerType()
SHARED_PTR = L.PointerType(addrspace=3)


def lltype(dt: DType):
    if dt.is_float:
        return {16: L.HalfType(), 32: L.FloatType()}.get(dt.bits, L.DoubleType())
    return L.IntType(dt.bits)


def abi_name(dt: DType) -> str:
    return dt.name


class EntrySignature:
    """The task's entry function in `module`, with its arguments bound to parameter names."""

    def __init__(self, module: L.Module, task: ir.Task, nv: bool, debug: bool = False):
        args, self.abi = [], []
        self.half_args: list[str] = []  # host f16 scalars, passed as f32 (the entry rounds them to half)
        for p in task.params:
            if p.kind == "array":
                args.append(PTR)
                self.abi.append((p.name, "ptr"))
                for k in range(p.ndim):
                    args.append(I32)
                    self.abi.append((f"{p.name}.shape[{k}]", "i32"))
            elif not nv and p.dtype.is_float and p.dtype.bits == 16:
                args.append(L.FloatType())  # the host call passes no half (ctypes has none): an f32, narrowed
                self.abi.append((p.name, "f32"))
                self.half_args.append(p.name)
            else:
                args.append(lltype(p.dtype))
                self.abi.append((p.name, abi_name(p.dtype)))
        if not nv and task.type == "range_for":
            args += [I32, I32]
            self.abi += [("__lo", "i32"), ("__hi", "i32")]
        if debug:  # debug mode: where the first out-of-bounds access is recorded (4 x i64, see debug_checks)
            args.append(PTR)
            self.abi.append(("__debug", "ptr"))
        self.fn = L.Function(module, L.FunctionType(L.VoidType(), args), task.name)
        if nv:
            self.fn.calling_convention = "ptx_kernel"
            for a, (name, kind) in zip(self.fn.args, self.abi):
                if kind == "ptr":  # cuMemAlloc buffers are 256-byte aligned
                    if name not in task.may_alias:  # one field given to two template parameters may alias
                        a.add_attribute("noalias")
                    a.attributes.align = 16
        self.arrays: dict = {}  # name -> (pointer, [shape args, or constants where the shape is known])
        self.scalars: dict = {}  # name -> argument
        known = {} if nv else {n: d for n, d in known_shapes(task).items()
                                if any(p.name == n and p.ndim == len(d) for p in task.params)}
        it = iter(self.fn.args)
        for p in task.params:
            a = next(it)
            a.name = p.name
            if p.kind == "array":
                shape = []
                for k in range(p.ndim):
                    s = next(it)
                    s.name = f"{p.name}.shape{k}"
                    shape.append(I32(known[p.name][k]) if p.name in known else s)
                self.arrays[p.name] = (a, shape)
            else:
                self.scalars[p.name] = a
        self.extra = list(it)  # host range_for: (__lo, __hi)
        self.debug_ptr = self.extra.pop() if debug else None


def known_shapes(task: ir.Task) -> dict:
    """The shapes fixed when the task is compiled: its fields' and kernel-scope arrays' (an
    ndarray's, argument or held by a template or dataclass argument, is the call's). Quadrants
    compiles a field's shape into its addresses. With the shape a constant, LLVM's loop vectorizer
    sees a vector field's components as a fixed stride (an interleaved load) where a runtime stride
    made it version the loop on `stride == 1` and run it scalar, and the backend reassociates a sum
    by its loads' address arithmetic as it does for Quadrants (tests/lang/test_field_shape_constants.py).
    The launcher still passes the shape arguments (the ABI is unchanged); the code ignores them.
    Host only for now: CUDA codegen keeps the shape arguments as measured on a GPU."""
    return {a.name: tuple(int(d) for d in a.shape) for a in task.implicit if not a.runtime_shape}
