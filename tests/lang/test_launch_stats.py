"""`kernel._primal.launch_stats.kernel_args_count_by_type` and `launch_observations`: what the last
call passed to the compiled code. A dataclass member the body never reads is not passed (Quadrants
prunes it; here no task takes it), and a second call with the same arguments reuses the compiled
kernel. Same figures as real Quadrants where it is installed."""
from dataclasses import dataclass

import pytest

import qdexplorer.lang as ours
from qdexplorer.lang.calls.launch_stats import KernelBatchedArgType as OursKinds


def _implementations():
    yield ours, OursKinds
    try:
        import quadrants as real
        from quadrants.lang._kernel_types import KernelBatchedArgType as RealKinds
    except ImportError:
        return
    yield real, RealKinds


def _program(qd, kinds):
    @dataclass
    class CD:
        c: qd.types.NDArray[qd.i32, 1]
        d: qd.types.NDArray[qd.i32, 1]

    @dataclass
    class AB:
        a: qd.types.NDArray[qd.i32, 1]
        cd: CD

    @qd.func
    def fcd(cd: CD) -> None:
        cd.c[0] += 5

    @qd.kernel
    def k(s: AB, n: qd.i32, x: qd.types.NDArray[qd.i32, 1]) -> None:
        fcd(s.cd)
        x[0] = n

    def make():
        return AB(a=qd.ndarray(qd.i32, (4,)), cd=CD(c=qd.ndarray(qd.i32, (4,)), d=qd.ndarray(qd.i32, (4,))))

    s, x = make(), qd.ndarray(qd.i32, (4,))
    k(s, 7, x)
    counts = k._primal.launch_stats.kernel_args_count_by_type
    first = (counts[kinds.QD_ARRAY], counts[kinds.INT], counts[kinds.FLOAT],
             k._primal.launch_observations.found_kernel_in_materialize_cache)
    k(s, 8, x)  # (new arrays in the dataclass: Quadrants reuses the kernel, qdexplorer lowers it again)
    return first, k._primal.launch_observations.found_kernel_in_materialize_cache, s.cd.c[0], x[0]


def test_unused_dataclass_members_are_not_passed_and_a_second_call_reuses_the_kernel():
    results = []
    for qd, kinds in _implementations():
        qd.init(arch=qd.cpu)
        try:
            results.append(_program(qd, kinds))
        finally:
            qd.reset()
    for got in results:
        assert got == ((2, 1, 0, False), True, 10, 8)


def test_before_any_call_every_count_is_zero():
    ours.init(arch=ours.cpu)
    try:
        @ours.kernel
        def k(x: ours.types.NDArray[ours.i32, 1]):
            x[0] = 1

        assert set(k._primal.launch_stats.kernel_args_count_by_type.values()) == {0}
        assert k._primal is k and not k.launch_observations.found_kernel_in_materialize_cache
    finally:
        ours.reset()


def test_mapper_mapping_counts_the_specialisations_compiled():
    results = []
    for qd, _kinds in _implementations():
        qd.init(arch=qd.cpu)
        try:
            @qd.kernel
            def fill(x: qd.Tensor):
                for i in range(4):
                    x[i] = 7

            fill(qd.tensor(qd.i32, shape=(4,), backend=qd.Backend.NDARRAY))
            fill(qd.tensor(qd.i32, shape=(4,), backend=qd.Backend.NDARRAY))
            same = len(fill._primal.mapper.mapping)
            fill(qd.tensor(qd.f32, shape=(4,), backend=qd.Backend.NDARRAY))  # (a field of i32 is one more in
            results.append((same, len(fill._primal.mapper.mapping)))
        finally:
            qd.reset()
    assert all(r == (1, 2) for r in results), results  # Quadrants; here it shares the ndarray's, stored alike)
