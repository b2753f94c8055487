"""A field's shape is a constant in the code, as Quadrants compiles it, against Quadrants.

Quadrants knows a field's shape when it compiles a kernel and addresses its elements with constant
strides. Ours passed every shape as a runtime argument, so the same fast-math sums came out of
LLVM in another order: a vector field read in a loop (`pos[j]`, 3 components of one cell) was a
runtime stride, which LLVM's loop vectorizer versioned on `stride == 1` and ran scalar where
Quadrants' interleaved loads made it vectorize; and the backend's reassociation of a sum weighed
the loads' address arithmetic differently. benchmark_nbody, taichi_mass_spring_3d_ggui and
taichi_mpm_lagrangian_forces differed from Quadrants only there (codegen/abi.py `known_shapes`). And a
vector field's cell is addressed as Quadrants does, its index in 32 bits and the component in 64
(expressions.py `linear`): imgproc_gaussian_filter's vectorized window sums.
"""
import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.codegen.task_module import CodegenOptions, build_task_module
from tests.lang.quadrants_oracle import implementations


def _pairwise_forces(qd):
    """benchmark_nbody's inner loop: a vector field read at a runtime index, summed (638 of 768
    values differed by rounding while the field's stride was a runtime argument)."""
    n = 256
    pos = qd.Vector.field(3, qd.f32, shape=n)
    acc = qd.Vector.field(3, qd.f32, shape=n)

    @qd.kernel
    def go():
        for i in range(n):
            a = qd.Vector([0.0, 0.0, 0.0])
            for j in range(n):
                r = pos[j] - pos[i]
                a += r / (r.norm_sqr() + 0.01) ** 1.5
            acc[i] = a

    pos.from_numpy(np.random.default_rng(1).uniform(-1, 1, (n, 3)).astype(np.float32))
    go()
    return acc.to_numpy()


def _blur_rows(qd):
    """imgproc_gaussian_filter's second pass: a vector field's cells summed over a window. Quadrants
    addresses a cell by its index in 32 bits and the component within it in 64; ours wrapped one i32
    offset per component in sext, and LLVM vectorized the loop at another width (28,693 of 38,400
    values differed with the shapes constant, 30,548 before)."""
    n, m, r = 64, 200, 30
    img = qd.Vector.field(3, qd.f32, shape=(n, m))
    w = qd.field(qd.f32, shape=2 * r + 1)
    out = qd.Vector.field(3, qd.f32, shape=(n, m))

    @qd.kernel
    def go():
        for i, j in qd.ndrange(n, m):
            lo, hi = qd.max(0, j - r), qd.min(m, j + r + 1)
            t = qd.Vector([0.0, 0.0, 0.0])
            tw = 0.0
            for k in range(lo, hi):
                t += img[i, k] * w[j - k + r]
                tw += w[j - k + r]
            out[i, j] = t / tw

    rng = np.random.default_rng(2)
    img.from_numpy(rng.uniform(0, 255, (n, m, 3)).astype(np.float32))
    w.from_numpy(rng.uniform(0, 1, 2 * r + 1).astype(np.float32))
    go()
    return out.to_numpy()


def _ours_and_quadrants(program, fast_math):
    got = []
    for impl in implementations():
        impl.init(arch=impl.cpu, fast_math=fast_math)
        try:
            got.append(program(impl))
        finally:
            impl.reset()
    if len(got) < 2:
        pytest.skip("Quadrants is not installed")
    return got


@pytest.mark.parametrize("fast_math", [True, False])
@pytest.mark.parametrize("program", [_pairwise_forces, _blur_rows])
def test_vector_field_sums_round_as_in_quadrants(program, fast_math):
    ours, theirs = _ours_and_quadrants(program, fast_math)
    assert ours.tobytes() == theirs.tobytes(), f"{(ours != theirs).sum()} of {ours.size} differ"


def test_a_fields_shape_is_a_constant_in_host_code():
    """The host module addresses a 2-D field with its constant row length, not the shape argument
    the launcher still passes (the ABI is unchanged); an ndarray argument keeps its runtime shape."""
    qd.init(arch=qd.cpu)
    try:
        f = qd.field(qd.f32, shape=(5, 37))

        @qd.kernel
        def k(a: qd.types.ndarray(dtype=qd.f32, ndim=2)):
            for i in range(5):
                f[i, 3] = a[i, 3]

        task = k.tasks()[0]
        field_name = next(a.name for a in task.implicit if a.role == "field")
        body = build_task_module(task, CodegenOptions(target="host")).text.split("{", 1)[1]
    finally:
        qd.reset()
    assert f'%"{field_name}.shape1"' not in body and ", 37" in body
    assert '%"a.shape1"' in body
