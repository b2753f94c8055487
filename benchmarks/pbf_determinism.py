"""Is a position-based fluid's run-to-run difference atomic order amplified by chaos, or a real
difference between qdexplorer.lang and Quadrants? (issue 29, part 4)

A 2-D position-based fluid (Macklin and Mueller 2013: density constraints solved by Jacobi
iterations, a tensile-instability correction, particles binned into a grid by `atomic_add`),
written here from the paper, in the common language (`--impl quadrants|ours` picks the import).
The slot a particle gets in its cell is the order in which threads reached the cell's counter,
so every neighbour sum is added in an order that can change from run to run. `--sorted` sorts
each cell's particles by index after binning, which takes that order out: the run is then a
pure function of its inputs, and two implementations can be compared step by step.

Saves the positions every `--every` steps to `--out` (.npz). `--compare A.npz B.npz ...` prints
JSON: for each pair, the largest and mean position difference at each checkpoint (in units of
the particle radius), so that growth from the last bit to the box size shows as chaos.

Usage: python benchmarks/pbf_determinism.py --impl ours --arch cuda [--sorted] --out a.npz
       python benchmarks/pbf_determinism.py --compare a.npz b.npz
"""
import argparse
import json
import sys

import numpy as np

N_SIDE = 48                  # particles: N_SIDE * 2 N_SIDE
N = N_SIDE * N_SIDE * 2
BOX_X, BOX_Y = 80.0, 40.0
H = 1.1                      # kernel radius
CELL = 2.51
GX, GY = int(BOX_X / CELL) + 1, int(BOX_Y / CELL) + 1
MAX_IN_CELL = 64
MAX_NB = 64
RHO0 = 1.0
LAMBDA_EPS = 100.0
DT = 1.0 / 20.0
ITERS = 5
RADIUS = 0.3
EPS = 1e-5
POLY6 = 315.0 / 64.0 / np.pi
SPIKY = -45.0 / np.pi


