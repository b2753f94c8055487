# corpus: taichi_sparse_pointer
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/features/sparse/taichi_sparse.py
# license: Apache-2.0
# area: sparse
# port: ti->qd; arch=qd.cpu; `from taichi.examples.patterns import taichi_logo` replaced by that function copied in (ported the same way); GUI loop of 100000 frames replaced by 12 frames; checksum lines added (img summed over frames)
import numpy as np
import quadrants as qd


# taichi_logo: copied from python/taichi/examples/patterns.py of the same commit (ti->qd); neither
# Quadrants nor ours ships that module
@qd.func
def taichi_logo(pos: qd.template(), scale: float = 1 / 1.11):
    p = (pos - 0.5) / scale + 0.5
    ret = -1
    if not (p - 0.50).norm_sqr() <= 0.52**2:
        if ret == -1:
            ret = 0
    if not (p - 0.50).norm_sqr() <= 0.495**2:
        if ret == -1:
            ret = 1
    if (p - qd.Vector([0.50, 0.25])).norm_sqr() <= 0.08**2:
        if ret == -1:
            ret = 1
    if (p - qd.Vector([0.50, 0.75])).norm_sqr() <= 0.08**2:
        if ret == -1:
            ret = 0
    if (p - qd.Vector([0.50, 0.25])).norm_sqr() <= 0.25**2:
        if ret == -1:
            ret = 0
    if (p - qd.Vector([0.50, 0.75])).norm_sqr() <= 0.25**2:
        if ret == -1:
            ret = 1
    if p[0] < 0.5:
        if ret == -1:
            ret = 1
    else:
        if ret == -1:
            ret = 0
    return 1 - ret

qd.init(arch=qd.cpu)

n = 512
x = qd.field(dtype=qd.i32)
res = n + n // 4 + n // 16 + n // 64
img = qd.field(dtype=qd.f32, shape=(res, res))

block1 = qd.root.pointer(qd.ij, n // 64)
block2 = block1.pointer(qd.ij, 4)
block3 = block2.pointer(qd.ij, 4)
block3.dense(qd.ij, 4).place(x)


@qd.kernel
def activate(t: qd.f32):
    for i, j in qd.ndrange(n, n):
        p = qd.Vector([i, j]) / n
        p = qd.math.rotation2d(qd.sin(t)) @ (p - 0.5) + 0.5

        if taichi_logo(p) == 0:
            x[i, j] = 1


@qd.func
def scatter(i):
    return i + i // 4 + i // 16 + i // 64 + 2


@qd.kernel
def paint():
    for i, j in qd.ndrange(n, n):
        t = x[i, j]
        block1_index = qd.rescale_index(x, block1, [i, j])
        block2_index = qd.rescale_index(x, block2, [i, j])
        block3_index = qd.rescale_index(x, block3, [i, j])
        t += qd.is_active(block1, block1_index)
        t += qd.is_active(block2, block2_index)
        t += qd.is_active(block3, block3_index)
        img[scatter(i), scatter(j)] = 1 - t / 4


def main():
    img.fill(0.05)
    total = 0.0
    for i in range(12):
        block1.deactivate_all()
        activate(i * 0.05)
        paint()
        total += float(img.to_numpy().astype(np.float64).sum())
    im = img.to_numpy().astype(np.float64)
    print("checksum img_sum_all_frames", total)
    print("checksum img_sum_last", float(im.sum()))
    print("checksum x_sum_last", int(x.to_numpy().astype(np.int64).sum()))


if __name__ == "__main__":
    main()
