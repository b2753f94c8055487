# corpus: taichi_initial_value_problem
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/initial_value_problem.py
# license: Apache-2.0
# area: misc
# port: ti->qd; arch=qd.cpu; GUI loop replaced by 50 frames with t = k * 0.5 (instead of the wall clock); checksum lines added
import time

import numpy as np

import quadrants as qd


def init():
    a = []
    for i in np.linspace(0, 1, n, False):
        for j in np.linspace(0, 1, n, False):
            a.append([i, j])
    return np.array(a).astype(np.float32)


qd.init(arch=qd.cpu)
n = 50
dirs = qd.field(dtype=float, shape=(n * n, 2))
locations_np = init()

locations = qd.field(dtype=float, shape=(n * n, 2))
locations.from_numpy(locations_np)


@qd.kernel
def paint(t: float):
    (o, p) = locations_np.shape
    for i in range(0, o):  # Parallelized over all pixels
        x = locations[i, 0]
        y = locations[i, 1]
        dirs[i, 0] = qd.sin((t * x - y))
        dirs[i, 1] = qd.cos(t * y - x)
        l = (dirs[i, 0] ** 2 + dirs[i, 1] ** 2) ** 0.5
        dirs[i, 0] /= l * 40
        dirs[i, 1] /= l * 40


def main():
    total = 0.0
    for k in range(50):
        paint(k * 0.5)
        dirs_np = dirs.to_numpy()
        total += float(np.abs(dirs_np.astype(np.float64)).sum())
    print("checksum dirs_abs_sum_all_frames", total)
    print("checksum dirs_sum_last", float(dirs_np.astype(np.float64).sum()))
    print("checksum dirs_7_0", float(dirs_np[7, 0]))


if __name__ == "__main__":
    main()
