"""What a kernel's last launch passed to its compiled code, counted by kind (Quadrants'
`kernel._primal.launch_stats.kernel_args_count_by_type`).

Quadrants prunes the members of a dataclass argument that the kernel body never reads, so only the
arrays and scalars the code uses are passed; programs and its tests read these counts to see that.
Here the count is read off the compiled tasks themselves: each task takes exactly the arrays and
scalars its body uses (an unused ndarray or scalar is never a task parameter), and an ndarray held
by a dataclass or template argument is passed as an implicit array. So the figures are this
implementation's own, not an imitation: ndarrays the tasks receive (`QD_ARRAY`), and scalar
parameters by type (`INT`, `UINT`, `FLOAT`). Fields are globals in both, never counted.
`launch_observations.found_kernel_in_materialize_cache` says whether the last call reused a
specialisation compiled before it.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from ..field import Ndarray, Storage


class KernelBatchedArgType(IntEnum):
    """Quadrants' kinds of kernel arguments (quadrants.lang._kernel_types)."""
    FLOAT = 0
    INT = 1
    UINT = 2
    QD_ARRAY = 3
    TI_ARRAY_WITH_GRAD = 4


@dataclass(frozen=True)
class LaunchObservations:
    """Quadrants' `kernel._primal.launch_observations`: the last call found its compiled kernel
    (here: no new specialisation had to be lowered for it)."""
    found_kernel_in_materialize_cache: bool


class LaunchStats:
    """Counts for the kernel's last call (all zero before the first)."""

    def __init__(self, kernel):
        self._kernel = kernel

    @property
    def kernel_args_count_by_type(self) -> dict:
        counts = {k: 0 for k in KernelBatchedArgType}
        bound = self._kernel.__dict__.get("_last_bound")
        if bound is None:
            return counts
        k = self._kernel
        spec = k.spec_for(tuple(bound[n] for n in k.arg_names))
        arrays: set = set()
        scalars: dict = {}
        for t in k.tasks(spec):
            for p in t.params:
                if p.kind == "scalar":
                    scalars[p.name] = p.dtype
            implicit = {a.name: a for a in t.implicit}
            for p in t.params:
                if p.kind != "array":
                    continue
                imp = implicit.get(p.name)
                if imp is None:
                    arrays.add(("arg", p.name))  # an ndarray argument of the kernel
                elif imp.role == "field" and isinstance(Storage.by_uid(int(imp.key)), Ndarray):
                    arrays.add(("uid", imp.key))  # an ndarray held by a dataclass or template argument
        counts[KernelBatchedArgType.QD_ARRAY] = len(arrays)
        for dt in scalars.values():
            kind = (KernelBatchedArgType.FLOAT if dt.is_float else
                    KernelBatchedArgType.UINT if dt.kind == "u" else KernelBatchedArgType.INT)
            counts[kind] += 1
        return counts


class SpecialisationMap:
    """Quadrants' `kernel._primal.mapper.mapping`: one entry per specialisation the kernel has been
    compiled for (here: per distinct spec its tasks were lowered for), so a program can see whether
    two calls shared one. Where qdexplorer needs no new specialisation it has none: a layout-tagged
    ndarray is stored canonically, so it shares the untagged one's (Quadrants compiles a second)."""

    def __init__(self, kernel):
        self._kernel = kernel

    @property
    def mapping(self) -> dict:
        specs: dict = {}
        for spec, _debug in self._kernel.lowered_keys:
            specs.setdefault(spec, len(specs))
        return specs
