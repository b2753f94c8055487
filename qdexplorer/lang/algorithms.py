# mypy: ignore-errors
# (kernel-language annotations such as `n: i32` and `arr: template()` are not Python types)
"""`qd.algorithms`: reduce, exclusive scan, select, reduce-by-key and sort as `@qd.func`s called at a
kernel's top level, plus the older host-side `PrefixSumExecutor` and `parallel_sort`.

Quadrants builds these from block-wide phases over a caller-sized `scratch` buffer. Here each is a
few top-level loops of the language itself, so they compile to per-task modules like any kernel:
reductions are atomic updates of `out[0]` (float sums in another order than Quadrants' tree: equal to
rounding), and the order-dependent ones (scans, select, reduce-by-key, sort) run in one thread. The
results are Quadrants'; the scratch buffer is accepted and not used, and the `*_scratch_slots`
helpers return a size that is enough here (at least 1), not Quadrants' exact count.
"""
from __future__ import annotations

import numpy as np

from . import intrinsics as qd_i
from .func import func
from .template import template
from ..ir.dtypes import i32

BLOCK_DIM = 256


def _extreme(dtype, largest: bool):
    """The identity of min (largest value) or max (smallest value) for `dtype`, at compile time."""
    info = np.finfo(dtype.numpy) if dtype.is_float else np.iinfo(dtype.numpy)
    if dtype.is_float:
        return float("inf") if largest else float("-inf")
    return int(info.max) if largest else int(info.min)


MAX_LOG256_MAX_N = 4  # 256 ** 4 == 2 ** 32 indices already covers every i32-indexed array, as in Quadrants


def validate_log256_max_n(log256_max_n) -> None:
    """Quadrants' check of a scan / reduce / sort depth: deeper than any i32-indexed array needs is a ValueError."""
    if log256_max_n is not None and log256_max_n > MAX_LOG256_MAX_N:
        raise ValueError(f"log256_max_n={log256_max_n} exceeds the maximum of {MAX_LOG256_MAX_N}. Quadrants tensors "
                         f"are indexed by signed 32-bit integers, so they hold at most 2**31 - 1 elements; "
                         f"256 ** {MAX_LOG256_MAX_N} == 2**32 already covers that range")


def _slots(n, log256_max_n=None) -> int:
    validate_log256_max_n(log256_max_n)
    return max(1, int(n))


reduce_scratch_slots = exclusive_scan_scratch_slots = sort_scratch_slots = _slots


def select_scratch_slots(n: int) -> int:
    return max(1, int(n))


def reduce_by_key_scratch_slots(n: int) -> int:
    return max(1, int(n))


@func(requires_top_level=True)
def reduce_add(arr: template(), out: template(), scratch: template(), n: i32, dtype: template(),
               log256_max_n: template()):
    """`out[0] = sum(arr[0:n])`."""
    out[0] = qd_i.cast(0, dtype)
    for i in range(n):
        out[0] += arr[i]


@func(requires_top_level=True)
def reduce_min(arr: template(), out: template(), scratch: template(), n: i32, dtype: template(),
               log256_max_n: template()):
    """`out[0] = min(arr[0:n])` (the dtype's largest value when n is 0)."""
    out[0] = dtype(qd_i.static(_extreme(dtype, True)))
    for i in range(n):
        qd_i.atomic_min(out[0], arr[i])


@func(requires_top_level=True)
def reduce_max(arr: template(), out: template(), scratch: template(), n: i32, dtype: template(),
               log256_max_n: template()):
    """`out[0] = max(arr[0:n])` (the dtype's smallest value when n is 0)."""
    out[0] = dtype(qd_i.static(_extreme(dtype, False)))
    for i in range(n):
        qd_i.atomic_max(out[0], arr[i])


@func(requires_top_level=True)
def exclusive_scan_add(arr: template(), out: template(), scratch: template(), n: i32, dtype: template(),
                       log256_max_n: template()):
    """`out[i] = sum(arr[0:i])`."""
    for _ in range(1):
        acc = qd_i.cast(0, dtype)
        for i in range(n):
            out[i] = acc
            acc += arr[i]


@func(requires_top_level=True)
def exclusive_scan_min(arr: template(), out: template(), scratch: template(), n: i32, dtype: template(),
                       log256_max_n: template()):
    """`out[i] = min(arr[0:i])` (the dtype's largest value for i = 0)."""
    for _ in range(1):
        acc = dtype(qd_i.static(_extreme(dtype, True)))
        for i in range(n):
            out[i] = acc
            acc = qd_i.min(acc, arr[i])


