# corpus: taichi_sparse_bitmasked
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/features/sparse/taichi_bitmasked.py
# license: Apache-2.0
# area: sparse
# port: ti->qd; arch=qd.cpu; GUI removed, 10000 frames -> 200; checksum lines added (x summed over frames, and at the end)
import math

import numpy as np
import quadrants as qd

qd.init(arch=qd.cpu)

n = 256
x = qd.field(qd.f32)
# `bitmasked` is a field that supports sparsity, in that each element can be
# activated individually. (It can be viewed as `dense`, with an extra bit for each
# element to mark its activation). Assigning to an element will activate it
# automatically. Use struct-for syntax to loop over the active elements only.
qd.root.bitmasked(qd.ij, (n, n)).place(x)


@qd.kernel
def activate():
    # All elements in bitmasked is initially deactivated
    # Let's activate elements in the rectangle now!
    for i, j in qd.ndrange((100, 125), (100, 125)):
        x[i, j] = 233  # assign any value to activate the element at (i, j)


@qd.kernel
def paint_active_pixels(color: qd.f32):
    # struct-for syntax: loop over active pixels, inactive pixels are skipped
    for i, j in x:
        x[i, j] = color


@qd.kernel
def paint_all_pixels(color: qd.f32):
    # range-for syntax: loop over all pixels, no matter active or not
    for i, j in qd.ndrange(n, n):
        x[i, j] = color


def main():
    qd.deactivate_all_snodes()
    activate()

    total = 0.0
    for frame in range(200):
        color = math.sin(frame * 0.05) * 0.5 + 0.5
        paint_active_pixels(color)
        # paint_all_pixels(color)  # try this and compare the difference!
        total += float(x.to_numpy().astype(np.float64).sum())
    xs = x.to_numpy().astype(np.float64)
    print("checksum x_sum_all_frames", total)
    print("checksum x_sum", float(xs.sum()))
    print("checksum nonzero", int((xs != 0).sum()))


if __name__ == "__main__":
    main()
