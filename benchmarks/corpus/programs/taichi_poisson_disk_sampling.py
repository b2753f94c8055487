# corpus: taichi_poisson_disk_sampling
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/algorithm/poisson_disk_sampling.py
# license: Apache-2.0
# area: misc
# port: ti->qd, taichi.math->quadrants.math; qd.random() in poisson_disk_sample() (a serial kernel) replaced by reads of the numpy-seeded rand_buf[head - 1, attempt, k] field; GGUI window loop replaced by 60 frames (no clicks); window_size 800->400 (time); checksum lines added
"""
Poisson disk sampling in Taichi, a fancy version.
Based on Yuanming Hu's code: https://github.com/taichi-dev/poisson_disk_sampling

User interface:

1. Click on the window to restart the animation.
2. Press `p` to save screenshot.
"""

import numpy as np
import quadrants as qd
import quadrants.math as tm

qd.init(arch=qd.cpu)

grid_n = 20
dx = 1 / grid_n
radius = dx * tm.sqrt(2)
desired_samples = 200
grid = qd.field(dtype=int, shape=(grid_n, grid_n))
samples = qd.Vector.field(2, dtype=float, shape=desired_samples)
window_size = 400
dfield = qd.Vector.field(4, dtype=float, shape=(window_size, window_size))
img = qd.Vector.field(3, dtype=float, shape=(window_size, window_size))
iMouse = qd.Vector.field(2, dtype=float, shape=())
iMouse[None] = [0.5, 0.5]
iResolution = tm.vec2(window_size)
head = qd.field(int, shape=())
tail = qd.field(int, shape=())
sample_count = qd.field(int, shape=())


@qd.func
def coord_to_index(p):
    return int(p * tm.vec2(grid_n))


@qd.kernel
def refresh_scene():
    head[None] = 0
    tail[None] = 1
    sample_count[None] = 1

    samples[0] = (p0 := iMouse[None])
    grid[coord_to_index(p0)] = 0

    for i, j in grid:
        grid[i, j] = -1

    for i, j in dfield:
        dfield[i, j] = tm.vec4(1e5)
        img[i, j] = tm.vec3(1)


@qd.func
def find_nearest_point(p):
    x, y = coord_to_index(p)
    dmin = 1e5
    nearest = iMouse[None]
    for i in range(qd.max(0, x - 2), qd.min(grid_n, x + 3)):
        for j in range(qd.max(0, y - 2), qd.min(grid_n, y + 3)):
            ind = grid[i, j]
            if ind != -1:
                q = samples[ind]
                d = (q - p).norm()
                if d < dmin:
                    dmin = d
                    nearest = q
    return dmin, nearest


rand_buf = qd.field(float, (desired_samples, 100, 2))
rand_buf.from_numpy(np.random.default_rng(0).random((desired_samples, 100, 2), dtype=np.float32))


@qd.kernel
def poisson_disk_sample(num_samples: int) -> int:
    while head[None] < tail[None] and head[None] < qd.min(num_samples, desired_samples):
        source_x = samples[head[None]]
        head[None] += 1

        for _ in range(100):
            theta = rand_buf[head[None] - 1, _, 0] * 2 * tm.pi
            offset = tm.vec2(tm.cos(theta), tm.sin(theta)) * (1 + rand_buf[head[None] - 1, _, 1]) * radius
            new_x = source_x + offset
            new_index = coord_to_index(new_x)

            if 0 <= new_x[0] < 1 and 0 <= new_x[1] < 1:
                collision = find_nearest_point(new_x)[0] < radius - 1e-6
                if not collision and tail[None] < desired_samples:
                    samples[tail[None]] = new_x
                    grid[new_index] = tail[None]
                    tail[None] += 1
    return tail[None]


@qd.func
def hash21(p):
    return tm.fract(tm.sin(tm.dot(p, tm.vec2(127.619, 157.583))) * 43758.5453)


@qd.func
def sample_dist(uv):
    uv = uv * iResolution
    x, y = tm.clamp(0, iResolution - 1, uv).cast(int)
    return dfield[x, y]


@qd.kernel
def compute_distance_field():
    for i, j in dfield:
        uv = tm.vec2(i, j) / iResolution
        d, p = find_nearest_point(uv)
        d = (uv - p).norm() - radius / 2.0
        dfield[i, j] = tm.vec4(d, p.x, p.y, radius / 2.0)


@qd.kernel
def render():
    for i, j in img:
        uv = tm.vec2(i, j) / iResolution.y
        st = tm.fract(uv * grid_n) - 0.5
        dg = 0.5 - abs(st)
        d1 = qd.min(dg.x, dg.y)
        d1 = tm.smoothstep(0.05, 0.0, d1)
        col = (1 - tm.vec3(d1)) * 0.7
        sf = 2 / iResolution.y
        buf = sample_dist(uv)
        bufSh = sample_dist(uv + tm.vec2(0.005, 0.015))
        cCol = tm.vec3(hash21(buf.yz + 0.3), hash21(buf.yz), hash21(buf.yz + 0.09))
        pat = (abs(tm.fract(-buf.x * 150) - 0.5) * 2) / 300
        col = tm.mix(col, tm.vec3(0), (1 - tm.smoothstep(0, 3 * sf, pat)) * 0.25)
        ew, ew2 = 0.005, 0.008
        cCol2 = tm.mix(cCol, tm.vec3(1), 0.9)
        col = tm.mix(col, tm.vec3(0), (1 - tm.smoothstep(0, sf * 2, bufSh.x)) * 0.4)
        col = tm.mix(col, tm.vec3(0), 1 - tm.smoothstep(sf, 0, -buf.x))
        col = tm.mix(col, cCol2, 1 - tm.smoothstep(sf, 0, -buf.x - ew))
        col = tm.mix(col, tm.vec3(0), 1 - tm.smoothstep(sf, 0, -buf.x - ew2 - ew))
        col = tm.mix(col, cCol, 1 - tm.smoothstep(sf, 0.0, -buf.x - ew2 - ew * 2))
        col = tm.sqrt(qd.max(col, 0))
        img[i, j] = col


def main():
    refresh_scene()
    for frame in range(60):
        poisson_disk_sample(sample_count[None])
        sample_count[None] += 1
        compute_distance_field()
        render()
    s = samples.to_numpy().astype(np.float64)[: tail[None]]
    print("checksum n_samples", int(tail[None]))
    print("checksum samples_sum", float(s.sum()))
    print("checksum grid_sum", int(grid.to_numpy().astype(np.int64).sum()))
    print("checksum img_sum", float(img.to_numpy().astype(np.float64).sum()))
    print("checksum dfield_sum", float(dfield.to_numpy().astype(np.float64).sum()))


if __name__ == "__main__":
    main()
