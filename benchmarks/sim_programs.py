"""Two whole programs, defined once for qdexplorer and Quadrants alike (`define(qd)` takes either
module): what a user's time-step loop looks like, not one kernel.

- `particles`: fields and a `@qd.func`; each step runs three kernels (forces, integrate, a
  boundary bounce) and every 100 steps a reduction (kinetic energy) is read back to Python.
- `fluid`: a stable-fluid-like 2-D step: semi-Lagrangian advection with bilinear sampling, then a
  few Jacobi sweeps of a pressure-like diffusion (a 5-point stencil), on ndarrays.

`run_particles` / `run_fluid` return what the results are compared on, so the two languages can
be checked against each other (float32, same operation order: agreement to a few ulps).
"""
import time

import numpy as np

JACOBI = 4


def define(qd):
    @qd.func
    def spring(p: qd.f32, c: qd.f32) -> qd.f32:
        d = c - p
        return d * (1.0 / (1.0 + d * d))

    def particles(n: int):
        x = qd.field(qd.f32, shape=n)
        v = qd.field(qd.f32, shape=n)
        f = qd.field(qd.f32, shape=n)
        energy = qd.field(qd.f32, shape=())

        @qd.kernel
        def init():
            for i in range(n):
                x[i] = qd.sin(i * 0.37) * 2.0
                v[i] = 0.0

        @qd.kernel
        def forces(k: qd.f32):
            for i in range(n):
                left = x[(i + n - 1) % n]
                right = x[(i + 1) % n]
                f[i] = k * (spring(x[i], left) + spring(x[i], right)) - 0.01 * v[i]

        @qd.kernel
        def integrate(dt: qd.f32):
            for i in range(n):
                v[i] += dt * f[i]
                x[i] += dt * v[i]

        @qd.kernel
        def bounce():
            for i in range(n):
                if x[i] > 3.0:
                    x[i] = 6.0 - x[i]
                    v[i] = -v[i]
                if x[i] < -3.0:
                    x[i] = -6.0 - x[i]
                    v[i] = -v[i]

        @qd.kernel
        def kinetic():
            energy[None] = 0.0
            for i in range(n):
                energy[None] += 0.5 * v[i] * v[i]

        def step():
            forces(2.0)
            integrate(0.01)
            bounce()

        def read_energy() -> float:
            kinetic()
            return float(energy[None])

        return init, step, read_energy, x

    F2 = qd.types.ndarray(dtype=qd.f32, ndim=2)

    @qd.kernel
    def advect(q: F2, out: F2, u: F2, w: F2, dt: qd.f32):
        for i, j in qd.ndrange(q.shape[0], q.shape[1]):
            ny, nx = q.shape[0], q.shape[1]
            py = qd.min(qd.max(i - dt * w[i, j], 0.0), ny - 1.001)
            px = qd.min(qd.max(j - dt * u[i, j], 0.0), nx - 1.001)
            i0, j0 = qd.i32(py), qd.i32(px)
            fy, fx = py - i0, px - j0
            a = q[i0, j0] * (1.0 - fx) + q[i0, j0 + 1] * fx
            b = q[i0 + 1, j0] * (1.0 - fx) + q[i0 + 1, j0 + 1] * fx
            out[i, j] = a * (1.0 - fy) + b * fy

    @qd.kernel
    def jacobi(p: F2, out: F2, src: F2):
        for i, j in qd.ndrange((1, p.shape[0] - 1), (1, p.shape[1] - 1)):
            out[i, j] = 0.25 * (p[i - 1, j] + p[i + 1, j] + p[i, j - 1] + p[i, j + 1] - src[i, j])

    return {"particles": particles, "advect": advect, "jacobi": jacobi}


def run_particles(qd, ks, n: int, steps: int, sync) -> dict:
    """Per-step wall ms of the fields-and-func program (energy read back every 100 steps)."""
    init, step, read_energy, x = ks["particles"](n)
    init()
    init_error = _init_error(x.to_numpy())
    for _ in range(5):  # compiles every kernel
        step()
    read_energy()
    sync()
    energies = []
    t0 = time.perf_counter()
    for s in range(steps):
        step()
        if (s + 1) % 100 == 0:
            energies.append(read_energy())
    sync()
    ms = (time.perf_counter() - t0) * 1e3 / steps
    return {"ms_per_step": ms, "energies": energies, "x": x.to_numpy(), "init_error": init_error}


def _init_error(x0) -> dict:
    """How far the initial positions (2 sin(0.37 i), f32) are from float64's: with fast math each
    language reduces large sine arguments its own way, and the springs carry any difference on."""
    i = np.arange(len(x0), dtype=np.float32)
    err = np.abs(x0 - 2.0 * np.sin((i * np.float32(0.37)).astype(np.float64)))
    bad = np.nonzero(err > 1e-4)[0]
    return {"max_abs": float(err.max()), "over_1e-4": int(len(bad)), "first_over_1e-4": int(bad[0]) if len(bad) else -1}


def fluid_inputs(ny: int, nx: int) -> dict:
    rng = np.random.default_rng(7)
    yy, xx = np.mgrid[0:ny, 0:nx].astype(np.float32)
    return {"q": rng.random((ny, nx), dtype=np.float32),
            "u": (np.sin(yy * 0.05) * 3.0).astype(np.float32),
            "w": (np.cos(xx * 0.05) * 3.0).astype(np.float32),
            "src": (rng.random((ny, nx), dtype=np.float32) - 0.5) * 0.1}


def run_fluid(qd, ks, ny: int, nx: int, steps: int, sync, arrays) -> dict:
    """Per-step wall ms of the fluid program: one advection and JACOBI sweeps (ping-pong) a step.
    `arrays(np_array)` makes the language's array (a qd.ndarray filled from NumPy)."""
    d = fluid_inputs(ny, nx)
    q, q2 = arrays(d["q"]), arrays(np.zeros_like(d["q"]))
    p, p2 = arrays(np.zeros_like(d["q"])), arrays(np.zeros_like(d["q"]))
    u, w, src = arrays(d["u"]), arrays(d["w"]), arrays(d["src"])
    advect, jacobi = ks["advect"], ks["jacobi"]

    def step():
        advect(q, q2, u, w, 0.5)
        advect(q2, q, u, w, -0.5)
        for _ in range(JACOBI // 2):
            jacobi(p, p2, src)
            jacobi(p2, p, src)

    step()
    sync()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    sync()
    ms = (time.perf_counter() - t0) * 1e3 / steps
    return {"ms_per_step": ms, "q": q.to_numpy(), "p": p.to_numpy()}