def build(qd, sorted_cells: bool):
    px, py = qd.field(qd.f32, shape=N), qd.field(qd.f32, shape=N)
    ox, oy = qd.field(qd.f32, shape=N), qd.field(qd.f32, shape=N)
    vx, vy = qd.field(qd.f32, shape=N), qd.field(qd.f32, shape=N)
    dx, dy = qd.field(qd.f32, shape=N), qd.field(qd.f32, shape=N)
    lam = qd.field(qd.f32, shape=N)
    count = qd.field(qd.i32, shape=(GX, GY))
    slots = qd.field(qd.i32, shape=(GX, GY, MAX_IN_CELL))
    nnb = qd.field(qd.i32, shape=N)
    nb = qd.field(qd.i32, shape=(N, MAX_NB))
    h2 = H * H

    @qd.func
    def poly6(r2):
        w = 0.0
        if r2 < h2:
            x = (h2 - r2) / (h2 * H)
            w = POLY6 / H * x * x * x
        return w

    @qd.func
    def spiky(rx, ry):
        r = qd.sqrt(rx * rx + ry * ry)
        gx, gy = 0.0, 0.0
        if 0.0 < r < H:
            x = (H - r) / (H * H * H)
            g = SPIKY * x * x / r
            gx, gy = rx * g, ry * g
        return gx, gy

    @qd.func
    def confine(x, lo, hi):
        return qd.min(qd.max(x, lo + RADIUS + EPS * x), hi - RADIUS - EPS * x)

    @qd.kernel
    def predict():
        for i in range(N):
            ox[i], oy[i] = px[i], py[i]
            vy[i] += -9.8 * DT
            px[i] = confine(px[i] + vx[i] * DT, 0.0, BOX_X)
            py[i] = confine(py[i] + vy[i] * DT, 0.0, BOX_Y)
        for c, d in count:
            count[c, d] = 0

    @qd.kernel
    def bin_particles():
        for i in range(N):
            cx = qd.cast(px[i] / CELL, qd.i32)
            cy = qd.cast(py[i] / CELL, qd.i32)
            s = qd.atomic_add(count[cx, cy], 1)  # the order threads arrive in: the source of nondeterminism
            if s < MAX_IN_CELL:
                slots[cx, cy, s] = i

    @qd.kernel
    def sort_cells():
        for c, d in count:
            n = qd.min(count[c, d], MAX_IN_CELL)
            for a in range(1, n):  # insertion sort by particle index
                v = slots[c, d, a]
                b = a - 1
                while b >= 0 and slots[c, d, b] > v:
                    slots[c, d, b + 1] = slots[c, d, b]
                    b -= 1
                slots[c, d, b + 1] = v

    @qd.kernel
    def find_neighbours():
        for i in range(N):
            cx = qd.cast(px[i] / CELL, qd.i32)
            cy = qd.cast(py[i] / CELL, qd.i32)
            k = 0
            for ex in range(-1, 2):
                for ey in range(-1, 2):
                    x, y = cx + ex, cy + ey
                    if 0 <= x < GX and 0 <= y < GY:
                        for s in range(qd.min(count[x, y], MAX_IN_CELL)):
                            j = slots[x, y, s]
                            rx, ry = px[i] - px[j], py[i] - py[j]
                            if j != i and k < MAX_NB and rx * rx + ry * ry < h2:
                                nb[i, k] = j
                                k += 1
            nnb[i] = k

    @qd.kernel
    def lambdas():
        for i in range(N):
            gix, giy, sum_g2, rho = 0.0, 0.0, 0.0, 0.0
            for k in range(nnb[i]):
                j = nb[i, k]
                rx, ry = px[i] - px[j], py[i] - py[j]
                gx, gy = spiky(rx, ry)
                gix += gx
                giy += gy
                sum_g2 += gx * gx + gy * gy
                rho += poly6(rx * rx + ry * ry)
            c = rho / RHO0 - 1.0
            sum_g2 += gix * gix + giy * giy
            lam[i] = -c / (sum_g2 + LAMBDA_EPS)

    @qd.kernel
    def deltas():
        for i in range(N):
            sx, sy = 0.0, 0.0
            for k in range(nnb[i]):
                j = nb[i, k]
                rx, ry = px[i] - px[j], py[i] - py[j]
                w = poly6(rx * rx + ry * ry) / poly6((0.3 * H) * (0.3 * H))
                scorr = -0.001 * w * w * w * w
                gx, gy = spiky(rx, ry)
                f = lam[i] + lam[j] + scorr
                sx += f * gx
                sy += f * gy
            dx[i], dy[i] = sx / RHO0, sy / RHO0

    @qd.kernel
    def apply():
        for i in range(N):
            px[i] = confine(px[i] + dx[i], 0.0, BOX_X)
            py[i] = confine(py[i] + dy[i], 0.0, BOX_Y)

    @qd.kernel
    def finish():
        for i in range(N):
            vx[i] = (px[i] - ox[i]) / DT
            vy[i] = (py[i] - oy[i]) / DT

    def step():
        predict()
        bin_particles()
        if sorted_cells:
            sort_cells()
        find_neighbours()
        for _ in range(ITERS):
            lambdas()
            deltas()
            apply()
        finish()

    g = np.arange(N)
    px.from_numpy((4.0 + (g % N_SIDE) * 0.7 + 0.05 * (g // N_SIDE % 2)).astype(np.float32))
    py.from_numpy((2.0 + (g // N_SIDE) * 0.35).astype(np.float32))
    vx.from_numpy(np.full(N, 5.0, np.float32))
    return step, px, py


def simulate(a) -> None:
    if a.impl == "quadrants":
        import quadrants as qd
        qd.init(arch=getattr(qd, a.arch), fast_math=False, offline_cache=False, log_level="error")
    else:
        import qdexplorer.lang as qd
        qd.init(arch=getattr(qd, a.arch), fast_math=False)
    step, px, py = build(qd, a.sorted)
    snaps = {}
    for s in range(1, a.steps + 1):
        step()
        if s % a.every == 0 or s in (1, 2, 5, 10):
            snaps[f"s{s}"] = np.stack([px.to_numpy(), py.to_numpy()])
    np.savez(a.out, **snaps)


def compare(paths: list[str]) -> dict:
    data = {p: np.load(p) for p in paths}
    out = {}
    for n, p in enumerate(paths):
        for q in paths[n + 1:]:
            rows = {}
            for key in sorted(data[p].files, key=lambda k: int(k[1:])):
                if key in data[q].files:
                    d = np.abs(data[p][key].astype(np.float64) - data[q][key]) / RADIUS
                    rows[key] = {"max": float(d.max()), "mean": float(d.mean()), "differ": int((d > 0).any(axis=0).sum())}
            out[f"{p} vs {q}"] = rows
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--impl", choices=["quadrants", "ours"], default="ours")
    ap.add_argument("--arch", default="cuda")
    ap.add_argument("--sorted", action="store_true", help="sort each cell by particle index after binning")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--every", type=int, default=25)
    ap.add_argument("--out", default="pbf.npz")
    ap.add_argument("--compare", nargs="+")
    a = ap.parse_args()
    if a.compare:
        print(json.dumps(compare(a.compare), indent=1))
        return
    simulate(a)


if __name__ == "__main__":
    sys.exit(main())
