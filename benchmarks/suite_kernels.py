"""The kernel shapes of the benchmark suite, written once for any Quadrants-style `qd` module.

`define(qd)` builds every kernel with the `qd` it is given: `qdexplorer.lang` for qdexplorer and
`quadrants` for the Quadrants peer, so both run the very same source (a Quadrants kernel ports by
changing its import line).
"""
TILE = 32        # transpose tile (32x32, 256 threads, 4 elements each)
MM_TILE = 64     # matmul output tile per block (64x64, 256 threads, 4x4 outputs each)
MM_K = 16        # matmul k-slab held in shared memory


def define(qd):
    F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)
    F2 = qd.types.ndarray(dtype=qd.f32, ndim=2)
    I1 = qd.types.ndarray(dtype=qd.i32, ndim=1)

    @qd.kernel
    def stencil(u: F2, out: F2):
        for i, j in qd.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
            out[i, j] = 0.2 * (u[i, j] + u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])

    @qd.kernel
    def wave(x: F1, y: F1):
        for i in range(x.shape[0]):
            v = x[i]
            y[i] = qd.sin(v) * qd.exp(-v * v)

    @qd.kernel
    def accuracy(x: F1, s: F1, e: F1):
        for i in range(x.shape[0]):
            s[i] = qd.sin(x[i])
            e[i] = qd.exp(x[i] * 0.25)

    @qd.kernel
    def total(x: F1, out: F1):
        for i in range(x.shape[0]):
            out[0] += x[i]

    @qd.kernel
    def transpose(a: F2, b: F2):
        for i, j in qd.ndrange(a.shape[0], a.shape[1]):
            b[j, i] = a[i, j]

    @qd.kernel
    def transpose_tiled(a: F2, b: F2):
        # one 32x32 tile per block of 256 threads; reads and writes both coalesced through shared
        # memory (33 columns so that a column read hits 32 different banks)
        qd.loop_config(block_dim=256)
        for g in range(a.shape[0] * a.shape[1] // 4):
            tile = qd.simt.block.SharedArray((32, 33), qd.f32)
            t = qd.simt.block.thread_idx()
            blk = g // 256
            tiles_x = a.shape[1] // 32
            r0 = (blk // tiles_x) * 32
            c0 = (blk % tiles_x) * 32
            tx = t % 32
            ty = t // 32
            for k in qd.static(range(4)):
                tile[ty + 8 * k, tx] = a[r0 + ty + 8 * k, c0 + tx]
            qd.simt.block.sync()
            for k in qd.static(range(4)):
                b[c0 + ty + 8 * k, r0 + tx] = tile[tx, ty + 8 * k]
            qd.simt.block.sync()

    @qd.kernel
    def matmul_tiled(a: F2, b: F2, c: F2):
        # 64x64 output tile per block of 256 threads, each thread a 4x4 register tile; k in slabs
        # of 16 through shared memory (a's slab transposed, 65 wide to spread the banks)
        qd.loop_config(block_dim=256)
        for g in range(c.shape[0] * c.shape[1] // 16):
            sa = qd.simt.block.SharedArray((16, 65), qd.f32)
            sb = qd.simt.block.SharedArray((16, 64), qd.f32)
            t = qd.simt.block.thread_idx()
            blk = g // 256
            tiles_n = c.shape[1] // 64
            m0 = (blk // tiles_n) * 64
            n0 = (blk % tiles_n) * 64
            tm = (t // 16) * 4
            tn = (t % 16) * 4
            c00 = 0.0
            c01 = 0.0
            c02 = 0.0
            c03 = 0.0
            c10 = 0.0
            c11 = 0.0
            c12 = 0.0
            c13 = 0.0
            c20 = 0.0
            c21 = 0.0
            c22 = 0.0
            c23 = 0.0
            c30 = 0.0
            c31 = 0.0
            c32 = 0.0
            c33 = 0.0
            for kb in range(a.shape[1] // 16):
                k0 = kb * 16
                for q in qd.static(range(4)):
                    e = t + 256 * q
                    sa[e % 16, e // 16] = a[m0 + e // 16, k0 + e % 16]
                    sb[e // 64, e % 64] = b[k0 + e // 64, n0 + e % 64]
                qd.simt.block.sync()
                for kk in qd.static(range(16)):
                    a0 = sa[kk, tm]
                    a1 = sa[kk, tm + 1]
                    a2 = sa[kk, tm + 2]
                    a3 = sa[kk, tm + 3]
                    b0 = sb[kk, tn]
                    b1 = sb[kk, tn + 1]
                    b2 = sb[kk, tn + 2]
                    b3 = sb[kk, tn + 3]
                    c00 += a0 * b0
                    c01 += a0 * b1
                    c02 += a0 * b2
                    c03 += a0 * b3
                    c10 += a1 * b0
                    c11 += a1 * b1
                    c12 += a1 * b2
                    c13 += a1 * b3
                    c20 += a2 * b0
                    c21 += a2 * b1
                    c22 += a2 * b2
                    c23 += a2 * b3
                    c30 += a3 * b0
                    c31 += a3 * b1
                    c32 += a3 * b2
                    c33 += a3 * b3
                qd.simt.block.sync()
            c[m0 + tm, n0 + tn] = c00
            c[m0 + tm, n0 + tn + 1] = c01
            c[m0 + tm, n0 + tn + 2] = c02
            c[m0 + tm, n0 + tn + 3] = c03
            c[m0 + tm + 1, n0 + tn] = c10
            c[m0 + tm + 1, n0 + tn + 1] = c11
            c[m0 + tm + 1, n0 + tn + 2] = c12
            c[m0 + tm + 1, n0 + tn + 3] = c13
            c[m0 + tm + 2, n0 + tn] = c20
            c[m0 + tm + 2, n0 + tn + 1] = c21
            c[m0 + tm + 2, n0 + tn + 2] = c22
            c[m0 + tm + 2, n0 + tn + 3] = c23
            c[m0 + tm + 3, n0 + tn] = c30
            c[m0 + tm + 3, n0 + tn + 1] = c31
            c[m0 + tm + 3, n0 + tn + 2] = c32
            c[m0 + tm + 3, n0 + tn + 3] = c33

    @qd.kernel
    def matmul_blocked(a: F2, b: F2, c: F2):
        # 128x128 output tile per block of 256 threads, 8x8 outputs per thread held in registers
        # (a qd.Matrix indexed only by qd.static loops), k in slabs of 8 through two shared buffers
        # (the next slab is read from global memory while this one is multiplied)
        qd.loop_config(block_dim=256)
        for g in range(c.shape[0] * c.shape[1] // 64):
            sa = qd.simt.block.SharedArray((2, 8, 132), qd.f32)   # a's slab transposed: sa[buf, k, m]
            sb = qd.simt.block.SharedArray((2, 8, 128), qd.f32)   # sb[buf, k, n]
            t = qd.simt.block.thread_idx()
            blk = g // 256
            tiles_n = c.shape[1] // 128
            m0 = (blk // tiles_n) * 128
            n0 = (blk % tiles_n) * 128
            tm = (t // 16) * 4          # this thread's rows: tm..tm+3 and tm+64..tm+67
            tn = (t % 16) * 4           # its columns: tn..tn+3 and tn+64..tn+67
            ar = t // 2                 # the slab element this thread copies: a[m0+ar, k0+ac..+3]
            ac = (t % 2) * 4
            br = t // 32                # and b[k0+br, n0+bc..+3]
            bc = (t % 32) * 4
            acc = qd.Matrix.zero(qd.f32, 8, 8)
            ra = qd.Vector.zero(qd.f32, 8)
            rb = qd.Vector.zero(qd.f32, 8)
            ga = qd.Vector.zero(qd.f32, 4)
            gb = qd.Vector.zero(qd.f32, 4)
            for j in qd.static(range(4)):
                sa[0, ac + j, ar] = a[m0 + ar, ac + j]
                sb[0, br, bc + j] = b[br, n0 + bc + j]
            qd.simt.block.sync()
            nk = a.shape[1] // 8
            for kb in range(nk):
                cur = kb % 2
                if kb + 1 < nk:
                    k1 = (kb + 1) * 8
                    for j in qd.static(range(4)):
                        ga[j] = a[m0 + ar, k1 + ac + j]
                        gb[j] = b[k1 + br, n0 + bc + j]
                for kk in qd.static(range(8)):
                    for i in qd.static(range(4)):
                        ra[i] = sa[cur, kk, tm + i]
                        ra[i + 4] = sa[cur, kk, tm + 64 + i]
                        rb[i] = sb[cur, kk, tn + i]
                        rb[i + 4] = sb[cur, kk, tn + 64 + i]
                    for i in qd.static(range(8)):
                        for j in qd.static(range(8)):
                            acc[i, j] += ra[i] * rb[j]
                if kb + 1 < nk:
                    for j in qd.static(range(4)):
                        sa[1 - cur, ac + j, ar] = ga[j]
                        sb[1 - cur, br, bc + j] = gb[j]
                qd.simt.block.sync()
            for i in qd.static(range(8)):
                for j in qd.static(range(8)):
                    c[m0 + tm + (i % 4) + (i // 4) * 64, n0 + tn + (j % 4) + (j // 4) * 64] = acc[i, j]

    @qd.kernel
    def particles(pos: F2, vel: F2, stats: F1, dt: qd.f32):
        # integrate under gravity, bounce off the floor, and sum the kinetic energy / track the top
        for i in range(pos.shape[0]):
            vy = vel[i, 1] - 9.8 * dt
            vx = vel[i, 0]
            px = pos[i, 0] + vx * dt
            py = pos[i, 1] + vy * dt
            if py < 0.0:
                py = -py
                vy = -vy * 0.9
            pos[i, 0] = px
            pos[i, 1] = py
            vel[i, 1] = vy
            stats[0] += 0.5 * (vx * vx + vy * vy)
            qd.atomic_max(stats[1], py)

    @qd.kernel
    def histogram(x: I1, bins: I1):
        for i in range(x.shape[0]):
            bins[x[i]] += 1

    @qd.kernel
    def histogram_shared(x: I1, bins: I1, nthreads: qd.i32):
        # the explorer's answer to the atomic histogram: each block counts into its own 256 bins in
        # shared memory (atomics there are cheap and spread over 256 addresses per block), then
        # adds its counts to the global bins: 256 global atomics per block instead of one per element
        qd.loop_config(block_dim=256)
        for g in range(nthreads):
            h = qd.simt.block.SharedArray((256,), qd.i32)
            t = qd.simt.block.thread_idx()
            h[t] = 0
            qd.simt.block.sync()
            for k in range((x.shape[0] - g + nthreads - 1) // nthreads):
                qd.atomic_add(h[x[g + k * nthreads]], 1)
            qd.simt.block.sync()
            qd.atomic_add(bins[t], h[t])

    return dict(histogram_shared=histogram_shared, stencil=stencil, wave=wave, accuracy=accuracy, total=total, transpose=transpose,
                transpose_tiled=transpose_tiled, matmul_tiled=matmul_tiled, matmul_blocked=matmul_blocked,
                particles=particles,
                histogram=histogram)
