"""A host range_for's loop is not vectorized or unrolled across its indices, as in Quadrants, against Quadrants.

Quadrants' CPU code runs a range_for (a struct-for over dense SNodes is one, demoted) by calling its
body once per index from the runtime (`cpu_parallel_range_for`), so LLVM never vectorizes or unrolls
across the loop's indices. Ours walks a thread's chunk in a loop inside the task, which LLVM's loop
vectorizer took when the body has no inner loop, and the vector code's fast-math sums came out in
another order: `x[i, j] = [i * q - 0.5 + off, ...]` over a struct-for (taichi_mass_spring_3d_ggui's
initialize_mass_points, 2,560 of 12,288 values off by an ulp). The host loop carries
`llvm.loop` metadata that keeps it scalar (codegen/schedule.py `grid_loop`).
"""
import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.codegen.task_module import CodegenOptions, build_task_module
from tests.lang.quadrants_oracle import implementations


def _cloth(qd):
    """taichi_mass_spring_3d_ggui's struct-fors over a 2-D vector field: the cloth's start and the
    ball's velocity projection."""
    n = 64
    q, dt = 1.0 / n, 4e-2 / n
    x = qd.Vector.field(3, dtype=float, shape=(n, n))
    v = qd.Vector.field(3, dtype=float, shape=(n, n))
    r = qd.field(float, 2)
    c = qd.Vector.field(3, dtype=float, shape=(1,))

    @qd.kernel
    def start():
        off = qd.Vector([r[0] - 0.5, r[1] - 0.5]) * 0.1
        for i, j in x:
            x[i, j] = [i * q - 0.5 + off[0], 0.6, j * q - 0.5 + off[1]]

    @qd.kernel
    def step():
        for i in qd.grouped(x):
            v[i] *= qd.exp(-dt)
            o = x[i] - c[0]
            if o.norm() <= 0.3:
                u = o.normalized()
                v[i] -= qd.min(v[i].dot(u), 0) * u
            x[i] += dt * v[i]

    r.from_numpy(np.random.default_rng(0).random(2, dtype=np.float32))
    v.from_numpy(np.random.default_rng(1).uniform(-1, 1, (n, n, 3)).astype(np.float32))
    start()
    first = x.to_numpy()
    for _ in range(3):
        step()
    return np.concatenate([first.ravel(), x.to_numpy().ravel()])


@pytest.mark.parametrize("fast_math", [True, False])
def test_struct_for_sums_round_as_in_quadrants(fast_math):
    got = []
    for impl in implementations():
        impl.init(arch=impl.cpu, fast_math=fast_math)
        try:
            got.append(_cloth(impl))
        finally:
            impl.reset()
    if len(got) < 2:
        pytest.skip("Quadrants is not installed")
    ours, theirs = got
    assert ours.tobytes() == theirs.tobytes(), f"{(ours != theirs).sum()} of {ours.size} differ"


def test_only_the_host_loop_carries_the_metadata():
    """The host's chunk loop is kept scalar; CUDA's grid-stride loop is left to LLVM as before."""
    qd.init(arch=qd.cpu)
    try:
        f = qd.field(qd.f32, shape=(4, 8))

        @qd.kernel
        def k():
            for i, j in f:
                f[i, j] = i * 0.5 + j

        task = k.tasks()[0]
        host = build_task_module(task, CodegenOptions(target="host")).text
        cuda = build_task_module(task, CodegenOptions(target="nvptx")).text
    finally:
        qd.reset()
    assert '"llvm.loop.vectorize.enable", i1 0' in host and "!llvm.loop" in host
    assert "llvm.loop" not in cuda
