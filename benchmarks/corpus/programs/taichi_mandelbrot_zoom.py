# corpus: taichi_mandelbrot_zoom
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/mandelbrot_zoom.py
# license: Apache-2.0
# area: image
# port: ti->qd, taichi.math->quadrants.math; arch=qd.cpu; GUI loop of 100000 frames replaced by 6 frames at time i*30 (zoomed in); checksum lines added
import numpy as np
import quadrants as qd
from quadrants.math import cmul, dot, log2, vec2, vec3

qd.init(arch=qd.cpu)

MAXITERS = 100
width, height = 800, 640
pixels = qd.Vector.field(3, qd.f32, shape=(width, height))


@qd.func
def setcolor(z, i):
    v = log2(i + 1 - log2(log2(z.norm()))) / 5
    col = vec3(0.0)
    if v < 1.0:
        col = vec3(v**4, v**2.5, v)
    else:
        v = qd.max(0.0, 2 - v)
        col = vec3(v, v**1.5, v**3)
    return col


@qd.kernel
def render(time: qd.f32):
    zoo = 0.64 + 0.36 * qd.cos(0.02 * time)
    zoo = qd.pow(zoo, 8.0)
    ca = qd.cos(0.15 * (1.0 - zoo) * time)
    sa = qd.sin(0.15 * (1.0 - zoo) * time)
    for i, j in pixels:
        c = 2.0 * vec2(i, j) / height - vec2(1)
        # c *= 1.16
        xy = vec2(c.x * ca - c.y * sa, c.x * sa + c.y * ca)
        c = vec2(-0.745, 0.186) + xy * zoo
        z = vec2(0.0)
        count = 0.0
        while count < MAXITERS and dot(z, z) < 50:
            z = cmul(z, z) + c
            count += 1.0

        if count == MAXITERS:
            pixels[i, j] = [0, 0, 0]
        else:
            pixels[i, j] = setcolor(z, count)


def main():
    total = 0.0
    for i in range(6):
        render(i * 30.0)
        total += float(pixels.to_numpy().astype(np.float64).sum())
    px = pixels.to_numpy().astype(np.float64)
    print("checksum pixels_sum_all_frames", total)
    print("checksum pixels_sum_last", float(px.sum()))
    print("checksum black_last", int((px == 0).all(axis=-1).sum()))


if __name__ == "__main__":
    main()
