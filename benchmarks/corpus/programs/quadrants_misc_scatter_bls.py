# corpus: quadrants_misc_scatter_bls
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 misc/benchmark_scatter_bls.py tests/python/bls_test_template.py
# license: Apache-2.0
# area: sparse
# port: bls_particle_grid copied verbatim from tests/python/bls_test_template.py (instead of the sys.path import), plus a return of its fields; arch cuda -> cpu, kernel_profiler dropped; N 512 -> 64, benchmark 10 -> 0 (the unit tests path; benchmark>0 calls pid.parent(2).snode.deactivate_all(), which fails under Quadrants 1.3.3: SNode has no .snode); python random seeded (random.seed(0)); print_kernel_profile_info replaced by checksum lines
import random

import numpy as np

import quadrants as qd

def bls_particle_grid(
    N,
    ppc=8,
    block_size=16,
    scatter=True,
    benchmark=0,
    pointer_level=1,
    sort_points=True,
    use_offset=True,
):
    M = N * N * ppc

    m1 = qd.field(qd.f32)
    m2 = qd.field(qd.f32)
    m3 = qd.field(qd.f32)
    pid = qd.field(qd.i32)
    err = qd.field(qd.i32, shape=())

    max_num_particles_per_block = block_size**2 * 4096

    x = qd.Vector.field(2, dtype=qd.f32)

    s1 = qd.field(dtype=qd.f32)
    s2 = qd.field(dtype=qd.f32)
    s3 = qd.field(dtype=qd.f32)

    qd.root.dense(qd.i, M).place(x)
    qd.root.dense(qd.i, M).place(s1, s2, s3)

    if pointer_level == 1:
        block = qd.root.pointer(qd.ij, N // block_size)
    elif pointer_level == 2:
        block = qd.root.pointer(qd.ij, N // block_size // 4).pointer(qd.ij, 4)
    else:
        raise ValueError("pointer_level must be 1 or 2")

    if use_offset:
        grid_offset = (-N // 2, -N // 2)
        grid_offset_block = (-N // 2 // block_size, -N // 2 // block_size)
        world_offset = -0.5
    else:
        grid_offset = (0, 0)
        grid_offset_block = (0, 0)
        world_offset = 0

    block.dense(qd.ij, block_size).place(m1, offset=grid_offset)
    block.dense(qd.ij, block_size).place(m2, offset=grid_offset)
    block.dense(qd.ij, block_size).place(m3, offset=grid_offset)

    block.dynamic(qd.l, max_num_particles_per_block, chunk_size=block_size**2 * ppc * 4).place(
        pid, offset=grid_offset_block + (0,)
    )

    bound = 0.1

    extend = 4

    x_ = [
        (
            random.random() * (1 - 2 * bound) + bound + world_offset,
            random.random() * (1 - 2 * bound) + bound + world_offset,
        )
        for _ in range(M)
    ]
    if sort_points:
        x_.sort(key=lambda q: int(q[0] * N) // block_size * N + int(q[1] * N) // block_size)

    x.from_numpy(np.array(x_, dtype=np.float32))

    @qd.kernel
    def insert():
        qd.loop_config(block_dim=256)
        for i in x:
            # It is important to ensure insert and p2g uses the exact same way to compute the base
            # coordinates. Otherwise there might be coordinate mismatch due to float-point errors.
            base = qd.Vector(
                [
                    int(qd.floor(x[i][0] * N) - grid_offset[0]),
                    int(qd.floor(x[i][1] * N) - grid_offset[1]),
                ]
            )
            base_p = qd.rescale_index(m1, pid, base)
            qd.append(pid.parent(), base_p, i)

    scatter_weight = (N * N / M) * 0.01

    @qd.kernel
    def p2g(use_shared: qd.template(), m: qd.template()):
        qd.loop_config(block_dim=256)
        if qd.static(use_shared):
            qd.block_local(m)
        for I in qd.grouped(pid):
            p = pid[I]

            u_ = qd.floor(x[p] * N).cast(qd.i32)
            Im = qd.rescale_index(pid, m, I)
            u0 = qd.assume_in_range(u_[0], Im[0], 0, 1)
            u1 = qd.assume_in_range(u_[1], Im[1], 0, 1)

            u = qd.Vector([u0, u1])

            for offset in qd.static(qd.grouped(qd.ndrange(extend, extend))):
                m[u + offset] += scatter_weight

    @qd.kernel
    def p2g_naive():
        qd.loop_config(block_dim=256)
        for p in x:
            u = qd.floor(x[p] * N).cast(qd.i32)

            for offset in qd.static(qd.grouped(qd.ndrange(extend, extend))):
                m3[u + offset] += scatter_weight

    @qd.kernel
    def fill_m1():
        for i, j in qd.ndrange(N, N):
            m1[i, j] = qd.random()

    @qd.kernel
    def g2p(use_shared: qd.template(), s: qd.template()):
        qd.loop_config(block_dim=256)
        if qd.static(use_shared):
            qd.block_local(m1)
        for I in qd.grouped(pid):
            p = pid[I]

            u_ = qd.floor(x[p] * N).cast(qd.i32)

            Im = qd.rescale_index(pid, m1, I)
            u0 = qd.assume_in_range(u_[0], Im[0], 0, 1)
            u1 = qd.assume_in_range(u_[1], Im[1], 0, 1)

            u = qd.Vector([u0, u1])

            tot = 0.0

            for offset in qd.static(qd.grouped(qd.ndrange(extend, extend))):
                tot += m1[u + offset]

            s[p] = tot

    @qd.kernel
    def g2p_naive(s: qd.template()):
        qd.loop_config(block_dim=256)
        for p in x:
            u = qd.floor(x[p] * N).cast(qd.i32)

            tot = 0.0
            for offset in qd.static(qd.grouped(qd.ndrange(extend, extend))):
                tot += m1[u + offset]
            s[p] = tot

    insert()

    for i in range(benchmark):
        pid.parent(2).snode.deactivate_all()
        insert()

    @qd.kernel
    def check_m():
        for i in range(grid_offset[0], grid_offset[0] + N):
            for j in range(grid_offset[1], grid_offset[1] + N):
                if abs(m1[i, j] - m3[i, j]) > 1e-4:
                    err[None] = 1
                if abs(m2[i, j] - m3[i, j]) > 1e-4:
                    err[None] = 1

    @qd.kernel
    def check_s():
        for i in range(M):
            if abs(s1[i] - s2[i]) > 1e-4:
                err[None] = 1
            if abs(s1[i] - s3[i]) > 1e-4:
                err[None] = 1

    if scatter:
        for i in range(max(benchmark, 1)):
            p2g(True, m1)
            p2g(False, m2)
            p2g_naive()
        check_m()
    else:
        for i in range(max(benchmark, 1)):
            g2p(True, s1)
            g2p(False, s2)
            g2p_naive(s3)
        check_s()

    assert not err[None]
    return m1, m2, m3, s1, s2, s3


random.seed(0)
qd.init(arch=qd.cpu)
m1, m2, m3, s1, s2, s3 = bls_particle_grid(
    N=64,
    ppc=10,
    block_size=16,
    scatter=True,
    benchmark=0,
    pointer_level=2,
    use_offset=True,
)

for name, m in (("m1", m1), ("m2", m2), ("m3", m3)):
    a = m.to_numpy().astype(np.float64)
    print(f"checksum {name}_sum", repr(float(a.sum())))
    print(f"checksum {name}_w", repr(float((a * (np.arange(a.size).reshape(a.shape) % 37)).sum())))