@func(requires_top_level=True)
def exclusive_scan_max(arr: template(), out: template(), scratch: template(), n: i32, dtype: template(),
                       log256_max_n: template()):
    """`out[i] = max(arr[0:i])` (the dtype's smallest value for i = 0)."""
    for _ in range(1):
        acc = dtype(qd_i.static(_extreme(dtype, False)))
        for i in range(n):
            out[i] = acc
            acc = qd_i.max(acc, arr[i])


@func(requires_top_level=True)
def select(arr: template(), flags: template(), out: template(), num_out: template(), scratch: template(), n: i32,
           log256_max_n: template()):
    """Stream compaction: the `arr[i]` whose `flags[i]` is non-zero, packed in order into `out`; their
    count in `num_out[0]`."""
    for _ in range(1):
        c = 0
        for i in range(n):
            if flags[i] != 0:
                out[c] = arr[i]
                c += 1
        num_out[0] = c


@func(requires_top_level=True)
def reduce_by_key_add(keys_in: template(), values_in: template(), keys_out: template(), values_out: template(),
                      num_runs: template(), scratch: template(), n: i32, value_dtype: template(),
                      log256_max_n: template()):
    """Each run of equal consecutive keys becomes one key in `keys_out` and the sum of its values in
    `values_out`; the number of runs goes to `num_runs[0]`."""
    for _ in range(1):
        r = -1
        for i in range(n):
            if i == 0 or keys_in[i] != keys_in[i - 1]:
                r += 1
                keys_out[r] = keys_in[i]
                values_out[r] = qd_i.cast(0, value_dtype)
            values_out[r] += values_in[i]
        num_runs[0] = r + 1


@func(requires_top_level=True)
def sort(keys: template(), tmp_keys: template(), values: template(), tmp_values: template(), scratch: template(),
         n: template(), key_dtype: template(), has_values: template(), end_bit: template(),
         log256_max_n: template()):
    """A stable ascending sort of `keys[0:n]` (and `values` with them when `has_values`), in place:
    a bottom-up merge sort through `tmp_keys` / `tmp_values`, as stable as Quadrants' LSB radix sort.
    Keys compare whole (Quadrants' `end_bit` below the key width sorts on the low bits only)."""
    for _ in range(1):
        width = 1
        src_is_keys = 1
        while width < n:
            lo = 0
            while lo < n:
                mid = qd_i.min(lo + width, n)
                hi = qd_i.min(lo + 2 * width, n)
                a, b, k = lo, mid, lo
                while k < hi:
                    take_a = 0
                    if b >= hi:
                        take_a = 1
                    elif a < mid:
                        if src_is_keys == 1:
                            take_a = keys[a] <= keys[b]
                        else:
                            take_a = tmp_keys[a] <= tmp_keys[b]
                    j = b
                    if take_a:
                        j = a
                        a += 1
                    else:
                        b += 1
                    if src_is_keys == 1:
                        tmp_keys[k] = keys[j]
                        if qd_i.static(has_values):
                            tmp_values[k] = values[j]
                    else:
                        keys[k] = tmp_keys[j]
                        if qd_i.static(has_values):
                            values[k] = tmp_values[j]
                    k += 1
                lo += 2 * width
            src_is_keys = 1 - src_is_keys
            width *= 2
        if src_is_keys == 0:  # the sorted run ended in tmp: copy it back
            for i in range(n):
                keys[i] = tmp_keys[i]
                if qd_i.static(has_values):
                    values[i] = tmp_values[i]


class PrefixSumExecutor:
    """`PrefixSumExecutor(n).run(arr)`: an inclusive prefix sum of `arr` (i32) in place."""

    def __init__(self, length: int):
        self.sorting_length = int(length)

    def run(self, input_arr):
        data = input_arr.to_numpy()
        n = self.sorting_length
        data[:n] = np.cumsum(data[:n], dtype=data.dtype)
        input_arr.from_numpy(data)


def parallel_sort(keys, values=None):
    """Sort a field or ndarray of keys ascending in place (and `values` with them). Quadrants' odd-even
    merge sort is not stable; this sort is, so equal keys keep their values' order here."""
    k = keys.to_numpy()
    order = np.argsort(k, kind="stable")
    keys.from_numpy(k[order])
    if values is not None:
        values.from_numpy(values.to_numpy()[order])


from .compat import surface as _compat  # noqa: E402

__getattr__ = _compat.module_getattr("qd.algorithms", "qdexplorer.lang.algorithms")
