# corpus: taichi_fractal
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/fractal.py
# license: Apache-2.0
# area: image
# port: ti->qd; arch=qd.cpu; GUI loop replaced by 40 frames (t += 0.03 each); checksum lines added
import numpy as np
import quadrants as qd

qd.init(arch=qd.cpu)

n = 320
pixels = qd.field(dtype=float, shape=(n * 2, n))


@qd.func
def complex_sqr(z):
    return qd.Vector([z[0] ** 2 - z[1] ** 2, z[1] * z[0] * 2])


@qd.kernel
def paint(t: float):
    for i, j in pixels:  # Parallelized over all pixels
        c = qd.Vector([-0.8, qd.cos(t) * 0.2])
        z = qd.Vector([i / n - 1, j / n - 0.5]) * 2
        iterations = 0
        while z.norm() < 20 and iterations < 50:
            z = complex_sqr(z) + c
            iterations += 1
        pixels[i, j] = 1 - iterations * 0.02


def main():
    t = 0.0
    total = 0.0
    for frame in range(40):
        paint(t)
        t += 0.03
        total += float(pixels.to_numpy().astype(np.float64).sum())
    p = pixels.to_numpy().astype(np.float64)
    print("checksum pixels_sum_last", float(p.sum()))
    print("checksum pixels_sum_all_frames", total)
    print("checksum pixel_100_100", float(p[100, 100]))


if __name__ == "__main__":
    main()
