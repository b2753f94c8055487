"""Quadrants' adaptive adstack (`ad_stack_size=0`, the default) sizes each stack from the loop's trip
count, so a long loop never overflows it. Here a stack whose loop has constant bounds gets exactly its
trip count (lang/autodiff/reverse.py) and any other starts at `runtime_api.ADSTACK_DEFAULT_SIZE`; when a call of such a
gradient kernel overflows, the gradients it wrote are put back as they were before the call and it
runs again with stacks eight times larger, as long as one thread's stacks stay within
`MAX_THREAD_BYTES` (past that the overflow is the call's error, naming `qd.init(ad_stack_size=N)`).
The copy costs one pass over the gradients per call, so on the CPU only; on CUDA an overflow raises."""
from __future__ import annotations

from . import reverse as autodiff
from ... import ir
from ..calls import runtime_api
from ..field import Field
from .adjoints import gradient_of

MAX_THREAD_BYTES = 1 << 22  # 4 MiB of stacks per thread: far below a CPU worker thread's 8 MiB stack
GROWTH = 8


def _stack_bytes(tasks: list) -> int:
    """The most stack memory one thread of these tasks holds."""
    most = 0
    for t in tasks:
        seen = {n.array.name: n.array for n in ir.walk(t.body)
                if isinstance(n, (ir.Load, ir.Store)) and isinstance(n.array, ir.LocalArray)}
        most = max(most, sum(a.size * a.dtype.nbytes for a in seen.values()))
    return most


def save(kernel, bound: dict):
    """The gradients a call of `kernel` (a GradKernel) may write, copied, when an overflow of this
    call could be retried with larger stacks; else None (nothing is copied)."""
    if not runtime_api.ad_stack_adaptive() or not runtime_api.ad_stack_size():
        return None
    if runtime_api.current_arch() == runtime_api.cuda:  # a copy per call would bring every gradient back
        return None                                       # from the GPU: there the overflow is the error
    spec = kernel.spec_for(tuple(bound[n] for n in kernel.arg_names))
    tasks = kernel.tasks(spec)
    size = kernel.stack_size()
    if not any(isinstance(n, ir.LocalArray) and n.size == size for t in tasks for n in ir.walk(t.body)):
        return None  # every stack has its constant trip count: none can overflow
    if _stack_bytes(tasks) * GROWTH > MAX_THREAD_BYTES:
        return None
    arrays: dict = {}
    for t in tasks:
        for a in t.implicit:
            if a.role == "field" and a.name.endswith(autodiff.GRAD):
                f = Field.by_uid(int(a.key))
                arrays[id(f)] = f
        for p in t.params:
            base = p.name[:-len(autodiff.GRAD)]
            if p.name.endswith(autodiff.GRAD) and base in bound and gradient_of(bound[base]) is not None:
                g = bound[base].grad
                arrays[id(g)] = g
    return [(a, a.to_numpy().copy()) for a in arrays.values()]


def retry(kernel, saved, full: dict) -> bool:
    """After a call: if it overflowed and was saved, put the gradients back, grow the stacks and
    say so (the caller runs it again)."""
    flag = full.get(autodiff.ADSTACK_FLAG)
    if saved is None or flag is None or int(flag[0]) == 0:
        return False
    for a, values in saved:
        a.from_numpy(values)
    kernel.with_stacks(kernel.stack_size() * GROWTH)
    return True
